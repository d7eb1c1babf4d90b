"""Lowering: a gast function body -> IR ops, by abstract interpretation.

Every expression evaluates to either a compile-time Python object (a module, a function,
a constant, a list being built) or a :class:`~..symbolic.Sym` standing for a run-time
value. Operators and NumPy calls on Syms record IR ops through the tracer, so ``x * 3``
records ``multiply(x=%x, y=3)`` while ``2 * 3`` is simply ``6``. The environment maps
each local name to what it holds now, which renames reassigned variables into SSA values
that keep the user's name and line. Calls are handled in :mod:`.calls`.

    def f(x):               func f(%x) {
        y = np.sin(x)  ->     %y = sin(x=%x)       # line 2
        y = y * 3             %y.1 = multiply(x=%y, y=3)   # line 3
        return y.sum()        %0 = sum(x=%y.1, axis=None, keepdims=False)
                              return %0 }
"""

from __future__ import annotations

import operator
from typing import Any

import gast

from ..ir.core import Value
from ..symbolic import Sym, is_symbolic, record_rule, to_value
from . import calls, control
from .context import Context, LocalFunction, error
from .control import LoopExit, ReturnSignal
from .resolve import MISSING, Scope
from .source import Parsed

_BINOPS = {
    gast.Add: operator.add, gast.Sub: operator.sub, gast.Mult: operator.mul,
    gast.Div: operator.truediv, gast.Pow: operator.pow, gast.MatMult: operator.matmul,
    gast.FloorDiv: operator.floordiv, gast.Mod: operator.mod,
}
_CMPOPS = {
    gast.Lt: operator.lt, gast.LtE: operator.le, gast.Gt: operator.gt, gast.GtE: operator.ge,
    gast.Eq: operator.eq, gast.NotEq: operator.ne, gast.Is: operator.is_,
    gast.IsNot: operator.is_not, gast.In: lambda a, b: a in b,
    gast.NotIn: lambda a, b: a not in b,
}
_UNSUPPORTED = {
    gast.Try: ("try", "Move the error handling outside the differentiated function."),
    gast.With: ("with", "Move the context manager outside the differentiated function."),
    gast.AsyncWith: ("async with", "Differentiate a plain synchronous function."),
    gast.Global: ("global", "Pass the value as an argument and return the new one."),
    gast.Nonlocal: ("nonlocal", "Pass the value as an argument and return the new one."),
    gast.Delete: ("del", "Just stop using the name; rebind it if needed."),
    gast.ClassDef: ("class definition", "Define the class outside the function."),
    gast.AsyncFunctionDef: ("async def", "Differentiate a plain function."),
    gast.AsyncFor: ("async for", "Differentiate a plain function."),
}


class Lowerer:
    """Lowers one function body (the top-level function, or one inlined callee)."""

    def __init__(self, ctx: Context, parsed: Parsed, scope: Scope,
                 env: dict[str, Any], enclosing: list[dict[str, Any]] | None = None) -> None:
        self.ctx = ctx
        self.parsed = parsed
        self.scope = scope
        self.env = env
        self.enclosing = enclosing or []

    # --- entry points --------------------------------------------------------------
    def run_body(self, body: list[Any]) -> Any:
        """Lower statements until a ``return``; the returned object (None if none)."""
        return self.lower_stmts(body)[1]

    def lower_stmts(self, stmts: list[Any]) -> tuple[bool, Any]:
        """Lower ``stmts``; (True, value) if they returned, else (False, None)."""
        try:
            for k, stmt in enumerate(stmts):
                if isinstance(stmt, gast.If) and control.contains(stmt.body + stmt.orelse,
                                                                 (gast.Return,)):
                    with self.ctx.builder.at_line(self.line_of(stmt)):
                        test = self.expr(stmt.test)
                        if is_symbolic(test):
                            return True, control.lower_if_returning(self, stmt, test,
                                                                    stmts[k + 1:])
                    return self.lower_stmts((stmt.body if test else stmt.orelse)
                                            + stmts[k + 1:])
                self.stmt(stmt)
        except ReturnSignal as r:
            return True, r.value
        return False, None

    def run_lambda(self, node: Any) -> Any:
        return self.expr(node.body)

    def err(self, node: Any, message: str, advice: str | None = None) -> Exception:
        return error(self.parsed, node, message, advice)

    def line_of(self, node: Any) -> int | None:
        if self.ctx.call_line is not None:
            return self.ctx.call_line
        return self.parsed.file_line(node)

    # --- statements ----------------------------------------------------------------
    def stmt(self, node: Any) -> None:
        with self.ctx.builder.at_line(self.line_of(node)):
            self._stmt(node)

    def _stmt(self, node: Any) -> None:
        kind = type(node)
        if kind in _UNSUPPORTED:
            what, advice = _UNSUPPORTED[kind]
            raise self.err(node, f"`{what}` is not supported in a differentiated function.",
                           advice)
        method = getattr(self, f"stmt_{kind.__name__}", None)
        if method is None:
            raise self.err(node, f"the statement `{kind.__name__}` is not supported yet in a "
                           "differentiated function.",
                           "Rewrite it as straight-line assignments and NumPy calls.")
        method(node)

    def stmt_Expr(self, node: Any) -> None:
        if isinstance(node.value, gast.Constant):
            return  # docstring or bare constant
        if isinstance(node.value, (gast.Yield, gast.YieldFrom, gast.Await)):
            raise self.err(node, "`yield` is not supported in a differentiated function.",
                           "Return the values (a tuple or list) instead of yielding them.")
        self.expr(node.value)

    def stmt_Pass(self, node: Any) -> None:
        pass

    def stmt_Return(self, node: Any) -> None:
        raise ReturnSignal(None if node.value is None else self.expr(node.value))

    def stmt_Assign(self, node: Any) -> None:
        value = self.expr(node.value)
        for target in node.targets:
            self.assign(target, value, node)

    def stmt_AnnAssign(self, node: Any) -> None:
        if node.value is not None:
            self.assign(node.target, self.expr(node.value), node)

    def stmt_AugAssign(self, node: Any) -> None:
        target = node.target
        op = _BINOPS.get(type(node.op))
        if op is None:
            raise self.err(node, f"the operator {type(node.op).__name__}= is not supported.")
        if isinstance(target, gast.Name):
            current = self.load(target.id, target)
            self.check_inplace(current, target.id, node)
            self.assign(target, self.binop(op, current, self.expr(node.value), node), node)
        elif isinstance(target, gast.Subscript):
            self.subscript_write(target, node)
        else:
            raise self.err(node, "augmented assignment to an attribute is not supported.",
                           "Compute the new value into a local variable instead.")

    def stmt_FunctionDef(self, node: Any) -> None:
        if node.decorator_list:
            raise self.err(node, f"decorated nested function {node.name} is not supported.",
                           "Define it at module level and decorate it there.")
        defaults = [self.expr(d) for d in node.args.defaults]
        self.env[node.name] = LocalFunction(node, self.parsed, self.scope,
                                            [self.env, *self.enclosing], defaults, node.name)

    def stmt_Assert(self, node: Any) -> None:
        test = self.expr(node.test)
        msg = None if node.msg is None else self.expr(node.msg)
        if is_symbolic(msg):
            raise self.err(node, "an assert message computed from arrays is not supported.",
                           "Use a constant message.")
        if not is_symbolic(test):
            if not test:
                self.ctx.builder.emit("raise", attrs={"exc": AssertionError, "args":
                                                      () if msg is None else (msg,)}, n_out=0)
            return
        self.ctx.builder.emit("assert", {"test": to_value(test)}, attrs={"msg": msg}, n_out=0)

    def stmt_Raise(self, node: Any) -> None:
        exc = node.exc
        if exc is None:
            raise self.err(node, "a bare `raise` is not supported.", "Raise an exception.")
        if isinstance(exc, gast.Call):
            cls = self.expr(exc.func)
            args = tuple(self.expr(a) for a in exc.args)
        else:
            cls, args = self.expr(exc), ()
        if is_symbolic(args) or not (isinstance(cls, type) and issubclass(cls, BaseException)):
            raise self.err(node, "only `raise SomeError(constant arguments)` is supported.")
        self.ctx.builder.emit("raise", attrs={"exc": cls, "args": args}, n_out=0)

    def stmt_Import(self, node: Any) -> None:
        import importlib
        for alias in node.names:
            module = importlib.import_module(alias.name)
            if alias.asname:
                self.env[alias.asname] = module
            else:
                self.env[alias.name.split(".")[0]] = importlib.import_module(
                    alias.name.split(".")[0])

    def stmt_ImportFrom(self, node: Any) -> None:
        import importlib
        module = importlib.import_module(node.module)
        for alias in node.names:
            self.env[alias.asname or alias.name] = getattr(module, alias.name)

    def stmt_If(self, node: Any) -> None:
        test = self.expr(node.test)
        if is_symbolic(test):
            control.lower_if(self, node, test)
        else:
            self.run_block(node.body if test else node.orelse)

    def stmt_For(self, node: Any) -> None:
        control.lower_for(self, node)

    def stmt_While(self, node: Any) -> None:
        control.lower_while(self, node)

    def stmt_Break(self, node: Any) -> None:
        raise LoopExit("break")

    def stmt_Continue(self, node: Any) -> None:
        raise LoopExit("continue")

    def builtin_len(self, x: Any, node: Any) -> Any:
        return calls.call(self, len, [x], {}, node)

    def builtin_min(self, a: Any, b: Any, node: Any) -> Any:
        return calls.call(self, min, [a, b], {}, node)

    def run_block(self, body: list[Any]) -> None:
        for stmt in body:
            self.stmt(stmt)

    # --- assignment and aliasing ---------------------------------------------------
    def assign(self, target: Any, value: Any, node: Any) -> None:
        if isinstance(target, gast.Name):
            if isinstance(value, Sym):
                value = self.named(value, target.id)
            self.env[target.id] = value
        elif isinstance(target, (gast.Tuple, gast.List)):
            items = self.unpack(value, len(target.elts), node)
            for t, v in zip(target.elts, items):
                self.assign(t, v, node)
        elif isinstance(target, gast.Subscript):
            self.subscript_write(target, node)
        elif isinstance(target, gast.Attribute):
            raise self.err(node, "assignment to an attribute is not supported (it would change "
                           "an object outside the function).",
                           "Keep the value in a local variable and return it.")
        else:
            raise self.err(node, f"cannot assign to {type(target).__name__}.")

    def named(self, value: Sym, name: str) -> Sym:
        """Give ``value`` the user's name (``b = a`` simply binds ``b`` to ``a``'s value)."""
        v = value.value
        if v.name is None and v.op is not None and v.op.prim != "const":
            v.name = name
        return value

    def unpack(self, value: Any, n: int, node: Any) -> list[Any]:
        if isinstance(value, (tuple, list)):
            if len(value) != n:
                raise self.err(node, f"cannot unpack {len(value)} values into {n} names.")
            return list(value)
        if isinstance(value, Sym):
            ndim = value.value.type.known_ndim if value.value.type else None
            if value.value.type is not None and value.value.type.kind == "static" or ndim:
                return [value[i] for i in range(n)]
            raise self.err(node, "tuple unpacking of an array of unknown shape is not supported.",
                           "Index it explicitly: a, b = x[0], x[1].")
        return list(value)

    def check_inplace(self, current: Any, name: str, node: Any) -> None:
        """``name += ...`` on an array mutates it: refuse when others could see that."""
        if not isinstance(current, Sym):
            return
        t = current.value.type
        if t is not None and (t.is_python_number or t.kind in ("scalar", "static", "none")):
            return
        root = self.ctx.root(current.value)
        if root.id in self.ctx.argument_ids:
            raise self.err(node, f"`{name} {type(node.op).__name__}=` would modify the caller's "
                           f"array `{root.name}` in place (derived functions never modify "
                           "their arguments).",
                           f"Copy it first ({name} = {name}.copy()) or write {name} = {name} "
                           "+ ... .")
        self.check_shared(current, name, node, "an augmented assignment to")

    def subscript_write(self, target: Any, node: Any) -> None:
        """``y[i] = v`` / ``y[i] += v`` on a local array: a functional ``index_put``."""
        base = self.expr(target.value)
        if isinstance(base, Sym):
            root = self.ctx.root(base.value)
            if root.id in self.ctx.argument_ids:
                raise self.err(node, f"a subscript write into `{root.name}` (or a view of it) "
                               "would modify the caller's array (derived functions never "
                               "modify their arguments).",
                               f"Work on a copy: {root.name} = {root.name}.copy().")
            if not isinstance(target.value, gast.Name) or root is not base.value:
                raise self.err(node, "a subscript write into a view of another array would "
                               "change that array too.",
                               "Write into the array itself, or make the view a copy with "
                               ".copy().")
            name = target.value.id
            self.check_shared(base, name, node, "a subscript write into")
            index = self.expr(target.slice)
            value = self.expr(node.value)
            if isinstance(node, gast.AugAssign):
                old = record_rule(calls.rule("getitem"), [base], {"index": index})
                value = self.binop(_BINOPS[type(node.op)], old, value, node)
            out = record_rule(calls.rule("index_put"), [base, value], {"index": index})
            self.env[name] = self.named(out, name)
            return
        if isinstance(base, list) and not isinstance(target.slice, gast.Slice):
            index = self.expr(target.slice)
            if is_symbolic(index):
                raise self.err(node, "a list index known only at run time is not supported.",
                               "Build the list with .append, then np.stack it.")
            value = self.expr(node.value)
            if isinstance(node, gast.AugAssign):
                value = self.binop(_BINOPS[type(node.op)], base[index], value, node)
            base[index] = value
            return
        raise self.err(node, "this subscript assignment is not supported.",
                       "Assign to a local array or list variable: y[i] = v.")

    def check_shared(self, current: Sym, name: str, node: Any, what: str) -> None:
        root = self.ctx.root(current.value)
        for env in (self.env, *self.enclosing):
            for other, held in env.items():
                if other != name and isinstance(held, Sym) \
                        and self.ctx.root(held.value) is root:
                    raise self.err(node, f"{what} `{name}` would also change `{other}`, which "
                                   "shares its array.",
                                   f"Copy it first ({name} = {name}.copy()).")

    # --- expressions ---------------------------------------------------------------
    def expr(self, node: Any) -> Any:
        method = getattr(self, f"expr_{type(node).__name__}", None)
        if method is None:
            raise self.err(node, f"the expression `{type(node).__name__}` is not supported in "
                           "a differentiated function.",
                           "Rewrite it with plain assignments, operators and NumPy calls.")
        return method(node)

    def expr_Constant(self, node: Any) -> Any:
        return node.value

    def expr_Name(self, node: Any) -> Any:
        return self.load(node.id, node)

    def load(self, name: str, node: Any) -> Any:
        for env in (self.env, *self.enclosing):
            if name in env:
                return env[name]
        value = self.scope.lookup(name, self.ctx.deps)
        if value is MISSING:
            raise self.err(node, f"name `{name}` is not defined.",
                           "Define or import it (at module level or in the function) before "
                           "the derived function is first called.")
        return value

    def expr_Attribute(self, node: Any) -> Any:
        obj = self.expr(node.value)
        if is_symbolic(obj):
            return calls.attribute(self, obj, node.attr, node)
        try:
            return getattr(obj, node.attr)
        except AttributeError:
            raise self.err(node, f"{type(obj).__name__} has no attribute `{node.attr}`.") from None

    def expr_BinOp(self, node: Any) -> Any:
        op = _BINOPS.get(type(node.op))
        if op is None:
            raise self.err(node, f"the operator {type(node.op).__name__} is not supported.")
        return self.binop(op, self.expr(node.left), self.expr(node.right), node)

    def binop(self, op: Any, a: Any, b: Any, node: Any) -> Any:
        if op in (operator.floordiv, operator.mod) and (is_symbolic(a) or is_symbolic(b)):
            name = "floor_divide" if op is operator.floordiv else "remainder"
            return calls.call_numpy_name(self, name, [a, b], {}, node)
        try:
            return op(a, b)
        except TypeError as e:
            raise self.err(node, f"unsupported operand types: {e}") from None

    def expr_UnaryOp(self, node: Any) -> Any:
        v = self.expr(node.operand)
        if isinstance(node.op, gast.USub):
            return -v
        if isinstance(node.op, gast.UAdd):
            return v
        if isinstance(node.op, gast.Not):
            if isinstance(v, Sym):
                return ~v
            return not v
        return ~v

    def expr_Compare(self, node: Any) -> Any:
        left = self.expr(node.left)
        result: Any = True
        for op, comp in zip(node.ops, node.comparators):
            right = self.expr(comp)
            part = _CMPOPS[type(op)](left, right)
            result = part if result is True else (
                result & part if is_symbolic(result) or is_symbolic(part) else result and part)
            left = right
        return result

    def expr_BoolOp(self, node: Any) -> Any:
        values = [self.expr(v) for v in node.values]
        if any(is_symbolic(v) for v in values):  # a run-time condition: combine elementwise
            name = "logical_and" if isinstance(node.op, gast.And) else "logical_or"
            result = values[0]
            for v in values[1:]:
                result = calls.call_numpy_name(self, name, [result, v], {}, node)
            return result
        result = values[0]
        for v in values[1:]:
            result = (result and v) if isinstance(node.op, gast.And) else (result or v)
        return result

    def expr_IfExp(self, node: Any) -> Any:
        test = self.expr(node.test)
        if is_symbolic(test):
            return control.lower_ifexp(self, node, test)
        return self.expr(node.body if test else node.orelse)

    def expr_Tuple(self, node: Any) -> Any:
        return tuple(self.elements(node))

    def expr_List(self, node: Any) -> Any:
        return list(self.elements(node))

    def elements(self, node: Any) -> list[Any]:
        out: list[Any] = []
        for e in node.elts:
            if isinstance(e, gast.Starred):
                v = self.expr(e.value)
                if is_symbolic(v) and not isinstance(v, (tuple, list)):
                    raise self.err(e, "unpacking (*x) an array is not supported.")
                out.extend(v)
            else:
                out.append(self.expr(e))
        return out

    def expr_Dict(self, node: Any) -> Any:
        keys = [self.expr(k) for k in node.keys]
        return dict(zip(keys, [self.expr(v) for v in node.values]))

    def expr_Slice(self, node: Any) -> Any:
        parts = [None if p is None else self.expr(p) for p in (node.lower, node.upper, node.step)]
        return slice(*parts)

    def expr_Subscript(self, node: Any) -> Any:
        base = self.expr(node.value)
        index = self.expr(node.slice)
        if isinstance(base, Sym):
            out = record_rule(calls.rule("getitem"), [base], {"index": index})
            if _is_view_index(index):
                self.ctx.note_view(out.value, base.value)
            return out
        if is_symbolic(index):
            raise self.err(node, "indexing a Python list or tuple with a value known only at "
                           "run time is not supported.", "Use np.stack(...) and index the array.")
        try:
            return base[index]
        except (IndexError, KeyError, TypeError) as e:
            raise self.err(node, f"bad subscript: {e}") from None

    def expr_Call(self, node: Any) -> Any:
        func = self.expr(node.func)
        args: list[Any] = []
        for a in node.args:
            if isinstance(a, gast.Starred):
                v = self.expr(a.value)
                if isinstance(v, Sym):
                    raise self.err(a, "unpacking (*x) an array in a call is not supported.")
                args.extend(v)
            else:
                args.append(self.expr(a))
        kwargs: dict[str, Any] = {}
        for k in node.keywords:
            if k.arg is None:
                v = self.expr(k.value)
                if not isinstance(v, dict):
                    raise self.err(node, "**kwargs of a value known only at run time.")
                kwargs.update(v)
            else:
                kwargs[k.arg] = self.expr(k.value)
        return calls.call(self, func, args, kwargs, node)

    def expr_Lambda(self, node: Any) -> Any:
        defaults = [self.expr(d) for d in node.args.defaults]
        return LocalFunction(node, self.parsed, self.scope, [self.env, *self.enclosing],
                             defaults, "<lambda>")

    def expr_JoinedStr(self, node: Any) -> Any:
        parts = []
        for v in node.values:
            if isinstance(v, gast.FormattedValue):
                value = self.expr(v.value)
                if is_symbolic(value):
                    raise self.err(node, "an f-string of a value known only at run time is not "
                                   "supported.", "Pass the value to print() directly.")
                parts.append(format(value))
            else:
                parts.append(self.expr(v))
        return "".join(parts)

    def expr_Yield(self, node: Any) -> Any:
        raise self.err(node, "`yield` is not supported in a differentiated function.",
                       "Return the values (a tuple or list) instead of yielding them.")

    expr_YieldFrom = expr_Yield

    def expr_NamedExpr(self, node: Any) -> Any:
        raise self.err(node, "the walrus operator `:=` is not supported.",
                       "Assign in a separate statement.")


def _is_view_index(index: Any) -> bool:
    parts = index if isinstance(index, tuple) else (index,)
    return all(p is None or p is Ellipsis or isinstance(p, (int, slice, Sym)) for p in parts)


def value_of(obj: Any) -> Value:
    return to_value(obj)

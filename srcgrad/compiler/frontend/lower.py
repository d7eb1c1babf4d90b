"""Lowering: a gast function body -> IR ops, by abstract interpretation.

Every expression evaluates to either a compile-time Python object (a module, a function,
a constant, a list being built) or a :class:`~..symbolic.Sym` standing for a run-time
value. Operators and NumPy calls on Syms record IR ops through the tracer, so ``x * 3``
records ``multiply(x=%x, y=3)`` while ``2 * 3`` is simply ``6``. The environment maps
each local name to what it holds now, which renames reassigned variables into SSA values
that keep the user's name and line. This module lowers statements; expressions are in
:mod:`.expressions`, assignments and the aliasing rule in :mod:`.assign`, calls in
:mod:`.calls`, control flow in :mod:`.branches` and :mod:`.loops`.

    def f(x):               func f(%x) {
        y = np.sin(x)  ->     %y = sin(x=%x)       # line 2
        y = y * 3             %y.1 = multiply(x=%y, y=3)   # line 3
        return y.sum()        %0 = sum(x=%y.1, axis=None, keepdims=False)
                              return %0 }
"""

from __future__ import annotations

from typing import Any

import gast

from ..symbolic import is_symbolic, to_value
from . import branches, calls, control, loop_exits, loops
from .assign import AssignMixin
from .context import Context, LocalFunction, error
from .control import LoopExit, ReturnSignal
from .expressions import ExpressionsMixin
from .operators import BINOPS
from .policy import POLICY
from .policy import note as record_note
from .resolve import Scope
from .source import Parsed
from .syntax_names import describe, operator_spelling

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


class Lowerer(AssignMixin, ExpressionsMixin):
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
        stmts = list(stmts)
        try:
            for k, stmt in enumerate(stmts):
                if isinstance(stmt, (gast.For, gast.While)) and control.contains(
                        stmt.body, (gast.Return,)):
                    self.stmt(stmt)  # a run-time loop may return: `if flag: return value`
                    stmts[k + 1:k + 1] = loop_exits.after_loop_return(self, stmt)
                    continue
                if isinstance(stmt, gast.If) and control.contains(stmt.body + stmt.orelse,
                                                                 (gast.Return,)):
                    with self.ctx.builder.at_line(self.line_of(stmt)):
                        test = self.expr(stmt.test)
                        fold = POLICY.should_fold_if(test)
                        if not fold:
                            return True, branches.lower_if_returning(self, stmt, test,
                                                                    stmts[k + 1:])
                    self.note(stmt, fold.reason)
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

    def note(self, node: Any, text: str | None) -> None:
        """Say after ``node``'s line in the emitted code why it was evaluated while
        compiling (:mod:`.policy`)."""
        if getattr(node, "srcgrad_synthetic", False):
            return
        end = getattr(node, "end_lineno", None)
        record_note(self.ctx, self.parsed.file_line(node),
                    None if end is None else end + self.parsed.firstlineno - 1, text)

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
            raise self.err(node, f"the {describe(node)} is not supported yet in a "
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
        op = BINOPS.get(type(node.op))
        if op is None:
            raise self.err(node, f"the augmented assignment {operator_spelling(node.op)}= is not "
                           "supported in a differentiated function.",
                           f"Write it out: y = y {operator_spelling(node.op)} v.")
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
                                            [self.env, *self.enclosing], defaults, node.name,
                                            self.kw_defaults(node.args))

    def stmt_Assert(self, node: Any) -> None:
        test = self.expr(node.test)
        msg = None if node.msg is None else self.expr(node.msg)
        if is_symbolic(msg):
            raise self.err(node, "an assert message computed from arrays is not supported.",
                           "Use a constant message.")
        if POLICY.should_fold_if(test):
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
        fold = POLICY.should_fold_if(test)
        if not fold:
            branches.lower_if(self, node, test)
        else:
            self.note(node, fold.reason)
            self.run_block(node.body if test else node.orelse)

    def stmt_For(self, node: Any) -> None:
        loops.lower_for(self, node)

    def stmt_While(self, node: Any) -> None:
        loops.lower_while(self, node)

    def stmt_Break(self, node: Any) -> None:
        self._exit("break")

    def stmt_Continue(self, node: Any) -> None:
        self._exit("continue")

    def _exit(self, kind: str) -> None:
        flags = self.ctx.loop_flags[-1] if self.ctx.loop_flags else None
        if not flags:  # a loop unrolled at compile time (or none): decided now
            raise LoopExit(kind)
        self.env[flags[kind]] = True

    def lower_guarded(self, stmts: list[Any], flags: dict[str, str]) -> None:
        loop_exits.lower_guarded(self, stmts, flags)

    def builtin_len(self, x: Any, node: Any) -> Any:
        return calls.call(self, len, [x], {}, node)

    def builtin_min(self, a: Any, b: Any, node: Any) -> Any:
        return calls.call(self, min, [a, b], {}, node)

    def run_block(self, body: list[Any]) -> None:
        flags = self.ctx.loop_flags[-1] if self.ctx.loop_flags else None
        if flags:  # inside a run-time loop: a break/continue here guards what follows
            self.lower_guarded(body, flags)
            return
        for stmt in body:
            self.stmt(stmt)

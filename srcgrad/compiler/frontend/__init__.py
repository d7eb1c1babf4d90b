"""Frontend: user function -> IR (:func:`lower`).

:mod:`.source` parses, :mod:`.resolve` resolves free names, :mod:`.lower` lowers statements
and expressions, :mod:`.calls` and :mod:`.methods` lower calls and array methods.
What is evaluated while compiling rather than emitted (unrolled loops, peeled trips, folded
``if``, builtins on known values, inlining depth) is decided by one named policy,
:mod:`.policy`, whose reasons the emitted ``# line N`` comments show.
"""

from __future__ import annotations

import functools
import types
from collections.abc import Sequence
from typing import Any

import gast

from .. import structure as S
from ..ir import types as T
from ..ir.builder import Builder
from ..ir.core import Block, Function, Value
from ..result_trees import result_structure
from ..structure import is_plain_object
from ..symbolic import Sym, is_symbolic, to_value
from . import captured, recursion
from .context import Context, error
from .control import flatten
from .dead_checks import mark_dead_checks
from .lower import Lowerer
from .resolve import Dependency, Scope
from .returns import check_result
from .source import Parsed, parse_function

__all__ = ["lower", "parameter_names"]


def unwrap(fn: Any) -> tuple[Any, list[tuple[Any, str, tuple[Any, ...]]]]:
    """The function a bound method or ``functools.partial`` calls, and where each of its
    first parameters is bound: (object, attribute, path) read when the derivative runs
    (``model.loss`` binds ``self`` to ``model.loss.__self__``; ``partial(f, W)`` binds the
    first parameter to ``p.args[0]``)."""
    if isinstance(fn, types.MethodType):
        inner, bound = unwrap(fn.__func__)
        return inner, [(fn, "__self__", ()), *bound]
    if isinstance(fn, functools.partial):
        inner, bound = unwrap(fn.func)
        return inner, [*bound, *[(fn, "args", (i,)) for i in range(len(fn.args))]]
    call = next((c.__dict__["__call__"] for c in type(fn).__mro__
                 if "__call__" in c.__dict__), None)
    if is_plain_object(fn) and isinstance(call, types.FunctionType):
        return unwrap(types.MethodType(call, fn))  # a callable object: its __call__
    return fn, []


def parameter_names(fn: Any) -> list[str]:
    """The positional-or-keyword then keyword-only parameter names of ``fn`` (of what a
    bound method or partial leaves to its caller)."""
    target, bound = unwrap(fn)
    if target is not fn:
        return parameter_names(target)[len(bound):]
    parsed = parse_function(fn)
    a = parsed.node.args
    if a.kwarg is not None:
        raise error(parsed, parsed.node, f"{fn.__qualname__}: a **kwargs parameter is not "
                    "supported in a differentiated function.",
                    "Name its keyword parameters explicitly.")
    if a.vararg is not None:  # (sg.grad & co. compile one version per count: ..varargs)
        raise error(parsed, parsed.node, f"{fn.__qualname__}: *args parameters are "
                    "differentiated per number of arguments, which is not known here.",
                    "Call the derived function (sg.grad(f)(...)), or list the parameters.")
    return [p.id for p in (*a.posonlyargs, *a.args, *a.kwonlyargs)]


def lower(fn: Any, arg_types: Sequence[T.AType] | None = None
          ) -> tuple[Function, list[Dependency]]:
    """Lower ``fn`` to IR for arguments of ``arg_types`` (None: the generic version)."""
    fn, bound_first = unwrap(fn)
    parsed = parse_function(fn)
    all_names = parameter_names(fn)
    names = all_names[len(bound_first):]
    types = list(arg_types) if arg_types is not None else [T.ANY] * len(names)
    node = parsed.node
    line = parsed.file_line(node)
    # a structured argument (a Tree, see ..structure) is one IR parameter per run-time
    # leaf; the name is bound to its container rebuilt around those parameters
    params: list[Value] = []
    bound: dict[str, Any] = {}
    for n, t in zip(names, types):
        if isinstance(t, tuple):
            leaves = [Value(name=S.leaf_name(n, path), line=line, type=leaf[1])
                      for path, leaf in S.leaf_paths(t) if leaf[0] == "leaf"]
            params += leaves
            bound[n] = S.build(t, iter([Sym(v) for v in leaves]))
        else:
            params.append(Value(name=n, line=line, type=t))
            bound[n] = None if t == T.NONE else Sym(params[-1])
    body = Block()
    ir = Function(getattr(fn, "__name__", "f").replace("<lambda>", "lambda"), params, body,
                  filename=parsed.filename, firstlineno=parsed.firstlineno,
                  source_lines=dict(parsed.lines))
    with Builder(body) as builder:
        ctx = Context(builder, entry=body)
        ir.notes = ctx.notes  # shown in the emitted comments (.policy)
        ctx.argument_ids = {p.id for p in params}
        ctx.code_stack.append(getattr(fn, "__code__", None))
        # a None argument is the compile-time None (this version is for None only: see
        # signature.key_of), so `w is None` folds and `x * w` fails as it would in Python
        env: dict[str, Any] = dict(bound)
        ctx.argument_containers = {id(c): c for c in _containers(bound.values())}
        lw = Lowerer(ctx, parsed, Scope.of(fn), env)
        for name, (holder, attr, path) in zip(all_names, bound_first):
            # `self` of a bound method, a partial's arguments: captured, read at run time
            source = captured.Source(holder, "attr", attr, path, name=name)
            value = captured.step_all(getattr(holder, attr), path)
            if is_plain_object(value):
                env[name] = captured.CapturedObject(source, value)
            else:
                env[name] = captured.capture(lw, source, value, node)
        if isinstance(node, gast.Lambda):
            result = lw.run_lambda(node)
        else:
            result = lw.run_body(node.body)
        check_result(parsed, node, getattr(fn, "__qualname__", ir.name), result)
        recursion.check_recomputable(fn, body.walk(), parsed.filename)
        recursion.check_one_result(fn, body.walk(), result, parsed.filename, line)
        with builder.at_line(None):
            # a (nested) tuple or list result is split into its leaves, so that each one is
            # a separate result the transforms can seed and differentiate
            # a dict, namedtuple or dataclass in the result: its leaves returned as one
            # flat tuple, rebuilt at the boundary (see ..boundary) from its tree
            structure = result_structure(result, is_symbolic)
            if structure is not None:
                result = tuple(S.leaves_of(structure, result))
                ir.meta["result_structure"] = structure
            leaves, shape = flatten(result)
            body.results = [to_value(r) for r in leaves]
            ir.meta["returns"] = result_tree(shape)
            if shape is not None:
                ir.meta["tuple_result"] = True
    ir.meta["return_line"] = _return_line(parsed, node)
    mark_dead_checks(ir)  # (the user's unread ops that may raise stay in every derivative)
    return ir, ctx.deps


def _containers(values: Any) -> list[Any]:
    """Every container nested in ``values`` (argument containers: never written into)."""
    out = []
    for v in values:
        if S.is_container(v):
            out.append(v)
            out += _containers([c for _, c in S.children(v)])
    return out


def result_tree(shape: Any) -> Any:
    """The ``returns`` tree of a result of :func:`~.control.flatten` shape ``shape``: an int
    picks a result, a list of trees makes a tuple, ``("list", trees)`` makes a list (see
    ``backend.emit.build``)."""
    counter = iter(range(1 << 30))

    def tree(s: Any) -> Any:
        if s is None:
            return next(counter)
        items = [tree(item) for item in s[1]]
        return items if s[0] == "tuple" else ("list", items)
    return tree(shape)


def _return_line(parsed: Parsed, node: Any) -> int | None:
    if isinstance(node, gast.Lambda):
        return parsed.file_line(node)
    for stmt in reversed(node.body):
        if isinstance(stmt, gast.Return):
            return parsed.file_line(stmt)
    return None

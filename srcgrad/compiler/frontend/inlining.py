"""Lowering a call of a user function by inlining it: its body lowered with the arguments
bound, so it is differentiated through.

Reached from :func:`.calls.call` for a nested ``def``/``lambda`` (:func:`inline_local`) and
for a module-level function, a method or ``__call__`` with readable source
(:func:`inline_user`). A recursive call the compile-time policy does not unroll becomes a
call of the function's own derivative (:mod:`.recursion`); the depth of inlining is bounded
by :data:`.policy.POLICY`.
"""

from __future__ import annotations

import inspect
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

import gast

from srcgrad.errors import SrcGradError

from ..ir.core import Block
from . import captured, recursion
from .context import LocalFunction
from .policy import POLICY
from .resolve import Dependency, Scope
from .source import Parsed, parse_function

if TYPE_CHECKING:
    from .lower import Lowerer


def bind_call(lw: Lowerer, signature: inspect.Signature, name: str, args: list[Any],
              kwargs: dict[str, Any], node: Any, advice: str | None = None
              ) -> inspect.BoundArguments:
    """``args``/``kwargs`` bound to ``signature`` as Python would bind them (defaults not
    applied), or Python's own complaint refused at the user's line as a bad call of
    ``name``."""
    try:
        return signature.bind(*args, **kwargs)
    except TypeError as e:
        raise lw.err(node, f"bad call of {name}: {e}", advice) from None


def _bind_local(fn: LocalFunction, args: list[Any], kwargs: dict[str, Any],
                lw: Lowerer, node: Any) -> dict[str, Any]:
    a = fn.node.args
    names = [p.id for p in a.args]
    params = [inspect.Parameter(n, inspect.Parameter.POSITIONAL_OR_KEYWORD) for n in names]
    first_default = len(names) - len(fn.defaults)
    for i, d in enumerate(fn.defaults):
        params[first_default + i] = params[first_default + i].replace(default=d)
    # `*args` / `**kwargs` of a nested def or lambda (autograd's wrappers are written so):
    # bound to the tuple / dict of what this call passes, known while compiling
    if a.vararg is not None:
        params.append(inspect.Parameter(a.vararg.id, inspect.Parameter.VAR_POSITIONAL))
    params += [inspect.Parameter(p.id, inspect.Parameter.KEYWORD_ONLY,
                                 default=fn.kw_defaults.get(p.id, inspect.Parameter.empty))
               for p in a.kwonlyargs]
    if a.kwarg is not None:
        params.append(inspect.Parameter(a.kwarg.id, inspect.Parameter.VAR_KEYWORD))
    bound = bind_call(lw, inspect.Signature(params), fn.name, args, kwargs, node)
    bound.apply_defaults()
    return {k: dict(v) if a.kwarg is not None and k == a.kwarg.id else
            tuple(v) if a.vararg is not None and k == a.vararg.id else v
            for k, v in bound.arguments.items()}


def inline_local(lw: Lowerer, fn: LocalFunction, args: list[Any], kwargs: dict[str, Any],
                 node: Any) -> Any:
    env = _bind_local(fn, args, kwargs, lw, node)
    with _refused_at_call(lw, node, fn.name):
        return _inline(lw, fn.parsed, fn.node, fn.scope, env, fn.envs, node)


def inline_user(lw: Lowerer, fn: Any, args: list[Any], kwargs: dict[str, Any], node: Any) -> Any:
    try:
        parsed = parse_function(fn)
    except SrcGradError:
        name = getattr(fn, "__qualname__", repr(fn))
        raise lw.err(node, f"the call to {name} has no derivative rule and its source cannot "
                     "be read (defined in a REPL, by exec, or in C).",
                     f"Register its derivative with sg.defvjp({name}, ...), or define it in a "
                     ".py file.") from None
    with _refused_at_call(lw, node, _qualified(fn)):
        return _inline_user(lw, fn, parsed, args, kwargs, node)


def _inline_user(lw: Lowerer, fn: Any, parsed: Parsed, args: list[Any],
                 kwargs: dict[str, Any], node: Any) -> Any:
    bound = bind_call(lw, inspect.signature(fn), fn.__qualname__, args, kwargs, node)
    given = set(bound.arguments)
    bound.apply_defaults()
    sig = inspect.signature(fn)
    env: dict[str, Any] = {}
    for pname, value in bound.arguments.items():
        kind = sig.parameters[pname].kind
        if kind in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD):
            # `*args` / `**kwargs`: the tuple / dict of what this call passed, known now
            env[pname] = tuple(value) if kind == inspect.Parameter.VAR_POSITIONAL \
                else dict(value)
            continue
        if pname not in given:  # a default: read from fn.__defaults__ when the code runs
            value = captured.default(lw, fn, pname, value, node)
        env[pname] = value
    lw.ctx.deps.append(Dependency(fn, "__defaults__", fn.__defaults__, "attr"))
    lw.ctx.deps.append(Dependency(fn, "__kwdefaults__", fn.__kwdefaults__, "attr"))
    lw.ctx.deps.append(Dependency(fn, "__code__", fn.__code__, "attr"))
    if POLICY.should_call(fn.__code__ in lw.ctx.code_stack):  # (.recursion)
        return recursion.call_recursive(fn, list(env.values()), lw.parsed.filename,
                                        lw.parsed.file_line(node))
    lw.ctx.code_stack.append(fn.__code__)
    block = lw.ctx.builder.block
    start = len(block.ops)
    try:
        out = _inline(lw, parsed, parsed.node, Scope.of(fn), env, [], node)
    finally:
        lw.ctx.code_stack.pop()
    if lw.ctx.builder.block is block:
        added = Block()
        added.ops = block.ops[start:]
        # (its ops carry the line of the call that inlined it, in that line's file)
        recursion.check_recomputable(fn, added.walk(), lw.ctx.call_file or lw.parsed.filename)
        recursion.check_one_result(fn, added.walk(), out, parsed.filename,
                                   parsed.file_line(parsed.node))
    return out


def _inline(lw: Lowerer, parsed: Parsed, fnode: Any, scope: Scope, env: dict[str, Any],
            enclosing: list[dict[str, Any]], node: Any) -> Any:
    from .lower import Lowerer  # lower imports this module

    ctx = lw.ctx
    inline = POLICY.should_inline(ctx.depth)
    if not inline:
        raise lw.err(node, f"{inline.reason}.",
                     "Recurse on an int argument that reaches its base case, or use a loop.")
    saved_line, saved_file = ctx.call_line, ctx.call_file
    ctx.call_line = saved_line if saved_line is not None else lw.line_of(node)
    ctx.call_file = saved_file if saved_line is not None else lw.parsed.filename
    ctx.depth += 1
    try:
        sub = Lowerer(ctx, parsed, scope, env, enclosing)
        if isinstance(fnode, gast.Lambda):
            return sub.run_lambda(fnode)
        return sub.run_body(fnode.body)
    finally:
        ctx.depth -= 1
        ctx.call_line, ctx.call_file = saved_line, saved_file


@contextmanager
def _refused_at_call(lw: Lowerer, node: Any, name: str) -> Iterator[None]:
    """A refusal raised in another file while inlining a call (a library function such as
    ``copy.copy``, a helper from another module) made at the caller's call: the user reads
    their own file:line first; where it was raised goes into the message as a note. Each
    level of inlining does this, so the note names every call between the library's line
    and the user's (``at copy.py:78 in copy.copy, called at helpers.py:5 in
    helpers.wrap``)."""
    try:
        yield
    except SrcGradError as e:
        here = lw.parsed.filename
        if e.filename is None or e.lineno is None or e.filename == here:
            raise
        raise _moved(e, here, lw.parsed.file_line(node), name) from e.__cause__


def _moved(e: SrcGradError, filename: str, lineno: int | None, name: str) -> SrcGradError:
    """``e`` (of its own class, its attributes kept) at ``filename:lineno``, where ``name``
    was called; the place it was raised added to the chain of calls its message ends with."""
    message, chain = getattr(e, "inlined_from", (e.message, ()))
    chain = (*chain, (name, e.filename, e.lineno))  # innermost first
    calls = ", called ".join(f"at {f}:{k} in {n}" for n, f, k in chain)
    moved = type(e).__new__(type(e))
    moved.__dict__.update(e.__dict__)
    SrcGradError.__init__(moved, f"{message.rstrip('.')} (raised {calls}; srcgrad inlines "
                          "that call into this line).", filename=filename, lineno=lineno,
                          advice=e.advice)
    moved.inlined_from = (message, chain)  # type: ignore[attr-defined]
    return moved


def _qualified(fn: Any) -> str:
    module = getattr(fn, "__module__", None)
    name = getattr(fn, "__qualname__", None) or repr(fn)
    return f"{module}.{name}" if module else name

"""Derived functions called inside a function being differentiated (``sg.grad`` composing).

Lowering meets them two ways: a derived function made outside (``fw = sg.jvp(f)`` at module
level), or a transform applied inside (``sg.jvp(f, wrt=(0, 1))(x, y, (t0, t1))``). The
transform call runs at compile time (its arguments are a function and options), and either
way the call of the derived function inlines the derivative IR it carries, so the outer
transform differentiates through it like any other code.

Binding follows the derived function's signature (API.md: the seed or tangent is the last
positional argument, ``f``'s defaulted parameters keep their defaults or come by keyword)
and is mapped onto the IR's parameters by name. A tuple passed where the IR takes one
parameter (a tuple ``wrt``'s tangent, a tuple result's seed) is flattened at the boundary:
the IR reads it only through ``checked_seed`` and constant subscripts, which are resolved
here to the tuple's own elements, so their derivatives flow. The IR is the version
specialised for the argument types the caller knows.
"""

from __future__ import annotations

import functools
import inspect
from typing import TYPE_CHECKING, Any

from srcgrad.errors import SrcGradError

from ..ir import types as T
from ..ir.builder import clone_block
from ..ir.core import Block, Value, const_value
from ..support import checked_seed
from ..symbolic import Sym, is_symbolic, to_value
from . import derived_trees
from .context import LocalFunction
from .inlining import bind_call
from .resolve import Dependency

if TYPE_CHECKING:
    from .lower import Lowerer

# what srcgrad.compiler.api marks its transforms with (``__srcgrad_transform__``)
COMPOSES = "composes"  # grad, value_and_grad, vjp, jvp: their result carries its IR


def apply_transform(lw: Lowerer, func: Any, args: list[Any], kwargs: dict[str, Any],
                    node: Any) -> Any:
    """``sg.grad(f, wrt=...)`` inside differentiated code: the derived function, made now."""
    name = getattr(func, "__name__", "transform")
    if func.__srcgrad_transform__ != COMPOSES:
        raise lw.err(node, f"sg.{name} inside a function being differentiated is not "
                     "supported (its result is not a derived function srcgrad can inline).",
                     "Use sg.jvp or sg.vjp inside (one direction at a time), or compute it "
                     "outside the differentiated function.")
    if is_symbolic(args) or is_symbolic(list(kwargs.values())):
        raise lw.err(node, f"sg.{name} needs its function and options known when compiling, "
                     "not values computed at run time.",
                     "Pass the function and a constant wrt.")
    target = args[0] if args else kwargs.get("f")
    if target is None:  # the decorator form, sg.grad(wrt=1)(f): apply it when f comes
        form = functools.partial(func, **kwargs)
        form.__srcgrad_transform__ = COMPOSES  # type: ignore[attr-defined]
        form.__name__ = name  # type: ignore[attr-defined]
        return form
    if isinstance(target, LocalFunction):
        raise lw.err(node, f"sg.{name} of a nested def or lambda inside a function being "
                     "differentiated is not supported.",
                     f"Define {target.name} at module level, or make the derived function "
                     "outside and call it here.")
    try:
        return func(*args, **kwargs)
    except SrcGradError as e:
        raise lw.err(node, str(e), getattr(e, "advice", None)) from None
    except TypeError as e:
        raise lw.err(node, f"bad call of sg.{name}: {e}",
                     "See help(sg.grad) for its arguments.") from None


def inline_derived(lw: Lowerer, func: Any, args: list[Any], kwargs: dict[str, Any],
                   node: Any) -> Any:
    """Inline a derived function's IR (so ``sg.grad`` composes without re-parsing)."""
    handle = func.__srcgrad__
    if getattr(handle, "function", None) is not func:
        # a Jacobian or Hessian carries the handle of the jvp it is built on: that jvp's IR
        # is not what it computes (binding its arguments to it failed with a KeyError)
        raise lw.err(node, f"calling {getattr(func, '__name__', 'a derived function')} (made "
                     "by sg.jacobian or sg.hessian) inside a function being differentiated "
                     "is not supported.",
                     "Use sg.jvp or sg.vjp inside (one direction at a time), or compute the "
                     "Jacobian or Hessian outside the differentiated function.")
    handle.current_defaults()  # f's defaults now, for a parameter the call leaves out
    base = handle
    while base.inner is not None:
        base = base.inner
    for attr in ("__defaults__", "__kwdefaults__"):  # their values are baked in below
        if hasattr(base.f, attr):
            lw.ctx.deps.append(Dependency(base.f, attr, getattr(base.f, attr), "attr"))
    bound = bind_call(lw, inspect.signature(func), func.__name__, args, kwargs, node)
    bound.apply_defaults()
    values = [bound.arguments[n] for n in handle.call_names]  # the IR's parameter order
    entry = handle.entry(_known_types(values[:len(handle.param_names)]))
    lw.ctx.deps.extend(entry.deps)  # what the inner version assumed, ours assumes too
    ir = entry.ir
    if entry.boundary is not None:  # structured arguments: the IR takes their leaves
        values = derived_trees.flat_values(entry.boundary, values, len(handle.param_names))
    mapping: dict[Value, Value] = {}
    structured: dict[Value, Any] = {}
    for p, v in zip(ir.params, values):
        if isinstance(v, (tuple, list)):
            structured[p] = v
        else:
            mapping[p] = to_value(v)
    body = _unpack(lw, ir.body, structured, mapping, node)
    for p, v in structured.items():
        if p in mapping:
            continue
        if _reads(body, p):  # read whole: only a static structure can be a constant
            if is_symbolic(v):
                raise lw.err(node, f"{func.__name__}: the tuple passed as "
                             f"`{p.name}` is used in a way srcgrad cannot follow through.",
                             "Pass its items as separate arguments.")
            mapping[p] = to_value(v)
    block = clone_block(body, mapping)
    b = lw.ctx.builder
    line = lw.line_of(node)
    for op in block.ops:
        op.line = line
        for o in op.outputs:
            o.line = line
        b.block.ops.append(op)
    outs = [Sym(r) for r in block.results]
    result = nest(ir.meta.get("returns", 0), outs)
    if entry.boundary is not None:
        return derived_trees.rebuilt(entry.boundary, result)
    return result


def _known_types(values: list[Any]) -> list[T.AType] | None:
    """The abstract types of the primal arguments, as far as the caller knows them."""
    out = []
    for v in values:
        tree = derived_trees.known_kind(v)
        if tree is not None:
            out.append(tree)
        elif isinstance(v, Sym):
            t = v.value.type
            out.append(t if t is not None and t.kind != "static" else T.ANY)
        elif isinstance(v, (tuple, list)):
            out.append(T.ANY)
        else:
            out.append(T.of_value(v))
    return None if all(t == T.ANY for t in out) else out


def _unpack(lw: Lowerer, body: Block, structured: dict[Value, Any], mapping: dict[Value, Value],
            node: Any) -> Block:
    """``body`` without the ops that take a structured parameter apart (``checked_seed``,
    ``getitem`` with a constant index); ``mapping`` sends their results to the items."""
    if not structured:
        return body
    kept = []
    for op in body.ops:
        x = op.args.get("seed" if op.prim == "checked_seed" else "x")
        if op.prim == "checked_seed" and x in structured:
            try:
                checked_seed(structured[x], const_value(op.args["shape"])[1])
            except SrcGradError as e:
                raise lw.err(node, str(e), getattr(e, "advice", None)) from None
            structured[op.out] = structured[x]
            continue
        if op.prim == "getitem" and x in structured:
            is_const, k = const_value(op.args["index"])
            if is_const and isinstance(k, int):
                try:
                    item = structured[x][k]
                except IndexError:
                    raise lw.err(node, f"the tuple passed as `{x.name}` has "
                                 f"{len(structured[x])} items; item {k} is needed.",
                                 "Pass one item per differentiated argument or per "
                                 "result.") from None
                if isinstance(item, (tuple, list)):
                    structured[op.out] = item
                else:
                    mapping[op.out] = to_value(item)
                continue
        kept.append(op)
    new = Block(params=body.params, ops=kept, results=body.results)
    return new


def _reads(block: Block, v: Value) -> bool:
    for op in block.ops:
        if any(u is v for u in op.operands()) or any(_reads(r, v) for r in op.regions):
            return True
    return any(r is v for r in block.results)


def nest(tree: Any, leaves: list[Any]) -> Any:
    """The derived function's result shape (``ir.meta["returns"]``) filled with ``leaves``."""
    if isinstance(tree, list):
        return tuple(nest(t, leaves) for t in tree)
    if isinstance(tree, tuple):  # ("list", trees): see frontend.result_tree
        return [nest(t, leaves) for t in tree[1]]
    return leaves[tree]

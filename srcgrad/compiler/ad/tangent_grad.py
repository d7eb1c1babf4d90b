"""``sg.grad`` of a function of a few numbers, by forward mode: the AD layer's mode choice.

The gradient w.r.t. a few numbers (a Python float, a NumPy float scalar or a 0-d float
array; up to :data:`FEW` of them: several arguments in a tuple ``wrt``, or the float leaves
of a tuple or dict argument, which the boundary passes as leaf parameters and rebuilds
the gradients of as it does reverse mode's) of a function whose
result is one number is that many directional derivatives, so the best derivative to emit
is the one a person writes by hand: one tangent per number carried through the loop beside
the value (no tape, no reverse sweep, constant memory). :func:`tangent_grad` builds it from
:func:`.forward.forward_directions` (each tangent seeded with ``1.0``) and returns exactly
what ``sg.grad`` (or ``sg.value_and_grad``) returns in reverse mode: each gradient cast with
``like`` to its argument's type, shape and dtype. The caller falls back to reverse mode when
it declines (an array argument, more than :data:`FEW` numbers, a result that is not known
to be one number) or when forward mode refuses what reverse mode accepts (a custom
``sg.defvjp`` rule without ``sg.defjvp``).

    def f(x, n):                       def grad_f(x, n):
        y = x                              y = x
        for _ in range(n):     ->          dy = 1.0
            y = y * x + sin(y)             for i in range(n):
        return y                               ... y = y * x + sin(y)
                                               dy = dy * x + y_old + cos(y_old) * dy
                                           return float(dy)
"""

from __future__ import annotations

from typing import Any

from srcgrad.errors import SrcGradError

from ..ir import types as T
from ..ir.builder import Builder
from ..ir.core import Function, Value
from ..structural import STRUCTURAL
from ..symbolic import Sym, record_rule
from .forward import forward_directions
from .prune import drop_dead_carries
from .reverse import GRAD, VALUE_AND_GRAD, ReverseSpec

FEW = 3  # directions: a tangent each costs about one more primal pass's arithmetic


def _note(params: list[Value], names: list[str]) -> str:
    what = ("one float" if len(params) == 1 and params[0].type == T.FLOAT else
            "one number" if len(params) == 1 else f"{len(params)} numbers")
    if len(params) == 1:
        return (f"# forward mode: the gradient w.r.t. {what} is one directional derivative, "
                "so\n# its tangent is carried through the code beside the value (no tape, no "
                "reverse)\n")
    return (f"# forward mode: the gradient w.r.t. {what} ({', '.join(names)}) is "
            f"{len(params)} directional\n# derivatives, so one tangent per number is carried "
            "through the code beside the value\n# (no tape, no reverse)\n")


def tangent_grad(primal: Function, spec: ReverseSpec) -> Function | None:
    """The forward-mode ``grad``/``value_and_grad`` of ``primal``, or None to use reverse."""
    if spec.transform not in (GRAD, VALUE_AND_GRAD) or not 1 <= len(spec.wrt) <= FEW:
        return None
    params = [primal.params[i] for i in spec.wrt]
    if not all(map(_number_argument, params)) or primal.meta.get("tuple_result"):
        return None
    if len(primal.body.results) != 1 or _not_one_number(primal.body.results[0]):
        return None
    try:
        fn, t_outs = forward_directions(primal, spec.wrt)
    except SrcGradError:
        return None  # reverse mode refuses it with its own message, or differentiates it
    out = fn.body.results[0]
    grads = []
    with Builder(fn.body, line=None):
        if not _one_number(out):
            # a result whose kind is known only at run time: reverse mode's seed checks it
            # has one element (SrcGradError otherwise), and so does this one (1 shaped
            # like it: the tangents keep their values and take its shape, as reverse's do)
            one = Sym(record_rule(STRUCTURAL["seed_one"], [Sym(out)], {}).value)
            t_outs = [(Sym(t) * one).value for t in t_outs]
        for t_out, i in zip(t_outs, spec.wrt):
            p = fn.params[i]
            # the argument's type, as reverse mode returns: the tangent may be a NumPy
            # scalar or a 0-d array (np.where of numbers) even where its type says float
            # (forward mode gives a region's tangent outputs their primal's type), so the
            # cast is ``like``, which no pass drops on a float's type, not ``float``
            g = record_rule(STRUCTURAL["like"], [Sym(t_out), Sym(p)], {}).value
            g.adjoint_of = p
            grads.append(g)
    n = len(grads)
    fn.name = f"{spec.transform}_{primal.name}"
    grad_tree: Any = list(range(n)) if spec.tuple_wrt else 0
    if spec.transform == VALUE_AND_GRAD:
        fn.body.results = [out, *grads]
        fn.meta["returns"] = [0, [i + 1 for i in range(n)] if spec.tuple_wrt else 1]
    else:
        fn.body.results = grads
        fn.meta["returns"] = grad_tree
    fn.meta.update(transform=spec.transform, wrt=spec.wrt, tuple_wrt=spec.tuple_wrt,
                   n_outputs=1, primal_tuple=False,
                   tuple_result=isinstance(fn.meta["returns"], list),
                   note=_note(params, [p.name or "?" for p in params]))
    drop_dead_carries(fn)  # (forward_directions carries a tangent for every varied slot)
    return fn


def _number_argument(p: Value) -> bool:
    """A float, a NumPy float scalar or a 0-d float array: one number, one direction."""
    t = p.type
    if t is None or t == T.FLOAT:
        return t is not None
    return t.kind in ("scalar", "array") and t.known_ndim == 0 and t.dtype in (
        "float64", "float32", "float16")


def _not_one_number(v: Value) -> bool:
    """Known at compile time to be something else than one number (an array, a tuple...)."""
    t = v.type
    return t is not None and t.kind != "any" and not _one_number(v)


def _one_number(v: Value) -> bool:
    """A Python float or a NumPy float scalar: known to be one number at compile time."""
    t = v.type
    return t is not None and (t == T.FLOAT or (t.kind == "scalar" and t.dtype in (
        "float64", "float32", "float16")))

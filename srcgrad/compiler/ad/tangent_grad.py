"""``sg.grad`` of a function of one float, by forward mode: the mode choice of the AD layer.

The gradient w.r.t. one Python-float argument of a function whose result is one number is
a single directional derivative, so the best derivative to emit is the one a person writes
by hand: the tangent carried through the loop beside the value (no tape, no reverse sweep,
constant memory). :func:`tangent_grad` builds it from :func:`.forward.forward` with the
tangent fixed to ``1.0`` and returns only what ``sg.grad`` (or ``sg.value_and_grad``)
returns; the caller falls back to reverse mode when it declines (more than one argument,
an array argument, a result that is not known to be one number) or when forward mode
refuses what reverse mode accepts (a custom ``sg.defvjp`` rule without ``sg.defjvp``).

    def f(x, n):                       def grad_f(x, n):
        y = x                              y = x
        for _ in range(n):     ->          dy = 1.0
            y = y * x + sin(y)             for i in range(n):
        return y                               ... y = y * x + sin(y)
                                               dy = dy * x + y_old + cos(y_old) * dy
                                           return float(dy)
"""

from __future__ import annotations

from srcgrad.errors import SrcGradError

from ..ir import types as T
from ..ir.builder import Builder
from ..ir.core import Function, Op, Value
from ..passes.rewrite import replace_uses
from ..structural import STRUCTURAL
from ..symbolic import Sym, record_rule
from .forward import forward
from .reverse import GRAD, VALUE_AND_GRAD, ReverseSpec

NOTE = ("# forward mode: the gradient w.r.t. one float is one directional derivative, so\n"
        "# its tangent is carried through the code beside the value (no tape, no reverse)\n")


def tangent_grad(primal: Function, spec: ReverseSpec) -> Function | None:
    """The forward-mode ``grad``/``value_and_grad`` of ``primal``, or None to use reverse."""
    if spec.transform not in (GRAD, VALUE_AND_GRAD) or spec.tuple_wrt or len(spec.wrt) != 1:
        return None
    param = primal.params[spec.wrt[0]]
    if param.type != T.FLOAT or primal.meta.get("tuple_result"):
        return None
    if len(primal.body.results) != 1 or not _one_number(primal.body.results[0]):
        return None
    try:
        fn = forward(primal, spec.wrt, False)
    except SrcGradError:
        return None  # reverse mode refuses it with its own message, or differentiates it
    tangent = fn.params.pop()
    one = Op("const", {}, [Value(type=T.FLOAT)], {"value": 1.0})
    fn.body.ops.insert(0, one)
    seeded = {tangent: one.out}
    for op in fn.body.ops:  # the seed 1.0 needs no shape check: it is a number here
        if op.prim == "tangent_of_shape" and op.args.get("tangent") is tangent:
            seeded[op.out] = one.out
    replace_uses(fn, seeded)
    out, t_out = fn.body.results
    p = fn.params[spec.wrt[0]]
    with Builder(fn.body, line=None):
        # a Python float, as reverse mode returns: the tangent may be a NumPy scalar or a
        # 0-d array (np.where of numbers) even where its type says float (forward mode gives
        # a region's tangent outputs their primal's type), so the cast is ``like``, which
        # no pass drops on a float's type, not ``float``
        t_out = record_rule(STRUCTURAL["like"], [Sym(t_out), Sym(p)], {}).value
        t_out.adjoint_of = p
    fn.name = f"{spec.transform}_{primal.name}"
    if spec.transform == VALUE_AND_GRAD:
        fn.body.results = [out, t_out]
        fn.meta["returns"] = [0, 1]
    else:
        fn.body.results = [t_out]
        fn.meta["returns"] = 0
    fn.meta.update(transform=spec.transform, wrt=spec.wrt, tuple_wrt=False, n_outputs=1,
                   primal_tuple=False, tuple_result=spec.transform == VALUE_AND_GRAD,
                   note=NOTE)
    return fn


def _one_number(v: Value) -> bool:
    """A Python float or a NumPy float scalar: known to be one number at compile time."""
    t = v.type
    return t is not None and (t == T.FLOAT or (t.kind == "scalar" and t.dtype in (
        "float64", "float32", "float16")))


"""A selection against zero, ``np.where(c, x, 0.0)``, as the mask helper ``kept(x, c)``.

Runs in the rounds, after ``simplify``, in every block. A relu written
``h = np.where(z > 0, z, 0.0)`` selects between an array and zero, as the adjoint of every
selection does (``rules/masks.py``). NumPy's ``where`` branches per element, and on a mask
of random signs (a relu over a batch) that costs ten to twenty times a product: the forward
``np.where`` of a 64x1024 float32 relu took 300 us, more than the whole difference between
srcgrad's gradient and a hand-written one that computes ``np.maximum(z, 0.0)``. ``kept``
selects bits on a large float array instead (``np.where``'s result bit for bit for every
value: ``inf``, NaN, ``-0.0``), and is ``np.where`` itself on a small one::

    %4 = greater(x=%z, y=%c0)                %4 = greater(x=%z, y=%c0)
    %5 = where(condition=%4, x=%z, y=%c0)    %5 = kept(c=%z, mask=%4)
    (emitted: h = np.where(_t4, z, 0.0))     (emitted: h = kept_array(z, _t4))

and ``np.where(c, 0.0, x)`` as ``dropped(x, c)``. Only where the numbers and the dtype
are provably ``np.where``'s: ``x`` is typed a float ndarray with an axis (so the emitted
code calls the helper's ``on_arrays`` version, no dispatch), the condition an ndarray with
an axis (any dtype: a condition that is not boolean takes ``np.where`` inside the helper),
and the zero a constant ``0`` or ``0.0`` of the user's source (a Python number does not
change ``x``'s dtype under NEP 50; ``-0.0`` or a NumPy scalar would, or its sign would be
lost). The derivative is the same either way: ``where``'s adjoint of ``x`` is ``kept``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ...rules.registry import rule_named
from ..ir.core import Block, Function, Op, Value, const_value


def where_as_masks(fn: Function) -> None:
    _block(fn.body)


def _block(block: Block) -> None:
    for op in block.ops:
        for region in op.regions:
            _block(region)
        if op.prim == "where" and len(op.outputs) == 1 and not op.regions:
            _rewrite(op)


def _rewrite(op: Op) -> None:
    a = op.args
    condition, x, y = a.get("condition"), a.get("x"), a.get("y")
    if set(a) != {"condition", "x", "y"} or not _an_array(condition):
        return
    if _plus_zero(y) and _float_array(x):
        op.prim, op.args = "kept", {"c": x, "mask": condition}
    elif _plus_zero(x) and _float_array(y):
        op.prim, op.args = "dropped", {"c": y, "mask": condition}
    else:
        return
    op.attrs["rule"] = rule_named(op.prim)


def _plus_zero(v: Any) -> bool:
    """A constant Python ``0`` or ``0.0`` (not ``-0.0``, not a bool or a NumPy scalar)."""
    if not isinstance(v, Value):
        return False
    ok, c = const_value(v)
    return ok and type(c) in (int, float) and c == 0 and math.copysign(1.0, c) > 0


def _an_array(v: Any) -> bool:
    t = v.type if isinstance(v, Value) else None
    return t is not None and t.kind == "array" and bool(t.ndim)


def _float_array(v: Any) -> bool:
    return _an_array(v) and v.type.dtype is not None and np.dtype(v.type.dtype).kind == "f"

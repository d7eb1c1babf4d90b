"""Loop-invariant hoisting: an op of a loop body that reads nothing the loop defines runs
once, before the loop, instead of once per iteration.

Reverse mode makes such ops (``-k`` for ``k * sin(y)``'s adjoint, ``np.shape(x)`` of a
parameter) and pushes their per-iteration copies on the tape; hoisted, they are defined
outside every loop, so ``store_or_recompute`` reads them directly and pushes nothing:

    for i in range(n):                      _t3 = -k
        _t3 = -k                  ->        for i in range(n):
        _t5 = _t3 * math.sin(y)                 _t5 = _t3 * math.sin(y)
        tape.append((y, _t3))                   tape.append(y)

A hoisted op runs even when the loop runs no iteration, so only ops that cannot raise or
act on the world are moved: ``shape`` of a typed value, and ``negative``/``add``/
``subtract``/``multiply`` of Python or NumPy numbers and non-bool arrays (NumPy raises on
``-bool_array``; Python float arithmetic other than ``/``, ``%``, ``**`` never raises), and
NumPy's ``sin``, ``exp``, ... of a NumPy array or scalar or a Python int or float (never
the user's ``math.*``, which raises on a bad argument where NumPy warns), one length of
a shape by a constant index inside its known rank (``np.sqrt(Wq.shape[-1])``), and
``unbroadcast`` of a number or array (the adjoint of a loop's scalar result, the seed,
summed to its shape once).
Ops inside nested branches stay where they are; an inner loop's invariants move to the
outer body first and from there further out when they are invariant there too.
"""

from __future__ import annotations

from ..ir.core import Block, Function, Op, Value
from ..spelling import has_python_spelling
from .rewrite import length_read

_LOOPS = ("for_range", "while")
_ARITHMETIC = frozenset({"negative", "add", "subtract", "multiply"})
# NumPy functions of an array: on bad input they warn and give nan/inf, never raise
_UFUNCS = frozenset({"sin", "cos", "tan", "exp", "log", "tanh", "sqrt", "log1p", "expm1",
                     "sinh", "cosh", "arctan", "absolute", "square"})
_IMMUTABLE = (int, float, bool, str, type(None))
_SEEDS = frozenset({"seed_one", "checked_seed", "seed_of_shape"})  # numbers or arrays


def hoist_invariants(fn: Function) -> None:
    _block(fn.body)


def _block(block: Block) -> None:
    ops: list[Op] = []
    for op in block.ops:
        for region in op.regions:
            _block(region)
        if op.prim in _LOOPS:
            defined = _defined_in(op)
            for region in op.regions:
                kept = []
                for inner in region.ops:
                    if _movable(inner) and not any(v.id in defined
                                                   for v in inner.operands()):
                        ops.append(inner)
                        defined.difference_update(o.id for o in inner.outputs)
                    else:
                        kept.append(inner)
                region.ops = kept
        ops.append(op)
    block.ops = ops


def _defined_in(op: Op) -> set[int]:
    defined: set[int] = set()
    for region in op.regions:
        defined.update(p.id for p in region.params)
        for inner in region.walk():
            defined.update(o.id for o in inner.outputs)
    return defined


def _movable(op: Op) -> bool:
    if op.regions or len(op.outputs) != 1:
        return False
    if op.prim == "const":
        return _immutable(op.attrs.get("value"))
    if op.prim == "shape":
        x = op.args.get("x")
        return isinstance(x, Value) and _known(x, allow_bool=True)
    if op.prim == "unbroadcast":  # (a sum over axes of a number or array never raises;
        # a seed, the adjoint a reverse loop starts from, is one)
        x = op.args.get("x")
        return isinstance(x, Value) and (_known(x, allow_bool=False) or x.adjoint_of is not None
                                         or (x.op is not None and x.op.prim in _SEEDS))
    if op.prim in _ARITHMETIC:
        return all(_known(v, allow_bool=op.prim in ("add", "multiply"))
                   for v in op.operands())
    if op.prim == "getitem":
        return _length(op)
    if op.prim in _UFUNCS and not has_python_spelling(op.attrs):
        return all(v.type is not None and (v.type.kind in ("int", "float") or (
            v.type.kind in ("array", "scalar") and v.type.dtype is not None
            and v.type.dtype != "bool")) for v in op.operands())
    return False


def _length(op: Op) -> bool:
    """``getitem(shape(v), k)`` with ``k`` a constant int inside ``v``'s known rank: one
    length of a shape, which cannot raise."""
    read = length_read(op)
    if read is None:
        return False
    v, k = read
    ndim = v.type.ndim if v.type is not None and v.type.kind == "array" else None
    return ndim is not None and -ndim <= k < ndim


def _immutable(value: object) -> bool:
    if isinstance(value, tuple):
        return all(_immutable(v) for v in value)
    return isinstance(value, _IMMUTABLE)


def _known(v: Value, *, allow_bool: bool) -> bool:
    """A Python number, NumPy number or array of a known numeric dtype."""
    t = v.type
    if t is None:
        return False
    if t.kind in ("float", "int"):
        return True
    if t.kind == "bool":
        return allow_bool
    if t.kind in ("scalar", "array") and t.dtype is not None:
        return allow_bool or t.dtype != "bool"
    return False

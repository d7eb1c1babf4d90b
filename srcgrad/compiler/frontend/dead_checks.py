"""Dead user code that may raise: marked so that no transform drops it (``USER_CHECK``).

Runs once at the end of the frontend (:func:`..frontend.lower`), on the user's function as
lowered, before any transform or pass. A derivative must raise where the user's function
raises. The user's own Python arithmetic is marked while it is recorded (``USER_ARITHMETIC``);
this pass covers what raises on a run-time *shape* or value rather than on arithmetic: an
index out of range, ``int()`` of inf or nan, ``float()`` of a non-scalar array, a reshape,
product, broadcast or join of mismatched shapes (the compiled version is specialised on
ndim and dtype only, never on lengths), a singular matrix handed to ``np.linalg.inv``. An op
of those kinds whose value the user's function never reads would be dropped by dead code
elimination, and the derivative would return a number where the function raises:

    def f(x, i):
        y = x[i]                # unread, raises IndexError for i = 5 on a (3,) array
        return np.sum(x * x)

    %y = getitem(x=%x, index=%i)          %y = getitem(x=%x, index=%i) {user_check}
    ...                             ->    ...

Only ops dead in the user's own function are marked: one the function reads is computed by
the derivative's forward sweep, or its adjoint reads the same shapes and raises alike, so
marking it would only cost time where nothing is lost. ``int()``/``float()`` of an array or
NumPy scalar are the exception, marked wherever they are: ``float(x) * 2.0`` reads ``x``'s
value nowhere in its derivative (``2.0``), and the conversion costs next to nothing.
"""

from __future__ import annotations

from typing import Any

from ..ir.core import USER_CHECK, Block, Function, Op, Value, const_value

# Ops that raise on mismatched shapes, lengths or singular values of their operands.
_SHAPE_CHECKED = frozenset({
    "reshape", "matmul", "dot", "inner", "tensordot", "einsum", "multi_dot", "kron",
    "cross", "concatenate", "stack", "vstack", "hstack", "column_stack", "dstack",
    "broadcast_to", "take", "take_along_axis", "trace", "diagonal", "split_piece", "repeat",
    "squeeze", "len",
    "inv", "solve", "cholesky", "det", "matrix_power",
})
# (Not the pieces a decomposition's tuple is lowered to, ``svd_u``, ``qr_q``...: an unread
# piece may be one srcgrad refuses to differentiate, where the user's call did not raise.)
# Python's conversions: ``int(inf)`` raises OverflowError, ``float(np.ones(3))`` TypeError.
_CONVERSIONS = frozenset({"int", "float"})
# Parameters naming axes: out of range for the run-time ndim (a generic version) they raise.
_AXIS_PARAMS = ("axis", "axes", "source", "destination", "axis1", "axis2")
# Constant index parts that never raise on an array of the compiled ndim.
_SAFE_INDEX = (slice, type(None), type(Ellipsis))


def mark_dead_checks(fn: Function) -> None:
    """Mark with ``USER_CHECK`` the ops of ``fn`` (the user's function, just lowered) that may
    raise on their operands' run-time shapes or values and whose value nothing reads, and
    every conversion of an array or NumPy scalar by ``int()``/``float()``."""
    _block(fn.body, set())


def _block(block: Block, live: set[int], results: list[Value] | None = None) -> None:
    """Liveness from ``results`` (default: the block's) back. A branch's result is live
    where its ``if`` output is (a name assigned in one branch only and never read); a
    loop body's results are all live (conservative: they are carried)."""
    live.update(r.id for r in (block.results if results is None else results))
    for op in reversed(block.ops):
        dead = not op.regions and not any(o.id in live for o in op.outputs)
        if _converts_array(op) or (dead and _may_raise(op)):
            op.attrs[USER_CHECK] = True
        live.update(v.id for v in op.operands())
        for region in op.regions:
            if op.prim == "if" and len(region.results) == len(op.outputs):
                _block(region, live, [r for r, o in zip(region.results, op.outputs)
                                      if o.id in live])
            else:
                _block(region, live)


def _converts_array(op: Op) -> bool:
    if op.prim not in _CONVERSIONS:
        return False
    x = op.args.get("x")
    return isinstance(x, Value) and not (x.type is not None and x.type.is_python_number)


def _may_raise(op: Op) -> bool:
    if op.prim in _SHAPE_CHECKED:
        return True
    if op.prim in _CONVERSIONS:
        x = op.args.get("x")  # (int() of a Python float: inf or nan raises)
        return isinstance(x, Value) and (x.type is None or x.type.kind != "int")
    if op.prim == "getitem":
        return not _safe_index(op.args.get("index", op.attrs.get("index")))
    if any(_param(op, k) is not None for k in _AXIS_PARAMS):
        return True
    rule = op.attrs.get("rule")
    if getattr(rule, "broadcasts", False):  # two arrays of run-time shapes
        return sum(_array_like(v) for v in op.operands()) >= 2
    return False


def _param(op: Op, key: str) -> Any:
    """A static parameter of ``op``, or a Value (not known while compiling), or None."""
    v = op.args.get(key, op.attrs.get(key))
    if isinstance(v, Value):
        known, c = const_value(v)
        return c if known else v
    return v


def _safe_index(index: Any) -> bool:
    if isinstance(index, Value):
        known, index = const_value(index)
        if not known:
            return False
    parts = index if isinstance(index, tuple) else (index,)
    return all(isinstance(p, _SAFE_INDEX) for p in parts)


def _array_like(v: Value) -> bool:
    """``v`` may have a shape other than ``()`` (an array, or a type not known here)."""
    t = v.type
    return t is None or t.kind in ("array", "any") and t.known_ndim != 0

"""In-place updates: ``dx = dx + t`` may be emitted as ``dx += t`` (and ``-=``, ``*=``, ``/=``).

Runs last. It marks an ``add`` with ``attrs["accumulate"]`` naming the operand
that may be updated in place; the backend writes ``dx += t`` when that operand's name is
also the result's (otherwise a plain ``dx = dx + t``):

    %9 = multiply(x=%g, y=%c)                %9 = multiply(x=%g, y=%c)
    %11 = add(x=%9, y=%10)        ->         %11 = add(x=%9, y=%10)  {accumulate: "x"}
    (emitted:  dx = dx + _t4)                (emitted:  dx += _t4)

It is safe, so marked, only when the accumulator
- is a fresh array the gradient owns: the result of an arithmetic op (never a parameter,
  a constant, a tape entry, ``np.broadcast_to``/``unreduce``, ``like`` or any view);
- is read by nothing but this ``add`` and ``np.shape`` (so no alias, tape push or view of
  it exists; an update in place changes no shape);
- has the result's shape and dtype: a float dtype (float64, float32, float16: the shape
  classes' ``dtype_of``), and the other operand a Python number or a value of that same
  dtype (never an ``np.float64`` with a float32 array: NumPy 2 promotes that), 0-d,
  provably the same shape (shape classes) or shaped like a keepdims reduction of an array
  of that shape; ``+=`` never broadcasts the accumulator itself.
A Python float accumulator keeps float semantics (``+=`` on a float rebinds).
Inside a loop body the same holds for a cotangent the body itself made on this iteration
(one defined before the loop is read again by the next iteration): ``dp_1 -= ...`` then
``dp_1 *= p`` where the softmax adjoint allocated three arrays per iteration (an ``add``,
and the forward sweep's arithmetic, stay the expressions the user wrote). The
loop-carried sums of a reverse loop (``dW = dW + dW_1`` per iteration) are marked by
:func:`.loop_sums.accumulate_in_loops`, with the conditions that hold across iterations.

A ``subtract`` or ``divide`` (its left operand) and a ``multiply`` (either) are marked the
same way when the array updated is known to be a float array with an axis (typed so,
or a cotangent in the shape class of one): a softmax adjoint's
``dp = dp - unbroadcast(dp_1 * p, s) / z`` then writes into the buffer ``dp_1 / z`` made,
instead of allocating another full-size array (at attention's sizes a new buffer is a fresh
mmap that page-faults). Numbers are left to their expressions (they own no memory).
"""

from __future__ import annotations

from ..ir.core import Block, Function, Op, Value
from .loop_sums import accumulate_in_loops, loop_bodies, loop_classes
from .shape_classes import FLOAT_DTYPES as _FLOAT_DTYPES
from .shape_classes import Classes as _Classes
from .shape_classes import float_array as _float_array
from .shape_classes import plain_classes as _plain_classes
from .shape_classes import rank0 as _rank0


def accumulate_in_place(fn: Function) -> None:
    for op in fn.body.walk():  # (a mark of an earlier round may no longer hold)
        op.attrs.pop("accumulate", None)
        op.attrs.pop("accumulate_checked", None)
    uses = fn.body.use_counts()
    for op in fn.body.walk():  # (a shape read is no alias: an update keeps the shape)
        if op.prim == "shape" and isinstance(op.args.get("x"), Value):
            uses[op.args["x"].id] -= 1
    params = {p.id for p in fn.params}
    classes = _plain_classes(fn)
    readers = _readers(fn.body)
    for op in fn.body.ops:
        _mark(op, readers, classes, params, uses, None)
    inner = loop_classes(fn)
    if inner is None:
        return
    for body in loop_bodies(fn):
        # an operand defined before the loop is read on every iteration: never updated
        own = {o.id for op in body.ops for o in op.outputs}
        readers = _readers(body)
        for op in body.ops:
            _mark(op, readers, inner, params, uses, own)
    accumulate_in_loops(fn, uses, inner)


_Readers = dict[int, list[tuple[int, Op, int]]]


def _readers(block: Block) -> _Readers:
    """Value id -> ``(index, op, count)`` for each op of ``block`` that reads it, in
    order: :func:`_read_before` looks at a value's readers, not at the whole block (per
    candidate, that was quadratic in the length of a straight-line function)."""
    found: _Readers = {}
    for i, op in enumerate(block.ops):
        counts: dict[int, int] = {}
        for w in op.operands():
            counts[w.id] = counts.get(w.id, 0) + 1
        for vid, n in counts.items():
            found.setdefault(vid, []).append((i, op, n))
    return found


def _mark(op: Op, readers: _Readers, classes: _Classes, params: set[int],
          uses: dict[int, int], own: set[int] | None) -> None:
    keys = _UPDATED.get(op.prim)
    if keys is None or len(op.outputs) != 1 or set(op.args) != {"x", "y"}:
        return
    for key in keys:
        acc, rest = op.args[key], op.args["y" if key == "x" else "x"]
        if isinstance(acc, Value) and isinstance(rest, Value) \
                and (own is None or acc.id in own and acc.adjoint_of is not None
                     and op.prim != "add") \
                and (op.prim == "add" or _float_array(acc, classes)) \
                and (_owned(acc, params, uses) or _read_before(acc, op, readers, params, uses)) \
                and (fits := _fits(acc, rest, classes)):
            op.attrs["accumulate"] = key
            if fits == CHECKED:
                op.attrs["accumulate_checked"] = True
            return


# the operands an augmented assignment may update (``a -= b`` is ``a - b``, never ``b - a``)
_UPDATED = {"add": ("x", "y"), "multiply": ("x", "y"), "subtract": ("x",), "divide": ("x",)}



def _owned(v: Value, params: set[int], uses: dict[int, int]) -> bool:
    # a result that is always a new array (or a scalar) nothing else refers to
    return v.id not in params and _new_array(v) and uses.get(v.id) == 1


def _new_array(v: Value) -> bool:
    """``v`` is always a new array (or a number): a fresh rule's result."""
    rule = v.op.attrs.get("rule") if v.op is not None else None
    return rule is not None and rule.fresh and not rule.user


def _read_before(v: Value, op: Op, readers: _Readers, params: set[int], uses: dict[int, int]
                 ) -> bool:
    """``v`` is a fresh array ``op`` reads once, and every other read of it is by an earlier
    op of the same block that makes a new array (``dp_1 * p`` before ``dp_1 - ...``): once
    ``op`` runs, nothing reads ``v`` or holds a view of it."""
    if v.id in params or not _new_array(v):
        return False
    reads, seen = 0, False
    for _, other, n in readers.get(v.id, ()):
        seen = seen or other is op
        if other is op:
            if n != 1:
                return False
        else:
            made = other.attrs.get("rule")
            if seen or other.regions or made is None or not made.fresh or made.user:
                return False
        reads += n
    return seen and reads == uses.get(v.id)  # (no read in a region, as a result or
    # elsewhere)


CHECKED = "checked"  # in place where the other operand turns out to fit (run time)


def _fits(acc: Value, rest: Value, classes: _Classes) -> bool | str:
    """True when ``rest`` provably fits into ``acc``'s shape and dtype; :data:`CHECKED`
    when only the dtype is proved and ``acc`` is a typed matrix (or more axes) and ``rest``
    a typed array of no more axes: the emitted code checks the shapes when it runs
    (``support.update_if_fits``: ``z = x @ W + b`` writes the bias into the product)."""
    dtype = classes.dtype_of(acc)
    if dtype not in _FLOAT_DTYPES:
        return False
    if not (classes.is_weak(rest) or classes.dtype_of(rest) == dtype):
        return False
    # (the walk's answers: the IR has not changed since, and one walk per question made
    # this pass quadratic in the length of a straight-line function)
    if _rank0(rest, classes.numbers) or classes.same(acc, rest) \
            or _fits_into(rest, acc, classes):
        return True
    # (a check per call costs about a microsecond: only where arrays are usually large)
    ta, tr = acc.type, rest.type
    if ta is not None and ta.kind == "array" and ta.ndim is not None and ta.ndim >= 2 \
            and tr is not None and tr.kind == "array" and tr.ndim is not None \
            and tr.ndim <= ta.ndim:
        return CHECKED
    return False


def _fits_into(rest: Value, acc: Value, classes: _Classes) -> bool:
    # shaped like a keepdims reduction of an array of acc's shape (a softmax's row sums,
    # ``g / z`` with ``z = e.sum(-1, keepdims=True)``): it broadcasts into acc, never acc
    # into it, so the result keeps acc's shape
    fitted = classes.fits.get(classes.of(rest).id)
    return fitted is not None and classes.same(fitted, acc)

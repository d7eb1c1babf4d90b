"""Shape classes: drop ``unbroadcast``/``like`` where shapes are provably equal, and
broadcast a full reduction's adjoint lazily.

Runs in the pipeline before ``simplify``. A forward walk over every block (loop and branch
bodies too, through the visitor of ``blocks.py``) puts every value in a *shape class*:
values of one class provably have the same shape at run time. An elementwise primitive
(a table rule of kind elementwise without parameters) whose non-scalar inputs all share
one class has that class (a known 0-d input broadcasts to anything);
``unreduce(g, shape(v))`` and ``matmul_adjoint_*(..., shape(v))`` have ``v``'s
class. Nothing is assumed about values of unknown rank. With the classes:

    %7 = shape(x=%4)          # %4 = power(%3, 2)       %7 = shape(x=%3)
                              # (in a loop body, %3 may be the loop's initial value:
                              #  the shape is then the same each iteration and is hoisted)
    %14 = unbroadcast(x=%12, shape=%13)   ->   (uses of %14 -> %12, when %12 ~ %13's value)
    %24 = like(d=%23, x=%W1)              ->   (uses of %24 -> %23: same class, same dtype,
                                                float32 as float64: ``Classes.dtype_of``)
    %25 = like(d=%22, x=%a)               ->   (uses of %25 -> %22: both Python floats,
                                                see python_floats.py)
    %6 = seed_one(out=%5)                 ->   %6 = const(1.0)  (%5 a float64 scalar, or a
                                                 loop's ``0.0 + np.sum(...)``: NUMBER)
    %8 = unreduce(x=%6, shape=%7, ...)    ->   (uses of %8 -> %6, when %6 is a scalar and
    %10 = divide(x=%8, y=%9)                    every use chain ends in an elementwise op
    %12 = multiply(x=%10, y=%11)                with an operand of %7's class, float64)

so ``np.sum``/``np.mean``'s adjoint is a scalar multiplied in, never a materialised array.
Along constant axes the same holds with the reduced axes kept as length 1, and a value
shifted by its own ``keepdims`` reduction keeps its class::

    %3 = max(x=%z, axis=1, keepdims=True)      (%3 fits %z: same rank, reduced axes 1)
    %4 = subtract(x=%z, y=%3)              ->   %4 ~ %z: its adjoint needs no unbroadcast
    %8 = unreduce(x=%6, shape=shape(%4), axis=1)   ->   %8 = getitem(x=%6, (:, None))
    %9 = multiply(x=%8, y=%5)  # %5 ~ %4            (when %6's class has the reduced rank)

Last, each ``shape(x=v)`` moves right after ``v``'s definition, so a large ``v`` read later
only for its shape dies early (the backend then rebinds its name and frees it):

    %0 = matmul(x=%x, y=%w)                  %0 = matmul(x=%x, y=%w)
    %1 = tanh(x=%0)                  ->      %5 = shape(x=%0)
    ...                                      %1 = tanh(x=%0)
    %5 = shape(x=%0)                         ...
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...rules.registry import RULES
from ..ir.core import Block, Function, Op, Value, const_value
from ..ir.types import FLOAT, NUMBER, STATIC, of_value
from ..type_inference import infer_type
from .blocks import popped_items, read_inside, walk
from .matmul_adjoints import plain_matmul_adjoints
from .matmul_lengths import matmul_lengths
from .python_floats import SurelyFloat
from .rewrite import replace_uses
from .shape_classes import (
    Classes,
    elementwise,
    float64_array,
    float_array,
    parameter_classes,
    rank0,
    shape_source,
    unknown,
)
from .shape_facts import kept_axes_index

_FRESH = ("matmul", "matmul_adjoint_x", "matmul_adjoint_y")  # always a new array


def shapes(fn: Function) -> None:
    matmul_lengths(fn)  # (``(a @ W).shape[-1]`` read from ``W``: invariant in a loop)
    classes = parameter_classes(fn)
    # (kept in the function's meta: the adjoints are plain products after the first round,
    # and later passes' classes, ``plain_classes``, still know their shapes)
    shaped_like = dict(fn.meta.get("shaped_like", {}))
    shaped_like.update(plain_matmul_adjoints(fn))
    fn.meta["shaped_like"] = classes.shaped_like = shaped_like
    classes.popped = popped_items(fn)
    classes.written = {op.args["x"].id for op in fn.body.walk()
                       if op.prim == "setitem" and isinstance(op.args.get("x"), Value)}
    mapping: dict[Value, Value] = {}
    surely_float = SurelyFloat(fn)

    def visit(op: Op, visible: set[int]) -> None:
        op.args = {k: _remap(a, mapping) for k, a in op.args.items()}
        classes.visit(op)
        new = _rewrite(op, classes, visible, surely_float)
        if new is not None:
            if new.name is None and new.adjoint_of is None and new.op is not None:
                new.name, new.adjoint_of = op.out.name, op.out.adjoint_of  # keep ``dx``
            mapping[op.out] = new

    walk(fn, classes, visit)  # every block: loop and branch bodies too (``blocks.py``)
    replace_uses(fn, mapping)
    scalar = _lazy_unreduce(fn, classes)
    from .spread import spread_lazily  # (it reads this module's shape classes)
    spread_lazily(fn, classes, scalar)
    _retype_numbers(fn, scalar)
    _shapes_early(fn)
    replace_uses(fn, _number_rebroadcasts(fn.body, {}))


def _retype_numbers(fn: Function, scalar: set[int]) -> None:
    """The values the folds above made numbers get a number's type: typed as the array
    they stood for, a later transform would read their ``.shape`` (``sg.hessian`` runs
    forward mode over this gradient) and get none from a Python float."""
    for op in fn.body.walk():
        if len(op.outputs) == 1 and op.out.id in scalar and "rule" in op.attrs \
                and op.out.type is not None and op.out.type.known_ndim != 0:
            op.out.type = infer_type(op.attrs["rule"], op.args)


def _number_rebroadcasts(block: Block, mapping: dict[Value, Value]) -> dict[Value, Value]:
    """``rebroadcast(t, shape(v))`` of a ``v`` known to be one number is ``t`` (a tangent is
    never larger than its primal), in every block, loop bodies included: forward mode over
    floats then runs no ``np.shape`` per operation."""
    for op in block.ops:
        if op.prim == "rebroadcast":
            source = shape_source(op.args.get("shape"))
            if source is not None and source.type is not None and \
                    source.type.known_ndim == 0:
                mapping[op.out] = op.args["x"]
        for region in op.regions:
            _number_rebroadcasts(region, mapping)
    return mapping


def _shapes_early(fn: Function) -> None:
    """Move each top-level ``shape(x=v)`` right after ``v`` is defined, so a large ``v``
    read later only for its shape can be freed early."""
    ops = fn.body.ops
    moved = [op for op in ops if op.prim == "shape" and isinstance(op.args.get("x"), Value)]
    if not moved:
        return
    moving = {id(op) for op in moved}  # (``op not in moved`` was quadratic)
    rest = [op for op in ops if id(op) not in moving]
    after: dict[int, list[Op]] = {}
    for op in moved:
        after.setdefault(op.args["x"].id, []).append(op)
        source = op.args["x"].op
        op.line = source.line if source is not None else None  # no stray line comment
    order = after.pop(-1, [])
    for p in fn.params:
        order += after.pop(p.id, [])
    for op in rest:
        order.append(op)
        for out in op.outputs:
            order += after.pop(out.id, [])
    for pending in after.values():  # defined in a region or elsewhere: keep in place
        for op in pending:
            order.insert(order.index(_next_op(ops, op, moved)) if _next_op(ops, op, moved)
                         in order else len(order), op)
    fn.body.ops = order


def _next_op(ops: list[Op], op: Op, moved: list[Op]) -> Op | None:
    for later in ops[ops.index(op) + 1:]:
        if later not in moved:
            return later
    return None


def _rewrite(op: Op, classes: Classes, visible: set[int],
             surely_float: SurelyFloat) -> Value | None:
    a = op.args
    if op.prim == "shape" and isinstance(a.get("x"), Value):
        rep = classes.of(a["x"])
        if rep is not a["x"] and _known_rank(rep) and rep.id in visible \
                and rep.id not in classes.written:  # (a read after the write: a copy)
            op.args = {**a, "x": rep}  # (a loop then computes the same shape each time)
        return None
    if op.prim in ("unbroadcast", "rebroadcast"):  # (a tangent's, in forward mode)
        source = classes.shape_source(a.get("shape"))
        if source is not None and classes.same(a["x"], source):
            return a["x"]
    if op.prim == "like" and _python_float(a["x"]) and surely_float(a["d"]):
        return a["d"]  # (a float argument's float gradient: ``like`` would return it as is)
    if op.prim == "like" and float_array(a["x"]) and isinstance(a["d"], Value):
        d = a["d"]  # (a new array of x's shape and dtype: float32 in, float32 out)
        fresh = _fresh(d)
        if fresh and classes.dtype_of(d) == a["x"].type.dtype and classes.same(d, a["x"]) \
                and (unknown(d) or d.type == a["x"].type):
            return d
    if op.prim == "seed_one" and a["out"].type is not None and (
            a["out"].type.kind == "scalar" and a["out"].type.dtype == "float64"
            or a["out"].type == NUMBER):  # (a float or float64 scalar: its seed is 1 either way)
        op.prim, op.args, op.attrs = "const", {}, {"value": 1.0}
        op.out.type = FLOAT
    elif op.prim == "seed_one" and a["out"].type is not None and (
            a["out"].type.kind == "scalar" and a["out"].type.dtype in ("float32", "float16")):
        # the NumPy scalar 1 of the result's dtype (seed_one's value, known now: the
        # forward result is then read by nothing and not computed)
        one = np.dtype(a["out"].type.dtype).type(1.0)
        op.prim, op.args, op.attrs = "const", {}, {"value": one}
        op.out.type = of_value(one)
    return None


def _python_float(v: Any) -> bool:
    """``v`` is known to be a Python float: a ``float`` literal, or typed so (the type the
    backend's ``math.*`` spellings already rely on)."""
    if not isinstance(v, Value):
        return False
    is_const, value = const_value(v)
    if is_const:
        return type(value) is float
    return v.type is not None and v.type.kind == "float"


def _fresh(v: Value) -> bool:
    """``v`` is a new array (so ``like`` would not copy it): an elementwise result, a
    matmul, a rule's ``fresh`` result, or a sum of one (``unbroadcast`` returns its input
    or sums it)."""
    op = v.op
    if op is None:
        return False
    if op.prim == "unbroadcast":
        return isinstance(op.args["x"], Value) and _fresh(op.args["x"])
    rule = op.attrs.get("rule")
    return elementwise(op) or op.prim in _FRESH or (rule is not None and rule.fresh
                                                     and not rule.user)


def _known_rank(v: Value) -> bool:
    return v.type is not None and v.type.known_ndim is not None


def _lazy_unreduce(fn: Function, classes: Classes) -> set[int]:
    """Replace a full reduction's broadcast adjoint by the scalar itself where safe, in
    every block (a reverse loop's ``unreduce`` of a popped shape too); the values that
    became numbers."""
    mapping: dict[Value, Value] = {}
    lazy: set[int] = set()
    _lazy_block(fn.body, classes, mapping, lazy)
    replace_uses(fn, mapping)
    return lazy


def _lazy_block(block: Block, classes: Classes, mapping: dict[Value, Value],
                lazy: set[int]) -> None:
    """:func:`_lazy_unreduce` in ``block``: its uses are its own ops' (what it defines is
    read nowhere else, but by its regions and as its results, which stop the fold)."""
    users: dict[int, list[Op]] = {}
    results = {r.id for r in block.results}  # and, below, anything a region reads
    for op in block.ops:
        for v in op.operands():
            users.setdefault(v.id, []).append(op)
        for region in op.regions:
            _lazy_block(region, classes, mapping, lazy)
            results.update(read_inside(region))
    # Decided one at a time: a value already made lazy no longer gives a sum its full
    # shape, so two adjoints ``a + b`` are never both made lazy on each other's account.
    for op in list(block.ops):
        if op.prim != "unreduce" or op.out.id not in classes.rep:
            continue
        g = op.args["x"]
        kept = _kept_axes(op, classes)
        if kept is None and not classes.is_weak(g):  # (a Python number: ``1.0 / n``)
            if not (rank0(g) and g.type.dtype in (None, "float64")):
                continue
            if g.type.kind not in ("float", "scalar"):
                continue
        if kept is not None and not kept[1] and _pending_full_reduction(g, lazy):
            # (left an unreduce: ``spread`` keeps the full reduction's number through it,
            # which it cannot through the ``g[:, None]`` this would become)
            continue
        # a kept-axes cotangent is an array of the result's rank and dtype: broadcasting
        # it by the partner changes no dtype, so any full-shaped partner will do
        chain = _stays_lazy(op.out, classes.of(op.out), classes, users, results, lazy,
                            any_dtype=kept is not None and kept[1])
        if chain is None:
            continue
        lazy |= chain
        if kept is None or kept[1]:
            mapping[op.out] = g
        else:  # the reduced axes back as length 1 (``g[:, None]``): a view broadcasting
            # stretches; a basic index, cheaper than np.expand_dims's wrapper
            index = Op("const", {}, [Value(type=STATIC)], {"value": kept[0]}, line=op.line)
            block.ops.insert(block.ops.index(op), index)
            op.prim, op.args = "getitem", {"x": g, "index": index.out}
            op.attrs = {**op.attrs, "rule": RULES["getitem"]}


def _pending_full_reduction(g: Any, lazy: set[int]) -> bool:
    """Is ``g`` (through negations and sums back to a shape) a full reduction's
    broadcast cotangent not made a number here (``np.mean(a - np.sum(z * y, axis=1))``)?"""
    for _ in range(8):
        if not isinstance(g, Value) or g.op is None:
            return False
        if g.op.prim == "unreduce":
            axis = g.op.args.get("axis")
            full = axis is None or (isinstance(axis, Value) and const_value(axis) == (True, None))
            return full and g.id not in lazy
        if g.op.prim not in ("negative", "unbroadcast"):
            return False
        g = g.op.args["x"]
    return False


def _kept_axes(op: Op, classes: Classes) -> tuple[Any, bool] | None:
    """``kept_axes_index`` (``shape_facts.py``) of an ``unreduce`` whose cotangent's class
    and shape source are of known rank."""
    source = classes.shape_source(op.args.get("shape"))
    g = op.args["x"]
    if source is None or not isinstance(g, Value) or not _known_rank(source) \
            or not _known_rank(classes.of(g)):
        return None
    return kept_axes_index(op, classes.of(g).type.known_ndim, source.type.known_ndim)


def _stays_lazy(u: Value, cls: Value, classes: Classes, users: dict[int, list[Op]],
                results: set[int], lazy_before: set[int], *,
                any_dtype: bool = False) -> set[int] | None:
    """The values that turn scalar when ``u`` does, if every use of ``u`` (through
    scalar-only elementwise ops) meets a full-shaped float64 ``cls``; else None. Values in
    ``lazy_before`` are scalars already (earlier decisions), never a full-shaped partner."""
    lazy = {u.id}
    todo = [u]
    while todo:
        v = todo.pop()
        if v.id in results:
            return None
        for op in users.get(v.id, []):
            if not elementwise(op):
                return None
            partners = [w for w in op.operands() if w.id not in lazy]
            shaped = [w for w in partners if not rank0(w) and w.id not in lazy_before]
            if shaped:
                if not all(classes.same(w, cls) and (any_dtype or float64_array(w, classes))
                           for w in shaped):
                    return None
                continue  # the partner gives the result its full shape
            if op.out.id not in lazy:
                lazy.add(op.out.id)
                todo.append(op.out)
    return lazy



def _remap(a: Any, mapping: dict[Value, Value]) -> Any:
    if isinstance(a, tuple):
        return tuple(_remap(x, mapping) for x in a)
    return mapping.get(a, a) if isinstance(a, Value) else a

"""Type inference for recorded ops: the result type from running the primitive on examples.

:func:`infer_type` is called by the tracer (:mod:`.symbolic`) for every op it appends: it
runs the rule (or its operator, or its ``math`` twin, as :mod:`.spelling` says the op is
spelled) on concrete example values of the operands' abstract types (:mod:`.ir.types`),
with examples sized for the constant ints among them and shaped for run-time shape
tuples, and reads the abstract type of what comes out. A plain NumPy ufunc on typed
operands is typed without examples (:func:`ufunc_type`: NumPy's own dtype resolution and
the broadcast rank), the same answer for a fraction of the cost::

    multiply(x: array[2,float32], y: float)  ->  array[2,float32]
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

from srcgrad.rules import ELEMENTWISE, Rule

from .ir import types as T
from .ir.core import Value, const_value
from .spelling import spelling_now, uses_math_spelling


def _example(v: Any, size: int = 2) -> tuple[bool, Any]:
    """A concrete stand-in for operand ``v`` (its constant, or an example of its type)."""
    if isinstance(v, tuple):
        parts = [_example(x, size) for x in v]
        return all(ok for ok, _ in parts), [x for _, x in parts]
    is_const, c = const_value(v)
    if is_const:
        return True, c
    t = v.type or T.ANY
    if t.kind == "static" and v.op is not None and v.op.prim == "shape":
        # the shape of a value of known rank: a tuple of that many ints, so ``x.shape[-1]``
        # is typed an int and ``s / np.sqrt(x.shape[-1])`` keeps ``s``'s array type
        x = v.op.args.get("x")
        ndim = x.type.known_ndim if isinstance(x, Value) and x.type is not None else None
        if ndim is not None:
            return True, (size,) * ndim
    if t.kind == "static" and v.op is not None and v.op.prim == "make_tuple":
        # a tuple built at run time (``z[np.arange(n), labels]``'s index): a tuple of its
        # items' examples, so the gather is typed (its rank follows from theirs) and what
        # reads it keeps array types
        ok, items = _example(tuple(v.op.args["items"]), size)
        return ok, tuple(items)  # (a tuple: as a list it would index one axis)
    if t.kind in ("any", "static") and t != T.NUMBER:
        return False, None
    return True, T.example(t, size)


# Example arrays larger than this many elements are not worth a type.
_MAX_EXAMPLE_ELEMENTS = 1 << 16


def _fitting_size(operands: dict[str, Any], divisible: bool = False) -> int | None:
    """An example size every constant int of ``operands`` is a valid index for (``W[-1, 2]``
    needs 3 along each axis), or with ``divisible`` one each positive int also divides
    (their least common multiple, at least that index size), or None when those examples
    would be too large."""
    ints: list[int] = []
    ndims: list[int] = [0]

    def walk(obj: Any) -> None:
        if isinstance(obj, Value):
            is_const, c = const_value(obj)
            if is_const:
                walk(c)
            elif obj.type is not None and obj.type.kind == "array":
                ndims.append(obj.type.ndim or 0)
        elif isinstance(obj, (tuple, list)):
            for o in obj:
                walk(o)
        elif isinstance(obj, slice):
            walk([obj.start, obj.stop, obj.step])
        elif isinstance(obj, (int, np.integer)) and not isinstance(obj, bool):
            ints.append(int(obj))

    walk(list(operands.values()))
    size = max([n + 1 if n >= 0 else -n for n in ints], default=0)
    if divisible:
        lcm = math.lcm(*(n for n in ints if n > 0)) if any(n > 0 for n in ints) else 1
        size = lcm * -(-max(size, 1) // lcm)
    if size <= 2 or size ** max(ndims) > _MAX_EXAMPLE_ELEMENTS:
        return None
    return size



def infer_type(rule: Rule, operands: dict[str, Any]) -> T.AType:
    """The result type, by running the primitive on example values of the operand types
    (quietly: a warning or floating-point error on an example is no user's).

    The examples have 2 elements per axis; when the primitive fails on them, it is run once
    more on examples large enough for the constant ints among the operands, so an index
    such as ``W[-1, 2]`` still gets its type (a NumPy scalar, not a view: the aliasing rule
    relies on that); and once on examples of 1 element per axis, which broadcast against a
    constant array of any size (``x * W`` with a captured W of 4 rows).
    """
    t = ufunc_type(rule, operands)
    if t is not None:
        return t
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return _infer_type(rule, operands)


# the Python numbers a ufunc takes as weakly typed (NEP 50): they never widen an array's dtype
_WEAK = {"float": float, "int": int}


def ufunc_type(rule: Rule, operands: dict[str, Any]) -> T.AType | None:
    """The type of a plain NumPy ufunc's result read off its operands' types, without
    running it on examples: the dtype NumPy's own loop resolution picks
    (``np.ufunc.resolve_dtypes``, Python numbers weak), the rank the broadcast of the
    operands' ranks. None where the examples must decide: a constant operand, an operand of
    unknown kind, no NumPy operand (the operator's or ``math``'s spelling on Python
    numbers), or dtypes the ufunc has no loop for. ``tests/compiler/test_type_inference.py``
    checks it gives what the examples give, for every such rule."""
    impl = rule.impl
    if type(impl) is not np.ufunc or impl.nout != 1 or impl.signature is not None \
            or rule.params or rule.user or rule.kind != ELEMENTWISE \
            or len(operands) != len(rule.inputs):
        return None
    dtypes: list[Any] = []
    ndim, numpy_typed = 0, False
    for name in rule.inputs:
        v = operands.get(name)
        if not isinstance(v, Value) or v.type is None or const_value(v)[0]:
            return None
        t = v.type
        if t.kind in ("array", "scalar") and t.ndim is not None and t.dtype is not None \
                and np.dtype(t.dtype).kind in "biufc":  # (an object array's result is any)
            ndim = max(ndim, t.ndim)
            dtypes.append(np.dtype(t.dtype))
            numpy_typed = True
        elif t.kind in _WEAK:
            dtypes.append(_WEAK[t.kind])
        else:
            return None
    if not numpy_typed or uses_math_spelling(rule, operands, bool(spelling_now())):
        return None
    try:
        resolved = impl.resolve_dtypes((*dtypes, None))[-1]
    except (TypeError, ValueError):
        return None
    return T.numpy_type("array" if ndim else "scalar", ndim, resolved)


def _infer_type(rule: Rule, operands: dict[str, Any]) -> T.AType:
    t = _infer_on_examples(rule, operands, 2)
    if t.kind == "scalar" and t.dtype == "float64" and any(
            isinstance(v, Value) and v.type == T.NUMBER for v in operands.values()):
        return T.NUMBER  # (its example was a NumPy scalar; at run time it may be a float)
    if t.known_ndim is not None and rule.kind != ELEMENTWISE and not _rank_of_examples_holds(
            rule, operands, t):
        return T.ANY
    if t == T.ANY:
        size = _fitting_size(operands)
        if size is not None:
            t = _infer_on_examples(rule, operands, size)
    if t == T.ANY:
        # a constant int may also need to divide a length (np.split(x, 3) splits 6, not 4)
        size = _fitting_size(operands, divisible=True)
        if size is not None:
            t = _infer_on_examples(rule, operands, size)
    if t.kind == "any" and rule.broadcasts and any(
            isinstance(c, np.ndarray) and c.ndim for ok, c in
            (const_value(v) for v in operands.values() if isinstance(v, Value)) if ok):
        t = _infer_on_examples(rule, operands, 1)
    return t


def _rank_of_examples_holds(rule: Rule, operands: dict[str, Any], t: T.AType) -> bool:
    """Whether examples of 3 elements per axis give the rank examples of 2 gave: a
    primitive whose result rank depends on an axis length (``np.cross`` of 2-vectors is a
    scalar, of 3-vectors a vector) has a rank the types cannot know, so it stays unknown."""
    t3 = _infer_on_examples(rule, operands, 3)
    return t3.known_ndim is None or t3.known_ndim == t.known_ndim


def _int_item(v: Any) -> bool:
    """An int known only at run time (a length read from a shape, arithmetic on one)."""
    if not isinstance(v, Value) or const_value(v)[0] or v.type is None:
        return False
    t = v.type
    return t.kind == "int" or (t.kind == "scalar" and np.dtype(t.dtype).kind in "iu")


def _shape_tuple(v: Any) -> bool:
    """``(B, T, 2, D)``: a tuple of ints, some known only at run time (a shape to build)."""
    if not (isinstance(v, Value) and v.op is not None and v.op.prim == "make_tuple"):
        return False
    items = v.op.args["items"]
    return any(_int_item(x) for x in items) and all(
        _int_item(x) or (const_value(x)[0] and type(const_value(x)[1]) is int) for x in items)


def _shape_example(v: Value, size: int, elements: int | None) -> tuple[int, ...]:
    """An example of shape tuple ``v``: each run-time length ``size``, or with ``elements``
    lengths whose product with the constant ones is that many elements (``x.reshape(B, T,
    2, D)`` of an example ``x`` of 8 elements: ``(2, 2, 2, 1)``). Only the tuple's length
    decides the rank of what it shapes, and these examples keep that length."""
    items = v.op.args["items"]
    if elements is None:
        return tuple(const_value(x)[1] if const_value(x)[0] else size for x in items)
    fixed = math.prod(const_value(x)[1] for x in items if const_value(x)[0])
    left = elements // fixed if fixed > 0 and elements % fixed == 0 else 0
    out = []
    for x in items:
        if const_value(x)[0]:
            out.append(const_value(x)[1])
            continue
        n = size if left % size == 0 and left >= size else 1
        left = left // n if n else left
        out.append(n)
    free = [i for i, x in enumerate(items) if not const_value(x)[0]]
    if left > 1 and free:  # (what the equal lengths left over goes to the last one)
        out[free[-1]] *= left
    return tuple(out)


def _infer_on_examples(rule: Rule, operands: dict[str, Any], size: int) -> T.AType:
    t = _infer_on_shape_examples(rule, operands, size, None, shapes=False)
    shaped = [k for k, v in operands.items() if _shape_tuple(v)]
    if t != T.ANY or not shaped:
        return t
    # a tuple of run-time ints the examples above could not use is read as a shape
    t = _infer_on_shape_examples(rule, operands, size, None, shapes=True)
    if t != T.ANY:
        return t
    # a run-time shape for an array of a given size (reshape): lengths that fit its examples
    arrays = [v for k, v in operands.items() if k not in shaped and isinstance(v, Value)
              and v.type is not None and v.type.kind == "array"]
    if len(arrays) != 1 or arrays[0].type.ndim is None:
        return t
    return _infer_on_shape_examples(rule, operands, size, size ** arrays[0].type.ndim,
                                    shapes=True)


def _infer_on_shape_examples(rule: Rule, operands: dict[str, Any], size: int,
                             elements: int | None, shapes: bool) -> T.AType:
    env = {}
    for k, v in operands.items():
        if shapes and _shape_tuple(v):
            env[k] = _shape_example(v, size, elements)
            continue
        ok, x = _example(v, size)
        if not ok:
            return T.ANY
        env[k] = x
    if rule.name == "getitem" and isinstance(env.get("x"), tuple) and \
            isinstance(env.get("index"), slice):
        # a slice of a tuple (``x.shape[:1]``) is a tuple, as the emitted ``x[:1]`` makes
        # it, never the array ``np.asarray(x)[:1]`` that the rule's NumPy form returns
        return T.STATIC
    twin = uses_math_spelling(rule, operands, bool(spelling_now()))
    impl = _OPERATORS.get((rule.operator, len(rule.inputs)))
    if impl is not None:
        return T.infer(lambda: impl(*(env[n] for n in rule.inputs)))
    if twin is not None:
        return T.infer(lambda: twin(*(env[n] for n in rule.inputs)))
    return T.infer(lambda: rule.apply(env))


# Arithmetic whose result type on Python numbers is the operator's (``2 * 3`` is an int),
# by the rule's operator spelling and arity (comparisons, ``//`` and ``%`` keep NumPy's)
_OPERATORS: dict[tuple[str | None, int], Any] = {
    ("+", 2): lambda x, y: x + y, ("-", 2): lambda x, y: x - y,
    ("*", 2): lambda x, y: x * y, ("/", 2): lambda x, y: x / y,
    ("**", 2): lambda x, y: x ** y, ("@", 2): lambda x, y: x @ y,
    ("-", 1): lambda x: -x,
}

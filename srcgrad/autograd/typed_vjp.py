"""A VJP expression specialised to arrays of one floating dtype (used by :mod:`.specialize`,
beside :mod:`.inline_vjp`, whose plain expression stays the fallback).

Two things make a written-in VJP cost more than its NumPy work on small arrays, and both
come from Python numbers:

- a number meeting an array (``1 - out * out``, ``np.where(out > 0, g, 0.0)``): NumPy
  converts it per operation (NEP 50's "weak" scalar), about as long as the operation
  itself. A 0-d array of the array's own dtype gives the same values and result dtype, so
  the expression reads ``k[0]`` there, bound to such a constant;
- a mask decided by a Python number input (``x ** 2.0``'s ``np.where(y == 0, 0.0, ...)``):
  ``np.where`` on a Python bool builds and broadcasts arrays for the untaken branch. When
  the bool selects an array branch, that array *is* the result (same values, dtype and
  shape: every array here has the output's shape and dtype), so the expression reads
  ``(A if not c else np.where(c, n, A))``.

Both hold only when every array the expression reads has the one dtype ``dt`` (the
cotangent's) and, for the masks, the output's shape, and the number inputs are Python
``int``/``float`` or 0-d arrays of ``dt`` (what the runtime's operators make of a float):
the generated code checks that, and falls back to the plain expression otherwise.

It runs the VJP on placeholders as :func:`.inline_vjp.inline` does (the same guard on what
the function may touch); each placeholder knows what it stands for (:data:`SAME`,
:data:`MASK`, :data:`NUM`, :data:`COND`, or nothing known).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .inline_vjp import Placeholder, _plain_arithmetic, _Unsupported
from .inline_vjp import _text as _plain_text

SAME = "same"  # an array of the checked dtype, of the output's shape
MASK = "mask"  # a boolean array compared from SAME arrays
NUM = "num"  # a number input (a Python int or float, or a 0-d array of the checked dtype)
COND = "cond"  # a Python or NumPy bool compared from NUM values
_NUMBER = "number"  # a literal of the VJP's code
_COMPARISONS = frozenset({">", "<", ">=", "<=", "==", "!="})
# ufuncs whose literal numbers stay numbers (NumPy treats a number exponent its own way)
_KEEP_NUMBERS = frozenset({np.power, np.float_power, np.ldexp})


class _Trace:
    """What one run of the VJP on placeholders collected."""

    def __init__(self) -> None:
        self.numbers: list[Any] = []  # literals written as k[i]
        self.selections = 0  # np.where calls written as conditional expressions


def _kind(value: Any) -> str | None:
    if type(value) is _Typed:
        return value.kind
    if type(value) in (int, float):
        _plain_text(value)  # (a non-finite float is refused here as in the plain form)
        return _NUMBER
    return None


def _text(value: Any) -> str:
    return value.src if type(value) is _Typed else _plain_text(value)


def _operands(trace: _Trace, values: Sequence[Any], convert: bool) -> list[str]:
    """The operands' text, the literals as ``k[i]`` when ``convert``."""
    texts = []
    for v in values:
        if convert and _kind(v) == _NUMBER:
            texts.append(f"k[{len(trace.numbers)}]")
            trace.numbers.append(v)
        else:
            texts.append(_text(v))
    return texts


def _ufunc_kind(ufunc: Any) -> str | None:
    """SAME when ``ufunc`` maps float32 and float64 arrays to their own dtype, MASK when to
    booleans, else None."""
    kinds = set()
    for dt in (np.dtype(np.float32), np.dtype(np.float64)):
        try:
            out = ufunc.resolve_dtypes((dt,) * ufunc.nin + (None,) * ufunc.nout)[ufunc.nin:]
        except (TypeError, ValueError, AttributeError):
            return None
        kinds.add(SAME if out == (dt,) else MASK if out == (np.dtype(bool),) else None)
    return kinds.pop() if len(kinds) == 1 else None


class _Typed(Placeholder):
    """A placeholder that knows what it stands for (its ``kind``)."""

    __slots__ = ("kind", "trace")

    def __init__(self, src: str, kind: str | None, trace: _Trace) -> None:
        self.src = src
        self.kind = kind
        self.trace = trace

    def _combine(self, op: str, other: Any, reflected: bool) -> _Typed:
        pair = (other, self) if reflected else (self, other)
        kinds = {_kind(v) for v in pair}
        kind = None
        convert = False
        if kinds <= {NUM, _NUMBER}:  # Python arithmetic on numbers
            kind = COND if op in _COMPARISONS else NUM
        elif SAME in kinds and kinds <= {SAME, NUM, _NUMBER}:  # a number is weak (NEP 50)
            kind = MASK if op in _COMPARISONS else SAME
            convert = op != "**"
        a, b = _operands(self.trace, pair, convert)
        return _Typed(f"({a} {op} {b})", kind, self.trace)

    def __neg__(self) -> _Typed:
        return _Typed(f"(-{self.src})", self.kind if self.kind in (SAME, NUM) else None,
                      self.trace)

    def __array_ufunc__(self, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> _Typed:
        if method != "__call__" or kwargs or getattr(np, ufunc.__name__, None) is not ufunc:
            raise _Unsupported(f"{ufunc.__name__}.{method}")
        kinds = {_kind(v) for v in inputs}
        # (a ufunc of a Python number gives a NumPy scalar, which is not weak: unknown)
        typed = SAME in kinds and kinds <= {SAME, _NUMBER} and ufunc.nout == 1
        kind = _ufunc_kind(ufunc) if typed else None
        texts = _operands(self.trace, inputs, kind is not None and ufunc not in _KEEP_NUMBERS)
        return _Typed(f"np.{ufunc.__name__}({', '.join(texts)})", kind, self.trace)

    def __array_function__(self, func: Any, types: Any, args: Any, kwargs: Any) -> Any:
        if func is not np.where or len(args) != 3 or kwargs:
            raise _Unsupported(getattr(func, "__name__", "a NumPy function"))
        cond, a, b = args
        kinds = [_kind(a), _kind(b)]
        if SAME not in kinds or not set(kinds) <= {SAME, _NUMBER}:
            texts = [_text(a), _text(b)]
            return _Typed(f"np.where({_text(cond)}, {', '.join(texts)})", None, self.trace)
        ta, tb = _operands(self.trace, (a, b), True)
        selection = f"np.where({_text(cond)}, {ta}, {tb})"
        if _kind(cond) == COND:  # decided by a Python bool: the array branch is the result
            c = _text(cond)
            self.trace.selections += 1
            if kinds == [SAME, SAME]:
                selection = f"({ta} if {c} else {tb})"
            elif kinds[0] == SAME:
                selection = f"({ta} if {c} else {selection})"
            else:
                selection = f"({tb} if not {c} else {selection})"
        return _Typed(selection, SAME, self.trace)


def inline_typed(fn: Any, args: Sequence[str], same: Sequence[int],
                 numbers: Sequence[int] = ()) -> tuple[str, list[Any]] | None:
    """``fn(*args)`` as one expression for arguments ``same`` (positions) that are arrays
    of one floating dtype ``dt`` and the output's shape and arguments ``numbers`` that are
    Python ints or floats or 0-d arrays of ``dt`` (the caller checks both): the literals
    meeting such arrays written ``k[0]``, ``k[1]``..., to be bound to 0-d arrays of
    ``dt``, and those literals.
    None when the plain expression (:func:`.inline_vjp.inline`) is all there is to write."""
    if not _plain_arithmetic(fn) or fn.__code__.co_argcount != len(args):
        return None
    trace = _Trace()
    try:
        result = fn(*(_Typed(a, SAME if i in same else NUM if i in numbers else None, trace)
                      for i, a in enumerate(args)))
    except Exception:  # anything a placeholder cannot stand for: the plain form
        return None
    if type(result) is not _Typed or not (trace.numbers or trace.selections):
        return None
    return result.src, trace.numbers

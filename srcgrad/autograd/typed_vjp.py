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
  ``(A if not c else np.where(c, n, A))``;
- arithmetic on the number inputs alone (``y == 0``, ``y - 1`` in ``x ** y``'s VJP): on a
  0-d array each is a NumPy scalar operation (~0.6 us, as long as an array operation), and
  ``x ** (y - 1)`` then meets a NumPy scalar, slower than a 0-d array. Such terms are
  written ``h[0]``, ``h[1]``... and computed once per node by :class:`Hoisted` (the same
  NumPy operations on the same values; a NumPy scalar result as a 0-d array of its dtype,
  which NumPy treats alike), whose results are kept per dtype and number value: a
  runtime's exponents are a few constants (``x ** 2.0``), so the backward reads a tuple.

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

from ..rules.registry import ELEMENTWISE
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
        self.hoisted: list[tuple[str, str]] = []  # (text, kind) of number terms, as h[i]

    def hoist(self, src: str, kind: str) -> str:
        """``h[i]`` for the number term ``src`` (one slot per distinct text)."""
        for i, (text, _kind) in enumerate(self.hoisted):
            if text == src:
                return f"h[{i}]"
        self.hoisted.append((src, kind))
        return f"h[{len(self.hoisted) - 1}]"


def _kind(value: Any) -> str | None:
    if type(value) is _Typed:
        return value.kind
    if type(value) in (int, float):
        _plain_text(value)  # (a non-finite float is refused here as in the plain form)
        return _NUMBER
    return None


def _raw(value: Any) -> str:
    """The operand's own text (a number term spelled out, for number arithmetic)."""
    return value.src if type(value) is _Typed else _plain_text(value)


def _text(value: Any) -> str:
    """The operand's text where it meets an array or a selection: a number term
    (arithmetic on number inputs alone) as its ``h[i]``."""
    if type(value) is _Typed:
        return value.trace.hoist(value.src, value.kind) if value.derived else value.src
    return _plain_text(value)


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

    # derived: a number term (arithmetic on number inputs alone), hoisted where it is read
    __slots__ = ("kind", "trace", "derived")

    def __init__(self, src: str, kind: str | None, trace: _Trace, derived: bool = False) -> None:
        self.src = src
        self.kind = kind
        self.trace = trace
        self.derived = derived

    def _combine(self, op: str, other: Any, reflected: bool) -> _Typed:
        pair = (other, self) if reflected else (self, other)
        kinds = {_kind(v) for v in pair}
        if kinds <= {NUM, _NUMBER}:  # arithmetic on numbers: a term to compute once
            a, b = (_raw(v) for v in pair)
            return _Typed(f"({a} {op} {b})", COND if op in _COMPARISONS else NUM, self.trace,
                          derived=True)
        kind = None
        convert = False
        if SAME in kinds and kinds <= {SAME, NUM, _NUMBER}:  # a number is weak (NEP 50)
            kind = MASK if op in _COMPARISONS else SAME
            convert = op != "**"
        a, b = _operands(self.trace, pair, convert)
        return _Typed(f"({a} {op} {b})", kind, self.trace)

    def __neg__(self) -> _Typed:
        if self.kind == NUM:
            return _Typed(f"(-{self.src})", NUM, self.trace, derived=True)
        return _Typed(f"(-{_text(self)})", self.kind if self.kind == SAME else None, self.trace)

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
                 numbers: Sequence[int] = ()) -> tuple[str, list[Any],
                                                       list[tuple[str, str]]] | None:
    """``fn(*args)`` as one expression for arguments ``same`` (positions) that are arrays
    of one floating dtype ``dt`` and the output's shape and arguments ``numbers`` that are
    Python ints or floats or 0-d arrays of ``dt`` (the caller checks both): the literals
    meeting such arrays written ``k[0]``, ``k[1]``..., to be bound to 0-d arrays of
    ``dt``, and the number terms written ``h[0]``, ``h[1]``... (:class:`Hoisted`).
    Returns the expression, those literals and the terms' (text, kind); None when the
    plain expression (:func:`.inline_vjp.inline`) is all there is to write."""
    if not _plain_arithmetic(fn) or fn.__code__.co_argcount != len(args):
        return None
    trace = _Trace()
    try:
        result = fn(*(_Typed(a, SAME if i in same else NUM if i in numbers else None, trace)
                      for i, a in enumerate(args)))
    except Exception:  # anything a placeholder cannot stand for: the plain form
        return None
    if type(result) is not _Typed or not (trace.numbers or trace.selections or trace.hoisted):
        return None
    return _raw(result), trace.numbers, trace.hoisted


_F64 = np.dtype(np.float64)
# the dtypes whose numbers are written as 0-d arrays (the others keep Python numbers)
_DTYPES = (np.dtype(np.float32), _F64)


def _strong(value: Any) -> Any:
    """A NumPy scalar as a read-only 0-d array (NumPy treats both alike: same values and
    result dtypes; an array operand skips the scalar's conversion); others as they are."""
    if isinstance(value, np.generic):
        value = np.array(value)
        value.flags.writeable = False
    return value


class Hoisted:
    """The number terms of a VJP (``h[i]``): ``hoisted(dt, *numbers)`` computes them (the
    same NumPy or Python operations the expression would run, so the same values),
    ``None`` if one raises (the plain expression then runs, and raises or not as the
    generic path does: its branches are lazy). With one number input that is a 0-d
    array, the terms depend on its value and dtype only: kept in ``caches[dt is F64]``
    by value (not nan or zero, whose sign a key cannot tell)."""

    def __init__(self, terms: list[tuple[str, str]], names: list[str]) -> None:
        items = [f"strong({t})" if kind == NUM else t for t, kind in terms]
        source = (f"def terms({', '.join(names)}):\n"
                  f"    return ({', '.join(items)},)\n")
        namespace: dict[str, Any] = {"np": np, "strong": _strong}
        exec(compile(source, "<srcgrad number terms>", "exec"), namespace)
        self.terms = namespace["terms"]
        self.terms.__srcgrad_source__ = source
        self.cached = len(names) == 1
        self.caches: tuple[dict[float, Any], dict[float, Any]] = ({}, {})

    def __call__(self, dt: Any, *numbers: Any) -> tuple[Any, ...] | None:
        try:
            values = self.terms(*numbers)
        except ArithmeticError:  # (Python arithmetic on int inputs: 1 / 0)
            return None
        if self.cached and type(numbers[0]) is np.ndarray:
            q = numbers[0].item()
            if q == q and q:
                cache = self.caches[dt is _F64]
                if len(cache) >= 1024:  # a schedule of ever-new numbers: start over
                    cache.clear()
                cache[q] = values
        return values


def typed_lines(plan: Any, fn: Any, args: list[str], needs: tuple[str, ...],
                tensor_names: list[str], k: int, target: str, expr: str,
                namespace: dict[str, Any]) -> list[str] | None:
    """The lines (at 4 spaces) of a written-out backward (:mod:`.specialize`) setting
    ``target`` to VJP ``fn`` of ``args`` specialised to the cotangent's dtype ``dt`` (a
    local of the backward, None unless ``g`` is an ndarray), with ``expr``, its plain
    expression, where the checks that make the typed form exact fail: every array it
    reads has that dtype, and (an elementwise rule with one Tensor input, so every array
    has the output's shape) the number inputs it reads are Python ints or floats or 0-d
    arrays of that dtype. Binds its constants in ``namespace`` (``K<k>``, ``H<k>``).
    None when there is nothing typed to write."""
    same = [i for i, n in enumerate(needs) if n in ("g", "out") or n in tensor_names]
    numbers: list[int] = []
    if plan.rule.kind == ELEMENTWISE and sum(plan.tensors) == 1:
        numbers = [i for i, n in enumerate(needs) if n in plan.rule.inputs and i not in same]
    found = inline_typed(fn, args, same, numbers)
    if found is None:
        return None
    typed, literals, terms = found
    constants = {}
    try:
        for dt in _DTYPES:
            values = []
            for v in literals:
                c = np.array(v, dtype=dt)
                c.flags.writeable = False
                values.append(c)
            constants[dt] = tuple(values)
    except (OverflowError, ValueError, TypeError):
        return None
    checks = [f"{args[i]}.dtype is dt" for i in same if args[i] != "g"]
    # (the runtime's operators pass a Python float as a 0-d array of the tensor's dtype)
    checks += [f"(type({a}) is float or type({a}) is int or type({a}) is ndarray and "
               f"{a}.ndim == 0 and {a}.dtype is dt)" for a in (args[i] for i in numbers)]
    namespace[f"K{k}"] = constants
    condition = f"k is not None{''.join(f' and {c}' for c in checks)}"
    lines = [f"    k = K{k}.get(dt)"]
    if terms:
        names = [args[i] for i in numbers]
        if not all(n.isidentifier() for n in names):
            return None
        hoisted = namespace[f"H{k}"] = Hoisted(terms, names)
        call = f"H{k}(dt, {', '.join(names)})"
        lines += ["    h = None", f"    if {condition}:"]
        if hoisted.cached:  # a number term of a constant: looked up by the number's value
            n = names[0]
            namespace[f"HC{k}"] = hoisted.caches
            namespace["F64"] = _F64
            lines.append(f"        h = (HC{k}[dt is F64].get({n}.item()) or {call}) "
                         f"if type({n}) is ndarray else {call}")
        else:
            lines.append(f"        h = {call}")
        condition = "h is not None"
    return lines + [f"    if {condition}:", f"        {target} = {typed}", "    else:",
                    f"        {target} = {expr}"]

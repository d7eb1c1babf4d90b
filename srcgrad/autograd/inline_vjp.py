"""A rule's VJP as an expression to write into generated backward code (used by
:mod:`.specialize`, the runtime's code generator).

Most VJPs of the rule table are one arithmetic expression (``g * y``, ``g * np.cos(x)``,
``-g``, ``g``, ``np.where(out > 0, g, 0.0)``). The written-out backward of a plan would
otherwise call the rule's function once per node; on small tensors that call costs a fair
share of the NumPy work. So :func:`inline` runs the VJP once on symbolic placeholders
(:class:`_Sym`, whose operators, NumPy ufuncs and ``np.where`` build source text) and
returns the expression it computed. The rule is interpreted, not parsed: the text is what
the function did.

Only what a placeholder can express faithfully is inlined. Anything else -- control flow
on a value (``bool``), an attribute read (``x.shape``), a method, another NumPy function,
an array or other object met along the way, an in-place operator -- raises, and the
caller keeps the call. Before running the function at all, the guard in
:func:`_plain_arithmetic` admits only functions whose global names are the NumPy module
and whose attribute reads are NumPy ufuncs or ``where`` (no closures, no nested
functions), so a helper that looks at its argument's type and returns it unchanged can
never be mistaken for the identity.
"""

from __future__ import annotations

import dis
import math
import types
from collections.abc import Sequence
from typing import Any

import numpy as np


class _Unsupported(Exception):
    """The VJP did something a placeholder cannot stand for."""


def _text(value: Any) -> str:
    """Source text of an operand: a placeholder's expression or a plain number."""
    if type(value) is _Sym:
        return value.src
    if type(value) in (int, float, bool) and (type(value) is not float or math.isfinite(value)):
        return repr(value)
    raise _Unsupported(type(value).__name__)


def _operators(op: str) -> tuple[Any, Any]:
    """The operator ``op`` and its reflected form, both through ``_combine``."""

    def forward(self: Placeholder, other: Any) -> Any:
        return self._combine(op, other, False)

    def reflected(self: Placeholder, other: Any) -> Any:
        return self._combine(op, other, True)

    return forward, reflected


def _refuse(self: Placeholder, *args: Any) -> Any:
    raise _Unsupported("in-place operator or truth value")


class Placeholder:
    """A value of the VJP's arguments or of an expression computed from them: the
    operators a VJP may apply, each built by the subclass's ``_combine(op, other,
    reflected)``; truth values, in-place operators and attributes refused."""

    __slots__ = ("src",)

    def __init__(self, src: str) -> None:
        self.src = src

    def _combine(self, op: str, other: Any, reflected: bool) -> Any:
        raise _Unsupported(op)  # (each subclass writes its own)

    __add__, __radd__ = _operators("+")
    __sub__, __rsub__ = _operators("-")
    __mul__, __rmul__ = _operators("*")
    __truediv__, __rtruediv__ = _operators("/")
    __pow__, __rpow__ = _operators("**")
    __gt__, __lt__ = _operators(">")[0], _operators("<")[0]
    __ge__, __le__ = _operators(">=")[0], _operators("<=")[0]
    __bool__ = __iadd__ = __isub__ = __imul__ = __itruediv__ = __ipow__ = _refuse
    # elementwise comparisons, as NumPy's == and != on arrays (a placeholder is never a
    # dict key or set member: no hashing)
    __eq__, __ne__ = _operators("==")[0], _operators("!=")[0]  # type: ignore[assignment]
    __hash__ = None  # type: ignore[assignment]

    def __getattr__(self, name: str) -> Any:
        raise _Unsupported(f"attribute {name}")


class _Sym(Placeholder):
    """A placeholder whose operations build plain source text."""

    __slots__ = ()

    def _combine(self, op: str, other: Any, reflected: bool) -> _Sym:
        a, b = (_text(other), self.src) if reflected else (self.src, _text(other))
        return _Sym(f"({a} {op} {b})")

    def __neg__(self) -> _Sym:
        return _Sym(f"(-{self.src})")

    def __array_ufunc__(self, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> _Sym:
        if method != "__call__" or kwargs or getattr(np, ufunc.__name__, None) is not ufunc:
            raise _Unsupported(f"{ufunc.__name__}.{method}")
        return _Sym(f"np.{ufunc.__name__}({', '.join(_text(v) for v in inputs)})")

    def __array_function__(self, func: Any, types: Any, args: Any, kwargs: Any) -> Any:
        # np.where(c, a, b): a pure elementwise selection, written as the call itself
        if func is np.where and len(args) == 3 and not kwargs:
            return _Sym(f"np.where({', '.join(_text(v) for v in args)})")
        raise _Unsupported(getattr(func, "__name__", "a NumPy function"))


# NumPy functions (not ufuncs) a placeholder stands for: elementwise, no keyword, no
# dependence on a value's type beyond NumPy's own (see _Sym.__array_function__)
_FUNCTIONS = frozenset({"where"})
_IDENTITY_TESTS = frozenset({"IS_OP", "CONTAINS_OP"})


def _plain_arithmetic(fn: Any) -> bool:
    """Can running ``fn`` on placeholders reach only operators and NumPy ufuncs?"""
    if type(fn) is not types.FunctionType or fn.__closure__ or fn.__kwdefaults__:
        return False
    code = fn.__code__
    if any(isinstance(c, types.CodeType) for c in code.co_consts):
        return False
    # ``v is None`` cannot be overloaded: on a placeholder it is decided at trace time, so a
    # VJP testing a saved value's identity (an axis that may be None) keeps its call
    if any(i.opname in _IDENTITY_TESTS or i.opname.endswith("_NONE")  # (jumps on `is None`)
           for i in dis.get_instructions(code)):
        return False
    builtins = fn.__builtins__ if isinstance(fn.__builtins__, dict) else vars(fn.__builtins__)
    for name in code.co_names:  # global and attribute names alike
        if name in fn.__globals__ or name in builtins:
            if fn.__globals__.get(name) is not np:
                return False
        elif not isinstance(getattr(np, name, None), np.ufunc) and name not in _FUNCTIONS:
            return False
    return True


def inline(fn: Any, args: Sequence[str]) -> str | None:
    """``fn(*args)`` as one Python expression over the argument expressions ``args``
    (primaries such as ``g``, ``x._data``, ``saved['y']``, which the generated code
    evaluates; NumPy as ``np``), or None: keep the call."""
    if not _plain_arithmetic(fn) or fn.__code__.co_argcount != len(args):
        return None
    try:
        result = fn(*(_Sym(a) for a in args))
    except Exception:  # anything a placeholder cannot stand for: the call stays
        return None
    return result.src if type(result) is _Sym else None

"""Tensor math with PyTorch's names: operators and elementwise functions.

Each method picks the rule of the table that computes it and hands it to :mod:`.ops`
(elementwise ops through the fast paths). PyTorch's spellings map onto the rules'
NumPy parameters here. Reductions and products are in :mod:`.reduce_methods`, in-place
variants in :mod:`.inplace`.
"""

from __future__ import annotations

from typing import Any

from ..rules import rule_named
from ..rules.methods import pytorch_rule
from . import ops as _ops
from .inplace import InplaceMethods

_binary, _unary, _record = _ops.binary, _ops.unary, _ops.record


def _ew(name: str) -> dict[Any, Any]:
    return _ops.elementwise_specs(name)


def _unary_spec(method: str) -> _ops.Spec:
    """The elementwise rule whose record spells it ``t.<method>()`` (its ``pytorch`` field)."""
    return _ops.spec_for(pytorch_rule(f"t.{method}"), (True,))


_ADD, _SUB, _MUL, _DIV, _POW = _ew("add"), _ew("subtract"), _ew("multiply"), _ew("divide"), \
    _ew("power")
_REM, _FLOORDIV, _MAXIMUM, _MINIMUM = _ew("remainder"), _ew("floor_divide"), _ew("maximum"), \
    _ew("minimum")
_EQ, _NE, _LT, _LE, _GT, _GE = (_ew(n) for n in ("equal", "not_equal", "less", "less_equal",
                                                  "greater", "greater_equal"))
_AND, _OR, _XOR = _ew("bitwise_and"), _ew("bitwise_or"), _ew("bitwise_xor")
_ATAN2 = _ew("arctan2")

_SUB_OP = _SUB["op"]  # (its code is swapped in place as plans are written in: elementwise)

# filled by ``_unary_method`` as the class body names its methods
_UNARY_SPECS: dict[str, _ops.Spec] = {}


def _table_method(rule: str) -> Any:
    def fn(self: Any) -> Any:
        return _record(rule_named(rule), (self,))

    fn.__name__ = rule
    fn.__doc__ = f"Elementwise ``{rule}`` (rule ``{rule}``, looked up on each call)."
    return fn


def _unary_method(method: str) -> Any:
    spec = _UNARY_SPECS[method] = _unary_spec(method)
    fn = _ops.unary_op(spec)  # the method itself: no wrapper call per operation
    fn.__name__ = fn.__qualname__ = method
    fn.__doc__ = f"Elementwise ``{method}`` (rule ``{spec.rule.name}``)."
    return fn


def _operator(specs: dict[Any, Any], name: str) -> Any:
    """``specs``'s op as the operator method ``name`` itself (``self`` is its first operand)."""
    return _ops.named(specs["op"], name, f"MathMethods.{name}",
                      f"``{name}``: rule ``{specs['rule'].name}``.")


class MathMethods(InplaceMethods):
    """Operators and math methods of the Tensor."""

    # --- operators ---------------------------------------------------------------------
    __add__ = _operator(_ADD, "__add__")
    # PyTorch: 3 + x is x.add(3), the scalar edge second
    __radd__ = _operator(_ADD, "__radd__")
    __sub__ = _operator(_SUB, "__sub__")

    def __rsub__(self, other: Any) -> Any:
        return _SUB_OP(other, self)  # (the op itself: ops.binary's lookup is one call more)

    __mul__ = _operator(_MUL, "__mul__")
    __rmul__ = _operator(_MUL, "__rmul__")
    __truediv__ = _operator(_DIV, "__truediv__")

    def __rtruediv__(self, other: Any) -> Any:
        # PyTorch computes ``3 / x`` as ``x.reciprocal() * 3``
        return _binary(_MUL, _unary(_UNARY_SPECS["reciprocal"], self), other)

    __floordiv__ = _operator(_FLOORDIV, "__floordiv__")

    def __rfloordiv__(self, other: Any) -> Any:
        return _binary(_FLOORDIV, other, self)

    __mod__ = _operator(_REM, "__mod__")

    def __rmod__(self, other: Any) -> Any:
        return _binary(_REM, other, self)

    __pow__ = _operator(_POW, "__pow__")

    def __rpow__(self, other: Any) -> Any:
        return _binary(_POW, other, self)

    def __neg__(self) -> Any:
        return _unary(_UNARY_SPECS["neg"], self)

    def __pos__(self) -> Any:
        return self

    def __abs__(self) -> Any:
        return _unary(_UNARY_SPECS["abs"], self)

    def __invert__(self) -> Any:
        return _record(rule_named("invert"), (self,))

    def __eq__(self, other: Any) -> Any:  # type: ignore[override]
        if other is None:
            return False  # as PyTorch: ``t == None`` is a plain False
        return _binary(_EQ, self, other)

    def __ne__(self, other: Any) -> Any:  # type: ignore[override]
        if other is None:
            return True
        return _binary(_NE, self, other)

    __lt__ = _operator(_LT, "__lt__")
    __le__ = _operator(_LE, "__le__")
    __gt__ = _operator(_GT, "__gt__")
    __ge__ = _operator(_GE, "__ge__")

    def __and__(self, other: Any) -> Any:
        return _binary(_AND, self, other)

    def __rand__(self, other: Any) -> Any:
        return _binary(_AND, other, self)

    def __or__(self, other: Any) -> Any:
        return _binary(_OR, self, other)

    def __ror__(self, other: Any) -> Any:
        return _binary(_OR, other, self)

    def __xor__(self, other: Any) -> Any:
        return _binary(_XOR, self, other)

    # --- named elementwise -------------------------------------------------------------
    sin = _unary_method("sin")
    cos = _unary_method("cos")
    tan = _unary_method("tan")
    exp = _unary_method("exp")
    log = _unary_method("log")
    sqrt = _unary_method("sqrt")
    abs = _unary_method("abs")
    tanh = _unary_method("tanh")
    sigmoid = _unary_method("sigmoid")
    relu = _unary_method("relu")
    square = _unary_method("square")
    neg = _unary_method("neg")
    negative = neg
    exp2 = _unary_method("exp2")
    expm1 = _unary_method("expm1")
    log2 = _unary_method("log2")
    log10 = _unary_method("log10")
    log1p = _unary_method("log1p")
    asin = arcsin = _unary_method("asin")
    acos = arccos = _unary_method("acos")
    atan = arctan = _unary_method("atan")
    sinh = _unary_method("sinh")
    cosh = _unary_method("cosh")
    asinh = _unary_method("asinh")
    acosh = _unary_method("acosh")
    atanh = _unary_method("atanh")
    reciprocal = _unary_method("reciprocal")
    # Zero-derivative ones go through the general path, which reads the table each call
    # (a straight-through ``sg.defvjp(np.round, ...)`` then serves ``t.round()`` too).
    sign = _table_method("sign")
    floor = _table_method("floor")
    ceil = _table_method("ceil")
    trunc = _table_method("trunc")
    isnan = _table_method("isnan")
    isinf = _table_method("isinf")
    isfinite = _table_method("isfinite")
    logical_not = _table_method("logical_not")

    def round(self, decimals: int | None = None) -> Any:
        """Half to even (as PyTorch); ``decimals`` given: ``RoundBackward1``."""
        if decimals is None:
            return _record(rule_named("round"), (self,), {"decimals": 0})
        return _record(rule_named("round"), (self,), {"decimals": decimals}, form="decimals")

    def add(self, other: Any, *, alpha: Any = 1) -> Any:
        return _binary(_ADD, self, other if alpha == 1 else other * alpha)

    def sub(self, other: Any, *, alpha: Any = 1) -> Any:
        return _binary(_SUB, self, other if alpha == 1 else other * alpha)

    subtract = sub

    def mul(self, other: Any) -> Any:
        return _binary(_MUL, self, other)

    multiply = mul

    def div(self, other: Any) -> Any:
        return _binary(_DIV, self, other)

    divide = true_divide = div

    def pow(self, exponent: Any) -> Any:
        return _binary(_POW, self, exponent)

    def atan2(self, other: Any) -> Any:
        return _binary(_ATAN2, self, other)

    def maximum(self, other: Any) -> Any:
        return _binary(_MAXIMUM, self, other)

    def minimum(self, other: Any) -> Any:
        return _binary(_MINIMUM, self, other)

    def eq(self, other: Any) -> Any:
        return _binary(_EQ, self, other)

    def ne(self, other: Any) -> Any:
        return _binary(_NE, self, other)

    def lt(self, other: Any) -> Any:
        return _binary(_LT, self, other)

    def le(self, other: Any) -> Any:
        return _binary(_LE, self, other)

    def gt(self, other: Any) -> Any:
        return _binary(_GT, self, other)

    def ge(self, other: Any) -> Any:
        return _binary(_GE, self, other)

    def clamp(self, min: Any = None, max: Any = None) -> Any:  # noqa: A002 (PyTorch's names)
        if min is None and max is None:
            raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
        return _record(rule_named("clip"), (self, min, max))

    clip = clamp

    def where(self, condition: Any, other: Any) -> Any:
        return _record(rule_named("where"), (condition, self, other))

    def softmax(self, dim: int) -> Any:
        return _record(rule_named("softmax"), (self,), {"axis": dim})

    def log_softmax(self, dim: int) -> Any:
        return _record(rule_named("log_softmax"), (self,), {"axis": dim})

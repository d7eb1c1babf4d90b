"""A minimal array-like that records every NumPy call made on it: the dispatch protocol.

This is, in miniature, what the runtime's Tensor and the compiler's symbolic values are:
a type NumPy hands calls to (``__array_ufunc__``, ``__array_function__``, the helper
primitives through :func:`srcgrad.rules.dispatching`), with operators mapping to ufuncs.
It wraps an ndarray, computes every call on the unwrapped values, wraps array results and
logs ``(function, args, kwargs, result)`` on a shared :class:`Tape`.

It deliberately has no array methods or attributes (no ``.shape``, ``.T``, ``.sum``), and
refuses ``bool()`` and iteration: a rule body that uses one breaks here, as it would on
a Tensor (where methods mean PyTorch's thing) or a symbolic value (unknown at trace time).

:func:`backprop` runs reverse mode over a tape with the table's own rules, which is how
the tests differentiate a VJP body a second time.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from srcgrad.rules import NONDIFF, rule_for
from srcgrad.rules.helpers import getitem, unbroadcast


@dataclass
class Call:
    func: Callable[..., Any]
    args: tuple[Any, ...]
    kwargs: dict[str, Any]
    result: Any


@dataclass
class Tape:
    calls: list[Call] = field(default_factory=list)

    def wrap(self, value: Any) -> Recorded:
        return Recorded(value, self)

    @property
    def funcs(self) -> list[Callable[..., Any]]:
        return [c.func for c in self.calls]


def unwrap(obj: Any) -> Any:
    """``obj`` with every :class:`Recorded` inside (lists, tuples, slices) replaced."""
    if isinstance(obj, Recorded):
        return obj.value
    if isinstance(obj, list):
        return [unwrap(o) for o in obj]
    if isinstance(obj, tuple):
        return tuple(unwrap(o) for o in obj)
    if isinstance(obj, dict):
        return {k: unwrap(v) for k, v in obj.items()}
    return obj


def _find_tape(obj: Any) -> Tape | None:
    if isinstance(obj, Recorded):
        return obj.tape
    if isinstance(obj, (list, tuple)):
        for o in obj:
            t = _find_tape(o)
            if t is not None:
                return t
    if isinstance(obj, dict):
        return _find_tape(list(obj.values()))
    return None


def _record(func: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    tape = _find_tape((args, kwargs))
    assert tape is not None
    value = func(*unwrap(args), **unwrap(kwargs))
    # a Python float is a value too (math.dist, math.hypot return one), never a bool or int
    result = (tape.wrap(value) if isinstance(value, (np.ndarray, np.generic, float))
              else value)
    tape.calls.append(Call(func, args, kwargs, result))
    return result


class Recorded:
    """An ndarray stand-in that logs every NumPy call it takes part in."""

    __srcgrad_primitives__ = True  # helper primitives are recorded too (rules/dispatch.py)
    __slots__ = ("value", "tape")

    def __init__(self, value: Any, tape: Tape) -> None:
        self.value = value
        self.tape = tape

    def __repr__(self) -> str:
        return f"Recorded({self.value!r})"

    def __array_ufunc__(self, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
        if method != "__call__":
            return NotImplemented
        return _record(ufunc, inputs, kwargs)

    def __array_function__(self, func: Any, types: Any, args: Any, kwargs: Any) -> Any:
        return _record(func, args, kwargs)

    def __bool__(self) -> bool:
        raise TypeError("a rule body branched on an array value (bool() of Recorded)")

    def __iter__(self) -> Any:
        raise TypeError("a rule body iterated over an array (iter() of Recorded)")

    def __len__(self) -> int:  # the builtin ``len`` rule; Tensors and Syms answer it too
        return len(self.value)

    def __getitem__(self, index: Any) -> Any:
        return getitem(self, index)

    def __add__(self, o: Any) -> Any: return np.add(self, o)
    def __radd__(self, o: Any) -> Any: return np.add(o, self)
    def __sub__(self, o: Any) -> Any: return np.subtract(self, o)
    def __rsub__(self, o: Any) -> Any: return np.subtract(o, self)
    def __mul__(self, o: Any) -> Any: return np.multiply(self, o)
    def __rmul__(self, o: Any) -> Any: return np.multiply(o, self)
    def __truediv__(self, o: Any) -> Any: return np.divide(self, o)
    def __rtruediv__(self, o: Any) -> Any: return np.divide(o, self)
    def __floordiv__(self, o: Any) -> Any: return np.floor_divide(self, o)
    def __mod__(self, o: Any) -> Any: return np.remainder(self, o)
    def __pow__(self, o: Any) -> Any: return np.power(self, o)
    def __rpow__(self, o: Any) -> Any: return np.power(o, self)
    def __matmul__(self, o: Any) -> Any: return np.matmul(self, o)
    def __rmatmul__(self, o: Any) -> Any: return np.matmul(o, self)
    def __neg__(self) -> Any: return np.negative(self)
    def __pos__(self) -> Any: return np.positive(self)
    def __abs__(self) -> Any: return np.absolute(self)
    def __lt__(self, o: Any) -> Any: return np.less(self, o)
    def __le__(self, o: Any) -> Any: return np.less_equal(self, o)
    def __gt__(self, o: Any) -> Any: return np.greater(self, o)
    def __ge__(self, o: Any) -> Any: return np.greater_equal(self, o)
    def __eq__(self, o: Any) -> Any: return np.equal(self, o)  # type: ignore[override]
    def __ne__(self, o: Any) -> Any: return np.not_equal(self, o)  # type: ignore[override]
    def __and__(self, o: Any) -> Any: return np.bitwise_and(self, o)
    def __rand__(self, o: Any) -> Any: return np.bitwise_and(o, self)
    def __or__(self, o: Any) -> Any: return np.bitwise_or(self, o)
    def __ror__(self, o: Any) -> Any: return np.bitwise_or(o, self)
    def __xor__(self, o: Any) -> Any: return np.bitwise_xor(self, o)
    def __invert__(self) -> Any: return np.invert(self)
    __hash__ = object.__hash__


# --- reverse mode over a tape, with the table's rules --------------------------------------
def backprop(tape: Tape, output: Recorded, seed: Any) -> dict[int, Any]:
    """Cotangents (by ``id`` of a :class:`Recorded`) of every value ``output`` depends on."""
    cts: dict[int, Any] = {id(output): seed}
    for call in reversed(tape.calls):
        ct_out = cts.get(id(call.result))
        if ct_out is None:
            continue
        rule = rule_for(call.func)
        assert rule is not None, f"no rule for {call.func}"
        if rule.kind == NONDIFF:
            continue
        wrapped = rule.bind(call.args, call.kwargs)
        env = rule.bind(unwrap(call.args), unwrap(call.kwargs))
        env["out"] = unwrap(call.result)
        env["g"] = ct_out
        env.update(rule.metadata(env))
        for name in rule.vjp:
            arg = wrapped[name]
            items = list(enumerate(arg)) if name == rule.variadic else [(None, arg)]
            for i, item in items:
                if not isinstance(item, Recorded):
                    continue
                ct = rule.call_vjp(name, {**env, "i": i})
                if rule.broadcasts:
                    ct = unbroadcast(ct, np.shape(item.value))
                key = id(item)
                cts[key] = ct if key not in cts else cts[key] + ct
    return cts

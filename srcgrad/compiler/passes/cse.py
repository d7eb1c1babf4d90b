"""Common subexpression elimination: one op per distinct (primitive, inputs, attributes).

    %0 = cos(x=%x)                       %0 = cos(x=%x)
    %1 = cos(x=%x)           ->          %2 = multiply(x=%0, y=%0)
    %2 = multiply(x=%0, y=%1)
"""

from __future__ import annotations

from typing import Any

from ..ir.core import Block, Function, Value
from .rewrite import is_pure, replace_uses


def _key(a: Any) -> Any:
    if isinstance(a, tuple):
        return tuple(_key(x) for x in a)
    if isinstance(a, Value):
        return a.id
    return a


def _attr_key(attrs: dict[str, Any]) -> Any:
    parts = []
    for k, v in sorted(attrs.items()):
        if k == "rule":
            parts.append((k, id(v)))
            continue
        try:
            hash(v)
        except TypeError:
            return None
        parts.append((k, type(v), v))  # the type itself: np.bool_(False) is not False
    return tuple(parts)


def cse(fn: Function) -> None:
    mapping: dict[Value, Value] = {}
    _block(fn.body, {}, mapping)
    replace_uses(fn, mapping)


def _block(block: Block, seen: dict[Any, Value], mapping: dict[Value, Value]) -> None:
    """CSE in ``block``; its regions see the values found so far (never the reverse)."""
    for op in block.ops:
        op.args = {k: _remap(a, mapping) for k, a in op.args.items()}
        for region in op.regions:
            _block(region, dict(seen), mapping)
        if not is_pure(op) or len(op.outputs) != 1:
            continue
        attrs = _attr_key(op.attrs)
        if attrs is None:
            continue
        key = (op.prim, tuple((k, _key(a)) for k, a in op.args.items()), attrs)
        try:
            hash(key)
        except TypeError:
            continue
        if key in seen:
            mapping[op.out] = seen[key]
        else:
            seen[key] = op.out


def _remap(a: Any, mapping: dict[Value, Value]) -> Any:
    if isinstance(a, tuple):
        return tuple(_remap(x, mapping) for x in a)
    return mapping.get(a, a) if isinstance(a, Value) else a

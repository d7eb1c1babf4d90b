"""Common subexpression elimination: one op per distinct (primitive, inputs, attributes).

    %0 = cos(x=%x)                       %0 = cos(x=%x)
    %1 = cos(x=%x)           ->          %2 = multiply(x=%0, y=%0)
    %2 = multiply(x=%0, y=%1)
"""

from __future__ import annotations

from typing import Any

from ..ir.core import (
    PYTHON_SPELLING,
    USER_ARITHMETIC,
    USER_CHECK,
    Block,
    Function,
    Value,
    exact_key,
)
from ..spelling import has_python_spelling
from .rewrite import is_pure, replace_uses


def _key(a: Any) -> Any:
    if isinstance(a, tuple):
        return tuple(_key(x) for x in a)
    if isinstance(a, Value):
        return a.id
    return a


def _attr_key(attrs: dict[str, Any]) -> Any:
    if len(attrs) == 1 and "rule" in attrs:  # (most ops: a rule and nothing else)
        return (("rule", id(attrs["rule"])),)
    parts = []
    for k, v in sorted(attrs.items()):
        if k in (PYTHON_SPELLING, USER_ARITHMETIC, USER_CHECK):
            continue  # _block decides which of two spellings may stand for the other
        if k == "rule":
            parts.append((k, id(v)))
            continue
        try:
            hash(v)
        except TypeError:
            return None
        parts.append((k, exact_key(v)))  # (np.bool_(False) is not False, -0.0 not 0.0)
    return tuple(parts)


def cse(fn: Function) -> None:
    mapping: dict[Value, Value] = {}
    # an array a setitem writes into (``np.zeros(n)`` filled per element) stays its own:
    # merged with an equal one, every write but the last would copy it
    written = {op.args["x"].id for op in fn.body.walk()
               if op.prim == "setitem" and isinstance(op.args.get("x"), Value)}
    _block(fn.body, {}, mapping, written)
    replace_uses(fn, mapping)


def _block(block: Block, seen: dict[Any, Value], mapping: dict[Value, Value],
           written: set[int]) -> None:
    """CSE in ``block``; its regions see the values found so far (never the reverse)."""
    for op in block.ops:
        op.args = {k: _remap(a, mapping) for k, a in op.args.items()}
        for region in op.regions:
            _block(region, dict(seen), mapping, written)
        if not is_pure(op) or len(op.outputs) != 1 or op.out.id in written:
            continue
        attrs = _attr_key(op.attrs)
        if attrs is None:
            continue
        key = (op.prim, tuple((k, _key(a)) for k, a in op.args.items()), attrs)
        try:
            hash(key)
        except TypeError:
            continue
        if key not in seen:
            seen[key] = op.out
        elif has_python_spelling(seen[key].op.attrs) or not has_python_spelling(op.attrs):
            # an earlier Python-spelled op that did not raise computed NumPy's value; the
            # reverse would lose the user's exception (``1.0 / 0.0``) for an inf
            mapping[op.out] = seen[key]
            for mark in (USER_ARITHMETIC, USER_CHECK):  # the one kept raises for both
                if op.attrs.pop(mark, False):
                    seen[key].op.attrs[mark] = True


def _remap(a: Any, mapping: dict[Value, Value]) -> Any:
    if isinstance(a, tuple):
        return tuple(_remap(x, mapping) for x in a)
    return mapping.get(a, a) if isinstance(a, Value) else a

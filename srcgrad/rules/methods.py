"""Array methods and attributes, as calls of the table's primitives (read from the records).

Rule bodies never call methods (on a Tensor ``x.sum(1)`` means PyTorch's thing), but user
code does; the compiler lowers ``x.reshape(2, 3)`` to the ``reshape`` rule with
``reshape(x, (2, 3))``. Which methods and attributes spell a rule is that rule's
``methods`` / ``attributes`` field; this module only indexes them by spelling.
:func:`method` / :func:`attribute` return ``(rule, convert)``, where
``convert(x, *args, **kwargs)`` returns the ``(args, kwargs)`` of the NumPy function's
form (``x`` included), ready for ``rule.bind``. Most methods take their function's
arguments after the array (``x.sum(0, keepdims=True)`` is ``np.sum(x, 0, keepdims=True)``);
a rule with ``method_spread`` (``reshape``, ``transpose``) also accepts its tuple spread out.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .registry import RULES, Rule, generation

Converted = tuple[tuple[Any, ...], dict[str, Any]]
Convert = Callable[..., Converted]


def array_first(x: Any, *args: Any, **kwargs: Any) -> Converted:
    """``x.m(a, b, k=v)`` -> ``m(x, a, b, k=v)``."""
    return (x, *args), kwargs


def spread_tuple(x: Any, *items: Any, **kwargs: Any) -> Converted:
    """``x.m(2, 3)`` and ``x.m((2, 3))`` -> ``m(x, (2, 3))``; ``x.m()`` -> ``m(x)``."""
    if not items:
        return (x,), kwargs
    return (x, items[0] if len(items) == 1 else tuple(items)), kwargs


Index = dict[str, tuple[Rule, Convert]]
_index: dict[str, Any] = {"generation": None, "methods": {}, "attributes": {}, "pytorch": {}}


def _build() -> None:
    methods: Index = {}
    attributes: Index = {}
    pytorch: dict[str, Rule] = {}
    for rule in RULES.values():
        for spelling in rule.pytorch:
            pytorch.setdefault(spelling, rule)
        convert = spread_tuple if rule.method_spread else array_first
        for m in rule.methods:
            if m in methods:
                raise ValueError(f"method .{m}() is spelled by rules {methods[m][0].name!r} "
                                 f"and {rule.name!r}")
            methods[m] = (rule, convert)
        for a in rule.attributes:
            attributes[a] = (rule, array_first)
    _index.update(generation=generation(), methods=methods, attributes=attributes,
                  pytorch=pytorch)


def methods() -> Index:
    """``{method spelling: (rule, convert)}`` over the table as it is now."""
    if _index["generation"] != generation():
        _build()
    return _index["methods"]


def attributes() -> Index:
    """``{attribute spelling: (rule, convert)}`` over the table as it is now."""
    if _index["generation"] != generation():
        _build()
    return _index["attributes"]


def pytorch_rule(spelling: str) -> Rule:
    """The rule whose record lists the PyTorch spelling (``"t.abs"``, ``"sg.cat"``)."""
    if _index["generation"] != generation():
        _build()
    rule = _index["pytorch"].get(spelling)
    if rule is None:
        raise KeyError(f"no rule lists the PyTorch spelling {spelling!r} (its pytorch= field)")
    return rule

"""Forward mode from the rule table: one rule's output tangent from its inputs' tangents.

Both forward-mode interpreters (the runtime's ``autograd.functional`` and the compiler's
forward transform) call :func:`forward_tangent`, so the derivation by kind lives once
(DESIGN.md principle 4):

- ``ELEMENTWISE``: each active input's VJP formula with its tangent in place of ``g``
  (``rule.call_jvp``), summed, broadcast to the output's shape where inputs broadcast;
- ``LINEAR``: the op itself applied to the tangents, zeros for inactive inputs;
- ``BILINEAR`` (also multilinear, e.g. ``einsum``): the sum over active inputs of the op
  with that one input replaced by its tangent, or of the rule's explicit ``jvp`` for that
  input when it has one (the same product computed another way: ``einsum`` by ``contract``);
- an explicit ``jvp`` (any kind, user rules): its contributions summed, as elementwise;
- ``NONDIFF``: no tangent.

Like rule bodies, this only calls ``np.*``, operators and helper primitives, so it runs
on ndarrays, Tensors and the compiler's symbolic values alike.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from .helpers import rebroadcast
from .registry import BILINEAR, LINEAR, NONDIFF, NoDerivativeError, Rule


def forward_tangent(rule: Rule, env: Mapping[str, Any], tangents: Mapping[str, Any], *,
                    rows: bool = False) -> Any:
    """The output tangent of ``rule`` at the primal point ``env``.

    ``env`` holds the inputs, the params and ``out`` (the primal result); ``x_shape``-style
    metadata is computed when missing. ``tangents`` maps an input name to its tangent, or
    ``None``/absent for an input without one; a variadic input maps to a list with ``None``
    for elements without one. Returns ``None`` when no tangent reaches the output (a
    symbolic zero, for the caller to materialise if it must). With ``rows`` the tangents
    carry a leading axis of several directions (batched forward mode) and the caller
    broadcasts the sum to the output's shape behind that axis.
    """
    active = _active(rule, tangents)
    if not active or rule.kind == NONDIFF:
        return None
    env = {**rule.metadata(env), **env}
    if rule.kind == LINEAR:
        return rule.apply({**env, **_linear_inputs(rule, env, tangents)})
    if rule.kind == BILINEAR:
        return _sum(rule.call_jvp(name, {**env, "t": t, "i": i}) if name in rule.jvp
                    else rule.apply({**env, **_swap(rule, env, name, i, t)})
                    for name, i, t in active)
    for name, _, _ in active:
        if not rule.has_forward(name):
            raise NoDerivativeError(f"{rule.name}() has no forward-mode rule for its input "
                                    f"{name!r}; register one with sg.defjvp")
    total = _sum(rule.call_jvp(name, {**env, "t": t, "i": i}) for name, i, t in active)
    if rule.broadcasts and not rows:
        # one input's contribution may have only that input's (smaller) shape
        total = rebroadcast(total, np.shape(env["out"]))
    return total


def _active(rule: Rule, tangents: Mapping[str, Any]) -> list[tuple[str, Any, Any]]:
    """``(input name, element index or None, tangent)`` for every tangent given."""
    found = []
    for name in rule.inputs:
        t = tangents.get(name)
        if t is None:
            continue
        if name == rule.variadic:
            found.extend((name, i, ti) for i, ti in enumerate(t) if ti is not None)
        else:
            found.append((name, None, t))
    return found


def _linear_inputs(rule: Rule, env: Mapping[str, Any],
                   tangents: Mapping[str, Any]) -> dict[str, Any]:
    """Each differentiable input's tangent, zeros where it has none."""
    replaced: dict[str, Any] = {}
    for name in rule.inputs:
        if name not in rule.vjp:  # e.g. an index: not differentiable, keeps its value
            continue
        t = tangents.get(name)
        if name == rule.variadic:
            ts = t if t is not None else [None] * len(env[name])
            replaced[name] = [np.zeros_like(x) if ti is None else ti
                              for x, ti in zip(env[name], ts)]
        else:
            replaced[name] = np.zeros_like(env[name]) if t is None else t
    return replaced


def _swap(rule: Rule, env: Mapping[str, Any], name: str, i: Any, t: Any) -> dict[str, Any]:
    """``env``'s input ``name`` (element ``i`` of a variadic one) replaced by ``t``."""
    if i is None:
        return {name: t}
    items = list(env[name])
    items[i] = t
    return {name: items}


def _sum(terms: Any) -> Any:
    total = None
    for term in terms:
        total = term if total is None else total + term
    return total

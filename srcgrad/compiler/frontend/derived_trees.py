"""Structured arguments of a derived function called inside differentiated code.

Where it sits: :mod:`.derived` inlines the IR a derived function carries. When the caller
passes a container (a dict of parameters, a dataclass), that IR was compiled with the
container flattened at its boundary (:mod:`..boundary`): one IR parameter per leaf, the
gradients returned as one flat tuple. This module does at compile time what the derived
function's generated guard does at run time: it describes the caller's container (its
leaves are the caller's values, run-time or not), reads the leaves in the IR's parameter
order, and rebuilds the inlined results into the containers the user gets, so the outer
transform differentiates through every leaf.
"""

from __future__ import annotations

from typing import Any

from .. import structure as S
from ..ir import types as T
from ..result_trees import rebuild_result
from ..symbolic import Sym


def known_kind(v: Any) -> Any:
    """The kind of a caller's value for choosing the specialised IR: a tree for a
    container (leaves: the Syms' types), else None (the caller decides)."""
    if not S.is_structured(v):
        return None
    return S.describe(v, leaf_kind=_sym_kind)


def _sym_kind(v: Any) -> T.AType | None:
    if isinstance(v, Sym):
        t = v.value.type
        return t if t is not None and t.kind != "static" else T.ANY
    return None


def flat_values(boundary: Any, values: list[Any], n_params: int) -> list[Any]:
    """The caller's values (one per parameter, then the seed or tangent) as the IR's
    parameters: each structured one replaced by its leaves."""
    out = boundary.flat_args(values[:n_params])
    extra = list(values[n_params:])
    if extra and boundary.transform == "vjp" and boundary.result is not None:
        extra = [tuple(S.leaves_of(boundary.result, extra[0]))]
    if extra and boundary.transform == "jvp" and boundary.rebuilds:
        extra = [boundary.flat_tangent(extra[0])]
    return out + extra


def rebuilt(boundary: Any, result: Any) -> Any:
    """The inlined result in the user's containers (what the generated guard returns)."""
    if boundary.transform == "jvp":
        if boundary.result is None:
            return result
        value, tangent = result
        return (rebuild_result(boundary.result, value),
                rebuild_result(boundary.result, tangent, True))
    if not boundary.rebuilds:
        return result
    tree = boundary.gradient_tree()
    if boundary.transform == "value_and_grad":
        value, grads = result
        return value, rebuild_result(tree, grads if boundary.tuple_wrt else (grads,))
    return rebuild_result(tree, result if isinstance(result, tuple) else (result,))

"""``CopySlices``: the backward of a write into part of a tensor.

``t[i] = v``, or an in-place op on a view (``t[0:2].mul_(2)``), changes only a region of
the base tensor. The base's new history is a ``CopySlices`` node wrapping the write's own
node (``fn``): the gradient for the base's old value is the incoming one with the region
replaced by what ``fn`` gives its first input (zero for a plain copy); ``fn``'s other
inputs (``v``) get theirs from the region's slice of the incoming gradient. The region is
kept as flat positions into the base, so any view (slices, transposes, reshapes) works.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..rules.runtime_ops import put_flat, take_flat
from .graph import Node, stamp


class CopySlices(Node):
    """``base[region] = fn(base[region], ...)`` in the backward pass."""

    __slots__ = ("fn", "_region", "_base_shape")

    def __init__(self, base_edge: tuple[Any, int], fn: Node, region: np.ndarray,
                 base_shape: tuple[int, ...]) -> None:
        self.next_functions = (base_edge, *fn.next_functions[1:])
        self._order = stamp()
        self.fn = fn
        self._region = region  # flat positions in the base, in the written view's shape
        self._base_shape = base_shape

    def release(self) -> None:
        self.fn.release()

    def apply(self, grads: list[Any], create_graph: bool) -> list[Any]:
        g = grads[0]
        region = self._region
        if not create_graph:
            result = np.array(g, copy=True, order="C")  # C order: reshape(-1) is a view
            flat = result.reshape(-1)
            fn_grads = self.fn.apply([flat[region]], False)
            flat[region] = 0 if fn_grads[0] is None else fn_grads[0]
            return [result, *fn_grads[1:]]
        # On Tensors, functionally: keep g outside the region, add fn's gradient inside.
        fn_grads = self.fn.apply([take_flat(g, region)], True)
        keep = np.ones(self._base_shape, dtype=g._data.dtype)
        keep.reshape(-1)[region.reshape(-1)] = 0
        new = g * keep
        if fn_grads[0] is not None:
            new = new + put_flat(fn_grads[0], self._base_shape, region)
        return [new, *fn_grads[1:]]

    def saved_values(self) -> dict[str, Any]:
        return {"region": self._region, **self.fn.saved_values()}

"""A node's hooks and anomaly mode, around its ``apply`` (the engine's uncommon steps).

The engine (:mod:`.engine`) runs a node through these when it has hooks (tensor hooks,
``retain_grad``, pre- and post-hooks) or anomaly mode is on: :func:`pre_hooks` before its
``apply``, :func:`run_special` for the ``apply`` itself with the NaN check and forward
trace of anomaly mode and the post-hooks after it.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from .anomaly import ANOMALY
from .graph import Node, accumulate, run_tensor_hooks, tensor_type


def run_special(node: Node, buf: list[Any], create_graph: bool) -> list[Any]:
    """A node with post hooks or an anomaly trace (pre-hooks already ran)."""
    if ANOMALY.enabled or node._trace is not None:
        outs = _apply_with_anomaly(node, buf, create_graph)
    else:
        outs = node.apply(buf, create_graph)
    if node._post_hooks:
        outs = _post_hooks(node, outs, buf)
    return outs


def pre_hooks(node: Node, buf: list[Any], create_graph: bool) -> list[Any]:
    buf = list(buf)
    if node._tensor_hooks:
        for nr, hooks in node._tensor_hooks.items():
            if buf[nr] is not None:
                buf[nr] = run_tensor_hooks(hooks, buf[nr], create_graph)
    if node._retained:
        for nr, ref in node._retained.items():
            t = ref()
            if t is not None and buf[nr] is not None:
                accumulate(t, buf[nr], create_graph)
    if node._pre_hooks:
        tensor = tensor_type()
        wrapped = tuple(None if g is None else (g if isinstance(g, tensor) else tensor._wrap(g))
                        for g in buf)
        for hook in list(node._pre_hooks):
            new = hook(wrapped)
            if new is not None:
                wrapped = tuple(new)
        buf = [None if g is None else (g if create_graph else g._data) for g in wrapped]
    return buf


def _post_hooks(node: Node, outs: list[Any], buf: list[Any]) -> list[Any]:
    tensor = tensor_type()

    def wrap(gs: list[Any]) -> tuple[Any, ...]:
        return tuple(None if g is None else (g if isinstance(g, tensor) else tensor._wrap(g))
                     for g in gs)

    grad_inputs, grad_outputs = wrap(outs), wrap(buf)
    for hook in list(node._post_hooks or ()):
        new = hook(grad_inputs, grad_outputs)
        if new is not None:
            grad_inputs = tuple(new)
    plain = all(not isinstance(g, tensor) for g in outs)
    return [None if g is None else (g._data if plain else g) for g in grad_inputs]


def _apply_with_anomaly(node: Node, buf: list[Any], create_graph: bool) -> list[Any]:
    try:
        outs = node.apply(buf, create_graph)
        if ANOMALY.check_nan:
            for k, g in enumerate(outs):
                if g is None:
                    continue
                data = getattr(g, "_data", g)
                if np.isnan(data).any():
                    raise RuntimeError(f"Function '{node.name()}' returned nan values in its "
                                       f"{k}th output.")
        return outs
    except Exception:
        trace = node._trace or "(the node was made before anomaly detection was enabled)\n"
        warnings.warn(f"Error detected in {node.name()}. Traceback of forward call that "
                      f"caused the error:\n{trace}", UserWarning, stacklevel=3)
        raise

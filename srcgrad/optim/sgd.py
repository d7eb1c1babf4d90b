"""``sg.optim.SGD``: stochastic gradient descent with momentum, PyTorch's update rule.

Per parameter ``p`` with gradient ``g`` (after ``maximize`` negates it)::

    g = g + weight_decay * p
    b = g (first step)  |  b = momentum * b + (1 - dampening) * g
    g = g + momentum * b (nesterov)  |  g = b
    p = p - lr * g

The momentum buffer is ``state[p]["momentum_buffer"]``, a Tensor as in PyTorch.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..tensor import Tensor
from .optimizer import Optimizer


class SGD(Optimizer):
    """``SGD(params, lr=1e-3, momentum=0, dampening=0, weight_decay=0, nesterov=False)``."""

    def __init__(self, params: Iterable[Any], lr: float = 1e-3, momentum: float = 0,
                 dampening: float = 0, weight_decay: float = 0, nesterov: bool = False, *,
                 maximize: bool = False) -> None:
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        defaults = {"lr": lr, "momentum": momentum, "dampening": dampening,
                    "weight_decay": weight_decay, "nesterov": nesterov, "maximize": maximize}
        super().__init__(params, defaults)

    def _update(self, param: Tensor, grad: Tensor, group: dict[str, Any],
                state: dict[str, Any]) -> None:
        if group["maximize"]:
            grad = -grad
        if group["weight_decay"] != 0:
            grad = grad.add(param, alpha=group["weight_decay"])
        momentum = group["momentum"]
        if momentum != 0:
            buf = state.get("momentum_buffer")
            if buf is None:
                buf = state["momentum_buffer"] = grad.clone().detach()
            else:
                buf.mul_(momentum).add_(grad, alpha=1 - group["dampening"])
            grad = grad.add(buf, alpha=momentum) if group["nesterov"] else buf
        param.add_(grad, alpha=-group["lr"])

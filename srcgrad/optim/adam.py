"""``sg.optim.Adam``: adaptive moment estimation, PyTorch's update rule (Kingma & Ba).

Per parameter ``p`` with gradient ``g`` at step ``t`` (after ``maximize`` negates it)::

    g = g + weight_decay * p                      (L2 penalty, as torch.optim.Adam)
    m = m + (1 - beta1) * (g - m)                 (lerp towards g)
    v = beta2 * v + (1 - beta2) * g * g
    v_max = max(v_max, v)                         (amsgrad only; used instead of v)
    p = p - lr / (1 - beta1**t) * m / (sqrt(v) / sqrt(1 - beta2**t) + eps)

State per parameter, named as PyTorch names it: ``step`` (a float32 0-d Tensor),
``exp_avg``, ``exp_avg_sq`` and, with ``amsgrad``, ``max_exp_avg_sq``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

from ..tensor import Tensor, float32, tensor, zeros_like
from .optimizer import Optimizer


class Adam(Optimizer):
    """``Adam(params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, amsgrad=False)``."""

    def __init__(self, params: Iterable[Any], lr: float = 1e-3,
                 betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0, amsgrad: bool = False, *,
                 maximize: bool = False) -> None:
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if eps < 0.0:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= betas[0] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
        if not 0.0 <= betas[1] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = {"lr": lr, "betas": tuple(betas), "eps": eps,
                    "weight_decay": weight_decay, "amsgrad": amsgrad, "maximize": maximize}
        super().__init__(params, defaults)

    def _update(self, param: Tensor, grad: Tensor, group: dict[str, Any],
                state: dict[str, Any]) -> None:
        if not state:  # lazily, as PyTorch: a parameter never stepped has no state
            state["step"] = tensor(0.0, dtype=float32)
            state["exp_avg"] = zeros_like(param)
            state["exp_avg_sq"] = zeros_like(param)
            if group["amsgrad"]:
                state["max_exp_avg_sq"] = zeros_like(param)
        beta1, beta2 = group["betas"]
        if group["maximize"]:
            grad = -grad
        if group["weight_decay"] != 0:
            grad = grad.add(param, alpha=group["weight_decay"])
        state["step"].add_(1)
        step = state["step"].item()
        exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
        exp_avg.add_(grad - exp_avg, alpha=1 - beta1)
        exp_avg_sq.mul_(beta2).add_(grad * grad, alpha=1 - beta2)
        second_moment = exp_avg_sq
        if group["amsgrad"]:
            second_moment = state["max_exp_avg_sq"]
            second_moment.copy_(second_moment.maximum(exp_avg_sq))
        step_size = group["lr"] / (1 - beta1 ** step)
        denom = (second_moment.sqrt() / math.sqrt(1 - beta2 ** step)).add_(group["eps"])
        param.add_(exp_avg / denom, alpha=-step_size)

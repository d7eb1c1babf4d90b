"""The optimizer base: parameter groups, per-parameter state and ``zero_grad`` (runtime layer).

``sg.optim`` sits on the Tensor runtime (:mod:`srcgrad.tensor`, :mod:`srcgrad.autograd`)
and never on the compiler. It follows ``torch.optim.Optimizer``: ``params`` is an iterable
of tensors (or ``(name, tensor)`` pairs) or of parameter-group dicts, each group carries its
own hyper-parameters (missing ones are filled from the optimizer's defaults), ``state``
maps each parameter to its buffers, and a subclass's ``step`` updates the parameters in
place under no-grad so their identity (and every view of them) persists.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable
from typing import Any

from ..autograd import enable_grad, no_grad
from ..tensor import Tensor


class _Required:
    """Marks a hyper-parameter that every parameter group must give."""

    def __repr__(self) -> str:
        return "<required parameter>"


required = _Required()


class Optimizer(ABC):
    """Holds parameter groups and per-parameter state; subclasses define ``step``."""

    def __init__(self, params: Iterable[Any], defaults: dict[str, Any]) -> None:
        self.defaults = defaults
        self.state: dict[Tensor, dict[str, Any]] = {}
        self.param_groups: list[dict[str, Any]] = []
        if isinstance(params, Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of "
                            "Tensors or dicts, but got Tensor (wrap it in a list: [t])")
        groups = list(params)
        if not groups:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(groups[0], dict):
            groups = [{"params": groups}]
        for group in groups:
            self.add_param_group(group)

    def __repr__(self) -> str:
        lines = [f"{type(self).__name__} ("]
        for i, group in enumerate(self.param_groups):
            lines.append(f"Parameter Group {i}")
            lines.extend(f"    {key}: {group[key]}" for key in sorted(group)
                         if key not in ("params", "param_names"))
        lines.append(")")
        return "\n".join(lines)

    def add_param_group(self, param_group: dict[str, Any]) -> None:
        """Add a group of parameters with its own hyper-parameters (PyTorch's checks)."""
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group).__name__}")
        params = param_group["params"]
        if isinstance(params, Tensor):
            params = [params]
        elif isinstance(params, set):
            raise TypeError("optimizer parameters need to be organized in ordered collections, "
                            "but the ordering of tensors in sets will change between runs. "
                            "Please use a list instead.")
        params = list(params)
        names = [p[0] for p in params if isinstance(p, tuple)]
        params = [p[1] if isinstance(p, tuple) else p for p in params]
        if names and len(names) != len(params):
            raise ValueError("all optimizer params should be with/without names. "
                             "Some param names are missing")
        for param in params:
            if not isinstance(param, Tensor):
                raise TypeError("optimizer can only optimize Tensors, but one of the params "
                                f"is {type(param).__name__}")
            if not (param.is_leaf or param.retains_grad):
                raise ValueError("can't optimize a non-leaf Tensor (optimize the leaf it was "
                                 "computed from, or .detach().requires_grad_() a copy)")
        group = dict(param_group, params=params)
        if names:
            group["param_names"] = names
        for name, default in self.defaults.items():
            if default is required and name not in group:
                raise ValueError("parameter group didn't specify a value of required "
                                 f"optimization parameter {name}")
            group.setdefault(name, default)
        seen = {id(p) for g in self.param_groups for p in g["params"]}
        if any(id(p) in seen for p in params):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(group)

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Reset every parameter's ``.grad``: to ``None`` (the default) or to zeros."""
        for group in self.param_groups:
            for param in group["params"]:
                grad = param.grad
                if grad is None:
                    continue
                if set_to_none:
                    param.grad = None
                    continue
                if grad.grad_fn is not None:
                    grad.detach_()
                else:
                    grad.requires_grad_(False)
                grad.zero_()

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """One update of every parameter that has a ``.grad``; returns ``closure()``."""
        loss = None
        if closure is not None:
            with enable_grad():
                loss = closure()
        with no_grad():
            for group in self.param_groups:
                for param in group["params"]:
                    if param.grad is not None:
                        self._update(param, param.grad, group, self.state.setdefault(param, {}))
        return loss

    @abstractmethod
    def _update(self, param: Tensor, grad: Tensor, group: dict[str, Any],
                state: dict[str, Any]) -> None:
        """Update ``param`` in place from ``grad`` (called under no-grad by ``step``)."""

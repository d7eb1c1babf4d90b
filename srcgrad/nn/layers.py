"""The layers of ``sg.nn``: ``Linear``, ``Sequential`` and the activation modules.

Built on :mod:`.module` and :mod:`.functional` (runtime layer). ``Linear`` initialises as
PyTorch does (Kaiming-uniform with ``a = sqrt(5)``, i.e. weights and bias uniform in
``+-1/sqrt(in_features)``), in float32 unless ``dtype`` says, drawing from the generator
``sg.manual_seed`` seeds.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from collections.abc import Iterator
from typing import Any

from ..tensor import dtypes, factories
from ..tensor.tensor import Tensor
from . import functional as F
from .module import Module, Parameter

__all__ = ["GELU", "Dropout", "Identity", "Linear", "ReLU", "Sequential", "Sigmoid", "Tanh"]


def _uniform(shape: tuple[int, ...], bound: float, dtype: Any) -> Parameter:
    draw = factories.generator().uniform(-bound, bound, shape)
    return Parameter(Tensor._wrap(draw.astype(dtypes.to_numpy(dtype))))


class Linear(Module):
    """``y = x @ weight.T + bias`` with ``weight`` of shape ``(out_features, in_features)``."""

    def __init__(self, in_features: int, out_features: int, bias: bool = True,
                 device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        if device is not None and str(device).split(":")[0] != "cpu":
            raise RuntimeError(f"srcgrad runs on the CPU only; device {device!r} is not "
                               "available")
        self.in_features = in_features
        self.out_features = out_features
        dtype = dtypes.float32 if dtype is None else dtype
        bound = 1.0 / math.sqrt(in_features) if in_features > 0 else 0.0
        self.weight = _uniform((out_features, in_features), bound, dtype)
        if bias:
            self.bias = _uniform((out_features,), bound, dtype)
        else:
            self.register_parameter("bias", None)

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self) -> str:
        return (f"in_features={self.in_features}, out_features={self.out_features}, "
                f"bias={self.bias is not None}")


class Sequential(Module):
    """Modules applied in order; children are named ``0``, ``1``, ... (or by an OrderedDict)."""

    def __init__(self, *args: Any) -> None:
        super().__init__()
        if len(args) == 1 and isinstance(args[0], OrderedDict):
            for name, module in args[0].items():
                self.add_module(name, module)
        else:
            for k, module in enumerate(args):
                self.add_module(str(k), module)

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[Module]:
        return iter(self._modules.values())

    def __getitem__(self, index: int | slice) -> Any:
        items = list(self._modules.items())
        if isinstance(index, slice):
            return Sequential(OrderedDict(items[index]))
        if not -len(items) <= index < len(items):
            raise IndexError(f"index {index} is out of range")
        return items[index][1]

    def append(self, module: Module) -> Sequential:
        self.add_module(str(len(self)), module)
        return self

    def forward(self, input: Any) -> Any:  # noqa: A002
        for module in self:
            input = module(input)
        return input


class ReLU(Module):
    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return F.relu(input)


class Tanh(Module):
    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return F.tanh(input)


class Sigmoid(Module):
    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return F.sigmoid(input)


class GELU(Module):
    def __init__(self, approximate: str = "none") -> None:
        super().__init__()
        self.approximate = approximate

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return F.gelu(input, approximate=self.approximate)

    def extra_repr(self) -> str:
        return f"approximate={self.approximate!r}"


class Dropout(Module):
    """``F.dropout`` while training; the identity after ``eval()``."""

    def __init__(self, p: float = 0.5, inplace: bool = False) -> None:
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p = p
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return F.dropout(input, self.p, self.training)

    def extra_repr(self) -> str:
        return f"p={self.p}, inplace={self.inplace}"


class Identity(Module):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__()

    def forward(self, input: Any) -> Any:  # noqa: A002
        return input

"""The runtime's Tensor and the functions that make and combine tensors.

:mod:`.tensor` holds the class (math in its mixins, recording in :mod:`.ops`),
:mod:`.factories` makes tensors, :mod:`.functions` mirrors the methods as functions.
"""

from ..autograd.bindings import bind
from . import dtypes, functions
from .dtypes import DType, float16, float32, float64, int8, int16, int32, int64, uint8
from .dtypes import bool_ as bool  # noqa: A001  (PyTorch's name: sg.bool)
from .factories import (
    arange,
    empty,
    eye,
    from_numpy,
    full,
    full_like,
    linspace,
    manual_seed,
    ones,
    ones_like,
    rand,
    randint,
    randn,
    tensor,
    zeros,
    zeros_like,
)
from .nodes import edge, requires
from .tensor import Tensor

# autograd sits below this layer and never imports it: hand it what backward needs.
bind(tensor=Tensor, edge=edge, requires=requires, stack=functions.stack,
     dtype_name=lambda np_dtype: dtypes.LEGACY_NAMES[dtypes.from_numpy(np_dtype).name])

__all__ = [
    "DType", "Tensor", "arange", "bool", "dtypes", "empty", "eye", "float16", "float32",
    "float64", "from_numpy", "full", "full_like", "functions", "int8", "int16", "int32",
    "int64", "linspace", "manual_seed", "ones", "ones_like", "rand", "randint", "randn",
    "tensor", "uint8", "zeros", "zeros_like",
]

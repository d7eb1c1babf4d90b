"""``sg.nn``: PyTorch's ``torch.nn`` for the runtime: modules, parameters, functional.

Sits on the runtime (``tensor`` + ``autograd``) like ``optim``, never the compiler:
:mod:`.functional` records the table's rules (:mod:`srcgrad.rules.nn` holds PyTorch's fused
losses), :mod:`.module` is ``Module``/``Parameter``, :mod:`.layers` the layers.
"""

from . import functional
from .layers import GELU, Dropout, Identity, Linear, ReLU, Sequential, Sigmoid, Tanh
from .module import Module, Parameter

__all__ = ["GELU", "Dropout", "Identity", "Linear", "Module", "Parameter", "ReLU",
           "Sequential", "Sigmoid", "Tanh", "functional"]

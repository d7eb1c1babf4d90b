"""``sg.nn``: PyTorch's ``torch.nn`` for the runtime: modules, parameters, functional.

Sits on the runtime (``tensor`` + ``autograd``) like ``optim``, never the compiler:
:mod:`.functional` records the table's rules (:mod:`srcgrad.rules.nn` holds PyTorch's fused
losses), :mod:`.module` is ``Module``/``Parameter``, :mod:`.layers` the layers, :mod:`.losses`
the loss modules.
"""

from . import functional
from .layers import GELU, Dropout, Identity, Linear, ReLU, Sequential, Sigmoid, Tanh
from .losses import (
    BCELoss,
    BCEWithLogitsLoss,
    CrossEntropyLoss,
    L1Loss,
    LogSoftmax,
    MSELoss,
    NLLLoss,
    SmoothL1Loss,
    Softmax,
)
from .module import Module, Parameter

__all__ = ["GELU", "BCELoss", "BCEWithLogitsLoss", "CrossEntropyLoss", "Dropout", "Identity",
           "L1Loss", "Linear", "LogSoftmax", "MSELoss", "Module", "NLLLoss", "Parameter", "ReLU",
           "Sequential", "Sigmoid", "SmoothL1Loss", "Softmax", "Tanh", "functional"]

"""``sg.optim``: optimizers that update runtime Tensors in place, as ``torch.optim`` does.

``SGD`` and ``Adam`` share the :class:`Optimizer` base (parameter groups, ``state``,
``zero_grad``, ``step(closure)``). This package sits on the runtime, never the compiler.
"""

from .adam import Adam
from .optimizer import Optimizer
from .sgd import SGD

__all__ = ["SGD", "Adam", "Optimizer"]

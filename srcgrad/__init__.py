"""srcgrad: source-to-source automatic differentiation for Python and NumPy.

Layers, bottom to top (each imports only those below it):
``rules`` (the one table of derivative rules) -> ``compiler`` | ``tensor`` + ``autograd``
(never each other) -> this package's public API, ``optim``, ``nn`` and the ``cli``.
"""

from __future__ import annotations

from . import autograd, nn, optim, rules, viz
from .autograd import enable_grad, is_grad_enabled, no_grad, set_grad_enabled
from .compiler.api import (
    checkpoint,
    clear_cache,
    grad,
    hessian,
    jacobian,
    jvp,
    source,
    stop_gradient,
    tree_leaves,
    tree_map,
    value_and_grad,
    vjp,
)
from .errors import SrcGradError
from .rules.user import defjvp, defvjp
from .tensor import *  # noqa: F403  (Tensor, dtypes, tensor(), zeros(), ...: its __all__)
from .tensor import __all__ as _tensor_names
from .tensor import linalg  # sg.linalg: torch.linalg's spellings
from .tensor.functions import *  # noqa: F403  (sg.sin, sg.sum, sg.cat, ...: its __all__)
from .tensor.functions import __all__ as _function_names

__version__ = "0.1.0"

__all__ = [
    # the compiler (API.md section 1)
    "grad", "value_and_grad", "vjp", "jvp", "jacobian", "hessian", "source",
    "defvjp", "defjvp", "stop_gradient", "checkpoint", "clear_cache", "SrcGradError",
    "tree_map", "tree_leaves",
    # the runtime (API.md section 3)
    "autograd", "nn", "optim", "viz", "no_grad", "enable_grad", "set_grad_enabled",
    "is_grad_enabled", "linalg", *_tensor_names, *_function_names,
    "rules", "__version__",
]

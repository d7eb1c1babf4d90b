"""srcgrad: source-to-source automatic differentiation for Python and NumPy.

Layers, bottom to top (each imports only those below it):
``rules`` (the one table of derivative rules) -> ``compiler`` | ``tensor`` + ``autograd``
(never each other) -> this package's public API and the ``cli``.
"""

from __future__ import annotations

from . import rules
from .errors import SrcGradError
from .compiler.api import (  # noqa: E402  (the compiler: source-to-source derivatives)
    clear_cache,
    grad,
    hessian,
    jacobian,
    jvp,
    source,
    stop_gradient,
    value_and_grad,
    vjp,
)
from .rules.user import defjvp, defvjp  # noqa: E402  (sg.defvjp rules, honoured by the compiler)

__version__ = "0.1.0"

# The runtime: a PyTorch-style Tensor and autograd (names listed in each module's __all__).
from . import autograd, viz  # noqa: E402
from . import optim  # noqa: E402  (sg.optim.SGD, sg.optim.Adam: on the runtime)
from .autograd import enable_grad, is_grad_enabled, no_grad, set_grad_enabled  # noqa: E402
from .tensor import *  # noqa: E402,F403  (Tensor, dtypes, tensor(), zeros()...)
from .tensor.functions import *  # noqa: E402,F403  (sg.sin, sg.sum, sg.cat, sg.where...)

__all__ = ["SrcGradError", "rules", "__version__"]

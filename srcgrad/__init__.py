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
    source,
    stop_gradient,
    value_and_grad,
    vjp,
)
from .rules.user import defjvp, defvjp  # noqa: E402  (sg.defvjp rules, honoured by the compiler)

__version__ = "0.1.0"

__all__ = ["SrcGradError", "rules", "__version__"]

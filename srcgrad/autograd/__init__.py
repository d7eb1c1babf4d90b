"""The runtime's autograd: backward nodes, the engine, grad mode and the user-facing API.

``sg.autograd.grad`` / ``.backward`` (:mod:`.api`), ``.Function`` (:mod:`.function`),
``.gradcheck`` (:mod:`.gradcheck`), ``.functional`` (jacobian, hessian),
``.set_detect_anomaly`` / ``.detect_anomaly`` (:mod:`.anomaly`) and the grad-mode
switches (:mod:`.grad_mode`). Nodes are in :mod:`.graph` (the node of a recorded rule in
:mod:`.rule_node`, written out per plan by :mod:`.specialize`), the walk in :mod:`.engine`.

This package sits below ``srcgrad.tensor`` and never imports it: the tensor layer lends it
the Tensor class and a few helpers at import (:mod:`.bindings`).
"""

from . import functional, graph
from .anomaly import detect_anomaly, is_anomaly_enabled, set_detect_anomaly
from .api import backward, grad
from .function import Function, FunctionCtx, once_differentiable
from .grad_mode import enable_grad, inference_mode, is_grad_enabled, no_grad, set_grad_enabled
from .gradcheck import GradcheckError, gradcheck, gradgradcheck

__all__ = [
    "Function", "FunctionCtx", "GradcheckError", "backward", "detect_anomaly",
    "enable_grad", "functional", "grad", "gradcheck", "gradgradcheck", "graph",
    "inference_mode", "is_anomaly_enabled", "is_grad_enabled", "no_grad",
    "once_differentiable", "set_detect_anomaly", "set_grad_enabled",
]

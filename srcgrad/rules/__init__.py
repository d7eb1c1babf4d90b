"""The one table of derivative rules (bottom layer: imports numpy and nothing of ours).

Importing this package registers every rule. Read :mod:`.registry` for the record format
(and :mod:`.callform` for how a call maps onto a rule's names), then the rule files, each
a scannable table: :mod:`.elementwise`, :mod:`.reductions`, :mod:`.products`,
:mod:`.einsum`, :mod:`.linalg`, :mod:`.norms`, :mod:`.shape`, :mod:`.joining`,
:mod:`.factories`, :mod:`.nondiff`, :mod:`.helpers`, :mod:`.setitem`, :mod:`.nn` (PyTorch's
fused losses). :mod:`.methods` maps array methods onto rules, :mod:`.forward` derives
forward mode from a rule, and :mod:`.user` registers ``sg.defvjp`` / ``sg.defjvp`` rules.
"""

from . import (  # noqa: F401
    einsum,
    elementwise,
    factories,
    helpers,
    joining,
    linalg,
    nn,
    nondiff,
    norms,
    products,
    reductions,
    setitem,
    shape,
)
from .dispatch import dispatching
from .forward import forward_tangent
from .registry import (
    BILINEAR,
    ELEMENTWISE,
    LINEAR,
    NONDIFF,
    RULES,
    NoDerivativeError,
    Rule,
    defrule,
    generation,
    rule_for,
    rule_named,
)
from .user import defjvp, defvjp

__all__ = [
    "BILINEAR", "ELEMENTWISE", "LINEAR", "NONDIFF", "RULES", "NoDerivativeError", "Rule",
    "defjvp", "defrule", "defvjp", "dispatching", "forward_tangent", "generation",
    "rule_for", "rule_named",
]

from . import runtime_ops, torch_names  # noqa: E402,F401  (runtime rules; then PyTorch's node names)

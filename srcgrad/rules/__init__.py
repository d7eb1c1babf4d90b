"""The one table of derivative rules (bottom layer: imports numpy and nothing of ours).

Importing this package registers every rule. Read :mod:`.registry` for the record format,
then the rule files, each a scannable table: :mod:`.elementwise`, :mod:`.helpers`.
"""

from . import elementwise, helpers  # noqa: F401  (registers their rules)
from .dispatch import dispatching
from .registry import (
    BILINEAR,
    ELEMENTWISE,
    LINEAR,
    NONDIFF,
    RULES,
    Rule,
    defrule,
    generation,
    rule_for,
    rule_named,
)

__all__ = [
    "BILINEAR", "ELEMENTWISE", "LINEAR", "NONDIFF", "RULES", "Rule",
    "defrule", "dispatching", "generation", "rule_for", "rule_named",
]

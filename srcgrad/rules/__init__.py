"""The one table of derivative rules (bottom layer: imports numpy and nothing of ours).

Importing this package registers every rule. Read :mod:`.registry` for the record format
(and :mod:`.callform` for how a call maps onto a rule's names), then the rule files, each
a scannable table: :mod:`.elementwise`, :mod:`.reductions`, :mod:`.products`,
:mod:`.einsum`, :mod:`.tensor_products`, :mod:`.linalg`, :mod:`.norms`, :mod:`.shape`,
:mod:`.joining`, :mod:`.rearrange`, :mod:`.gather`, :mod:`.differences`, :mod:`.padding`,
:mod:`.factories`, :mod:`.nondiff`, :mod:`.helpers`, :mod:`.setitem`, :mod:`.runtime_ops`,
:mod:`.nn` (PyTorch's fused losses).
Every per-primitive fact is a keyword of the rule's ``defrule`` line (PyTorch node name
``torch=``, ``methods=``/``attributes=`` spellings, ``view``/``fresh``, ``operator=``,
``runtime_only``, ``kinks=``; see :class:`.registry.Rule`): :mod:`.methods` only indexes
the spellings, :mod:`.torch_names` holds the namers of call-form-dependent node names,
:mod:`.forward` derives forward mode from a rule, and :mod:`.user` registers
``sg.defvjp`` / ``sg.defjvp`` rules.
"""

from . import (  # noqa: F401
    complex_parts,  # issue 14: real values through the complex-number functions
    contract,  # einsum run as matmul (the adjoints of einsum and tensordot)
    contract_to,  # issue 16: einsum's cotangents, subscripts resolved when compiling
    decompositions,  # linalg
    differences,
    eig_general,  # linalg: np.linalg.eig of a matrix with real eigenvalues
    einsum,
    elementwise,
    elementwise_more,
    factories,
    gather,
    gradient,  # issue 14: np.gradient
    helpers,
    joining,
    joining_rows,  # forms: np.vstack(A) of one array
    linalg,
    linalg_tuples,  # linalg
    masks,  # issue 16: a selection's adjoint as a product on large arrays
    math_items,
    matrix_functions,  # linalg
    meshgrid,
    multi,
    nn,
    nondiff,
    norms,
    padding,
    products,
    rearrange,
    reductions,
    reductions_more,
    selection,  # issue 14: np.partition, np.select
    setitem,
    shape,
    shape_math,  # issue 16: shapes without values
    sorting,
    special,
    splitting,
    spread,  # issue 17: the count a lazily broadcast cotangent is summed
    statistics,
    symmetric_input,  # linalg (PyTorch's spellings)
    tensor_products,
    ties,  # issue 16: maximum/minimum's adjoint as a mask
    triangular,  # linalg
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

from . import runtime_ops  # noqa: E402,F401  (the runtime's own rules)

"""Zero-derivative primitives: piecewise-constant functions, comparisons, queries, factories.

Every rule here is ``kind=NONDIFF``: no derivative flows through it, so the compiler adds
nothing to the adjoint and the runtime records no backward node. They are in the table so
that a call to them is *known* (not "a call with no rule"), and so rule bodies may use them.

=====================  ===========================================================
rule                   what
=====================  ===========================================================
sign floor ceil trunc  piecewise constant ufuncs (``math.floor``/``ceil``/``trunc`` twins)
rint round             rounding (``np.around`` is ``round``)
isnan isinf isfinite   predicates
greater ... not_equal  comparisons (the operators ``< <= > >= == !=``)
logical_*, bitwise_*   boolean algebra (``& | ^ ~`` on boolean arrays are the bitwise ones)
floor_divide           ``//``
argmax argmin          indices
zeros_like ...         ``zeros_like ones_like empty_like``
zeros ones eye         constant factories (no array input, so never dispatched)
shape ndim size len    queries (``len`` is the builtin)
dtype                  the dtype of an array or a Python scalar (the ``.dtype`` attribute)
all any                reductions of truth values
isclose allclose       closeness tests (``array_equal`` too): truth values
=====================  ===========================================================

``full``, ``full_like``, ``linspace`` and ``arange`` are differentiable in the values they
fill in: see :mod:`.factories`.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .dispatch import dispatching
from .registry import NONDIFF, defrule

_UNARY_UFUNCS = (np.sign, np.rint, np.isnan, np.isinf, np.isfinite, np.logical_not,
                 np.invert)
_BINARY_UFUNCS = (
    np.greater, np.greater_equal, np.less, np.less_equal, np.equal, np.not_equal,
    np.logical_and, np.logical_or, np.logical_xor, np.bitwise_and, np.bitwise_or,
    np.bitwise_xor, np.floor_divide,
)

for _fn in _UNARY_UFUNCS:
    defrule(_fn.__name__, _fn, inputs=("x",), kind=NONDIFF)
for _fn in _BINARY_UFUNCS:
    defrule(_fn.__name__, _fn, inputs=("x", "y"), kind=NONDIFF)
defrule("floor", np.floor, inputs=("x",), kind=NONDIFF, aliases=(math.floor,))
defrule("ceil", np.ceil, inputs=("x",), kind=NONDIFF, aliases=(math.ceil,))
defrule("trunc", np.trunc, inputs=("x",), kind=NONDIFF, aliases=(math.trunc,))
defrule("round", np.round, inputs=("x",), params=("decimals",), kind=NONDIFF,
        form="x, decimals=0", aliases=(np.around,))

# --- indices and truth-value reductions ---------------------------------------------
defrule("argmax", np.argmax, inputs=("x",), params=("axis", "keepdims"), kind=NONDIFF,
        form="x, axis=None, *, keepdims=False")
defrule("argmin", np.argmin, inputs=("x",), params=("axis", "keepdims"), kind=NONDIFF,
        form="x, axis=None, *, keepdims=False")
defrule("all", np.all, inputs=("x",), params=("axis", "keepdims"), kind=NONDIFF,
        form="x, axis=None, *, keepdims=False")
defrule("any", np.any, inputs=("x",), params=("axis", "keepdims"), kind=NONDIFF,
        form="x, axis=None, *, keepdims=False")
defrule("isclose", np.isclose, inputs=("x", "y"), params=("rtol", "atol", "equal_nan"),
        kind=NONDIFF, form="x, y, rtol=1e-05, atol=1e-08, equal_nan=False")
defrule("allclose", np.allclose, inputs=("x", "y"), params=("rtol", "atol", "equal_nan"),
        kind=NONDIFF, form="x, y, rtol=1e-05, atol=1e-08, equal_nan=False")
defrule("array_equal", np.array_equal, inputs=("x", "y"), params=("equal_nan",),
        kind=NONDIFF, form="x, y, equal_nan=False")

# --- factories ----------------------------------------------------------------------
defrule("zeros_like", np.zeros_like, inputs=("x",), params=("dtype",), kind=NONDIFF,
        form="x, dtype=None")
defrule("ones_like", np.ones_like, inputs=("x",), params=("dtype",), kind=NONDIFF,
        form="x, dtype=None")
defrule("empty_like", np.empty_like, inputs=("x",), params=("dtype",), kind=NONDIFF,
        form="x, dtype=None")
defrule("zeros", np.zeros, inputs=(), params=("shape", "dtype"), kind=NONDIFF,
        form="shape, dtype=None")
defrule("ones", np.ones, inputs=(), params=("shape", "dtype"), kind=NONDIFF,
        form="shape, dtype=None")
defrule("eye", np.eye, inputs=(), params=("N", "M", "k", "dtype"), kind=NONDIFF,
        form="N, M=None, k=0, dtype=None")


# --- queries ------------------------------------------------------------------------
@dispatching
def dtype_of(x: Any) -> Any:
    """The dtype of ``x`` (``x.dtype`` for arrays, NumPy's choice for Python scalars)."""
    dtype = getattr(x, "dtype", None)
    return np.result_type(x) if dtype is None else dtype


defrule("shape", np.shape, inputs=("x",), kind=NONDIFF)
defrule("ndim", np.ndim, inputs=("x",), kind=NONDIFF)
defrule("size", np.size, inputs=("x",), params=("axis",), kind=NONDIFF, form="x, axis=None")
defrule("len", len, inputs=("x",), kind=NONDIFF)
defrule("dtype", dtype_of, inputs=("x",), kind=NONDIFF)

# forms: more constant factories, so a rule body or a function may build a mask of a size
# known only at run time (``np.tri(np.shape(L)[-1])`` in a Cholesky rule)
defrule("tri", np.tri, inputs=(), params=("N", "M", "k", "dtype"), kind=NONDIFF,
        form="N, M=None, k=0, dtype=None")
defrule("identity", np.identity, inputs=(), params=("n", "dtype"), kind=NONDIFF,
        form="n, dtype=None")

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
from .torch_names import round_node

_BINARY_UFUNCS = (np.logical_and, np.logical_or, np.logical_xor, np.bitwise_and,
                  np.bitwise_or, np.bitwise_xor)

defrule("isnan", np.isnan, inputs=("x",), kind=NONDIFF,
        pytorch=("t.isnan", "sg.isnan"))
defrule("isinf", np.isinf, inputs=("x",), kind=NONDIFF,
        pytorch=("t.isinf", "sg.isinf"))
defrule("isfinite", np.isfinite, inputs=("x",), kind=NONDIFF,
        pytorch=("t.isfinite", "sg.isfinite"))
defrule("logical_not", np.logical_not, inputs=("x",), kind=NONDIFF,
        pytorch=("t.logical_not", "sg.logical_not"))
defrule("invert", np.invert, inputs=("x",), kind=NONDIFF,
        pytorch=("~t",))
for _fn in _BINARY_UFUNCS:
    defrule(_fn.__name__, _fn, inputs=("x", "y"), kind=NONDIFF)
defrule("greater", np.greater, inputs=("x", "y"), kind=NONDIFF, operator=">",
        pytorch=("t > u", "t.gt", "sg.gt"))
defrule("greater_equal", np.greater_equal, inputs=("x", "y"), kind=NONDIFF, operator=">=",
        pytorch=("t >= u", "t.ge", "sg.ge"))
defrule("less", np.less, inputs=("x", "y"), kind=NONDIFF, operator="<",
        pytorch=("t < u", "t.lt", "sg.lt"))
defrule("less_equal", np.less_equal, inputs=("x", "y"), kind=NONDIFF, operator="<=",
        pytorch=("t <= u", "t.le", "sg.le"))
defrule("equal", np.equal, inputs=("x", "y"), kind=NONDIFF, operator="==",
        pytorch=("t == u", "t.eq", "sg.eq"))
defrule("not_equal", np.not_equal, inputs=("x", "y"), kind=NONDIFF, operator="!=",
        pytorch=("t != u", "t.ne", "sg.ne"))
defrule("floor_divide", np.floor_divide, inputs=("x", "y"), kind=NONDIFF, operator="//",
        pytorch=("t // u",))
defrule("sign", np.sign, inputs=("x",), kind=NONDIFF, torch=("SignBackward0", 1),
        pytorch=("t.sign", "sg.sign"))
defrule("rint", np.rint, inputs=("x",), kind=NONDIFF, torch=("RoundBackward0", 1))
defrule("floor", np.floor, inputs=("x",), kind=NONDIFF, aliases=(math.floor,),
        torch=("FloorBackward0", 1),
        pytorch=("t.floor", "sg.floor"))
defrule("ceil", np.ceil, inputs=("x",), kind=NONDIFF, aliases=(math.ceil,),
        torch=("CeilBackward0", 1),
        pytorch=("t.ceil", "sg.ceil"))
defrule("trunc", np.trunc, inputs=("x",), kind=NONDIFF, aliases=(math.trunc,),
        torch=("TruncBackward0", 1),
        pytorch=("t.trunc", "sg.trunc"))
defrule("round", np.round, inputs=("x",), params=("decimals",), kind=NONDIFF,
        form="x, decimals=0", aliases=(np.around,), torch=round_node, methods=("round",),
        pytorch=("t.round", "sg.round"))

# --- indices and truth-value reductions ---------------------------------------------
defrule("argmax", np.argmax, inputs=("x",), params=("axis", "keepdims"), kind=NONDIFF,
        form="x, axis=None, *, keepdims=False", methods=("argmax",),
        pytorch=("t.argmax", "sg.argmax"))
defrule("argmin", np.argmin, inputs=("x",), params=("axis", "keepdims"), kind=NONDIFF,
        form="x, axis=None, *, keepdims=False", methods=("argmin",),
        pytorch=("t.argmin", "sg.argmin"))
defrule("all", np.all, inputs=("x",), params=("axis", "keepdims"), kind=NONDIFF,
        form="x, axis=None, *, keepdims=False", methods=("all",),
        pytorch=("t.all", "sg.all"))
defrule("any", np.any, inputs=("x",), params=("axis", "keepdims"), kind=NONDIFF,
        form="x, axis=None, *, keepdims=False", methods=("any",),
        pytorch=("t.any", "sg.any"))
defrule("isclose", np.isclose, inputs=("x", "y"), params=("rtol", "atol", "equal_nan"),
        kind=NONDIFF, form="x, y, rtol=1e-05, atol=1e-08, equal_nan=False")
defrule("allclose", np.allclose, inputs=("x", "y"), params=("rtol", "atol", "equal_nan"),
        kind=NONDIFF, form="x, y, rtol=1e-05, atol=1e-08, equal_nan=False")
defrule("array_equal", np.array_equal, inputs=("x", "y"), params=("equal_nan",),
        kind=NONDIFF, form="x, y, equal_nan=False")

# --- factories ----------------------------------------------------------------------
defrule("zeros_like", np.zeros_like, inputs=("x",), params=("dtype",), kind=NONDIFF,
        form="x, dtype=None", fresh=True,
        pytorch=("sg.zeros_like",))
defrule("ones_like", np.ones_like, inputs=("x",), params=("dtype",), kind=NONDIFF,
        form="x, dtype=None", fresh=True,
        pytorch=("sg.ones_like",))
defrule("empty_like", np.empty_like, inputs=("x",), params=("dtype",), kind=NONDIFF,
        form="x, dtype=None", fresh=True)
defrule("zeros", np.zeros, inputs=(), params=("shape", "dtype"), kind=NONDIFF,
        form="shape, dtype=None", fresh=True,
        pytorch=("sg.zeros",))
defrule("ones", np.ones, inputs=(), params=("shape", "dtype"), kind=NONDIFF,
        form="shape, dtype=None", fresh=True,
        pytorch=("sg.ones",))
defrule("eye", np.eye, inputs=(), params=("N", "M", "k", "dtype"), kind=NONDIFF,
        form="N, M=None, k=0, dtype=None",
        pytorch=("sg.eye",))


# --- queries ------------------------------------------------------------------------
@dispatching
def dtype_of(x: Any) -> Any:
    """The dtype of ``x`` (``x.dtype`` for arrays, NumPy's choice for Python scalars)."""
    dtype = getattr(x, "dtype", None)
    return np.result_type(x) if dtype is None else dtype


defrule("shape", np.shape, inputs=("x",), kind=NONDIFF, attributes=("shape",))
defrule("ndim", np.ndim, inputs=("x",), kind=NONDIFF, attributes=("ndim",))
defrule("size", np.size, inputs=("x",), params=("axis",), kind=NONDIFF, form="x, axis=None",
        attributes=("size",))
defrule("len", len, inputs=("x",), kind=NONDIFF)
defrule("dtype", dtype_of, inputs=("x",), kind=NONDIFF, attributes=("dtype",))

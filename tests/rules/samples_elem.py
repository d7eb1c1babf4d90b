"""Samples for the rules of issue 14 (elementwise, reduction and ``math`` functions):
``srcgrad/rules/elementwise_more.py``, ``reductions_more.py``, ``special.py``,
``statistics.py`` and ``math_items.py``. Same conventions as :mod:`.samples` (away from
kinks; the kink rows are in ``tests/reliability/kinks_elem.py``)."""

from __future__ import annotations

import numpy as np

from .samples import PAIRS, SHAPES, P, R, S, axes_for, each, reduction_envs

# --- elementwise_more ------------------------------------------------------------------------
for _name, _make in {"fabs": S, "deg2rad": R, "rad2deg": R, "cbrt": S, "sinc": R}.items():
    each(_name, [{"x": _make(s)} for s in SHAPES])
each("sinc", [{"x": R((10, 5), -6.0, 6.0)}])  # both branches: series and closed form
each("sinc_derivative", [{"x": R(s, -3.0, 3.0), "n": n} for s in SHAPES[1:4] for n in (1, 2, 3)])
for _name in ("logaddexp2", "fmax", "fmin"):
    each(_name, [{"x": R(a), "y": R(b)} for a, b in PAIRS])
each("nan_to_num", [{"x": R(s), "copy": True, "nan": 0.0, "posinf": None, "neginf": None}
                    for s in SHAPES])
each("nan_to_num", [{"x": P((5,)), "copy": True, "nan": 1.5, "posinf": 9.0, "neginf": -9.0}])

# --- reductions_more -------------------------------------------------------------------------
_ZEROS = np.array([[2.0, 0.0, 1.5, -0.5, 0.0], [1.2, -0.7, 0.0, 0.9, 1.1]])
each("cumprod", [{"x": S(s), "axis": a} for s in SHAPES
                 for a in [None, *range(len(s)), *([-1] if s else [])]])
each("cumprod", [{"x": _ZEROS, "axis": a} for a in (None, 0, 1)], label="zeros")
each("tri_mask", [{"x": R((5,))}, {"x": R((10, 5))}])


def _with_nans(x: np.ndarray) -> np.ndarray:
    x = np.array(x, dtype=np.float64)
    if x.ndim:
        x.flat[::3] = np.nan  # (every slice keeps a number, filtered below)
    return x


for _name in ("nansum", "nanmean"):
    each(_name, reduction_envs())
    each(_name, [{"x": _with_nans(R(s)), "axis": a, "keepdims": k}
                 for s in SHAPES[1:] for a in axes_for(s) for k in (False, True)
                 if not np.isnan(_with_nans(R(s))).all(axis=a).any()], label="nan")

# --- special ---------------------------------------------------------------------------------
for _name in ("erf", "erfc"):
    each(_name, [{"x": R(s)} for s in SHAPES])
each("lgamma", [{"x": P(s) * 2.0} for s in SHAPES])
each("lgamma", [{"x": R((10, 5), -3.9, -3.1)}, {"x": R((5,), 0.01, 0.2)},
                {"x": R((5,), 20.0, 40.0)}], label="negative-small-large")
each("polygamma", [{"x": P(s) * 3.0, "n": n} for s in SHAPES[1:4] for n in (0, 1, 2)])
each("polygamma", [{"x": R((10, 5), -2.9, -2.1), "n": n} for n in (0, 1, 3)],
     label="reflected-and-shifted")

# --- math_items ------------------------------------------------------------------------------
each("math_prod", [{"x": S((5,)), "start": 1}, {"x": S((4,)), "start": 2.5},
                   {"x": S((3, 5)), "start": 1}, {"x": np.array([1.5, 0.0, -0.7, 0.0]),
                                                  "start": 1}])
each("math_hypot", [{"coords": [S(()) for _ in range(n)]} for n in (1, 2, 3, 5)])
each("dist", [{"p": R((n,)), "q": R((n,))} for n in (1, 3, 5)])

# --- statistics ------------------------------------------------------------------------------
each("average", [{"a": R(s), "weights": None, "axis": a, "returned": False, "keepdims": k}
                 for s in SHAPES for a in axes_for(s) for k in (False, True)])
each("average", [{"a": R(s), "weights": P(s), "axis": a, "returned": False, "keepdims": k}
                 for s in SHAPES for a in axes_for(s) for k in (False, True)], label="weights")
each("average", [{"a": R((10, 5)), "weights": P((5,)), "axis": 1, "returned": False,
                  "keepdims": False},
                 {"a": R((10, 5)), "weights": P((10,)), "axis": 0, "returned": False,
                  "keepdims": True},
                 {"a": R((3, 1, 5)), "weights": P((3, 5)), "axis": (0, 2), "returned": False,
                  "keepdims": False}], label="weights-along-axis")
each("weight_array", [{"weights": P((5,)), "a_shape": (10, 5), "a_dtype": np.float64,
                       "axis": 1},
                      {"weights": P((10, 5)), "a_shape": (10, 5), "a_dtype": np.float64,
                       "axis": None}])
each("aligned_shape", [{"weights_shape": (5,), "a_shape": (10, 5), "axis": -1}])
for _name in ("median", "median_low"):
    each(_name, reduction_envs())
for _name in ("median_weights", "median_low_weights"):
    each(_name, [{"x": R((10, 5)), "axis": a} for a in (None, 0, -1, (0, 1))])
each("median_low_index", [{"x": R((10, 5)), "axis": a, "keepdims": k} for a in (0, 1)
                          for k in (False, True)])

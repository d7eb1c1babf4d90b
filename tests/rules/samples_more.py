"""Samples for the last NumPy functions of issue 14 (rules/gradient.py, selection.py,
complex_parts.py), imported at the end of samples.py."""

from __future__ import annotations

import numpy as np

from .samples import SHAPES, B, P, R, S, each

# --- complex_parts.py: real values through the complex-number functions ----------------
each("real", [{"val": R(s)} for s in SHAPES])
each("conjugate", [{"x": R(s)} for s in SHAPES])
each("real_if_close", [{"a": R((10, 5)), "tol": 100}, {"a": R(()), "tol": 1000}])
each("imag", [{"val": R((10, 5))}])
each("angle", [{"z": S((10, 5)), "deg": False}, {"z": S((5,)), "deg": True}])
for _name in ("iscomplex", "isreal", "iscomplexobj", "isrealobj"):
    each(_name, [{"x": R((5,))}])

# --- gradient.py: np.gradient along one axis and its transpose ---------------------------
_COORDS = np.cumsum(P((10,)))  # non-uniform coordinates along a length-10 axis


def _gradient_envs(name: str) -> list[dict]:
    first = "f" if name == "gradient_along" else "c"
    return [{first: R(shape), "spacing": h, "axis": axis, "edge_order": e}
            for shape, h, axis, e in [((5,), 1.0, 0, 1), ((5,), 0.5, -1, 2),
                                      ((10, 5), 1.0, 0, 2), ((10, 5), 0.3, 1, 1),
                                      ((10, 5), _COORDS, 0, 1), ((10, 5), _COORDS, 0, 2),
                                      ((3, 4, 5), 2.0, 1, 2), ((2, 3), 1.0, 0, 1)]]


each("gradient_along", _gradient_envs("gradient_along"))
each("gradient_adjoint", _gradient_envs("gradient_adjoint"))

# --- selection.py: np.partition, np.select (values away from ties) -----------------------
each("partition", [{"a": R((7,)), "kth": 3, "axis": -1, "kind": "introselect"},
                   {"a": R((10, 5)), "kth": [1, 4], "axis": 0, "kind": "introselect"},
                   {"a": R((3, 1, 5)), "kth": -1, "axis": None, "kind": "introselect"},
                   {"a": R((10, 5)), "kth": (0, 2, 4), "axis": 1, "kind": "introselect"}])
each("partition_order", [{"a": R((10, 5)), "kth": 2, "axis": 0}])
each("argpartition", [{"a": R((10, 5)), "kth": 2, "axis": -1, "kind": "introselect"}])
_CONDS = [B((3, 4, 5)), B((3, 4, 5)), B((4, 5))]
each("select_chosen", [{"condlist": _CONDS, "i": i} for i in range(4)])
each("select_choices", [{"condlist": _CONDS, "choices": [R((3, 4, 5)), R((4, 5)), R((3, 4, 5)), R(())]},
                {"condlist": _CONDS[:1], "choices": [R((3, 4, 5)), R((3, 4, 5))]},
                {"condlist": [B((5,))], "choices": [R(()), R((5,))]}])


# --- eig_general.py: np.linalg.eig of matrices with real, distinct eigenvalues -----------
def _real_eigen(values: list[float]) -> np.ndarray:
    n = len(values)
    basis = R((n, n), -0.5, 0.5) + 2.0 * np.eye(n)
    return basis @ np.diag(values) @ np.linalg.inv(basis)


_EIG = [_real_eigen([0.5, -1.0, 2.0, 3.5]), np.stack([_real_eigen([1.0, -0.5, 2.5]),
                                                      _real_eigen([-2.0, 0.3, 1.2])])]
each("eig_values", [{"x": a} for a in _EIG])
each("eig_vectors", [{"x": a} for a in _EIG])

"""Samples for the items of tuple-returning functions (srcgrad/rules/multi.py and the rule
files that use it: splitting.py), imported at the end of samples.py."""

from __future__ import annotations

import numpy as np

from .samples import R, each

each("split_piece", [
    {"x": R((6,)), "sections": 3, "axis": 0, "index": 1, "equal": True},
    {"x": R((10, 5)), "sections": 5, "axis": -1, "index": 4, "equal": True},
    {"x": R((3, 1, 5)), "sections": 2, "axis": 2, "index": 0, "equal": False},
    {"x": R((10, 5)), "sections": (2, 7), "axis": 0, "index": 1, "equal": False},
    {"x": R((10, 5)), "sections": (3,), "axis": 1, "index": 1, "equal": True},
])
each("split_index", [{"x_shape": (10, 5), "sections": 3, "axis": 0, "index": 2,
                      "equal": False}])
each("unstack_piece", [{"x": R((5,)), "axis": 0, "index": 2},
                       {"x": R((10, 5)), "axis": -1, "index": 3},
                       {"x": R((3, 1, 5)), "axis": 1, "index": 0}])
each("unstack_index", [{"x_shape": (10, 5), "axis": 1, "index": 2}])

# --- sorting.py (values away from ties: the kink is documented in the module) -------------
each("sort", [{"x": R((5,)), "axis": -1, "kind": None},
              {"x": R((10, 5)), "axis": 0, "kind": None},
              {"x": R((3, 1, 5)), "axis": None, "kind": None},
              {"x": R((10, 5)), "axis": 1, "kind": "stable"}])
each("sort_values", [{"x": R((5,)), "axis": -1, "descending": True},
                     {"x": R((10, 5)), "axis": 0, "descending": False},
                     {"x": R((3, 1, 5)), "axis": -1, "descending": True}])
each("sort_order", [{"x": R((10, 5)), "axis": 1, "descending": False}])
_ORDER = np.argsort(R((10, 5)), axis=0)
each("sort_gather", [{"c": R((10, 5)), "order": _ORDER, "axis": 0},
                     {"c": R((2, 3)), "order": np.array([4, 0, 5, 1, 3, 2]), "axis": None}],
     wrt=("c",))
each("sort_scatter", [{"c": R((10, 5)), "order": _ORDER, "shape": (10, 5), "axis": 0},
                      {"c": R((6,)), "order": np.array([4, 0, 5, 1, 3, 2]), "shape": (2, 3),
                       "axis": None}], wrt=("c",))

# --- meshgrid.py --------------------------------------------------------------------------
each("meshgrid_piece", [{"xs": [R((3,)), R((4,))], "index": i, "indexing": ix}
                        for i in (0, 1) for ix in ("xy", "ij")])
each("meshgrid_piece", [{"xs": [R((2,)), R((3,)), R((4,))], "index": 2, "indexing": "xy"},
                        {"xs": [R((5,))], "index": 0, "indexing": "xy"}])
_XS = ((3,), (4,))
each("mesh_adjoint", [{"c": R((4, 3)), "xs_shape": _XS, "index": 0, "indexing": "xy", "item": 0},
                      {"c": R((3, 4)), "xs_shape": _XS, "index": 1, "indexing": "ij", "item": 1}])
each("mesh_spread", [{"c": R((3,)), "xs_shape": _XS, "index": 0, "indexing": "xy", "item": 0},
                     {"c": R((4,)), "xs_shape": _XS, "index": 1, "indexing": "ij", "item": 1}])

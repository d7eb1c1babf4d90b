"""Samples for the items of tuple-returning functions (srcgrad/rules/multi.py and the rule
files that use it: splitting.py), imported at the end of samples.py."""

from __future__ import annotations

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

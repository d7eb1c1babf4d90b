"""Samples of issue 16's small-MLP rules: ``max_picks``/``min_picks`` and ``picked`` (the
max's and min's VJP as one linear primitive), for every axis/keepdims form of the
reductions' shapes, the cotangent ``g`` shaped as the reduction's result."""

from __future__ import annotations

import numpy as np

from srcgrad.rules.reductions import max_picks, min_picks

from .samples import SHAPES, R, axes_for, each

_XS = [R(s) for s in SHAPES]
_TIES = np.array([[1.0, 3.0, 3.0], [2.0, 0.0, 2.0]])  # the fallback to argmax/argmin
for _name, _reduce in (("max_picks", np.max), ("min_picks", np.min)):
    each(_name, [{"x": x, "out": _reduce(x, axis=a, keepdims=k), "axis": a, "keepdims": k}
                 for x in [*_XS, _TIES] for a in axes_for(x.shape) for k in (False, True)])
# ``picks`` is a mask (one axis) or weights (a full or several-axis reduction); only ``g``
# is differentiated
each("picked", [{"g": R(np.shape(np.max(x, axis=a, keepdims=k))),
                 "picks": picks(x, reduce(x, axis=a, keepdims=k), a, k),
                 "axis": a, "keepdims": k}
                for x in _XS for a in axes_for(x.shape) for k in (False, True)
                for picks, reduce in ((max_picks, np.max), (min_picks, np.min))],
     wrt=("g",))
each("broadcast_shape", [{"a": (10, 5), "b": (10, 5)}, {"a": (10, 1), "b": (1, 5)},
                         {"a": (5,), "b": (3, 1, 5)}, {"a": (), "b": (5, 1)}])
each("reduced_shape", [{"shape": (10, 5), "axis": a, "keepdims": k}
                       for a in (None, 0, -1, (0, 1)) for k in (False, True)])
# maximum/minimum's adjoint (rules/ties.py): larger_picks without ties (a mask), with ties
# (weights), broadcast; taken of a mask and of weights, c broadcast against w
each("larger_picks", [{"x": R((3, 4)), "y": 0.0}, {"x": _TIES, "y": 2.0},
                      {"x": R((2, 3)), "y": R((3,))}, {"x": 1.5, "y": 1.5}])
each("taken", [{"c": R((3, 4)), "w": R((3, 4)) > 0}, {"c": R((2, 3)), "w": np.array(
    [[1.0, 0.5, 0.0], [0.0, 1.0, 0.5]])}, {"c": R((3,)), "w": R((2, 3)) > 0},
    {"c": 0.7, "w": R((2, 3)) > 0}], wrt=("c",))

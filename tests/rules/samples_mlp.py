"""Samples of issue 16's small-MLP rules: ``max_picks``/``min_picks`` and ``picked`` (the
max's and min's VJP as one linear primitive), for every axis/keepdims form of the
reductions' shapes, the cotangent ``g`` shaped as the reduction's result."""

from __future__ import annotations

import numpy as np

from srcgrad.rules.reductions import max_picks, min_picks

from .samples import SHAPES, R, axes_for, each

_XS = [R(s) for s in SHAPES]
each("max_picks", [{"x": x, "axis": a} for x in _XS for a in axes_for(x.shape)])
each("min_picks", [{"x": x, "axis": a} for x in _XS for a in (None, -1) if x.ndim or a is None])
# ``picks`` is a mask (one axis) or weights (a full or several-axis reduction); only ``g``
# is differentiated
each("picked", [{"g": R(np.shape(np.max(x, axis=a, keepdims=k))), "picks": picks(x, a),
                 "axis": a, "keepdims": k}
                for x in _XS for a in axes_for(x.shape) for k in (False, True)
                for picks in (max_picks, min_picks)], wrt=("g",))
each("broadcast_shape", [{"a": (10, 5), "b": (10, 5)}, {"a": (10, 1), "b": (1, 5)},
                         {"a": (5,), "b": (3, 1, 5)}, {"a": (), "b": (5, 1)}])
each("reduced_shape", [{"shape": (10, 5), "axis": a, "keepdims": k}
                       for a in (None, 0, -1, (0, 1)) for k in (False, True)])

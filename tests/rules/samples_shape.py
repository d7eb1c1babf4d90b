"""Samples for the shape, joining and product rules of issue 14 (``rules/rearrange.py``,
``gather.py``, ``differences.py``, ...): imported by the last line of ``samples.py``."""

from __future__ import annotations

import numpy as np

from srcgrad.rules.tensor_products import cross

from .samples import R, Sample, add, each

# --- rearrange.py ------------------------------------------------------------------------
each("roll", [{"a": R((5,)), "shift": 2, "axis": None},
              {"a": R((10, 5)), "shift": -3, "axis": None},
              {"a": R((10, 5)), "shift": 4, "axis": 0},
              {"a": R((3, 1, 5)), "shift": (1, -2), "axis": (0, 2)},
              {"a": R((10, 5)), "shift": (1, 1), "axis": (1, 1)}])
for _name in ("fftshift", "ifftshift"):
    each(_name, [{"x": R((5,)), "axes": None}, {"x": R((4, 5)), "axes": None},
                 {"x": R((4, 5)), "axes": 1}, {"x": R((3, 1, 5)), "axes": (0, 2)},
                 {"x": R((4, 5)), "axes": (-1,)}])
each("negated", [{"shift": 2}, {"shift": (1, -2)}])
each("rot90", [{"m": R((10, 5)), "k": 1, "axes": (0, 1)},
               {"m": R((10, 5)), "k": 2, "axes": (0, 1)},
               {"m": R((10, 5)), "k": -1, "axes": (1, 0)},
               {"m": R((3, 1, 5)), "k": 3, "axes": (0, 2)}])
each("flipud", [{"m": R((5,))}, {"m": R((10, 5))}, {"m": R((3, 1, 5))}])
each("fliplr", [{"m": R((10, 5))}, {"m": R((3, 1, 5))}])
each("rollaxis", [{"a": R((3, 1, 5)), "axis": 2, "start": 0},
                  {"a": R((3, 1, 5)), "axis": 0, "start": 3},
                  {"a": R((3, 1, 5)), "axis": -1, "start": 1},
                  {"a": R((10, 5)), "axis": 1, "start": 0}])
each("rollaxis_permutation", [{"shape": (3, 1, 5), "axis": 0, "start": 2}])
for _name in ("tril", "triu"):
    each(_name, [{"m": R((5, 5)), "k": 0}, {"m": R((10, 5)), "k": -2},
                 {"m": R((3, 4, 5)), "k": 1}, {"m": R((5,)), "k": 0},
                 {"m": R((4, 6)), "k": 3}])
_DIAGONALS = [((4, 4), 0, 0, 1), ((3, 5), 1, 0, 1), ((5, 3), -2, 0, 1),
              ((2, 3, 4), 0, 1, 2), ((3, 4, 2), 1, 2, 0), ((3, 4, 2), -1, -1, 0)]
for _shape, _off, _a1, _a2 in _DIAGONALS:
    _x = R(_shape)
    _params = {"offset": _off, "axis1": _a1, "axis2": _a2}
    add("diagonal", Sample({"a": _x, **_params}))
    add("diagonal_adjoint", Sample({"c": R(np.shape(np.diagonal(_x, _off, _a1, _a2))),
                                    "shape": _shape, **_params}))

# --- gather.py ---------------------------------------------------------------------------
_TAKES = [((5,), np.array([0, 3, 3, 1]), None, "raise"),
          ((10, 5), np.array([[0, 49], [7, 7]]), None, "raise"),
          ((10, 5), np.array([4, 0, 4]), 1, "raise"),
          ((10, 5), np.array([-1, 2]), 0, "raise"),
          ((3, 1, 5), np.array([7, -6, 2]), -1, "wrap"),
          ((3, 1, 5), np.array([9, -1, 0]), 2, "clip"),
          ((10, 5), 3, 0, "raise")]
for _shape, _idx, _axis, _mode in _TAKES:
    _x = R(_shape)
    _params = {"indices": _idx, "axis": _axis, "mode": _mode}
    add("take", Sample({"a": _x, **_params}))
    add("take_adjoint", Sample({"c": R(np.shape(np.take(_x, _idx, _axis, mode=_mode))),
                                "shape": _shape, **_params}))
_ALONG = [((5,), np.array([4, 4, 0]), 0), ((10, 5), np.array([[0, 4, 4]] * 10), 1),
          ((10, 5), np.array([[9, 0, 9, 1, 2]]), 0), ((3, 1, 5), np.array([[[2], [0]]]), 0),
          ((10, 5), np.array([3, 3, 49]), None), ((3, 1, 5), np.zeros((3, 1, 2), int), -1)]
for _shape, _idx, _axis in _ALONG:
    _x = R(_shape)
    add("take_along_axis", Sample({"arr": _x, "indices": _idx, "axis": _axis}))
    add("take_along_adjoint", Sample({"c": R(np.shape(np.take_along_axis(_x, _idx, _axis))),
                                      "shape": _shape, "indices": _idx, "axis": _axis}))

# --- differences.py ----------------------------------------------------------------------
_DIFFS = [((5,), 1, -1, None, None), ((10, 5), 2, -1, None, None), ((10, 5), 1, 0, None, None),
          ((3, 1, 5), 3, 2, None, None), ((5,), 1, 0, 1.5, None),
          ((10, 5), 2, 0, np.ones((2, 5)), np.array([[0.5, 1.0, -1.0, 2.0, 0.0]])),
          ((10, 5), 1, -1, None, 2.0), ((5,), 0, -1, None, None),
          ((5,), 2, 0, R(()), R((2,))), ((10, 5), 1, 0, R((1, 5)), None),
          ((3, 1, 5), 2, -1, None, R((3, 1, 2))), ((10, 5), 3, 1, R((10, 2)), R(()))]
for _shape, _n, _axis, _pre, _app in _DIFFS:
    _x = R(_shape)
    _out = np.diff(_x, _n, _axis, **{k: v for k, v in (("prepend", _pre), ("append", _app))
                                     if v is not None})
    add("diff", Sample({"a": _x, "n": _n, "axis": _axis, "prepend": _pre, "append": _app}))
    _ax = _axis % len(_shape)
    _b1 = 0 if _pre is None else (1 if np.ndim(_pre) == 0 else np.shape(_pre)[_ax])
    _span = {"n": _n, "axis": _axis, "start": _b1, "stop": _b1 + _shape[_ax]}
    add("diff_adjoint", Sample({"c": R(np.shape(_out)), **_span}))
    add("diff_embedded", Sample({"c": R(_shape), **_span, "out_shape": np.shape(_out)}))
each("diff_bound", [{"prepend": None, "append": R((2, 3)), "a_shape": (4, 3), "axis": 0,
                     "k": 3}, {"prepend": 1.5, "append": None, "a_shape": (5,), "axis": -1,
                               "k": 2}])
each("zeroed", [{"value": None, "like": R((5,))}, {"value": np.ones((2, 3)), "like": R(())},
                {"value": 1.5, "like": R((2,))}])

# --- tensor_products.py ------------------------------------------------------------------
_TENSORDOTS = [((3, 4, 5), (4, 5, 2), 2), ((3, 4), (4, 2), 1), ((3, 4), (2, 5), 0),
               ((3, 4, 5), (5, 3, 2), ([0, 2], [1, 0])), ((4, 3), (2, 4), (0, 1)),
               ((2, 3), (2, 3), ([0, 1], [0, 1])), ((5,), (5,), 1), ((3, 4), (4, 3), ([-1], [0]))]
for _sa, _sb, _axes in _TENSORDOTS:
    _a, _b = R(_sa), R(_sb)
    _c = R(np.shape(np.tensordot(_a, _b, _axes)))
    add("tensordot", Sample({"a": _a, "b": _b, "axes": _axes}))
    add("tensordot_adjoint_a", Sample({"c": _c, "b": _b, "shape": _sa, "axes": _axes}))
    add("tensordot_adjoint_b", Sample({"a": _a, "c": _c, "shape": _sb, "axes": _axes}))
_KRONS = [((2, 3), (3, 2)), ((3,), (4,)), ((2, 2), (3,)), ((3,), (2, 2)), ((), (3,)),
          ((2, 1, 3), (2, 2))]
for _sa, _sb in _KRONS:
    _a, _b = R(_sa), R(_sb)
    _c = R(np.shape(np.kron(_a, _b)))
    add("kron", Sample({"a": _a, "b": _b}))
    add("kron_adjoint_a", Sample({"c": _c, "b": _b, "shape": _sa}))
    add("kron_adjoint_b", Sample({"a": _a, "c": _c, "shape": _sb}))
_NOAXES = {"axisa": -1, "axisb": -1, "axisc": -1, "axis": None}
_CROSSES = [((3,), (3,), _NOAXES), ((4, 3), (4, 3), _NOAXES), ((4, 3), (3,), _NOAXES),
            ((2,), (2,), _NOAXES), ((4, 2), (4, 2), _NOAXES), ((2,), (3,), _NOAXES),
            ((4, 3), (2,), _NOAXES),
            ((3, 4), (4, 3), {"axisa": 0, "axisb": -1, "axisc": 0, "axis": None}),
            ((3, 5), (3, 5), {"axisa": -1, "axisb": -1, "axisc": -1, "axis": 0}),
            ((2, 5, 3), (1, 5, 3), {"axisa": -1, "axisb": -1, "axisc": 1, "axis": None}),
            ((2, 4), (4, 2), {"axisa": 0, "axisb": 1, "axisc": -1, "axis": None})]
for _sa, _sb, _kw in _CROSSES:
    _a, _b = R(_sa), R(_sb)
    _c = R(np.shape(cross(_a, _b, **_kw)))  # np.cross warns on 2-vectors (NumPy 2)
    add("cross", Sample({"a": _a, "b": _b, **_kw}))
    add("cross_adjoint_a", Sample({"c": _c, "b": _b, "shape": _sa, **_kw}))
    add("cross_adjoint_b", Sample({"a": _a, "c": _c, "shape": _sb, **_kw}))

# --- padding.py --------------------------------------------------------------------------
_PADS = [((5,), 2, "constant", 0), ((5,), (1, 3), "constant", 1.5),
         ((10, 5), ((1, 2), (0, 3)), "constant", -2.0), ((3, 1, 5), ((1, 0),), "constant", 0),
         ((5,), (2, 3), "edge", 0), ((10, 5), ((1, 2), (3, 0)), "edge", 0),
         ((5,), (3, 4), "reflect", 0), ((10, 5), 2, "reflect", 0),
         ((5,), (6, 2), "symmetric", 0), ((3, 1, 5), ((0, 1), (2, 2), (1, 0)), "symmetric", 0),
         ((5,), (7, 3), "wrap", 0), ((10, 5), ((1, 1), (4, 6)), "wrap", 0)]
for _shape, _w, _mode, _cv in _PADS:
    _x = R(_shape)
    add("pad", Sample({"array": _x, "pad_width": _w, "mode": _mode, "constant_values": _cv},
                      label=_mode))
    add("pad_adjoint", Sample({"c": R(np.shape(np.pad(_x, _w))), "shape": _shape,
                               "pad_width": _w, "mode": _mode}, label=_mode))

# --- einsum.py: an index repeated within one operand (a diagonal) ------------------------
_EINSUM_DIAGONALS = [("ii->i", [(3, 3)]), ("ii", [(4, 4)]), ("ijk,lji,lli->lki",
                     [(3, 4, 4), (4, 4, 3), (4, 4, 3)]), ("...ii->...i", [(2, 3, 3)]),
                     ("iij,j->i", [(3, 3, 2), (2,)]), ("iii->", [(3, 3, 3)])]
for _subs, _shapes in _EINSUM_DIAGONALS:
    add("einsum", Sample({"subscripts": _subs, "operands": [R(s) for s in _shapes],
                          "optimize": False}, label=_subs))
each("einsum_diagonal_subscripts", [{"subscripts": "ijk,lji,lli->lki",
                                     "shapes": ((3, 4, 4), (4, 4, 3), (4, 4, 3)), "i": 2}])
each("einsum_diagonal_shape", [{"subscripts": "iij->i", "shapes": ((3, 3, 2),), "i": 0}])
each("einsum_delta", [{"like": R((2,)), "subscripts": "iij->j", "shapes": ((3, 3, 2),),
                       "i": 0}])

# --- padding.py: differentiable constants, in every form NumPy broadcasts ------------------
_PAD_VALUES = [((5,), (1, 3), R(())), ((10, 5), ((1, 2), (0, 3)), R((2, 2))),
               ((10, 5), 2, R((2,))), ((3, 1, 5), ((1, 0), (2, 1), (0, 2)), R((3, 1))),
               ((10, 5), (2, 1), R((1,))), ((10, 5), ((1, 2),), R((1, 2))),
               ((5,), 2, R(()), "edge")]
for _shape, _w, _cv, *_mode in _PAD_VALUES:
    _m = _mode[0] if _mode else "constant"
    add("pad", Sample({"array": R(_shape), "pad_width": _w, "mode": _m,
                       "constant_values": _cv}, label=f"{_m} values {np.shape(_cv)}"))
    add("pad_value_adjoint", Sample({"c": R(np.shape(np.pad(np.zeros(_shape), _w))),
                                     "shape": _shape, "pad_width": _w,
                                     "value_shape": np.shape(_cv), "mode": _m}))
each("zeros_shaped", [{"shape": (2, 3), "like": R(())}])

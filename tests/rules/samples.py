"""Sample inputs for every rule in the table: the data the rule checks run on.

``SAMPLES[rule name]`` is a list of :class:`Sample`; ``sample.env`` maps the rule's input
and param names to values, ready for ``rule.apply(env)``. The shapes are DESIGN.md's
``()``, ``(5,)``, ``(5, 1)``, ``(10, 5)``, ``(3, 1, 5)``, broadcast pairs, and every
``axis``/``keepdims`` combination that applies; values respect each function's domain
(``log`` > 0, ``arcsin`` in (-1, 1), well-conditioned matrices) and stay away from kinks
(ties, bounds, zeros), which the kink table
(``tests/reliability/test_kink_table.py``) checks value by value instead.

``sample.wrt`` names the inputs the numeric checks differentiate (None: every input with
a VJP whose value is a float array). Every rule must have samples: ``test_rules.py``
fails for one without, so a new rule comes with its samples here. Other test suites (the
runtime's) import this table too.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

SHAPES: list[tuple[int, ...]] = [(), (5,), (5, 1), (10, 5), (3, 1, 5)]
BROADCAST_PAIRS: list[tuple[tuple[int, ...], tuple[int, ...]]] = [
    ((5,), (10, 5)), ((10, 5), ()), ((), (5,)), ((5, 1), (5,)), ((3, 1, 5), (10, 5)),
    ((10, 1), (1, 5)),
]
PAIRS = [(s, s) for s in SHAPES] + BROADCAST_PAIRS


@dataclass
class Sample:
    env: dict[str, Any]
    wrt: tuple[str, ...] | None = None
    label: str = ""
    seed: int = 0  # for the checks' random directions (set by ``add``)
    # why the second derivative is refused here (the second-order checks then check the
    # refusal instead); "" for a sample that differentiates twice
    first_order_only: str = ""
    # inputs that are symmetric matrices by the function's contract (PyTorch's spellings
    # ``symmetric_cholesky``, ``symmetric_eigh_*`` treat the input as symmetric): the
    # checks move them only in symmetric directions
    symmetric: tuple[str, ...] = ()


_rng = np.random.default_rng(1234)


def R(shape: tuple[int, ...] = (), lo: float = -2.0, hi: float = 2.0) -> np.ndarray:
    """Uniform floats in (lo, hi)."""
    return _rng.uniform(lo, hi, shape)


def P(shape: tuple[int, ...] = ()) -> np.ndarray:
    """Positive floats, away from 0."""
    return R(shape, 0.5, 2.0)


def U(shape: tuple[int, ...] = ()) -> np.ndarray:
    """Floats inside (-1, 1), away from the ends."""
    return R(shape, -0.9, 0.9)


def S(shape: tuple[int, ...] = ()) -> np.ndarray:
    """Floats of either sign with magnitude in (0.5, 1.5): away from 0, products stay sane."""
    return np.asarray(R(shape, 0.5, 1.5) * _rng.choice([-1.0, 1.0], shape))


def B(shape: tuple[int, ...] = ()) -> np.ndarray:
    return np.asarray(_rng.random(shape) > 0.5)


def well_conditioned(shape: tuple[int, ...]) -> np.ndarray:
    n = shape[-1]
    return R(shape, -0.5, 0.5) + 2.0 * np.eye(n)


def axes_for(shape: tuple[int, ...]) -> list[Any]:
    """Every kind of ``axis`` that applies: None, each axis, a negative one, a tuple."""
    nd = len(shape)
    axes: list[Any] = [None]
    axes += list(range(nd))
    if nd >= 2:
        axes += [-1, (0, nd - 1)]
    return axes


SAMPLES: dict[str, list[Sample]] = {}


def add(name: str, *samples: Sample) -> None:
    for sample in samples:
        sample.seed = sum(len(v) for v in SAMPLES.values())
        SAMPLES.setdefault(name, []).append(sample)


def each(name: str, envs: Iterator[dict[str, Any]] | list[dict[str, Any]],
         **kw: Any) -> None:
    for env in envs:
        add(name, Sample(env, **kw))


# --- elementwise ---------------------------------------------------------------------------
_UNARY: dict[str, Callable[..., np.ndarray]] = {
    "negative": R, "positive": R, "square": R, "absolute": R, "exp": R, "expm1": R,
    "exp2": R, "sin": R, "cos": R, "tan": U, "arctan": R, "sinh": R, "cosh": R, "tanh": R,
    "arcsinh": R, "sqrt": P, "log": P, "log1p": P, "log2": P, "log10": P, "reciprocal": P,
    "arcsin": U, "arccos": U, "arctanh": U, "arccosh": lambda s: 1.0 + P(s),
    "relu": S, "sigmoid": R,
}
for _name, _make in _UNARY.items():
    each(_name, [{"x": _make(s)} for s in SHAPES])

_BINARY: dict[str, tuple[Callable[..., np.ndarray], Callable[..., np.ndarray]]] = {
    "add": (R, R), "subtract": (R, R), "multiply": (R, R), "divide": (R, P),
    "power": (P, R), "maximum": (R, R), "minimum": (R, R), "hypot": (S, S),
    "arctan2": (S, S), "logaddexp": (R, R), "remainder": (R, P),
}
for _name, (_mx, _my) in _BINARY.items():
    each(_name, [{"x": _mx(a), "y": _my(b)} for a, b in PAIRS])
# negative bases to integer powers: d/dx only (d/dy needs log(x))
add("power", Sample({"x": R((5,)), "y": np.array([2.0, 3.0, -1.0, 0.0, 4.0])}, wrt=("x",),
                    label="negative-base"))

each("clip", [{"x": R(s), "a_min": -0.5, "a_max": 0.5} for s in SHAPES])
each("clip", [{"x": R((10, 5)), "a_min": None, "a_max": 0.5},
              {"x": R((10, 5)), "a_min": -0.5, "a_max": None},
              {"x": R((10, 5)), "a_min": R((5,), -1.5, -0.2), "a_max": R((10, 1), 0.2, 1.5)},
              {"x": R((5,)), "a_min": R((3, 1, 5), -1.5, -0.2), "a_max": 1.0}])
each("where", [{"condition": B(a), "x": R(a), "y": R(b)} for a, b in PAIRS])
each("where", [{"condition": B((10, 1)), "x": R((5,)), "y": 0.0}])

# --- zero derivative -----------------------------------------------------------------------
for _name in ("sign", "floor", "ceil", "trunc", "rint", "isnan", "isinf", "isfinite"):
    each(_name, [{"x": R(s)} for s in SHAPES[:4]])
for _name in ("greater", "greater_equal", "less", "less_equal", "equal", "not_equal",
              "floor_divide"):
    each(_name, [{"x": R(a), "y": P(b)} for a, b in PAIRS[:4]])
for _name in ("logical_and", "logical_or", "logical_xor", "bitwise_and", "bitwise_or",
              "bitwise_xor"):
    each(_name, [{"x": B((10, 5)), "y": B((5,))}, {"x": B(()), "y": B(())}])
for _name in ("isclose", "allclose"):
    each(_name, [{"x": R(a), "y": R(b), "rtol": 1e-05, "atol": 1e-08, "equal_nan": False}
                 for a, b in PAIRS[:4]])
each("array_equal", [{"x": R((5,)), "y": R((5,)), "equal_nan": False},
                     {"x": R((10, 5)), "y": R((10, 5)), "equal_nan": True}])
each("logical_not", [{"x": B((5,))}])
each("invert", [{"x": B((5,))}])
each("round", [{"x": R((5,)), "decimals": 0}, {"x": R((10, 5)), "decimals": 2}])
for _name in ("argmax", "argmin", "all", "any"):
    each(_name, [{"x": R((10, 5)), "axis": a, "keepdims": k}
                 for a in (None, 0, -1) for k in (False, True)])
for _name in ("zeros_like", "ones_like", "empty_like"):
    each(_name, [{"x": R((10, 5)), "dtype": None}, {"x": R(()), "dtype": np.float32}])
each("full_like", [{"x": R((5,)), "fill_value": 2.5, "dtype": None},
                   {"x": R((5,)), "fill_value": R(()), "dtype": None},
                   {"x": R((10, 5)), "fill_value": R((5,)), "dtype": None},
                   {"x": R((10, 5)), "fill_value": R((10, 1)), "dtype": None}])
each("zeros", [{"shape": (2, 3), "dtype": None}])
each("ones", [{"shape": 4, "dtype": np.float32}])
each("full", [{"shape": (2, 3), "fill_value": 1.5, "dtype": None},
              {"shape": (2, 3), "fill_value": R(()), "dtype": None},
              {"shape": (10, 5), "fill_value": R((5,)), "dtype": None},
              {"shape": (3, 10, 5), "fill_value": R((10, 1)), "dtype": None}])
each("eye", [{"N": 3, "M": None, "k": 0, "dtype": None}, {"N": 3, "M": 4, "k": 1,
                                                          "dtype": None}])
each("arange", [{"start": 5, "stop": None, "step": None, "dtype": None},
                {"start": 1.0, "stop": 2.0, "step": 0.25, "dtype": None},
                # end points away from a change of length under the checks' perturbations
                {"start": np.array(0.3), "stop": 3.05, "step": np.array(0.5), "dtype": None},
                {"start": np.array(-1.2), "stop": 2.05, "step": None, "dtype": None},
                {"start": np.array(4.5), "stop": None, "step": None, "dtype": None}])
each("linspace", [{"start": 0.0, "stop": 1.0, "num": 5, "endpoint": True},
                  {"start": R(()), "stop": R(()), "num": 5, "endpoint": True},
                  {"start": R(()), "stop": R(()), "num": 4, "endpoint": False},
                  {"start": R(()), "stop": R(()), "num": 1, "endpoint": True},
                  {"start": R((5,)), "stop": R((5,)), "num": 3, "endpoint": True},
                  {"start": R(()), "stop": R((3, 1, 5)), "num": 2, "endpoint": False}])
each("linspace_weights", [{"c": R((5,)), "num": 5, "endpoint": True},
                          {"c": R((4, 3)), "num": 4, "endpoint": False}])
each("range_index", [{"c": R((5,))}])
for _name in ("shape", "ndim", "dtype"):
    each(_name, [{"x": R(s)} for s in SHAPES])
each("size", [{"x": R((10, 5)), "axis": None}, {"x": R((10, 5)), "axis": 1}])
each("len", [{"x": R((10, 5))}, {"x": R((5,))}])

# --- reductions ------------------------------------------------------------------------------
def reduction_envs(make: Callable[..., np.ndarray] = R) -> list[dict[str, Any]]:
    return [{"x": make(s), "axis": a, "keepdims": k}
            for s in SHAPES for a in axes_for(s) for k in (False, True)]


each("sum", reduction_envs())
each("mean", reduction_envs())
each("fsum", [{"x": R((5,))}, {"x": R((1,))}])
each("prod", reduction_envs(S))
each("max", reduction_envs())
each("min", reduction_envs())
for _name in ("var", "std"):
    each(_name, [{**env, "ddof": 0} for env in reduction_envs()])
    each(_name, [{"x": R((10, 5)), "axis": a, "ddof": 1, "keepdims": k}
                 for a in (None, 0, -1, (0, 1)) for k in (False, True)])
each("cumsum", [{"x": R(s), "axis": a} for s in SHAPES for a in axes_for(s)
                if not isinstance(a, tuple)])
each("fold_axes", [{"x": R(s), "axis": a} for s in SHAPES for a in axes_for(s)])
each("unfold_axes", [
    {"y": R((5,)), "shape": (5,), "axis": None},
    {"y": R((5, 10)), "shape": (10, 5), "axis": 0},
    {"y": R((1, 15)), "shape": (3, 1, 5), "axis": (0, 2)},
    {"y": R((1,)), "shape": (), "axis": None},
    {"y": R((3, 5, 1)), "shape": (3, 1, 5), "axis": 1},
])
each("prod_others", [{"x": S(s)} for s in [(5,), (10, 5), (3, 1, 5), (1,)]])
each("eye_mask", [{"x": R((4,))}, {"x": R((3, 2))}])
each("max_weights", [{"x": R((10, 5)), "axis": a} for a in (None, 0, (0, 1))])
each("min_weights", [{"x": R((10, 5)), "axis": a} for a in (None, -1)])

# --- products ----------------------------------------------------------------------------------
MATMUL_PAIRS = [((5,), (5,)), ((10, 5), (5,)), ((5,), (5, 3)), ((10, 5), (5, 3)),
                ((3, 10, 5), (5, 4)), ((3, 1, 4, 5), (2, 5, 3)), ((5,), (3, 5, 2)),
                ((3, 4, 5), (5,))]
DOT_PAIRS = [((), (5,)), ((5,), ()), ((), ()), ((5,), (5,)), ((10, 5), (5,)), ((5,), (5, 3)),
             ((10, 5), (5, 3)), ((3, 4, 5), (2, 5, 3)), ((5,), (2, 5, 3))]
INNER_PAIRS = [((), (5,)), ((5,), ()), ((5,), (5,)), ((10, 5), (5,)), ((5,), (3, 5)),
               ((3, 4, 5), (2, 5))]
_PRODUCTS = {"matmul": (np.matmul, MATMUL_PAIRS), "dot": (np.dot, DOT_PAIRS),
             "inner": (np.inner, INNER_PAIRS)}
for _name, (_fn, _pairs) in _PRODUCTS.items():
    for xs, ys in _pairs:
        x, y = R(xs), R(ys)
        c = R(np.shape(_fn(x, y)))
        add(_name, Sample({"x": x, "y": y}))
        add(f"{_name}_adjoint_x", Sample({"c": c, "y": y, "shape": xs}))
        add(f"{_name}_adjoint_y", Sample({"x": x, "c": c, "shape": ys}))
each("outer", [{"x": R(a), "y": R(b)} for a, b in [((5,), (3,)), ((2, 3), (4,)), ((), (3,))]])
_EINSUM = [
    ("ij,jk->ik", [(4, 5), (5, 3)]), ("ij->i", [(4, 5)]), ("i,i->", [(5,), (5,)]),
    ("ij,j->i", [(4, 5), (5,)]), ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
    ("ij,jk", [(4, 5), (5, 3)]), ("ij->ji", [(4, 5)]), ("i,j->ij", [(3,), (4,)]),
    ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 2)]), ("ijk,k->", [(2, 3, 4), (4,)]),
]
for _subs, _shapes in _EINSUM:
    add("einsum", Sample({"subscripts": _subs, "operands": [R(s) for s in _shapes],
                          "optimize": False}, label=_subs))
_EINSUM_ELLIPSIS = [
    ("...ij,...jk->...ik", [(2, 3, 4), (2, 4, 5)]), ("...ij,jk", [(3, 2, 3), (3, 4)]),
    ("i...,i...->...", [(3, 2, 1), (3, 1, 4)]), ("ij,ij->i", [(4, 1), (4, 3)]),
    ("...i,i", [(5,), (5,)]), ("i...->...", [(3, 2, 2)]),
]
for _subs, _shapes in _EINSUM_ELLIPSIS:
    add("einsum", Sample({"subscripts": _subs, "operands": [R(s) for s in _shapes],
                          "optimize": False}, label=_subs))
each("einsum_grad_subscripts", [{"subscripts": "ij,jk->ik", "shapes": ((2, 3), (3, 4)),
                                 "i": 1},
                                {"subscripts": "...ij,j", "shapes": ((5, 1, 2, 3), (3,)),
                                 "i": 0}])
each("einsum_grad_shape", [{"subscripts": "ij->i", "shapes": ((4, 5),), "i": 0},
                           {"subscripts": "i...,i...", "shapes": ((3, 1), (3, 4)), "i": 0}])

# --- linear algebra ------------------------------------------------------------------------------
each("norm", [{"x": R(s), "ord": None, "axis": None, "keepdims": False} for s in SHAPES])
each("norm", [
    {"x": R((5,)), "ord": 2, "axis": 0, "keepdims": False},
    {"x": R((10, 5)), "ord": None, "axis": 1, "keepdims": False},
    {"x": R((10, 5)), "ord": 2, "axis": 0, "keepdims": True},
    {"x": R((10, 5)), "ord": "fro", "axis": (0, 1), "keepdims": False},
    {"x": R((3, 1, 5)), "ord": "fro", "axis": (0, 2), "keepdims": True},
    {"x": R((3, 1, 5)), "ord": None, "axis": -1, "keepdims": False},
])
# every vector order (axis resolved, as binding a call does: norms.resolve_norm); values
# away from 0 and from ties of |x|
each("norm", [{"x": S((5,)), "ord": p, "axis": 0, "keepdims": False}
              for p in (1, 3, 4, 0.5, 1.5, -1, -2.5, np.inf, -np.inf)])
each("norm", [
    {"x": S((4, 6)), "ord": 3, "axis": 1, "keepdims": True},
    {"x": S((3, 1, 5)), "ord": np.inf, "axis": -1, "keepdims": False},
    {"x": S((4, 6)), "ord": -np.inf, "axis": 0, "keepdims": True},
])
# matrix orders: generic matrices (distinct singular values, no ties in row/column sums)
each("norm", [{"x": R((4, 3)), "ord": p, "axis": (0, 1), "keepdims": False}
              for p in (1, -1, np.inf, -np.inf)])
each("norm", [
    {"x": R((3, 4, 2)), "ord": 1, "axis": (-1, 0), "keepdims": True},
    {"x": R((3, 4, 2)), "ord": -np.inf, "axis": (1, 2), "keepdims": False},
])
# 2, -2, 'nuc': through the SVD's items (generic matrices: simple nonzero singular values)
each("norm", [{"x": R((4, 3)), "ord": p, "axis": (0, 1), "keepdims": False}
              for p in (2, -2, "nuc")])
each("norm", [
    {"x": R((2, 4, 3)), "ord": "nuc", "axis": (2, 1), "keepdims": True},
    {"x": R((3, 4, 2)), "ord": 2, "axis": (0, -1), "keepdims": False},
])
each("norm_gradient", [{"x": S((5,)), "out": 1.7, "ord": 3, "keepdims": False},
                       {"x": R((4, 3)), "out": 2.5, "ord": "nuc", "keepdims": False},
                       {"x": R((4, 3)), "out": np.full((1, 1), 2.5), "ord": 2,
                        "keepdims": True}])
each("inv", [{"x": well_conditioned(s)} for s in [(3, 3), (2, 3, 3), (1, 1)]])
each("solve", [
    {"a": well_conditioned((3, 3)), "b": R((3,))},
    {"a": well_conditioned((3, 3)), "b": R((3, 2))},
    {"a": well_conditioned((2, 3, 3)), "b": R((2, 3, 2))},
    {"a": well_conditioned((2, 3, 3)), "b": R((3, 2))},
    {"a": well_conditioned((2, 3, 3)), "b": R((3,))},
])
each("as_columns", [{"v": R((3,)), "b_shape": (3,)}, {"v": R((3, 2)), "b_shape": (3, 2)},
                    {"v": R((2, 3)), "b_shape": (3,)}])
each("det", [{"x": well_conditioned(s)} for s in [(3, 3), (2, 3, 3), (1, 1)]])
_TRACES = [((4, 4), 0, 0, 1), ((3, 4), 1, 0, 1), ((2, 3, 4), -1, 1, 2), ((3, 4, 2), 0, 0, -1)]
for _shape, _off, _a1, _a2 in _TRACES:
    _x = R(_shape)
    _params = {"offset": _off, "axis1": _a1, "axis2": _a2}
    add("trace", Sample({"x": _x, **_params}))
    add("trace_adjoint", Sample({"c": R(np.shape(np.trace(_x, _off, _a1, _a2))),
                                 "shape": _shape, **_params}))
for _shape, _k in [((5,), 0), ((4,), 1), ((4,), -2), ((4, 4), 0), ((3, 5), 1), ((5, 3), -1)]:
    _x = R(_shape)
    add("diag", Sample({"x": _x, "k": _k}))
    add("diag_adjoint", Sample({"c": R(np.shape(np.diag(_x, _k))), "shape": _shape, "k": _k}))

# --- shape ------------------------------------------------------------------------------------
each("transpose", [{"x": R((10, 5)), "axes": None}, {"x": R((3, 1, 5)), "axes": (1, 2, 0)},
                   {"x": R((3, 1, 5)), "axes": (-1, 0, 1)}, {"x": R((5,)), "axes": None},
                   {"x": R(()), "axes": None}])
each("inverse_permutation", [{"axes": (1, 2, 0)}, {"axes": None}])
each("reshape", [{"x": R((10, 5)), "shape": (5, 10)}, {"x": R((3, 1, 5)), "shape": (15,)},
                 {"x": R((5,)), "shape": (5, 1)}, {"x": R(()), "shape": (1,)},
                 {"x": R((10, 5)), "shape": -1}])
each("squeeze", [{"x": R((5, 1)), "axis": None}, {"x": R((3, 1, 5)), "axis": 1},
                 {"x": R((5, 1)), "axis": -1}, {"x": R(()), "axis": None}])
each("expand_dims", [{"x": R((5,)), "axis": 0}, {"x": R((10, 5)), "axis": -1},
                     {"x": R(()), "axis": 0}, {"x": R((3, 1, 5)), "axis": (0, 2)}])
each("ravel", [{"x": R(s)} for s in SHAPES])
each("copy", [{"x": R(s)} for s in SHAPES])
each("astype", [{"x": R(s), "dtype": np.float64} for s in SHAPES])
each("broadcast_to", [{"x": R((5,)), "shape": (10, 5)}, {"x": R((5, 1)), "shape": (5, 4)},
                      {"x": R(()), "shape": (3,)}, {"x": R((3, 1, 5)), "shape": (2, 3, 4, 5)}])
each("moveaxis", [{"x": R((3, 1, 5)), "source": 0, "destination": -1},
                  {"x": R((10, 5)), "source": 0, "destination": 1},
                  {"x": R((3, 4, 5)), "source": (0, 1), "destination": (1, 2)}])
each("swapaxes", [{"x": R((10, 5)), "axis1": 0, "axis2": 1},
                  {"x": R((3, 1, 5)), "axis1": 0, "axis2": -1}])
each("flip", [{"x": R((5,)), "axis": None}, {"x": R((10, 5)), "axis": 0},
              {"x": R((3, 1, 5)), "axis": (0, 2)}, {"x": R((10, 5)), "axis": None}])
each("concatenate", [{"xs": [R((5,)), R((3,))], "axis": 0},
                     {"xs": [R((10, 5)), R((2, 5))], "axis": 0},
                     {"xs": [R((10, 5)), R((10, 3)), R((10, 1))], "axis": -1}])
each("concat_index", [{"xs_shape": ((10, 5), (10, 3)), "axis": -1, "i": 1}])
each("stack", [{"xs": [R(()), R(())], "axis": 0},
               {"xs": [R((5,)), R((5,)), R((5,))], "axis": 0},
               {"xs": [R((10, 5)), R((10, 5))], "axis": -1},
               {"xs": [R((10, 5)), R((10, 5))], "axis": 1}])
each("stack_index", [{"xs_shape": ((10, 5), (10, 5)), "axis": -1, "i": 1}])
each("vstack", [{"tup": [R((5,)), R((5,))]}, {"tup": [R((10, 5)), R((5,))]},
                {"tup": [R(()), R(())]}, {"tup": [R((3, 1, 5)), R((2, 1, 5))]}])
each("hstack", [{"tup": [R((5,)), R((3,))]}, {"tup": [R((10, 5)), R((10, 2))]},
                {"tup": [R(()), R((3,))]}, {"tup": [R((3, 1, 5)), R((3, 2, 5))]}])
each("dstack", [{"tup": [R((5,)), R((5,))]}, {"tup": [R((10, 5)), R((10, 5))]},
                {"tup": [R(()), R(())]}, {"tup": [R((2, 3, 4)), R((2, 3, 1))]}])
each("column_stack", [{"tup": [R((5,)), R((5,))]}, {"tup": [R((5,)), R((5, 2))]},
                      {"tup": [R(()), R(())]}])
each("append", [{"arr": R((5,)), "values": R((3,)), "axis": None},
                {"arr": R((10, 5)), "values": R(()), "axis": None},
                {"arr": R((10, 5)), "values": R((2, 5)), "axis": 0},
                {"arr": R((3, 1, 5)), "values": R((3, 1, 2)), "axis": -1}])
for _name in ("atleast_1d", "atleast_2d", "atleast_3d"):
    each(_name, [{"x": R(s)} for s in SHAPES])
each("joined_index", [{"xs_shape": ((5,), (3,)), "how": "h", "i": 1},
                      {"xs_shape": ((5,), (2, 5)), "how": "v", "i": 0}])
each("append_index", [{"arr_shape": (2, 3), "values_shape": (4,), "axis": None, "i": 1}])
_TILES = [((5,), 2), ((10, 5), (2, 1)), ((5, 1), (2, 3, 1)), ((3, 1, 5), 2), ((), 3)]
for _shape, _reps in _TILES:
    _x = R(_shape)
    add("tile", Sample({"x": _x, "reps": _reps}))
    add("tile_adjoint", Sample({"c": R(np.shape(np.tile(_x, _reps))), "shape": _shape,
                                "reps": _reps}))
_REPEATS = [((5,), 2, None), ((10, 5), 2, 0), ((5, 1), np.array([1, 2, 0, 3, 1]), 0),
            ((10, 5), 3, None), ((3, 1, 5), 2, -1)]
for _shape, _rep, _axis in _REPEATS:
    _x = R(_shape)
    add("repeat", Sample({"x": _x, "repeats": _rep, "axis": _axis}))
    add("repeat_adjoint", Sample({"c": R(np.shape(np.repeat(_x, _rep, _axis))),
                                  "shape": _shape, "repeats": _rep, "axis": _axis}))

# --- helpers ----------------------------------------------------------------------------------
_INDEXES = [((5,), 2), ((10, 5), (slice(1, 4), 0)), ((10, 5), np.array([0, 2, 2])),
            ((10, 5), (Ellipsis, 1)), ((5,), (None, slice(None))), ((3, 1, 5), (0, 0, 4)),
            ((10, 5), (np.array([1, 1, 3]), np.array([0, 0, 4])))]
_MASK = _rng.random((10, 5)) > 0.5
_INDEXES.append(((10, 5), _MASK))
for _shape, _index in _INDEXES:
    _x = R(_shape)
    add("getitem", Sample({"x": _x, "index": _index}))
    add("scatter_add", Sample({"x": R(np.shape(_x[_index])), "shape": _shape,
                               "index": _index}))
    # NumPy's write: with repeated positions (np.array([0, 2, 2])) the last write stays
    add("setitem", Sample({"x": _x, "values": R(np.shape(_x[_index])), "index": _index}))
    add("take_written", Sample({"x": _x, "index": _index}))
    add("scatter_written", Sample({"x": R(np.shape(_x[_index])), "shape": _shape,
                                   "index": _index}))
add("setitem", Sample({"x": R((10, 5)), "values": R((5,)), "index": np.array([4, 1, 4])},
                      label="values broadcast over repeated rows"))
add("setitem", Sample({"x": R((10, 5)), "values": R(()), "index": (slice(None), [3, 3])},
                      label="scalar into repeated columns"))
each("unbroadcast", [{"x": R((10, 5)), "shape": (5,)}, {"x": R((10, 5)), "shape": (1, 5)},
                     {"x": R((3, 10, 5)), "shape": (10, 1)}, {"x": R((5,)), "shape": (5,)},
                     {"x": R((5,)), "shape": ()}])
each("rebroadcast", [{"x": R((5,)), "shape": (10, 5)}, {"x": R((10, 1)), "shape": (10, 5)},
                     {"x": R(()), "shape": (3,)}, {"x": R((5,)), "shape": (5,)}])
each("unreduce", [{"x": R((5,)), "shape": (10, 5), "axis": 0, "keepdims": False},
                  {"x": R(()), "shape": (10, 5), "axis": None, "keepdims": False},
                  {"x": R((10, 1)), "shape": (10, 5), "axis": 1, "keepdims": True},
                  {"x": R((1,)), "shape": (3, 1, 5), "axis": (0, 2), "keepdims": False},
                  {"x": R(()), "shape": (), "axis": None, "keepdims": False}])
each("reduced_count", [{"shape": (10, 5), "axis": 0}, {"shape": (3, 1, 5), "axis": None}])
each("clip_mask", [{"x": R((10, 5)), "a_min": -0.5, "a_max": 0.5},
                   {"x": R((5,)), "a_min": None, "a_max": 0.5}])

# --- runtime operations (srcgrad/rules/runtime_ops.py) -------------------------------------------
each("softmax", [{"x": R(s), "axis": a} for s in [(5,), (10, 5), (3, 1, 5)] for a in (-1, 0)])
each("log_softmax", [{"x": R(s), "axis": a} for s in [(5,), (10, 5), (3, 1, 5)]
                     for a in (-1, 0)])
each("select", [{"x": R((10, 5)), "index": 3}, {"x": R((10, 5)), "index": (slice(None), 2)},
                {"x": R((3, 1, 5)), "index": (Ellipsis, -1)}])
each("slice", [{"x": R((10, 5)), "index": slice(2, 7)},
               {"x": R((10, 5)), "index": (slice(None), slice(1, 5, 2))}])
each("index_put", [{"x": R((10, 5)), "values": R((5,)), "index": 3},
                   {"x": R((10, 5)), "values": R(()), "index": (slice(1, 3), 0)},
                   {"x": R((5,)), "values": R((2,)), "index": np.array([0, 3])}])
each("copy_into", [{"x": R((10, 5)), "src": R((5,))}, {"x": R((5,)), "src": R((5,))}])
each("fill", [{"x": R((10, 5)), "value": R(())}])
each("take_flat", [{"x": R((10, 5)), "region": np.array([[0, 7], [12, 49]])}])
each("put_flat", [{"x": R((2, 2)), "shape": (10, 5), "region": np.array([[0, 7], [12, 49]])}])
each("amax", reduction_envs())
each("amin", reduction_envs())
_TIED = np.array([[1.0, 3.0, 3.0], [2.0, 0.0, 2.0]])
each("tie_share", [{"x": _TIED, "out": np.max(_TIED, axis=a, keepdims=k), "axis": a,
                    "keepdims": k} for a in (None, 1, (0, 1)) for k in (False, True)])

from . import (  # noqa: E402,F401  (each area's samples, one line each)
    samples_attn,  # issue 16: einsum cotangents with subscripts resolved when compiling
    samples_contract,  # issue 16: einsum adjoints as matmul
    samples_elem,  # issue 14's rules
    samples_foreign,  # issue 17: copies (a lazily broadcast cotangent's count)
    samples_forms,  # forms: np.tri, np.identity
    samples_linalg,  # linalg
    samples_masks,  # issue 16: a selection's adjoint as a product on large arrays
    samples_mlp,  # issue 16: the max's/min's VJP as one primitive
    samples_more,  # issue 14: np.gradient, partition, select, the complex parts
    samples_multi,  # tuple-returning functions
    samples_nn,  # sg.nn rules
    samples_shape,  # issue 14: shape, joining, products
)

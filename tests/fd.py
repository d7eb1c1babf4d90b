"""Central finite differences: the one numerical reference the whole suite checks derivatives
against (compiler, rules, runtime, fuzzer, benchmarks). Nothing here uses srcgrad, so a
wrong derivative rule cannot make its own reference agree with it.

Conventions, the same for every helper:

- everything is computed in float64 on copies: float32 arrays, NumPy float scalars and
  Python floats are promoted first (a float32 reference would carry ~1e-3 relative noise at
  this step), ints, bools, ``None`` and other values pass through untouched;
- the step of one element is ``eps * max(1, |x_i|)`` (relative for large values, so the
  rounding error ``~1e-16 |f| / h`` does not grow with ``|x|``); a directional step is
  ``eps * max(1, max |x|)`` over the perturbed arguments;
- an argument is given back to the function in its own kind (Python float, NumPy scalar,
  array), so type-dependent code paths of the function are the ones measured;
- ``place`` is a position (int) or a keyword name (str).

Helpers: :func:`numeric_gradient` (d<seed, f>/dx), :func:`numeric_jacobian`
(shape ``out.shape + x.shape``), :func:`numeric_hessian` (differences of a gradient
function), :func:`directional_derivative` (``(f(x + h t) - f(x - h t)) / 2h``, nested like
the result) and :func:`assert_close`.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

EPS = 1e-6
RTOL = 1e-6
ATOL = 1e-6

Place = int | str


# --- reading results ------------------------------------------------------------------------

def _is_number_leaf(value: Any) -> bool:
    """A leaf that can carry a derivative (ints, bools and None cannot)."""
    return value is not None and not isinstance(value, (bool, int, np.integer, np.bool_))


def inner(out: Any, seed: Any) -> float:
    """``<seed, out>`` over nested tuples/lists; a ``None`` seed leaf or an int/None output
    leaf contributes nothing (it has no cotangent)."""
    if isinstance(out, (tuple, list)) and isinstance(seed, (tuple, list)):
        return sum(inner(o, s) for o, s in zip(out, seed, strict=True))
    if seed is None or not _is_number_leaf(out):
        return 0.0
    return float(np.sum(np.asarray(out, dtype=np.float64) * np.asarray(seed, dtype=np.float64)))


def scalarize(out: Any, seed: Any = None) -> float:
    """``<seed, out>`` (nested results allowed); ``out`` itself when there is no seed."""
    if seed is None:
        return float(np.asarray(out, dtype=np.float64).reshape(()))
    return inner(out, seed)


def resolve_wrt(fn: Callable[..., Any], wrt: Any, nargs: int) -> list[Place]:
    """Positions (ints) or keyword names of the arguments ``wrt`` names, in ``wrt``'s order.

    A name of a parameter passed positionally becomes its position; a name of one passed by
    keyword stays a name.
    """
    names = list(inspect.signature(fn).parameters)
    places: list[Place] = []
    for w in wrt if isinstance(wrt, tuple) else (wrt,):
        if isinstance(w, str) and names.index(w) < nargs:
            places.append(names.index(w))
        else:
            places.append(w)
    return places


# --- argument handling ----------------------------------------------------------------------

def _as_float64(value: Any) -> Any:
    """Float arguments in float64 (the reference is always computed in double precision)."""
    if isinstance(value, np.floating):  # before float: np.float64 is a float subclass
        return np.float64(value)
    if isinstance(value, float):
        return float(value)
    if isinstance(value, np.ndarray) and value.dtype.kind == "f":
        return value.astype(np.float64)
    return value


def _like(original: Any, point: np.ndarray) -> Any:
    """``point`` in the kind of the argument it replaces (float, NumPy scalar, array)."""
    if isinstance(original, np.generic):  # before float: np.float64 is a float subclass
        return np.float64(point)
    if isinstance(original, float):
        return float(point)
    return np.array(point, dtype=np.float64)


class _Call:
    """``fn`` with its arguments in float64, any of which can be replaced by a point."""

    def __init__(self, fn: Callable[..., Any], args: Sequence[Any],
                 kwargs: Mapping[str, Any] | None) -> None:
        self.fn = fn
        self.args = [_as_float64(a) for a in args]
        self.kwargs = {k: _as_float64(v) for k, v in (kwargs or {}).items()}

    def get(self, place: Place) -> Any:
        return self.args[place] if isinstance(place, int) else self.kwargs[place]

    def point(self, place: Place) -> np.ndarray:
        return np.array(self.get(place), dtype=np.float64)

    def __call__(self, points: Mapping[Place, np.ndarray]) -> Any:
        args, kwargs = list(self.args), dict(self.kwargs)
        for place, point in points.items():
            value = _like(self.get(place), point)
            if isinstance(place, int):
                args[place] = value
            else:
                kwargs[place] = value
        return self.fn(*args, **kwargs)


# --- the differences ------------------------------------------------------------------------

def _coordinate_differences(call: _Call, place: Place, reduce: Callable[[Any], np.ndarray],
                            eps: float) -> np.ndarray:
    """``d reduce(fn) / d x`` element by element: shape ``reduce(out).shape + x.shape``."""
    x = call.point(place)
    columns = []
    for index in np.ndindex(x.shape):
        h = eps * max(1.0, abs(float(x[index])))
        up, down = x.copy(), x.copy()
        up[index] += h
        down[index] -= h
        columns.append((reduce(call({place: up})) - reduce(call({place: down}))) / (2.0 * h))
    if not columns:  # an empty argument
        return np.zeros(np.shape(reduce(call({}))) + x.shape)
    stacked = np.stack(columns, axis=-1)
    return stacked.reshape(stacked.shape[:-1] + x.shape)


def numeric_gradient(fn: Callable[..., Any], args: Sequence[Any],
                     kwargs: Mapping[str, Any] | None, place: Place, seed: Any = None,
                     eps: float = EPS) -> np.ndarray:
    """d<seed, fn(*args, **kwargs)> / d(argument at ``place``), shaped like the argument (a
    0-d array for a scalar). Without a seed ``fn`` must return one number."""
    return _coordinate_differences(_Call(fn, args, kwargs), place,
                                   lambda out: np.float64(scalarize(out, seed)), eps)


def numeric_jacobian(fn: Callable[..., Any], args: Sequence[Any], place: Place = 0,
                     kwargs: Mapping[str, Any] | None = None, eps: float = EPS) -> np.ndarray:
    """d fn / d(argument at ``place``) for an array-valued ``fn``: ``out.shape + x.shape``."""
    return _coordinate_differences(_Call(fn, args, kwargs), place,
                                   lambda out: np.asarray(out, dtype=np.float64), eps)


def numeric_hessian(grad_fn: Callable[..., Any], args: Sequence[Any], place: Place = 0,
                    kwargs: Mapping[str, Any] | None = None, eps: float = EPS) -> np.ndarray:
    """Second derivatives as differences of an (exact) gradient function: the Jacobian of
    ``grad_fn``, ``H[..., j] = d grad / d x_j``. One level of differences only, so it is as
    accurate as a first-order check (differences of differences would lose half the digits).
    """
    return numeric_jacobian(grad_fn, args, place, kwargs, eps)


def numeric_second_differences(fn: Callable[..., Any], args: Sequence[Any],
                               kwargs: Mapping[str, Any] | None, place: Place,
                               eps: float = 1e-4) -> np.ndarray:
    """d2 fn / dx2 for the argument at ``place`` from ``fn`` alone (no gradient function,
    so the reference owes nothing to srcgrad: the fuzzer's second-order check), shaped
    ``x.shape + x.shape``. Second differences at steps ``eps`` and ``eps / 2`` combined by
    Richardson extrapolation, ``(4 D(eps/2) - D(eps)) / 3``: that cancels the ~eps**2
    truncation term, which at a point of high curvature (a cubed value inside sin(expm1(.)))
    was 0.1% of the Hessian at eps=1e-4; what is left is ~eps**4 plus ~1e-16 |f| / eps**2."""
    call = _Call(fn, args, kwargs)
    x = call.point(place)
    flat = x.reshape(-1)
    n = flat.size

    def at(delta: np.ndarray) -> float:
        return scalarize(call({place: (flat + delta).reshape(x.shape)}))

    def second_differences(step: float) -> np.ndarray:
        steps = step * np.maximum(1.0, np.abs(flat))
        hess = np.zeros((n, n))
        for i in range(n):
            for j in range(i, n):
                ei, ej = np.zeros(n), np.zeros(n)
                ei[i], ej[j] = steps[i], steps[j]
                total = at(ei + ej) - at(ei - ej) - at(ej - ei) + at(-ei - ej)
                hess[i, j] = hess[j, i] = total / (4.0 * steps[i] * steps[j])
        return hess

    hess = (4.0 * second_differences(eps / 2) - second_differences(eps)) / 3.0
    return hess.reshape(x.shape + x.shape)


def directional_derivative(fn: Callable[..., Any], args: Sequence[Any],
                           tangents: Mapping[Place, Any],
                           kwargs: Mapping[str, Any] | None = None, eps: float = EPS) -> Any:
    """``(fn(x + h t) - fn(x - h t)) / 2h`` with every argument in ``tangents`` moved along
    its tangent at once, nested like the result (``None`` where a leaf is an int or None)."""
    call = _Call(fn, args, kwargs)
    points = {p: call.point(p) for p in tangents}
    size = max((float(np.max(np.abs(x), initial=0.0)) for x in points.values()), default=0.0)
    h = eps * max(1.0, size)

    def moved(sign: float) -> Any:
        return call({p: x + sign * h * np.asarray(tangents[p], dtype=np.float64)
                     for p, x in points.items()})

    return _difference_tree(moved(1.0), moved(-1.0), h)


def _difference_tree(hi: Any, lo: Any, h: float) -> Any:
    if isinstance(hi, (tuple, list)):
        return type(hi)(_difference_tree(a, b, h) for a, b in zip(hi, lo, strict=True))
    if not _is_number_leaf(hi):
        return None
    return (np.asarray(hi, dtype=np.float64) - np.asarray(lo, dtype=np.float64)) / (2.0 * h)


# --- comparing ------------------------------------------------------------------------------

def assert_close(computed: Any, expected: Any, rtol: float = RTOL, atol: float = ATOL,
                 what: str = "gradient") -> None:
    """``computed`` (any float type) equals ``expected`` within tolerances, same shape."""
    got = np.asarray(computed, dtype=np.float64)
    want = np.asarray(expected, dtype=np.float64)
    assert got.shape == want.shape, f"{what}: shape {got.shape}, expected {want.shape}"
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, err_msg=what)


# --- structured arguments (dicts, lists, tuples, namedtuples, dataclasses) --------------------

def _children(value: Any) -> list[tuple[Any, Any]] | None:
    """(key, child) pairs of a container, None for a leaf (written here again, not taken
    from srcgrad, so the reference stays independent of what it checks)."""
    if type(value) is dict:
        return list(value.items())
    if isinstance(value, (tuple, list)):
        return list(enumerate(value))
    if hasattr(value, "__dataclass_fields__") and not isinstance(value, type):
        return [(n, getattr(value, n)) for n in value.__dataclass_fields__]
    return None


def _rebuilt(value: Any, items: list[Any]) -> Any:
    if type(value) is dict:
        return dict(zip(value, items))
    if type(value) in (tuple, list):
        return type(value)(items)
    if isinstance(value, tuple):  # a namedtuple
        return type(value)(*items)
    obj = object.__new__(type(value))
    for n, v in zip(value.__dataclass_fields__, items):
        object.__setattr__(obj, n, v)
    return obj


def tree_map_paths(value: Any, fn: Callable[[tuple[Any, ...], Any], Any],
                   path: tuple[Any, ...] = ()) -> Any:
    """``value`` with each leaf replaced by ``fn(path, leaf)``, containers of the same types."""
    items = _children(value)
    if items is None:
        return fn(path, value)
    return _rebuilt(value, [tree_map_paths(c, fn, (*path, k)) for k, c in items])


def _with_leaf(value: Any, path: tuple[Any, ...], new: Any) -> Any:
    return tree_map_paths(value, lambda p, leaf: new if p == path else leaf)


def numeric_tree_gradient(fn: Callable[..., Any], args: Sequence[Any], place: int,
                          seed: Any = None, kwargs: Mapping[str, Any] | None = None) -> Any:
    """The gradient of ``fn`` w.r.t. the structured argument at ``place``, leaf by leaf by
    central differences, structured like the argument (None for int, bool, str, None leaves)."""
    container = args[place]

    def leaf_gradient(path: tuple[Any, ...], leaf: Any) -> Any:
        if not _is_number_leaf(leaf) or isinstance(leaf, str):
            return None

        def moved(v: Any) -> Any:
            a = list(args)
            a[place] = _with_leaf(container, path, v)
            return fn(*a, **(kwargs or {}))
        return numeric_gradient(moved, [leaf], None, 0, seed)
    return tree_map_paths(container, leaf_gradient)


def directional_tree_difference(moved: Callable[[float], Any], eps: float = EPS) -> Any:
    """``(moved(h) - moved(-h)) / 2h`` leaf by leaf, structured like ``moved``'s result (any
    containers: dicts, dataclasses, namedtuples, lists); None for str, int and None leaves.
    ``moved(s)`` evaluates the function at the point moved by ``s`` along the direction."""
    hi, lo = moved(eps), moved(-eps)
    low = dict(_leaves_by_path(lo))

    def difference(path: tuple[Any, ...], leaf: Any) -> Any:
        if not _is_number_leaf(leaf) or isinstance(leaf, str):
            return None
        return (np.asarray(leaf, dtype=np.float64)
                - np.asarray(low[path], dtype=np.float64)) / (2.0 * eps)
    return tree_map_paths(hi, difference)


def _leaves_by_path(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, Any]]:
    items = _children(value)
    if items is None:
        return [(path, value)]
    return [pair for k, c in items for pair in _leaves_by_path(c, (*path, k))]


def assert_tree_close(computed: Any, expected: Any, rtol: float = RTOL,
                      atol: float = ATOL) -> None:
    """Same containers (types, keys) and, leaf by leaf, close values; each gradient leaf of
    the argument's type (float for float, the NumPy scalar type, an ndarray)."""
    want_items = _children(expected)
    if want_items is None:
        if expected is None or isinstance(expected, str):
            assert computed == expected, f"expected {expected!r}, got {computed!r}"
            return
        assert_close(computed, expected, rtol, atol)
        return
    assert type(computed) is type(expected), f"{type(computed)} is not {type(expected)}"
    got_items = _children(computed)
    assert [k for k, _ in got_items] == [k for k, _ in want_items]
    for (_, g), (_, w) in zip(got_items, want_items):
        assert_tree_close(g, w, rtol, atol)


def assert_leaf_types(gradient: Any, argument: Any) -> None:
    """Each gradient leaf has its argument leaf's type: float -> float, np.float64 ->
    np.float64, ndarray -> ndarray of the same shape; a static leaf -> None."""
    def check(path: tuple[Any, ...], leaf: Any) -> None:
        g = gradient
        for k in path:
            g = getattr(g, k) if isinstance(k, str) and not isinstance(g, dict) else g[k]
        if not _is_number_leaf(leaf) or isinstance(leaf, str):
            assert g is None, f"{path}: expected None, got {g!r}"
        else:
            assert type(g) is type(leaf), f"{path}: {type(g)} for a {type(leaf)} leaf"
            assert np.shape(g) == np.shape(leaf), f"{path}: shape {np.shape(g)}"
    tree_map_paths(argument, check)

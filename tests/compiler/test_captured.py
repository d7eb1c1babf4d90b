"""Captured state is read when the derivative runs (API.md "Captured values", DESIGN.md 11).

Module globals, closure cells and callees' default values are read by the emitted code on
each call, exactly as the user's function reads them: in-place changes, refilled buffers
and rebound names are seen by the next call without ``sg.clear_cache()``. What the code
specialised on (type, ndim, dtype of an array; the value of an int or None) is guarded, and
a change recompiles. Every gradient is checked against central finite differences in reverse
and forward mode, and at second order where the function is not linear in its argument.
"""

from __future__ import annotations

import sys

import captured_config as cfg
import numpy as np
import pytest
from fd import assert_close, numeric_gradient

import srcgrad as sg

DATA = np.linspace(-1.0, 1.0, 12).reshape(4, 3)
TARGETS = np.linspace(0.5, -0.5, 4)
OFFSET = np.array([0.3, -0.1, 0.2])
SCALE = 0.123456789
STEPS = 2
MODE = None
BIG = np.random.default_rng(0).normal(size=(1000, 20))
HUGE = np.random.default_rng(1).normal(size=(5000, 20))
G = np.array([1.5, -0.5, 2.0, 0.25])

X = np.array([0.4, -0.7, 0.9])


@pytest.fixture
def restore_globals():
    module = sys.modules[__name__]
    saved = {k: getattr(module, k) for k in ("DATA", "TARGETS", "OFFSET", "SCALE", "STEPS",
                                             "MODE", "G", "COEFFS")}
    copies = {k: v.copy() for k, v in saved.items() if isinstance(v, np.ndarray)}
    yield module
    for k, v in saved.items():
        setattr(module, k, v)
        if k in copies:
            v[...] = copies[k]


def numeric_hessian(fn, x, h=1e-4):
    """Second differences of ``fn`` itself (no derivative of srcgrad's in the reference)."""
    n = x.size
    out = np.zeros((n, n))
    for i in range(n):
        for j in range(n):
            ei, ej = np.eye(n)[i] * h, np.eye(n)[j] * h
            out[i, j] = (fn(x + ei + ej) - fn(x + ei - ej) - fn(x - ei + ej)
                         + fn(x - ei - ej)) / (4 * h * h)
    return out


_derived: dict = {}


def check_all_modes(fn, x, second_order=True):
    """Reverse, forward (one tangent per axis) and second order, against differences;
    the derived functions are made once per ``fn``, so compilations can be counted."""
    if fn not in _derived:
        _derived[fn] = sg.grad(fn), sg.jvp(fn), sg.hessian(fn)
    grad, fw, hessian = _derived[fn]
    want = numeric_gradient(fn, (x,), {}, 0)
    assert_close(grad(x), want)
    for k in range(x.size):
        t = np.eye(x.size)[k]
        value, tangent = fw(x, t)
        assert value == pytest.approx(fn(x))
        assert tangent == pytest.approx(want[k], rel=1e-6, abs=1e-6)
    if second_order:
        assert_close(hessian(x), numeric_hessian(fn, x), rtol=1e-5, atol=1e-5)


# --- module globals changed in place ---------------------------------------------------

def loss_over_data(w):
    pred = np.tanh(DATA @ w)
    return np.sum((pred - TARGETS) ** 2)


def test_a_module_global_changed_in_place_gives_the_new_gradient(restore_globals,
                                                                  compiles):
    df = sg.grad(loss_over_data)
    before = df(X)
    check_all_modes(loss_over_data, X)
    n = compiles["n"]
    DATA[1] = [2.0, -3.0, 0.5]
    TARGETS[:] *= -2.0
    after = df(X)
    assert not np.allclose(before, after)
    assert_close(after, numeric_gradient(loss_over_data, (X,), {}, 0))
    check_all_modes(loss_over_data, X)
    assert compiles["n"] == n  # the data changed, not what the code specialised on


def rows_loop(w):
    s = 0.0
    for row in DATA:
        s = s + np.sin(np.dot(row, w)) * w[0]
    return s


def rows_enumerate_zip(w):
    s = 0.0
    for k, (row, t) in enumerate(zip(DATA, TARGETS)):
        s = s + (k + 1) * (np.dot(row, w) - t) ** 2
    return s


def rows_by_index(w, i):
    return np.sum(np.exp(DATA[i] * w))


@pytest.mark.parametrize("fn", [rows_loop, rows_enumerate_zip])
def test_loops_over_a_global_array_run_over_its_rows_at_run_time(fn, restore_globals,
                                                                 compiles):
    check_all_modes(fn, X)
    text = sg.source(sg.grad(fn), X)
    assert "for " in text and "range(" in text  # a run-time loop, not one unrolled
    check_all_modes(fn, X)
    restore_globals.DATA = np.linspace(2.0, -1.0, 21).reshape(7, 3)  # more rows
    restore_globals.TARGETS = np.linspace(0.1, 0.7, 7)
    n = compiles["n"]
    check_all_modes(fn, X)
    assert compiles["n"] == n  # same kinds: the same code runs over the new rows


@pytest.mark.parametrize("i", [0, 2, -1])
def test_a_global_array_indexed_at_run_time_reads_the_current_rows(i, restore_globals):
    d = sg.grad(rows_by_index)
    assert_close(d(X, i), numeric_gradient(rows_by_index, (X, i), {}, 0))
    DATA[i] = [0.1, 0.2, 0.3]
    assert_close(d(X, i), numeric_gradient(rows_by_index, (X, i), {}, 0))


def test_big_module_level_data_compiles_to_code_as_short_as_its_text(restore_globals):
    def over_big(w):
        return np.sum(np.tanh(BIG @ w) ** 2)

    def over_huge(w):
        return np.sum(np.tanh(HUGE @ w) ** 2)

    w = np.linspace(-0.1, 0.1, 20)
    for fn, data in ((over_big, BIG), (over_huge, HUGE)):
        df = sg.grad(fn)
        text = sg.source(df, w)
        assert len(text) < 2000, len(text)
        assert "array(" not in text
        want = 2 * data.T @ (np.tanh(data @ w) * (1 - np.tanh(data @ w) ** 2))
        assert_close(df(w), want)


# --- rebinding, and what the code specialised on ----------------------------------------

def shifted(x):
    return np.sum(np.sin(x + OFFSET) * SCALE)


def test_a_rebound_global_array_of_the_same_kind_is_read_without_recompiling(
        restore_globals, compiles):
    check_all_modes(shifted, X)
    check_all_modes(shifted, X)
    n = compiles["n"]
    restore_globals.OFFSET = np.array([1.0, 2.0, -3.0])
    check_all_modes(shifted, X)
    assert compiles["n"] == n


def test_a_captured_float_is_read_at_run_time_never_a_literal(restore_globals, compiles):
    df = sg.grad(shifted)
    assert "0.123456789" not in sg.source(df, X)
    assert_close(df(X), numeric_gradient(shifted, (X,), {}, 0))
    restore_globals.SCALE = -2.5
    assert_close(df(X), numeric_gradient(shifted, (X,), {}, 0))
    assert compiles["n"] == 1


@pytest.mark.parametrize("new", [
    np.array([[1.0, 2.0, 3.0]]),  # ndim 2: broadcasts, another result shape
    np.array([1.0, 2.0, 3.0], dtype=np.float32),  # another dtype
    np.float64(0.5),  # a NumPy scalar
    0.75,  # a Python float
])
def test_a_global_of_another_type_ndim_or_dtype_recompiles(new, restore_globals, compiles):
    df = sg.grad(shifted)
    df(X)
    assert compiles["n"] == 1
    restore_globals.OFFSET = new
    assert_close(df(X), numeric_gradient(shifted, (X,), {}, 0), rtol=1e-5)
    assert compiles["n"] == 2
    check_all_modes(shifted, X)


def repeated(x):
    y = x
    for _ in range(STEPS):
        y = np.sin(y) * 1.5
    if MODE is None:
        return np.sum(y)
    return np.sum(y * y)


def test_a_captured_int_or_none_change_recompiles(restore_globals, compiles):
    df = sg.grad(repeated)
    assert_close(df(X), numeric_gradient(repeated, (X,), {}, 0))
    df(X)
    assert compiles["n"] == 1
    restore_globals.STEPS = 3
    assert_close(df(X), numeric_gradient(repeated, (X,), {}, 0))
    assert compiles["n"] == 2
    restore_globals.MODE = "squared"
    check_all_modes(repeated, X)
    restore_globals.STEPS = 2
    restore_globals.MODE = None
    assert_close(df(X), numeric_gradient(repeated, (X,), {}, 0))


# --- closure cells ------------------------------------------------------------------------

def make_minibatch_loss():
    bufX = np.zeros((5, 3))
    bufY = np.zeros(5)

    def loss(w):
        r = np.tanh(bufX @ w) - bufY
        return np.mean(r * r)

    return loss, bufX, bufY


def test_a_closure_buffer_refilled_in_place_gives_each_batch_its_gradient(compiles):
    loss, bufX, bufY = make_minibatch_loss()
    rng = np.random.default_rng(3)
    df = sg.grad(loss)
    grads = []
    for batch in range(3):
        bufX[:] = rng.normal(size=bufX.shape)  # the next minibatch
        bufY[:] = rng.normal(size=bufY.shape)
        got = df(X)
        assert_close(got, numeric_gradient(loss, (X,), {}, 0))
        check_all_modes(loss, X)
        grads.append(got)
        if batch == 0:
            n = compiles["n"]
    assert not np.allclose(grads[0], grads[1])
    assert compiles["n"] == n  # compiled for the first batch only


def test_a_rebound_closure_cell_is_read_by_the_next_call():
    scale = np.array([1.0, 2.0, 3.0])

    def f(x):
        return np.sum(np.cos(x) * scale)

    df = sg.grad(f)
    check_all_modes(f, X)
    scale = np.array([-1.0, 0.5, 4.0])  # noqa: F841  (rebinds the cell)
    assert_close(df(X), -np.sin(X) * np.array([-1.0, 0.5, 4.0]))
    check_all_modes(f, X)


# --- defaults -------------------------------------------------------------------------------

def weighted(v, weights=np.array([1.0, -2.0, 0.5]), power=2.0):
    return np.sum(weights * v ** power)


def uses_defaults(x):
    return weighted(np.sin(x))


def test_a_callees_default_values_are_read_at_run_time(compiles):
    df = sg.grad(uses_defaults)
    assert "-2.0" not in sg.source(df, X)
    check_all_modes(uses_defaults, X)
    saved = weighted.__defaults__
    try:
        weighted.__defaults__[0][...] = [3.0, 1.0, -1.0]  # changed in place
        assert_close(df(X), numeric_gradient(uses_defaults, (X,), {}, 0))
        weighted.__defaults__ = (np.array([0.5, 0.5, 0.5]), 3.0)  # replaced
        assert_close(df(X), numeric_gradient(uses_defaults, (X,), {}, 0))
        check_all_modes(uses_defaults, X)
    finally:
        weighted.__defaults__ = saved
        saved[0][...] = [1.0, -2.0, 0.5]


# --- writes --------------------------------------------------------------------------------

def shift_tail(x):
    buf = G + 0.0
    b, a = x[0], x[1]
    buf[1:] -= np.array([b, a, 1.0])
    return np.sum(buf * buf * x[2])


def test_a_copy_of_a_global_array_is_written_by_slice(restore_globals):
    check_all_modes(shift_tail, X)
    G[0] = 7.0
    check_all_modes(shift_tail, X)


def writes_global(x):
    G[0] = x[0]
    return np.sum(G * x[1])


def test_a_write_into_a_captured_array_is_refused_naming_the_line():
    with pytest.raises(sg.SrcGradError, match=r"test_captured\.py:\d+.*G") as info:
        sg.grad(writes_global)(X)
    assert "copy" in str(info.value)


# --- containers of captured data -------------------------------------------------------------

LAYERS = [np.array([[0.5, -1.0, 0.25], [1.5, 0.5, -0.5]]), np.array([2.0, -1.0])]
CONFIG = {"scale": 0.75, "shift": np.array([0.1, 0.2, 0.3]), "depth": 2}
PAIR = (np.array([1.0, 2.0, 3.0]), 0.5)


def through_containers(x):
    h = x + CONFIG["shift"]
    for _ in range(CONFIG["depth"]):
        h = np.tanh(h) * CONFIG["scale"]
    for W in LAYERS[:1]:
        h = np.sin(W @ h) * 2.0
    return np.sum(h * LAYERS[1]) + np.sum(PAIR[0] * x * x) * PAIR[1]


@pytest.fixture
def restore_containers():
    saved = [a.copy() for a in LAYERS], dict(CONFIG), PAIR[0].copy()
    yield
    LAYERS[:] = saved[0]
    CONFIG.clear()
    CONFIG.update(saved[1])
    PAIR[0][...] = saved[2]


def test_items_of_captured_containers_are_read_at_run_time(restore_containers, compiles):
    df = sg.grad(through_containers)
    text = sg.source(df, X)
    assert "0.75" not in text and "array(" not in text
    check_all_modes(through_containers, X)
    n = compiles["n"]
    LAYERS[0] *= -1.5  # in place
    LAYERS[1] = np.array([0.5, 4.0])  # an item replaced by an array of the same kind
    CONFIG["scale"] = 1.25
    PAIR[0][1] = -7.0
    check_all_modes(through_containers, X)
    assert compiles["n"] == n


def test_a_changed_container_structure_or_static_item_recompiles(restore_containers,
                                                                 compiles):
    df = sg.grad(through_containers)
    df(X)
    assert compiles["n"] == 1
    CONFIG["depth"] = 3  # a static int item: its value is a fact
    assert_close(df(X), numeric_gradient(through_containers, (X,), {}, 0))
    assert compiles["n"] == 2
    LAYERS.insert(1, np.ones((2, 2)))  # the list's length and items moved
    LAYERS[2] = np.array([1.0, -1.0])
    assert_close(df(X), numeric_gradient(through_containers, (X,), {}, 0))
    assert compiles["n"] == 3
    check_all_modes(through_containers, X)


MANY = [np.full(3, float(k)) for k in range(100)]


def over_many(x):
    return np.sum(MANY[0] * x)


def test_a_captured_container_of_too_many_arrays_is_refused_with_advice():
    with pytest.raises(sg.SrcGradError, match=r"test_captured\.py:\d+.*MANY.*np\.stack"):
        sg.grad(over_many)(X)


def scaled(v, weights=(np.array([1.0, -2.0, 0.5]), 3.0)):
    return np.sum(weights[0] * np.cos(v)) * weights[1]


def uses_container_default(x):
    return scaled(x * x)


def test_a_container_default_is_read_at_run_time():
    df = sg.grad(uses_container_default)
    check_all_modes(uses_container_default, X)
    default = scaled.__defaults__[0]
    saved = default[0].copy()
    try:
        default[0][...] = [4.0, 0.0, -1.0]
        assert_close(df(X), numeric_gradient(uses_container_default, (X,), {}, 0))
        check_all_modes(uses_container_default, X)
    finally:
        default[0][...] = saved


# --- another module's globals ------------------------------------------------------------

def via_module(x):
    return np.sum(cfg.squash(cfg.DATA @ x) ** 2) * cfg.SCALE * np.pi


def test_another_modules_globals_are_read_at_run_time_and_rebinding_recompiles(monkeypatch,
                                                                               compiles):
    df = sg.grad(via_module)
    text = sg.source(df, X)
    assert "import captured_config as" in text and "1.5" not in text
    check_all_modes(via_module, X)
    n = compiles["n"]
    saved = cfg.DATA.copy()
    try:
        cfg.DATA[1] = [3.0, -2.0, 0.5]  # in place
        monkeypatch.setattr(cfg, "SCALE", -0.5)  # rebound, same kind
        check_all_modes(via_module, X)
        assert compiles["n"] == n
        monkeypatch.setattr(cfg, "squash", lambda v: np.sin(v) * 3.0)  # a callee rebound
        assert_close(df(X), numeric_gradient(via_module, (X,), {}, 0))
        assert compiles["n"] == n + 1
    finally:
        cfg.DATA[...] = saved


# --- composed transforms and keyword-only defaults ---------------------------------------

COEFFS = np.array([0.5, -1.5, 2.0])


def poly(t):
    return np.sum(COEFFS * np.sin(t * np.arange(1.0, 4.0)))


def test_a_derivative_of_a_derivative_reads_the_captured_array_of_the_inner_one(
        restore_globals):
    saved = COEFFS.copy()
    d2 = sg.grad(sg.grad(poly))
    d1 = sg.grad(poly)
    try:
        for t in (0.3, -1.1):
            assert d2(t) == pytest.approx(numeric_gradient(d1, (t,), {}, 0), rel=1e-6)
        COEFFS[...] = [3.0, 0.25, -1.0]  # in place: both levels see it
        want = float(np.sum(-COEFFS * np.arange(1.0, 4.0) ** 2 * np.sin(0.3 * np.arange(
            1.0, 4.0))))
        assert d2(0.3) == pytest.approx(want, rel=1e-10)
        restore_globals.COEFFS = np.array([1.0, 2.0, 3.0], dtype=np.float32)  # another dtype
        assert d2(0.3) == pytest.approx(numeric_gradient(d1, (0.3,), {}, 0), rel=1e-5)
    finally:
        restore_globals.COEFFS = COEFFS
        COEFFS[...] = saved


def kw_weighted(v, *, w=np.array([2.0, -1.0, 0.5])):
    return np.sum(w * np.exp(v))


def uses_kw_default(x):
    return kw_weighted(x * 0.5)


def test_a_keyword_only_default_is_read_at_run_time():
    df = sg.grad(uses_kw_default)
    check_all_modes(uses_kw_default, X)
    w = kw_weighted.__kwdefaults__["w"]
    saved = w.copy()
    try:
        w[...] = [-3.0, 1.0, 4.0]
        assert_close(df(X), numeric_gradient(uses_kw_default, (X,), {}, 0))
        check_all_modes(uses_kw_default, X)
    finally:
        w[...] = saved


NAMES = np.array(["sum", "max"])


def by_name(x):
    if NAMES[0] == "sum":
        return np.sum(x * x)
    return np.max(x)


def test_a_captured_array_of_strings_is_a_compile_time_value():
    assert_close(sg.grad(by_name)(X), 2 * X)


# --- a captured float used where a rule needs a constant --------------------------------

ORDER = 3.0


def norm_of_captured_order(x):
    return np.linalg.norm(x, ord=ORDER)


def test_a_captured_float_used_as_a_static_parameter_is_guarded_by_value(compiles):
    module = sys.modules[__name__]
    try:
        check_all_modes(norm_of_captured_order, X)
        before = compiles["n"]
        check_all_modes(norm_of_captured_order, X)  # same object: no recompile
        assert compiles["n"] == before
        module.ORDER = 4.0  # a new order is a new constant: recompiled, new gradient
        check_all_modes(norm_of_captured_order, X)
        assert compiles["n"] > before
    finally:
        module.ORDER = 3.0

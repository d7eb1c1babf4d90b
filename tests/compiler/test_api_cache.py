"""The cache: one compilation per abstract signature, rebuilt when its assumptions break."""

import types

import numpy as np
import pytest

import srcgrad as sg
from srcgrad.rules.registry import restore, snapshot


def helper(v):
    return v * 2.0


def uses_helper(x):
    return np.sum(helper(x))


def test_second_call_with_the_same_kinds_runs_only_emitted_code(compiles):
    df = sg.grad(uses_helper)
    df(np.ones(3))
    df(np.zeros(3))
    df(np.ones(5))  # same ndim and dtype: same version
    assert compiles["n"] == 1
    df(np.ones((2, 2)))
    df(np.ones(3, np.float32))
    df(1.5)
    assert compiles["n"] == 4


def test_two_derived_functions_of_one_function_share_the_cache(compiles):
    sg.grad(uses_helper)(np.ones(3))
    sg.grad(uses_helper)(np.ones(3))
    assert compiles["n"] == 1
    sg.grad(uses_helper, optimize=False)(np.ones(3))
    assert compiles["n"] == 2


def test_rebinding_a_callee_rebuilds(compiles):
    df = sg.grad(uses_helper)
    np.testing.assert_allclose(df(np.ones(2)), [2.0, 2.0])
    module_globals = uses_helper.__globals__
    saved = module_globals["helper"]
    try:
        module_globals["helper"] = lambda v: v * 5.0
        np.testing.assert_allclose(df(np.ones(2)), [5.0, 5.0])
    finally:
        module_globals["helper"] = saved
    np.testing.assert_allclose(df(np.ones(2)), [2.0, 2.0])
    assert compiles["n"] == 3


def scaled(x, k=2.0):
    return x * k


def calls_scaled(x):
    return scaled(x)


def test_changing_defaults_rebuilds(compiles):
    df = sg.grad(calls_scaled)
    assert df(1.0) == 2.0
    saved = scaled.__defaults__
    try:
        scaled.__defaults__ = (7.0,)
        assert df(1.0) == 7.0
    finally:
        scaled.__defaults__ = saved
    assert df(1.0) == 2.0
    assert compiles["n"] == 3


def test_a_closure_cell_rebound_to_another_float_is_read_without_recompiling(compiles):
    factor = 3.0

    def f(x):
        return x * factor

    df = sg.grad(f)
    assert df(1.0) == 3.0
    factor = 4.0  # (rebinds the cell f reads: read when the derivative runs)
    assert df(1.0) == 4.0
    assert compiles["n"] == 1
    factor = 5  # noqa: F841  (an int now: the float the code specialised on is gone)
    assert df(1.0) == 5.0
    assert compiles["n"] == 2


def squash(v):
    return np.tanh(v)


def uses_squash(x):
    return np.sum(squash(x))


def test_registering_a_rule_rebuilds(compiles):
    state = snapshot()
    try:
        df = sg.grad(uses_squash)
        x = np.array([0.3, -0.2])
        np.testing.assert_allclose(df(x), 1 - np.tanh(x) ** 2)
        sg.defvjp(squash, lambda g, out, v: g * 10.0)
        np.testing.assert_allclose(df(x), [10.0, 10.0])
        assert compiles["n"] == 2
    finally:
        restore(state)


def test_clear_cache_forgets_everything(compiles):
    df = sg.grad(uses_helper)
    df(np.ones(3))
    sg.clear_cache()
    df(np.ones(3))
    assert compiles["n"] == 2


def test_no_source_and_no_rule_is_a_clear_error():
    made = types.FunctionType(compile("def g(x):\n    return x * 2\n", "<made>", "exec")
                              .co_consts[0], {})
    with pytest.raises(sg.SrcGradError, match="cannot read the source.*sg.defvjp"):
        sg.grad(made)

"""Forward mode of a recursion calls the callee's forward mode once per level, value and
tangent together (frontend/recursion.py ``_jvp_pair``, ad/forward.py ``_pair``): no
separate primal call reruns the rest of the recursion at each level. Checked against
central finite differences in forward mode, forward over reverse (``sg.hessian`` at depth
300) and reverse over forward (the gradient of a tangent)."""

from __future__ import annotations

import sys

import numpy as np
import pytest
from fd import assert_close, directional_derivative, numeric_gradient, numeric_hessian

import srcgrad as sg
from srcgrad.compiler import pairs
from srcgrad.compiler.frontend.policy import POLICY

X = np.linspace(0.1, 1.0, 5)
V = np.linspace(1.0, -1.0, 5)


def damp(x, n):
    if n == 0:
        return x
    return damp(np.sin(x) * 0.9 + 0.1 * x, n - 1)


def damped_energy(x, n):
    return np.sum(damp(x, n) ** 2)


def braid(x, y, n):
    # both arguments of the recursive call carry a tangent of x
    if n == 0:
        return x * y
    return braid(np.sin(x), x * y * 0.5 + 0.1, n - 1)


def braided(x, n):
    return np.sum(braid(x, np.cos(x), n))


def test_forward_mode_of_a_recursion_makes_one_call_per_level_for_value_and_tangent():
    fw = sg.jvp(damped_energy)
    text = sg.source(fw, X, 3, V)
    # one call, of the callee's forward mode; its value is item 0 of what it returns
    assert text.count("_call_jvp_damp(") == 1
    assert "_call_damp(" not in text
    inner = sg.source(sg.jvp(damp), X, 3, V)
    assert inner.count("_call_jvp_damp(") == 1 and "_call_damp(" not in inner


@pytest.mark.parametrize("depth", [0, 1, 5, 300])
def test_forward_mode_of_a_recursion_differentiates_at_any_depth(depth):
    value, tangent = sg.jvp(damped_energy)(X, depth, V)
    assert_close(value, damped_energy(X, depth))
    assert_close(tangent, directional_derivative(damped_energy, (X, depth), {0: V}))


@pytest.mark.parametrize("depth", [0, 1, 5, 300])
def test_hessian_of_a_recursion_differentiates_at_any_depth(depth):
    assert_close(sg.hessian(damped_energy)(X, depth),
                 numeric_hessian(sg.grad(damped_energy), (X, depth)))


@pytest.mark.parametrize("depth", [0, 1, 4])
def test_gradient_of_a_recursions_tangent_differentiates(depth):
    def tangent_of(x):
        return sg.jvp(damped_energy)(x, depth, V)[1]

    assert_close(sg.grad(tangent_of)(X), numeric_gradient(tangent_of, (X,), {}, 0))


@pytest.mark.parametrize("depth", [0, 1, 4])
def test_recursion_whose_arguments_all_carry_tangents_differentiates(depth):
    # several arguments with a tangent keep the per-argument rules (a tuple of tangents
    # could not be differentiated again): still right in every mode
    _, tangent = sg.jvp(braided)(X, depth, V)
    assert_close(tangent, directional_derivative(braided, (X, depth), {0: V}))
    assert_close(sg.hessian(braided)(X, depth), numeric_hessian(sg.grad(braided), (X, depth)))

    def tangent_of(x):
        return sg.jvp(braided)(x, depth, V)[1]

    assert_close(sg.grad(tangent_of)(X), numeric_gradient(tangent_of, (X,), {}, 0))


def deepest_primal_depth() -> int:
    """The deepest ``damped_energy`` runs here, under the current recursion limit (pytest's
    own frames included), found by trying."""
    depth = sys.getrecursionlimit()
    while depth > 0:
        try:
            damped_energy(X, depth)
            return depth
        except RecursionError:
            depth -= 10
    raise AssertionError("the primal does not recurse at all")


def test_recursion_differentiates_as_deep_as_the_function_itself_runs():
    # one Python frame per level in every derivative (the emitted code calls the callee's
    # emitted code directly), as in the primal; a few frames of the derived function's
    # entry stay on top, hence the margin
    limit = sys.getrecursionlimit()
    depth = deepest_primal_depth() - 10
    assert depth > limit * 0.8
    assert_close(sg.grad(damped_energy)(X, depth),
                 numeric_gradient(damped_energy, (X, depth), {}, 0))
    value, tangent = sg.jvp(damped_energy)(X, depth, V)
    assert_close(tangent, directional_derivative(damped_energy, (X, depth), {0: V}))
    assert_close(sg.hessian(damped_energy)(X, depth),
                 numeric_hessian(sg.grad(damped_energy), (X, depth)))
    assert sys.getrecursionlimit() == limit  # nothing raised it


def test_a_recursive_call_in_emitted_code_is_bound_to_the_callee_itself():
    # after the first call, the name the emitted code calls is the callee's emitted
    # function (or the user's function for the primal): no wrapper or dispatcher between
    df = sg.jvp(damped_energy)
    df(X, 4, V)
    ((_, entry),) = df.__srcgrad__.dispatcher.versions  # the version that ran
    callee = entry.fn.__globals__["_call_jvp_damp"]
    assert callee.__code__.co_filename.startswith("<srcgrad:jvp_damp")
    assert callee.__globals__["_call_jvp_damp"] is callee  # it calls itself by name


# --- reverse mode: the callee's forward sweep returns a record, its adjoint reads it ---------

def power(x, n):
    # the adjoint of each level reads the value of the level below
    if n == 0:
        return 1.0
    return x * power(x, n - 1)


def power_sum(x, n):
    return np.sum(power(x, n))


def test_reverse_mode_of_a_recursion_emits_a_forward_sweep_and_an_adjoint():
    # an array argument: sg.grad of one float would choose forward mode (test_mode_choice)
    text = sg.source(sg.grad(power_sum), X, 3)
    assert "_call_fwd_power(" in text and "_call_bwd_power(" in text
    # no level reruns the function, nor a whole vjp that would rerun its forward sweep
    assert "_call_power(" not in text and "_call_vjp_power(" not in text
    sg.grad(power_sum)(X, 3)  # run: the names are bound at the first call
    fwd, bwd, pair_text = pairs.compiled(power, ("x",))
    assert "def fwd_power(x, n):" in pair_text and "def bwd_power(record, seed):" in pair_text
    assert fwd.__globals__["_call_fwd_power"] is fwd  # each calls itself by name
    assert bwd.__globals__["_call_bwd_power"] is bwd
    assert sg.source(sg.grad(power_sum), X, 300) == text  # nothing grows with the depth
    # sg.source shows the pair after the function's own code
    assert text.endswith(pair_text) and "the pair it calls for power (d/d x)" in text


def test_reverse_mode_of_a_recursion_runs_each_levels_forward_sweep_once(monkeypatch):
    df = sg.grad(power_sum)
    df(X, 2)
    fwd, bwd, _ = pairs.compiled(power, ("x",))
    calls = {"fwd": 0, "bwd": 0}

    def counted(name: str, fn):
        def call(*args):
            calls[name] += 1
            return fn(*args)
        return call

    # the emitted pair calls itself through these names
    monkeypatch.setitem(fwd.__globals__, "_call_fwd_power", counted("fwd", fwd))
    monkeypatch.setitem(bwd.__globals__, "_call_bwd_power", counted("bwd", bwd))
    depth = 50
    assert_close(df(X, depth), numeric_gradient(power_sum, (X, depth), {}, 0))
    # levels 2..depth-1 below the caller's first call: once each, forward and adjoint
    assert calls == {"fwd": depth - 1, "bwd": depth - 1}


@pytest.mark.parametrize("depth", [0, 1, 5, 300])
def test_recursion_whose_adjoint_reads_the_level_below_differentiates(depth):
    x = np.linspace(0.95, 1.004, 5)
    assert_close(sg.grad(power_sum)(x, depth), numeric_gradient(power_sum, (x, depth), {}, 0))
    _, tangent = sg.jvp(power_sum)(x, depth, V)
    assert_close(tangent, directional_derivative(power_sum, (x, depth), {0: V}))
    assert sg.grad(power)(1.001, depth) == pytest.approx(depth * 1.001 ** max(depth - 1, 0))


@pytest.mark.parametrize("depth", [0, 1, 5, 40])
def test_recursion_whose_adjoint_reads_the_level_below_differentiates_at_second_order(depth):
    x = np.linspace(0.9, 1.02, 4)
    assert_close(sg.hessian(power_sum)(x, depth),
                 numeric_hessian(sg.grad(power_sum), (x, depth)))

    def gradient_norm(x, n):
        return np.sum(sg.grad(power_sum)(x, n) ** 2)

    assert_close(sg.grad(gradient_norm)(x, depth),
                 numeric_gradient(gradient_norm, (x, depth), {}, 0))


def test_recursion_whose_adjoint_reads_the_level_below_runs_as_deep_as_the_primal():
    depth = deepest_primal_depth() - 10
    assert sg.grad(power)(1.0001, depth) == pytest.approx(depth * 1.0001 ** (depth - 1))
    assert sg.jvp(power)(1.0001, depth, 1.0)[1] == pytest.approx(depth * 1.0001 ** (depth - 1))


def split_sum(x):
    if len(x) == 1:
        return np.sin(x[0]) * x[0]
    h = len(x) // 2
    return split_sum(x[:h]) * 0.5 + split_sum(x[h:]) ** 2


@pytest.mark.parametrize("n", [1, 2, 5, 16])
def test_recursion_on_a_shape_with_two_calls_per_level_differentiates_through_the_pair(n):
    x = np.linspace(0.2, 1.1, n)
    assert_close(sg.grad(split_sum)(x), numeric_gradient(split_sum, (x,), {}, 0))
    assert pairs.compiled(split_sum, ("x",)) is not None
    _, tangent = sg.jvp(split_sum)(x, V[:1].repeat(n))
    assert_close(tangent, directional_derivative(split_sum, (x,), {0: V[:1].repeat(n)}))
    assert_close(sg.hessian(split_sum)(x), numeric_hessian(sg.grad(split_sum), (x,)))


SCALE = 2  # an int: folded into the emitted code as a constant


def scaled_power(x, n):
    if n == 0:
        return 1.0
    return SCALE * x * scaled_power(x, n - 1)


def test_a_recursions_pair_compiles_again_when_a_global_it_read_changes(monkeypatch):
    df = sg.grad(scaled_power)
    assert df(1.5, 3) == pytest.approx(3 * 8.0 * 1.5 ** 2)
    monkeypatch.setitem(globals(), "SCALE", 3)
    assert df(1.5, 3) == pytest.approx(3 * 27.0 * 1.5 ** 2)


def pendulum(s, theta):
    return np.array([s[1], -theta[0] * np.sin(s[0]) - theta[1] * s[1]])


def rk4_energy(theta, s, dt, steps):
    for _ in range(steps):
        k1 = pendulum(s, theta)
        k2 = pendulum(s + 0.5 * dt * k1, theta)
        k3 = pendulum(s + 0.5 * dt * k2, theta)
        k4 = pendulum(s + dt * k3, theta)
        s = s + dt / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4)
    return np.sum(s ** 2)


def test_a_function_that_does_not_call_itself_is_inlined_and_a_recursion_is_called():
    # the measured rule (CompileTimePolicy.should_call, benchmarks/pairs.py): a pair for
    # RK4's dynamics was no faster than inlining it, so only recursion gets its own
    assert POLICY.should_call(True).reason == "a function calling itself is called, never unrolled"
    assert not POLICY.should_call(False)
    args = (np.array([9.81, 0.3]), np.array([1.0, 0.2]), 0.05, 20)
    text = sg.source(sg.grad(rk4_energy), *args)
    code = [line for line in text.splitlines() if not line.lstrip().startswith("#")]
    assert not any("_call_" in line or "pendulum" in line for line in code)
    assert_close(sg.grad(rk4_energy)(*args), numeric_gradient(rk4_energy, args, {}, 0))
    assert "every other user function is inlined" in sg.source(sg.grad(power), 1.3, 3)


def power_in_a_loop(x, n, k):
    for _ in range(k):
        x = np.sin(power(x, n)) + x
    return np.sum(x)


def test_recursion_called_in_a_run_time_loop_differentiates_through_the_pair():
    # each trip's record is taped like any value its adjoint reads
    x = np.linspace(0.9, 1.01, 4)
    assert_close(sg.grad(power_in_a_loop)(x, 4, 3),
                 numeric_gradient(power_in_a_loop, (x, 4, 3), {}, 0))
    assert "_call_fwd_power(" in sg.source(sg.grad(power_in_a_loop), x, 4, 3)


def swap(x, y, n):
    if n == 0:
        return x * y
    return swap(y * 0.5, x + 0.1, n - 1) * x


def swapped(x, y, n):
    return np.sum(swap(x, y, n))


@pytest.mark.parametrize("depth", [0, 1, 6])
def test_recursion_with_two_differentiated_arguments_differentiates_through_the_pair(depth):
    x = np.linspace(0.9, 1.01, 4)
    y = np.cos(x)
    dx, dy = sg.grad(swapped, wrt=(0, 1))(x, y, depth)
    assert_close(dx, numeric_gradient(swapped, (x, y, depth), {}, 0))
    assert_close(dy, numeric_gradient(swapped, (x, y, depth), {}, 1))
    if depth:
        assert pairs.compiled(swap, ("x", "y")) is not None


def value_and_sum(x, n):
    if n == 0:
        return x, np.sum(x)
    r = value_and_sum(np.sin(x), n - 1)  # (a recursive call's result has no known length)
    return r[0] * x, r[1] + np.sum(r[0])


def from_value_and_sum(x, n):
    r = value_and_sum(x, n)
    return np.sum(r[0]) * r[1]


def test_recursion_returning_a_tuple_is_refused_with_advice():
    x = np.linspace(0.3, 0.9, 3)
    for transform in (sg.grad(from_value_and_sum), sg.jvp(from_value_and_sum)):
        args = (x, 4) if transform.__name__.startswith("grad") else (x, 4, x)
        with pytest.raises(sg.SrcGradError, match="calls itself and returns a tuple") as info:
            transform(*args)
        assert "test_recursion_pairs.py:" in str(info.value)
        assert "Return one array" in str(info.value)

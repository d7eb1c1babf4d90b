"""A new lambda per call, or a new closure from the same ``def``, passed to a derived
function uses the version compiled for the first one when it computes the same thing (same
code, globals, and captured objects or equal constants: compiler/closures.py); otherwise it
gets its own version, with its own right derivative. The version reads captured values from
the function it was compiled for, so reuse must never let a later change of that function's
cells go unseen, nor hide a different captured array.
"""

from __future__ import annotations

import numpy as np

import srcgrad as sg
from tests.fd import assert_close, directional_derivative, numeric_gradient, numeric_hessian


def apply(x, g):
    return np.sum(g(x) ** 2)


def scaled_sine(c):
    return lambda t: np.sin(t) * c


def weighted_sine(W):
    def g(t):
        return np.sin(t) * W
    return g


X = np.array([0.3, -1.2, 2.0])


def _check(df, x, g):
    assert_close(df(x, g), numeric_gradient(apply, [x, g], None, 0))


def test_fresh_lambdas_of_the_same_code_compile_once(compiles):
    df = sg.grad(apply)
    for _ in range(50):
        _check(df, X, lambda t: np.sin(t) * 2.0)
    assert compiles["n"] == 1


def test_fresh_closures_capturing_equal_constants_compile_once(compiles):
    df = sg.grad(apply)
    for i in range(50):
        c = float(f"{2.5:.1f}") + 0.0 * i  # a new float object each time, always 2.5
        _check(df, X, scaled_sine(c))
    assert compiles["n"] == 1


def test_fresh_closures_capturing_the_same_array_compile_once_and_see_its_changes(compiles):
    df = sg.grad(apply)
    W = np.array([1.0, 3.0, -2.0])
    for _ in range(20):
        _check(df, X, weighted_sine(W))
    W[:] = [0.5, 0.25, 4.0]  # changed in place: read when the derivative runs
    _check(df, X, weighted_sine(W))
    assert compiles["n"] == 1


def test_closures_capturing_different_values_get_their_own_right_gradients():
    df = sg.grad(apply)
    for c in (1.0, 2.0, 3.0, 1.0, 2.0):
        _check(df, X, scaled_sine(c))
    for W in (np.array([1.0, 3.0, -2.0]), np.array([2.0, 5.0, 0.5]), np.array([1.0, 3.0, -2.0])):
        _check(df, X, weighted_sine(W))


def test_closures_capturing_different_values_differentiate_forward_and_second_order():
    fw, hess = sg.jvp(apply), sg.hessian(apply)
    t = np.array([1.0, -0.5, 2.0])
    for c in (1.0, 2.0, 1.0):
        g = scaled_sine(c)
        _, tangent = fw(X, g, t)
        assert_close(tangent, directional_derivative(apply, [X, g], {0: t}))
        gradient = sg.grad(apply)
        assert_close(hess(X, g), numeric_hessian(gradient, [X, g]))


def _counter_pair():
    c = 1.0

    def g(t):
        return np.sin(t) * c

    def bump():
        nonlocal c
        c += 1.0
    return g, bump


def test_a_cell_rebound_after_reuse_is_read_from_the_function_passed():
    """``g2`` reuses ``g1``'s version while their cells hold equal values; once ``g1``'s
    cell is rebound (``nonlocal``), a call with ``g2`` must not read ``g1``'s cell."""
    df = sg.grad(apply)
    g1, bump1 = _counter_pair()
    g2, _ = _counter_pair()
    _check(df, X, g1)
    _check(df, X, g2)
    bump1()
    _check(df, X, g2)
    _check(df, X, g1)
    _check(df, X, g2)


def test_a_lambda_of_other_code_gets_its_own_version(compiles):
    df = sg.grad(apply)
    _check(df, X, lambda t: np.sin(t) * 2.0)
    _check(df, X, lambda t: np.cos(t) * 2.0)
    assert compiles["n"] == 2


def test_a_version_found_in_the_cache_is_guarded_on_the_function_it_reads():
    """A second derived function of ``apply`` finds ``g1``'s version in the cache when
    called with ``g2``; its guard must name ``g1``, whose cells the version reads, so a
    later change of ``g1``'s cell sends ``g2`` to a version of its own."""
    g1, bump1 = _counter_pair()
    g2, _ = _counter_pair()
    _check(sg.grad(apply), X, g1)
    df = sg.grad(apply)
    _check(df, X, g2)  # (the cached version of g1)
    bump1()
    _check(df, X, g2)


SPECIAL = scaled_sine(2.0)


def branches_on_identity(x, act):
    if act is SPECIAL:  # a decision on the function object, not on what it computes
        return np.sum(np.cos(x) * 3.0)
    return np.sum(act(x) ** 2)


def test_a_function_also_met_in_the_environment_stands_for_itself_only():
    """The version for SPECIAL decided ``act is SPECIAL``: an equal closure made anew must
    not reuse it (it takes the other branch in Python)."""
    df = sg.grad(branches_on_identity)
    for act in (SPECIAL, scaled_sine(2.0), SPECIAL, scaled_sine(2.0)):
        assert_close(df(X, act), numeric_gradient(branches_on_identity, [X, act], None, 0))


def test_a_closure_with_a_registered_rule_is_not_stood_in_for_by_one_without():
    from srcgrad.rules.registry import restore, snapshot

    state = snapshot()
    try:
        with_rule = scaled_sine(2.0)
        sg.defvjp(with_rule, lambda g, out, t: g * 10.0)  # the user's word for its derivative
        df = sg.grad(apply)
        # the rule's gradient: d sum(g(x)**2) = 2 g(x) * 10
        assert_close(df(X, with_rule), 2.0 * with_rule(X) * 10.0)
        _check(df, X, scaled_sine(2.0))  # no rule: differentiated through, as Python says
        assert_close(df(X, with_rule), 2.0 * with_rule(X) * 10.0)
    finally:
        restore(state)


def same_or_not(x, a, b):
    if a is b:  # a decision on two arguments' identity
        return np.sum(a(x))
    return np.sum(a(x) * b(x))


def test_a_function_given_twice_stands_for_itself_only():
    df = sg.grad(same_or_not)
    first = scaled_sine(2.0)
    for a, b in ((first, first), (scaled_sine(2.0), first), (first, first)):
        assert_close(df(X, a, b), numeric_gradient(same_or_not, [X, a, b], None, 0))

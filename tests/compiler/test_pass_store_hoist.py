"""Loop passes of the reverse sweep: loop-invariant hoisting (``passes/hoist.py``) and the
store-or-recompute decision per taped value (``passes/recompute.py``). The emitted text is
read for what each pass promises; every derivative is checked against central finite
differences in reverse and forward mode and at second order."""

import re

import numpy as np
import pytest

import srcgrad as sg
from tests.compiler.test_pass_loops import newton
from tests.fd import directional_derivative, numeric_gradient, numeric_hessian


def damped(x, k):
    y = x
    for _ in range(8):
        y = y + 0.1 * (-k * np.sin(y)) * np.cos(y)
    return np.sum(y * y)


def _reverse_loop(text: str) -> str:
    """The adjoint loop's code (comments left out): from the first pop to the end."""
    return "\n".join(line for line in text[text.index("tape.pop()"):].splitlines()
                     if not line.lstrip().startswith("#"))


def _pushed(text: str) -> str:
    return re.search(r"tape\.append\((.*)\)\n", text).group(1)


def test_a_transcendental_the_forward_loop_computed_is_popped_not_recomputed():
    text = sg.source(sg.vjp(newton), 5.0, 1.0)
    assert "math.sin(" not in _reverse_loop(text) and "math.cos(" not in _reverse_loop(text), text
    # a * x was saved only to recompute them: no longer pushed
    assert not re.search(r"\b_t\d+ = a \* x\b", text) or "a * x" not in _pushed(text), text
    for a in (0.7, 1.3, 5.0):
        assert sg.vjp(newton)(a, 1.0) == pytest.approx(
            float(numeric_gradient(newton, (a,), {}, 0)), rel=1e-6, abs=1e-8)
        assert sg.vjp(newton)(a, 1.0) == pytest.approx(
            sg.vjp(newton, optimize=False)(a, 1.0), rel=1e-12)


def test_stored_transcendentals_and_hoisted_invariants_on_arrays():
    x, k = np.array([0.4, -1.1, 2.0]), 1.7
    text = sg.source(sg.grad(damped, wrt=(0, 1)), x, k)
    body = _reverse_loop(text)
    assert "np.sin(" not in body and "np.cos(" not in body, text
    # -k (times 0.1, gathered with it) is the same each iteration: computed once before
    # the loop, never pushed
    assert text.count(" -k\n") == 1 and text.index(" -k\n") < text.index("for i"), text
    assert "-k" not in _pushed(text), text
    gx, gk = sg.grad(damped, wrt=(0, 1))(x, k)
    np.testing.assert_allclose(gx, numeric_gradient(damped, (x, k), {}, 0), rtol=1e-6,
                               atol=1e-8)
    assert gk == pytest.approx(float(numeric_gradient(damped, (x, k), {}, 1)), rel=1e-6)


def test_loop_passes_keep_forward_and_second_order_right():
    x, k = np.array([0.4, -1.1, 2.0]), 1.7
    t = np.array([0.3, 0.2, -0.5])
    _, tangent = sg.jvp(damped)(x, k, t)
    assert tangent == pytest.approx(
        float(directional_derivative(damped, (x, k), {0: t})), rel=1e-6, abs=1e-8)
    np.testing.assert_allclose(sg.hessian(damped)(x, k),
                               numeric_hessian(sg.grad(damped, optimize=False), (x, k), 0),
                               rtol=1e-5, atol=1e-7)
    second = sg.grad(sg.grad(newton))(1.3)
    assert second == pytest.approx(
        float(numeric_hessian(sg.grad(newton, optimize=False), (1.3,), 0)), rel=1e-5)


def negate_mask_in_loop(x, mask, n):
    y = x
    for _ in range(n):
        y = y * 1.5 + -mask
    return np.sum(y)


def test_an_op_that_may_raise_is_not_hoisted_out_of_a_loop_that_may_not_run():
    """``-mask`` of a bool array raises TypeError: hoisted, a loop of no iteration would
    raise where the user's code does not."""
    x, mask = np.array([0.5, 2.0]), np.array([True, False])
    assert negate_mask_in_loop(x, mask, 0) == pytest.approx(2.5)
    np.testing.assert_allclose(sg.grad(negate_mask_in_loop)(x, mask, 0), [1.0, 1.0])
    with pytest.raises(TypeError):
        sg.grad(negate_mask_in_loop)(x, mask, 2)


def invariant_shape_in_loop(x, w, n):
    y = x
    for _ in range(n):
        y = np.tanh(y * w) + w
    return np.sum(y)


def _no_zeros(text: str) -> str:
    return "\n".join(line for line in text.splitlines() if "= np.zeros(" not in line)


def test_a_loop_invariant_shape_is_computed_once_and_not_pushed():
    # (x a batch of rows, w one row: w's cotangent is summed to its shape; arrays of one
    # shape would need no shape at all, see test_same_shape_arguments.py)
    x, w = np.linspace(-0.5, 0.5, 12).reshape(3, 4), np.array([0.9, 1.1, 0.7, 1.3])
    # (w's zero cotangent, ``np.zeros(w.shape)``, is made once before the reverse loop)
    text = _no_zeros(sg.source(sg.grad(invariant_shape_in_loop, wrt=(0, 1)), x, w, 5))
    for spelling in ("np.shape(w)", "w.shape"):  # (the typed version reads the attribute)
        assert spelling not in _reverse_loop(text) and spelling not in text[
            text.index("for i"):text.index("tape.pop()")], text
    assert "w.shape" in text  # computed once, outside the loops
    gx, gw = sg.grad(invariant_shape_in_loop, wrt=(0, 1))(x, w, 5)
    np.testing.assert_allclose(gx, numeric_gradient(invariant_shape_in_loop, (x, w, 5), {}, 0),
                               rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(gw, numeric_gradient(invariant_shape_in_loop, (x, w, 5), {}, 1),
                               rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(sg.grad(invariant_shape_in_loop)(x, w, 0), np.ones((3, 4)))
    same = _no_zeros(sg.source(sg.grad(invariant_shape_in_loop, wrt=(0, 1)), w * 0.5, w, 5))
    assert "w.shape" not in same and "unbroadcast" not in same, same


def rows_loop(x, buf):
    v = np.exp(np.tanh(np.sum(x)))
    for row in buf:
        v = np.sin(v) * row + v
    return np.abs(v)


def test_second_order_through_a_loop_never_pushes_a_value_defined_after_the_push():
    """In the reverse pass of a reverse pass the forward loop computes some transcendentals
    after its push: only those defined before the push may be saved on it (the fuzzer
    found an IR that read a value before its definition)."""
    x, buf = np.array([0.2, -0.4, 0.1]), np.array([0.261, -1.139, -0.035])
    np.testing.assert_allclose(sg.hessian(rows_loop)(x, buf),
                               numeric_hessian(sg.grad(rows_loop, optimize=False), (x, buf), 0),
                               rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(sg.grad(rows_loop)(x, buf),
                               numeric_gradient(rows_loop, (x, buf), {}, 0), rtol=1e-6, atol=1e-8)

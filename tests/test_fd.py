"""The suite's finite-difference reference (``tests/fd.py``) against derivatives written by
hand, so every check that trusts it trusts something that was checked itself."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from tests.fd import (
    assert_close,
    directional_derivative,
    numeric_gradient,
    numeric_hessian,
    numeric_jacobian,
)

X = np.array([[0.3, -1.2, 2.5], [40.0, -0.01, 7.0]])


def test_gradient_of_a_scalar_function_matches_the_hand_derivative():
    assert_close(numeric_gradient(lambda x: np.sum(np.sin(x) * x), (X,), {}, 0),
                 np.cos(X) * X + np.sin(X), rtol=1e-8, atol=1e-8)


def test_gradient_by_keyword_and_with_a_seed_over_a_nested_result():
    def f(a, *, b):
        return (a * b, (np.exp(b), 3))  # the int leaf has no cotangent

    a, b = np.array([0.5, 2.0]), np.array([1.5, -0.5])
    seed = (np.array([1.0, -2.0]), (np.array([0.5, 0.25]), None))
    assert_close(numeric_gradient(f, (a,), {"b": b}, "b", seed),
                 seed[0] * a + seed[1][0] * np.exp(b), rtol=1e-8, atol=1e-8)
    assert_close(numeric_gradient(f, (a,), {"b": b}, 0, seed), seed[0] * b,
                 rtol=1e-8, atol=1e-8)


@pytest.mark.parametrize("x", [0.7, np.float64(0.7), np.float32(0.7), np.array(0.7)])
def test_scalar_arguments_keep_their_kind_and_give_a_0d_gradient(x):
    seen = []

    def f(v):
        seen.append(type(v))
        return v ** 3

    g = numeric_gradient(f, (x,), {}, 0)
    assert g.shape == ()
    assert_close(g, 3 * 0.7 ** 2, rtol=1e-6)  # float32 0.7 is promoted, then evaluated
    want = {float: float, np.float64: np.float64, np.float32: np.float64,
            np.ndarray: np.ndarray}[type(x)]
    assert set(seen) == {want}


def test_float32_arrays_are_differenced_in_float64():
    x32 = X.astype(np.float32)
    got = numeric_gradient(lambda x: np.sum(x * x), (x32,), {}, 0)
    assert got.dtype == np.float64
    # in float32 the step 1e-6 is below the resolution of the values: nothing would match
    assert_close(got, 2 * x32.astype(np.float64))


def test_jacobian_has_output_then_input_axes():
    A = np.arange(6.0).reshape(2, 3) - 2.0
    J = numeric_jacobian(lambda x, A: np.tanh(A @ x), (np.array([0.1, -0.3, 0.2]), A), 0)
    x = np.array([0.1, -0.3, 0.2])
    assert J.shape == (2, 3)
    assert_close(J, (1 - np.tanh(A @ x) ** 2)[:, None] * A, rtol=1e-8, atol=1e-9)


def test_hessian_is_the_difference_of_an_exact_gradient():
    x = np.array([0.4, -1.1, 2.0])

    def grad(v):  # of sum(v**4) + v0 * v1
        return 4 * v ** 3 + np.array([v[1], v[0], 0.0])

    want = np.diag(12 * x ** 2) + np.array([[0, 1, 0], [1, 0, 0], [0, 0, 0.0]])
    assert_close(numeric_hessian(grad, (x,)), want, rtol=1e-8, atol=1e-8)


def test_directional_derivative_moves_every_named_argument_and_keeps_the_nesting():
    def f(x, y, n):
        return (x * y, [np.sin(x), n])

    x, y = np.array([0.5, -2.0]), 3.0
    tx, ty = np.array([1.0, 0.5]), -1.0
    got = directional_derivative(f, (x, y, 4), {0: tx, 1: ty})
    assert isinstance(got, tuple) and isinstance(got[1], list) and got[1][1] is None
    assert_close(got[0], tx * y + x * ty, rtol=1e-8, atol=1e-8)
    assert_close(got[1][0], np.cos(x) * tx, rtol=1e-8, atol=1e-8)


def test_assert_close_fails_on_a_wrong_gradient_and_on_a_wrong_shape():
    right = numeric_gradient(lambda x: np.sum(x ** 2), (X,), {}, 0)
    with pytest.raises(AssertionError):
        assert_close(right * (1 + 1e-4), 2 * X)
    with pytest.raises(AssertionError, match="shape"):
        assert_close(right.ravel(), 2 * X)


# A central difference is ``(f(x + h) - f(x - h)) / (2 h)``: outside tests/fd.py that
# quotient means a second implementation (the suite had eight, with different steps and
# argument handling). The golden files and the corpus programs are code under test, not
# references, and example scripts print their own checks for the reader.
_QUOTIENT = re.compile(r"/\s*\(?\s*2(\.0)?\s*\*\s*\(?\s*(eps|EPS|h|step|delta|FD_STEP)\b")
_TESTS = Path(__file__).parent


def test_finite_differences_are_implemented_once():
    found = []
    for path in sorted(_TESTS.rglob("*.py")):
        relative = path.relative_to(_TESTS)
        if relative.as_posix() in {"fd.py", "test_fd.py"} or relative.parts[:2] in {
                ("compiler", "golden"), ("compiler", "corpus")}:
            continue
        for number, line in enumerate(path.read_text().splitlines(), start=1):
            if _QUOTIENT.search(line.split("#")[0]):
                found.append(f"tests/{relative}:{number}: {line.strip()}")
    assert not found, ("central differences outside tests/fd.py; call numeric_gradient / "
                       "numeric_jacobian / numeric_hessian / directional_derivative instead:\n"
                       + "\n".join(found))


def test_the_guard_sees_a_central_difference():
    assert _QUOTIENT.search("g = (f(x + eps) - f(x - eps)) / (2 * eps)")
    assert _QUOTIENT.search("out[i] = (up - down) / (2.0 * h)")
    assert not _QUOTIENT.search("y = x / 2.0 * scale")

"""The unit tangent rows ``sg.hessian``/``sg.jacobian`` push through a batched pass are kept
between calls (``compiler/jacobians.py``): made anew every call, the ``(k, n)`` identity
beside the ``(k, n)`` result made the allocator fault its pages in again each call. Kept,
they must never leak into a result, never be written, and give the same derivatives as
fresh ones, for every chunk of a batch larger than ``ROWS`` and for tuple ``wrt``."""

import numpy as np
from fd import assert_close, numeric_hessian, numeric_jacobian

import srcgrad as sg
from srcgrad.compiler import jacobians


def rosenbrock(x):  # element reads in a loop: the column x[i] of the tangent rows
    f = 0.0
    for i in range(len(x) - 1):
        f = f + 100.0 * (x[i + 1] - x[i] ** 2) ** 2 + (1 - x[i]) ** 2
    return f


def identity(x):
    return x


def outer_pair(x, y):  # 6 results of 5 inputs: a forward-mode Jacobian
    return np.outer(np.sin(x), y) + y[0] * x[0] ** 2


def test_repeated_hessians_of_an_element_loop_match_finite_differences_and_are_new_arrays():
    x = np.linspace(-0.9, 1.1, 30)
    H = sg.hessian(rosenbrock)
    first = H(x)
    assert H.last_batched
    assert_close(first, numeric_hessian(sg.grad(rosenbrock), (x,)))
    kept = first.copy()
    second = H(x)
    assert second is not first and not np.shares_memory(first, second)
    second[0, 0] = 1e9  # the caller owns its result: writing it changes no later one
    assert_close(H(x), kept, rtol=1e-14, atol=0)
    assert_close(first, kept, rtol=1e-14, atol=0)


def test_jacobian_returning_its_tangent_rows_is_a_writable_copy():
    x = np.linspace(0.1, 0.9, 6)
    J = sg.jacobian(identity)
    got = J(x)
    assert_close(got, numeric_jacobian(identity, (x,)))
    got[0, 0] = 5.0  # (not the kept identity: that is read-only and stays the identity)
    assert_close(J(x), np.eye(6), rtol=0, atol=0)


def test_batches_larger_than_rows_use_kept_chunks_and_match_finite_differences(monkeypatch):
    monkeypatch.setattr(jacobians, "ROWS", 4)  # 10 columns: chunks of 4, 4 and 2 rows
    x = np.linspace(-0.5, 0.7, 10)
    H = sg.hessian(rosenbrock)
    want = numeric_hessian(sg.grad(rosenbrock), (x,))
    for _ in range(2):  # the second call reads the kept chunks
        assert_close(H(x), want)
        assert H.last_batched


def test_tuple_wrt_jacobian_with_kept_rows_matches_finite_differences():
    x, y = np.array([0.3, -0.4, 0.8]), np.array([1.2, -0.7])
    J = sg.jacobian(outer_pair, wrt=(0, 1))
    for _ in range(2):  # (the second call reads the kept rows of both inputs)
        Jx, Jy = J(x, y)
        assert J.last_mode == "forward" and J.last_batched
        assert_close(Jx, numeric_jacobian(outer_pair, (x, y), 0))
        assert_close(Jy, numeric_jacobian(outer_pair, (x, y), 1))


def test_kept_unit_rows_are_read_only_and_column_major():
    x = np.zeros(7)
    rows = jacobians._unit_rows(x, 0, 7)
    assert not rows.flags.writeable
    assert rows.flags.f_contiguous  # (an element's column x[i] of the rows is contiguous)
    assert_close(rows, np.eye(7), rtol=0, atol=0)
    part = jacobians._unit_rows(x, 5, 4)  # rows 5, 6 are x's elements; 7, 8 fall outside
    want = np.zeros((4, 7))
    want[0, 5] = want[1, 6] = 1.0
    assert_close(part, want, rtol=0, atol=0)
    before = jacobians._unit_rows(x, -2, 3)  # an earlier input's columns, then x's first
    want = np.zeros((3, 7))
    want[2, 0] = 1.0
    assert_close(before, want, rtol=0, atol=0)

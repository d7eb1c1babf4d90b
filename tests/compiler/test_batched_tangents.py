"""Batched tangents: sg.hessian and forward-mode sg.jacobian push every column in one pass
with a tangent of shape ``(k,) + x.shape``; each result agrees with finite differences and
with the per-column passes (``J.batches = False``), and a primitive with no batched form
falls back to the per-column passes instead of giving a wrong row."""

import numpy as np
import pytest
from fd import assert_close, numeric_hessian, numeric_jacobian

import srcgrad as sg
from srcgrad.compiler.api import _forward_jacobian
from srcgrad.compiler.rows import rows_getitem, rows_scatter_add

X5 = np.linspace(0.2, 1.4, 5)
W = np.linspace(-1.0, 1.0, 15).reshape(3, 5)


def chain_energy(p):  # element reads of a float64 array in a loop
    energy = 0.0
    for i in range(len(p) - 1):
        d = p[i + 1] - p[i]
        energy = energy + np.sin(p[i]) * d * d
    return energy


def cubic(x):
    return np.sum(x ** 3) + x[0] * x[1]


def branchy(x):  # a branch on a value and a while loop
    total = 0.0
    k = 0
    while k < len(x):
        if x[k] > 0.7:
            total = total + np.exp(x[k]) * x[0]
        else:
            total = total + x[k] ** 2 * np.cos(x[-1])
        k += 1
    return total


def matrix_products(x):
    y = np.tanh(W @ x)
    return np.sum(y * y) + x @ (W.T @ y)


def broadcasting(x):  # a column against a row, reductions over an axis
    outer = x[:, None] * np.sin(x)[None, :]
    return np.sum(np.mean(outer, axis=0) ** 2) + np.sum(np.maximum(outer, 0.3), axis=1)[2]


def scattered(x):  # fancy reads and slices: scatter adjoints with array indices
    idx = np.array([0, 2, 2, 4])
    return np.sum(np.sin(x[idx]) * x[1:5]) + np.sum(x[::2] ** 2) * x[-1]


def matrix_argument(a):
    return np.sum(np.sin(a) * a.T) + a[1, 2] * a[0, 0] ** 2


def growing(x):  # a carried value whose rank grows in the first iteration (0 -> 1)
    acc = 0.0
    for i in range(len(x)):
        acc = acc + np.sin(x) * x[i]
    return np.sum(acc * acc)


def column_in_loop(x):  # a row against a carried column: shapes differ at equal ranks
    col = x[:, None]
    for k in range(2):
        col = np.tanh(col * x[None, :] + x[k])[:, :1]
    return np.sum(col) * x[0]


def containers(x):  # items of a tuple and of a list built in a loop, read back by index
    pair = (np.sin(x), x * x)
    hs = []
    for k in range(3):
        hs.append(pair[k % 2] * x[k])
    return np.sum(hs[1] * hs[2]) + np.sum(pair[0] * hs[0])


PROGRAMS = [(containers, X5), (chain_energy, X5), (cubic, X5), (branchy, X5), (matrix_products, X5),
            (broadcasting, X5), (scattered, X5), (growing, X5), (column_in_loop, X5),
            (matrix_argument, np.linspace(-0.5, 0.8, 9).reshape(3, 3))]


@pytest.mark.parametrize("fn, x", PROGRAMS, ids=[f.__name__ for f, _ in PROGRAMS])
def test_hessian_in_one_batched_pass_matches_finite_differences_and_columns(fn, x):
    H = sg.hessian(fn)
    got = H(x)
    assert H.last_batched
    assert got.shape == x.shape + x.shape
    assert_close(got, numeric_hessian(sg.grad(fn), (x,)))
    H.batches = False  # the per-column passes
    columns = H(x)
    assert not H.last_batched
    assert_close(got, columns, rtol=1e-12, atol=1e-12)


def test_scalar_loop_hessian_needs_no_row_padding_broadcast_or_gradient():
    """Ranks and equal shapes known at compile time (ad/ranks.py), also of values a loop
    carries or a tape pops: the element-read loop's batched code pads and broadcasts
    nothing at run time."""
    from srcgrad.compiler.ad.forward import JVP_ROWS
    from srcgrad.compiler.api import _derive

    text = sg.source(_derive(sg.grad(chain_energy), JVP_ROWS, 0, True), X5, np.eye(5))
    assert "rows_getitem(tangent, i)" in text
    assert "rows_expand" not in text and "rows_rebroadcast" not in text, text
    # the gradient itself is not returned: its accumulation (a scatter per element read)
    # is dropped with the loop-carried value (ad/prune.py); only its tangent rows remain,
    # added into the accumulator in place (ad/accumulate_rows.py), no zeros per read
    assert "rows_add_into(" in text and "scatter_add(" not in text, text


def test_hessian_of_float32_argument_in_one_batched_pass():
    x = X5.astype(np.float32)
    H = sg.hessian(matrix_products)
    got = H(x)
    assert H.last_batched
    assert_close(got, numeric_hessian(sg.grad(matrix_products), (X5,)), rtol=1e-3, atol=1e-3)


def tall(x):  # R^2 -> R^(3x2): a forward-mode Jacobian
    return np.outer(np.sin(W[:, :2] @ x), x) + x[0]


def two_inputs(x, y):
    acc = x * y[0]
    for k in range(len(y)):
        acc = acc + np.cos(x * y[k])
    return acc


def test_forward_jacobian_in_one_batched_pass():
    x = np.array([0.3, -0.8])
    J = sg.jacobian(tall)
    got = J(x)
    assert J.last_mode == "forward" and J.last_batched
    assert_close(got, numeric_jacobian(tall, (x,)))


def test_forward_jacobian_of_a_tuple_wrt_in_one_batched_pass():
    x, y = np.linspace(0.1, 0.9, 4), np.array([0.5, -0.2])
    J = _forward_jacobian(two_inputs, (0, 1))
    blocks = J(x, y)
    assert J.last_batched
    for i, block in enumerate(blocks):
        assert_close(block, numeric_jacobian(two_inputs, (x, y), i))
    J.batches = False
    for got, want in zip(blocks, J(x, y)):
        assert_close(got, want, rtol=1e-12, atol=1e-12)


def sorted_sum(x):  # np.sort's forward formula has no row axis: computed row by row
    return np.sum(np.sort(x) * np.arange(1.0, len(x) + 1.0) * x)


def test_primitive_without_row_form_is_computed_row_by_row_in_the_batched_pass():
    H = sg.hessian(sorted_sum)
    got = H(X5[::-1].copy())
    assert H.last_batched
    assert_close(got, numeric_hessian(sg.grad(sorted_sum), (X5[::-1].copy(),)))


def joined(x):  # np.concatenate takes a sequence of arrays: not batched
    return np.sum(np.concatenate([x, np.sin(x)]) ** 3)


def test_primitive_without_batched_form_falls_back_to_columns():
    H = sg.hessian(joined)
    got = H(X5)
    assert not H.last_batched  # refused batching, computed per column
    assert_close(got, numeric_hessian(sg.grad(joined), (X5,)))
    assert_close(H(X5 + 0.5), numeric_hessian(sg.grad(joined), (X5 + 0.5,)))
    assert not H.batches  # (and it does not compile the batched version again)


def test_row_index_with_separated_array_indices_keeps_rows_in_front():
    t = np.arange(2 * 3 * 4 * 5, dtype=float).reshape(2, 3, 4, 5)
    index = (np.array([0, 2]), slice(None), np.array([1, 3]))
    got = rows_getitem(t, index)
    assert_close(got, np.stack([row[index] for row in t]))
    back = rows_scatter_add(got, (3, 4, 5), index)
    for row, want in zip(back, got):
        z = np.zeros((3, 4, 5))
        np.add.at(z, index, want)
        assert_close(row, z)


def checked(x):
    if x[0] > 10.0:
        raise ValueError("x[0] out of range")
    return np.sum(x ** 3)


def test_users_own_error_still_reaches_the_caller_and_the_next_call_is_right():
    H = sg.hessian(checked)
    with pytest.raises(ValueError, match="out of range"):
        H(X5 + 20.0)
    assert_close(H(X5), np.diag(6.0 * X5))  # (per column after a failed batched pass)


def collected_in_while(x, y):  # a while whose test reads a carried counter, a list
    k = 0
    acc = np.cos(y) * 0.5 + x
    items = []
    while k < 4 and np.sum(x * x) * k < 4.98:
        acc = np.tanh(acc * y) + acc
        items.append(acc)
        k += 1
    return np.sum(0.33 * acc + 0.67 * np.sum(np.array(items) * 1.5, axis=0))


def test_while_whose_test_reads_a_carried_counter_batches():
    x, y = np.array([0.3, -0.2]), 0.4
    H = sg.hessian(collected_in_while)
    got = H(x, y)
    assert H.last_batched
    assert_close(got, numeric_hessian(sg.grad(collected_in_while), (x, y)))

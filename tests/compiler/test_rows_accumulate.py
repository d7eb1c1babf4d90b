"""Element-read adjoints in batched forward-over-reverse (``sg.hessian``) are added into the
tangent rows of the accumulator at their index (``ad/accumulate_rows.py``), in place when
nothing else holds it (``backend/inplace.py``): no array of zeros per read, and the same
Hessian as finite differences and as the per-column passes."""

import numpy as np
import pytest
from fd import assert_close, directional_derivative, numeric_gradient, numeric_hessian

import srcgrad as sg
from srcgrad.compiler.ad.forward import JVP_ROWS
from srcgrad.compiler.api import _derive
from srcgrad.compiler.rows import rows_add_at, rows_add_into, rows_scatter_add


def neighbour_products(x):  # x[i] * x[i + 1] and np.exp of an element, 3 reads per step
    total = 0.0
    for i in range(len(x) - 1):
        total = total + x[i] * x[i + 1] + np.exp(x[i]) * x[i + 1] ** 2
    return total


def chain_with_square(x):
    energy = 0.0
    for i in range(len(x) - 1):
        d = x[i + 1] - x[i]
        energy = energy + np.sin(x[i]) * d * d
    return energy + x[0] ** 3


def strided_reads(x):  # slices and a repeated fancy read inside the loop
    total = 0.0
    idx = np.array([0, 0])
    for i in range(3):
        total = total + np.sum(np.cos(x[i:i + 2]) * x[idx]) * x[i]
    return total


def while_with_fixed_value(x):  # a while loop whose reverse sweep carries values unchanged
    k = 0
    scale = 2.0
    total = 0.0
    while k < len(x) - 1:
        total = total + scale * x[k] * np.tanh(x[k + 1])
        k += 1
    return total


PROGRAMS = [(neighbour_products, np.linspace(-0.6, 0.9, 100)),
            (chain_with_square, np.linspace(0.1, 1.3, 7)),
            (strided_reads, np.linspace(0.2, 1.1, 5)),
            (while_with_fixed_value, np.linspace(-0.4, 0.7, 6))]


@pytest.mark.parametrize("fn, x", PROGRAMS, ids=[f.__name__ for f, _ in PROGRAMS])
def test_element_read_adjoints_add_into_hessian_rows_matching_finite_differences(fn, x):
    H = sg.hessian(fn)
    got = H(x)
    assert H.last_batched
    assert_close(got, numeric_hessian(sg.grad(fn), (x,)))
    H.batches = False  # the per-column passes (forward over reverse, one column each)
    assert_close(got, H(x), rtol=1e-12, atol=1e-12)
    # forward mode over reverse along one direction: the Hessian-vector product
    v = np.cos(np.arange(x.size))
    _, hv = sg.jvp(sg.grad(fn))(x, v)
    assert_close(hv, got @ v, rtol=1e-10, atol=1e-10)
    assert_close(hv, directional_derivative(sg.grad(fn), (x,), {0: v}))


def test_scalar_loop_hessian_adds_element_read_rows_in_place():
    x = np.linspace(-0.6, 0.9, 6)
    text = sg.source(_derive(sg.grad(neighbour_products), JVP_ROWS, 0, True), x, np.eye(6))
    body = text.split("reversed(range(", 1)[1]
    assert "scatter_add(" not in text, text  # no zeros of (k, n) per read
    assert body.count("rows_add_into(") == 4, text  # the four element reads of a step


@pytest.mark.parametrize("index", [2, slice(1, 3), (np.array([0, 2, 2]),), np.array([1, 1])],
                         ids=["int", "slice", "fancy-repeated", "array-repeated"])
def test_rows_add_at_is_the_sum_with_a_scatter_and_leaves_its_input(index):
    rng = np.random.default_rng(0)
    acc = rng.standard_normal((3, 4))
    t = rng.standard_normal(np.shape(acc[(slice(None), *(
        index if isinstance(index, tuple) else (index,)))]))
    want = acc + rows_scatter_add(t, (4,), index)
    before = acc.copy()
    # (repeated positions: the same terms, summed in another order)
    np.testing.assert_allclose(rows_add_at(acc, t, (4,), index), want, rtol=1e-15, atol=1e-15)
    np.testing.assert_array_equal(acc, before)  # a new array: the input is unchanged
    into = acc.copy()
    out = rows_add_into(into, t, (4,), index)
    np.testing.assert_allclose(out, want, rtol=1e-15, atol=1e-15)
    assert out is into  # written into the accumulator itself


def test_rows_add_at_keeps_numpys_broadcasting_and_promotion():
    t = np.array([1.0, 2.0])
    narrow = np.zeros((2, 1))  # broadcasts against the scatter's (2, 3): a new shape
    np.testing.assert_array_equal(rows_add_into(narrow, t, (3,), 1),
                                  narrow + rows_scatter_add(t, (3,), 1))
    single = np.zeros((2, 3), dtype=np.float32)  # float64 rows promote the sum
    got = rows_add_into(single, t, (3,), 0)
    assert got.dtype == np.float64 and got is not single
    assert not single.any()  # (the float32 accumulator is not written)


def test_setitem_chain_in_a_loop_writes_in_place_and_differentiates():
    def fill(x):
        y = np.zeros(3)
        total = 0.0
        for i in range(2):
            y[0] = x[i]
            y[1] = x[i] * 2.0
            y[2] = y[0] * y[1]
            total = total + np.sum(y * x)
        return total

    x = np.array([0.3, 0.7, 1.1])
    text = sg.source(sg.grad(fill), x)
    # y is saved for the adjoint of y * x: the first write copies it, the next ones write
    # into that copy (the later values of the chain do not make the copy a shared array)
    forward = text.split("def grad_fill", 1)[1].split("tape.append", 1)[0]
    assert forward.count("setitem(") < 3 and "[1] = " in forward, text
    assert_close(sg.grad(fill)(x), numeric_gradient(fill, (x,), None, 0))
    assert_close(sg.hessian(fill)(x), numeric_hessian(sg.grad(fill), (x,)))


def test_seed_carried_unchanged_through_the_reverse_loop_is_summed_once_before_it():
    """The reverse sweep carries a loop result's seed through every iteration unchanged
    (ad/prune.py drops that carry); ``unbroadcast(seed, ())`` is then loop-invariant and
    hoisted (passes/hoist.py), in the Hessian's batched code; with ``energy`` known to be
    one number (a float, then a NumPy scalar: ``ir/types.NUMBER``) it is not written at
    all."""
    x = np.linspace(0.1, 1.3, 7)
    text = sg.source(_derive(sg.grad(chain_with_square), JVP_ROWS, 0, True), x, np.eye(7))
    before, loop = text.split("reversed(range(", 1)
    assert "unbroadcast(" not in loop, text
    assert_close(sg.hessian(chain_with_square)(x), numeric_hessian(sg.grad(chain_with_square),
                                                                   (x,)))


def weighted(x, scale=2.0, *, shift=0.5):
    total = 0.0
    for i in range(len(x) - 1):
        total = total + scale * np.sin(x[i] + shift) * x[i + 1] ** 2
    return total


@pytest.mark.parametrize("call, scale, shift", [
    (lambda H, x: H(x), 2.0, 0.5), (lambda H, x: H(x, 3.0), 3.0, 0.5),
    (lambda H, x: H(x, scale=3.0, shift=-0.2), 3.0, -0.2),
    (lambda H, x: H(x=x, scale=1.5), 1.5, 0.5)],
    ids=["default", "positional", "keywords", "all-keywords"])
def test_hessian_binds_positional_keyword_and_default_arguments(call, scale, shift):
    """``H`` is called like ``f`` (its defaulted parameters also by position)."""
    x = np.linspace(-0.3, 0.8, 5)
    got = call(sg.hessian(weighted), x)
    grad = sg.grad(weighted)
    assert_close(got, numeric_hessian(lambda z: grad(z, scale, shift=shift), (x,)))

"""The code of sg.hessian's batched pass, and its values, on vectorised functions and loops
over the elements.

- ``x[1:]`` and ``x[:-1]`` of one array have one shape (a shape key in ``ad/ranks.py``,
  a shape class in ``passes/shape_classes.py``): their tangent rows combine with no
  ``rows_rebroadcast``/``rows_unbroadcast``, and the gradient with no ``unbroadcast``;
- a sum of scatters alone adds into the first one's zeros (``ad/accumulate_rows.py``);
- arithmetic on the pass's own temporary rows updates them in place and dead rows are
  freed (``passes/rows_in_place.py``), so few ``(k, n)`` arrays are alive at once;
- the rows are not multiplied by the gradient's seed (``ad/batching.py``), which still
  runs the function as the gradient does (``rows_after``).

Each is checked on its emitted text and on values: central finite differences of the
gradient and the per-column passes (``H.batches = False``), at edge sizes (0, 1, 2
elements), float32 and with non-finite values.
"""

import math
import tracemalloc

import numpy as np
import pytest
from fd import assert_close, numeric_hessian, numeric_jacobian

import srcgrad as sg
from srcgrad.compiler.ad.forward import JVP_ROWS
from srcgrad.compiler.api import _derive
from srcgrad.compiler.jacobians import _unit_rows
from srcgrad.compiler.rows import rows_scatter_add


def rosenbrock_vectorised(x):
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2)


def chain_vectorised(x):
    d = x[1:] - x[:-1]
    return np.sum(np.sin(x[:-1]) * d * d)


def neighbour_products(x):
    total = 0.0
    for i in range(len(x) - 1):
        total = total + x[i] * x[i + 1]
    return total


def rosenbrock(x):
    f = 0.0
    for i in range(len(x) - 1):
        f = f + 100.0 * (x[i + 1] - x[i] ** 2) ** 2 + (1 - x[i]) ** 2
    return f


def floors(x):  # math.floor raises ValueError on a NaN; no row needs its value (its
    total = 0.0   # derivative is zero), only the seed of the gradient does
    for i in range(len(x) - 1):
        total = total + x[i] * x[i + 1] + math.floor(x[i])
    return total


def self_products(x):  # x[i] * x[i]: the adjoint of x scatters one term twice
    s = 0.0
    for i in range(len(x)):
        s = s + math.log(x[i]) + x[i] * x[i]
    return s


def two_axes(a):  # slices of a matrix along each axis, and a middle slice
    rows = np.sin(a[1:, :]) * a[:-1, :] ** 2
    cols = a[:, 2:] * a[:, :-2] + a[:, 1:-1] ** 3
    return np.sum(rows) + np.sum(cols)


def unequal_slices(x):  # x[1:] and x[:1] broadcast ((n-1,) against (1,)): not one shape
    return np.sum(x[1:] * x[:1] ** 2) + np.sum(x[2:] * x[:-2])


def differences(x):  # a Jacobian with more results than inputs (forward mode)
    return np.sin(x)[:, None] * (x[1:] - x[:-1] ** 2)[None, :]


def rows_source(f, *args):
    return sg.source(_derive(sg.grad(f), JVP_ROWS, 0, True), *args)


def points(n):
    return np.linspace(-0.9, 1.1, n) + 0.05 * np.sin(np.arange(n))


ROSENBROCK_ROWS = '''\
from srcgrad.compiler.rows import rows_add_into, rows_getitem, rows_scatter_add


def jvp_grad_rosenbrock_vectorised(x, tangent):
    _t1 = x.shape
    # line {0}: return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2)
    _t2 = x[1:]
    _t3 = rows_getitem(tangent, slice(1, None, None))
    _t4 = x[:-1]
    _t5 = rows_getitem(tangent, slice(None, -1, None))
    _t6 = _t4 ** 2
    _t4 = 2.0 * _t4
    _t7 = _t5 * _t4
    _t2 = _t2 - _t6
    del _t6
    _t3 = _t3 - _t7
    del _t7
    _t8 = rows_scatter_add(rows_getitem(tangent, slice(None, -1, None)) * 2.0, _t1, slice(None, -1, None))
    _t2 *= 200.0
    _t3 *= 200.0
    _t9 = -_t3
    _t5 = _t5 * 2.0
    _t9 *= _t4
    del _t4
    _t5 *= _t2
    del _t2
    _t9 -= _t5
    del _t5
    _t8 = rows_add_into(_t8, _t9, _t1, slice(None, -1, None))
    del _t9
    _t8 = rows_add_into(_t8, _t3, _t1, slice(1, None, None))
    return _t8
'''

NEIGHBOUR_ROWS = '''\
import numpy as np
from srcgrad.compiler.rows import rows_add_into, rows_getitem, rows_like, rows_zeros


def jvp_grad_neighbour_products(x, tangent):
    _t1 = x.shape
    # line {0}: for i in range(len(x) - 1):
    _t2 = len(x) - 1
    tape = []
    for i in range(_t2):
        # line {1}: total = total + x[i] * x[i + 1]
        _t3 = rows_getitem(tangent, i)
        _t4 = i + 1
        _t5 = rows_getitem(tangent, _t4)
        tape.append((_t4, _t5, _t3))
    # line {0}: for i in range(len(x) - 1):
    _t6 = rows_zeros(np.zeros(x.shape), tangent)
    for i_1 in reversed(range(_t2)):
        _t7, _t8, _t9 = tape.pop()
        # line {1}: total = total + x[i] * x[i + 1]
        _t6 = rows_add_into(_t6, _t9, _t1, _t7)
        _t6 = rows_add_into(_t6, _t8, _t1, i_1)
    _t6 = rows_like(_t6, x)
    return _t6
'''


def test_vectorised_rows_combine_slices_in_place_with_no_broadcasts():
    line = rosenbrock_vectorised.__code__.co_firstlineno
    assert rows_source(rosenbrock_vectorised, points(6)) == ROSENBROCK_ROWS.format(line + 1)


def test_element_loop_rows_are_not_multiplied_by_the_seed():
    line = neighbour_products.__code__.co_firstlineno
    assert rows_source(neighbour_products, points(6)) == NEIGHBOUR_ROWS.format(
        line + 2, line + 3, line + 4)


def test_gradient_of_slices_of_one_array_has_no_unbroadcast():
    text = sg.source(sg.grad(rosenbrock_vectorised), points(6))
    assert "unbroadcast" not in text and "copies(" not in text, text
    assert "1.0 *" not in text, text


PROGRAMS = [rosenbrock_vectorised, chain_vectorised, neighbour_products, rosenbrock,
            unequal_slices]


@pytest.mark.parametrize("fn", PROGRAMS, ids=[f.__name__ for f in PROGRAMS])
@pytest.mark.parametrize("n", [1, 2, 3, 7, 30])
def test_hessians_match_finite_differences_and_the_column_passes(fn, n):
    x = points(n)
    H = sg.hessian(fn)
    got = H(x)
    assert H.last_batched
    assert got.shape == (n, n) and got.dtype == np.float64
    assert_close(got, numeric_hessian(sg.grad(fn), (x,)))
    assert_close(got, got.T, rtol=1e-12, atol=1e-12)
    H.batches = False
    assert_close(got, H(x), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("fn", [rosenbrock_vectorised, chain_vectorised, unequal_slices])
def test_empty_argument_gives_an_empty_hessian(fn):
    got = sg.hessian(fn)(np.zeros(0))  # x.shape + x.shape, as for any other size
    assert got.shape == (0, 0) and got.dtype == np.float64


def test_empty_input_jacobians_keep_the_result_shape():
    def three(x):
        return np.array([np.sum(x), 1.0, 2.0])
    assert sg.jacobian(three)(np.zeros(0)).shape == (3, 0)
    assert sg.jacobian(three)(np.zeros((0, 2))).shape == (3, 0, 2)
    assert sg.hessian(rosenbrock_vectorised)(np.zeros((0, 3))).shape == (0, 3, 0, 3)


def test_slices_along_each_axis_of_a_matrix():
    a = np.linspace(-0.7, 0.9, 20).reshape(4, 5)
    H = sg.hessian(two_axes)
    got = H(a)
    assert H.last_batched and got.shape == (4, 5, 4, 5)
    assert_close(got, numeric_hessian(sg.grad(two_axes), (a,)))
    H.batches = False
    assert_close(got, H(a), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("fn", [rosenbrock_vectorised, chain_vectorised, rosenbrock])
def test_float32_argument_keeps_float32_rows_and_values(fn):
    x = points(9)
    got = sg.hessian(fn)(x.astype(np.float32))
    assert got.dtype == np.float32
    assert_close(got, sg.hessian(fn)(x), rtol=2e-4, atol=2e-3)


def test_non_finite_elements_propagate_as_in_the_column_passes():
    x = points(6)
    x[2], x[4] = np.inf, np.nan
    for fn in (rosenbrock_vectorised, rosenbrock):
        H = sg.hessian(fn)
        with np.errstate(invalid="ignore"):
            got = H(x)
            H.batches = False
            columns = H(x)
        np.testing.assert_array_equal(got, columns)


def test_hessian_runs_the_function_and_raises_where_it_raises():
    x = points(6)
    H = sg.hessian(floors)
    assert_close(H(x), np.eye(6, k=1) + np.eye(6, k=-1), rtol=0, atol=0)
    assert H.last_batched
    x[2] = np.nan
    for derived in (floors, sg.grad(floors), H):
        with pytest.raises(ValueError, match="NaN"):
            derived(x)


def test_a_scatter_read_twice_in_a_sum_is_added_in_place_twice():
    """Without it each trip of the loop added two (k, n) arrays of zeros but a column."""
    x = points(7) + 1.0
    text = rows_source(self_products, x)
    assert "rows_scatter_add" not in text and text.count("rows_add_into(") == 3, text
    H = sg.hessian(self_products)
    assert_close(H(x), np.diag(2.0 - 1.0 / x ** 2))
    assert_close(H(x), numeric_hessian(sg.grad(self_products), (x,)))


def test_batched_jacobian_of_slices_matches_finite_differences():
    x = points(8)
    J = sg.jacobian(differences)
    got = J(x)
    assert J.last_batched and J.last_mode == "forward" and got.shape == (8, 7, 8)
    assert_close(got, numeric_jacobian(differences, (x,)))


def test_vectorised_rows_keep_few_arrays_alive():
    """The rows of a vectorised Hessian at n = 100 are 80 kB each; written out of place,
    with no frees, and added into row-major zeros through NumPy's buffers, the pass's
    memory peaked at 8.4 times its result's, and the heap was trimmed and page-faulted back
    at every call. Now it peaks below 6 times (4.8)."""
    x = points(100)
    rows = _derive(sg.grad(rosenbrock_vectorised), JVP_ROWS, 0, True)
    tangent = _unit_rows(x, 0, 100)
    rows(x, tangent)
    tracemalloc.start()
    try:
        start = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        result = rows(x, tangent)
        peak = tracemalloc.get_traced_memory()[1] - start
    finally:
        tracemalloc.stop()
    assert peak <= 6 * result.nbytes, (peak, result.nbytes)
    assert result.flags.f_contiguous  # (laid out as the unit rows are)


def test_scattered_rows_are_laid_out_as_the_rows_added():
    t = np.asfortranarray(np.arange(12.0).reshape(3, 4))
    z = rows_scatter_add(t, (6,), slice(1, 5))
    assert z.flags.f_contiguous and z.shape == (3, 6)
    np.testing.assert_array_equal(z[:, 1:5], t)
    assert not z[:, [0, 5]].any()
    c = rows_scatter_add(np.ascontiguousarray(t), (6,), slice(1, 5))
    assert c.flags.c_contiguous
    np.testing.assert_array_equal(c, z)

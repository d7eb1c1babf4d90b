"""The aliasing rule of API.md §1: a write that could reach the caller's data, or an
augmented assignment mutating an array another live name shares, raises ``sg.SrcGradError``
advising ``.copy()``; writing into a copy the function made is fine; and derived functions
never modify their arguments.

The offending line of each function carries a ``# <- error`` marker (see test_errors.py).
"""

import os

import numpy as np
import pytest
from fd import assert_close, numeric_gradient
from test_errors import compile_error, marked_line

import srcgrad as sg

THIS_FILE = os.path.basename(__file__)
A = np.arange(6.0).reshape(2, 3) / 4.0 - 0.5


def writes_into_argument(x):
    x[0] = 1.0  # <- error
    return np.sum(x * x)


def writes_into_view_of_argument(x):
    r = x[0]
    r[...] = 2.0  # <- error
    return np.sum(x * x)


def writes_into_slice_view(x):
    tail = x[1:]
    tail[0] = 3.0  # <- error
    return np.sum(x * tail[0])


def writes_into_transposed_view(x):
    t = x.T
    t[0, 0] = 0.5  # <- error
    return np.sum(t * x.T)


def augmented_on_argument(x):
    x += 1.0  # <- error
    return np.sum(x * x)


def augmented_on_name_sharing_argument(x):
    y = x
    y *= 2.0  # <- error
    return np.sum(y)


def augmented_on_shared_local(x):
    y = x * 2.0
    z = y
    y += x  # <- error
    return np.sum(z * y)


def augmented_on_shared_view(x):
    y = x * 2.0
    row = y[0]
    y -= 1.0  # <- error
    return np.sum(row * y)


def writes_into_raveled_argument(x):
    flat = x.ravel()  # a view for a contiguous argument
    flat[0] = 1.0  # <- error
    return np.sum(x * flat[1])


def writes_into_reshaped_argument(x):
    r = x.reshape(-1)
    r[2] = 0.0  # <- error
    return np.sum(r * r)


def _first_row(v):
    return v[0]


def writes_into_view_returned_by_a_callee(x):
    row = _first_row(x)
    row[...] = 0.0  # <- error
    return np.sum(x * x)


def augmented_on_transposed_argument(x):
    t = x.T
    t += 1.0  # <- error
    return np.sum(t * t)


REJECTED = [
    writes_into_argument, writes_into_view_of_argument, writes_into_slice_view,
    writes_into_transposed_view, augmented_on_argument, augmented_on_name_sharing_argument,
    augmented_on_shared_local, augmented_on_shared_view, writes_into_raveled_argument,
    writes_into_reshaped_argument, writes_into_view_returned_by_a_callee,
    augmented_on_transposed_argument,
]


@pytest.mark.parametrize("fn", REJECTED, ids=[f.__name__ for f in REJECTED])
def test_rejected_write_advises_copy(fn):
    x = A.copy()
    error = compile_error(fn, x)
    text = str(error)
    assert ".copy()" in text, f"message does not advise .copy(): {text}"
    assert f"{THIS_FILE}:{marked_line(fn)}" in text, f"message does not point at the line: {text}"
    np.testing.assert_array_equal(x, A)  # and the caller's array is untouched


def writes_into_copy(x):
    y = x.copy()
    y[0] = 5.0 * x[1]
    return np.sum(y * y)


def augmented_on_unshared_local(x):
    y = x * 2.0
    y += x * x  # y is the only name for this array: an in-place add is safe
    y *= x
    return np.sum(y)


def writes_into_flattened_copy(x):
    y = x.flatten()  # flatten always copies
    y[0] = 2.0 * x[1, 1]
    return np.sum(y * y)


def writes_into_astype_copy(x):
    y = x.astype(np.float64)  # astype copies by default
    y[1] = x[0] * 3.0
    return np.sum(y * x)


ALLOWED = [writes_into_copy, augmented_on_unshared_local, writes_into_flattened_copy,
           writes_into_astype_copy]


@pytest.mark.parametrize("fn", ALLOWED, ids=[f.__name__ for f in ALLOWED])
@pytest.mark.parametrize("optimize", [True, False])
def test_allowed_writes_differentiate_and_leave_the_argument_alone(fn, optimize):
    x = A.copy()
    got = sg.grad(fn, optimize=optimize)(x)
    np.testing.assert_array_equal(x, A)
    assert_close(got, numeric_gradient(fn, (A.copy(),), {}, 0))


def _reads_everything(x, y):
    z = x.T @ y
    return np.sum(np.sin(z) * x.sum(axis=0))


def test_derived_functions_leave_read_only_arguments_alone():
    # read-only arrays: any write into an argument would raise ValueError here
    x, y = A.copy(), A.copy() * 2.0
    x.flags.writeable = False
    y.flags.writeable = False
    dx, dy = sg.grad(_reads_everything, wrt=(0, 1))(x, y)
    assert_close(dx, numeric_gradient(_reads_everything, (A.copy(), A * 2.0), {}, 0))
    assert_close(dy, numeric_gradient(_reads_everything, (A.copy(), A * 2.0), {}, 1))


def _vector_result(x):
    return np.sin(x) * x


def test_vjp_leaves_its_seed_alone():
    seed = np.ones((2, 3))
    seed.flags.writeable = False
    got = sg.vjp(_vector_result)(A.copy(), seed)
    assert_close(got, np.cos(A) * A + np.sin(A))


# --- writes whose effect another name sees: an error or the right answer, never silence ---


def write_seen_through_another_name(x):
    y = x.copy()
    z = y
    y[0] = 5.0 * x[1]  # z sees this write too
    return np.sum(z * z)


def write_seen_through_a_row_view(x):
    y = x * 1.0
    row = y[0]
    y[0] = x[1] * 2.0  # row is a view of y: it now holds 2 * x[1]
    return np.sum(row * x[0])


def augmented_seen_through_a_view(x):
    y = x * 2.0
    col = y[:, 0]
    y *= x  # col is a view of y: it now holds 2 * x[:, 0] ** 2
    return np.sum(col * col)


SHARED = [write_seen_through_another_name, write_seen_through_a_row_view,
          augmented_seen_through_a_view]


@pytest.mark.parametrize("fn", SHARED, ids=[f.__name__ for f in SHARED])
def test_shared_writes_are_rejected_or_differentiated_exactly(fn):
    sg.clear_cache()
    try:
        got = sg.grad(fn)(A.copy())
    except sg.SrcGradError as error:
        assert ".copy()" in str(error), str(error)
        return
    assert_close(got, numeric_gradient(fn, (A.copy(),), {}, 0),
                 what=f"{fn.__name__}: aliasing silently gave a wrong gradient")

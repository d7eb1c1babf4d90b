"""Joining functions given one array, and NumPy 2's ``dtype=``/``casting=`` keywords.

NumPy's ``vstack``/``hstack``/``dstack``/``column_stack``/``concatenate``/``stack`` (and
``row_stack``, NumPy 2's deprecated alias of ``vstack``) given one array join its rows
(they iterate over its first axis). The compiler used to refuse that ("tup must be a
list or tuple"); it now records ``joined_rows`` (rules/joining_rows.py). Checked against
central finite differences with a random seed (a sum would not see a wrong order),
forward along random tangents, and at second order; the runtime's Tensor forms too.
"""

from __future__ import annotations

import numpy as np
import pytest
from allmodes import check_all_modes
from fd import assert_close, directional_derivative, numeric_gradient

import srcgrad as sg

_ROW_STACK = getattr(np, "row_stack", np.vstack)

FORMS = [(np.vstack, {}), (np.hstack, {}), (np.dstack, {}), (np.column_stack, {}),
         (np.concatenate, {}), (np.concatenate, {"axis": -1}), (np.stack, {}),
         (np.stack, {"axis": -1}), (np.vstack, {"dtype": np.float64})]
SHAPES = [(3,), (2, 3), (3, 2, 4), (2, 3, 2, 2)]


def _program(join, kw):
    def joined(x):
        return np.sin(join(x, **kw)) * 1.5
    return joined


def _cases():
    for join, kw in FORMS:
        for shape in SHAPES:
            if join is np.concatenate and len(shape) == 1:
                continue  # (NumPy: zero-dimensional arrays cannot be concatenated)
            yield pytest.param(join, kw, shape, id=f"{join.__name__}{kw or ''}-{shape}")


@pytest.mark.parametrize("join, kw, shape", list(_cases()))
def test_joining_function_of_one_array_joins_its_rows_in_both_modes(join, kw, shape):
    fn = _program(join, kw)
    rng = np.random.default_rng(3)
    x = rng.standard_normal(shape)
    out = fn(x)
    seed = rng.standard_normal(out.shape)
    assert_close(sg.vjp(fn)(x, seed), numeric_gradient(fn, [x], {}, 0, seed=seed),
                 rtol=1e-5, atol=1e-6)
    t = rng.standard_normal(shape)
    value, tangent = sg.jvp(fn)(x, t)
    assert_close(value, out)
    assert_close(tangent, directional_derivative(fn, [x], {0: t}), rtol=1e-5, atol=1e-6)


def row_stack_of_matrix(x):
    return np.sum(_ROW_STACK(x) ** 2 * np.arange(6.0).reshape(2, 3))


def vstack_of_vector(x):
    return np.sum(np.vstack(x) ** 3 * np.array([[1.0], [-2.0], [0.5]]))


def hstack_of_matrix_float64(x):
    return np.sum(np.cos(np.hstack(x, dtype=np.float64)) * np.arange(6.0))


def concatenate_list_with_dtype(x):
    return np.sum(np.concatenate([x, x ** 2], dtype=np.float64, casting="same_kind") ** 2
                  * np.arange(6.0))


def stack_list_with_dtype(x):
    return np.sum(np.stack([x, np.sin(x)], axis=1, dtype=np.float64) ** 2
                  * np.arange(6.0).reshape(3, 2))


@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # (NumPy's own, on the FD calls)
def test_row_stack_alias_is_vstack():
    check_all_modes(row_stack_of_matrix, np.array([[0.3, -1.2, 0.8], [1.1, 0.4, -0.6]]))


@pytest.mark.parametrize("fn, x", [
    (vstack_of_vector, np.array([0.3, -1.2, 0.8])),
    (hstack_of_matrix_float64, np.array([[0.3, -1.2, 0.8], [1.1, 0.4, -0.6]])),
    (concatenate_list_with_dtype, np.array([0.3, -1.2, 0.8])),
    (stack_list_with_dtype, np.array([0.3, -1.2, 0.8])),
])
def test_one_array_and_dtype_keyword_forms_differentiate_twice(fn, x):
    check_all_modes(fn, x)


def test_dtype_keyword_keeps_a_float32_gradient_float32():
    def f(x):
        return np.sum(np.vstack([x, x * 2.0], dtype=np.float64) ** 2)
    x = np.array([0.5, -1.0], dtype=np.float32)
    g = sg.grad(f)(x)
    assert g.dtype == np.float32
    assert_close(g, numeric_gradient(f, [x], {}, 0), rtol=1e-4, atol=1e-4)


def concatenate_of_vector(x):
    return np.sum(np.concatenate(x))


def test_concatenate_of_a_vector_is_refused_as_numpy_refuses_it():
    with pytest.raises(sg.SrcGradError) as info:
        sg.grad(concatenate_of_vector)(np.ones(3))
    assert "zero-dimensional" in str(info.value) and info.value.advice
    line = concatenate_of_vector.__code__.co_firstlineno + 1
    assert f"test_joining_one_array.py:{line}" in str(info.value)


@pytest.mark.parametrize("join", [np.vstack, np.hstack, np.dstack, np.column_stack, np.stack])
def test_runtime_joining_function_of_one_tensor_matches_numpy(join):
    x = np.array([[0.3, -1.2, 0.8], [1.1, 0.4, -0.6]])
    seed = np.random.default_rng(5).standard_normal(join(x).shape)
    t = sg.tensor(x, requires_grad=True)
    (join(t) * sg.tensor(seed)).sum().backward()
    assert_close(t.grad.numpy(), numeric_gradient(lambda v: join(v), [x], {}, 0, seed=seed))


def test_runtime_vstack_takes_the_dtype_keyword():
    x = np.array([0.3, -1.2, 0.8])
    t = sg.tensor(x, requires_grad=True)
    out = np.vstack([t, t * 2.0], dtype=np.float64)
    assert out.shape == (2, 3)
    (out * out).sum().backward()
    assert_close(t.grad.numpy(), 10.0 * x)

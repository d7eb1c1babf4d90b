"""Products of whole arrays differentiate (issue 14): ``np.tensordot`` (int axes and
pairs of axis lists), ``np.kron`` and ``np.cross`` (3- and 2-vectors, batched, with
``axisa``/``axisb``/``axisc``/``axis``), from rules/tensor_products.py.

Each program is checked against central finite differences in reverse, forward and second
order, and on the runtime (NumPy functions applied to Tensors).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from allmodes import check_all_modes
from fd import assert_close, numeric_gradient

import srcgrad as sg

X = np.array([0.6, -1.3, 0.7, 1.1, -0.4, 0.9])
B = np.arange(24.0).reshape(2, 3, 4) / 10.0 - 1.0


def _m(x):
    return np.outer(x[:2], x[:3])  # 2 x 3, depends on x[:3]


def tensordot_int_axes(x):
    return np.sum(np.tensordot(np.outer(x, x[:2]), _m(x), 1) ** 2)


def tensordot_axis_lists(x):
    return np.sum(np.tensordot(_m(x), B, axes=([0, 1], [0, 1])) * x[:4])


def tensordot_outer(x):
    return np.sum(np.tensordot(x[:3], x[2:], 0) ** 2)


def kron_of_matrices(x):
    return np.sum(np.kron(_m(x), np.sin(_m(x))) ** 2)


def kron_vector_and_matrix(x):
    return np.sum(np.kron(x[:3], _m(x)) * np.arange(18.0).reshape(2, 9))


def cross_of_3_vectors(x):
    return np.sum(np.cross(x[:3], x[3:] ** 2) ** 2)


def cross_batched_with_axes(x):
    a = np.reshape(x, (3, 2))
    return np.sum(np.cross(a, a ** 2 + 1.0, axisa=0, axisb=0, axisc=0) * B[0, :, :2])


def cross_with_axis(x):
    a = np.reshape(x, (2, 3))
    return np.sum(np.cross(a, np.flip(a, 1), axis=1) ** 2)


def cross_of_2_vectors(x):
    return np.cross(x[:2], x[2:4] ** 2) ** 2 + np.sum(np.cross(x[:2], x[3:]) * x[:3])


PROGRAMS = [tensordot_int_axes, tensordot_axis_lists, tensordot_outer, kron_of_matrices,
            kron_vector_and_matrix, cross_of_3_vectors, cross_batched_with_axes,
            cross_with_axis, cross_of_2_vectors]


@pytest.fixture(autouse=True)
def _two_vectors_quiet():
    with warnings.catch_warnings():  # np.cross of 2-vectors warns in NumPy 2 (the FD side)
        warnings.simplefilter("ignore", DeprecationWarning)
        yield


@pytest.mark.parametrize("fn", PROGRAMS, ids=lambda f: f.__name__)
def test_tensor_products_differentiate(fn):
    check_all_modes(fn, X)


@pytest.mark.parametrize("fn", PROGRAMS, ids=lambda f: f.__name__)
def test_tensor_products_on_tensors_record_their_derivative(fn):
    x = sg.tensor(X, requires_grad=True)
    fn(x).backward()
    assert_close(x.grad.numpy(), numeric_gradient(fn, [X], {}, 0))

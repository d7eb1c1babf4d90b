"""Issue 14's last NumPy functions applied to Tensors: ``np.gradient`` (a Tensor or a tuple
of Tensors), ``np.partition``, ``np.select`` (the default differentiable too) and the
complex-number functions, with PyTorch's spellings on a real tensor (``t.real`` and
``t.conj()`` are the tensor itself, ``t.imag`` raises). Gradients match central finite
differences and the compiler's, to second order through ``create_graph``."""

from __future__ import annotations

import numpy as np
import pytest

import srcgrad as sg
from tests.fd import assert_close, numeric_gradient

X = np.array([[0.6, -1.3, 0.4, 2.0], [1.1, -0.7, 0.9, -0.1], [0.2, 0.5, -1.4, 0.8]])
W = np.array([[1.0, -0.5, 2.0, 0.35], [0.7, 1.5, -1.0, 0.2], [-0.4, 0.9, 0.6, 1.1]])
COORDS = [0.0, 0.3, 1.0, 1.6]


def gradient_program(x):
    d0, d1 = np.gradient(x * x, 0.5, COORDS, edge_order=2)
    return np.sum(d0 * W) + np.sum(np.gradient(x, axis=1) ** 2 * d1)


def partition_program(x):
    return np.sum(np.partition(x * W, [0, 2], axis=1) * W) + np.sum(np.partition(x, 1, axis=0))


def select_program(x, d):
    chosen = np.select([W > 0.8, W < -0.3], [x ** 2, x * W], default=d)
    return np.sum(chosen * W)


def complex_parts_program(x):
    return np.sum(np.real(x) * np.conj(x * W) + np.conjugate(x) + np.real_if_close(x) ** 2
                  + np.imag(x) + np.angle(x))


@pytest.mark.parametrize("program", [gradient_program, partition_program,
                                     complex_parts_program], ids=lambda f: f.__name__)
def test_numpy_function_on_a_tensor_differentiates_like_the_compiler(program):
    t = sg.tensor(X, requires_grad=True)
    program(t).backward()
    expected = numeric_gradient(program, [X], {}, 0)
    assert np.any(expected != 0)
    assert_close(t.grad.numpy(), expected)
    assert_close(sg.grad(program)(X), expected)


@pytest.mark.parametrize("program", [gradient_program, partition_program],
                         ids=lambda f: f.__name__)
def test_second_order_on_tensors_matches_the_compilers_hessian(program):
    t = sg.tensor(X, requires_grad=True)
    (g,) = sg.autograd.grad(program(t), t, create_graph=True)
    direction = np.cos(np.arange(X.size)).reshape(X.shape)
    (hv,) = sg.autograd.grad(np.sum(g * sg.tensor(direction)), t)
    want = np.tensordot(sg.hessian(program)(X), direction, axes=2)
    assert_close(hv.numpy(), want, rtol=1e-6, atol=1e-8)


def test_numpy_select_on_tensors_differentiates_choices_and_default():
    t = sg.tensor(X, requires_grad=True)
    d = sg.tensor(0.7, requires_grad=True)
    select_program(t, d).backward()
    assert_close(t.grad.numpy(), numeric_gradient(select_program, [X, 0.7], {}, 0))
    assert_close(float(d.grad), numeric_gradient(select_program, [X, 0.7], {}, 1))
    assert float(d.grad) != 0.0


def test_gradient_of_a_tensor_returns_a_tuple_of_tensors_or_one_tensor():
    t = sg.tensor(X, requires_grad=True)
    parts = np.gradient(t)
    assert type(parts) is tuple and len(parts) == 2
    assert all(isinstance(p, sg.Tensor) and p.requires_grad for p in parts)
    one = np.gradient(t, axis=0)
    assert isinstance(one, sg.Tensor)
    np.testing.assert_array_equal(one.detach().numpy(), np.gradient(X, axis=0))


def test_real_and_conj_of_a_real_tensor_are_the_tensor_and_imag_raises_as_pytorch():
    t = sg.tensor(X, requires_grad=True)
    assert t.real is t and t.conj() is t and sg.real(t) is t and sg.conj(t) is t
    with pytest.raises(RuntimeError, match="imag is not implemented for tensors with "
                                           "non-complex dtypes"):
        t.imag  # noqa: B018
    with pytest.raises(RuntimeError, match="non-complex"):
        sg.imag(t)


def test_argpartition_and_the_complex_predicates_on_tensors_give_no_gradient():
    t = sg.tensor(X, requires_grad=True)
    order = np.argpartition(t, 1)
    np.testing.assert_array_equal(np.asarray(order), np.argpartition(X, 1))
    assert not np.iscomplexobj(t) and np.isrealobj(t)
    flags = np.iscomplex(t)
    assert not getattr(flags, "requires_grad", False)
    assert not np.any(np.asarray(flags))

"""Where a decomposition's derivative does not exist, srcgrad says so with ``nan``/``inf``
(as PyTorch does), never a finite wrong number; where it exists although values repeat
(a function of the eigenvalues or singular values alone), it is finite and right.
``rules/decompositions.py`` documents the conditions."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import srcgrad as sg

REPEATED = np.diag([1.0, 1.0, 2.0])  # eigenvalue 1 twice


def eigenvalue_energy(a):
    return np.sum(np.linalg.eigvalsh(a) ** 2)


def eigh_value_energy(a):
    w, V = np.linalg.eigh(a)
    return np.sum(w ** 2)


def eigenvector_cubes(a):
    w, V = np.linalg.eigh(a)
    return np.sum(V ** 3)


def singular_value_sum(a):
    return np.sum(np.linalg.svd(a, compute_uv=False) ** 2)


def singular_vector_cubes(a):
    U, s, Vt = np.linalg.svd(a, full_matrices=False)
    return np.sum(U ** 3)


@pytest.mark.parametrize("f", [eigenvalue_energy, eigh_value_energy])
def test_eigenvalues_differentiate_at_repeated_eigenvalues(f):
    # sum(w^2) = ||A||_F^2 for symmetric A: gradient 2 A, in both modes
    sg.clear_cache()
    np.testing.assert_allclose(sg.grad(f)(REPEATED), 2.0 * REPEATED, atol=1e-12)
    u = np.eye(3) + np.ones((3, 3))
    _, t = sg.jvp(f)(REPEATED, u)
    assert t == pytest.approx(np.sum(2.0 * REPEATED * u))


def test_singular_values_differentiate_at_repeated_singular_values():
    sg.clear_cache()
    np.testing.assert_allclose(sg.grad(singular_value_sum)(REPEATED), 2.0 * REPEATED,
                               atol=1e-12)


@pytest.mark.parametrize("f", [eigenvector_cubes, singular_vector_cubes])
def test_vectors_at_repeated_values_give_a_non_finite_gradient_not_a_wrong_one(f):
    sg.clear_cache()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # NumPy's divide by zero
        g = sg.grad(f)(REPEATED)
        _, t = sg.jvp(f)(REPEATED, np.ones((3, 3)))
    assert not np.all(np.isfinite(g))
    assert not np.isfinite(t)
    a = sg.tensor(REPEATED, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        (sg.linalg.eigh(a).eigenvectors ** 3).sum().backward()
    assert not np.all(np.isfinite(a.grad.numpy()))

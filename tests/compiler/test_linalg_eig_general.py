"""``np.linalg.eig`` / ``np.linalg.eigvals`` of a real matrix (rules/eig_general.py).

With real, distinct eigenvalues the values and NumPy's unit-norm eigenvectors differentiate
in reverse mode, forward mode and to second order (checked against central finite
differences; the programs read the vectors through sign-independent expressions or
``np.abs``, as a user must: LAPACK picks each column's sign). A matrix with complex
eigenvalues is refused when it runs (a ``SrcGradError`` naming the user's line); on Tensors the same rules
record the graph.
"""

from __future__ import annotations

import numpy as np
import pytest
from allmodes import assert_refused, check_all_modes
from fd import assert_close, numeric_gradient

import srcgrad as sg

_BASIS = np.array([[2.0, 0.3, -0.4, 0.1], [0.2, 1.8, 0.5, -0.3], [-0.1, 0.4, 2.2, 0.2],
                   [0.3, -0.2, 0.1, 1.9]])
A = _BASIS @ np.diag([0.5, -1.0, 2.0, 3.5]) @ np.linalg.inv(_BASIS)  # real, distinct
W = np.cos(np.arange(16.0)).reshape(4, 4)
ROTATION = np.array([[0.0, -1.0], [1.0, 0.0]])  # eigenvalues +-i


def eig_values_and_vector_magnitudes(a):
    w, v = np.linalg.eig(a)
    return np.sum(w * np.arange(1.0, 5.0)) + np.sum(np.abs(v) * W)


def eig_projectors_do_not_depend_on_the_sign(a):
    w, v = np.linalg.eig(a)
    return np.sum((v * v[0:1]) * W) + np.sum(np.sort(w) ** 2)


def eigvals_squared(a):
    return np.sum(np.linalg.eigvals(a * 1.5) ** 2)


def eig_result_attributes(a):
    result = np.linalg.eig(a)
    return np.sum(result.eigenvalues ** 3) + np.sum(result.eigenvectors ** 2 * W)


@pytest.mark.parametrize("fn", [eig_values_and_vector_magnitudes,
                                eig_projectors_do_not_depend_on_the_sign, eigvals_squared,
                                eig_result_attributes], ids=lambda f: f.__name__)
def test_eig_of_a_matrix_with_real_eigenvalues_differentiates_in_every_mode(fn):
    check_all_modes(fn, A.copy())


def test_eig_vectors_tangent_keeps_the_columns_unit_norm():
    def vectors(a):
        return np.linalg.eig(a)[1]

    direction = np.sin(np.arange(16.0)).reshape(4, 4)
    v, dv = sg.jvp(vectors)(A, direction)
    # d/dt |v_j|^2 = 2 v_j . dv_j = 0: NumPy's normalisation, differentiated
    assert_close(np.sum(v * dv, axis=0), np.zeros(4), atol=1e-10)


def eig_of_a_rotation(a):
    w, v = np.linalg.eig(a)  # <- error
    return np.sum(np.abs(w))


@pytest.mark.parametrize("mode", ["reverse", "forward"])
def test_eig_with_complex_eigenvalues_is_refused_when_it_runs(mode):
    assert_refused(eig_of_a_rotation, ROTATION, ["complex eigenvalues"], mode)
    sg.clear_cache()
    with pytest.raises(sg.SrcGradError, match="real values only.*np.linalg.eigh"):
        sg.grad(eig_of_a_rotation)(ROTATION)


def test_eig_on_tensors_records_the_same_rules():
    t = sg.tensor(A, requires_grad=True)
    eig_values_and_vector_magnitudes(t).backward()
    expected = numeric_gradient(eig_values_and_vector_magnitudes, [A], {}, 0)
    assert_close(t.grad.numpy(), expected, rtol=1e-5, atol=1e-6)
    with pytest.raises((ValueError, RuntimeError), match="complex eigenvalues"):
        np.linalg.eig(sg.tensor(ROTATION, requires_grad=True))

"""Methods of an object that a call without a rule makes at run time
(``rng = np.random.RandomState(0); rng.randn(n)``, autograd's reparameterization test).

``.randn`` used to be refused as "not an attribute of an array". The method call is now
another opaque call (compiler/frontend/methods.py), made when the derivative runs, as the
user wrote it: its result has no derivative, so it is right where no differentiated
value reaches it, and refused (naming the method) where one does.
"""

from __future__ import annotations

import numpy as np
import pytest
from allmodes import assert_refused, check_all_modes

A = np.array([[4.0, 0.5, 0.2], [0.5, 3.0, -0.4], [0.2, -0.4, 5.0]])


def reparameterized_norm(a):
    rng = np.random.RandomState(0)
    z = np.dot(np.linalg.cholesky(a), rng.randn(a.shape[0]))
    return np.linalg.norm(z)


def noise_scaled(x):
    rng = np.random.RandomState(3)
    eps = rng.standard_normal(x.shape)
    return np.sum(np.sin(x) * eps + x ** 2 * rng.uniform(0.5, 1.5))


def test_random_state_made_inside_gives_constant_noise_in_all_modes():
    check_all_modes(reparameterized_norm, A, second_order=False)
    check_all_modes(noise_scaled, np.array([0.3, -1.2, 0.8]))


def noise_around_a_traced_mean(x):
    rng = np.random.RandomState(0)
    return np.sum(rng.normal(x, 1.0))  # <- error


@pytest.mark.parametrize("mode", ["reverse", "forward"])
def test_traced_value_passed_to_a_run_time_objects_method_is_refused(mode):
    assert_refused(noise_around_a_traced_mean, np.ones(2), ["RandomState(...).normal"], mode)

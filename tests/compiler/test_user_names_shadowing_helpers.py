"""A user's variable named like a helper the derivative code imports (``lower``, the
triangle helper of cholesky's rule) used to shadow it in the emitted code (TypeError:
'numpy.ndarray' object is not callable). The import is now aliased (backend/names.py)."""

from __future__ import annotations

import numpy as np
from allmodes import check_all_modes

import srcgrad as sg


def cholesky_of_a_variable_named_lower(a):
    lower = np.tril(a)
    return np.sum(np.linalg.cholesky((lower + lower.T) / 2.0) * np.arange(9.0).reshape(3, 3))


def test_user_variable_named_like_an_imported_helper_does_not_shadow_it():
    a = np.array([[4.0, 0.5, 0.2], [0.5, 3.0, -0.4], [0.2, -0.4, 5.0]])
    check_all_modes(cholesky_of_a_variable_named_lower, a, second_order=False)
    text = sg.source(sg.grad(cholesky_of_a_variable_named_lower), a)
    assert "lower as lower_1" in text and text.count("import lower") <= 1

"""Every shape, joining and product function of API.md (v3) that issue 14 covers has a
differentiable rule in the table, reached from NumPy's own function object."""

from __future__ import annotations

import numpy as np
import pytest

from srcgrad.rules import NONDIFF, rule_for

SHAPE_FUNCTIONS = [
    np.tensordot, np.kron, np.cross, np.vstack, np.hstack, np.column_stack, np.dstack,
    np.tril, np.triu, np.diagonal, np.rot90, np.flipud, np.fliplr, np.roll, np.rollaxis,
    np.fft.fftshift, np.fft.ifftshift,
    np.moveaxis, np.swapaxes, np.atleast_1d, np.atleast_2d, np.atleast_3d, np.pad,
    np.append, np.diff, np.take, np.take_along_axis, np.einsum, np.linspace,
]


@pytest.mark.parametrize("fn", SHAPE_FUNCTIONS, ids=lambda f: f.__name__)
def test_shape_function_has_a_differentiable_rule(fn):
    rule = rule_for(fn)
    assert rule is not None and rule.kind != NONDIFF and rule.vjp

"""``broadcast_shape`` (emitted per call for the shape of a broadcast the gradient needs)
computes by hand what ``np.broadcast_shapes`` does, and raises NumPy's own error."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from srcgrad.rules.shape_math import broadcast_shape

SHAPES = [(), (1,), (3,), (2, 1), (1, 3), (2, 3), (4, 1, 3), (4, 2, 1), (1, 1), (0,), (0, 3),
          (2, 0), (1, 0)]


@pytest.mark.parametrize("a, b", list(itertools.product(SHAPES, SHAPES)))
def test_broadcast_shape_is_numpys(a, b):
    try:
        want = np.broadcast_shapes(a, b)
    except ValueError as error:
        with pytest.raises(ValueError, match="shape mismatch") as raised:
            broadcast_shape(a, b)
        assert str(raised.value) == str(error)
        return
    got = broadcast_shape(a, b)
    assert got == want and type(got) is tuple and all(type(n) is int for n in got)

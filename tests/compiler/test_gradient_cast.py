"""The cast of a derivative's result back to its argument's type (``like``, and the seed
check ``seed_one``), called once per gradient on every call: on Python and NumPy types it
looks for no foreign array protocol (that scan cost W4's gradient a fifth of its time),
and it still gives the argument's type, shape and dtype."""

import numpy as np
import pytest

import srcgrad.compiler.support as support


def _no_foreign_scan(value):
    raise AssertionError(f"like/seed_one scanned {type(value).__name__} for a foreign protocol")


@pytest.mark.parametrize("d, x", [
    (0.25, 3.0), (np.float64(0.25), 3.0), (np.asarray(0.25), 3.0),
    (np.float64(2.0), np.float32(1.0)), (np.ones(3), np.zeros(3)),
    (np.ones(3, np.float32), np.zeros(3)), (2.0, np.zeros((2, 2))),
])
def test_casting_a_gradient_of_python_or_numpy_types_looks_for_no_foreign_protocol(
        d, x, monkeypatch):
    monkeypatch.setattr(support, "foreign", _no_foreign_scan)
    got = support.like(d, x)
    assert type(got) is type(x) and np.shape(got) == np.shape(x)
    assert np.result_type(got) == np.result_type(x)
    np.testing.assert_array_equal(got, np.broadcast_to(np.asarray(d, np.float64), np.shape(x)))
    assert support.seed_one(np.float64(3.0)) == 1.0
    assert support.seed_one(np.ones((1, 1))).shape == (1, 1)

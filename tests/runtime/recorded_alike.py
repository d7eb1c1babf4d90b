"""Checking that a fast record path recorded what ``ops.record`` records (shared by the
fixed-form tests, ``test_fixed_reductions.py`` and ``test_fixed_products.py``): the same
value, dtype, node class and saved values, and the same gradients after one backward."""

from __future__ import annotations

import numpy as np

import srcgrad as sg


def saved_arrays(node):
    """Saved values as arrays (the result is kept as its data, counter and version)."""
    return {k: (v.numpy(force=True) if isinstance(v, sg.Tensor) else
                v[0] if k == "out" else v) for k, v in node.saved_values().items()}


def assert_recorded_alike(fast, slow, dtype):
    """``fast`` and ``slow`` (the general path's result) hold the same value and dtype,
    nodes of one class saving the same values; both are then backpropagated with one seed
    (the caller compares the leaves' gradients)."""
    assert fast.dtype == slow.dtype == dtype
    np.testing.assert_array_equal(fast.numpy(force=True), slow.numpy(force=True))
    assert type(fast.grad_fn) is type(slow.grad_fn)
    a, b = saved_arrays(fast.grad_fn), saved_arrays(slow.grad_fn)
    assert sorted(a) == sorted(b)
    for k in a:
        np.testing.assert_array_equal(a[k], b[k])


def backward_with_one_seed(fast, slow, dtype):
    seed = np.random.default_rng(1).standard_normal(fast.shape)
    fast.backward(sg.tensor(seed, dtype=dtype))
    slow.backward(sg.tensor(seed, dtype=dtype))

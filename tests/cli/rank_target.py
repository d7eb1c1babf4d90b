"""Targets for ``srcgrad show`` rank checks and decorated gradients (tests/cli)."""

import numpy as np

import srcgrad as sg


def pick(x):
    return x[0, 1] * 2.0


def inverse_sum(A):
    return np.sum(np.linalg.inv(A))


def sized(x):
    assert x.shape == (7,), "only length 7"  # about a length, not a rank: not refused
    return np.sum(x)


@sg.grad
def decorated(x):
    return np.sum(np.sin(x))

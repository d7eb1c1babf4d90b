"""A module whose globals another module's differentiated function reads (test_captured)."""

import numpy as np

DATA = np.array([[0.5, -1.0, 2.0], [1.0, 0.25, -0.5]])
SCALE = 1.5


def squash(v):
    return np.tanh(v) * 2.0

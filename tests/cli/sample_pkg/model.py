"""Functions named as ``sample_pkg.model:function`` in the ``srcgrad show`` tests."""

import numpy as np


def energy(x):
    return np.sum(np.tanh(x) ** 2)

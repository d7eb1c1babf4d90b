# ruff: noqa
# Golden emitted source (pytest --update-golden regenerates it).
import numpy as np


def grad_sin_sum(x):
    # line 16: return np.sin(x * 3).sum()
    dx = np.cos(x * 3.0) * 3.0
    return dx

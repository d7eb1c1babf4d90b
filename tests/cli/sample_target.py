"""A user's script for the ``srcgrad show`` tests: loading it must not run its main block."""

import numpy as np


def loss(x, y, scale=2.0):
    """Differentiable in x and y."""
    z = np.sin(x) * y
    return np.sum(scale * z * z)


def with_try(x):
    try:
        y = x * 2.0
    except ValueError:
        y = x
    return np.sum(y)


def mlp_loss(params, x):
    """Parameters in a dict: ``srcgrad show --types 'dict(W=array[2],b=float),array[1]'``."""
    h = np.tanh(params["W"] @ x + params["b"])
    return np.sum(h * h)


NOT_A_FUNCTION = 3


if __name__ == "__main__":
    print("MAIN BLOCK RAN")
    raise SystemExit(7)

"""Quickstart: srcgrad reads a NumPy function and writes its gradient as Python source.

Run:       python examples/quickstart.py
Or view:   srcgrad show examples/quickstart.py:loss --types array[2],array[1],array[1]
"""

import numpy as np

import srcgrad as sg


def loss(W, x, y):
    """Squared error of a one-layer tanh network."""
    h = np.tanh(W @ x)
    return np.sum((h - y) ** 2)


if __name__ == "__main__":
    rng = np.random.default_rng(0)
    W, x, y = rng.normal(size=(3, 4)), rng.normal(size=4), rng.normal(size=3)

    dloss_dW = sg.grad(loss)  # gradient with respect to argument 0, W
    print("loss:", loss(W, x, y))
    print("dloss/dW:\n", dloss_dW(W, x, y))

    # The same gradient through the PyTorch-style runtime, as a check.
    Wt = sg.tensor(W, requires_grad=True)
    sg.sum((sg.tanh(Wt @ sg.tensor(x)) - sg.tensor(y)) ** 2).backward()
    print("runtime agrees:", np.allclose(Wt.grad.numpy(), dloss_dW(W, x, y)))

    print("\nThe code srcgrad wrote for dloss/dW:\n")
    print(sg.source(dloss_dW, W, x, y))

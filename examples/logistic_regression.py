"""Logistic regression trained by gradient descent, its gradient made by ``@sg.grad``.

Run: python examples/logistic_regression.py
See the gradient code: srcgrad show examples/logistic_regression.py:loss --wrt w,b
"""

import numpy as np

import srcgrad as sg


def loss(w, b, X, y):
    """Mean negative log-likelihood; log(1 + e^z) as logaddexp(0, z) stays finite."""
    z = X @ w + b
    return np.mean(np.logaddexp(0.0, z) - y * z)


@sg.grad(wrt=("w", "b"))
def loss_grad(w, b, X, y):
    """The decorated name is the gradient: (dloss/dw, dloss/db)."""
    return loss(w, b, X, y)


def make_data(n=200, seed=0):
    """Two features, labels from a known line plus noise."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    y = (X @ np.array([2.0, -3.0]) + 0.5 + rng.normal(scale=0.5, size=n) > 0).astype(float)
    return X, y


if __name__ == "__main__":
    X, y = make_data()
    w, b = np.zeros(2), 0.0
    for step in range(201):
        if step % 40 == 0:
            print(f"step {step:3d}  loss {loss(w, b, X, y):.4f}")
        dw, db = loss_grad(w, b, X, y)
        w, b = w - 0.5 * dw, b - 0.5 * db
    accuracy = np.mean((X @ w + b > 0) == (y == 1))
    print(f"w = {np.round(w, 2)}, b = {b:.2f}, accuracy {accuracy:.1%}")
    print("gradient code:\n" + sg.source(loss_grad, w, b, X, y))

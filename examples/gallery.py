"""Three short functions whose generated gradients the README shows.

Run:   python examples/gallery.py
View:  srcgrad show examples/gallery.py:softplus_loss --types array[1],array[2]
       srcgrad show examples/gallery.py:scalar_loop --types float
       srcgrad show examples/gallery.py:fixed_point --types float
"""

import math

import numpy as np

import srcgrad as sg


def softplus_loss(w, X):
    """Mean softplus of a linear model's scores (arrays)."""
    z = X @ w
    return np.mean(np.logaddexp(0.0, z))


def scalar_loop(x):
    """A loop on Python floats: the emitted derivative stays on floats and math.*."""
    y = x
    for _ in range(3):
        y = y * x + math.sin(y)
    return y


def fixed_point(a):
    """Newton's method for x = cos(a x): a while loop with a data-dependent trip count."""
    x = 1.0
    delta = 1.0
    while abs(delta) > 1e-10:
        delta = (x - math.cos(a * x)) / (1.0 + a * math.sin(a * x))
        x = x - delta
    return x


if __name__ == "__main__":
    w, X = np.array([0.5, -0.25]), np.arange(6.0).reshape(3, 2) / 6
    print("d softplus_loss / dw:", sg.grad(softplus_loss)(w, X))
    print("d scalar_loop / dx at 0.5:", sg.grad(scalar_loop)(0.5))
    a, h = 5.0, 1e-6
    slope = (fixed_point(a + h) - fixed_point(a - h)) / (2 * h)
    print(f"d fixed_point / da at 5: {sg.grad(fixed_point)(a):.8f} "
          f"(finite differences: {slope:.8f})")

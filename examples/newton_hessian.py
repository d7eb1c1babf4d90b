"""Newton's method with an exact Hessian: ``sg.grad`` and ``sg.hessian`` of a Rosenbrock
function of three parameters, minimised in a handful of steps from a standard bad start.

Run: python examples/newton_hessian.py
See the gradient code: srcgrad show examples/newton_hessian.py:rosenbrock --annotate
"""

import numpy as np

import srcgrad as sg


def rosenbrock(p):
    """A curved valley with its minimum 0 at p = (1, 1, 1)."""
    head, tail = p[:-1], p[1:]
    return np.sum((1.0 - head) ** 2 + 10.0 * (tail - head ** 2) ** 2)


gradient = sg.grad(rosenbrock)
hessian = sg.hessian(rosenbrock)  # forward mode over the reverse-mode gradient


def newton(p, steps=20, tol=1e-12):
    """Newton steps; a step that would not lower f is halved (the Hessian is not
    positive definite everywhere on the way)."""
    for k in range(steps):
        g = gradient(p)
        print(f"step {k}: p = {np.array2string(p, precision=6)}  f = {rosenbrock(p):.3e}"
              f"  |grad| = {np.linalg.norm(g):.3e}")
        if np.linalg.norm(g) < tol:
            return p
        step = np.linalg.solve(hessian(p), -g)
        while rosenbrock(p + step) > rosenbrock(p) and np.linalg.norm(step) > 1e-12:
            step = step / 2
        p = p + step
    return p


if __name__ == "__main__":
    start = np.array([-1.2, 1.0, 1.0])
    h, eps = hessian(start), 1e-6
    columns = [(gradient(start + eps * e) - gradient(start - eps * e)) / (2 * eps)
               for e in np.eye(3)]
    print("Hessian at the start:\n", np.array2string(h, precision=3))
    print("matches finite differences of the gradient:",
          np.allclose(h, np.stack(columns, axis=1), rtol=1e-6, atol=1e-5))
    found = newton(start)
    print("minimum found at", np.array2string(found, precision=8),
          "error", f"{np.max(np.abs(found - 1.0)):.1e}")

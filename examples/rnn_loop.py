"""A recurrent cell in a ``for`` loop, differentiated by source transformation.

The reverse pass runs the loop backwards over the hidden states the forward loop
recorded; the gradient is checked against central finite differences.

Run: python examples/rnn_loop.py
See the gradient code: srcgrad show examples/rnn_loop.py:rnn_loss --wrt W,U
"""

import numpy as np

import srcgrad as sg


def rnn_loss(W, U, xs, h0):
    """Run h <- tanh(W h + U x) over the rows of xs; the loss is the last state's energy."""
    h = h0
    for x in xs:
        h = np.tanh(W @ h + U @ x)
    return 0.5 * np.sum(h ** 2)


def finite_difference(f, args, wrt, eps=1e-6):
    """Central differences of f with respect to args[wrt], entry by entry."""
    x = args[wrt]
    grad = np.zeros_like(x)
    for index in np.ndindex(x.shape):
        step = np.zeros_like(x)
        step[index] = eps
        plus, minus = list(args), list(args)
        plus[wrt], minus[wrt] = x + step, x - step
        grad[index] = (f(*plus) - f(*minus)) / (2 * eps)
    return grad


if __name__ == "__main__":
    rng = np.random.default_rng(0)
    W = rng.normal(scale=0.5, size=(4, 4))
    U = rng.normal(size=(4, 3))
    xs = rng.normal(size=(6, 3))  # a sequence of 6 inputs
    h0 = np.zeros(4)
    dW, dU = sg.grad(rnn_loss, wrt=("W", "U"))(W, U, xs, h0)
    for name, grad, wrt in (("W", dW, 0), ("U", dU, 1)):
        fd = finite_difference(rnn_loss, (W, U, xs, h0), wrt)
        print(f"d loss / d {name}: max |srcgrad - finite differences| = "
              f"{np.max(np.abs(grad - fd)):.1e}")
        assert np.allclose(grad, fd, rtol=1e-5, atol=1e-7)
    print("gradient check passed for a sequence of", len(xs), "steps")

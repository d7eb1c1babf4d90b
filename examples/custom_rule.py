"""A custom derivative with ``sg.defvjp``: the straight-through estimator for rounding.

np.round has derivative zero almost everywhere, so weights that are rounded in the
forward pass (quantisation-aware training) would never learn. The straight-through
estimator passes the cotangent through unchanged. The rule, registered once, serves
the compiler (``sg.grad``) and the Tensor runtime alike.

Run: python examples/custom_rule.py
See the gradient code: srcgrad show examples/custom_rule.py:loss
"""

import numpy as np

import srcgrad as sg

# rule(g, out, x) -> the cotangent of x: here just g. Registered by np.round's identity,
# so every np.round the compiler resolves, and np.round on a Tensor, use it from now on.
sg.defvjp(np.round, lambda g, out, x: g)


def quantize(w):
    """Weights on a grid of 1/8."""
    return np.round(w * 8) / 8


def loss(w, x, y):
    return np.mean((x @ quantize(w) - y) ** 2)


if __name__ == "__main__":
    rng = np.random.default_rng(0)
    x = rng.normal(size=(50, 3))
    y = x @ np.array([0.3, -0.6, 1.1])
    w = np.zeros(3)
    loss_grad = sg.grad(loss)
    for step in range(41):
        if step % 10 == 0:
            print(f"step {step:2d}  loss {loss(w, x, y):.5f}  quantized w {quantize(w)}")
        w = w - 0.1 * loss_grad(w, x, y)

    # The same rule through the runtime: np.round on a Tensor records the user's rule.
    w_t = sg.tensor(w, requires_grad=True)
    loss_t = ((sg.tensor(x) @ quantize(w_t) - sg.tensor(y)) ** 2).mean()
    loss_t.backward()
    print("runtime gradient: ", np.round(w_t.grad.numpy(), 6))
    print("compiler gradient:", np.round(loss_grad(w, x, y), 6))
    print("agree:", np.allclose(w_t.grad.numpy(), loss_grad(w, x, y)))

"""A two-layer network whose parameters live in a dict, trained with ``sg.value_and_grad``.

The gradient comes back as a dict with the same keys (array leaves stay arrays, the float
leaf ``temperature`` stays a float), and the update is one ``sg.tree_map`` over parameters
and gradients together.

Run: python examples/mlp_params.py
See the gradient code:
    srcgrad show examples/mlp_params.py:loss --types \\
        'dict(W1=array[2],b1=array[1],W2=array[2],b2=array[1],temperature=float),array[2],array[1]'
"""

import numpy as np

import srcgrad as sg


def predict(params, X):
    h = np.tanh(X @ params["W1"] + params["b1"])
    return (h @ params["W2"] + params["b2"]) / params["temperature"]


def loss(params, X, y):
    """Mean negative log-likelihood of labels y in {0, 1} (logaddexp keeps it finite)."""
    z = predict(params, X)[:, 0]
    return np.mean(np.logaddexp(0.0, z) - y * z)


def init(rng, hidden=8):
    return {"W1": rng.normal(scale=0.5, size=(2, hidden)), "b1": np.zeros(hidden),
            "W2": rng.normal(scale=0.5, size=(hidden, 1)), "b2": np.zeros(1),
            "temperature": 1.0}


def make_data(n=200, seed=0):
    """Two interleaved classes: inside or outside a circle (not linearly separable)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    y = (np.sum(X * X, axis=1) < 1.2).astype(float)
    return X, y


loss_and_grad = sg.value_and_grad(loss)

if __name__ == "__main__":
    rng = np.random.default_rng(1)
    X, y = make_data()
    params = init(rng)
    lr = 0.5
    for step in range(301):
        value, grads = loss_and_grad(params, X, y)
        if step % 60 == 0:
            print(f"step {step:3d}  loss {value:.4f}")
        params = sg.tree_map(lambda p, g: p - lr * g, params, grads)
    accuracy = np.mean((predict(params, X)[:, 0] > 0) == (y == 1))
    print(f"gradient keys: {sorted(grads)}; temperature gradient is a "
          f"{type(grads['temperature']).__name__}")
    print(f"accuracy {accuracy:.1%}")

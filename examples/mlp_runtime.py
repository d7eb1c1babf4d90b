"""A two-layer perceptron fitted to sin(x) with the Tensor runtime and ``sg.optim.Adam``.

Run: python examples/mlp_runtime.py   (the same loop as in PyTorch, ``torch`` -> ``sg``)
"""

import srcgrad as sg


def init_params(sizes=(1, 32, 1)):
    """Weights scaled by 1/sqrt(fan_in), zero biases; every one a leaf that requires grad."""
    params = []
    for fan_in, fan_out in zip(sizes[:-1], sizes[1:]):
        weight = sg.randn(fan_in, fan_out) / fan_in ** 0.5
        params += [weight.requires_grad_(), sg.zeros(fan_out, requires_grad=True)]
    return params


def forward(params, x):
    """tanh hidden layer, linear output."""
    w1, b1, w2, b2 = params
    return (x @ w1 + b1).tanh() @ w2 + b2


if __name__ == "__main__":
    sg.manual_seed(0)
    x = sg.linspace(-3.0, 3.0, 64).reshape(-1, 1)
    y = x.sin()
    params = init_params()
    optimizer = sg.optim.Adam(params, lr=0.01)
    for step in range(501):
        optimizer.zero_grad()  # .grad accumulates: reset it every step
        loss = ((forward(params, x) - y) ** 2).mean()
        loss.backward()
        optimizer.step()
        if step % 100 == 0:
            print(f"step {step:3d}  loss {loss.item():.5f}")
    with sg.no_grad():
        test = sg.tensor([[0.5], [-2.0]])
        print("f(0.5), f(-2.0):", [round(v, 2) for v in forward(params, test).flatten().tolist()],
              " sin:", [round(v, 2) for v in test.sin().flatten().tolist()])

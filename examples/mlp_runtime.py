"""A two-layer perceptron fitted to sin(x), written as a PyTorch user writes it.

Run: python examples/mlp_runtime.py   (the PyTorch program with ``torch`` -> ``sg``:
``nn.Module``, ``nn.Linear``, ``nn.functional.mse_loss``, ``optim.Adam``)
"""

import srcgrad as sg
import srcgrad.nn as nn
import srcgrad.nn.functional as F


class MLP(nn.Module):
    """tanh hidden layer, linear output; the layers register their parameters."""

    def __init__(self, hidden=32):
        super().__init__()
        self.hidden = nn.Linear(1, hidden)
        self.out = nn.Linear(hidden, 1)

    def forward(self, x):
        return self.out(F.tanh(self.hidden(x)))


if __name__ == "__main__":
    sg.manual_seed(0)
    x = sg.linspace(-3.0, 3.0, 64).reshape(-1, 1)
    y = x.sin()
    model = MLP()
    optimizer = sg.optim.Adam(model.parameters(), lr=0.01)
    for step in range(501):
        optimizer.zero_grad()  # .grad accumulates: reset it every step
        loss = F.mse_loss(model(x), y)
        loss.backward()
        optimizer.step()
        if step % 100 == 0:
            print(f"step {step:3d}  loss {loss.item():.5f}")
    model.eval()
    with sg.no_grad():
        test = sg.tensor([[0.5], [-2.0]])
        print("f(0.5), f(-2.0):", [round(v, 2) for v in model(test).flatten().tolist()],
              " sin:", [round(v, 2) for v in test.sin().flatten().tolist()])

"""Functions whose source shapes the ``--annotate`` listing: a statement over several
lines, a loop, a branch, and a method (indented in its file)."""

import numpy as np


def spread(x, w):
    total = np.sum(
        w * np.sin(x)
    )
    return total * total


def looped(x, n=3):
    acc = x
    for _ in range(n):
        acc = np.tanh(acc) * 2.0
    if n > 2:
        acc = acc + x
    return np.sum(acc)


class Model:
    @staticmethod
    def energy(x):
        y = np.exp(x)
        return np.sum(y * x)


if __name__ == "__main__":
    raise SystemExit("not run by srcgrad show")

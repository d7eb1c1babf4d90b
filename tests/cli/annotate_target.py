"""Functions whose source shapes the ``--annotate`` listing: a statement over several
lines, a loop, a branch, a method (indented in its file) and a lambda."""

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


squared = lambda x: np.sum(x * x)  # noqa: E731 (a lambda target on purpose)


class Model:
    @staticmethod
    def energy(x):
        y = np.exp(x)
        return np.sum(y * x)


if __name__ == "__main__":
    raise SystemExit("not run by srcgrad show")

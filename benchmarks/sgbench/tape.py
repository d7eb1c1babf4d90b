"""A 40-line NumPy tape: the hand-written baseline of the runtime row (W5).

What a person writes for a dynamic graph without a framework: each operation records its
inputs and a closure mapping the output's gradient to theirs; ``backward`` walks the
records in reverse creation order. It offers just what ``runtime_overhead.graph_step``
calls (``*``, ``+``, ``.sin()``, ``.sum()``, ``.backward()``, ``.grad``).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np


class Var:
    """An array on the tape: its value, its gradient, and how to push a gradient back."""

    __slots__ = ("data", "grad", "parents")

    def __init__(self, data: np.ndarray, requires_grad: bool = False,
                 parents: tuple[tuple[Var, Callable[[np.ndarray], np.ndarray]], ...] = ()):
        self.data, self.grad, self.parents = np.asarray(data), None, parents

    def __mul__(self, other: Var | float) -> Var:
        if isinstance(other, Var):
            return Var(self.data * other.data, parents=((self, lambda g: g * other.data),
                                                        (other, lambda g: g * self.data)))
        return Var(self.data * other, parents=((self, lambda g: g * other),))

    def __add__(self, other: Var) -> Var:
        return Var(self.data + other.data, parents=((self, lambda g: g), (other, lambda g: g)))

    def sin(self) -> Var:
        return Var(np.sin(self.data), parents=((self, lambda g: g * np.cos(self.data)),))

    def sum(self) -> Var:
        shape = self.data.shape
        return Var(self.data.sum(), parents=((self, lambda g: np.broadcast_to(g, shape)),))

    def backward(self) -> None:
        order, seen = [], set()

        def visit(node: Var) -> None:  # topological order: a node after all it reads
            if id(node) not in seen:
                seen.add(id(node))
                for parent, _ in node.parents:
                    visit(parent)
                order.append(node)

        visit(self)
        grads = {id(self): np.ones_like(self.data)}
        for node in reversed(order):
            g = grads.pop(id(node), None)
            if g is None:
                continue
            if not node.parents:
                node.grad = g if node.grad is None else node.grad + g
            for parent, push in node.parents:
                contribution = push(g)
                previous = grads.get(id(parent))
                grads[id(parent)] = contribution if previous is None else previous + contribution

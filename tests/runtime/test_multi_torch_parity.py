"""The runtime's tuple-returning operations against PyTorch 2.13 (skipped without torch):
``t.split`` (a size, a list of sizes), ``t.chunk``, ``t.unbind``, ``t.sort`` (values,
indices, descending), their ``sg.*`` function spellings and ``sg.meshgrid``: same values, same gradients, same node names."""

from __future__ import annotations

import numpy as np
import pytest

import srcgrad as sg
from tests.fd import assert_close

torch = pytest.importorskip("torch")

X = np.array([[0.6, -1.3, 0.4, 2.0, 0.1], [1.1, -0.7, 0.9, -0.2, 1.6],
              [0.2, 0.5, -1.4, 0.3, -0.8], [1.3, 0.8, -0.3, -1.1, 0.7]])

CALLS = {
    "split_size": lambda t, mod: t.split(3, 1),
    "split_sizes": lambda t, mod: t.split([1, 3], 0),
    "chunk": lambda t, mod: t.chunk(3, 1),
    "unbind": lambda t, mod: t.unbind(1),
    "sort": lambda t, mod: t.sort(1),
    "sort_descending": lambda t, mod: t.sort(0, descending=True),
    "function_split": lambda t, mod: mod.split(t, 2, 1),
    "function_chunk": lambda t, mod: mod.chunk(t, 2),
    "function_unbind": lambda t, mod: mod.unbind(t),
    "function_sort": lambda t, mod: mod.sort(t, 0),
    "meshgrid_ij": lambda t, mod: mod.meshgrid(t[0], t[1, :3], indexing="ij"),
    "meshgrid_of_a_list": lambda t, mod: mod.meshgrid([t[0], t[2, 1:3]], indexing="ij"),
    "meshgrid_xy": lambda t, mod: mod.meshgrid(t[0], t[1, :3], indexing="xy"),
}


def _values(result):
    return [result.values] if hasattr(result, "values") else list(result)


@pytest.mark.parametrize("name", sorted(CALLS))
def test_tuple_returning_operation_matches_torch(name):
    ours, theirs = sg.tensor(X, requires_grad=True), torch.tensor(X, requires_grad=True)
    got, want = CALLS[name](ours, sg), CALLS[name](theirs, torch)
    if hasattr(want, "indices"):
        assert np.array_equal(got.indices.numpy(), want.indices.numpy())
        assert got.indices.dtype == sg.int64
    pieces, expected = _values(got), _values(want)
    assert len(pieces) == len(expected)
    for p, e in zip(pieces, expected):
        assert_close(p.detach().numpy(), e.detach().numpy())
        assert type(p.grad_fn).__name__ == e.grad_fn.name()
    sum(((p * p) * (i + 1)).sum() for i, p in enumerate(pieces)).backward()
    sum(((p * p) * (i + 1)).sum() for i, p in enumerate(expected)).backward()
    assert_close(ours.grad.numpy(), theirs.grad.numpy())

"""The engine at scale and its memory: long chains, freed graphs, saved outputs."""

from __future__ import annotations

import gc
import sys
import weakref

import srcgrad as sg


def test_a_100k_node_chain_backpropagates_without_recursion() -> None:
    limit = sys.getrecursionlimit()
    x = sg.tensor([1.0], requires_grad=True)
    y = x
    for _ in range(100_000):
        y = y * 1.0
    y.sum().backward()
    assert x.grad.tolist() == [1.0] and sys.getrecursionlimit() == limit
    del y  # freeing the chain must not recurse either
    gc.collect()


def test_a_100k_node_chain_is_freed_when_dropped() -> None:
    x = sg.tensor([1.0], requires_grad=True)
    y = x
    for _ in range(100_000):
        y = y + 1.0
    first = weakref.ref(x.__class__.grad_fn.fget(y))  # the last node
    del y
    assert first() is None


def test_graph_memory_is_released_after_backward() -> None:
    x = sg.tensor([1.0, 2.0], requires_grad=True)
    h = x.exp()
    node = weakref.ref(h.grad_fn)
    saved_data = weakref.ref(h._data) if hasattr(h._data, "__weakref__") else None
    loss = (h * h).sum()
    loss.backward()
    del h, loss
    assert node() is None
    if saved_data is not None:
        assert saved_data() is None


def test_saved_outputs_make_no_reference_cycle() -> None:
    gc.disable()
    try:
        x = sg.tensor([1.0], requires_grad=True)
        y = x.exp()  # ExpBackward0 saves its result
        node = weakref.ref(y.grad_fn)
        del y
        assert node() is None  # freed by reference counting alone
    finally:
        gc.enable()


def test_leaf_keeps_no_strong_reference_to_its_accumulator() -> None:
    x = sg.tensor([1.0], requires_grad=True)
    y = x * 2
    acc = weakref.ref(y.grad_fn.next_functions[0][0])
    del y
    assert acc() is None

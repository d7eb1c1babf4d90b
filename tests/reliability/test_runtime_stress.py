"""The runtime under stress, beyond ``tests/runtime/test_engine_scale.py`` (a 100,000-node
chain, its freeing, saved outputs without cycles) and the per-thread flag and anomaly tests
of ``tests/runtime``: here wide and diamond-shaped graphs of 100,000 nodes, backward in a
worker thread (smaller stack), higher order through a deep graph, memory released by
``backward`` while its output is still alive, two threads recording concurrently with one
in ``no_grad``, and anomaly mode pointing at a forward line inside a helper function.
"""

from __future__ import annotations

import gc
import inspect
import sys
import threading
import weakref

import numpy as np
import pytest

import srcgrad as sg

NODES = 100_000


def test_a_100k_node_diamond_graph_backpropagates_without_recursion():
    x = sg.tensor([0.5], dtype=sg.float64, requires_grad=True)
    y = x
    for _ in range(NODES // 3):  # each step: two uses of y joined again (fan-out, fan-in)
        y = y * 0.5 + y * 0.5
    limit = sys.getrecursionlimit()
    y.sum().backward()
    assert sys.getrecursionlimit() == limit
    assert x.grad.tolist() == [1.0]


def test_a_100k_leaf_wide_sum_accumulates_every_leaf():
    leaves = [sg.tensor(float(i), dtype=sg.float64, requires_grad=True) for i in range(2000)]
    total = leaves[0] * 1.0
    for i in range(1, NODES // 2):
        total = total + leaves[i % len(leaves)] * 1.0
    total.backward()
    counts = np.bincount(np.arange(NODES // 2) % len(leaves))
    assert [leaf.grad.item() for leaf in leaves] == counts.astype(float).tolist()


def test_backward_of_a_100k_chain_in_a_worker_thread():
    outcome = {}

    def work():
        try:
            x = sg.tensor([2.0], dtype=sg.float64, requires_grad=True)
            y = x
            for _ in range(NODES):
                y = y + 0.0
            y.sum().backward()
            outcome["grad"] = x.grad.tolist()
        except BaseException as error:  # noqa: BLE001 - reported below
            outcome["error"] = repr(error)

    worker = threading.Thread(target=work)
    worker.start()
    worker.join(120)
    assert outcome == {"grad": [1.0]}


def test_second_order_through_a_deep_graph():
    x = sg.tensor(0.3, dtype=sg.float64, requires_grad=True)
    y = x
    for _ in range(5000):
        y = y * 1.0
    (dy,) = sg.autograd.grad(y * y * y, x, create_graph=True)  # 3 x^2
    (d2y,) = sg.autograd.grad(dy, x)  # 6 x
    assert dy.item() == pytest.approx(3 * 0.09) and d2y.item() == pytest.approx(1.8)


def test_backward_frees_saved_values_while_the_output_lives():
    x = sg.tensor(np.linspace(0.1, 1.0, 1000), requires_grad=True)
    hidden = x.exp()  # ExpBackward0 saves this result
    data = weakref.ref(np.asarray(hidden.detach()).base or np.asarray(hidden.detach()))
    loss = (hidden.sin() * 2.0).sum()  # SinBackward0 saves hidden
    del hidden
    loss.backward()
    gc.collect()
    assert data() is None, "backward kept the saved intermediate alive"
    assert loss.item() > 0  # the output itself is still usable


def test_a_dropped_graph_releases_its_intermediates_without_backward():
    x = sg.tensor(np.ones(1000), requires_grad=True)
    hidden = x * 3.0
    loss = (hidden.exp() * hidden).sum()
    node = weakref.ref(loss.grad_fn)
    del hidden, loss
    assert node() is None  # by reference counting alone, no collector needed


def test_two_threads_record_concurrently_with_one_in_no_grad():
    barrier = threading.Barrier(2, timeout=30)
    results: dict[str, object] = {}

    def recorder(name: str, disabled: bool):
        x = sg.tensor([1.0, 2.0], requires_grad=True)
        context = sg.no_grad() if disabled else sg.enable_grad()
        with context:
            for step in range(200):
                if step == 100:
                    barrier.wait()  # both threads are inside their mode at the same time
                x = x * 1.01
        results[name] = (x.requires_grad, x.grad_fn is not None, sg.is_grad_enabled())

    threads = [threading.Thread(target=recorder, args=("off", True)),
               threading.Thread(target=recorder, args=("on", False))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert results["off"] == (False, False, True), "no_grad did not hold in its own thread"
    assert results["on"] == (True, True, True), "the other thread's no_grad disabled this one"
    assert sg.is_grad_enabled()


def _unstable_helper(t):
    return t.sqrt()  # the forward line anomaly mode must point at


def test_anomaly_mode_points_at_the_forward_line_inside_a_helper():
    line = inspect.getsourcelines(_unstable_helper)[1] + 1
    x = sg.tensor([0.0, 4.0], requires_grad=True)
    with sg.autograd.detect_anomaly():
        y = _unstable_helper(x) * 0.0  # the backward of sqrt at 0 gives 0 * inf = nan
        with pytest.warns(UserWarning) as record:
            with pytest.raises(RuntimeError, match="SqrtBackward0"):
                y.sum().backward()
    text = "\n".join(str(w.message) for w in record)
    assert f"line {line}" in text or f":{line}" in text, text
    assert "_unstable_helper" in text, text

"""Threads that make the first call of one derived function at once.

Each compiles nothing twice and gets the right gradient: compilation is one at a time in
the process (``derivation.COMPILING``); before, threads compiling one function at once
built broken IR (an internal IRError in most rounds, 16 of 20 with a 1 us switch interval).
"""

from __future__ import annotations

import sys
import threading

import numpy as np
import pytest

import srcgrad as sg

THREADS = 8


def _looped(k):
    def f(x):
        y = x
        for _ in range(3):
            y = np.sin(y) * (k + 1.0) + y ** 2
        return np.sum(y)
    return f


def _hand_gradient(k, x):
    y, dy = x, np.ones_like(x)
    for _ in range(3):
        y, dy = np.sin(y) * (k + 1.0) + y ** 2, (np.cos(y) * (k + 1.0) + 2 * y) * dy
    return dy


def _first_calls_at_once(calls):
    """Run each call in its own thread, released together; results and errors in order."""
    barrier = threading.Barrier(len(calls))
    results: list = [None] * len(calls)

    def run(i):
        barrier.wait()
        try:
            results[i] = calls[i]()
        except Exception as e:  # noqa: BLE001 - reported by the test
            results[i] = e

    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads often: compilations interleave
    try:
        threads = [threading.Thread(target=run, args=(i,)) for i in range(len(calls))]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        sys.setswitchinterval(old)
    return results


@pytest.mark.parametrize("round_", range(3))
def test_threads_making_the_first_call_of_one_gradient_get_it_right(round_):
    g = sg.grad(_looped(round_))
    x = np.linspace(0.0, 1.0, 5)
    results = _first_calls_at_once([lambda: g(x)] * THREADS)
    for got in results:
        assert not isinstance(got, Exception), got
        np.testing.assert_allclose(got, _hand_gradient(round_, x), rtol=1e-12)


def test_threads_compiling_different_functions_at_once_each_get_theirs():
    x = np.linspace(0.0, 1.0, 5)
    grads = [sg.grad(_looped(k)) for k in range(THREADS)]
    results = _first_calls_at_once([lambda g=g: g(x) for g in grads])
    for k, got in enumerate(results):
        assert not isinstance(got, Exception), got
        np.testing.assert_allclose(got, _hand_gradient(k, x), rtol=1e-12)

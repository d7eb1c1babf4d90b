"""What the recording and backward hot paths read instead of slow lookups, and that each
stays right: grad mode through ``grad_mode.ALL_THREADS`` (False while any thread has it
off), one quiet context for the process (a thread finding it entered falls back), and a
node of several outputs told apart by its float order (``graph.stamp_several``)."""

from __future__ import annotations

import threading
import warnings

import numpy as np
import pytest

import srcgrad as sg
from srcgrad.autograd.fp_errors import QUIET
from srcgrad.autograd.grad_mode import ALL_THREADS
from srcgrad.autograd.rule_node import set_specialized
from tests.runtime.test_engine_order import _SinCos  # (a Function of two outputs)


@pytest.fixture(params=["specialized", "generic"])
def mode(request):
    previous = set_specialized(request.param == "specialized")
    yield request.param
    set_specialized(previous)


def _in_thread(fn):
    """Run ``fn`` in a new thread; return its result (or raise its error here)."""
    found: list[object] = [None, None]

    def work():
        try:
            found[0] = fn()
        except Exception as e:  # noqa: BLE001  (raised below, in this thread)
            found[1] = e

    t = threading.Thread(target=work)
    t.start()
    t.join()
    if found[1] is not None:
        raise found[1]  # type: ignore[misc]
    return found[0]


def test_the_all_threads_flag_is_off_while_another_thread_is_in_no_grad():
    x = sg.tensor([1.0, 2.0], requires_grad=True)
    inside, leave = threading.Event(), threading.Event()
    seen: dict[str, object] = {}

    def work():
        with sg.no_grad():
            seen["recorded there"] = (x * x).requires_grad
            inside.set()
            leave.wait(10)

    t = threading.Thread(target=work)
    t.start()
    inside.wait(10)
    try:
        seen["flag"] = ALL_THREADS.grad
        y = x * x  # this thread's mode is on: it records
        seen["recorded here"] = y.requires_grad and y.grad_fn is not None
    finally:
        leave.set()
        t.join()
    assert seen == {"recorded there": False, "flag": False, "recorded here": True}
    assert ALL_THREADS.grad and sg.is_grad_enabled()


def test_the_flag_follows_this_threads_own_switches():
    x = sg.tensor([3.0], requires_grad=True)
    with sg.no_grad():
        assert not ALL_THREADS.grad
        assert not (x * 2.0).requires_grad
        with sg.enable_grad():
            assert ALL_THREADS.grad
            assert (x * 2.0).requires_grad
        assert not ALL_THREADS.grad
    assert ALL_THREADS.grad
    y = x.sin() * 2.0
    y.backward()  # (the engine switches the mode off and back)
    assert ALL_THREADS.grad
    np.testing.assert_allclose(x.grad.numpy(), 2.0 * np.cos([3.0]), rtol=1e-6)


def test_a_thread_ending_with_grad_mode_off_leaves_recording_right():
    x = sg.tensor([0.5, -1.0], requires_grad=True)

    def work():
        sg.set_grad_enabled(False)  # switched plainly, never switched back
        return (x * x).requires_grad

    assert _in_thread(work) is False
    # its ident may stay among those with the mode off: the flag then only says "look"
    y = (x * x + x).exp()
    assert y.requires_grad
    y.sum().backward()
    want = np.exp(x.detach().numpy() ** 2 + x.detach().numpy()) * (2 * x.detach().numpy() + 1)
    np.testing.assert_allclose(x.grad.numpy(), want, rtol=1e-6)


def test_ops_in_a_thread_while_the_quiet_context_is_entered_here_fall_back(mode):
    """The quiet context is one for the process: a thread finding it entered (here, by
    this thread) takes the reentrant way, still quiet and still right."""
    x0 = np.array([0.0, -1.0, 2.0])

    def work():
        x = sg.tensor(x0, requires_grad=True)
        y = (x.log() * 2.0 + x.sqrt()).exp()  # log(0), sqrt(-1): values, no warnings
        y.sum().backward()
        return y.detach().numpy(), x.grad.numpy()

    old = np.seterr(all="raise")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            values, grad = QUIET.run(_in_thread, work)
    finally:
        np.seterr(**old)
    assert values[0] == 0.0 and np.isnan(values[1])
    np.testing.assert_allclose(values[2], np.exp(2 * np.log(2.0) + np.sqrt(2.0)))
    np.testing.assert_allclose(grad[2], values[2] * (1.0 + 1.0 / (2 * np.sqrt(2.0))))


def test_a_node_of_several_outputs_has_a_float_order_and_one_output_an_int():
    x = sg.tensor([0.3, 1.2], requires_grad=True)
    s, c = _SinCos.apply(x)
    assert type(s.grad_fn._order) is float and s.grad_fn is c.grad_fn
    assert type((x * 2.0).grad_fn._order) is int


def test_written_backwards_deliver_into_a_node_of_several_outputs(mode):
    """Cotangents from written-out backwards (``*``, ``+``, ``exp``) reach each output of a
    two-output node in its own slot: summed per output, not into one array."""
    x0 = np.array([0.3, 1.2, -0.7])
    x = sg.tensor(x0, requires_grad=True)
    s, c = _SinCos.apply(x)
    y = (s * 3.0 + c.exp() * 2.0 + s * c).sum()
    y.backward()
    sin, cos = np.sin(x0), np.cos(x0)
    gs = 3.0 + cos
    gc = 2.0 * np.exp(cos) + sin
    np.testing.assert_allclose(x.grad.numpy(), gs * cos - gc * sin, rtol=1e-12)

"""The engine runs nodes newest first (their creation order), with no dependency count:
every order-sensitive graph shape still gets every cotangent before its node runs, with
the code generator on and off, and an edge that would break the order is refused."""

from __future__ import annotations

import numpy as np
import pytest

import srcgrad as sg
from srcgrad.autograd.rule_node import set_specialized
from tests.fd import numeric_gradient


@pytest.fixture(params=["specialized", "generic"])
def mode(request):
    previous = set_specialized(request.param == "specialized")
    yield request.param
    set_specialized(previous)


def _t(v, rg=False):
    return sg.tensor(v, dtype=sg.float64, requires_grad=rg)


def _unequal_branches(x, w):
    """A long branch and a short one leave ``a`` and meet again, twice: ``a`` may run only
    after both branches gave it their cotangent."""
    a = (x * w).sin()
    long = a
    for _ in range(30):
        long = long * 0.9 + w
    short = a * 2.0
    met = long * short + a
    return (met * met.cos() + short).sum()


def _check(fn, values):
    leaves = [_t(v, True) for v in values]
    fn(*leaves).backward()
    scalar = lambda *vs: fn(*(_t(v) for v in vs)).item()  # noqa: E731
    for k, leaf in enumerate(leaves):
        np.testing.assert_allclose(leaf.grad.numpy(), numeric_gradient(scalar, values, None, k),
                                   rtol=1e-6, atol=1e-8)


def test_branches_of_unequal_length_that_meet_differentiate(mode):
    rng = np.random.default_rng(0)
    _check(_unequal_branches, (rng.standard_normal(4), rng.standard_normal(4)))


def test_a_write_into_a_view_after_its_inputs_were_used_differentiates(mode):
    """``z[1:3] = ...`` gives the base a CopySlices node made after the values it links."""
    def fn(x, w):
        z = sg.zeros(4, dtype=sg.float64)
        early = (x * w).exp()
        z[1:3] = early[:2] * x[2:]
        z[0] = w[3]
        return ((z + early) * z.sin()).sum()

    rng = np.random.default_rng(1)
    _check(fn, (rng.standard_normal(4), rng.standard_normal(4)))


def test_several_roots_sharing_a_subgraph_sum_their_cotangents(mode):
    rng = np.random.default_rng(2)
    x0 = rng.standard_normal(3)
    x = _t(x0, True)
    shared = (x * x).tanh()
    roots = [(shared * 3.0).sum(), (shared.exp() * x).sum(), shared.sum()]
    sg.autograd.backward(roots)

    def total(v):
        s = np.tanh(v * v)
        return float((s * 3.0).sum() + (np.exp(s) * v).sum() + s.sum())

    np.testing.assert_allclose(x.grad.numpy(), numeric_gradient(total, (x0,), None, 0),
                               rtol=1e-6, atol=1e-8)


def test_grad_with_inputs_and_retain_graph_walks_the_same_order(mode):
    """``autograd.grad`` prunes to the paths toward its inputs; a retained graph runs again."""
    rng = np.random.default_rng(3)
    x0, w0 = rng.standard_normal(4), rng.standard_normal(4)
    x, w = _t(x0, True), _t(w0, True)
    out = _unequal_branches(x, w)
    gw, = sg.autograd.grad(out, w, retain_graph=True)
    gx, = sg.autograd.grad(out, x)
    for got, k in ((gw, 1), (gx, 0)):
        want = numeric_gradient(lambda a, b: _unequal_branches(_t(a), _t(b)).item(),
                                (x0, w0), None, k)
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-6, atol=1e-8)
    assert x.grad is None and w.grad is None


def test_an_edge_to_a_node_made_later_is_refused_not_misordered(mode):
    """Nothing srcgrad records links a node to a newer one; if something did, the engine
    could run the newer node before all its cotangents arrived: it raises instead."""
    x = _t(np.ones(3), True)
    older = x * 2.0
    newer = x.sin()
    older.grad_fn.next_functions = ((newer.grad_fn, 0), (None, 0))
    with pytest.raises(RuntimeError, match="made after it"):
        older.sum().backward()


class _SinCos(sg.autograd.Function):
    """Two outputs: the engine sums cotangents into one list per output of its node."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x.sin(), x.cos()

    @staticmethod
    def backward(ctx, gs, gc):
        x, = ctx.saved_tensors
        return gs * x.cos() - gc * x.sin()


def test_cotangents_reach_each_output_of_a_two_output_node(mode):
    def fn(x, w):
        s, c = _SinCos.apply(x * w)
        return (s * c.exp() + s * w + c).sum()

    rng = np.random.default_rng(4)
    _check(fn, (rng.standard_normal(3), rng.standard_normal(3)))


def test_a_child_held_back_by_a_written_backward_waits_for_newer_nodes(mode):
    """The written-out backward hands the engine the first child it made pending instead
    of pushing it; when a node made after that child is still pending (the other arm of a
    diamond), the child must wait until that arm has added its cotangent."""
    x0 = np.array([0.3, -1.2, 0.8])

    def f(x):
        y = x * 1.5
        a = y.sin()  # made before b's nodes: held back by the add, run after them
        b = (y * y).cos() * y
        return ((a + b) * x).sum(), y

    arrivals = []
    x = sg.tensor(x0, dtype=sg.float64, requires_grad=True)
    out, y = f(x)
    y.grad_fn.register_prehook(lambda grads: arrivals.append(grads[0].numpy().copy()))
    out.backward()
    assert len(arrivals) == 1  # y's node ran once, with every arm's cotangent summed
    expected = numeric_gradient(lambda v: f(sg.tensor(v, dtype=sg.float64))[0].item(), (x0,),
                                None, 0)
    np.testing.assert_allclose(x.grad.numpy(), expected, rtol=1e-6, atol=1e-8)

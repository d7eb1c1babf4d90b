"""The Tensor keeps what every operation reads (data, version counter, grad_fn,
requires_grad, output number, base, accumulator) in slots: tensors made every way --
the constructor, factories, operations, views, subclasses that skip ``Tensor.__init__``,
pickling and copying -- have them all set, and still take weak references and
attributes of their own."""

from __future__ import annotations

import copy
import pickle
import weakref

import numpy as np
import pytest

import srcgrad as sg
from srcgrad.autograd.rule_node import set_specialized
from tests.fd import numeric_gradient

_SLOTS = ("_data", "_vc", "_grad_fn", "_rg", "_output_nr", "_base", "_acc")


@pytest.fixture(params=["specialized", "generic"])
def mode(request):
    previous = set_specialized(request.param == "specialized")
    yield request.param
    set_specialized(previous)


def _made_every_way():
    x = sg.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    return {
        "constructor": sg.Tensor([1.0, 2.0]),
        "factory": sg.zeros(2, 2),
        "binary": x * 2.0,
        "unary": x.sin(),
        "reduction": x.sum(1),
        "matmul": x @ x,
        "view": x[0],
        "detach": x.detach(),
        "data": x.data,
        "pickled": pickle.loads(pickle.dumps(x.detach())),
        "deepcopy": copy.deepcopy(x),
        "copy": copy.copy(x),
        "parameter": sg.nn.Parameter(np.ones(3, dtype=np.float32)),
    }


@pytest.mark.parametrize("how", list(_made_every_way()))
def test_a_tensor_made_any_way_has_every_slot_set(how):
    t = _made_every_way()[how]
    for name in _SLOTS:
        getattr(t, name)  # raises AttributeError for an unset slot
    assert t.requires_grad == (t.grad_fn is not None or t.is_leaf and t._rg)
    weakref.ref(t)


def test_a_subclass_that_skips_tensor_init_gets_the_defaults_and_differentiates(mode):
    class Marked(sg.Tensor):
        def __init__(self, values):  # (no super().__init__, as nn.Parameter)
            self._data = np.asarray(values, dtype=np.float64)
            self.mark = "mine"  # an attribute of its own, in the instance dict

    m = Marked([0.3, -1.2, 2.0])
    assert m.grad_fn is None and m.grad is None and not m.requires_grad and m.is_leaf
    assert m._version == 0 and m.mark == "mine"
    m.requires_grad_()
    f = lambda v: (v.sin() * v).sum()  # noqa: E731
    f(m).backward()
    x0 = np.array([0.3, -1.2, 2.0])
    expected = numeric_gradient(lambda v: f(sg.tensor(v, dtype=sg.float64)).item(), (x0,),
                                None, 0)
    np.testing.assert_allclose(m.grad.numpy(), expected, rtol=1e-6, atol=1e-8)


def test_a_retained_and_hooked_non_leaf_and_a_view_keep_working_without_class_defaults(mode):
    x = sg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x * x
    y.retain_grad()
    seen = []
    y.register_hook(lambda g: seen.append(g.numpy().copy()))
    v = y[1:]
    (v * 3.0).sum().backward()
    np.testing.assert_array_equal(y.grad.numpy(), [0.0, 3.0, 3.0])
    np.testing.assert_array_equal(seen[0], [0.0, 3.0, 3.0])
    np.testing.assert_array_equal(x.grad.numpy(), [0.0, 12.0, 18.0])

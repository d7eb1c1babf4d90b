"""Elementwise ops and fixed-axis reductions whose rule's implementation is a dispatching
primitive (``relu``, ``sigmoid``, ``erf``, ``amax``...) call the primitive's own function
on a tensor's ndarray (the dispatch wrapper would only check the type): the same values,
dtypes and gradients as the rule's implementation called as the compiler calls it, with
the code generator on and off."""

from __future__ import annotations

import numpy as np
import pytest

import srcgrad as sg
from srcgrad.autograd.rule_node import set_specialized
from srcgrad.rules import rule_named
from tests.fd import numeric_gradient


@pytest.fixture(params=["specialized", "generic"])
def mode(request):
    previous = set_specialized(request.param == "specialized")
    yield request.param
    set_specialized(previous)


CASES = [  # (rule, how the runtime spells it, the rule's impl on an ndarray)
    ("relu", lambda t: t.relu(), lambda a: rule_named("relu").impl(a)),
    ("sigmoid", lambda t: t.sigmoid(), lambda a: rule_named("sigmoid").impl(a)),
    ("erf", lambda t: t.erf(), lambda a: rule_named("erf").impl(a)),
    ("amax", lambda t: t.amax(1), lambda a: rule_named("amax").impl(a, axis=1)),
]


def test_the_cases_are_dispatching_primitives():
    for name, _, _ in CASES:  # (else this file tests nothing new)
        assert hasattr(rule_named(name).impl, "__srcgrad_impl__"), name


@pytest.mark.parametrize("dtype", [sg.float32, sg.float64])
@pytest.mark.parametrize("name, method, impl", CASES)
def test_a_dispatching_primitive_on_a_tensor_computes_what_its_rule_computes(mode, dtype, name,
                                                                             method, impl):
    x0 = np.array([[-1.5, 0.2, 3.0], [0.7, -0.4, 1.1]])
    x = sg.tensor(x0, dtype=dtype, requires_grad=True)
    out = method(x * 1.0)
    expected = np.asarray(impl(x.detach().numpy()))
    assert out.numpy(force=True).dtype == expected.dtype
    np.testing.assert_array_equal(out.numpy(force=True), expected)
    out.sum().backward()
    x64 = lambda v: float(method(sg.tensor(v, dtype=sg.float64)).sum().item())  # noqa: E731
    tol = 1e-6 if dtype == sg.float64 else 2e-3
    np.testing.assert_allclose(x.grad.numpy(), numeric_gradient(x64, (x0,), None, 0),
                               rtol=tol, atol=tol)

"""``nn.Parameter`` operands take the binary ops' written-out forms as Tensors do
(``tensor.elementwise.register_operand_class``): no call to the general code's builder,
and the same result, node, saved values and gradients as plain leaves, every call form."""

from __future__ import annotations

import os
import sys

import numpy as np
import pytest

import srcgrad as sg
from srcgrad import nn

PROGRAMS = {
    "parameter op parameter": lambda x, w, b: x * w + b,
    "tensor op parameter": lambda x, w, b: (x * 1.0) * w - b,
    "parameter op tensor": lambda x, w, b: w / (x * 1.0 + 2.0) + b,
    "number op parameter": lambda x, w, b: 2.0 * w + (1.5 - b) ** 2.0 + x,
    "parameter op number": lambda x, w, b: (w * 0.5) ** 2 + b / 3.0 - x,
    "float32 parameter with float64 tensor": lambda x, w, b: w.float() * x.double() + b,
}


def _called(run):
    """The names of the Python functions ``run`` calls (with its result)."""
    names = []

    def profile(frame, event, arg):
        if event == "call":
            names.append(frame.f_code.co_name)

    sys.setprofile(profile)
    try:
        result = run()
    finally:
        sys.setprofile(None)
    return names, result


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_parameters_record_and_differentiate_as_leaf_tensors(name, dtype):
    program = PROGRAMS[name]
    rng = np.random.default_rng(5)
    arrays = [rng.uniform(0.5, 2.0, 4).astype(dtype) for _ in range(3)]
    grads = {}
    for kind in ("tensor", "parameter"):
        if kind == "tensor":
            leaves = [sg.tensor(a, requires_grad=True) for a in arrays]
        else:
            leaves = [nn.Parameter(sg.tensor(a)) for a in arrays]
        for _ in range(2):  # (the first call makes the plans)
            for t in leaves:
                t.grad = None
            out = program(*leaves)
            assert type(out) is sg.Tensor
            out.sum().backward()
        grads[kind] = [t.grad.numpy() for t in leaves]
        assert type(out.grad_fn).__name__ in ("AddBackward0", "SubBackward0")
    for got, want in zip(grads["parameter"], grads["tensor"]):
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)


@pytest.mark.skipif(os.environ.get("SRCGRAD_SPECIALIZE") == "0",
                    reason="an op writes a plan's builder in when it first makes the plan "
                           "with the switch on: not in a session run with it off")
def test_a_parameter_operand_takes_the_written_out_form():
    w = nn.Parameter(sg.tensor(np.array([0.5, 1.5, -2.0])))
    h = sg.tensor(np.array([1.0, 2.0, 3.0]), requires_grad=True) * 1.0
    for _ in range(2):
        names, y = _called(lambda: h * w)
    # the written-in builder records the node: no builder call, no general checks
    assert "quick" not in names and "build" not in names, names
    assert y.grad_fn._saved[:2] == (h, w)
    names, y = _called(lambda: w + 1.0)
    assert "quick" not in names and "build" not in names, names
    y.sum().backward()
    np.testing.assert_array_equal(w.grad.numpy(), [1.0, 1.0, 1.0])

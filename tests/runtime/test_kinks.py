"""DESIGN.md's kinks table (tests/rules/test_kinks.py), checked through the runtime.

Each row's NumPy function is applied to Tensors (NumPy's dispatch records it), then
``sum(f(*args)).backward()``; the gradients must be the numbers PyTorch gives.
"""

from __future__ import annotations

import numpy as np
import pytest

import srcgrad as sg
from srcgrad.rules import RULES
from tests.rules.test_kinks import KINKS


@pytest.mark.filterwarnings("ignore:.*Degrees of freedom")  # np.var with n == ddof warns
@pytest.mark.parametrize("kink", KINKS, ids=lambda k: k.label)
def test_runtime_gradient_at_the_kink(kink) -> None:
    if kink.needs and kink.needs not in RULES:
        pytest.skip(f"rule {kink.needs} not registered")
    args = [sg.tensor(np.asarray(a, dtype=np.float64), requires_grad=True)
            if np.asarray(a).dtype.kind == "f" else a for a in kink.args]
    out = kink.f(*args)
    assert isinstance(out, sg.Tensor)
    leaves = [a for a in args if isinstance(a, sg.Tensor)]
    grads = sg.autograd.grad(out.sum(), leaves, allow_unused=True)
    expected = [g for a, g in zip(kink.args, kink.grads) if np.asarray(a).dtype.kind == "f"]
    for got, want in zip(grads, expected):
        got = np.zeros(np.shape(want)) if got is None else got.numpy()
        np.testing.assert_allclose(got, np.asarray(want, dtype=np.float64), equal_nan=True)

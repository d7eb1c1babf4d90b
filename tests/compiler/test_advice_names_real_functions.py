"""Refusal advice never names a NumPy function that does not exist (``np.fill``,
``np.tolist``, ``np.item`` were suggested before)."""

from __future__ import annotations

import re

import numpy as np
import pytest

import srcgrad as sg


def fills(x):
    y = x * 1.0
    y.fill(2.0)
    return np.sum(y)


def lists(x):
    return sum(x.tolist())


def takes_item(x):
    return x.item() * 2.0


@pytest.mark.parametrize("fn", [fills, lists, takes_item])
def test_refusal_advice_names_only_numpy_functions_that_exist(fn):
    sg.clear_cache()
    with pytest.raises(sg.SrcGradError) as info:
        sg.grad(fn)(np.array([1.0, 2.0]))
    for name in re.findall(r"np\.([A-Za-z_][\w.]*)\(", str(info.value)):
        target = np
        for part in name.split("."):
            assert hasattr(target, part), f"advice names np.{name}, which does not exist: {info.value}"
            target = getattr(target, part)

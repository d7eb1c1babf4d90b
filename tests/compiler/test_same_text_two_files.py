"""Two files holding the same function text at the same line: Python's code objects then
compare equal (``co_filename`` is not compared), and srcgrad's parse cache must still give
each function its own file, so a refusal names the user's file:line and each derivative
reads its own module's globals (frontend/source.py)."""

from __future__ import annotations

import sys

import numpy as np
import pytest

import srcgrad as sg
from tests.compiler.user_modules import load_module

REFUSED = '''\
import numpy as np


def f(x):
    return np.sum(np.unwrap(x))
'''

GLOBALS = '''\
import numpy as np

g = np.{name}


def f(x):
    return np.sum(g(x))
'''


@pytest.fixture
def load(tmp_path):
    names: list[str] = []

    def loader(name: str, source: str):
        names.append(name)
        return load_module(tmp_path, name, source)

    yield loader
    for name in names:
        sys.modules.pop(name, None)


def test_a_refusal_names_each_file_of_the_same_text(load):
    first, second = load("sg_same_text_a", REFUSED), load("sg_same_text_b", REFUSED)
    assert first.f.__code__ == second.f.__code__  # the premise: equal code objects
    for module in (first, second):
        with pytest.raises(sg.SrcGradError) as caught:
            sg.grad(module.f)(np.ones(3))
        where = str(caught.value).splitlines()[0]
        assert where.startswith(f"{module.__file__}:5: the call to np.unwrap"), where


def test_the_same_text_reads_each_modules_globals(load):
    sines = load("sg_same_text_sin", GLOBALS.format(name="sin"))
    cosines = load("sg_same_text_cos", GLOBALS.format(name="cos"))
    x = np.linspace(-1.0, 1.0, 5)
    np.testing.assert_allclose(sg.grad(sines.f)(x), np.cos(x))
    np.testing.assert_allclose(sg.grad(cosines.f)(x), -np.sin(x))
    assert "line 7" in sg.source(sg.grad(cosines.f), x)

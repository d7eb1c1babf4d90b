"""The fuzzer checks itself: a seed reproduces its program, and the harness catches a
gradient that is off by 0.1%, an accepted write that must be refused, and a refusal that
points at the wrong line.
"""

from __future__ import annotations

import pytest

from .control import REJECT
from .generator import FEATURES, Program, generate
from .harness import FuzzFailure, check, load, unload

WRONG_RULE = '''
import numpy as np
import srcgrad as sg


def wobbly_sin(x):
    return np.sin(x)


sg.defvjp(wobbly_sin, lambda g, out, x: g * np.cos(x) * 1.001)  # off by 0.1%


def f(x0):
    return np.sum(wobbly_sin(x0) * 2.0)
'''

ACCEPTED_WRITE = '''
import numpy as np


def f(x0):
    y = x0 * 2.0
    y[0] = 1.0{marker}
    return np.sum(y)
'''

REFUSED_ELSEWHERE = '''
import numpy as np


def f(x0):
    y = x0 * 2.0{marker}
    x0[0] = 1.0
    return np.sum(y)
'''


def _program(source: str, must_reject: bool = False) -> Program:
    return Program(source, seed=1, features=("self-test",), arg_shapes=[(3,)],
                   arg_kinds=["array"], wrt=(0,), must_reject=must_reject)


def _run(program: Program, tmp_path, name: str) -> None:
    module = load(program, tmp_path, name)
    try:
        check(program, module, 1, forward=False)
    finally:
        unload(name)


@pytest.mark.parametrize("features", [(), *[(f,) for f in FEATURES]])
def test_a_seed_reproduces_its_program(features):
    assert generate(11, features).source == generate(11, features).source
    assert generate(11, features).source != generate(12, features).source


def test_a_gradient_off_by_a_tenth_of_a_percent_is_caught(tmp_path):
    with pytest.raises(FuzzFailure, match="differs from finite differences") as info:
        _run(_program(WRONG_RULE), tmp_path, "srcgrad_fuzz_selftest_wrong")
    assert "wobbly_sin" in str(info.value)  # the program's source is in the message


def test_an_accepted_write_that_must_be_refused_is_caught(tmp_path):
    program = _program(ACCEPTED_WRITE.format(marker=REJECT), must_reject=True)
    with pytest.raises(FuzzFailure, match="accepted a write it must reject"):
        _run(program, tmp_path, "srcgrad_fuzz_selftest_accepted")


def test_a_refusal_pointing_at_another_line_is_caught(tmp_path):
    program = _program(REFUSED_ELSEWHERE.format(marker=REJECT), must_reject=True)
    with pytest.raises(FuzzFailure, match="does not point at"):
        _run(program, tmp_path, "srcgrad_fuzz_selftest_elsewhere")

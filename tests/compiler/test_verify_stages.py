"""When the IR verifier runs: at the stage boundaries always, after every pass under tests.

Normal use verifies after lowering, after differentiation, after optimisation and before
emission; ``SRCGRAD_VERIFY_EACH_PASS=1`` (``tests/conftest.py`` sets it where the programs
vary most and for the passes' own tests, this file among them) adds a verification after
every optimisation pass. Either way a pass that breaks the IR is refused with an
internal error, never emitted.
"""

from __future__ import annotations

import numpy as np
import pytest

import srcgrad as sg
from srcgrad.compiler import derivation
from srcgrad.compiler.internal_errors import InternalCompilerError
from srcgrad.compiler.ir import verify as verify_module
from srcgrad.compiler.ir.verify import EACH_PASS, IRError, each_pass
from srcgrad.compiler.passes import pipeline


def _mlp(W, b, x):
    h = np.tanh(x @ W + b)
    return np.sum(h * h)


def _args():
    rng = np.random.default_rng(0)
    return rng.standard_normal((2, 4)), rng.standard_normal(4), rng.standard_normal((5, 2))


def _count_verifications(monkeypatch) -> dict[str, int]:
    count = {"n": 0}
    original = verify_module.verify

    def counting(fn):
        count["n"] += 1
        original(fn)

    monkeypatch.setattr(verify_module, "verify", counting)  # what each_pass() returns
    monkeypatch.setattr(derivation, "verify", counting)  # the stage boundaries
    return count


def test_the_suite_verifies_after_every_pass_where_programs_vary():
    assert each_pass() is verify_module.verify  # tests/conftest.py turned it on here


def test_the_switch_is_read_per_compilation(monkeypatch):
    monkeypatch.delenv(EACH_PASS, raising=False)
    assert each_pass() is None
    monkeypatch.setenv(EACH_PASS, "0")
    assert each_pass() is None
    monkeypatch.setenv(EACH_PASS, "1")
    assert each_pass() is verify_module.verify


def test_normal_use_verifies_at_the_stage_boundaries_only(monkeypatch):
    monkeypatch.delenv(EACH_PASS, raising=False)
    count = _count_verifications(monkeypatch)
    sg.clear_cache()
    sg.grad(_mlp, wrt=(0, 1))(*_args())
    # lowering, differentiation, optimisation (emission: the same IR unless copied)
    assert 3 <= count["n"] <= 4
    sg.clear_cache()


def test_under_the_switch_every_pass_is_verified(monkeypatch):
    monkeypatch.setenv(EACH_PASS, "1")
    count = _count_verifications(monkeypatch)
    sg.clear_cache()
    sg.grad(_mlp, wrt=(0, 1))(*_args())
    rounds = (2 * len(pipeline.PASSES) + len(pipeline.LAST_ROUND_PASSES)
              + len(pipeline.FINAL_PASSES))
    assert count["n"] >= rounds + 3
    sg.clear_cache()


def _break_the_ir(fn):
    """A faulty pass: the first op of the body defined a second time."""
    fn.body.ops.append(fn.body.ops[0])


@pytest.mark.parametrize("switch", ["1", None])
def test_a_pass_that_breaks_the_ir_is_refused_either_way(monkeypatch, switch):
    if switch is None:
        monkeypatch.delenv(EACH_PASS, raising=False)
    else:
        monkeypatch.setenv(EACH_PASS, switch)
    monkeypatch.setattr(pipeline, "PASSES", [*pipeline.PASSES, ("broken", _break_the_ir)])
    sg.clear_cache()
    with pytest.raises(InternalCompilerError) as info:
        sg.grad(_mlp, wrt=(0, 1))(*_args())
    assert isinstance(info.value.__cause__, IRError)
    assert "defined twice" in str(info.value.__cause__)
    sg.clear_cache()

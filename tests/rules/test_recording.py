"""Every rule, run on a recording array-like (the protocol Tensors and the compiler's
symbolic values implement), computes what it computes on ndarrays, and calls only
functions that are themselves in the table (closure: a VJP can be differentiated again)."""

from __future__ import annotations

import numpy as np
import pytest

from srcgrad.rules import RULES, forward_tangent, rule_for
from srcgrad.rules.helpers import unbroadcast

from . import checker
from .recording import Recorded, Tape, unwrap
from .samples import SAMPLES

UNINITIALISED = {"empty_like"}  # its values are whatever memory held: compare shapes only
CASES = [(name, k) for name in sorted(RULES) for k in range(len(SAMPLES.get(name, ())))]


def _ids(case: tuple[str, int]) -> str:
    return f"{case[0]}-{case[1]}"


def _wrap_inputs(rule, env, tape):
    """``env`` with every array input (or variadic element) wrapped."""
    wrapped = dict(env)
    for name in rule.inputs:
        v = env[name]
        if name == rule.variadic:
            wrapped[name] = [tape.wrap(x) if isinstance(x, np.ndarray) else x for x in v]
        elif isinstance(v, np.ndarray):
            wrapped[name] = tape.wrap(v)
    return wrapped


def _same(got, want, what):
    got = unwrap(got)
    if isinstance(want, (np.ndarray, np.generic, float, int, bool)):
        np.testing.assert_allclose(np.asarray(got, dtype=np.result_type(want)), want,
                                   rtol=1e-12, atol=1e-12, err_msg=what)
        assert np.shape(got) == np.shape(want), what
    else:
        assert got == want, what


def _assert_all_known(tape, rule):
    unknown = {getattr(f, "__name__", repr(f)) for f in tape.funcs if rule_for(f) is None}
    assert not unknown, f"{rule.name}: rule bodies called functions with no rule: {unknown}"


@pytest.mark.parametrize("case", CASES, ids=_ids)
def test_rule_runs_on_recording_array_like(case):
    name, k = case
    rule, sample = RULES[name], SAMPLES[name][k]
    env = sample.env
    plain_out = rule.apply(env)
    tape = Tape()
    wrapped = _wrap_inputs(rule, env, tape)
    with checker.warnings_as_errors():
        out = rule.apply(wrapped)
    if name in UNINITIALISED:
        assert np.shape(unwrap(out)) == np.shape(plain_out)
    else:
        _same(out, plain_out, f"{name} forward")

    names = checker.wrt_inputs(rule, sample)
    if not names:
        _assert_all_known(tape, rule)
        return
    rng = np.random.default_rng(k)
    g = rng.standard_normal(np.shape(plain_out))
    plain = checker.full_env(rule, env, plain_out, g)
    rec = {**plain, **wrapped, "out": out, "g": tape.wrap(g)}  # metadata stays plain
    tangents, plain_tangents = {}, {}
    for name_ in names:
        for i in checker._slots(rule, env, name_):
            want = checker.cotangent(rule, plain, name_, i)
            got = rule.call_vjp(name_, {**rec, "i": i})
            if rule.broadcasts:
                got = unbroadcast(got, np.shape(checker._get(env, name_, i)))
            _same(got, want, f"{name} VJP wrt {name_}[{i}]")
        x = env[name_]
        t = [rng.standard_normal(np.shape(v)) for v in x] if name_ == rule.variadic \
            else rng.standard_normal(np.shape(x))
        plain_tangents[name_] = t
        tangents[name_] = [tape.wrap(v) for v in t] if name_ == rule.variadic else tape.wrap(t)
    if all(rule.has_forward(n) for n in names):
        want = forward_tangent(rule, {**env, "out": plain_out}, plain_tangents)
        got = forward_tangent(rule, {**plain, **wrapped, "out": out}, tangents)
        _same(got, want, f"{name} forward tangent")
    _assert_all_known(tape, rule)
    assert tape.calls, f"{name}: nothing was recorded"


def test_recording_refuses_branching_and_methods():
    tape = Tape()
    x = tape.wrap(np.ones(3))
    with pytest.raises(TypeError, match="branched"):
        bool(x > 0)
    with pytest.raises(AttributeError):
        x.sum()  # rule bodies must use np.sum(x): a method means PyTorch's thing on a Tensor
    y = np.sin(x) * 2
    assert isinstance(y, Recorded)
    assert [c.func for c in tape.calls] == [np.greater, np.sin, np.multiply]

"""The soundness forms and their runner check themselves: a seed reproduces its program,
every form writes valid Python, and ``run_program`` tells right from wrong (at first and
second order, and after captured data changed), refused and crashed.
"""

from __future__ import annotations

import numpy as np
import pytest

import srcgrad as sg
from tests.compiler.fd import numeric_second_differences

from .forms import FORMS, generate_form
from .generator import Program
from .harness import load, unload
from .report import (
    ALL_FORMS,
    CI_FORMS,
    CLASSIC_FORMS,
    make_program,
    names_all_bound,
    run_source,
    select_forms,
    shrink,
)
from .soundness import run_program


@pytest.mark.parametrize("form", ALL_FORMS)
def test_same_seed_same_form_program(form):
    first, again = generate_form(11, form), generate_form(11, form)
    assert first.source == again.source and first.states == again.states
    assert len({generate_form(s, form).source for s in range(6)}) > 1
    assert first.features == (form,) or (form == "mixed" and len(first.features) >= 2)


@pytest.mark.parametrize("form", ALL_FORMS)
def test_every_form_writes_a_program_plain_python_runs_in_every_state(form, tmp_path):
    """The derived-function forms call ``sg.grad``/``sg.jvp``/``sg.vjp`` of their callee
    outside any differentiation here: that is the API used as API.md says (a seed or tangent
    last, defaulted parameters by keyword), which must run."""
    for seed in range(8):
        program = generate_form(seed, form)
        name = f"srcgrad_form_valid_{form}_{seed}"
        module = load(program, tmp_path, name)
        try:
            args = program.make_args(np.random.default_rng(seed))
            for statement, keywords in program.states:
                exec(statement, module.__dict__)
                kwargs = {k: eval(v, module.__dict__) for k, v in keywords.items()}
                assert np.ndim(module.f(*args, **kwargs)) == 0
        finally:
            unload(name)


def test_form_selection_names_groups_and_single_forms():
    assert select_forms("soundness") == ALL_FORMS
    assert select_forms("classic") == CLASSIC_FORMS
    assert select_forms("ci") == CI_FORMS
    assert select_forms("none") == ()
    assert select_forms("list_reduce, fancy_set") == ("list_reduce", "fancy_set")
    assert make_program("classic_for", 3).features == ("for",)
    assert set(FORMS) <= set(ALL_FORMS)


def _run(source: str, tmp_path, name: str, kinds=("array",), shapes=((3,),),
         states=(("", {}),)):
    program = Program(source, 5, ("test",), list(shapes), list(kinds), (0,),
                      states=tuple(states))
    module = load(program, tmp_path, name)
    try:
        return run_program(program, module, 5)
    finally:
        unload(name)


HEADER = "import numpy as np\nimport srcgrad as sg\n\n"

WRONG_FIRST_ORDER = HEADER + '''
def wobbly(x):
    return np.sin(x)


sg.defvjp(wobbly, lambda g, out, x: g * np.cos(x) * 1.001)
sg.defjvp(wobbly, lambda t, out, x: t * np.cos(x))


def f(x0):
    return np.sum(wobbly(x0) * 2.0)
'''

# right for the data it was defined with, stale once ``DATA`` is refilled
STALE_CAPTURE = HEADER + '''
DATA = np.array([0.5, -1.0, 2.0])
FROZEN = DATA.copy()


def scaled(x):
    return x * DATA


sg.defvjp(scaled, lambda g, out, x: g * FROZEN)
sg.defjvp(scaled, lambda t, out, x: t * FROZEN)


def f(x0):
    return np.sum(scaled(x0) * x0)
'''

REFUSED = HEADER + '''
def f(x0):
    y = x0 * 2.0
    del y
    return np.sum(x0)
'''

CRASHING_RULE = HEADER + '''
def broken(x):
    return np.sin(x)


sg.defvjp(broken, lambda g, out, x: g * np.cos(x)[7])


def f(x0):
    return np.sum(broken(x0))
'''


def test_runner_finds_a_wrong_first_order_rule(tmp_path):
    outcome = _run(WRONG_FIRST_ORDER, tmp_path, "srcgrad_form_wrong1")
    assert (outcome.kind, outcome.mode) == ("wrong", "reverse")


def test_runner_finds_a_derivative_wrong_only_at_second_order(tmp_path, monkeypatch):
    """``sg.hessian`` off by 0.1% (first order untouched) must be caught."""
    real = sg.hessian
    monkeypatch.setattr(sg, "hessian", lambda fn, wrt=0: (
        lambda *args, **kwargs: real(fn, wrt=wrt)(*args, **kwargs) * 1.001))
    outcome = _run(WRONG_FIRST_ORDER.replace("* 1.001", ""), tmp_path, "srcgrad_form_wrong2")
    assert (outcome.kind, outcome.mode) == ("wrong", "second order"), outcome.detail


def test_runner_finds_a_derivative_stale_after_captured_data_changed(tmp_path):
    states = [("", {}), ("DATA[:] = np.array([1.5, 0.25, -0.75])", {})]
    outcome = _run(STALE_CAPTURE, tmp_path, "srcgrad_form_stale", states=states)
    assert (outcome.kind, outcome.state) == ("wrong", 1), outcome.detail


def test_runner_counts_a_refusal_and_checks_it_names_the_line(tmp_path):
    outcome = _run(REFUSED, tmp_path, "srcgrad_form_refused")
    assert outcome.kind == "refused"
    assert "srcgrad_form_refused.py:" in outcome.detail
    assert "does not name" not in outcome.detail


def test_runner_reports_any_other_exception_as_a_crash(tmp_path):
    outcome = _run(CRASHING_RULE, tmp_path, "srcgrad_form_crash")
    assert outcome.kind == "crashed" and "IndexError" in outcome.detail


def test_second_differences_match_a_known_hessian():
    def fn(x, scale=1.0):
        return float(np.sum(x ** 3) + x[0] * x[1] * scale)

    x = np.array([0.3, -0.7])
    want = np.diag(6.0 * x) + np.array([[0.0, 1.0], [1.0, 0.0]]) * 2.0
    assert np.allclose(numeric_second_differences(fn, [x], {"scale": 2.0}, 0), want,
                       atol=1e-6)
    got = numeric_second_differences(lambda t: t ** 4, [0.5], {}, 0)  # a Python float
    assert np.shape(got) == () and abs(float(got) - 12 * 0.25) < 1e-6


def test_second_differences_stay_accurate_where_the_fourth_derivative_is_large():
    """sin(100 t): plain second differences at the fuzzer's step are ~3e-5 off (its
    H2_RTOL is 1e-5); the extrapolated reference is not (the mixed 5000098 false alarm)."""
    t = 0.3
    want = -1e4 * np.sin(100 * t)
    got = float(numeric_second_differences(lambda u: np.sin(100 * u), [t], {}, 0))
    assert abs(got - want) < 1e-7 * abs(want)


def test_shrinking_drops_statements_the_failure_does_not_need(tmp_path):
    source = WRONG_FIRST_ORDER.replace(
        "    return np.sum(wobbly(x0) * 2.0)",
        "    unused = np.cos(x0) * 3.0\n    return np.sum(wobbly(x0) * 2.0)")
    program = Program(source, 5, ("test",), [(3,)], ["array"], (0,))
    outcome = run_source(program, tmp_path, "srcgrad_form_shrink_me")
    assert outcome.kind == "wrong"
    smaller = shrink(program, outcome, tmp_path, budget=60.0)
    assert "unused" not in smaller.source
    assert "def wobbly" in smaller.source and "return np.sum(wobbly(x0)" in smaller.source
    assert run_source(smaller, tmp_path, "srcgrad_form_shrunk").signature == outcome.signature


def test_runner_checks_every_mode_after_one_failed(tmp_path):
    source = WRONG_FIRST_ORDER.replace("t * np.cos(x))", "t * np.cos(x) * 0.999)")
    outcome = _run(source, tmp_path, "srcgrad_form_two_modes")
    assert (outcome.kind, outcome.mode) == ("wrong", "reverse")
    assert [(o.kind, o.mode) for o in outcome.others][:1] == [("wrong", "forward")]


def test_shrinking_never_leaves_a_name_unbound():
    assert names_all_bound("import numpy as np\n\ndef g(u):\n    v = u\n    return v\n")
    assert not names_all_bound("def g(u):\n    return v * u\n")
    assert names_all_bound("def mk():\n    buf = 1.0\n    def f(x):\n        return x * buf\n"
                           "    return f\n\nf = mk()\n")
    assert not names_all_bound("def mk():\n    def f(x):\n        return x * buf\n"
                               "    return f\n")

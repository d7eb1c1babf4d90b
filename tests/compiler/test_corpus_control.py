"""The control-flow corpus (issue 5, see ``corpus_control/__init__.py``), checked three ways:

- every case's reverse-mode derivative against central finite differences in float64, with
  ``optimize`` on and off, and with the argument's type (Python float in, Python float out;
  arrays keep shape and dtype), leaving the arguments untouched;
- forward mode (``sg.jvp``) against reverse mode: ``<grad f, t> == J t`` to 1e-10 relative,
  for every program whose result is one number;
- the cases themselves: together they take both sides of every ``if`` and ``while`` in the
  program's source (so a branch the compiler gets wrong cannot hide behind the inputs).
"""

import ast
import collections
import inspect
import sys
import textwrap
import zlib

import corpus_control
import numpy as np
import pytest
from fd import assert_close, numeric_gradient

import srcgrad as sg

PROGRAMS = corpus_control.load()

# What the compiler gets wrong: program name, or "name[case]", -> what is wrong. Each entry
# is a strict xfail, so it turns red the day the compiler is fixed: then delete it.
PENDING: dict[str, str] = {}
# Forward mode is checked against reverse mode, so a program neither mode can compile fails
# it too.
PENDING_FORWARD: dict[str, str] = {}


def _marks(pending, program, case):
    reason = pending.get(f"{program.name}[{case}]") or pending.get(program.name)
    return [pytest.mark.xfail(strict=True, reason=reason)] if reason else []


def _seed_like(out, program, case):
    """A fixed, generic cotangent shaped like ``out`` (vjp programs)."""
    rng = np.random.default_rng(zlib.crc32(f"{program.name}/{case}".encode()))
    return rng.uniform(0.5, 1.5, size=np.shape(out))


def _derive_and_call(program, args, optimize, seed):
    transform = sg.vjp if program.transform == "vjp" else sg.grad
    derived = transform(program.fn, wrt=program.wrt, optimize=optimize)
    result = derived(*args, seed) if seed is not None else derived(*args)
    if isinstance(program.wrt, tuple):
        assert isinstance(result, tuple) and len(result) == len(program.wrt), result
        return result
    return (result,)


def _assert_same_type(gradient, argument, what):
    if isinstance(argument, np.ndarray):
        assert type(gradient) is np.ndarray, f"{what}: {type(gradient).__name__}, want ndarray"
        assert gradient.shape == argument.shape, f"{what}: shape {gradient.shape}"
        assert gradient.dtype == argument.dtype, f"{what}: dtype {gradient.dtype}"
    else:
        assert type(gradient) is type(argument), (
            f"{what}: {type(gradient).__name__} for a {type(argument).__name__} argument")


def reverse_cases():
    for program in PROGRAMS:
        for case in program.cases:
            for optimize in (True, False):
                yield pytest.param(program, case, optimize,
                                   id=f"{program.name}-{case}-{'opt' if optimize else 'noopt'}",
                                   marks=_marks(PENDING, program, case))


@pytest.mark.parametrize("program, case, optimize", list(reverse_cases()))
def test_reverse_mode_matches_finite_differences(program, case, optimize):
    args = program.args(case)
    originals = program.args(case)
    seed = _seed_like(program.fn(*args), program, case) if program.transform == "vjp" else None
    got = _derive_and_call(program, args, optimize, seed)
    for place, gradient in zip(program.places(), got, strict=True):
        what = f"{program.name}[{case}]: gradient wrt argument {place}"
        _assert_same_type(gradient, args[place], what)
        assert_close(gradient, numeric_gradient(program.fn, args, {}, place, seed), what=what)
    for before, after in zip(originals, args, strict=True):
        np.testing.assert_array_equal(after, before, err_msg="an argument was modified")


def _tangent_like(argument, rng):
    t = rng.uniform(-1.0, 1.0, size=np.shape(argument))
    return float(t) if isinstance(argument, float) else t


def forward_cases():
    for program in PROGRAMS:
        if program.transform != "grad":
            continue
        for case in program.cases:
            yield pytest.param(program, case, id=f"{program.name}-{case}",
                               marks=_marks(PENDING_FORWARD, program, case))


@pytest.mark.parametrize("program, case", list(forward_cases()))
def test_forward_mode_agrees_with_reverse_mode(program, case):
    args = program.args(case)
    grads = _derive_and_call(program, args, True, None)
    rng = np.random.default_rng(zlib.crc32(program.name.encode()))
    tangents = [_tangent_like(args[p], rng) for p in program.places()]
    tangent = tuple(tangents) if isinstance(program.wrt, tuple) else tangents[0]
    value, directional = sg.jvp(program.fn, wrt=program.wrt)(*args, tangent)
    assert_close(value, program.fn(*program.args(case)), rtol=1e-12, atol=1e-12, what="value")
    want = sum(float(np.sum(np.asarray(g) * t)) for g, t in zip(grads, tangents, strict=True))
    np.testing.assert_allclose(float(directional), want, rtol=1e-10, atol=1e-13)


# --- the cases take both sides of every branch ---------------------------------------------

def _branch_points(fn):
    """(kind, test line, first body line) of every ``if``/``while`` in ``fn``'s own body."""
    lines, first = inspect.getsourcelines(fn)
    tree = ast.parse(textwrap.dedent("".join(lines)))
    offset = first - 1
    points = []
    for node in ast.walk(tree):
        if isinstance(node, ast.If | ast.While):
            constant = isinstance(node.test, ast.Constant)
            kind = "while True" if constant else type(node).__name__.lower()
            points.append((kind, node.test.lineno + offset, node.body[0].lineno + offset))
    return points


def _line_arcs(fn, calls):
    """How often each (line, next line) step is taken inside ``fn``'s frames over ``calls``."""
    arcs = collections.Counter()

    def frame_tracer():
        previous = None

        def trace(frame, event, arg):
            nonlocal previous
            if event == "line":
                arcs[previous, frame.f_lineno] += 1
                previous = frame.f_lineno
            return trace

        return trace

    def global_tracer(frame, event, arg):
        return frame_tracer() if frame.f_code is fn.__code__ else None

    sys.settrace(global_tracer)
    try:
        for args in calls:
            fn(*args)
    finally:
        sys.settrace(None)
    return arcs


def one_sided_branches(fn, calls):
    """Branch points some side of which no call takes, as readable strings."""
    arcs = _line_arcs(fn, calls)
    missing = []
    for kind, test, body in _branch_points(fn):
        if (test, body) not in arcs:
            missing.append(f"{kind} at line {test}: body never runs")
        if kind != "while True" and not any(a == test and b != body for a, b in arcs):
            missing.append(f"{kind} at line {test}: test never false")
    return missing


@pytest.mark.parametrize("program", PROGRAMS, ids=[p.name for p in PROGRAMS])
def test_cases_take_both_sides_of_every_branch(program):
    calls = [program.args(case) for case in program.cases]
    assert one_sided_branches(program.fn, calls) == []


TRIPS = {"zero": range(0, 1), "one": range(1, 2), "many": range(2, 1000)}
WHILE_PROGRAMS = [p for p in PROGRAMS if any(kind == "while" for kind, _, _ in
                                              _branch_points(p.fn))]


@pytest.mark.parametrize("program", WHILE_PROGRAMS, ids=[p.name for p in WHILE_PROGRAMS])
def test_while_cases_named_by_trip_count_have_it(program):
    (test, body), = [(t, b) for kind, t, b in _branch_points(program.fn) if kind == "while"]
    for case in set(program.cases) & set(TRIPS):
        trips = _line_arcs(program.fn, [program.args(case)])[test, body]
        assert trips in TRIPS[case], f"{program.name}[{case}]: {trips} trips"


def test_while_trip_counts_zero_one_and_many_are_all_exercised():
    assert sum(set(TRIPS) <= set(p.cases) for p in WHILE_PROGRAMS) >= 3


def _one_sided(x):
    if x > 0.0:
        x = x * 2.0
    while x < 1.0:
        x = x + 1.0
    return x


def test_the_branch_check_can_fail():
    assert one_sided_branches(_one_sided, [(0.5,)]) == [
        f"if at line {_one_sided.__code__.co_firstlineno + 1}: test never false",
        f"while at line {_one_sided.__code__.co_firstlineno + 3}: body never runs",
    ]
    assert one_sided_branches(_one_sided, [(0.5,), (-0.5,)]) == []


def test_corpus_is_large_and_covers_every_module():
    assert len(PROGRAMS) >= 60
    modules = {p.fn.__module__.rsplit(".", 1)[1] for p in PROGRAMS}
    assert modules == set(corpus_control.MODULES)
    assert {p.transform for p in PROGRAMS} == {"grad", "vjp"}

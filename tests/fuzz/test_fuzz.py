"""The random-program fuzzer: every generated program differentiated every way we can.

Programs are spread over groups: straight-line code only, straight-line code plus one
optional construct (``generator.FEATURES``), and a mix of all the constructs the compiler
accepts. A group whose construct the compiler refuses today (the session probe) is skipped
with the compiler's own message as the reason. ``test_fuzz_form`` runs the soundness forms
(``forms.py``) that ``--fuzz-forms`` selects (README.md) in reverse, forward and second
order. Reproduce one program with
``pytest tests/fuzz --fuzz-seed S -k <id>``; its source is in the failure message.
"""

from __future__ import annotations

import random

import pytest

from .generator import FEATURES, generate
from .harness import FuzzFailure, check, describe, load, unload
from .known import known_bug
from .probes import has_forward_mode
from .report import cases as form_cases
from .report import run_case, select_forms

# one slot per program in turn: straight-line code most often, each construct, then a mix
SLOTS = ["straight"] * 4 + list(FEATURES) + ["mixed"]


def pytest_generate_tests(metafunc):
    if "form_case" in metafunc.fixturenames:
        forms = select_forms(metafunc.config.getoption("fuzz_forms"))
        count = metafunc.config.getoption("fuzz_form_count") if forms else 0
        chosen = form_cases(forms, count, metafunc.config.getoption("fuzz_seed"))
        metafunc.parametrize("form_case", chosen, ids=[f"{f}-{s}" for f, s in chosen])
    if "fuzz_case" not in metafunc.fixturenames:
        return
    count = metafunc.config.getoption("fuzz_count")
    base = metafunc.config.getoption("fuzz_seed")
    cases = [(SLOTS[i % len(SLOTS)], base * 1_000_003 + i) for i in range(count)]
    metafunc.parametrize("fuzz_case", cases, ids=[f"{g}-{s}" for g, s in cases])


def _features(group: str, seed: int, accepted: list[str]) -> tuple[str, ...]:
    if group == "straight":
        return ()
    if group == "mixed":
        usable = [f for f in accepted if f != "reject"]
        rng = random.Random(seed)
        return tuple(rng.sample(usable, min(len(usable), rng.randint(2, 3))))
    return (group,)


def test_fuzz(fuzz_case, compiler_features, fuzz_dir):
    group, seed = fuzz_case
    refusal = compiler_features.get(group)
    if refusal:
        pytest.skip(f"the compiler does not accept `{group}` yet: {refusal}")
    accepted = [f for f, why in compiler_features.items() if why is None]
    program = generate(seed, _features(group, seed, accepted))
    name = f"srcgrad_fuzz_{group}_{seed}"
    module = load(program, fuzz_dir, name)
    try:
        check(program, module, seed, forward=has_forward_mode())
    except FuzzFailure as failure:
        covered = known_bug(str(failure))
        if covered:
            pytest.xfail(f"known bug, reduced in test_regressions.py::{covered}")
        raise
    finally:
        unload(name)


def test_forward_mode_agrees_with_finite_differences_once_it_exists(fuzz_dir):
    """Visible while ``sg.jvp`` is missing (then every program above skips forward mode)."""
    if not has_forward_mode():
        pytest.skip("sg.jvp does not exist yet: the fuzzer checks reverse mode and the runtime")
    program = generate(7, ())
    module = load(program, fuzz_dir, "srcgrad_fuzz_forward_probe")
    try:
        check(program, module, 7, forward=True)
    finally:
        unload("srcgrad_fuzz_forward_probe")


def test_fuzz_form(form_case, fuzz_dir):
    """A soundness form (``forms.py``): right in reverse, forward and second order, in every
    state of its captured data, or a failure saying which mode and call went wrong.
    A refusal fails too: API.md promises every one of these forms."""
    form, seed = form_case
    program, outcome = run_case(form, seed, fuzz_dir)
    if outcome.kind == "skipped":
        pytest.skip("the primal overflowed or left its domain at every call")
    if outcome.kind != "right":
        failures = [f"{o.kind} in {o.mode} at call {o.state} {program.states[o.state]}:\n"
                    f"{o.detail}" for o in (outcome, *outcome.others)]
        raise FuzzFailure(describe(program, "\n\n".join(failures)))

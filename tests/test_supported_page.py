"""``docs/supported.md`` is generated from the rule table and kept in step with it, and
the facts it prints from the records are true: every PyTorch spelling exists on the
runtime, every rule the kink table checks has a kink note, and a rule whose samples are
first-order-only says so in its ``second_order`` note."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import srcgrad as sg
from srcgrad.rules import ELEMENTWISE, RULES
from srcgrad.tools import supported
from tests.reliability.test_kink_table import TABLE
from tests.rules.samples import SAMPLES

ROOT = Path(__file__).resolve().parents[1]


def test_supported_page_is_up_to_date_with_the_rule_table():
    # a fresh interpreter: the table exactly as importing srcgrad builds it
    done = subprocess.run([sys.executable, "-m", "srcgrad.tools.supported", "--check"],
                          cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, (
        f"docs/supported.md is stale; run `{supported.COMMAND}` and commit the page\n"
        f"{done.stdout}{done.stderr}")


def test_every_rule_with_a_public_spelling_is_on_the_page():
    page = supported.render()
    public = supported._public_names()
    for rule in RULES.values():
        if rule.user or rule.structural:
            continue
        names = [*supported._spellings(rule, public), *rule.pytorch, rule.name]
        assert any(f"`{n}`" in page for n in names), f"rule {rule.name!r} is not on the page"


def test_readme_links_the_supported_page():
    assert "(docs/supported.md)" in (ROOT / "README.md").read_text()


def _spelled(spelling: str) -> bool:
    """Does the runtime have ``t.name`` / ``sg.a.b``? (operator forms are checked by the
    runtime's operator tests)"""
    head, _, rest = spelling.partition(".")
    name = rest.split("(")[0].split("[")[0]
    if head == "t" and name.isidentifier():
        return hasattr(sg.Tensor, name)
    if head == "sg" and rest:
        obj = sg
        for part in rest.split("."):
            if not hasattr(obj, part):
                return False
            obj = getattr(obj, part)
        return True
    return True


@pytest.mark.parametrize("name", sorted(n for n, r in RULES.items() if r.pytorch))
def test_pytorch_spellings_on_the_page_exist_on_the_runtime(name):
    missing = [s for s in RULES[name].pytorch if not _spelled(s)]
    assert not missing, f"rule {name!r} lists PyTorch spellings the runtime lacks: {missing}"


_LABEL_ALIASES = {"abs": "absolute"}


@pytest.mark.parametrize("label", sorted({row.label for row in TABLE}))
def test_rules_in_the_kink_table_have_a_kink_note(label):
    stem = label.split("-")[0]
    name = _LABEL_ALIASES.get(stem, stem)
    assert name in RULES, (f"kink-table row {label!r} should start with the name of the rule "
                           "it checks")
    assert RULES[name].kinks, (f"rule {name!r} has rows in the kink table but no kinks= note "
                               "on its defrule line (docs/supported.md prints it)")


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_second_order_note_agrees_with_the_samples(name):
    rule = RULES.get(name)
    if rule is None:
        pytest.skip(f"{name} is not a rule")
    once = [s.first_order_only for s in SAMPLES[name] if s.first_order_only]
    assert bool(once) == bool(rule.second_order), (
        f"rule {name!r}: samples refused at second order ({once}) must match the record's "
        f"second_order note ({rule.second_order!r})")


_UNARY_SPELLINGS = sorted(
    (rule.name, s[2:]) for rule in RULES.values()
    if rule.kind == ELEMENTWISE and len(rule.inputs) == 1 and rule.name in SAMPLES
    for s in rule.pytorch if s.startswith("t.") and s[2:].isidentifier())


@pytest.mark.parametrize(("name", "method"), _UNARY_SPELLINGS)
def test_unary_pytorch_spelling_computes_its_rule_on_the_runtime(name, method):
    # the runtime's unary methods find their rule through this field (rules.methods)
    rule = RULES[name]
    for sample in SAMPLES[name]:
        x = sample.env["x"]
        t = sg.tensor(np.asarray(x, dtype=np.float64), requires_grad=True)
        got = getattr(t, method)()
        np.testing.assert_allclose(got.detach().numpy(), rule.apply(dict(sample.env)))
        assert got.grad_fn is not None

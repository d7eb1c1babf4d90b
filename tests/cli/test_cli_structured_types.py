"""``srcgrad show --types`` with structured arguments (API.md "Structured arguments"):
``dict(W=array[2],b=float)``, ``list(...)``, ``tuple(...)``, nested; a malformed structure
is a usage error (exit 2, one line on stderr)."""


import numpy as np
import pytest
from sample_target import mlp_loss
from test_cli_show import SAMPLE, assert_usage_error, run

import srcgrad as sg
from srcgrad.compiler.api import render


def test_show_with_a_dict_kind_prints_the_version_for_that_structure():
    result = run("show", f"{SAMPLE}:mlp_loss", "--types", "dict(W=array[2],b=float),array[1]",
                 "--color", "never")
    assert result.returncode == 0, result.stderr
    assert "def grad_mlp_loss(params_W, params_b, x):" in result.stdout
    # the same text as the version compiled for such arguments when they are passed
    params, x = {"W": np.ones((2, 1)), "b": 0.5}, np.ones(1)
    assert result.stdout.strip() == sg.source(sg.grad(mlp_loss), params, x).strip()


@pytest.mark.parametrize("kinds", ["list(array[2],float)", "tuple(array[2],list(float))"])
def test_render_accepts_nested_list_and_tuple_kinds(kinds):
    def f(xs):
        return np.sum(xs[0]) * xs[1] if kinds.startswith("list") else \
            np.sum(xs[0]) * xs[1][0]
    text = render(f, types=[kinds])
    assert "def grad_f(xs_0, xs_1" in text


@pytest.mark.parametrize("kinds, words", [
    ("dict(W=array[2],b),array[1]", ["dict item", "name=kind"]),
    ("dict(W=array[2],array[1]", ["unbalanced"]),
])
def test_a_malformed_structure_kind_is_a_usage_error(kinds, words):
    assert_usage_error(run("show", f"{SAMPLE}:mlp_loss", "--types", kinds), *words)




def test_show_without_types_of_a_dict_function_asks_for_its_structure():
    assert_usage_error(run("show", f"{SAMPLE}:mlp_loss"), "params['W']", "--types")


def test_the_emitted_text_says_which_parameters_hold_a_structures_leaves():
    text = render(mlp_loss, types=["dict(W=array[2],b=float)", "array[1]"])
    assert "# params: dict(W=array[2,float64], b=float) -> params_W, params_b" in text
    assert "rebuilt into the same containers" in text

"""``srcgrad --version``; ``--types`` explained in ``--help`` and checked against the ranks
the function can take; ``srcgrad show`` on an ``@sg.grad`` function prints that gradient."""

import os

import numpy as np
import pytest
from rank_target import decorated
from test_cli_show import HERE, assert_usage_error, run

import srcgrad as sg
from srcgrad.compiler.api import render

TARGET = os.path.join(HERE, "rank_target.py")


def test_version_flag_prints_the_package_version():
    result = run("--version")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == f"srcgrad {sg.__version__}"


def test_show_help_explains_that_array_n_is_a_rank():
    result = run("show", "--help")
    text = " ".join(result.stdout.split())
    assert result.returncode == 0
    assert "array[N] (a float64 array with N dimensions" in text
    assert "N is the rank, not the length" in text


@pytest.mark.parametrize("function, kinds, line", [
    ("pick", "array[1]", 9), ("pick", "array[0]", 9), ("inverse_sum", "array[1]", 13)])
def test_a_rank_the_function_cannot_take_is_a_usage_error_naming_it(function, kinds, line):
    result = run("show", f"{TARGET}:{function}", "--types", kinds)
    assert_usage_error(result, f"rank_target.py:{line}", kinds, "cannot take",
                       "N dimensions", "not an array of N elements")


@pytest.mark.parametrize("function, kinds", [("pick", "array[2]"), ("inverse_sum", "array[2]"),
                                             ("sized", "array[1]")])
def test_a_rank_the_function_takes_is_shown(function, kinds):
    result = run("show", f"{TARGET}:{function}", "--types", kinds, "--color", "never")
    assert result.returncode == 0, result.stderr
    assert f"def grad_{function}(" in result.stdout


def test_show_on_a_decorated_gradient_prints_that_gradient_under_its_name():
    result = run("show", f"{TARGET}:decorated", "--color", "never")
    assert result.returncode == 0, result.stderr
    assert "def grad_decorated(x):" in result.stdout
    assert "grad_grad" not in result.stdout
    assert result.stdout.strip() == sg.source(decorated).strip()
    typed = run("show", f"{TARGET}:decorated", "--types", "array[1]", "--color", "never")
    assert typed.stdout.strip() == sg.source(decorated, np.ones(3)).strip()


def test_show_on_a_decorated_gradient_refuses_wrt_and_mode():
    for flag in (["--wrt", "0"], ["--mode", "forward"]):
        assert_usage_error(run("show", f"{TARGET}:decorated", *flag), "already a derivative",
                           "--wrt and --mode")


def test_render_of_a_decorated_gradient_without_optimisation_keeps_its_name():
    assert "def grad_decorated(x):" in render(decorated, optimize=False)

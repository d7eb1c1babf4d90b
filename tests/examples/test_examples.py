"""Every example script runs to completion and prints what it promises; ``srcgrad show``
prints the derivative code of each example's compiler-facing functions.

Scripts run in a subprocess from a scratch directory (as a user would run them), with the
interpreter running the tests.
"""

from __future__ import annotations

import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tests.fd import numeric_gradient

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

# example -> (function, extra `srcgrad show` options, text the code must contain)
COMPILER_FUNCTIONS = [
    ("logistic_regression.py", "loss", ["--wrt", "w,b"], "def grad_loss(w, b, X, y):"),
    # a derived function as the target: the CLI differentiates it once more
    ("logistic_regression.py", "loss_grad", [], "grad_loss_grad(w, b, X, y"),
    ("quickstart.py", "loss", ["--types", "array[2],array[1],array[1]"],
     "def grad_loss(W, x, y):"),
    ("gallery.py", "softplus_loss", ["--types", "array[1],array[2]"],
     "def grad_softplus_loss(w, X):"),
    ("gallery.py", "scalar_loop", ["--types", "float"], "# forward mode: the gradient"),
    ("gallery.py", "fixed_point", ["--types", "float"], "def grad_fixed_point(a):"),
    ("custom_rule.py", "loss", [], "def grad_loss(w, x, y):"),
    ("custom_rule.py", "quantize", [], "def grad_quantize(w):"),
    ("rnn_loop.py", "rnn_loss", ["--wrt", "W,U"], "for i_1 in reversed(range("),
    ("newton_hessian.py", "rosenbrock", ["--annotate"], "def grad_rosenbrock(p):"),
    ("newton_hessian.py", "gradient", [], "def grad_rosenbrock(p):"),
    ("mlp_params.py", "loss", ["--types", "dict(W1=array[2],b1=array[1],W2=array[2],"
                               "b2=array[1],temperature=float),array[2],array[1]"],
     "def grad_loss(params_W1, params_b1, params_W2, params_b2, params_temperature, X, y):"),
]


def run_example(name: str, cwd: Path) -> str:
    done = subprocess.run([sys.executable, str(EXAMPLES / name)], cwd=cwd,
                          capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, f"{name} failed:\n{done.stdout}\n{done.stderr}"
    return done.stdout


def losses(output: str) -> list[float]:
    return [float(v) for v in re.findall(r"loss (\d+\.\d+)", output)]


def test_every_example_is_exercised_here():
    tested = {"quickstart.py", "gallery.py", "seed_tour.py", "logistic_regression.py", "mlp_runtime.py",
              "custom_rule.py", "rnn_loop.py", "newton_hessian.py", "mlp_params.py"}
    assert {p.name for p in EXAMPLES.glob("*.py")} == tested


def _example_module(name: str):
    """The example's functions, imported from its file (its ``__main__`` part does not run)."""
    spec = importlib.util.spec_from_file_location(f"example_{Path(name).stem}", EXAMPLES / name)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_gallery_gradients_match_finite_differences(tmp_path):
    out = run_example("gallery.py", tmp_path)
    gallery = _example_module("gallery.py")
    got, want = re.search(r"at 5: (\S+) \(finite differences: (\S+)\)", out).groups()
    assert float(got) == pytest.approx(float(want), abs=1e-7)
    # the printed numbers against the suite's own finite differences, not numbers srcgrad
    # printed once (the script's own difference above is part of what it shows)
    assert float(got) == pytest.approx(
        float(numeric_gradient(gallery.fixed_point, (5.0,), {}, 0)), abs=1e-7)
    loop = float(re.search(r"d scalar_loop / dx at 0.5: (\S+)", out).group(1))
    assert loop == pytest.approx(float(numeric_gradient(gallery.scalar_loop, (0.5,), {}, 0)),
                                 rel=1e-8)
    printed = re.search(r"d softplus_loss / dw: \[([^\]]*)\]", out).group(1)
    w, X = np.array([0.5, -0.25]), np.arange(6.0).reshape(3, 2) / 6  # as the script
    np.testing.assert_allclose([float(v) for v in printed.split()],
                               numeric_gradient(gallery.softplus_loss, (w, X), {}, 0),
                               rtol=1e-6, atol=1e-8)


def test_quickstart_prints_a_gradient_the_runtime_confirms_and_its_source(tmp_path):
    out = run_example("quickstart.py", tmp_path)
    assert "runtime agrees: True" in out
    assert "def grad_loss(W, x, y):" in out
    assert "# line 14: h = np.tanh(W @ x)" in out


def test_seed_tour_prints_the_seeds_values(tmp_path):
    out = run_example("seed_tour.py", tmp_path)
    assert re.search(r"^c\.grad_fn: <SinBackward0 object at 0x[0-9a-f]+>$", out, re.M)
    assert re.search(r"^b\.grad_fn: <MulBackward0 object at 0x[0-9a-f]+>$", out, re.M)
    for line in ["a.grad: tensor([2.8805])", "grad after two backwards: tensor([5.])",
                 "after zero_: tensor([0.])", "z.requires_grad: False",
                 "no_grad: False  enable_grad inside: True",
                 "after set_grad_enabled(False): False", "first: 12.0  second: 12.0",
                 "flatten()[:, 0]: too many indices for tensor of dimension 1",
                 "anomaly: Function 'SqrtBackward0' returned nan values in its 0th output.",
                 "inplace on a leaf: a leaf Variable that requires grad is being used in an "
                 "in-pl", "digraph {"]:
        assert line in out.splitlines(), line
    assert out.count("[0.2122, -2.97]") == 2  # the gradient and cos(3x) * 3
    assert "\nSelectBackward0\nViewBackward0\nReluBackward0\nAddBackward0\nAccumulateGrad\n" in out
    via_grad = re.search(r"grad via autograd.grad: \(tensor\((.*)\),\)", out).group(1)
    assert f"grad via backward: tensor({via_grad})" in out


def test_logistic_regression_loss_falls(tmp_path):
    out = run_example("logistic_regression.py", tmp_path)
    found = losses(out)
    assert found[0] == pytest.approx(0.6931, abs=1e-4)  # log 2 at w = 0
    assert len(found) == 6 and all(a > b for a, b in zip(found, found[1:]))
    assert found[-1] < 0.2
    assert float(re.search(r"accuracy (\d+\.\d)%", out).group(1)) >= 90
    assert "def grad_loss_grad(w, b, X, y):" in out


def test_mlp_params_trains_a_dict_of_parameters_with_tree_map(tmp_path):
    out = run_example("mlp_params.py", tmp_path)
    found = losses(out)
    assert len(found) == 6 and all(a > b for a, b in zip(found, found[1:]))
    assert found[-1] < 0.5 * found[0]
    assert "gradient keys: ['W1', 'W2', 'b1', 'b2', 'temperature']; temperature gradient " \
        "is a float" in out
    # the gradient the script trains with, leaf by leaf against finite differences
    example = _example_module("mlp_params.py")
    X, y = example.make_data(n=20)
    params = example.init(np.random.default_rng(3), hidden=3)
    value, grads = example.loss_and_grad(params, X, y)
    assert value == pytest.approx(example.loss(params, X, y), rel=1e-12)
    assert list(grads) == list(params)
    for key, leaf in params.items():
        def moved(v, key=key):
            return example.loss({**params, key: v}, X, y)
        np.testing.assert_allclose(grads[key], numeric_gradient(moved, (leaf,), {}, 0),
                                   rtol=1e-6, atol=1e-8, err_msg=key)
        assert type(grads[key]) is type(leaf)


def test_mlp_runtime_loss_falls(tmp_path):
    out = run_example("mlp_runtime.py", tmp_path)
    found = losses(out)
    assert len(found) == 6 and all(a > b for a, b in zip(found, found[1:]))
    assert found[-1] < 0.005
    model, target = re.search(r"f\(0.5\), f\(-2.0\): (\[.*\])  sin: (\[.*\])", out).groups()
    assert all(abs(a - b) < 0.1 for a, b in zip(json.loads(model), json.loads(target),
                                                strict=True))


def test_custom_rule_trains_through_rounding_and_both_engines_agree(tmp_path):
    out = run_example("custom_rule.py", tmp_path)
    found = losses(out)
    assert found[0] > 1.0 and found[-1] < 0.01  # zero gradients would leave it at 1.4
    assert "agree: True" in out.splitlines()
    runtime = re.search(r"runtime gradient: +(\[.*\])", out).group(1)
    assert f"compiler gradient: {runtime}" in out


def test_rnn_loop_gradient_matches_finite_differences(tmp_path):
    out = run_example("rnn_loop.py", tmp_path)
    errors = [float(v) for v in re.findall(r"finite differences\| = (\S+)", out)]
    assert len(errors) == 2 and max(errors) < 1e-6
    assert "gradient check passed for a sequence of 6 steps" in out


def test_newton_hessian_converges_quadratically_to_the_minimum(tmp_path):
    out = run_example("newton_hessian.py", tmp_path)
    assert "matches finite differences of the gradient: True" in out.splitlines()
    steps = re.findall(r"^step (\d+): .* f = (\S+)  \|grad\| = (\S+)$", out, re.M)
    assert [int(k) for k, _, _ in steps] == list(range(len(steps)))
    values = [float(f) for _, f, _ in steps]
    norms = [float(g) for _, _, g in steps]
    assert values[0] == pytest.approx(6.776, abs=1e-3)  # f(-1.2, 1, 1)
    assert all(a >= b for a, b in zip(values, values[1:]))  # every step lowers f
    assert len(steps) < 20 and norms[-1] < 1e-12  # converged, not out of steps
    small = [g for g in norms if 0 < g < 1e-2]  # near the minimum: quadratic convergence
    assert any(b < a * a * 10 for a, b in zip(small, small[1:]))
    error = float(re.search(r"minimum found at .* error (\S+)$", out, re.M).group(1))
    assert error < 1e-8


@pytest.mark.parametrize("example, function, options, expected", COMPILER_FUNCTIONS,
                         ids=[f"{e}:{f}" for e, f, _, _ in COMPILER_FUNCTIONS])
def test_srcgrad_show_prints_each_compiler_function(tmp_path, example, function, options,
                                                    expected):
    target = f"{EXAMPLES / example}:{function}"
    done = subprocess.run([sys.executable, "-m", "srcgrad", "show", target, *options],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    assert expected in done.stdout
    assert done.stdout.startswith(("import numpy as np", "import math"))

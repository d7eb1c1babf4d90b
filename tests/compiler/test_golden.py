"""Golden files of emitted source (tests/compiler/golden/*.py), reviewed as diffs.

Two checks per golden program, both able to fail:

- the source a fresh compile emits now equals the checked-in golden text (a readable
  unified diff otherwise); ``pytest tests/compiler/test_golden.py --update-golden`` rewrites
  the files, then review ``git diff``;
- the checked-in golden module, run on its own at a point with distinct values, gives the
  derivative central finite differences give (``tests/fd.py``), so a golden file never
  freezes wrong code. The reference never comes from srcgrad.

``test_a_changed_golden_text_fails_with_a_diff`` and
``test_a_golden_module_with_a_wrong_derivative_fails`` show both checks catching a change.
"""

from __future__ import annotations

import difflib
import importlib.util
import pathlib
import sys
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import srcgrad as sg
from srcgrad.compiler.buffers import BufferPool
from tests.fd import assert_close, directional_derivative, numeric_gradient

GOLDEN = pathlib.Path(__file__).parent / "golden"
HEADER = "# ruff: noqa\n# Golden emitted source (pytest --update-golden regenerates it).\n"


def _programs() -> dict[str, tuple]:
    spec = importlib.util.spec_from_file_location("golden_programs", GOLDEN / "programs.py")
    module = importlib.util.module_from_spec(spec)
    # importable by name, so emitted code that reads a function's defaults at run time
    # refers to it with `from golden_programs import ...` and the golden module runs alone
    sys.modules["golden_programs"] = module
    spec.loader.exec_module(module)
    return module.PROGRAMS


PROGRAMS = _programs()


def _derive(fn: Callable[..., Any], transform: str, wrt: Any) -> Callable[..., Any]:
    return {"grad": sg.grad, "vjp": sg.vjp, "value_and_grad": sg.value_and_grad,
            "jvp": sg.jvp}[transform](fn, wrt=wrt)


def emitted_text(name: str) -> str:
    """The golden text a fresh compile of program ``name`` gives now."""
    fn, transform, wrt, args = PROGRAMS[name]
    sg.clear_cache()  # a fresh compile, not a text cached from an earlier test
    return HEADER + sg.source(_derive(fn, transform, wrt), *args)


def golden_mismatch(text: str, path: pathlib.Path) -> str | None:
    """``None`` when ``path`` holds exactly ``text``, else what to read: a unified diff."""
    if not path.exists():
        return f"no golden file {path.name}: run pytest --update-golden"
    golden = path.read_text()
    if golden == text:
        return None
    diff = "".join(difflib.unified_diff(golden.splitlines(keepends=True),
                                        text.splitlines(keepends=True),
                                        f"{path.name} (checked in)", f"{path.name} (emitted now)"))
    return (f"{path.name}: the emitted source changed. Review the diff; if it is right, "
            f"run pytest tests/compiler/test_golden.py --update-golden\n{diff}")


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_emitted_source_matches_golden(name, request):
    text = emitted_text(name)
    path = GOLDEN / f"{name}.py"
    if request.config.getoption("--update-golden") and golden_mismatch(text, path):
        path.write_text(text)
    problem = golden_mismatch(text, path)
    if problem is not None:
        pytest.fail(problem, pytrace=False)  # the diff alone, not the assertion's repr


def test_every_golden_file_belongs_to_a_program():
    files = {p.stem for p in GOLDEN.glob("*.py")} - {"programs"}
    orphans = sorted(files - set(PROGRAMS))
    assert not orphans, f"golden files of no program (delete them): {orphans}"


# --- running the golden modules ---------------------------------------------------------------

def _stopped_reference(x, y, n, frozen):
    """``programs.stopped`` with the stopped value a constant, as its derivative sees it."""
    return np.sum(x * frozen * n)


# Points where the golden modules run: the example arguments are all ones (symmetric points
# hide swapped or transposed terms), so the floats move to distinct values here. Integers
# (trip counts) stay: the emitted code is specialised on them. ``stopped_generic`` has no
# example arguments (its text is the generic one), so it gets a point of its own.
RUN_ARGS: dict[str, tuple] = {
    "stopped_generic": (np.array([0.3, -0.7, 1.2]), np.array([0.5, 2.0, -1.0]), 1.5),
}
# A program whose derivative is not the finite differences of the program itself.
REFERENCES: dict[str, Callable[..., Any]] = {
    "stopped_generic": lambda x, y, n: _stopped_reference(x, y, n, np.max(RUN_ARGS[
        "stopped_generic"][0])),
}


def _spread(value: Any, rng: np.random.Generator) -> Any:
    if isinstance(value, tuple):
        return tuple(_spread(v, rng) for v in value)
    if isinstance(value, np.ndarray) and value.dtype.kind == "f":
        return value + 0.3 * rng.standard_normal(value.shape)
    if isinstance(value, float):
        return value + float(0.3 * rng.standard_normal())
    return value


def run_args(name: str) -> tuple:
    if name in RUN_ARGS:
        return RUN_ARGS[name]
    return _spread(PROGRAMS[name][3], np.random.default_rng(sorted(PROGRAMS).index(name)))


def _places(wrt: Any) -> list[int]:
    return list(wrt) if isinstance(wrt, tuple) else [wrt]


def check_against_finite_differences(name: str, emitted: Callable[..., Any]) -> None:
    """``emitted`` (the golden module's function) at ``run_args(name)`` against central
    differences of the program (or of its ``REFERENCES`` entry)."""
    fn, transform, wrt, _ = PROGRAMS[name]
    reference = REFERENCES.get(name, fn)
    args = run_args(name)
    places = _places(wrt)
    got = emitted(*args)
    if transform == "jvp":
        *primal, tangent = args
        value, derivative = got
        assert_close(value, fn(*primal), rtol=1e-12, atol=1e-12, what=f"{name}: value")
        tangents = dict(zip(places, tangent if isinstance(wrt, tuple) else (tangent,)))
        assert_close(derivative, directional_derivative(reference, primal, tangents),
                     what=f"{name}: directional derivative")
        return
    seed = None
    if transform == "vjp":
        *primal, seed = args
        args = tuple(primal)
    if transform == "value_and_grad":
        value, got = got
        assert_close(value, fn(*args), rtol=1e-12, atol=1e-12, what=f"{name}: value")
    grads = got if isinstance(wrt, tuple) else (got,)
    assert len(grads) == len(places), f"{name}: {len(grads)} gradients for wrt {wrt}"
    for p, g in zip(places, grads):
        assert_close(g, numeric_gradient(reference, args, {}, p, seed),
                     what=f"{name}: derivative with respect to argument {p}")


def _golden_function(name: str, text: str) -> Callable[..., Any]:
    fn, transform, _, _ = PROGRAMS[name]
    namespace: dict[str, Any] = {}
    if "_tape_buffers.take()" in text:  # (bound by srcgrad, as its header says)
        namespace["_tape_buffers"] = BufferPool(text.count("buffers.into("))
    exec(compile(text, f"{name}.py", "exec"), namespace)
    return namespace[f"{transform}_{fn.__name__}"]


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_golden_module_matches_finite_differences(name):
    check_against_finite_differences(name, _golden_function(name, (GOLDEN / f"{name}.py")
                                                            .read_text()))


# --- the checks can fail --------------------------------------------------------------------

def test_a_changed_golden_text_fails_with_a_diff(tmp_path):
    text = emitted_text("sin_sum")
    changed = tmp_path / "sin_sum.py"
    lines = text.splitlines(keepends=True)
    last = max(i for i, line in enumerate(lines) if line.strip().startswith("return"))
    lines.insert(last, "    dx = dx * 1.0\n")
    changed.write_text("".join(lines))
    problem = golden_mismatch(text, changed)
    assert problem is not None
    assert "-    dx = dx * 1.0" in problem and "--update-golden" in problem
    assert golden_mismatch(text, tmp_path / "missing.py").startswith("no golden file")
    changed.write_text(text)
    assert golden_mismatch(text, changed) is None


@pytest.mark.parametrize("name", ["sin_sum", "pair_vjp", "loop_with_branch_jvp",
                                  "with_calls", "stopped_generic"])
def test_a_golden_module_with_a_wrong_derivative_fails(name):
    fn, transform, _, _ = PROGRAMS[name]
    right = _golden_function(name, (GOLDEN / f"{name}.py").read_text())

    def off_by_a_thousandth(*args):
        out = right(*args)
        if transform in ("jvp", "value_and_grad"):  # (value, derivative)
            return out[0], _scale(out[1], 1.001)
        return _scale(out, 1.001)

    check_against_finite_differences(name, right)
    with pytest.raises(AssertionError):
        check_against_finite_differences(name, off_by_a_thousandth)


def _scale(tree: Any, k: float) -> Any:
    return tuple(_scale(t, k) for t in tree) if isinstance(tree, tuple) else tree * k

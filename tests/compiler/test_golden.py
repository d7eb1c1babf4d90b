"""Golden files of emitted source (tests/compiler/golden/*.py), reviewed as diffs.

Regenerate with ``pytest tests/compiler/test_golden.py --update-golden``. Every golden
program is also run, so a golden file never freezes wrong code.
"""

import importlib.util
import pathlib
import sys

import numpy as np
import pytest

import srcgrad as sg

GOLDEN = pathlib.Path(__file__).parent / "golden"
HEADER = "# ruff: noqa\n# Golden emitted source (pytest --update-golden regenerates it).\n"


def _programs():
    spec = importlib.util.spec_from_file_location("golden_programs", GOLDEN / "programs.py")
    module = importlib.util.module_from_spec(spec)
    # importable by name, so emitted code that reads a function's defaults at run time
    # refers to it with `from golden_programs import ...` and the golden module runs alone
    sys.modules["golden_programs"] = module
    spec.loader.exec_module(module)
    return module.PROGRAMS


PROGRAMS = _programs()


def _derive(fn, transform, wrt):
    return {"grad": sg.grad, "vjp": sg.vjp, "value_and_grad": sg.value_and_grad,
            "jvp": sg.jvp}[transform](fn, wrt=wrt)


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_emitted_source_matches_golden(name, request):
    fn, transform, wrt, args = PROGRAMS[name]
    text = HEADER + sg.source(_derive(fn, transform, wrt), *args)
    path = GOLDEN / f"{name}.py"
    if request.config.getoption("--update-golden"):
        path.write_text(text)
    assert path.exists(), f"no golden file {path.name}: run pytest --update-golden"
    assert text == path.read_text(), f"{path.name} changed: review, then --update-golden"


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_golden_module_runs_and_matches_the_derived_function(name):
    fn, transform, wrt, args = PROGRAMS[name]
    if not args:
        return
    namespace = {}
    exec(compile((GOLDEN / f"{name}.py").read_text(), name, "exec"), namespace)
    emitted = namespace[f"{transform}_{fn.__name__}"]
    flat = list(args)
    want = _derive(fn, transform, wrt)(*flat)
    got = emitted(*flat)
    for g, w in zip(np.atleast_1d(np.asarray(got, dtype=object)).ravel(),
                    np.atleast_1d(np.asarray(want, dtype=object)).ravel()):
        np.testing.assert_allclose(np.asarray(g, dtype=float), np.asarray(w, dtype=float))

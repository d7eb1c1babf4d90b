"""The backend's gast -> ast conversion (backend/printing.py) makes the node gast's does.

Every statement the golden programs emit is converted both ways and compared (``ast.dump``
and the printed text), so a gast version that converts a node kind differently fails here.
"""

from __future__ import annotations

import ast
import importlib.util
import pathlib
import sys
from collections import Counter

import gast
import pytest

import srcgrad as sg
from srcgrad.compiler.backend import printing

_ORIGINAL = printing.to_ast


def _golden_programs() -> dict[str, tuple]:
    """The golden programs (``tests/compiler/golden/programs.py``), the module test_golden
    loaded when it did (a second copy would take its name from the first one's functions)."""
    module = sys.modules.get("golden_programs")
    if module is None:
        path = pathlib.Path(__file__).parent / "golden" / "programs.py"
        spec = importlib.util.spec_from_file_location("golden_programs", path)
        module = importlib.util.module_from_spec(spec)
        sys.modules["golden_programs"] = module
        spec.loader.exec_module(module)
    return module.PROGRAMS


PROGRAMS = _golden_programs()
_TRANSFORMS = {"grad": sg.grad, "vjp": sg.vjp, "value_and_grad": sg.value_and_grad,
               "jvp": sg.jvp}


@pytest.fixture
def compared(monkeypatch):
    """Checks every conversion against gast's own; counts the node kinds it saw."""
    kinds: Counter[str] = Counter()

    def checking(node):
        ours = _ORIGINAL(node)
        if isinstance(node, gast.AST):
            theirs = gast.gast_to_ast(node)
            assert ast.dump(ours) == ast.dump(theirs)
            if isinstance(node, gast.stmt):
                assert printing.astor.to_source(ours) == printing.astor.to_source(theirs)
            kinds[type(node).__name__] += 1
        return ours

    monkeypatch.setattr(printing, "to_ast", checking)
    return kinds


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_every_emitted_statement_converts_as_gast_converts_it(compared, name):
    fn, transform, wrt, args = PROGRAMS[name]
    sg.clear_cache()
    sg.source(_TRANSFORMS[transform](fn, wrt=wrt), *args)
    assert compared["Assign"] + compared["Return"] > 0
    sg.clear_cache()


def test_the_kinds_left_to_gast_still_convert(compared):
    lam = gast.Lambda(args=gast.arguments(
        args=[gast.Name(id="a", ctx=gast.Param(), annotation=None, type_comment=None)],
        posonlyargs=[], vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None,
        defaults=[]), body=gast.BinOp(left=gast.Name(id="a", ctx=gast.Load(),
                                                     annotation=None, type_comment=None),
                                      op=gast.Mult(), right=gast.Constant(value=2, kind=None)))
    stmt = gast.Assign(targets=[gast.Name(id="f", ctx=gast.Store(), annotation=None,
                                          type_comment=None)], value=lam, type_comment=None)
    assert printing.source(stmt) == "f = lambda a: a * 2"
    assert compared["Lambda"] == 1  # (gast's converter took it, and the checks above ran)

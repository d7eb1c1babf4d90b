"""The backend's printing (backend/printing.py, backend/astor_text.py) gives astor's text.

Every statement the golden programs emit is converted to ``ast`` both ways (ours and gast's)
and compared (``ast.dump`` and the printed text), so a gast version that converts a node
kind differently fails here; and the text written directly from gast is compared with
astor's, on the same statements and on corner cases of precedence and spelling.
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
from srcgrad.compiler.backend.astor_text import Unsupported, statement_text

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

    def refuse(node):
        raise Unsupported("every statement through astor, so through to_ast")

    monkeypatch.setattr(printing, "to_ast", checking)
    monkeypatch.setattr(printing, "statement_text", refuse)
    return kinds


@pytest.fixture
def written(monkeypatch):
    """Checks every directly written text against astor's; counts the texts written."""
    kinds: Counter[str] = Counter()

    def checking(node):
        ours = statement_text(node)  # (Unsupported: source() asks astor)
        assert ours == printing.astor_source(node)
        kinds[type(node).__name__] += 1
        return ours

    monkeypatch.setattr(printing, "statement_text", checking)
    return kinds


def _emit_golden_program(name):
    """Emit golden program ``name`` afresh (every statement printed, none from the cache)."""
    fn, transform, wrt, args = PROGRAMS[name]
    sg.clear_cache()
    sg.source(_TRANSFORMS[transform](fn, wrt=wrt), *args)
    sg.clear_cache()


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_every_emitted_statement_is_written_as_astor_writes_it(written, name):
    _emit_golden_program(name)
    assert written["Assign"] + written["Return"] > 0


CORNERS = [
    "x = -(a + b) ** 2 * c[1:, None]", "x = (-a) ** 2", "x = a ** -b", "x = a ** b ** c",
    "x = (a ** b) ** c", "x = -a ** 2", "x = a - (b - c)", "x = a - b - c", "x = a / (b * c)",
    "x = a * b / c", "x = a @ b.T", "x = (a + b).T", "x = (a @ b)[0]", "x = f(a)(b)",
    "x = a if b else c", "x = (a if b else c) + 1", "x = a if (b if c else d) else e",
    "x = (lambda: 1) if a else 2", "x = not a", "x = not (a and b)", "x = (not a) == b",
    "x = a and b or c", "x = a and (b or c)", "x = a < b < c", "x = (a < b) < c",
    "x = a is not None", "x = a not in b", "x = ~a & b | c ^ d", "x = a << 1 >> 2",
    "x = -1.0", "x = -(-1.0)", "x = 1e1000", "x = -1e1000", "x = (2).real", "x = 2.5j",
    "x = (1+2j)", "x = (1.5-2j)", "x = True + None", "x = ...", "x = a[...]",
    "x = a[:]", "x = a[::2]", "x = a[1:2:3]", "x = a[::None]", "x = a[:, 0]", "x = a[(0,)]",
    "x = a[b, c:d]", "x = ()", "x = (a,)", "x = a, b", "x = [a, (b, c), []]", "x = (a, b)[0]",
    "x = f(*a, **b)", "x = f(a, b=c + 1)", "x = f((a, b))", "x = f(a for a in b)",
    "x, y = y, x", "x = y = z", "x += a * b", "x -= (a, b)", "x **= 2", "f(a)",
    "return", "return a, b", "return (a, b)[0]", "a[0] = b", "a.b = c", "x = np.float64",
    "x = b'raw'", "x = 'text'", "x = f'{a}'", "x = {a: b}", "x = {a}", "x = a if b else c,",
    "x = -(a - b)", "x = +a", "x = a + -b", "x = a * -b", "x = 2 ** -1",
    "try:\n    x = 1.0 / a\nexcept (ArithmeticError, ValueError):\n    x = f(np.divide(1.0, a))",
    "try:\n    x = a\nexcept ValueError as e:\n    x = b\nexcept:\n    x = c",
    "try:\n    try:\n        x = a\n    except E:\n        x = b\nexcept F:\n    x = c",
    "try:\n    x = a\nexcept E:\n    pass", "try:\n    x = a\nexcept E:\n    x = b\nelse:\n    x = c",
    "try:\n    x = a\nfinally:\n    x = b",
]

# statements the emitter makes that must be written directly (not handed to astor)
WRITTEN = ["try:\n    x = 1.0 / a\nexcept (ArithmeticError, ValueError):\n    x = f(a)"]


def test_the_suite_compares_written_statements_with_astor_where_programs_vary():
    from tests.conftest import compiler_checked

    assert printing.checking()  # tests/conftest.py turned it on for this file
    here = pathlib.Path(__file__)
    assert compiler_checked(here) and compiler_checked(here.parent / "test_corpus.py")
    assert compiler_checked(here.parents[1] / "fuzz" / "test_fuzz.py")
    assert compiler_checked(here.parent / "test_pass_shapes.py")
    assert not compiler_checked(here.parent / "test_inplace_updates.py")


def test_a_text_unlike_astors_is_an_error_under_the_check(monkeypatch):
    monkeypatch.setattr(printing, "statement_text", lambda node: "x = wrong")
    node = gast.ast_to_gast(ast.parse("x = a + 1").body[0])
    with pytest.raises(RuntimeError, match="astor writes 'x = a \\+ 1'"):
        printing.source(node)
    monkeypatch.delenv(printing.CHECK)
    assert printing.source(node) == "x = wrong"


@pytest.mark.parametrize("text", CORNERS)
def test_corner_cases_are_written_as_astor_writes_them_or_left_to_it(text):
    node = gast.ast_to_gast(ast.parse(text).body[0])
    try:
        ours = statement_text(node)
    except Unsupported:
        return  # (printing.source gives astor's text)
    assert ours == printing.astor_source(node)


@pytest.mark.parametrize("text", WRITTEN)
def test_the_guarded_division_is_written_directly_as_astor_writes_it(text):
    node = gast.ast_to_gast(ast.parse(text).body[0])
    assert statement_text(node) == printing.astor_source(node) == text


def test_numpy_scalars_and_special_floats_are_spelled_as_astor_spells_them():
    import numpy as np

    for value in (np.float64(0.5), np.float32(2.0), np.int64(3), np.bool_(True), -0.0,
                  float("inf"), float("-inf"), float("nan"), complex(0.0, -1.0), 10 ** 400):
        node = gast.Assign(targets=[gast.Name(id="x", ctx=gast.Store(), annotation=None,
                                              type_comment=None)],
                           value=gast.Constant(value=value, kind=None), type_comment=None)
        assert statement_text(node) == printing.astor_source(node)


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_every_emitted_statement_converts_as_gast_converts_it(compared, name):
    _emit_golden_program(name)
    assert compared["Assign"] + compared["Return"] > 0


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

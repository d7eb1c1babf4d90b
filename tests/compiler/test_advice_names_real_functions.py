"""Refusal advice never names a NumPy function that does not exist (``np.fill``,
``np.tolist``, ``np.item`` were suggested before)."""

from __future__ import annotations

import re

import numpy as np
import pytest

import srcgrad as sg


def fills(x):
    y = x * 1.0
    y.fill(2.0)
    return np.sum(y)


def lists(x):
    return sum(x.tolist())


def takes_item(x):
    return x.item() * 2.0


@pytest.mark.parametrize("fn", [fills, lists, takes_item])
def test_refusal_advice_names_only_numpy_functions_that_exist(fn):
    sg.clear_cache()
    with pytest.raises(sg.SrcGradError) as info:
        sg.grad(fn)(np.array([1.0, 2.0]))
    for name in re.findall(r"np\.([A-Za-z_][\w.]*)\(", str(info.value)):
        target = np
        for part in name.split("."):
            assert hasattr(target, part), f"advice names np.{name}, which does not exist: {info.value}"
            target = getattr(target, part)


# --- every message srcgrad can print -----------------------------------------------------

_SOURCE = __import__("pathlib").Path(sg.__file__).resolve().parent
_NP_NAME = re.compile(r"(?<![\w.])np\.([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)(?![\w\0])")


def _string_literals(path):
    """Every string constant of a module, f-strings' literal parts included (docstrings
    too: they are what ``help()`` shows, and messages are written from them)."""
    import ast

    tree = ast.parse(path.read_text(), str(path))
    pieces = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            # a name running into a {field} is completed at run time (f"np.arg{name}"):
            # "\0" stands for the field, and names followed by it are not checked
            text = "".join(v.value if isinstance(v, ast.Constant) else "\0"
                           for v in node.values)
            pieces.update(id(v) for v in node.values)
            yield node.lineno, text
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) \
                and id(node) not in pieces:
            yield node.lineno, node.value


def _missing(dotted):
    target = np
    for part in dotted.split("."):
        if not hasattr(target, part):
            return True
        target = getattr(target, part)
    return False


def test_every_np_name_in_any_string_of_srcgrad_exists_in_numpy():
    bad = []
    for path in sorted(_SOURCE.rglob("*.py")):
        for line, text in _string_literals(path):
            for name in _NP_NAME.findall(text):
                if _missing(name):
                    bad.append(f"{path.relative_to(_SOURCE.parent)}:{line}: np.{name}")
    assert not bad, "strings name NumPy functions that do not exist:\n" + "\n".join(bad)

"""Refusals name what the user wrote, not Python's syntax-tree classes (issue 14 item 6):
one program per construct srcgrad does not lower, each refused with the construct in the
user's words ("set display", "operator <<", "match statement"), never ``ListComp``,
``Starred``, ``LShift``...; and :func:`describe` has words for every class gast has.
"""

from __future__ import annotations

import inspect
import re

import gast
import numpy as np
import pytest

import srcgrad as sg
from srcgrad.compiler.frontend.syntax_names import describe

X = np.array([0.3, -1.2, 0.8])

# gast's node classes, by name: none may appear as a word in a message
AST_NAMES = sorted(n for n, c in vars(gast).items()
                   if isinstance(c, type) and issubclass(c, gast.AST) and n != "AST"
                   and n[0].isupper())  # (lower-case ones: operator, comprehension...)
# (English words that are also class names, checked only where they cannot be English:
# capitalised inside a sentence or in backquotes)
_ENGLISH = {"Assign", "Return", "Pass", "Break", "Continue", "Delete", "Import", "Raise",
            "Call", "Name", "List", "Set", "Load", "Store", "Del", "Not", "And", "Or", "In",
            "Is", "Add", "Match", "Global", "With", "Expr", "Slice", "Module", "Assert",
            "Constant", "Compare", "Dict", "Tuple", "While", "For", "If", "Try"}


def _syntax_names_in(text):
    found = []
    for name in AST_NAMES:
        if name in _ENGLISH:
            pattern = rf"`{name}`|(?<=[a-z,;] ){name}\b"
        else:
            pattern = rf"\b{name}\b"
        if re.search(pattern, text):
            found.append(name)
    return found


def starred_target(x):
    first, *rest = x  # <- error
    return first


def shift_operator(x):
    return np.sum(x) << 2  # <- error


def shift_augmented(x):
    y = np.sum(x)
    y <<= 2  # <- error
    return y


def bitwise_or_of_values(x):
    return np.sum(x) | 1  # <- error


def match_statement(x):
    match x:  # <- error
        case _:
            return np.sum(x)


def set_of_run_time_values(x):
    return len({x[0], x[1]})  # <- error


def f_string_of_a_run_time_value(x):
    label = f"{x[0]}"  # <- error
    return np.sum(x) + len(label)


def walrus(x):
    return (y := np.sum(x)) * y  # <- error


def generator_function(x):
    yield x  # <- error


def try_statement(x):
    try:  # <- error
        return np.sum(x)
    except ValueError:
        return 0.0


def del_statement(x):
    y = x * 2.0
    del y  # <- error
    return np.sum(x)


def dict_comprehension_over_rows(x):
    table = {float(v): v for v in x}  # <- error
    return table


def loops_over_a_generator_of_rows(x):
    total = 0.0
    for v in (r * 2.0 for r in x):  # <- error
        total = total + v
    return total


PROGRAMS = [starred_target, shift_operator, shift_augmented, bitwise_or_of_values,
            match_statement, set_of_run_time_values, f_string_of_a_run_time_value, walrus,
            generator_function, try_statement, del_statement, dict_comprehension_over_rows,
            loops_over_a_generator_of_rows]


@pytest.mark.parametrize("fn", PROGRAMS, ids=[f.__name__ for f in PROGRAMS])
def test_a_refused_construct_is_named_in_the_users_words(fn):
    sg.clear_cache()
    with pytest.raises(sg.SrcGradError) as info:
        sg.grad(fn)(X)
    text = str(info.value)
    lines, first = inspect.getsourcelines(fn)
    line = first + next(i for i, t in enumerate(lines) if "# <- error" in t)
    assert f"test_messages_in_user_terms.py:{line}:" in text, text
    assert not _syntax_names_in(text), f"syntax-tree names {_syntax_names_in(text)}: {text}"
    assert info.value.advice, text


def test_every_syntax_tree_class_has_words_without_its_class_name():
    for name in AST_NAMES:
        words = describe(getattr(gast, name))
        assert words and not re.search(r"[a-z][A-Z]", words), (name, words)
        if name not in _ENGLISH and len(name) > 3:
            assert name not in words, (name, words)


def test_the_checker_finds_syntax_names():
    assert _syntax_names_in("the expression `ListComp` is not supported")
    assert _syntax_names_in("cannot assign to Starred.")
    assert _syntax_names_in("the statement `Match` is not supported")
    assert not _syntax_names_in("Assign to plain names; the set display is refused.")

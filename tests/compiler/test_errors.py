"""Every construct the compiler cannot differentiate raises ``sg.SrcGradError`` whose message
names the construct, the user's file and the exact line, and what to do instead (API.md §1
"Errors"); bad ``wrt`` values and non-scalar results of ``sg.grad`` too.

The offending line of each function below carries a ``# <- error`` marker; tests look the
line number up from the source, so editing this file cannot silently break them.
"""

import inspect
import math
import os
import re
import types

import numpy as np
import pytest

import srcgrad as sg

THIS_FILE = os.path.basename(__file__)
MARKER = "# <- error"
COUNTER = 0.0
X = np.array([0.5, -1.0, 2.0])

ADVICE_WORDS = ("instead", "use ", "move", "rewrite", "remove", "copy", "defvjp", "outside",
                "replace", "return")


def marked_line(fn):
    """The file line number of the line marked ``# <- error`` in ``fn``'s source."""
    lines, first = inspect.getsourcelines(fn)
    hits = [first + i for i, text in enumerate(lines) if MARKER in text]
    assert len(hits) == 1, f"{fn.__name__} needs exactly one {MARKER!r} line"
    return hits[0]


def compile_error(fn, *args, **options):
    """The SrcGradError that differentiating ``fn`` at ``args`` raises."""
    sg.clear_cache()
    with pytest.raises(sg.SrcGradError) as info:
        sg.grad(fn, **options)(*args)
    return info.value


def assert_good_message(error, construct_words, line, file=THIS_FILE):
    """Names the construct (one of ``construct_words``), ``file:line``, and gives advice."""
    text = str(error)
    lower = text.lower()
    assert any(w.lower() in lower for w in construct_words), (
        f"message does not name the construct {construct_words}: {text}")
    assert f"{file}:{line}" in text, f"message does not point at {file}:{line}: {text}"
    advice = getattr(error, "advice", None) or ""
    assert advice or any(w in lower for w in ADVICE_WORDS), f"message gives no advice: {text}"


# --- unsupported statements ----------------------------------------------------------------

def uses_try(x):
    y = x * 2.0
    try:  # <- error
        y = y + 1.0
    except ValueError:
        pass
    return np.sum(y)


def uses_with(x):
    with np.errstate(all="ignore"):  # <- error
        y = np.log(x)
    return np.sum(y)


def uses_yield(x):
    yield np.sum(x * x)  # <- error


def uses_global_write(x):
    global COUNTER; COUNTER = float(np.sum(x))  # <- error  # noqa: E702
    return np.sum(x * x)


def uses_nonlocal_write(x):
    total = 0.0

    def add(v):
        nonlocal total; total = total + np.sum(v)  # <- error  # noqa: E702

    add(x)
    return np.sum(x * x) + total


def uses_del(x):
    y = x * 2.0
    z = y * y
    del y  # <- error
    return np.sum(z)


def uses_attribute_write(x, box):
    box.value = x * 2.0  # <- error
    return np.sum(x * x)


def uses_list_append(x, items):
    items.append(x)  # <- error
    return np.sum(x * x)


def uses_list_item_write(x, items):
    items[0] = x  # <- error
    return np.sum(x * x)


def _helper_with_try(v):
    try:  # <- error
        return v * 2.0
    finally:
        pass


def calls_helper_with_try(x):
    return np.sum(_helper_with_try(x))


STATEMENT_CASES = [
    (uses_try, ("try",), ()),
    (uses_with, ("with",), ()),
    (uses_yield, ("yield", "generator"), ()),
    (uses_global_write, ("global",), ()),
    (uses_nonlocal_write, ("nonlocal",), ()),
    (uses_del, ("del",), ()),
    (uses_attribute_write, ("attribute",), (types.SimpleNamespace(value=None),)),
    (uses_list_append, ("list", "append", "mutat"), ([],)),
    (uses_list_item_write, ("list", "mutat", "write", "assign"), ([0.0],)),
]


@pytest.mark.parametrize("fn, construct, extra", STATEMENT_CASES,
                         ids=[c[0].__name__ for c in STATEMENT_CASES])
def test_unsupported_statement_is_reported_at_its_line(fn, construct, extra):
    error = compile_error(fn, X.copy(), *extra)
    assert_good_message(error, construct, marked_line(fn))


def test_unsupported_statement_in_a_called_function_points_at_the_callee():
    error = compile_error(calls_helper_with_try, X.copy())
    assert_good_message(error, ("try",), marked_line(_helper_with_try))


def test_nothing_of_the_callers_state_was_changed_by_a_rejected_function():
    box, items = types.SimpleNamespace(value=None), []
    compile_error(uses_attribute_write, X.copy(), box)
    compile_error(uses_list_append, X.copy(), items)
    assert box.value is None and items == []


# --- calls the compiler cannot see into --------------------------------------------------

doubling_ufunc = np.frompyfunc(lambda v: v * 2.0, 1, 1)  # a C ufunc: no rule, no source


def calls_ufunc_without_rule(x):
    y = x + 1.0
    z = doubling_ufunc(y)  # <- error
    return np.sum(z)


def calls_builtin_without_rule(x):
    return math.gamma(x) * 2.0  # <- error (math.lgamma has a rule; math.gamma has none)


namespace = {"np": np}
exec("def made_by_exec(v):\n    return np.sum(v * v)\n", namespace)
made_by_exec = namespace["made_by_exec"]


def calls_function_made_by_exec(x):
    y = x * 3.0
    return made_by_exec(y)  # <- error


@pytest.mark.parametrize("fn, arg", [
    (calls_ufunc_without_rule, X.copy()),
    (calls_builtin_without_rule, 2.5),
    (calls_function_made_by_exec, X.copy()),
], ids=["frompyfunc-ufunc", "math.gamma", "exec-made-function"])
def test_call_without_rule_or_source_points_to_defvjp(fn, arg):
    error = compile_error(fn, arg)
    assert_good_message(error, ("call", "rule", "source"), marked_line(fn))
    assert "defvjp" in str(error), f"message does not point to sg.defvjp: {error}"


def test_function_without_source_cannot_be_differentiated_directly():
    error = compile_error(made_by_exec, X.copy())
    text = str(error)
    assert "source" in text.lower(), text
    assert "made_by_exec" in text, f"message does not name the function: {text}"
    assert "defvjp" in text or "file" in text.lower(), f"message gives no advice: {text}"


def uses_undefined_name(x):
    return np.sum(x * not_defined_anywhere)  # <- error  # noqa: F821


def test_undefined_name_is_an_error_at_compile_time_not_a_name_error_later():
    error = compile_error(uses_undefined_name, X.copy())
    assert_good_message(error, ("not_defined_anywhere",), marked_line(uses_undefined_name))


# --- wrt and result shape --------------------------------------------------------------------

def scaled_power(x, n, scale=1.0):
    return np.sum(scale * x ** n)


def test_wrt_an_int_argument():
    error = compile_error(scaled_power, X.copy(), 3, wrt=1)
    text = str(error)
    assert "int" in text.lower(), text
    assert re.search(r"\bn\b|\b1\b", text), f"message names neither n nor position 1: {text}"


@pytest.mark.parametrize("wrt", ["nope", ("x", "nope")])
def test_wrt_a_missing_name(wrt):
    error = compile_error(scaled_power, X.copy(), 3, wrt=wrt)
    assert "nope" in str(error), str(error)


@pytest.mark.parametrize("wrt", [7, (0, 7), -9])
def test_wrt_out_of_range(wrt):
    error = compile_error(scaled_power, X.copy(), 3, wrt=wrt)
    text = str(error)
    assert "7" in text or "-9" in text, text


def returns_a_vector(x):
    return x * 2.0


def returns_a_tuple(x):
    return np.sum(x), np.sum(x * x)


@pytest.mark.parametrize("fn", [returns_a_vector, returns_a_tuple])
def test_grad_of_a_non_scalar_result_points_to_vjp(fn):
    sg.clear_cache()
    with pytest.raises(sg.SrcGradError) as info:
        sg.grad(fn)(X.copy())
    assert "sg.vjp" in str(info.value), str(info.value)


@pytest.mark.parametrize("value", [np.array([2.5]), np.array([[2.5]]), np.array(2.5)])
def test_grad_accepts_any_one_element_result(value):
    def one_element(x):
        return x * value

    got = sg.grad(one_element)(np.array([1.5]))
    np.testing.assert_allclose(got, [2.5])


def test_errors_derive_from_srcgrad_error_and_exception():
    assert issubclass(sg.SrcGradError, Exception)

"""Messages about the user's arguments name what the value is and never print a whole data
set: a str is not "an integer or bool"; a long container, a long string or a large array is
cut to a few items and counted."""

import numpy as np
import pytest

import srcgrad as sg

BIG = 100_000


def constant(x):
    return 2.0


def summed(x):
    return np.sum(x)


@pytest.mark.parametrize("value, words, not_words", [
    ("abc", ["it is a str", "compile-time constant"], ["integer or bool"]),
    (3, ["it is an int (an integer or bool)"], []),
    (True, ["it is a bool (an integer or bool)"], []),
    (None, ["it is None"], ["integer or bool"]),
    (np.arange(4), ["ndarray of dtype int64", "integer or bool values"], []),
])
def test_a_non_differentiable_argument_is_named_by_what_it_is(value, words, not_words):
    with pytest.raises(sg.SrcGradError) as info:
        sg.grad(constant)(value)
    message = str(info.value)
    assert "cannot differentiate with respect to `x`" in message
    assert "Pass a float" in message  # the advice
    for w in words:
        assert w in message, message
    for w in not_words:
        assert w not in message, message


@pytest.mark.parametrize("value", [
    tuple(range(BIG)), {"a": tuple(range(BIG))}, {"a": "x" * BIG}, [BIG] * BIG,
    {"a": np.arange(BIG), "b": tuple(range(BIG))},
], ids=["tuple", "dict-of-tuple", "long-str", "list", "dict-of-int-array"])
def test_no_message_prints_a_whole_large_argument(value):
    with pytest.raises(sg.SrcGradError) as info:
        sg.grad(constant)(value)
    message = str(info.value)
    assert len(message) < 400, message[:500]
    assert "items in all" in message or "..." in message or "array[" in message


def test_a_large_integer_array_is_described_by_its_kind_not_its_values():
    with pytest.raises(sg.SrcGradError) as info:
        sg.grad(summed)(np.arange(BIG))
    message = str(info.value)
    assert len(message) < 300 and "99999" not in message


def einsum_of_a_computed_subscript(x, subscripts):
    return np.sum(np.einsum(x, subscripts))


@pytest.mark.parametrize("message, advice, text", [
    ("no rule for f", "Register one.", "no rule for f. Register one."),
    ("no rule for f.", "Register one.", "no rule for f. Register one."),
    ("write it as:", "x = 1.", "write it as: x = 1."),
])
def test_the_advice_follows_a_full_stop(message, advice, text):
    assert str(sg.SrcGradError(message, advice=advice)) == text


def test_a_refusal_reads_as_sentences():
    # the message ends before its advice starts (not "...for Pass a constant")
    with pytest.raises(sg.SrcGradError) as info:
        sg.grad(einsum_of_a_computed_subscript)(np.ones((2, 2)), "ii")
    text = str(info.value)
    assert "subscripts`, which srcgrad has no derivative for. Pass a constant" in text, text

"""Fuzz failures caused by bugs already reduced to a regression test.

A fuzzed program whose failure message matches a pattern here is reported as an expected
failure naming the regression test in ``tests/reliability/test_regressions.py`` (where the
bug is a strict xfail), instead of failing the fuzz run again for a known cause. When the
owner fixes the bug, the strict xfail turns into an error there; delete both entries then.
"""

from __future__ import annotations

import re

KNOWN_BUGS: list[tuple[str, str]] = [
    # (regex searched in the failure message, regression test that reproduces it)
    (r"gradient \d+ is a float64 for a float argument",
     "test_float_gradient_through_a_loop_stays_a_python_float "
     "(and ..._through_a_branch_...)"),
    (r"gradient \d+ is a ndarray for a float argument",
     "test_float_gradient_through_an_early_return_stays_a_python_float"),
    (r"rejected a supported program(?s:.*)this subscript assignment is not supported",
     "test_write_into_a_new_constant_array_differentiates"),
    (r"keepdims=np\.bool\(False\)",
     "test_folded_numpy_bool_is_not_merged_with_python_false"),
    (r"indexing a Python list or tuple with a value known only at run time",
     "test_constant_array_indexed_by_a_loop_counter_differentiates"),
    (r"runtime gradient of x\d+ differs(?s:.*)= np\.zeros_like(?s:.*)\] \+= ",
     "test_runtime_augmented_subscript_write_into_a_no_grad_array_keeps_the_gradient"),
]


def known_bug(message: str) -> str | None:
    """The regression test that already covers this failure, if any."""
    for pattern, test in KNOWN_BUGS:
        if re.search(pattern, message):
            return test
    return None

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
]


def known_bug(message: str) -> str | None:
    """The regression test that already covers this failure, if any."""
    for pattern, test in KNOWN_BUGS:
        if re.search(pattern, message):
            return test
    return None

"""Shared pytest options, and the compiler's own checks that the suite turns on.

The compiler verifies its IR at the stage boundaries; the suite (and so CI) also verifies it
after every pass (``srcgrad/compiler/ir/verify.py``), so a pass that breaks the IR is named.
Where the programs vary most (the fuzzer's random programs, the corpora of user-style
programs, the golden files) it also compares every statement the backend writes directly
with astor's text (``srcgrad/compiler/backend/printing.py``); everywhere, that comparison
cost about a fifth of the suite's time for statements those tests already cover.
"""

import os
from pathlib import Path

import pytest

os.environ.setdefault("SRCGRAD_VERIFY_EACH_PASS", "1")

PRINTING_CHECKED = ("fuzz",)  # folders, and files whose name starts with one of these:
PRINTING_CHECKED_FILES = ("test_corpus", "test_api_forward_corpus", "test_golden",
                          "test_printing")


def printing_checked(path: Path) -> bool:
    """Whether the tests of file ``path`` compare the backend's text with astor's."""
    return path.parent.name in PRINTING_CHECKED or path.name.startswith(
        PRINTING_CHECKED_FILES)


@pytest.fixture(autouse=True)
def _printing_compared_with_astor(request, monkeypatch):
    if printing_checked(Path(str(request.node.path))):
        monkeypatch.setenv("SRCGRAD_CHECK_PRINTING", "1")


def pytest_addoption(parser):
    parser.addoption("--update-golden", action="store_true", default=False,
                     help="rewrite the golden files of emitted source (tests/compiler/golden)")
    from fuzz.conftest import add_fuzz_options  # here, so `pytest tests --fuzz-count N` works

    add_fuzz_options(parser)

"""Shared pytest options, and the compiler's own checks that the suite turns on.

The compiler verifies its IR at the stage boundaries, everywhere. Where the programs vary
most (the fuzzer's random programs, the corpora of user-style programs, the golden files)
and where the passes are tested one by one, the suite also verifies the IR after every
pass (``srcgrad/compiler/ir/verify.py``), so a pass that breaks the IR is named, and
compares every statement the backend writes directly with astor's text
(``srcgrad/compiler/backend/printing.py``). Everywhere, the printing comparison cost about
a fifth of the suite's time and the per-pass verification about a tenth, for programs those
tests already cover; an IR a pass broke is refused at the next stage boundary in any test.
"""

from pathlib import Path

import pytest

CHECKED = ("fuzz",)  # folders, and files whose name starts with one of these:
CHECKED_FILES = ("test_corpus", "test_api_forward_corpus", "test_golden", "test_printing",
                 "test_pass_", "test_verify_stages")


def compiler_checked(path: Path) -> bool:
    """Whether the tests of file ``path`` verify the IR after every pass and compare the
    backend's text with astor's."""
    return path.parent.name in CHECKED or path.name.startswith(CHECKED_FILES)


@pytest.fixture(autouse=True)
def _compiler_checks(request, monkeypatch):
    if compiler_checked(Path(str(request.node.path))):
        monkeypatch.setenv("SRCGRAD_VERIFY_EACH_PASS", "1")
        monkeypatch.setenv("SRCGRAD_CHECK_PRINTING", "1")


def pytest_addoption(parser):
    parser.addoption("--update-golden", action="store_true", default=False,
                     help="rewrite the golden files of emitted source (tests/compiler/golden)")
    from fuzz.conftest import add_fuzz_options  # here, so `pytest tests --fuzz-count N` works

    add_fuzz_options(parser)

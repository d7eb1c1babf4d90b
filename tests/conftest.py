"""Shared pytest options, and the compiler's own checks that the suite turns on.

The compiler verifies its IR at the stage boundaries; the suite (and so CI) also verifies it
after every pass (``srcgrad/compiler/ir/verify.py``), so a pass that breaks the IR is named,
and compares the backend's directly written statements with astor's text.
"""

import os

os.environ.setdefault("SRCGRAD_VERIFY_EACH_PASS", "1")
# and every statement the backend writes directly compared with astor's text
# (srcgrad/compiler/backend/printing.py)
os.environ.setdefault("SRCGRAD_CHECK_PRINTING", "1")


def pytest_addoption(parser):
    parser.addoption("--update-golden", action="store_true", default=False,
                     help="rewrite the golden files of emitted source (tests/compiler/golden)")
    from fuzz.conftest import add_fuzz_options  # here, so `pytest tests --fuzz-count N` works

    add_fuzz_options(parser)

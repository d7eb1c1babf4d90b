"""Shared pytest options."""


def pytest_addoption(parser):
    parser.addoption("--update-golden", action="store_true", default=False,
                     help="rewrite the golden files of emitted source (tests/compiler/golden)")
    from fuzz.conftest import add_fuzz_options  # here, so `pytest tests --fuzz-count N` works

    add_fuzz_options(parser)

"""Fuzzer options and the once-per-session probe of what the compiler accepts.

``--fuzz-count N`` sets how many programs run (default 300, well under two minutes on two
cores; pass thousands for a long run); ``--fuzz-seed S`` shifts every program's seed, so a
failure reproduces with the same two options and its test id. ``--fuzz-forms`` picks the
soundness forms (``forms.py``) checked in every mode by ``test_fuzz_form``: ``ci`` (default,
every form: 150 programs spread over them), ``soundness`` (all of them), ``classic`` (the basic programs at
second order and across calls), ``none``, or a comma list of form names;
``--fuzz-form-count`` says how many programs they get in all.
"""

from __future__ import annotations

import pytest

from .probes import probe_features


def add_fuzz_options(parser) -> None:
    """Called from ``tests/conftest.py``: options must exist before collection starts."""
    group = parser.getgroup("fuzz", "srcgrad random-program fuzzer")
    group.addoption("--fuzz-count", type=int, default=300,
                    help="number of generated programs (default 300; thousands for a long run)")
    group.addoption("--fuzz-seed", type=int, default=0,
                    help="base seed of the generated programs (default 0)")
    group.addoption("--fuzz-forms", default="ci",
                    help="soundness forms: ci (default: every form), soundness "
                         "(all), classic, none, or a comma list (see tests/fuzz/README.md)")
    group.addoption("--fuzz-form-count", type=int, default=150,
                    help="number of soundness-form programs, spread over --fuzz-forms")


@pytest.fixture(scope="session")
def compiler_features(tmp_path_factory):
    """{feature: None if the compiler accepts it, else the SrcGradError it gave}."""
    return probe_features(tmp_path_factory.mktemp("fuzz_probes"))


@pytest.fixture(scope="session")
def fuzz_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("fuzz_programs")

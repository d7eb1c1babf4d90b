"""``docs/api.md`` is generated from the docstrings and documents every public name."""

from __future__ import annotations

import inspect
import subprocess
import sys
from pathlib import Path

import srcgrad as sg
from srcgrad.tools import apidoc

ROOT = Path(__file__).resolve().parents[2]


def test_api_page_is_up_to_date_with_the_docstrings():
    # a fresh interpreter: the package exactly as a user imports it
    done = subprocess.run([sys.executable, "-m", "srcgrad.tools.apidoc", "--check"],
                          cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, (f"docs/api.md is stale; run `{apidoc.COMMAND}` and commit "
                                  f"the page\n{done.stdout}{done.stderr}")


def test_every_public_name_is_on_the_api_page():
    page = apidoc.render()
    missing = []
    for namespace, names in apidoc.covered_names().items():
        for name in names:
            short = namespace.removeprefix("sg").lstrip(".")
            spellings = {f"`{namespace}.{name}`", f"`sg.{name}`" if not short else "",
                         f"`sg.{short}.{name}`" if short else ""}
            if not any(s and s in page for s in spellings):
                missing.append(f"{namespace}.{name}")
    assert not missing, f"public names missing from docs/api.md: {missing}"


def test_compiler_entries_say_what_help_says():
    page = apidoc.render()
    for name in apidoc._COMPILER:
        summary = inspect.getdoc(getattr(sg, name)).split("\n\n")[0]
        assert apidoc._md(summary) in page, name


def test_every_compiler_name_has_args_returns_and_an_example():
    for name in apidoc._COMPILER:
        _, parts = apidoc._sections(inspect.getdoc(getattr(sg, name)))
        needed = {"Example"} if name == "SrcGradError" else {"Arg", "Return", "Example"}
        if name == "clear_cache":
            needed = {"Return", "Example"}
        assert needed <= set(parts), f"sg.{name}'s docstring lacks {needed - set(parts)}"

"""Every code block in ``docs/*.md`` and ``README.md`` runs, so the examples cannot rot.

Blocks are extracted by their fence: a ```python block runs as a plain script in a fresh
interpreter from an empty temporary directory (what a new user pasting it would see: no
repo-relative files, no ``>>>`` prompts). Only ```text (printed output) and ```bash
(shell commands) blocks are not run; any other language tag is an error, so a Python block
cannot be skipped by mislabelling it.
"""

from __future__ import annotations

import functools
import os
import re
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
NOT_RUN = {"text", "bash"}
_FENCE = re.compile(r"^```(\S*)[ \t]*\n(.*?)^```[ \t]*$", re.S | re.M)


def blocks(page: Path) -> list[tuple[int, str, str]]:
    """(line number of the fence, language tag, code) for each fenced block of ``page``."""
    text = page.read_text()
    found = []
    for match in _FENCE.finditer(text):
        line = text.count("\n", 0, match.start()) + 1
        found.append((line, match.group(1), match.group(2)))
    return found


ALL = [(page, line, lang, code) for page in PAGES for line, lang, code in blocks(page)]
PYTHON = [pytest.param(code, id=f"{page.relative_to(ROOT)}:{line}")
          for page, line, lang, code in ALL if lang == "python"]


def test_every_block_says_whether_it_runs():
    wrong = [f"{page.relative_to(ROOT)}:{line} ```{lang}" for page, line, lang, _ in ALL
             if lang != "python" and lang not in NOT_RUN]
    assert not wrong, ("fence each block as ```python (it runs), ```text (output) or "
                       f"```bash (shell): {wrong}")


def test_no_python_block_uses_prompts():
    prompted = [p.id for p in PYTHON if re.search(r"^\s*(>>>|\.\.\.) ", p.values[0], re.M)]
    assert not prompted, f"write plain scripts, not >>> sessions: {prompted}"


def _run(code: str) -> subprocess.CompletedProcess[str]:
    with tempfile.TemporaryDirectory() as directory:
        script = Path(directory) / "block.py"
        script.write_text(code)
        return subprocess.run([sys.executable, str(script)], cwd=directory,
                              capture_output=True, text=True, timeout=300)


@functools.cache
def _all_runs() -> dict[str, subprocess.CompletedProcess[str]]:
    """Every block's run, started together: the interpreters mostly wait on imports, so
    running them side by side keeps the whole docs test near a minute."""
    codes = sorted({p.values[0] for p in PYTHON})
    with ThreadPoolExecutor(max_workers=2 * (os.cpu_count() or 1)) as pool:
        return dict(zip(codes, pool.map(_run, codes), strict=True))


@pytest.mark.parametrize("code", PYTHON)
def test_python_block_runs_as_a_script(code: str) -> None:
    done = _all_runs()[code]
    assert done.returncode == 0, f"the block failed:\n{code}\n--- stderr ---\n{done.stderr}"


def test_readme_first_snippet_defines_its_data():
    readme = [code for page, _, lang, code in ALL if page.name == "README.md" and lang == "python"]
    first = readme[0]
    assert re.search(r"^X\s*=", first, re.M) and re.search(r"^y\s*=", first, re.M), first


def test_pages_are_linked_from_the_readme():
    readme = (ROOT / "README.md").read_text()
    missing = [p.name for p in PAGES[1:] if f"docs/{p.name}" not in readme]
    assert not missing, f"link these pages from README.md: {missing}"

"""The ``srcgrad show`` output pasted into ``docs/compiler.md`` is what srcgrad prints today.

The page's ```python block that starts with ``# model.py`` is written to a temporary
directory; each ```bash block holding one ``srcgrad show`` command, followed by a ```text
block, is run there (all in one fresh interpreter, for speed) and must print exactly that
text, with the directory left out of file paths. Regenerate a block by running its command
from a directory holding ``model.py``.
"""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "compiler.md"
_PAIR = re.compile(r"```bash\n(srcgrad show [^\n]*)\n```\n\n```text\n(.*?)```\n", re.S)
_DRIVER = """
import contextlib, io, json, sys
from srcgrad.cli import main
outputs = []
for argv in json.loads(sys.argv[1]):
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        status = main(argv)
    outputs.append([status, buffer.getvalue()])
print(json.dumps(outputs))
"""


def test_pasted_srcgrad_show_output_is_current(tmp_path: Path) -> None:
    text = PAGE.read_text()
    model = re.search(r"```python\n(# model\.py\n.*?)```", text, re.S)
    assert model, "compiler.md needs its ```python block starting with '# model.py'"
    (tmp_path / "model.py").write_text(model.group(1))
    pairs = _PAIR.findall(text)
    assert len(pairs) >= 5, "compiler.md should paste several srcgrad show outputs"
    argvs = [shlex.split(command)[1:] for command, _ in pairs]
    done = subprocess.run([sys.executable, "-c", _DRIVER, json.dumps(argvs)], cwd=tmp_path,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    results = json.loads(done.stdout.splitlines()[-1])
    for (command, pasted), (status, printed) in zip(pairs, results, strict=True):
        assert status == 0, command
        assert printed.replace(f"{tmp_path}/", "") == pasted, (
            f"docs/compiler.md: the output pasted under `{command}` is stale; run it again")


# The README's gallery: each "(`srcgrad show examples/gallery.py:<name> --types <kinds>`):"
# line is followed by a ```python block holding what that command prints today.
README = ROOT / "README.md"
_GALLERY = re.compile(r"\(`(srcgrad show examples/gallery\.py:[^`]*)`\):\n\n```python\n(.*?)```\n",
                      re.S)


def _gallery_outputs(text: str) -> list[tuple[str, str, str]]:
    """(command, pasted, printed) for each gallery entry, run from the repository root."""
    pairs = _GALLERY.findall(text)
    argvs = [shlex.split(command)[1:] + ["--color", "never"] for command, _ in pairs]
    done = subprocess.run([sys.executable, "-c", _DRIVER, json.dumps(argvs)], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    results = json.loads(done.stdout.splitlines()[-1])
    assert all(status == 0 for status, _ in results), results
    return [(c, p, printed) for (c, p), (_, printed) in zip(pairs, results, strict=True)]


def test_readme_gallery_shows_the_code_srcgrad_emits_today() -> None:
    text = README.read_text()
    outputs = _gallery_outputs(text)
    assert len(outputs) == 3, "the README gallery should show its three functions"
    for command, pasted, printed in outputs:
        assert printed == pasted, (
            f"README.md: the gallery code under `{command}` is stale; regenerate with "
            "`python -m tests.docs.test_pasted_output`")


if __name__ == "__main__":  # rewrite the README gallery's code blocks from srcgrad today
    readme = README.read_text()
    for command, pasted, printed in _gallery_outputs(readme):
        readme = readme.replace(f"(`{command}`):\n\n```python\n{pasted}```\n",
                                f"(`{command}`):\n\n```python\n{printed}```\n")
    README.write_text(readme)

"""``benchmarks/README.md``'s commands work from any checkout: no absolute paths of one
machine, and the peer venv it creates is where ``run.py`` looks for it."""

import os
import re

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
README = os.path.join(ROOT, "benchmarks", "README.md")


def _code_blocks(text):
    return re.findall(r"```[a-z]*\n(.*?)```", text, re.S)


def test_benchmark_readme_commands_use_paths_relative_to_the_checkout():
    with open(README) as f:
        blocks = _code_blocks(f.read())
    assert blocks
    for block in blocks:
        for word in block.split():
            assert not word.startswith(("/", "~")), f"absolute path in README: {word}"


def test_the_readme_tangent_venv_is_one_run_py_finds_by_itself():
    import importlib.util
    spec = importlib.util.spec_from_file_location("bench_run", os.path.join(ROOT, "benchmarks",
                                                                           "run.py"))
    run = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(run)
    with open(README) as f:
        text = f.read()
    assert "python -m venv ../tangent-venv" in text
    expected = os.path.normpath(os.path.join(ROOT, "..", "tangent-venv", "bin", "python"))
    assert expected in [os.path.normpath(c) for c in run.TANGENT_PYTHON_CANDIDATES]

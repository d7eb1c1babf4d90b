"""``srcgrad show`` (API.md §2) through real processes: the console script and
``python -m srcgrad``, every exit-2 case (exactly one line on stderr, never a traceback),
internal errors (exit 1), a pipe closed early, and colour."""

import inspect
import os
import pty
import shutil
import subprocess
import sys

import pytest

import srcgrad.cli as cli

HERE = os.path.dirname(os.path.abspath(__file__))
SAMPLE = os.path.join(HERE, "sample_target.py")


def srcgrad_script():
    beside_python = os.path.join(os.path.dirname(sys.executable), "srcgrad")
    found = beside_python if os.path.exists(beside_python) else shutil.which("srcgrad")
    assert found, "the srcgrad console script is not installed (pip install -e .)"
    return found


COMMANDS = {"script": lambda: [srcgrad_script()], "module": lambda: [sys.executable, "-m",
                                                                        "srcgrad"]}


def run(*args, how="script", env=None, **options):
    environment = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    environment.update(env or {})
    return subprocess.run([*COMMANDS[how](), *args], capture_output=True, text=True,
                          cwd=HERE, env=environment, timeout=120, **options)


def expected_text(target, **options):
    """What ``render`` gives in-process for the same target: the CLI must print exactly it."""
    from srcgrad.compiler.api import render

    text = render(cli.load_target(target), **options)
    return text if text.endswith("\n") else text + "\n"


def assert_usage_error(result, *words):
    assert result.returncode == 2, (result.returncode, result.stderr)
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and result.stderr.endswith("\n"), (
        f"stderr must be exactly one line: {result.stderr!r}")
    assert "Traceback" not in result.stderr
    for word in words:
        assert word.lower() in result.stderr.lower(), (word, result.stderr)


# --- the happy path ------------------------------------------------------------------------

@pytest.mark.parametrize("how", ["script", "module"])
def test_show_prints_the_generic_emitted_source(how):
    result = run("show", f"{SAMPLE}:loss", how=how)
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    assert result.stdout == expected_text(f"{SAMPLE}:loss")
    assert "def " in result.stdout and "MAIN BLOCK RAN" not in result.stdout


def test_a_package_module_target():
    result = run("show", "sample_pkg.model:energy")
    assert result.returncode == 0, result.stderr
    assert result.stdout == expected_text("sample_pkg.model:energy")


def test_a_relative_file_target():
    result = run("show", "sample_target.py:loss")
    assert result.returncode == 0, result.stderr
    assert result.stdout == expected_text(f"{SAMPLE}:loss")


@pytest.mark.parametrize("flags, options", [
    (["--wrt", "0,1"], {"wrt": (0, 1)}),
    (["--wrt", "y"], {"wrt": "y"}),
    (["--wrt", "x,1"], {"wrt": ("x", 1)}),
    (["--no-optimize"], {"optimize": False}),
    (["--types", "array[1],array[1],float"], {"types": ["array[1]", "array[1]", "float"]}),
    (["--types", "float,np.float64,float"], {"types": ["float", "np.float64", "float"]}),
    (["--types", "array[2,float32],array[2,float32],float"],
     {"types": ["array[2,float32]", "array[2,float32]", "float"]}),
    (["--ir"], {"what": "ir"}),
    (["--ir", "--no-optimize", "--wrt", "1"], {"what": "ir", "optimize": False, "wrt": 1}),
    (["--mode", "reverse"], {"mode": "reverse"}),
], ids=lambda v: " ".join(v) if isinstance(v, list) else "")
def test_options_reach_the_compiler(flags, options):
    result = run("show", f"{SAMPLE}:loss", *flags)
    assert result.returncode == 0, result.stderr
    assert result.stdout == expected_text(f"{SAMPLE}:loss", **options)


def test_a_file_target_imports_modules_beside_it_and_keeps_its_main_block(tmp_path):
    (tmp_path / "beside.py").write_text("import numpy as np\n\n\ndef inner(v):\n"
                                        "    return np.sin(v) * v\n")
    (tmp_path / "script.py").write_text(
        "import numpy as np\nfrom beside import inner\n\n\ndef outer(x):\n"
        "    return np.sum(inner(x))\n\n\nif __name__ == '__main__':\n"
        "    raise SystemExit('main block ran')\n")
    result = run("show", f"{tmp_path / 'script.py'}:outer")
    assert result.returncode == 0, result.stderr
    assert "def " in result.stdout and result.stderr == ""


def test_options_change_the_output():
    plain = run("show", f"{SAMPLE}:loss").stdout
    assert run("show", f"{SAMPLE}:loss", "--ir").stdout != plain
    assert run("show", f"{SAMPLE}:loss", "--wrt", "0,1").stdout != plain


def test_help_exits_zero():
    result = run("show", "--help")
    assert result.returncode == 0 and "TARGET" in result.stdout and result.stderr == ""


# --- exit status 2: exactly one line on stderr --------------------------------------------

@pytest.mark.parametrize("how", ["script", "module"])
@pytest.mark.parametrize("args, words", [
    ([], ["command"]),
    (["show"], ["TARGET"]),
    (["frobnicate"], ["frobnicate"]),
    (["show", f"{SAMPLE}:loss", "--bogus"], ["--bogus"]),
    (["show", f"{SAMPLE}:loss", "--mode", "sideways"], ["sideways"]),
    (["show", f"{SAMPLE}:loss", "--color", "purple"], ["purple"]),
    (["show", f"{SAMPLE}:loss", "--wrt", "0,,1"], ["wrt"]),
    (["show", f"{SAMPLE}:loss", "--wrt", "1x"], ["wrt"]),
    (["show", f"{SAMPLE}:loss", "--types", "array[2"], ["types"]),
    (["show", f"{SAMPLE}:loss", "--ir", "--graph"], ["not allowed"]),
    (["show", "no_colon_here"], ["target"]),
    (["show", "missing_file.py:f"], ["missing_file.py"]),
    (["show", f"{SAMPLE}:nope"], ["nope"]),
    (["show", f"{SAMPLE}:NOT_A_FUNCTION"], ["NOT_A_FUNCTION"]),
    (["show", "no_such_package.mod:f"], ["no_such_package"]),
    (["show", "sample_pkg.broken:f"], ["RuntimeError"]),
], ids=lambda v: " ".join(v)[-40:] if isinstance(v, list) else "")
def test_bad_command_lines_exit_2_with_one_line(args, words, how):
    assert_usage_error(run(*args, how=how), *words)


@pytest.mark.parametrize("how", ["script", "module"])
def test_syntax_error_in_the_target_file(tmp_path, how):
    bad = tmp_path / "broken_syntax.py"
    bad.write_text("def f(x):\n    return x +\n")
    assert_usage_error(run("show", f"{bad}:f", how=how), "syntax")


@pytest.mark.parametrize("how", ["script", "module"])
def test_unsupported_construct_exits_2_naming_it(how):
    result = run("show", f"{SAMPLE}:with_try", how=how)
    lines, first = inspect.getsourcelines(load_sample().with_try)
    try_line = first + next(i for i, text in enumerate(lines) if "try:" in text)
    assert_usage_error(result, "try", f"sample_target.py:{try_line}")


def load_sample():
    return sys.modules[cli.load_target(f"{SAMPLE}:loss").__module__]


@pytest.mark.parametrize("how", ["script", "module"])
@pytest.mark.parametrize("flags", [["--wrt", "9"], ["--wrt", "nope"], ["--types", "spam"],
                                   ["--types", "float"], ["--wrt", "scale,nope"]])
def test_options_the_compiler_rejects_exit_2(flags, how):
    assert_usage_error(run("show", f"{SAMPLE}:loss", *flags, how=how))


@pytest.mark.parametrize("flag, what", [("--annotate", "annotate"), ("--graph", "graph")])
def test_annotate_and_graph_print_what_render_gives(flag, what):
    result = run("show", f"{SAMPLE}:loss", flag, "--wrt", "0,1")
    assert result.returncode == 0 and result.stderr == "", result.stderr
    assert result.stdout == expected_text(f"{SAMPLE}:loss", what=what, wrt=(0, 1))


def test_forward_mode_prints_the_jvp_source():
    # forward mode exists (sg.jvp): exit 2 here would be a regression, not an alternative
    result = run("show", f"{SAMPLE}:loss", "--mode", "forward")
    assert result.returncode == 0, result.stderr
    assert result.stdout == expected_text(f"{SAMPLE}:loss", mode="forward")
    assert "def jvp_loss(" in result.stdout


# --- internal errors: exit 1 ---------------------------------------------------------------

def test_internal_error_exits_1(monkeypatch, capsys):
    import srcgrad.compiler.api as api

    def broken_render(*args, **kwargs):
        raise RuntimeError("a bug in the compiler")

    monkeypatch.setattr(api, "render", broken_render)
    assert cli.main(["show", f"{SAMPLE}:loss"]) == 1
    err = capsys.readouterr().err
    assert "internal error" in err and "a bug in the compiler" in err


# --- pipes and colour ----------------------------------------------------------------------

def test_pipe_closed_before_writing_ends_quietly():
    process = subprocess.Popen([srcgrad_script(), "show", f"{SAMPLE}:loss"], cwd=HERE,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    process.stdout.close()  # the reader goes away before anything is written
    stderr = process.stderr.read().decode()
    process.stderr.close()
    code = process.wait(timeout=120)
    assert stderr == "", stderr
    assert code in (0, 141), code


def test_pipe_into_head_ends_quietly(tmp_path):
    errors = tmp_path / "stderr.txt"
    result = subprocess.run(
        f"'{srcgrad_script()}' show '{SAMPLE}:loss' --ir 2>'{errors}' | head -1; cat '{errors}'",
        shell=True, capture_output=True, text=True, cwd=HERE, timeout=120)
    lines = result.stdout.splitlines()
    assert len(lines) == 1, result.stdout  # head's one line, and nothing from stderr


def run_on_a_terminal(*args, env=None):
    """Run with stdout on a pseudo-terminal; returns what the terminal received."""
    leader, follower = pty.openpty()
    environment = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    environment.update(env or {})
    process = subprocess.Popen([srcgrad_script(), *args], cwd=HERE, stdout=follower,
                               stderr=subprocess.PIPE, env=environment)
    os.close(follower)
    chunks = []
    while True:
        try:
            chunk = os.read(leader, 4096)
        except OSError:  # EIO: the terminal's other side closed
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(leader)
    assert process.wait(timeout=120) == 0, process.stderr.read()
    process.stderr.close()
    return b"".join(chunks).decode()


ANSI = "\x1b["


def test_color_auto_on_a_terminal_highlights():
    pytest.importorskip("pygments")
    assert ANSI in run_on_a_terminal("show", f"{SAMPLE}:loss")


def test_color_auto_honours_no_color():
    assert ANSI not in run_on_a_terminal("show", f"{SAMPLE}:loss", env={"NO_COLOR": "1"})


def test_color_never_on_a_terminal_is_plain():
    assert ANSI not in run_on_a_terminal("show", f"{SAMPLE}:loss", "--color", "never")


def test_color_auto_into_a_pipe_is_plain():
    assert ANSI not in run("show", f"{SAMPLE}:loss").stdout


def test_color_always_forces_highlighting_into_a_pipe():
    pytest.importorskip("pygments")
    result = run("show", f"{SAMPLE}:loss", "--color", "always", env={"NO_COLOR": "1"})
    assert result.returncode == 0 and ANSI in result.stdout

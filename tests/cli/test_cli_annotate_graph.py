"""``srcgrad show --annotate`` and ``--graph`` (API.md §2): the annotated listing keeps
every emitted statement and puts the user's lines, numbered as in their file, above what
they produced; the graph is deterministic Graphviz DOT that ``dot`` accepts."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys

import pytest

import srcgrad.cli as cli
from srcgrad.compiler.api import render
from srcgrad.compiler.backend.annotate import annotate
from srcgrad.compiler.ir.core import Block, Function, Op, Value
from srcgrad.compiler.ir.dot import to_dot

HERE = os.path.dirname(os.path.abspath(__file__))
TARGET = os.path.join(HERE, "annotate_target.py")
SAMPLE = os.path.join(HERE, "sample_target.py")
LISTING = re.compile(r"^\s*# +(\d+) \| (.*)$")


def load(name: str, path: str = TARGET):
    return cli.load_target(f"{path}:{name}")


def file_lines(path: str) -> list[str]:
    with open(path) as handle:
        return handle.read().splitlines()


def code_only(text: str) -> list[str]:
    """The statements of an emitted or annotated text: every non-comment line."""
    return [line for line in text.splitlines() if line.strip() and
            not line.lstrip().startswith("#")]


# --- --annotate ----------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["spread", "looped", "Model.energy", "squared"])
def test_annotate_keeps_every_emitted_statement_in_order(name):
    f = load(name)
    plain = render(f)
    annotated = render(f, what="annotate")
    assert code_only(annotated) == code_only(plain)
    assert "# line " not in annotated  # every marker became a listing
    compile(annotated, "<annotated>", "exec")  # still Python: annotations are comments


@pytest.mark.parametrize("name", ["spread", "looped", "Model.energy", "squared"])
def test_listed_lines_are_the_users_file_lines(name):
    source = file_lines(TARGET)
    annotated = render(load(name), what="annotate")
    listed = [LISTING.match(line) for line in annotated.splitlines()]
    listed = [(int(m.group(1)), m.group(2)) for m in listed if m]
    assert listed
    for number, text in listed:
        assert source[number - 1].strip() == text.strip(), (number, text)


def test_a_statement_over_several_lines_is_listed_whole_above_its_code():
    annotated = render(load("spread"), what="annotate").splitlines()
    source = file_lines(TARGET)
    first = next(i for i, t in enumerate(source, 1) if t.strip() == "total = np.sum(")
    heads = [i for i, line in enumerate(annotated) if LISTING.match(line)
             and int(LISTING.match(line).group(1)) == first]
    assert heads, "\n".join(annotated)
    for head in heads:  # each time it is listed: all three lines, then its code
        numbers = [int(LISTING.match(annotated[head + k]).group(1)) for k in range(3)]
        assert numbers == [first, first + 1, first + 2]
    assert "np.sin(x)" in annotated[heads[0] + 3]


def test_the_def_header_is_listed_above_the_emitted_def_and_indentation_is_relative():
    annotated = render(load("Model.energy"), what="annotate").splitlines()
    at_def = next(i for i, line in enumerate(annotated) if line.startswith("def "))
    assert annotated[at_def - 1].endswith("| def energy(x):")
    assert annotated[at_def - 2].endswith("| @staticmethod")
    # the method body is listed with one level of indentation, as a top-level function's
    assert any(line.endswith("|     y = np.exp(x)") for line in annotated)


def test_a_lambda_is_headed_by_the_statement_holding_it():
    annotated = render(load("squared"), what="annotate").splitlines()
    at_def = next(i for i, line in enumerate(annotated) if line.startswith("def "))
    assert annotated[at_def - 1].endswith("| squared = lambda x: np.sum(x * x)  "
                                          "# noqa: E731 (a lambda target on purpose)")


def test_the_reverse_pass_lists_a_line_again_above_its_adjoint_code():
    annotated = render(load("loss", SAMPLE), what="annotate")
    sin_line = next(i for i, t in enumerate(file_lines(SAMPLE), 1) if "np.sin(x) * y" in t)
    marks = [m for m in map(LISTING.match, annotated.splitlines()) if m]
    assert [int(m.group(1)) for m in marks].count(sin_line) == 2  # forward and reverse
    after_second = annotated.split(f"# {sin_line} |")[-1]
    assert "np.cos(x)" in after_second


def test_loops_list_their_header_only():
    annotated = render(load("looped"), what="annotate")
    for_lines = [line for line in annotated.splitlines() if "| " in line and "for _ in" in line]
    assert for_lines
    assert all("np.tanh" not in line for line in for_lines)


def test_annotate_without_source_keeps_the_markers_text():
    text = "def grad_f(x):\n    # line 7: y = x * x\n    y = x * x\n    return y\n"
    assert annotate(text, {}) == "def grad_f(x):\n    # 7 | y = x * x\n    y = x * x\n" \
                                 "    return y\n"


def test_cli_annotate_is_highlighted_as_python_when_asked():
    pytest.importorskip("pygments")
    done = subprocess.run([sys.executable, "-m", "srcgrad", "show", f"{TARGET}:spread",
                           "--annotate", "--color", "always"], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "\x1b[" in done.stdout and "np" in done.stdout


# --- --graph -------------------------------------------------------------------------------

def graph_of(name: str, path: str = TARGET, **options) -> str:
    return render(load(name, path), what="graph", **options)


def node_labels(dot: str) -> list[str]:
    return re.findall(r'^\s*n\d+ \[[^\]]*label="([^"]*)"', dot, re.M)


def test_graph_has_a_node_per_op_named_by_primitive_and_variable():
    dot = graph_of("loss", SAMPLE)
    assert dot.startswith('digraph "grad_loss" {') and dot.rstrip().endswith("}")
    labels = node_labels(dot)
    for param in ("x", "y", "scale"):
        assert param in labels
    assert "sin\\nline 8" in labels and "cos\\nline 8" in labels
    assert "multiply\\nz\\nline 8" in labels  # the user's variable z
    assert any(label.startswith("multiply\\ndx") for label in labels)  # dx, the adjoint
    assert "return" in labels
    # one box per non-constant op of the IR the compiler produced
    ir = render(load("loss", SAMPLE), what="ir")
    ops = [line for line in ir.splitlines()[1:] if " = " in line]
    assert len(re.findall(r"shape=box", dot)) == len(ops)


def test_graph_edges_follow_data_flow():
    dot = graph_of("loss", SAMPLE)
    ids = {label: node for node, label in
           re.findall(r'^\s*(n\d+) \[[^\]]*label="([^"]*)"', dot, re.M)}
    x, sin, cos = ids["x"], ids["sin\\nline 8"], ids["cos\\nline 8"]
    assert f'{x} -> {sin} [label="x"];' in dot
    assert f'{x} -> {cos} [label="x"];' in dot


def test_graph_draws_each_region_as_a_cluster():
    dot = graph_of("looped")
    assert dot.count("subgraph cluster_") >= 2  # the forward loop and its reverse
    assert 'label="yield"' in dot and "tanh" in dot


def test_graph_is_deterministic():
    first = graph_of("looped")
    from srcgrad.compiler import cache

    cache.clear_cache()  # compiled afresh: new global value ids, same text
    assert graph_of("looped") == first


def test_graph_escapes_quotes_and_marks_values_defined_nowhere():
    stray = Value(name="ghost")
    x = Value(name='x"1')
    op = Op("sin", {"x": stray}, [Value()])
    fn = Function('f"', [x], Block(ops=[op], results=[op.out]), filename="a\\b.py")
    dot = to_dot(fn)
    assert 'digraph "f\\"" {' in dot and 'label="x\\"1"' in dot
    assert "color=red" in dot and 'label="ghost"' in dot


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz's dot is not installed")
@pytest.mark.parametrize("name, path", [("loss", SAMPLE), ("looped", TARGET),
                                        ("Model.energy", TARGET)])
def test_dot_renders_the_graph_to_svg(tmp_path, name, path):
    done = subprocess.run([sys.executable, "-m", "srcgrad", "show", f"{path}:{name}",
                           "--graph"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stderr == "", done.stderr
    svg = subprocess.run(["dot", "-Tsvg"], input=done.stdout, capture_output=True,
                         text=True, timeout=60)
    assert svg.returncode == 0 and svg.stderr == "", svg.stderr
    assert "<svg" in svg.stdout
    titles = re.findall(r"<title>(.*?)</title>", svg.stdout)
    nodes = re.findall(r"^\s*(n\d+) \[", done.stdout, re.M)
    assert set(nodes) <= set(titles)  # every node was drawn

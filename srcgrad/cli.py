"""The ``srcgrad`` command (top of the stack, beside the public API): view generated code.

``srcgrad show TARGET`` loads a user's function and prints what the compiler emits for it
(``--ir``: the IR; ``--annotate``: the emitted code with the user's source lines above the
statements each produced; ``--graph``: the IR as Graphviz DOT). TARGET is
``path/to/file.py:function`` or ``package.module:function``; a file is loaded under a
module name of its own, so its ``if __name__ == "__main__":`` block does not run.

Exit status: 0 on success; 2 with exactly one line on stderr for anything the user can fix
(a bad target, an unsupported construct, bad options); 1 for an internal error (a bug in
srcgrad: the traceback is printed). A pipe closed early (``| head``) ends quietly.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import os
import sys
import traceback
from collections.abc import Callable, Sequence
from typing import Any, NoReturn

from . import __version__
from .compiler.tree_text import split_top
from .errors import SrcGradError

EXIT_USAGE = 2
EXIT_INTERNAL = 1
EXIT_BROKEN_PIPE = 128 + 13  # what a shell reports for a process ended by SIGPIPE
VIEWS = ("ir", "annotate", "graph")  # flags naming another view than the emitted source


class UsageError(Exception):
    """Something the user can fix: reported as one line on stderr, exit status 2."""


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line and an exception (not usage + exit)."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{self.prog}: {message} (see '{self.prog} --help')")


def build_parser() -> argparse.ArgumentParser:
    raw = argparse.RawDescriptionHelpFormatter  # the examples keep their lines
    parser = _Parser(
        prog="srcgrad", formatter_class=raw,
        description="srcgrad: source-to-source derivatives for Python and NumPy.\n\n"
                    "In Python, sg.grad(f) writes f's gradient as Python source and runs it;\n"
                    "this command prints that source without running your program.",
        epilog="example:\n"
               "  srcgrad show model.py:loss --types array[1],array[2]\n\n"
               "'srcgrad show --help' lists its options; docs/compiler.md explains the output.")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    commands.required = True
    parser.add_argument("--version", action="version", version=f"srcgrad {__version__}",
                        help="print srcgrad's version and exit")
    show = commands.add_parser(
        "show", help="print the code srcgrad emits for a function",
        description="Print the derivative code srcgrad emits for a function (or its IR). "
                    "For a function already made by @sg.grad (or sg.vjp, sg.jvp, ...), print "
                    "that derivative's own code, under its own name.",
        epilog="examples, for def f(x, w) in model.py:\n"
               "  srcgrad show model.py:f --types array[1],array[1]         d/dx\n"
               "  srcgrad show model.py:f --types array[1],float --wrt x,w  (d/dx, d/dw)\n"
               "  srcgrad show model.py:f --types float,float --mode forward  sg.jvp's code\n"
               "  srcgrad show model.py:f --types array[1],array[1] --annotate\n"
               "  srcgrad show model.py:f --graph | dot -Tsvg > f.svg       the IR, drawn\n\n"
               "Exit status 2 with one line on stderr for a bad target, an unsupported\n"
               "construct or bad options. How to read the output: docs/compiler.md.",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    show.add_argument("target", metavar="TARGET",
                      help="path/to/file.py:function or package.module:function")
    show.add_argument("--wrt", default=None, type=parse_wrt, metavar="0,1|x,y",
                      help="arguments to differentiate, by position or name (default: 0)")
    show.add_argument("--mode", choices=("reverse", "forward"), default=None,
                      help="reverse: the code sg.grad runs (reverse mode, or forward mode "
                           "for one float argument, as its first comment says); forward: "
                           "sg.jvp's code (default: reverse)")
    show.add_argument("--no-optimize", dest="optimize", action="store_false",
                      help="show the code before the optimisation passes")
    show.add_argument("--types", type=parse_types, metavar="float,array[2],...",
                      help="one kind per positional parameter: float, int, bool, np.float64, "
                           "np.float32, array[N] (a float64 array with N dimensions: "
                           "array[1] a vector, array[2] a matrix; N is the rank, not the "
                           "length; a rank the function cannot take is an error), "
                           "array[N,float32], other, or a structure "
                           "of them: dict(W1=array[2],b1=array[1]), list(array[2],float), "
                           "tuple(...), nested (default: the generic version); e.g. "
                           "--types 'dict(W1=array[2],b1=array[1]),array[2]'. A namedtuple or "
                           "dataclass argument has no spelling here: print its version from "
                           "Python with sg.source(sg.grad(f), *example_args)")
    view = show.add_mutually_exclusive_group()
    view.add_argument("--ir", action="store_true",
                      help="print srcgrad's IR instead (one op per line, with your line)")
    view.add_argument("--annotate", action="store_true",
                      help="the emitted code annotated with the user's source")
    view.add_argument("--graph", action="store_true",
                      help="the IR as a Graphviz DOT graph (pipe it to `dot -Tsvg`)")
    show.add_argument("--color", choices=("auto", "always", "never"), default="auto",
                      help="syntax highlighting (auto: on a terminal, unless NO_COLOR is set)")
    return parser


def parse_wrt(text: str) -> int | str | tuple[int | str, ...]:
    """``0`` -> 0, ``x`` -> 'x', ``0,y`` -> (0, 'y'): one entry gives one gradient."""
    parts = [p.strip() for p in text.split(",")]
    if not all(parts):
        raise argparse.ArgumentTypeError(f"empty entry in {text!r}: use e.g. 0,1 or x,y")
    entries: list[int | str] = []
    for part in parts:
        if part.lstrip("-").isdigit():
            entries.append(int(part))
        elif part.isidentifier():
            entries.append(part)
        else:
            raise argparse.ArgumentTypeError(
                f"{part!r} is neither a parameter position nor a parameter name")
    return entries[0] if len(entries) == 1 else tuple(entries)


def parse_types(text: str) -> list[str]:
    """Split on the commas outside brackets: ``float,array[2,float32]`` -> 2 kinds."""
    try:
        return split_top(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


# --- loading the target ---------------------------------------------------------------


def load_target(target: str) -> Callable[..., Any]:
    """The function TARGET names; :class:`UsageError` when it cannot be found or loaded."""
    where, sep, name = target.rpartition(":")
    if not sep or not where or not name:
        raise UsageError(f"bad target {target!r}: use path/to/file.py:function or "
                         "package.module:function")
    if where.endswith(".py") or os.sep in where or (os.altsep and os.altsep in where):
        module = _load_file(where)
    else:
        module = _import_module(where)
    obj: Any = module
    for attr in name.split("."):
        if not hasattr(obj, attr):
            raise UsageError(f"bad target {target!r}: {where} has no {name!r}")
        obj = getattr(obj, attr)
    if not callable(obj):
        raise UsageError(f"bad target {target!r}: {name} is a {type(obj).__name__}, "
                         "not a function")
    return obj


def _load_file(path: str) -> Any:
    if not os.path.isfile(path):
        raise UsageError(f"bad target: no file {path!r}")
    stem = os.path.splitext(os.path.basename(path))[0]
    module_name = f"_srcgrad_show_{''.join(c if c.isalnum() else '_' for c in stem)}"
    spec = importlib.util.spec_from_file_location(module_name, os.path.abspath(path))
    if spec is None or spec.loader is None:
        raise UsageError(f"bad target: cannot load {path!r} as Python")
    module = importlib.util.module_from_spec(spec)
    # registered before running it: inspect and dataclasses look modules up by name
    sys.modules[module_name] = module
    # imports of modules beside the file work as when it is run as a script
    sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
    try:
        _run_user_code(lambda: spec.loader.exec_module(module), path)
    except ModuleNotFoundError as e:
        raise UsageError(f"bad target: importing {path} raised ModuleNotFoundError: "
                         f"{_one_line(str(e))}") from None
    return module


def _import_module(name: str) -> Any:
    if os.getcwd() not in sys.path and "" not in sys.path:
        sys.path.insert(0, os.getcwd())  # as `python -m` does: the current package is found
    try:
        return _run_user_code(lambda: importlib.import_module(name), name)
    except ModuleNotFoundError as e:
        if e.name and (name == e.name or name.startswith(e.name + ".")):
            raise UsageError(f"bad target: no module named {e.name!r}") from None
        raise UsageError(f"bad target: importing {name} raised ModuleNotFoundError: "
                         f"{_one_line(str(e))}") from None


def _run_user_code(run: Callable[[], Any], what: str) -> Any:
    """Run the user's module code: what it raises means a bad target, not a bug of ours."""
    try:
        return run()
    except ModuleNotFoundError:
        raise  # the caller tells a missing target from a missing import
    except SyntaxError as e:
        raise UsageError(f"bad target: {e.filename}:{e.lineno}: syntax error: {e.msg}") from None
    except (Exception, SystemExit) as e:  # the user's module failed while it was imported
        raise UsageError(f"bad target: importing {what} raised {type(e).__name__}: "
                         f"{_one_line(str(e))}") from None


# --- output --------------------------------------------------------------------------


def use_color(choice: str, stream: Any) -> bool:
    if choice == "never":
        return False
    if choice == "always":
        return True
    if os.environ.get("NO_COLOR"):
        return False
    return bool(getattr(stream, "isatty", lambda: False)())


# the pygments lexer for each view's text: the emitted and annotated code are Python
LEXERS = {"source": "python", "annotate": "python", "graph": "graphviz", "ir": "text"}


def highlight(text: str, language: str) -> str:
    """Syntax highlighting for a terminal, when pygments (and its lexer) is installed."""
    try:
        from pygments import highlight as pygments_highlight
        from pygments.formatters import TerminalFormatter
        from pygments.lexers import get_lexer_by_name
        from pygments.util import ClassNotFound
    except ImportError:
        return text
    try:
        lexer = get_lexer_by_name(language)
    except ClassNotFound:  # an old pygments without this language: plain text
        return text
    return pygments_highlight(text, lexer, TerminalFormatter())


def show(args: argparse.Namespace) -> str:
    what = next((view for view in VIEWS if getattr(args, view)), "source")
    function = load_target(args.target)
    from .compiler.api import render  # the compiler loads only when there is work for it

    text = render(function, wrt=args.wrt, mode=args.mode, optimize=args.optimize,
                  types=args.types, what=what)
    if not text.endswith("\n"):
        text += "\n"
    if use_color(args.color, sys.stdout):
        text = highlight(text, LEXERS[what])
    return text


def _one_line(text: str) -> str:
    return "; ".join(line.strip() for line in str(text).splitlines() if line.strip())


def main(argv: Sequence[str] | None = None) -> int:
    try:
        args = build_parser().parse_args(argv)
        output = show(args)
    except UsageError as e:
        message = _one_line(str(e))
        if not message.startswith("srcgrad"):
            message = f"srcgrad show: {message}"
        print(message, file=sys.stderr)
        return EXIT_USAGE
    except SrcGradError as e:
        print(f"srcgrad show: {_one_line(str(e))}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        return 128 + 2
    except Exception:
        print("srcgrad: internal error (a bug in srcgrad; please report it with the "
              "traceback below)", file=sys.stderr)
        traceback.print_exc()
        return EXIT_INTERNAL
    return write_quietly(output)


def write_quietly(text: str) -> int:
    """Write ``text`` to stdout; a reader that went away (``| head``) is not an error."""
    try:
        sys.stdout.write(text)
        sys.stdout.flush()
    except BrokenPipeError:
        # Python flushes stdout again at exit and would print "Exception ignored ...":
        # point the descriptor at /dev/null so that last flush has nowhere to fail.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_BROKEN_PIPE
    return 0


if __name__ == "__main__":
    sys.exit(main())

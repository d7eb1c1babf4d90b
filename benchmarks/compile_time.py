"""Compile latency of the source-to-source compiler: the first ``sg.grad(f)`` call.

For generated straight-line functions of 50, 100, 200 and 400 lines this measures the time
from ``sg.grad(f)`` to the first gradient (parse, lower, differentiate, optimise, emit,
compile) after ``sg.clear_cache()``, as the median of several fresh compiles, and prints a
table with the growth ratio per doubling of the function's length (a linear compiler shows
about 2x). The machine (platform, Python, NumPy, CPU count) is printed with the numbers,
because they are absolute times.

Run: ``python benchmarks/compile_time.py [--sizes 50,100,200,400] [--repeats 5]
[--cpu-time]`` (``--cpu-time``: this thread's CPU time, for a machine shared with other
work).
Not part of the test suite (``tests/benchmarks`` runs it once at the smallest size).
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import platform
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

import srcgrad as sg

DEFAULT_SIZES = (50, 100, 200, 400)

# One line of the generated function per template; {a} and {b} are earlier values.
TEMPLATES = (
    "v{i} = np.sin({a}) * {b} + 0.5",
    "v{i} = {a} * {b} - np.tanh({a})",
    "v{i} = np.exp(-{a} * {a}) + {b} / (1.0 + {b} * {b})",
    "v{i} = np.sqrt({a} * {a} + 1.0) * 0.25 + np.cos({b})",
    "v{i} = np.maximum({a}, {b}) - 0.1 * {a}",
    "v{i} = np.log1p({a} * {a}) + {b} ** 2 * 0.01",
)


def straight_line_source(lines: int, name: str = "f") -> str:
    """A function of ``x`` (a vector) and ``w`` with ``lines`` assignment lines and a sum."""
    body = []
    for i in range(lines):
        a = "x" if i == 0 else f"v{i - 1}"
        b = "w" if i < 2 else f"v{max(0, i - 2 - i % 3)}"
        body.append("    " + TEMPLATES[i % len(TEMPLATES)].format(i=i, a=a, b=b))
    return (f"import numpy as np\n\n\ndef {name}(x, w):\n" + "\n".join(body)
            + f"\n    return np.sum(v{lines - 1})\n")


def load_function(source: str, directory: str, module_name: str) -> Callable[..., Any]:
    """Write ``source`` to a real file and import it (the compiler reads the source)."""
    path = os.path.join(directory, f"{module_name}.py")
    with open(path, "w") as handle:
        handle.write(source)
    spec = importlib.util.spec_from_file_location(module_name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    spec.loader.exec_module(module)
    return module.f


def first_call_seconds(fn: Callable[..., Any], args: Sequence[Any],
                       clock: Callable[[], float] = time.perf_counter) -> float:
    """Time of ``sg.grad(fn)(*args)`` with an empty cache: the compile latency."""
    sg.clear_cache()
    start = clock()
    sg.grad(fn)(*args)
    return clock() - start


def measure(sizes: Sequence[int], repeats: int,
            clock: Callable[[], float] = time.perf_counter) -> list[dict[str, float]]:
    x = np.linspace(-1.0, 1.0, 8)
    w = np.linspace(0.5, 1.5, 8)
    rows = []
    with tempfile.TemporaryDirectory(prefix="srcgrad_compile_time_") as directory:
        for lines in sizes:
            fn = load_function(straight_line_source(lines), directory, f"straight_{lines}")
            times = [first_call_seconds(fn, (x, w), clock) for _ in range(repeats)]
            sg.clear_cache()
            grad = sg.grad(fn)
            grad(x, w)
            start = clock()
            grad(x, w)
            cached = clock() - start
            rows.append({"lines": lines, "median": statistics.median(times),
                         "best": min(times), "cached": cached})
    return rows


def machine() -> str:
    return (f"{platform.platform()}, {platform.machine()}, Python {platform.python_version()}, "
            f"NumPy {np.__version__}, {os.cpu_count()} CPUs")


def report(rows: list[dict[str, float]], repeats: int, clock: str = "wall time") -> str:
    out = [f"machine: {machine()}",
           f"first sg.grad(f) call after sg.clear_cache(), median of {repeats} fresh compiles "
           f"({clock})",
           "",
           f"{'lines':>6} {'median ms':>10} {'best ms':>9} {'ms/line':>8} {'growth':>7} "
           f"{'cached call us':>15}"]
    previous = None
    for row in rows:
        growth = ""
        if previous is not None:
            # normalised to a doubling, so uneven steps still read as "2x = linear"
            steps = np.log2(row["lines"] / previous["lines"])
            growth = f"{(row['median'] / previous['median']) ** (1 / steps):.2f}x"
        out.append(f"{row['lines']:>6} {row['median'] * 1e3:>10.1f} {row['best'] * 1e3:>9.1f} "
                   f"{row['median'] * 1e3 / row['lines']:>8.2f} {growth:>7} "
                   f"{row['cached'] * 1e6:>15.1f}")
        previous = row
    out.append("")
    out.append("growth: median time ratio per doubling of the function's length "
               "(about 2x means linear)")
    return "\n".join(out)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default=",".join(map(str, DEFAULT_SIZES)),
                        help="comma-separated line counts (default: 50,100,200,400)")
    parser.add_argument("--repeats", type=int, default=5, help="fresh compiles per size")
    parser.add_argument("--cpu-time", action="store_true",
                        help="time by this thread's CPU time instead of wall time (a machine "
                             "shared with other work: leaves out the time others ran)")
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")]
    clock = time.thread_time if args.cpu_time else time.perf_counter
    rows = measure(sizes, args.repeats, clock)
    print(report(rows, args.repeats, "thread CPU time" if args.cpu_time else "wall time"))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Emitted code is deterministic: the same function gives byte-identical source in two fresh
processes, even with different string-hash seeds (so no set or dict ordering of names leaks
into what is emitted).

The programs are a hand-written module covering straight-line code, helper calls, branches,
loops and writes, plus a few fuzzer programs; each is written to a file both processes load.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

from fuzz.generator import generate  # tests/ is on sys.path (rootdir-relative packages)

HAND_WRITTEN = '''
import numpy as np


def _helper(u, scale=0.5):
    return np.tanh(u) * scale


def straight(x, y):
    a = np.sin(x) * y + _helper(y, scale=2.0)
    b = np.sum(a, axis=0)
    return np.sum(b @ y[0]) + np.mean(np.log(a * a + 1.0))


def branches_and_loops(x, w):
    acc = x * 0.5
    for i in range(3):
        if np.sum(acc) > 0.0:
            acc = np.tanh(acc * w) + acc
        else:
            acc = acc - w
    k = 0
    while k < 2 and np.sum(acc * acc) < 10.0:
        acc = acc * 1.1
        k += 1
    return np.sum(acc)


def writes(x):
    z = np.zeros_like(x)
    z[0] = np.sum(x)
    z[1:] += x[1:] * 2.0
    for row in x:
        z = z + row
    return np.sum(z * x)
'''

# (function name, example argument shapes, wrt)
CASES = [("straight", [(2, 3), (2, 3)], (0, 1)), ("branches_and_loops", [(3,), (3,)], (0, 1)),
         ("writes", [(3,)], 0)]

# one process: load each file, emit every case's source (four variants), print them as JSON
EMIT = textwrap.dedent('''
    import importlib.util, json, sys
    import numpy as np
    import srcgrad as sg

    texts = {}
    for k, (path, name, shapes, kinds, wrt) in enumerate(json.loads(sys.argv[1])):
        spec = importlib.util.spec_from_file_location(f"determinism_{k}", path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module
        spec.loader.exec_module(module)
        fn = getattr(module, name)
        wrt = tuple(wrt) if isinstance(wrt, list) else wrt
        args = [0.25 if kind == "float" else np.full(s, 0.25) for s, kind in zip(shapes, kinds)]
        key = f"{path}:{name}"
        texts[key + "/specialised"] = sg.source(sg.grad(fn, wrt=wrt), *args)
        texts[key + "/unoptimized"] = sg.source(sg.grad(fn, wrt=wrt, optimize=False), *args)
        texts[key + "/generic"] = sg.source(sg.grad(fn, wrt=wrt))
        texts[key + "/forward"] = sg.source(sg.jvp(fn, wrt=wrt), *args)
    print(json.dumps(texts))
''')


def _emit(cases: list, hash_seed: str) -> dict[str, str]:
    env = dict(os.environ, PYTHONHASHSEED=hash_seed)
    done = subprocess.run([sys.executable, "-c", EMIT, json.dumps(cases)],
                          capture_output=True, text=True, env=env, timeout=240, check=False)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def _cases(tmp_path: Path) -> list:
    hand = tmp_path / "determinism_hand.py"
    hand.write_text(HAND_WRITTEN)
    cases = [[str(hand), name, [list(s) for s in shapes], ["array"] * len(shapes),
              list(wrt) if isinstance(wrt, tuple) else wrt] for name, shapes, wrt in CASES]
    for k, features in enumerate([(), ("if", "for"), ("while", "write"), ("return",)]):
        program = generate(900 + k, features)
        path = tmp_path / f"determinism_fuzz_{k}.py"
        path.write_text(program.source)
        wrt = [w if isinstance(w, int) else int(w[1:]) for w in program.wrt]
        cases.append([str(path), "f", [list(s) for s in program.arg_shapes],
                      program.arg_kinds, wrt])
    return cases


def test_emitted_source_is_byte_identical_in_two_fresh_processes(tmp_path):
    cases = _cases(tmp_path)
    first, second = _emit(cases, "1"), _emit(cases, "2024")
    assert first.keys() == second.keys() and len(first) >= 3 * len(cases)
    for key in first:
        assert "def " in first[key], f"{key}: nothing emitted"
        assert first[key] == second[key], f"{key}: emitted source differs between processes"

"""Which optional constructs the compiler accepts today, and whether ``sg.jvp`` exists.

One tiny program per feature of ``generator.FEATURES``, differentiated once per session. A
feature whose probe is refused with ``sg.SrcGradError`` is skipped by the fuzzer with that
message as the visible reason; any other outcome enables it, so the fuzzer itself reports
whatever else goes wrong.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np

import srcgrad as sg

PROBES = {
    "if": """
def f(x):
    if np.sum(x) > 0.0:
        y = np.sin(x)
    else:
        y = np.cos(x)
    return np.sum(y)
""",
    "for": """
def f(x):
    acc = x * 0.5
    for row in x:
        acc = acc * row
    for i in range(2):
        acc = acc + x[i]
    return np.sum(acc)
""",
    "while": """
def f(x):
    k = 0
    while k < 3 and np.sum(x * x) < 50.0:
        x = x * 1.5
        k += 1
    return np.sum(x)
""",
    "break": """
def f(x):
    acc = x
    for i in range(3):
        if np.sum(acc) > 2.0:
            break
        acc = acc * 1.5
    return np.sum(acc)
""",
    "continue": """
def f(x):
    acc = x
    for i in range(3):
        acc = acc * 1.5
        if np.sum(acc) > 2.0:
            continue
        acc = acc + 1.0
    return np.sum(acc)
""",
    "return": """
def f(x):
    if np.sum(x) > 0.0:
        return np.sum(x * x)
    return np.sum(x)
""",
    "write": """
def f(x):
    z = np.zeros_like(x)
    z[0] = np.sin(x[1])
    z[1:] += x[1:] * 2.0
    return np.sum(z * x)
""",
    "reject": """
def f(x):
    x[0] = 1.0
    return np.sum(x)
""",
}


def _load(directory: Path, feature: str):
    name = f"srcgrad_fuzz_probe_{feature}"
    path = directory / f"{name}.py"
    path.write_text("import numpy as np\n" + PROBES[feature])
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # until the probe is done: the compiler reads its source
    spec.loader.exec_module(module)
    return module.f


def probe_features(directory: Path) -> dict[str, str | None]:
    """``{feature: None}`` when accepted, ``{feature: "<refusal>"}`` when refused."""
    refusals: dict[str, str | None] = {}
    for feature in PROBES:
        if feature == "reject":  # refusing is the point; the fuzzer checks that it does
            refusals[feature] = None
            continue
        name = f"srcgrad_fuzz_probe_{feature}"
        fn = _load(directory, feature)
        try:
            sg.grad(fn)(np.array([0.3, -0.2, 0.4]))
            refusals[feature] = None
        except sg.SrcGradError as error:
            refusals[feature] = str(error).splitlines()[0]
        except Exception:  # noqa: BLE001 - not a refusal: let the fuzzer report it
            refusals[feature] = None
        finally:
            sys.modules.pop(name, None)
    return refusals


def has_forward_mode() -> bool:
    return callable(getattr(sg, "jvp", None))

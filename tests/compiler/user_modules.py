"""A user's module written to a temporary folder and imported by file path, as tests of
what srcgrad reads from another file (its source, its globals, its file name) need."""

from __future__ import annotations

import importlib.util
import sys
from types import ModuleType


def load_module(tmp_path, name: str, source: str) -> ModuleType:
    """``source`` saved as ``tmp_path/name.py`` and imported as module ``name`` (the caller
    removes ``sys.modules[name]`` when done)."""
    path = tmp_path / f"{name}.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module

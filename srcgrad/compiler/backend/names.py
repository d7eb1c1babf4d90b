"""Names in emitted code: Python names for IR values, and references to callables.

Values keep the user's names (``z``, then ``z_1``, ``z_2`` on reassignment), adjoints are
``d`` + their primal's emitted name (``dz``, ``dz_1``; a clash with a user name gets a
numeric suffix), unnamed temporaries are ``_t1``, ``_t2``. Objects the code calls are
spelled ``np.sin``/``math.sin``, imported by name (``from srcgrad.rules.helpers import
unbroadcast``) or, when not importable, bound in the module's namespace by srcgrad.
"""

from __future__ import annotations

import builtins
import keyword
import math
import re
import sys
import types
from typing import Any

import numpy as np

from ..ir.core import Value


class ValueNames:
    def __init__(self, reserved: set[str], imported: set[str] | None = None) -> None:
        self.used: set[str] = set(reserved)
        # the names imports take while this function is emitted (a live set): a value
        # named after a helper imported earlier (`lower`) gets a suffix instead
        self.imported: set[str] = imported if imported is not None else set()
        self.names: dict[int, str] = {}
        self.base: dict[str, str] = {}  # emitted name -> its family (user name or d+name)
        self.holder: dict[str, int] = {}  # emitted name -> id of the value last bound to it
        self.temps = 0

    def family(self, v: Value) -> str | None:
        if v.adjoint_of is not None:
            if v.adjoint_of.name is None:
                return None  # the adjoint of a temporary is a temporary
            primal = self.names.get(v.adjoint_of.id) or v.adjoint_of.name
            return "d" + primal
        return v.name

    def fresh(self, base: str) -> str:
        base = _identifier(base)
        if base not in self.used and base not in self.imported:
            self.used.add(base)
            return base
        stem = re.sub(r"_\d+$", "", base)
        n = 1
        while f"{stem}_{n}" in self.used or f"{stem}_{n}" in self.imported:
            n += 1
        name = f"{stem}_{n}"
        self.used.add(name)
        return name

    def define(self, v: Value, reuse: str | None = None) -> str:
        family = self.family(v)
        if reuse is not None:
            name = reuse
        elif family is None:
            self.temps += 1
            name = self.fresh(f"_t{self.temps}")
        else:
            name = self.fresh(family)
        self.names[v.id] = name
        self.base[name] = family or name
        self.holder[name] = v.id
        return name

    def __getitem__(self, v: Value) -> str:
        return self.names[v.id]


def _describe(obj: Any) -> str:
    """A line for the module header: stable across runs (no memory addresses)."""
    qualname, module = getattr(obj, "__qualname__", None), getattr(obj, "__module__", None)
    if isinstance(qualname, str) and isinstance(module, str):
        return f"{type(obj).__name__} {module}.{qualname}"
    return repr(obj)[:60]


def _identifier(text: str) -> str:
    text = re.sub(r"\W", "_", text)
    if not text or text[0].isdigit() or keyword.iskeyword(text):
        text = "_" + text
    return text


# callable -> (import line, spelling) when NumPy or math has it under its name, else None;
# a miss costs a few microseconds (NumPy's module ``__getattr__`` raises an
# AttributeError) and srcgrad's helpers (``unbroadcast``) miss ~30 times per gradient
_LIBRARY_SPELLINGS: dict[Any, tuple[str, str] | None] = {}


def _library_spelling(obj: Any, name: str) -> tuple[str, str] | None:
    if not _kept_for_good(obj):
        return _find_in_libraries(obj, name)
    if obj not in _LIBRARY_SPELLINGS:
        _LIBRARY_SPELLINGS[obj] = _find_in_libraries(obj, name)
    return _LIBRARY_SPELLINGS[obj]


def _kept_for_good(obj: Any) -> bool:
    """A function of NumPy, math or srcgrad itself: alive as long as the process, so it may
    be a key here (a user's callable is not kept alive by the cache)."""
    module = getattr(obj, "__module__", None)
    owner = getattr(obj, "__self__", None)  # (a bound method keeps its object alive)
    return isinstance(module, str) and (module in ("math", "numpy") or module.startswith(
        ("numpy.", "srcgrad."))) and getattr(type(obj), "__hash__", None) is not None \
        and (owner is None or isinstance(owner, types.ModuleType))


def _find_in_libraries(obj: Any, name: str) -> tuple[str, str] | None:
    if getattr(np, name, None) is obj:
        return "import numpy as np", f"np.{name}"
    if getattr(np.linalg, name, None) is obj:
        return "import numpy as np", f"np.linalg.{name}"
    if getattr(math, name, None) is obj:
        return "import math", f"math.{name}"
    return None


class References:
    """Spellings of callables and constants; collects the import lines they need."""

    def __init__(self) -> None:
        self.imports: dict[str, str] = {}  # "import x" lines (an ordered set)
        self.from_imports: dict[str, dict[str, str]] = {}  # module -> {"name [as alias]": ""}
        self.namespace: dict[str, Any] = {"np": np, "math": math}
        self.bound: dict[str, str] = {}  # name -> description, for the module's header
        self.notes: dict[str, str] = {}  # comments for the header (an ordered set)
        self.used_names: set[str] = {"np", "math"}
        # the value names of the function being emitted (set by its emitter): an import
        # made after a value took its name (a user's `lower`) is aliased
        self.value_names: set[str] = set()

    def ref(self, obj: Any) -> str:
        name = getattr(obj, "__name__", None)
        if name is not None:
            spelled = _library_spelling(obj, name)
            if spelled is not None:
                self.imports[spelled[0]] = ""
                return spelled[1]
            if getattr(builtins, name, None) is obj:
                return name
        module = getattr(obj, "__module__", None)
        qualname = getattr(obj, "__qualname__", None)
        if module and qualname and "<" not in qualname and "." not in qualname:
            mod = sys.modules.get(module)
            if mod is not None and getattr(mod, qualname, None) is obj \
                    and module != "__main__":
                local = qualname
                alias = next((k for k, v in self.namespace.items() if v is obj), None)
                if alias is not None:  # (imported already, perhaps under another name)
                    return alias
                names = self.from_imports.setdefault(module, {})
                if self.namespace.get(local, obj) is not obj or (
                        local in self.value_names and local not in self.namespace):
                    local = self._unique(qualname)
                    names[f"{qualname} as {local}"] = ""
                else:
                    names[qualname] = ""
                self.namespace[local] = obj
                self.used_names.add(local)
                return local
        for existing, value in self.namespace.items():
            if value is obj:
                return existing
        local = self._unique("_" + _identifier(qualname or name or type(obj).__name__))
        self.namespace[local] = obj
        self.bound[local] = _describe(obj)
        # why such an object is called rather than inlined (a recursive call)
        note = getattr(obj, "__srcgrad_note__", None)
        if isinstance(note, str):
            self.notes[note] = ""
        return local

    def module(self, name: str) -> str:
        """The local name of module ``name``, imported as ``import name as _local``."""
        module = sys.modules[name]
        for existing, value in self.namespace.items():
            if value is module:
                return existing
        local = self._unique("_" + _identifier(name.rpartition(".")[2]))
        self.namespace[local] = module
        self.imports[f"import {name} as {local}"] = ""
        return local

    def place(self, obj: Any, hint: str, description: str) -> str:
        """Bind ``obj`` (a globals dict, a cell: never printed, it may hold large data)
        under a name made from ``hint``; the same object keeps its name."""
        for existing, value in self.namespace.items():
            if value is obj:
                return existing
        local = self._unique(_identifier(hint))
        self.namespace[local] = obj
        self.bound[local] = description
        return local

    def _unique(self, base: str) -> str:
        name, n = base, 1
        while name in self.used_names or name in self.value_names:
            name = f"{base}_{n}"
            n += 1
        self.used_names.add(name)
        return name

    def merge(self, other: References) -> None:
        self.imports.update(other.imports)
        for module, names in other.from_imports.items():
            self.from_imports.setdefault(module, {}).update(names)
        self.bound.update(other.bound)
        self.notes.update(other.notes)

    def header(self) -> list[str]:
        lines = sorted(self.imports)
        for module in sorted(self.from_imports):
            lines.append(f"from {module} import {', '.join(sorted(self.from_imports[module]))}")
        for name, desc in self.bound.items():
            lines.append(f"# {name} = {desc}  (not importable; bound by srcgrad)")
        lines += [f"# {note}" for note in self.notes]
        return lines

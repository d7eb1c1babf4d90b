"""The derived function users call: generated code whose guards pick a compiled version.

DESIGN.md principle 7: no layers of Python wrappers. ``sg.grad(f)`` returns one real
function, regenerated (its ``__code__`` swapped in place) each time a version is compiled
for a new abstract signature. Each version is guarded by cheap checks of the argument
kinds and of what its compilation assumed (the names it resolved: a callee by identity,
a captured array by type, ndim and dtype, a captured int by value, see
``frontend.facts``; a builtin it called, ``abs``, by the absence of a global of that name
in the user's module, ``'abs' not in _sg_w0_1``); a call that no guard accepts takes the
slow path, which compiles::

    def grad_f(x, n):
        try:
            if type(x) is _sg_ndarray and x.ndim == 1 and x.dtype.char == 'd' and \\
                    type(n) is int and \\
                    type((_sg_o0_1 := _sg_g0_1.W)) is _sg_ndarray \\
                    and _sg_o0_1.ndim == 2 and _sg_o0_1.dtype.char == 'd' and ...:
                return _sg_v0(x, n)
        except Exception as _sg_e:
            _sg_note(_sg_e)
            raise
        return _sg_slow(x, n)

The rule table's generation is not checked per call: a change of the table empties every
dispatcher's versions at once (:meth:`Dispatcher.forget_versions`, called by ``.cache``).
A global is read as an attribute of a view of its module's dict (:mod:`.global_views`),
a specialised attribute load where ``dict.get`` was a call.

A defaulted parameter gets a sentinel default replaced by ``f``'s current default, so
changing ``f.__defaults__`` is seen on the next call.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import numpy as np

from srcgrad.rules import generation

from .backend.compile import compile_into
from .boundary import guards, is_tree
from .cache import Entry, track
from .frontend.resolve import MISSING as ABSENT
from .frontend.resolve import path_text
from .global_views import MISSING, can_view, missing_global, view_of
from .inline_version import inlined_text
from .ir import types as T
from .signature import shape_fact

_DEFAULT = type("_Default", (), {"__repr__": lambda self: "<f's default>"})()
_MISSING = MISSING
# the ``except`` clause around the guards and the versions they call: a guard that read a
# global deleted since (an AttributeError of a view, see .global_views) falls through to
# the slow path; any other error is the derivative's, noted with the user's line
GUARD_FAILED = ["        if not _sg_gone(_sg_e):", "            _sg_note(_sg_e)",
                "            raise"]


class Dispatcher:
    def __init__(self, name: str, doc: str, signature: inspect.Signature,
                 call_names: list[str], slow: Callable[..., Any],
                 note: Callable[[BaseException], None],
                 defaults: Callable[[], dict[str, Any]], f: Any) -> None:
        self.name = name
        self.doc = doc
        self.n_params = len(call_names) - (call_names[-1:] in (["seed"], ["tangent"]))
        self.signature = signature
        self.call_names = call_names
        self.defaults = defaults  # parameter name -> f's current default
        self.versions: list[tuple[tuple[Any, ...], Entry]] = []
        self._bare: Any = None  # the code with no version (see forget_versions)
        self.ns: dict[str, Any] = {
            "_sg_slow": slow, "_sg_note": note, "_sg_ndarray": np.ndarray,
            "_sg_default": _DEFAULT, "_sg_missing": _MISSING,
            "_sg_f": f, "_sg_refresh": self.refresh_defaults, "_sg_gone": missing_global,
        }
        self.function = self._compile()
        track(self)

    def forget_versions(self) -> None:
        """Uninstall every version (the rule table changed, so none is valid): the next
        call takes the slow path. The code without versions is compiled when first needed
        and kept (this runs for every live derived function on each change of the table)."""
        if not self.versions:
            return
        self.versions = []
        if self._bare is None:
            self._bare = self._compile().__code__
        self.function.__code__ = self._bare

    def reset(self) -> None:
        """Forget every installed version (``sg.clear_cache``)."""
        self.versions = []
        self._bare = None
        self.function.__code__ = self._compile().__code__

    def add(self, key: tuple[Any, ...], entry: Entry) -> None:
        """Install ``entry`` for argument kinds ``key`` (replacing an older one). An entry
        compiled against an older rule table (one changed while it compiled) is not
        installed: no guard checks the table's generation."""
        if entry.generation != generation():
            return
        self._bare = None
        self.versions = [(k, e) for k, e in self.versions if k != key and e.valid()]
        self.versions.append((key, entry))
        # specific versions first: a generic one (None kinds) accepts anything, and one
        # that knows arrays share a shape before one that does not
        self.versions.sort(key=lambda ke: (sum(k is None for k in ke[0]),
                                           -sum(shape_fact(k) is not None for k in ke[0])))
        fresh = self._compile()
        self.function.__code__ = fresh.__code__

    def refresh_defaults(self) -> None:
        """Take ``f``'s current defaults (called by the code when they were changed)."""
        for i, value in enumerate(self.defaults().values()):
            self.ns[f"_sg_d{i}"] = value
        f = self.ns.get("_sg_f")
        self.ns["_sg_fd"] = getattr(f, "__defaults__", None)
        self.ns["_sg_fkd"] = getattr(f, "__kwdefaults__", None)

    # --- code ----------------------------------------------------------------------------
    def _compile(self) -> Any:
        compile_into(self._text(), self.ns, self.name)
        return self.ns[self.name]

    def _params(self) -> tuple[str, list[str]]:
        parts, fill = [], []
        seen_kwonly = False
        defaults = self.defaults()
        index = {n: i for i, n in enumerate(defaults)}
        for p in self.signature.parameters.values():
            if p.kind == p.KEYWORD_ONLY and not seen_kwonly:
                parts.append("*")
                seen_kwonly = True
            if p.name in index:
                parts.append(f"{p.name}=_sg_default")
                fill.append(f"    if {p.name} is _sg_default:\n"
                            f"        {p.name} = _sg_d{index[p.name]}")
            else:
                parts.append(p.name)
        self.refresh_defaults()
        return ", ".join(parts), fill

    def _text(self) -> str:
        params, fill = self._params()
        args = ", ".join(self.call_names)
        lines = [f"def {self.name}({params}):", f"    {self.doc!r}"]
        if fill:
            lines += ["    if _sg_f.__defaults__ is not _sg_fd or "
                      "_sg_f.__kwdefaults__ is not _sg_fkd:", "        _sg_refresh()", *fill]
        if len(self.versions) == 1 and not fill and self._plain_parameters():
            key, entry = self.versions[0]
            self.ns["_sg_v0"] = entry.fn
            checks = [*self._guards(key), *self._assumptions(0, entry)]
            text = inlined_text(self.name, self.doc, self.call_names, checks, entry, self.ns,
                               GUARD_FAILED)
            if text is not None:  # (the one version's body under its guards)
                return text
        if self.versions:
            lines.append("    try:")
            for k, (key, entry) in enumerate(self.versions):
                self.ns[f"_sg_v{k}"] = entry.fn
                checks = [*self._guards(key), *self._assumptions(k, entry)]
                if entry.boundary is not None and self.call_names[-1] == "tangent":
                    checks += entry.boundary.tangent_checks("tangent", self._bind)
                # (a generic version that read no name has no check: it accepts any call)
                lines.append(f"        if {' and '.join(checks) or 'True'}:")
                lines.append(f"            return {self._call(k, entry, args)}")
            lines += ["    except Exception as _sg_e:", *GUARD_FAILED]
        lines.append(f"    return _sg_slow({args})")
        return "\n".join(lines) + "\n"

    def _plain_parameters(self) -> bool:
        """Every parameter positional-or-keyword, named as the versions are called."""
        params = list(self.signature.parameters.values())
        return [p.name for p in params] == self.call_names and all(
            p.kind == p.POSITIONAL_OR_KEYWORD for p in params)

    def _call(self, k: int, entry: Entry, args: str) -> str:
        """The call of version ``k``: structured arguments flattened to their leaves and
        its gradients rebuilt (see :mod:`.boundary`)."""
        b = entry.boundary
        if b is None:
            return f"_sg_v{k}({args})"
        names = self.call_names[:self.n_params]
        extra = self.call_names[self.n_params:]
        tangent = extra[0] if extra == ["tangent"] else None
        parts = b.call_args(names, tangent) + ([] if tangent else extra)
        if extra == ["seed"]:
            parts[-1] = b.seed_expr("seed", self._bind)
        call = f"_sg_v{k}({', '.join(parts)})"
        rebuild = b.rebuild(self._bind)
        if rebuild is None:
            return call
        ns: dict[str, Any] = {}
        exec(compile(rebuild, f"<srcgrad rebuild {self.name}>", "exec"), self.ns, ns)
        self.ns[f"_sg_r{k}"] = ns["_r"]
        return f"_sg_r{k}({call})"

    def _leaf_guard(self, expr: str, t: T.AType) -> str | None:
        """The check that a leaf of a structured argument has abstract type ``t``."""
        if t.kind == "array":
            return (f"type({expr}) is _sg_ndarray and {expr}.ndim == {t.ndim} and "
                    f"{expr}.dtype.char == {np.dtype(t.dtype).char!r}")
        if t.kind in ("float", "int", "bool"):
            return f"type({expr}) is {t.kind}"
        if t.kind == "scalar":
            return f"type({expr}) is {self._bind(np.dtype(t.dtype).type)}"
        return None

    def _guards(self, key: tuple[Any, ...]) -> list[str]:
        checks = []
        for name, kind in zip(self.call_names, key[:self.n_params]):
            if kind is None:
                continue
            if is_tree(kind):
                checks += guards(kind, name, self._leaf_guard, self._bind)
                continue
            if isinstance(kind, tuple):
                ndim, char = kind[:2]
                checks.append(f"type({name}) is _sg_ndarray and {name}.ndim == {ndim} and "
                              f"{name}.dtype.char == {char!r}")
                same = shape_fact(kind)
                if same is not None:  # (that argument's own checks come first)
                    checks.append(f"{name}.shape == {self.call_names[same]}.shape")
            elif kind in (float, int, bool):
                checks.append(f"type({name}) is {kind.__name__}")
            elif kind is type(None):
                checks.append(f"{name} is None")
            else:
                self.ns[f"_sg_t_{kind.__name__}"] = kind
                checks.append(f"type({name}) is _sg_t_{kind.__name__}")
        return checks

    def _assumptions(self, k: int, entry: Entry) -> list[str]:
        checks, seen = [], set()
        for j, dep in enumerate(entry.deps):
            # (an identity assumption is stronger than a fact about the same place: both kept)
            ident = (id(dep.where), dep.name, dep.kind, dep.path, dep.fact is None)
            if ident in seen:
                continue
            seen.add(ident)
            w, o = f"_sg_w{k}_{j}", f"_sg_o{k}_{j}"
            if dep.obj is ABSENT and dep.fact is None and isinstance(dep.where, dict) \
                    and dep.kind != "attr" and not dep.path:
                # a builtin the version called: no global of that name may have appeared
                self.ns[w] = dep.where
                checks.append(f"{dep.name!r} not in {w}")
                continue
            if dep.kind != "attr" and can_view(dep.where, dep.name):
                # an attribute of a view of the dict: a specialised load, not a call
                w = f"_sg_g{k}_{j}"
                self.ns[w] = view_of(dep.where)
                read = f"{w}.{dep.name}"
            elif isinstance(dep.where, dict) and dep.kind != "attr":
                # the dict's bound ``get``: one attribute lookup less per call (~15 ns of a
                # Newton iteration's 0.6 us gradient)
                w = f"_sg_get{k}_{j}"
                self.ns[w] = dep.where.get
                read = f"{w}({dep.name!r}, _sg_missing)"
            else:
                self.ns[w] = dep.where
                read = f"{w}.{dep.name}" if dep.kind == "attr" else f"{w}.cell_contents"
            # an item of a captured container: its container's fact (type and length or
            # keys) is checked first, so indexing it here cannot fail
            read += path_text(dep.path)
            if dep.fact is None:
                self.ns[o] = dep.obj
                checks.append(f"{read} is {o}")
            else:  # read once into a local, then its type (ndim, dtype, value) checked
                checks.append(dep.fact.guard(f"({o} := {read})", o, self._bind))
        return checks

    def _bind(self, obj: Any) -> str:
        """The guard namespace's name for ``obj`` (a type: ndarray, float, np.float32)."""
        if obj is np.ndarray:
            return "_sg_ndarray"
        label = str(getattr(obj, "__name__", "obj"))
        # (a function argument's own name may be `<lambda>`: not an identifier)
        name = f"_sg_t_{label if label.isidentifier() else 'obj'}"
        if self.ns.setdefault(name, obj) is not obj:
            name = f"{name}_{id(obj)}"
            self.ns[name] = obj
        return name

"""Captured data is referenced, not baked in (API.md "Captured values", DESIGN.md 11).

Where it sits: lowering (:mod:`.expressions` for free names, :mod:`.calls` for a callee's
defaulted parameters, ``module.NAME``) meets a value from outside the function. When it is
data (an array, a float: :func:`.facts.read_at_run_time`) the IR gets a ``captured`` op
that reads it from where the user's function reads it, each time the emitted code runs;
the backend (``backend.reads``) prints it as one load::

    W = _model.W                       # a module global (`import model as _model`)
    buf = _cell_buf.cell_contents      # a closure cell
    scale = helper.__defaults__[0]     # a callee's default
    W1 = _model.LAYERS[1]              # an item of a captured list

A captured tuple, list or dict is a compile-time container (loops over it unroll, its
length is guarded) whose items are captured in turn.

So an array changed in place, a refilled buffer or a rebound global is seen by the next
call, and a large data set costs one line of emitted code. The reads sit at the top of the
function (nothing in a differentiated function can rebind a global or a cell, so reading
once per call is reading at each use); each place is read once. The compile-time facts
(type, ndim, dtype) are recorded by :mod:`.resolve` and guarded by the dispatcher.
"""

from __future__ import annotations

import types
from typing import TYPE_CHECKING, Any

from ..ir import types as T
from ..ir.core import Op, Value
from ..structure import is_plain_object
from ..symbolic import CapturedSym, Sym
from .facts import MAX_ITEMS, fact_of, item_count, read_at_run_time
from .resolve import Attr, Dependency, path_text, step

if TYPE_CHECKING:
    from .lower import Lowerer


class Source:
    """Where a captured value is read at run time: ``kind`` is ``"global"`` (``where`` is a
    module's globals dict, ``key`` the name), ``"cell"`` (a closure cell), ``"default"``
    (``where`` is a function, ``key`` the position in its ``__defaults__``) or
    ``"kwdefault"`` (``key`` the name in its ``__kwdefaults__``); then ``path`` indexes
    into a captured tuple, list or dict (``ROWS[0]``)."""

    __slots__ = ("where", "kind", "key", "path", "name")

    def __init__(self, where: Any, kind: str, key: Any, path: tuple[Any, ...] = (),
                 name: str | None = None) -> None:
        self.where, self.kind, self.key, self.path = where, kind, key, path
        self.name = name if name is not None else str(key)  # the user's name for it

    def at(self, index: Any) -> Source:
        return Source(self.where, self.kind, self.key, (*self.path, index), self.name)

    def dependency(self, value: Any, exact: bool = False) -> Dependency:
        """What the compiled code assumes about the value read here (``value`` now; with
        ``exact``, that it is this very object, as when it was used as a constant)."""
        fact = None if exact else fact_of(value)
        obj = value if fact is None else None
        if self.kind in ("global", "cell"):
            return Dependency(self.where, self.key, obj, "item", fact, self.path)
        if self.kind == "attr":
            return Dependency(self.where, self.key, obj, "attr", fact, self.path)
        attr = "__defaults__" if self.kind == "default" else "__kwdefaults__"
        return Dependency(self.where, attr, obj, "attr", fact, (self.key, *self.path))

    @property
    def label(self) -> str:
        """A name for the value read (the user's name, then its path)."""
        return "_".join([self.name, *(str(p) for p in self.path)])

    def _ident(self) -> tuple[Any, ...]:
        return id(self.where), self.kind, self.key, self.path

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Source) and self._ident() == other._ident()

    def __hash__(self) -> int:
        return hash(self._ident())

    def __repr__(self) -> str:
        path = path_text(self.path)
        if self.kind == "global":
            return f"global {self.where.get('__name__', '?')}.{self.key}{path}"
        if self.kind == "cell":
            return f"cell {self.key}{path}"
        if self.kind == "attr":
            return f"{type(self.where).__name__}.{self.key}{path}"
        name = getattr(self.where, "__qualname__", "?")
        return f"{name}.__{self.kind}s__[{self.key!r}]{path}"


def read(lw: Lowerer, source: Source, value: Any, name: str | None) -> Sym:
    """The run-time read of ``source`` (whose value is ``value`` now), once per function."""
    ctx = lw.ctx
    held = ctx.captured.get(source)
    if held is not None:
        return held
    out = Value(name=name, line=None, type=T.of_value(value))
    op = Op("captured", {}, [out], {"source": source}, line=None)
    # at the top of the function, before anything else: it reads no other value, and the
    # loops and branches lowered so far may already be nested blocks
    assert ctx.entry is not None, "lower() sets the entry block before lowering any body"
    ctx.entry.ops.insert(len(ctx.captured), op)
    ctx.argument_ids.add(out.id)  # the user's data, like an argument: never written into
    ctx.captured_ids.add(out.id)
    ctx.captured[source] = held = CapturedSym(
        out, value, lambda: ctx.deps.append(source.dependency(value, exact=True)))
    return held


class CapturedObject:
    """An object the function reads attributes of (``model.W``, ``self.W``): each attribute
    is captured in turn, read where the user's function reads it when the derivative runs
    (API.md "Captured values": a changed attribute is seen by the next call)."""

    __slots__ = ("source", "value")

    def __init__(self, source: Source, value: Any) -> None:
        self.source, self.value = source, value

    def attribute(self, lw: Lowerer, name: str, node: Any) -> Any:
        try:
            value = getattr(self.value, name)
        except AttributeError:
            raise lw.err(node, f"{type(self.value).__name__} has no attribute "
                         f"`{name}`.") from None
        if isinstance(value, types.MethodType) and value.__self__ is self.value:
            # a method: its `self` stays this captured object
            return types.MethodType(value.__func__, self)
        prop = next((c.__dict__[name] for c in type(self.value).__mro__
                     if name in c.__dict__), None)
        if isinstance(prop, property) and isinstance(prop.fget, types.FunctionType):
            # computed on access: its getter is differentiated through, self captured
            from .calls import call  # (calls imports this module)
            return call(lw, prop.fget, [self], {}, node)
        return _captured(lw, self.source.at(Attr(name)), value, node, recorded=False)


def free_name(lw: Lowerer, name: str, value: Any, node: Any) -> Any:
    """What lowering uses for free name ``name`` (resolved to ``value`` by :mod:`.resolve`,
    which recorded what it assumes about the value itself)."""
    if is_plain_object(value):
        where, kind = lw.scope.where(name)
        return CapturedObject(Source(where, kind, name), value)
    if not read_at_run_time(value) and type(value) not in (tuple, list, dict) \
            and not _is_record(value):
        return value
    where, kind = lw.scope.where(name)
    return _captured(lw, Source(where, kind, name), value, node, recorded=True)


def module_attribute(lw: Lowerer, module: Any, attr: str, node: Any) -> Any:
    """What lowering uses for ``module.attr``: a global of that module, read at run time
    when it is data. NumPy's and math's own attributes (functions, ``np.pi``) are fixed
    library facts: used as they are, with no guard."""
    try:
        value = getattr(module, attr)
    except AttributeError:
        raise lw.err(node, f"module {module.__name__} has no attribute `{attr}`.") from None
    if str(getattr(module, "__name__", "")).partition(".")[0] in _LIBRARIES \
            or getattr(module, "__dict__", {}).get(attr, _ABSENT) is not value:
        return value  # (a lazily loaded or computed attribute: not a global to re-read)
    source = Source(module.__dict__, "global", attr)
    return _captured(lw, source, value, node, recorded=False)


_LIBRARIES = frozenset({"numpy", "math", "cmath", "srcgrad", "builtins"})
_ABSENT = object()


def default(lw: Lowerer, fn: Any, param: str, value: Any, node: Any) -> Any:
    """What lowering uses for ``fn``'s parameter ``param`` left to its default ``value``
    (the identity of ``fn.__defaults__`` is a dependency already)."""
    if not read_at_run_time(value) and type(value) not in (tuple, list, dict) \
            and not _is_record(value):
        return value
    kwdefaults = getattr(fn, "__kwdefaults__", None) or {}
    if param in kwdefaults and kwdefaults[param] is value:
        source = Source(fn, "kwdefault", param)
    else:
        names = list(fn.__code__.co_varnames[:fn.__code__.co_argcount])
        defaults = fn.__defaults__ or ()
        source = Source(fn, "default", names.index(param) - (len(names) - len(defaults)),
                        name=param)
    return _captured(lw, source, value, node, recorded=False)


def _is_record(value: Any) -> bool:
    return isinstance(value, tuple) and hasattr(type(value), "_fields")


def capture(lw: Lowerer, source: Source, value: Any, node: Any) -> Any:
    """What lowering uses for ``value`` read from ``source`` (recording the dependency)."""
    return _captured(lw, source, value, node, recorded=False)


def step_all(value: Any, path: tuple[Any, ...]) -> Any:
    for key in path:
        value = step(value, key)
    return value


def _captured(lw: Lowerer, source: Source, value: Any, node: Any, recorded: bool) -> Any:
    """A run-time read of data; a container mirrored with its items captured in turn."""
    if not recorded:
        lw.ctx.deps.append(source.dependency(value))
    if read_at_run_time(value):
        return read(lw, source, value, source.label)
    if is_plain_object(value):
        return CapturedObject(source, value)
    if _is_record(value):  # a namedtuple: its items captured in turn (read by index)
        return type(value)(*[_captured(lw, source.at(i), v, node, False)
                             for i, v in enumerate(value)])
    if type(value) not in (tuple, list, dict):
        return value
    leaves = item_count(value)
    if leaves is None or leaves > MAX_ITEMS:
        if not _holds_data(value):
            lw.ctx.argument_containers[id(value)] = value  # never written into
            return value  # static items only: the container is used as it is
        raise lw.err(node, f"the captured {type(value).__name__} `{source.label}` holds "
                     f"arrays or floats among {'too many items' if leaves else 'keys'} "
                     "srcgrad cannot guard (at most "
                     f"{MAX_ITEMS} items with int or str keys).",
                     "Make it one array (np.stack / np.asarray at module level) or pass it "
                     "as an argument.")
    if type(value) is dict:
        mirror: Any = {k: _captured(lw, source.at(k), v, node, False) for k, v in value.items()}
    else:
        items = [_captured(lw, source.at(i), v, node, False) for i, v in enumerate(value)]
        mirror = tuple(items) if type(value) is tuple else items
    # a write into the mirror would be lost (the user's function changes the original)
    lw.ctx.argument_containers[id(mirror)] = mirror
    return mirror


def _holds_data(value: Any) -> bool:
    if type(value) in (tuple, list):
        return any(_holds_data(v) for v in value)
    if type(value) is dict:
        return any(_holds_data(v) for v in value.values())
    return read_at_run_time(value)

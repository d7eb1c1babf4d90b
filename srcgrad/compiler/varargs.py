"""Differentiating a function with ``*args``: one derived function per number of arguments.

``sg.grad(lambda *args: f(g(args[0]), *args[1:]))`` has no fixed parameter list, and the
whole compiler (abstract signatures, ``wrt``, the dispatcher's guards) works on one. So a
call with ``n`` positional arguments is compiled through a small generated function with
exactly those parameters (``def f(x, args_0, args_1, *, scale=...): return f(x, args_0,
args_1, scale=scale)``), whose call of ``f`` the frontend inlines with ``args`` bound to
the tuple of what was passed (frontend/calls.py). The number of arguments is thereby part
of the abstract signature, and API.md's ``wrt`` rules apply to the positional arguments
as passed (``wrt=0`` is the first one, whether named or in ``*args``; a name must be a
named parameter). ``sg.grad`` of such a derived function composes per count the same way.
``**kwargs`` parameters of the differentiated function itself are refused.

Called by ``api._derive``; the derived function is the one thin layer that picks the
count's version (a dict lookup per call).
"""

from __future__ import annotations

import functools
import inspect
import itertools
import linecache
from collections.abc import Callable
from typing import Any

from srcgrad.errors import SrcGradError

_counter = itertools.count()


def has_varargs(f: Any) -> bool:
    """``f`` (a plain function or lambda, or a derived one of such) takes ``*args``."""
    if getattr(f, "__srcgrad_varargs__", None) is not None:
        return True
    if not inspect.isfunction(f):
        return False
    return any(p.kind == p.VAR_POSITIONAL for p in inspect.signature(f).parameters.values())


class VarArgs:
    """The derived function of a ``*args`` function, by number of positional arguments."""

    def __init__(self, f: Any, transform: str, wrt: Any, optimize: bool, has_seed: bool,
                 derive: Callable[[Any, str, Any, bool], Any]) -> None:
        if inspect.isfunction(f) and any(p.kind == p.VAR_KEYWORD for p in
                                         inspect.signature(f).parameters.values()):
            raise SrcGradError(f"{f.__qualname__}: a **kwargs parameter of the differentiated "
                               "function is not supported (*args is).",
                               advice="Name its keyword parameters explicitly.")
        star = next((p.name for p in inspect.signature(f).parameters.values()
                     if p.kind == p.VAR_POSITIONAL), None) if inspect.isfunction(f) else None
        if star is not None and star in (wrt if isinstance(wrt, (tuple, list)) else (wrt,)):
            raise SrcGradError(f"sg.{transform}: wrt={star!r} names the *{star} parameter of "
                               f"{f.__qualname__}.",
                               advice="Choose its arguments by position, as they are passed "
                               "(wrt=1 is the second positional argument).")
        self.f, self.transform, self.wrt, self.optimize = f, transform, wrt, optimize
        self.has_seed = has_seed
        self.derive = derive
        self.versions: dict[int, Any] = {}

    def version(self, count: int) -> Any:
        """The derived function for ``count`` positional arguments (seed included)."""
        fn = self.versions.get(count)
        if fn is None:
            n = count - self.has_seed
            inner = getattr(self.f, "__srcgrad_varargs__", None)
            base = inner.version(n) if inner is not None else fixed_arity(self.f, n)
            fn = self.versions[count] = self.derive(base, self.transform, self.wrt,
                                                    self.optimize)
        return fn

    def function(self) -> Any:
        version = self.version

        @functools.wraps(self.f)
        def derived(*args: Any, **kwargs: Any) -> Any:
            return version(len(args))(*args, **kwargs)
        derived.__srcgrad_varargs__ = self  # type: ignore[attr-defined]
        name = getattr(self.f, "__name__", "f").replace("<lambda>", "lambda")
        derived.__name__ = derived.__qualname__ = f"{self.transform}_{name}"
        return derived


def fixed_arity(f: Any, n: int) -> Any:
    """A function of exactly ``n`` positional parameters that calls ``f`` with them (its
    named parameters not passed positionally, and its keyword-only ones, by keyword)."""
    params = list(inspect.signature(f).parameters.values())
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    star = next(p.name for p in params if p.kind == p.VAR_POSITIONAL)
    taken = {p.name for p in params}
    names = [p.name for p in positional[:n]]
    for i in range(n - len(names)):
        name = f"{star}_{i}"
        while name in taken:
            name += "_"
        names.append(name)
    keyword = [p for p in positional[n:] if p.kind == p.POSITIONAL_OR_KEYWORD] + \
        [p for p in params if p.kind == p.KEYWORD_ONLY]
    head = ", ".join(names + (["*"] + [p.name for p in keyword] if keyword else []))
    call = ", ".join(names + [f"{p.name}={p.name}" for p in keyword])
    fname = getattr(f, "__name__", "f")
    fname = fname if fname.isidentifier() else "f"
    filename = f"<srcgrad: {fname} with {n} positional arguments #{next(_counter)}>"
    text = f"def {fname}({head}):\n    return _sg_f({call})\n"
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
    namespace: dict[str, Any] = {"_sg_f": f}
    exec(compile(text, filename, "exec"), namespace)
    shim = namespace[fname]
    shim.__kwdefaults__ = {p.name: p.default for p in keyword
                           if p.default is not p.empty} or None
    return shim


def by_count(f: Any, make: Callable[[Any], Any]) -> Any:
    """``make`` (``sg.jacobian``, ``sg.hessian``) applied per number of positional
    arguments to ``f`` of that many parameters."""
    versions: dict[int, Any] = {}
    inner = getattr(f, "__srcgrad_varargs__", None)

    @functools.wraps(f)
    def derived(*args: Any, **kwargs: Any) -> Any:
        fn = versions.get(len(args))
        if fn is None:
            n = len(args)
            base = inner.version(n) if inner is not None else fixed_arity(f, n)
            fn = versions[n] = make(base)
        return fn(*args, **kwargs)
    return derived

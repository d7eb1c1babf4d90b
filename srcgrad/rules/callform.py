"""Call forms: how a call such as ``np.sum(x, 1, keepdims=True)`` maps onto a rule's names.

A rule names its inputs (``x``) and static parameters (``axis``, ``keepdims``); the
runtime (a NumPy function called on a Tensor), the compiler (a call in the user's source)
and the tests all need to turn a concrete call into that environment of names, and back.
A rule's *form* is the text of a Python parameter list, in the public function's own
argument order, e.g. ``"x, axis=None, *, keepdims=False"`` for ``np.sum``. It lists only
what srcgrad supports: an unsupported argument (``out=``, ``where=``) is a clear
``TypeError`` rather than a silently wrong derivative.

- ``bind(args, kwargs)`` -> ``{"x": ..., "axis": 1, "keepdims": True}`` (defaults filled in);
- ``call_args(env)`` -> ``(args, kwargs)`` to call the implementation again: positional
  parameters positionally, ``*name`` spread, keyword-only ones by keyword.

Binding is hand-written rather than ``inspect.Signature.bind`` because the runtime binds
on every operation and ``inspect`` costs several microseconds a call.
"""

from __future__ import annotations

import ast
import inspect
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

_REQUIRED = object()  # marks a parameter without default


@dataclass(frozen=True)
class CallForm:
    """A parsed parameter list: positional names, an optional ``*rest``, keyword-only names."""

    func: str  # the rule's name, for messages
    text: str
    positional: tuple[str, ...]
    star: str | None
    keyword: tuple[str, ...]
    defaults: Mapping[str, Any]

    @property
    def names(self) -> tuple[str, ...]:
        return (*self.positional, *((self.star,) if self.star else ()), *self.keyword)

    def bind(self, args: Sequence[Any], kwargs: Mapping[str, Any]) -> dict[str, Any]:
        """The environment of names for a call ``func(*args, **kwargs)``."""
        env: dict[str, Any] = {}
        npos = len(self.positional)
        for name, value in zip(self.positional, args):
            env[name] = value
        if len(args) > npos:
            if self.star is None:
                raise TypeError(
                    f"{self.func}() takes at most {npos} positional arguments but "
                    f"{len(args)} were given (srcgrad supports {self.func}({self.text}))"
                )
            env[self.star] = list(args[npos:])
        elif self.star is not None:
            env[self.star] = []
        for name, value in kwargs.items():
            if name in env or (name == self.star):
                raise TypeError(f"{self.func}() got multiple values for argument {name!r}")
            if name not in self.defaults:
                raise TypeError(
                    f"{self.func}() got an unexpected keyword argument {name!r} "
                    f"(srcgrad supports {self.func}({self.text}))"
                )
            env[name] = value
        for name, default in self.defaults.items():
            if name not in env:
                if default is _REQUIRED:
                    raise TypeError(f"{self.func}() missing required argument {name!r}")
                env[name] = default
        return env

    def call_args(self, env: Mapping[str, Any]) -> tuple[list[Any], dict[str, Any]]:
        """``(args, kwargs)`` that call the implementation with the values in ``env``."""
        args = [env[n] for n in self.positional]
        if self.star is not None:
            args.extend(env[self.star])
        return args, {n: env[n] for n in self.keyword}


def parse_form(func: str, text: str) -> CallForm:
    """Parse ``text`` (a Python parameter list; defaults must be literals)."""
    try:
        tree = ast.parse(f"def _({text}): pass")
    except SyntaxError as exc:
        raise ValueError(f"rule {func!r}: bad call form {text!r}: {exc.msg}") from None
    fn = tree.body[0]
    assert isinstance(fn, ast.FunctionDef)
    a = fn.args
    if a.kwarg is not None:
        raise ValueError(f"rule {func!r}: a call form cannot take **{a.kwarg.arg}")
    positional = tuple(p.arg for p in (*a.posonlyargs, *a.args))
    defaults: dict[str, Any] = {n: _REQUIRED for n in positional}
    for name, node in zip(positional[len(positional) - len(a.defaults):], a.defaults):
        defaults[name] = ast.literal_eval(node)
    keyword = tuple(p.arg for p in a.kwonlyargs)
    for p, node in zip(a.kwonlyargs, a.kw_defaults):
        defaults[p.arg] = _REQUIRED if node is None else ast.literal_eval(node)
    star = a.vararg.arg if a.vararg is not None else None
    return CallForm(func, text, positional, star, keyword, defaults)


def form_from_signature(func: str, signature: inspect.Signature) -> CallForm:
    """The form of a Python function (``sg.defvjp``'s ``fn``); defaults may be any object."""
    positional: list[str] = []
    keyword: list[str] = []
    star = None
    defaults: dict[str, Any] = {}
    for p in signature.parameters.values():
        if p.kind is p.VAR_KEYWORD:
            raise ValueError(f"{func} takes **{p.name}, which srcgrad cannot differentiate "
                             "through; give it explicit keyword parameters")
        if p.kind is p.VAR_POSITIONAL:
            star = p.name
            continue
        (keyword if p.kind is p.KEYWORD_ONLY else positional).append(p.name)
        defaults[p.name] = _REQUIRED if p.default is p.empty else p.default
    return CallForm(func, str(signature)[1:-1], tuple(positional), star, tuple(keyword),
                    defaults)


def default_form(func: str, names: Sequence[str]) -> CallForm:
    """The form ``name1, name2, ...``: every name positional and required."""
    return parse_form(func, ", ".join(names))

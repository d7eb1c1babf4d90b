"""The compiler's public entry points: ``grad``, ``value_and_grad``, ``vjp``, ``source``.

``sg.grad(f)`` returns a *derived function*: a small real Python function (its text is in
``linecache``, so ``inspect`` works on it) that computes the abstract signature of its
arguments and calls the emitted derivative compiled for that signature, compiling it on
first use (:mod:`.cache`). It carries ``__srcgrad__``, the :class:`.derivation.Derivation`
that knows ``f``, the transform and options and can produce the derivative IR, so
``sg.grad`` of a function that calls a derived function inlines that IR instead of
re-parsing text. This module is the public surface only: what a derivation is and how it
is compiled lives in :mod:`.derivation`.

This dispatcher is the first step toward DESIGN.md principle 7 (the emitted function itself
with type guards inside): today every call pays one signature computation and one cache
lookup in Python before the emitted code runs.
"""

from __future__ import annotations

import inspect
from collections.abc import Sequence
from typing import Any

from srcgrad.errors import SrcGradError

from . import cache, varargs
from .ad.forward import JVP, JVP_ROWS
from .ad.reverse import GRAD, VALUE_AND_GRAD, VJP
from .backend.annotate import annotate
from .derivation import Derivation
from .ir import types as T
from .ir.dot import to_dot
from .ir.printer import print_function
from .jacobians import jacobian_of
from .kind_check import check_ranks
from .primitives import Checkpointed, checkpoint, stop_gradient
from .signature import types_of
from .tree_text import parse_kind, split_top
from .trees import tree_leaves, tree_map

__all__ = ["grad", "value_and_grad", "vjp", "jvp", "jacobian", "hessian", "source", "render",
           "stop_gradient", "checkpoint", "clear_cache", "tree_map", "tree_leaves"]


def clear_cache() -> None:
    """Forget every compiled derivative.

    Derived functions recompile on their next call. Rarely needed: a derived function
    already recompiles when a callee is rebound, a captured value changes type, or a rule
    is registered.

    Returns:
        None.

    Example::

        import numpy as np
        import srcgrad as sg

        df = sg.grad(lambda x: np.sum(x ** 2))
        print(df(np.ones(2)))
        sg.clear_cache()
        print(df(np.ones(2)))          # compiled again
    """
    cache.clear_cache()


def grad(f: Any = None, *, wrt: Any = 0, optimize: bool = True) -> Any:
    """The gradient of ``f``: a function ``df(*args, **kwargs)`` with ``f``'s parameters.

    srcgrad reads ``f``'s source, writes its derivative as Python source (print it with
    ``sg.source(df, *args)`` or ``srcgrad show``), compiles it once per kind of arguments
    and caches it. Usable as ``@sg.grad`` or ``@sg.grad(wrt=...)``. ``f`` must return one
    element (a float, a 0-d or size-1 array); use ``sg.vjp`` or ``sg.jacobian`` otherwise.

    Args:
        f: a Python function (its source must be readable: defined in a file).
        wrt: the argument(s) to differentiate: a position (int), a parameter name (str),
            or a tuple of those (then the gradient is a tuple). Default: 0.
        optimize: run the optimisation passes on the emitted code (default True).

    Returns:
        ``df``: called like ``f``, it returns the gradient with the type, shape and dtype
        of the ``wrt`` argument (a float for a float; the same containers for a dict,
        list, dataclass ... of arrays). Raises ``sg.SrcGradError`` at the user's line for
        what it cannot differentiate.

    Example::

        import numpy as np
        import srcgrad as sg

        def loss(w, x):
            return np.sum(np.tanh(x @ w) ** 2)

        dloss = sg.grad(loss)                     # with respect to w
        w, x = np.array([0.5, -0.5]), np.array([[1.0, 2.0], [3.0, 4.0]])
        print(dloss(w, x))                        # shaped like w
        dw, dx = sg.grad(loss, wrt=("w", "x"))(w, x)
    """
    return _derive(f, GRAD, wrt, optimize)


def value_and_grad(f: Any = None, *, wrt: Any = 0, optimize: bool = True) -> Any:
    """The value and the gradient of ``f`` in one pass: ``vg(*args) -> (f(*args), grad)``.

    Args:
        f: a Python function whose result has one element.
        wrt: position(s) or name(s) of the argument(s) to differentiate (default 0).
        optimize: run the optimisation passes (default True).

    Returns:
        ``vg``: called like ``f``, returns ``(value, gradient)``; the gradient as ``sg.grad``
        returns it.

    Example::

        import numpy as np
        import srcgrad as sg

        def f(x):
            return np.sum(np.exp(x) * x)

        value, gradient = sg.value_and_grad(f)(np.array([0.0, 1.0]))
        print(value, gradient)                    # gradient = exp(x) * (1 + x)
    """
    return _derive(f, VALUE_AND_GRAD, wrt, optimize)


def vjp(f: Any = None, *, wrt: Any = 0, optimize: bool = True) -> Any:
    """Reverse mode for any result: ``pb(*args, seed, **kwargs)`` -> cotangent(s) of ``wrt``.

    Args:
        f: a Python function (any result: array, tuple, container).
        wrt: position(s) or name(s) of the argument(s) to differentiate (default 0).
        optimize: run the optimisation passes (default True).

    Returns:
        ``pb``: takes ``f``'s positional arguments, then ``seed`` (shaped like ``f``'s
        result; a tuple for a tuple result), and returns ``seed`` pulled back to the
        ``wrt`` argument(s) (the vector-Jacobian product). Pass ``f``'s defaulted
        arguments by keyword.

    Example::

        import numpy as np
        import srcgrad as sg

        def f(x):
            return np.sin(x) * x

        x = np.array([0.5, 1.0])
        print(sg.vjp(f)(x, np.ones(2)))           # cos(x) * x + sin(x)
    """
    return _derive(f, VJP, wrt, optimize)


def jvp(f: Any = None, *, wrt: Any = 0, optimize: bool = True) -> Any:
    """Forward mode, emitted as source: ``fw(*args, tangent, **kwargs) -> (value, jvp)``.

    Args:
        f: a Python function.
        wrt: position(s) or name(s) of the argument(s) the tangent is for (default 0).
        optimize: run the optimisation passes (default True).

    Returns:
        ``fw``: takes ``f``'s positional arguments, then ``tangent`` (shaped like the
        ``wrt`` argument; a tuple for a tuple ``wrt``), and returns ``(f(*args), J @
        tangent)``, the value and the directional derivative (summed over a tuple ``wrt``).

    Example::

        import numpy as np
        import srcgrad as sg

        def f(x):
            return np.sin(x) * x

        value, tangent_out = sg.jvp(f)(np.array([0.5, 1.0]), np.array([1.0, 0.0]))
        print(value, tangent_out)                 # the first column of the Jacobian
    """
    return _derive(f, JVP, wrt, optimize)


def jacobian(f: Any = None, *, wrt: Any = 0) -> Any:
    """The Jacobian of ``f``: ``J(*args, **kwargs)`` -> array of shape ``out.shape + x.shape``.

    Reverse mode (one ``vjp`` pass per result element) when the result is smaller than the
    input, else forward mode: one batched pass whose tangent carries every input element's
    direction as a row (a pass per input element where a primitive has no batched form).

    Args:
        f: a Python function.
        wrt: position(s) or name(s) of the argument(s) (default 0).

    Returns:
        ``J``: called like ``f``, returns the dense Jacobian (a tuple of blocks for a tuple
        ``wrt``).

    Example::

        import numpy as np
        import srcgrad as sg

        def f(x):
            return np.array([x[0] * x[1], np.sin(x[0])])

        print(sg.jacobian(f)(np.array([1.0, 2.0])))   # shape (2, 2)
    """
    if f is None:
        return lambda g: jacobian(g, wrt=wrt)
    if varargs.has_varargs(f):
        return varargs.by_count(f, lambda g: jacobian(g, wrt=wrt))
    return jacobian_of(f, jvp(f, wrt=wrt), vjp(f, wrt=wrt), wrt, _derive(f, JVP_ROWS, wrt, True))


def _forward_jacobian(f: Any, wrt: Any) -> Any:
    """The Jacobian of ``f`` always in forward mode (for forward-over-reverse Hessians)."""
    return jacobian_of(f, jvp(f, wrt=wrt), None, wrt, _derive(f, JVP_ROWS, wrt, True))


def hessian(f: Any = None, *, wrt: Any = 0) -> Any:
    """The Hessian of ``f``: ``H(*args, **kwargs)`` -> array of shape ``x.shape + x.shape``.

    Forward mode over the reverse-mode gradient, in one batched pass (the tangent carries a
    row per input element; a pass per element where a primitive has no batched form).

    Args:
        f: a Python function whose result has one element.
        wrt: position(s) or name(s) of the argument(s) (default 0).

    Returns:
        ``H``: called like ``f``, returns the dense Hessian (a nested tuple of blocks for a
        tuple ``wrt``; nested dicts for a dict argument).

    Example::

        import numpy as np
        import srcgrad as sg

        def energy(x):
            return np.sum(x ** 3) + x[0] * x[1]

        print(sg.hessian(energy)(np.array([1.0, 2.0])))   # [[6, 1], [1, 12]]
    """
    if f is None:
        return lambda g: hessian(g, wrt=wrt)
    if varargs.has_varargs(f):
        return varargs.by_count(f, lambda g: hessian(g, wrt=wrt))
    if isinstance(wrt, (tuple, list)):
        rows = [_forward_jacobian(grad(f, wrt=wi), tuple(wrt)) for wi in wrt]
        return lambda *args, **kwargs: tuple(row(*args, **kwargs) for row in rows)
    return _forward_jacobian(grad(f, wrt=wrt), wrt)


# Called inside a function being differentiated, these four run at compile time and their
# derived functions' IR is inlined; jacobian/hessian return plain closures and are refused
# there (frontend/derived.py).
for _transform in (grad, value_and_grad, vjp, jvp, jacobian, hessian):
    _transform.__srcgrad_transform__ = (  # type: ignore[attr-defined]
        "refused" if _transform in (jacobian, hessian) else "composes")


def _derive(f: Any, transform: str, wrt: Any, optimize: bool) -> Any:
    if f is None:
        return lambda g: _derive(g, transform, wrt, optimize)
    if not callable(f):
        raise SrcGradError(f"sg.{transform} needs a function, got {type(f).__name__}.")
    if isinstance(f, Checkpointed):  # all of it recomputed is all of it: nothing to save
        f = f.fn
    if varargs.has_varargs(f):  # one version per number of positional arguments
        return varargs.VarArgs(f, transform, wrt, optimize, transform in (VJP, JVP),
                               lambda g, t, w, o: Derivation(g, t, w, o).function).function()
    return Derivation(f, transform, wrt, optimize).function


def source(df: Any, *example_args: Any) -> str:
    """The Python source srcgrad wrote for derived function ``df``, as one module text.

    Args:
        df: a function made by ``sg.grad``, ``value_and_grad``, ``vjp`` or ``jvp``.
        *example_args: arguments like the ones you will pass (their kinds select the
            specialised version; the seed or tangent may be left out). None: the generic
            version.

    Returns:
        str: imports, then every emitted function (also those for called user functions).

    Example::

        import numpy as np
        import srcgrad as sg

        def f(x):
            return np.sum(np.sin(x) ** 2)

        print(sg.source(sg.grad(f), np.ones(3)))
    """
    d = _derivation(df, len(example_args))
    if not example_args:
        return d.entry(None).text
    n = len(d.param_names)
    if len(example_args) in (n, n + d.has_seed):  # the seed/tangent may be left out
        args = list(example_args)
    else:
        args = d.bind([*example_args, None] if d.has_seed else example_args, {})
    return d.entry_for(args[:n]).text


def _derivation(df: Any, count: int = 0) -> Derivation:
    several = getattr(df, "__srcgrad_varargs__", None)
    if several is not None:  # (of a *args function: the version for these arguments)
        df = several.version(count)
    d = getattr(df, "__srcgrad__", None)
    if not isinstance(d, Derivation):
        raise SrcGradError("sg.source needs a function made by sg.grad, sg.value_and_grad or "
                           "sg.vjp.")
    return d


def render(f: Any, *, wrt: Any = None, mode: str | None = None, optimize: bool = True,
           types: Sequence[str] | None = None, what: str = "source") -> str:
    """The emitted module text (``what="source"``), printed IR (``"ir"``), the text
    annotated with ``f``'s source (``"annotate"``) or the IR as Graphviz DOT (``"graph"``) of
    ``f``'s derivative (``wrt`` default 0, ``mode`` default reverse); ``types`` are argument
    kind strings (see :func:`.ir.types.parse`). For a function made by ``sg.grad`` (and the
    other transforms), ``f``'s own code, under its own name."""
    if mode not in (None, "reverse", "forward"):
        raise SrcGradError(f"unknown mode {mode!r}; expected 'reverse' or 'forward'.")
    if what not in ("source", "ir", "annotate", "graph"):
        raise SrcGradError(f"unknown what={what!r}; expected 'source', 'ir', 'annotate' or "
                           "'graph'.")
    derived = getattr(f, "__srcgrad__", None)
    if isinstance(derived, Derivation):
        if wrt is not None or mode is not None:
            raise SrcGradError(
                f"{derived.function.__name__} is already a derivative (of "
                f"{derived.function.__name__.split('_', 1)[-1]}, made by sg.{derived.transform})"
                "; --wrt and --mode choose what to differentiate in a plain function.",
                advice="Leave them out to see its code, or show the undecorated function.")
        d = derived
        if optimize != d.optimize:
            d = Derivation(d.f, d.transform, d.wrt if d.tuple_wrt else d.wrt[0], optimize)
    else:
        d = Derivation(f, JVP if mode == "forward" else GRAD, 0 if wrt is None else wrt,
                       optimize)
    arg_types = None
    if types is not None:
        try:
            if isinstance(types, str):
                types = split_top(types)
            arg_types = [parse_kind(t) for t in types]
        except ValueError as e:
            raise SrcGradError(str(e)) from None
        arg_types = _complete_types(d.f, arg_types, d.param_names)
        if d.inner is None:
            check_ranks(d.f, d.param_names, arg_types, list(types))
    if d is not derived:
        primal, _ = d.primal_ir(arg_types)
        if primal.meta.get("tuple_result") and mode != "forward":
            d = Derivation(f, VJP, 0 if wrt is None else wrt, optimize)
    entry = d.entry(arg_types)
    if what == "annotate":
        return annotate(entry.text, entry.ir.source_lines, entry.ir.filename)
    if what == "graph":
        return to_dot(entry.ir)
    return print_function(entry.ir) if what == "ir" else entry.text


def _complete_types(f: Any, given: list[T.AType], names: list[str]) -> list[T.AType]:
    """Kinds for every parameter: those given, then those of the remaining defaults."""
    params = list(inspect.signature(f).parameters.values())
    if len(given) > len(names):
        raise SrcGradError(f"{len(given)} argument kinds given for {len(names)} parameters "
                           f"({', '.join(names)}).")
    out = list(given)
    for p in params[len(given):]:
        if p.default is p.empty:
            raise SrcGradError(f"{len(given)} argument kinds given for {len(names)} parameters "
                               f"({', '.join(names)}); `{p.name}` has no default.",
                               advice="Give one kind per parameter without a default.")
        out.append(types_of([p.default])[0])
    return out

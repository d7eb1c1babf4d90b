"""The compiler's public entry points: ``grad``, ``value_and_grad``, ``vjp``, ``source``.

``sg.grad(f)`` returns a *derived function*: a small real Python function (its text is in
``linecache``, so ``inspect`` works on it) that computes the abstract signature of its
arguments and calls the emitted derivative compiled for that signature, compiling it on
first use (:mod:`.cache`). It carries ``__srcgrad__``, the :class:`Derivation` that knows
``f``, the transform and options and can produce the derivative IR, so ``sg.grad`` of a
function that calls a derived function inlines that IR instead of re-parsing text.

This dispatcher is the first step toward DESIGN.md principle 7 (the emitted function itself
with type guards inside): today every call pays one signature computation and one cache
lookup in Python before the emitted code runs.
"""

from __future__ import annotations

import inspect
import linecache
from collections.abc import Sequence
from typing import Any

from srcgrad.errors import SrcGradError
from srcgrad.rules import generation
from srcgrad.rules.complex_parts import RealValuesOnly

from . import cache, varargs
from . import structure as S
from .ad.forward import JVP, JVP_ROWS, forward
from .ad.reverse import GRAD, VALUE_AND_GRAD, VJP, ReverseSpec, reverse
from .ad.tangent_grad import tangent_grad
from .backend.annotate import annotate
from .backend.compile import compile_module
from .backend.emit import emit_function, module_text
from .boundary import Boundary, is_tree
from .dispatcher import Dispatcher
from .frontend import lower, parameter_names
from .frontend.recursion import call_directly
from .frontend.resolve import Dependency
from .internal_errors import compiler_boundary
from .ir import types as T
from .ir.builder import clone_function
from .ir.core import REVERSE_PAIR, Function
from .ir.dot import to_dot
from .ir.printer import print_function
from .ir.verify import verify
from .jacobians import jacobian_of
from .kind_check import check_ranks
from .pairs import listing
from .passes.pipeline import for_emission
from .passes.pipeline import optimize as run_passes
from .primitives import Checkpointed, checkpoint, stop_gradient
from .rows import Unbatchable
from .signature import key_of, types_of
from .trees import tree_leaves, tree_map

__all__ = ["grad", "value_and_grad", "vjp", "jvp", "jacobian", "hessian", "source", "render",
           "stop_gradient", "checkpoint", "clear_cache", "tree_map", "tree_leaves"]

_TITLES = {GRAD: "Gradient", VALUE_AND_GRAD: "Value and gradient", VJP: "Vector-Jacobian product",
           JVP: "Jacobian-vector product", JVP_ROWS: "Jacobian-matrix product"}


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
                types = S.split_top(types)
            arg_types = [S.parse_kind(t) for t in types]
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


def point_to_user_line(error: BaseException, f: Any) -> None:
    """Add a note naming the user's line whose emitted code raised ``error`` (3.11+)."""
    if not hasattr(error, "add_note") or getattr(error, "_srcgrad_noted", False):
        return
    found = _user_line(error, f)
    if found is not None:
        where, number, source_text = found
        error.add_note(f"srcgrad: raised by the derivative code emitted for "
                       f"{where}:{number}: {source_text}")
        error._srcgrad_noted = True  # type: ignore[attr-defined]


def _user_line(error: BaseException, f: Any) -> tuple[str, int, str] | None:
    """``(user's file, line, its text)`` of the emitted code that raised ``error``."""
    tb, lineno, filename = error.__traceback__, None, None
    while tb is not None:
        code = tb.tb_frame.f_code
        if code.co_filename.startswith("<srcgrad:") and "# line " in "".join(
                linecache.getlines(code.co_filename)):
            filename, lineno = code.co_filename, tb.tb_lineno
        tb = tb.tb_next
    if lineno is None:
        return None
    for text in reversed(linecache.getlines(filename)[:lineno]):
        stripped = text.strip()
        if stripped.startswith("# line "):
            number, _, source_text = stripped[len("# line "):].partition(": ")
            where = getattr(getattr(f, "__code__", None), "co_filename", "<unknown>")
            return where, int(number), source_text
    return None


def refuse_real_only(error: BaseException, f: Any) -> None:
    """A rule found at run time that a value is complex (``np.linalg.eig`` of a matrix
    with complex eigenvalues): raise it as the refusal it is, at the user's line."""
    if not isinstance(error, RealValuesOnly):
        return
    found = _user_line(error, f)
    where = {} if found is None else {"filename": found[0], "lineno": found[1]}
    raise SrcGradError(str(error), advice=error.advice, **where) from error


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


class Derivation:
    """``f`` + transform + options: compiles and caches the emitted derivative per signature."""

    def __init__(self, f: Any, transform: str, wrt: Any, optimize: bool) -> None:
        self.f = f
        self.transform = transform
        self.optimize = bool(optimize)
        inner = getattr(f, "__srcgrad__", None)
        self.inner: Derivation | None = inner if isinstance(inner, Derivation) else None
        if self.inner is not None:
            self.param_names = list(self.inner.signature.parameters)
        else:
            self.param_names = parameter_names(f)
        self.wrt, self.tuple_wrt = _normalize_wrt(wrt, self.param_names, transform)
        self.has_seed = transform in (VJP, JVP, JVP_ROWS)  # a seed / tangent: last positional
        # set by frontend.recursion for the vjp a recursive call's adjoint calls
        self.trusted_seed = False
        self._defaults = (getattr(f, "__defaults__", None), getattr(f, "__kwdefaults__", None))
        self.signature = self._signature()
        self.function = self._make_function()

    # --- the function users call --------------------------------------------------
    def _signature(self) -> inspect.Signature:
        base = self.inner.signature if self.inner is not None else inspect.signature(self.f)
        params = list(base.parameters.values())
        if self.has_seed:  # seed: last positional; defaulted parameters by keyword
            required = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
                        and p.default is p.empty]
            rest = [p.replace(kind=p.KEYWORD_ONLY) for p in params if p not in required]
            seed = inspect.Parameter(self.seed_name, inspect.Parameter.POSITIONAL_OR_KEYWORD)
            params = [*required, seed, *rest]
        return inspect.Signature(params)

    def _make_function(self) -> Any:
        fname = getattr(self.f, "__name__", None) or getattr(
            getattr(self.f, "func", None), "__name__", None) or type(self.f).__name__
        fname = fname.replace("<lambda>", "lambda")
        name = f"{self.transform}_{fname}"
        what = ", ".join(self.param_names[i] for i in self.wrt)
        doc = (f"{_TITLES[self.transform]} of {fname} w.r.t. {what}, made by srcgrad. "
               f"The code it runs: sg.source({name}, *args).")
        # the guard re-reads f.__defaults__ (a partial has none: its keywords are fixed)
        holder = self.f if hasattr(self.f, "__defaults__") else _NO_DEFAULTS
        self.dispatcher = Dispatcher(name, doc, self.signature, self.call_names, self.slow,
                                     self.note, self.current_defaults, holder)
        fn = self.dispatcher.function
        fn.__srcgrad__ = self
        fn.__signature__ = self.signature
        fn.__qualname__ = name
        return fn

    @property
    def seed_name(self) -> str:
        name = "tangent" if self.transform in (JVP, JVP_ROWS) else "seed"
        while name in self.param_names:  # sg.vjp(sg.vjp(f)): the inner one has a seed
            name += "_"
        return name

    @property
    def call_names(self) -> list[str]:
        return [*self.param_names, self.seed_name] if self.has_seed else list(self.param_names)

    def current_defaults(self) -> dict[str, Any]:
        """Parameter name -> ``f``'s current default (it may have been changed)."""
        defaults = (getattr(self.f, "__defaults__", None), getattr(self.f, "__kwdefaults__", None))
        if any(a is not b for a, b in zip(defaults, self._defaults)):
            self._defaults = defaults
            self.signature = self._signature()
            if hasattr(self, "function"):
                self.function.__signature__ = self.signature
        return {p.name: p.default for p in self.signature.parameters.values()
                if p.default is not p.empty}

    def bind(self, args: Sequence[Any], kwargs: dict[str, Any]) -> list[Any]:
        self.current_defaults()
        try:
            bound = self.signature.bind(*args, **kwargs)
        except TypeError as e:
            raise SrcGradError(f"{self.function.__name__}: {e}") from None
        bound.apply_defaults()
        return [bound.arguments[n] for n in self.call_names]

    def key(self, primal: Sequence[Any]) -> tuple[Any, ...]:
        """The abstract signature."""
        return key_of(primal)

    def cache_key(self, signature: Any) -> tuple[Any, ...]:
        """The cache key: everything that changes the emitted code or its result's form
        (``wrt=1`` gives a bare gradient, ``wrt=(1,)`` a 1-tuple: hence ``tuple_wrt``)."""
        key = (self.transform, self.wrt, self.tuple_wrt, self.optimize, signature)
        return (*key, "trusted_seed") if self.trusted_seed else key

    def slow(self, *args: Any) -> Any:
        """A call no compiled version's guards accepted: compile one, install it, run it."""
        primal = args[:len(self.param_names)]
        entry = cache.lookup(self.f, self.cache_key(self.key(primal)))
        if entry is None:
            entry = self.entry_for(primal)
        self.dispatcher.add(self.key(primal), entry)
        try:
            if entry.boundary is not None:
                return entry.boundary.call(entry.fn, args)
            return entry.fn(*args)
        except Exception as e:
            self.note(e)
            raise

    def note(self, error: BaseException) -> None:
        point_to_user_line(error, self.f)
        refuse_real_only(error, self.f)

    # --- compiling -------------------------------------------------------------------
    def entry_for(self, primal_args: Sequence[Any]) -> cache.Entry:
        arg_types = types_of(primal_args)
        for i in self.wrt:
            t = arg_types[i]
            if is_tree(t):
                if not any(not leaf.is_integral for leaf in S.leaf_types(t)):
                    raise SrcGradError(
                        f"cannot differentiate with respect to `{self.param_names[i]}`: the "
                        f"{S.describe_tree(t)} has no float or array leaf.",
                        advice="Put float values (e.g. 2.0) or float arrays in it, or leave "
                        "it out of wrt.")
                continue
            if t.is_integral:
                raise SrcGradError(
                    f"cannot differentiate with respect to `{self.param_names[i]}`: it is "
                    f"{_not_differentiable(primal_args[i], t)}.",
                    advice="Pass a float (e.g. 2.0) or a float array, or leave it out of wrt.")
            if t.is_complex or type(primal_args[i]) is complex:
                raise SrcGradError(
                    f"cannot differentiate with respect to `{self.param_names[i]}`: it is "
                    f"complex ({'a Python complex' if t.dtype is None else t.dtype}), and "
                    "srcgrad differentiates real values only.",
                    advice="Pass its real and imaginary parts as two float arguments "
                    "(np.real(z), np.imag(z)) and build the complex value from them outside "
                    "the differentiated function.")
        entry = self.compile(arg_types)
        cache.store(self.f, self.cache_key(self.key(primal_args)), entry)
        return entry

    def entry(self, arg_types: list[T.AType] | None) -> cache.Entry:
        """The entry for abstract types (None: the generic version)."""
        key = self.cache_key("generic" if arg_types is None else tuple(arg_types))
        entry = cache.lookup(self.f, key)
        if entry is None:
            entry = self.compile(arg_types)
            cache.store(self.f, key, entry)
        return entry

    def inline_ir(self, arg_types: list[T.AType] | None = None) -> Function:
        """The derivative IR for inlining into a caller being differentiated: specialised
        for ``arg_types`` (one per parameter of ``f``) when the caller knows them (what
        rules resolved from types, such as a norm's vector-or-matrix axis, stays known), else
        the generic version. Its parameters are ``call_names``, in that order."""
        return self.entry(arg_types).ir

    def primal_ir(self, arg_types: list[T.AType] | None
                  ) -> tuple[Function, list[Dependency]]:
        if self.inner is not None:
            inner_types = None
            if arg_types is not None:  # the inner version for these types: knowing them
                by_name = dict(zip(self.param_names, arg_types))  # keeps it precise
                inner_types = [by_name[n] for n in self.inner.param_names]
            inner = self.inner.entry(inner_types)
            ir, _ = clone_function(inner.ir)
            # the inner IR takes (params..., seed); ours are in the inner signature's order
            # (seed before defaulted parameters), which wrt positions refer to. A structured
            # parameter is a group of leaf parameters (see .boundary)
            groups = [[p] for p in ir.params]
            if inner.boundary is not None:
                b = inner.boundary
                groups = [ir.params[b.starts[i]:b.starts[i] + b.counts[i]]
                          for i in range(len(b.kinds))] + [[p] for p in ir.params[b.n_ir:]]
            ir.params = [p for n in self.param_names
                         for p in groups[self.inner.call_names.index(n)]]
            return ir, list(inner.deps)  # what the inner IR assumed (captured kinds)
        return lower(self.f, arg_types)

    def compile(self, arg_types: list[T.AType] | None) -> cache.Entry:
        gen = generation()
        with compiler_boundary(self.f):
            boundary = None
            wrt, tuple_wrt = self.wrt, self.tuple_wrt
            if arg_types is not None and self.inner is not None and self.inner.has_seed:
                # the inner derivative reads its seed / tangent as one (nested tuple) value
                arg_types = [T.ANY if is_tree(t) and n == self.inner.seed_name else t
                             for n, t in zip(self.param_names, arg_types)]
            if arg_types is not None and any(is_tree(t) for t in arg_types):
                boundary = Boundary(list(arg_types), self.wrt, self.tuple_wrt, self.transform)
                wrt = boundary.leaf_wrt()  # the IR sees only leaves
                tuple_wrt = True if boundary.rebuilds else self.tuple_wrt
            primal, deps = self.primal_ir(arg_types)
            verify(primal)
            result = primal.meta.get("result_structure")
            if result is not None and self.transform in (VJP, JVP):
                if boundary is None:  # flat arguments, a structured result
                    kinds = list(arg_types) if arg_types is not None else \
                        [T.ANY] * len(self.param_names)
                    boundary = Boundary(kinds, self.wrt, self.tuple_wrt, self.transform)
                boundary.result = result
            if self.transform == JVP_ROWS and (boundary is not None or result is not None):
                raise Unbatchable("structured arguments or results are not batched")
            if self.transform in (JVP, JVP_ROWS):
                derived = forward(primal, wrt, tuple_wrt, batched=self.transform == JVP_ROWS)
            else:
                spec = ReverseSpec(wrt, tuple_wrt, self.transform, self.trusted_seed)
                derived = tangent_grad(primal, spec)
                from_reverse = derived is None
                derived = derived or reverse(primal, spec)
            verify(derived)
            emitted_ir = derived
            if self.transform not in (JVP, JVP_ROWS) and from_reverse \
                    and _calls_itself(primal):
                # the code to run calls the callees' own forward sweeps and adjoints
                # (.pairs); the IR composed on keeps their rules
                emitted_ir = reverse(primal, spec, pairs=True)
                verify(emitted_ir)
            # what the derived IR returns, for a transform composed on it (grad of grad over a
            # dict): the gradients' tree, when they are rebuilt into structures
            derived.meta.pop("result_structure", None)
            emitted_ir.meta.pop("result_structure", None)
            if boundary is not None and boundary.rebuilds and self.transform in (GRAD, VJP):
                derived.meta["result_structure"] = boundary.gradient_tree()
            elif boundary is not None and boundary.rebuilds and self.transform == VALUE_AND_GRAD:
                # (value, gradients): the value is one leaf, then the gradients' tree
                derived.meta["result_structure"] = (
                    "tuple", (("leaf", T.ANY), boundary.gradient_tree()))
            if emitted_ir is not derived:
                emitted_ir.meta["result_structure"] = derived.meta.get("result_structure")
                if emitted_ir.meta["result_structure"] is None:
                    del emitted_ir.meta["result_structure"]
            paired = emitted_ir is not derived
            if self.optimize:
                run_passes(derived, check=verify)
                if paired:
                    run_passes(emitted_ir, check=verify)
                emitted_ir = for_emission(emitted_ir, check=verify)  # (derived composes)
            emitted = emit_function(emitted_ir)
            text = module_text([emitted])
            if derived.meta.get("note"):  # a choice the reader of the code should know
                text = _before_def(text, emitted.name, derived.meta["note"])
            if boundary is not None:  # say how the user's structures map onto the parameters
                notes = boundary.describe(self.param_names)
                text = text.replace(f"\ndef {emitted.name}(", f"\n{notes}def {emitted.name}(", 1)
            ns = compile_module(text, emitted.refs.namespace, emitted.name)
            call_directly(ns)  # a recursive call: one Python frame per level
            if paired:
                text += listing(emitted_ir)
        fn = ns[emitted.name]
        return cache.Entry(fn, text, derived, deps, gen, boundary)


def _calls_itself(primal: Function) -> bool:
    """Does ``primal`` hold a recursive call (which reverse mode can pair)?"""
    return any(REVERSE_PAIR in op.attrs for op in primal.body.walk())


def _before_def(text: str, name: str, lines: str) -> str:
    """``text`` with comment ``lines`` put just before ``def name(``."""
    start = 0 if text.startswith(f"def {name}(") else text.index(f"\ndef {name}(") + 1
    return text[:start] + lines + text[start:]


_NO_DEFAULTS = type("_NoDefaults", (), {"__defaults__": None, "__kwdefaults__": None})()


def _not_differentiable(value: Any, t: T.AType) -> str:
    """What a value srcgrad cannot differentiate is, for a message (never its repr: an
    array's would fill the screen)."""
    name = type(value).__name__
    name = f"{'an' if name[0] in 'aeiou' or name == 'ndarray' else 'a'} {name}"
    if t.kind == "none":
        return "None"
    if t.kind in ("int", "bool"):
        return f"{name} (an integer or bool)"
    if t.kind in ("array", "scalar"):
        return f"{name} of dtype {t.dtype} (integer or bool values)"
    return f"{name} (a value srcgrad treats as a compile-time constant, not a number)"


def _normalize_wrt(wrt: Any, names: list[str], transform: str) -> tuple[tuple[int, ...], bool]:
    items = wrt if isinstance(wrt, tuple) else (wrt,)
    if isinstance(wrt, list):
        items = tuple(wrt)
    if not items:
        raise SrcGradError(f"sg.{transform}: wrt is empty.",
                           advice="Name at least one parameter.")
    out = []
    for w in items:
        if isinstance(w, bool) or not isinstance(w, (int, str)):
            raise SrcGradError(f"sg.{transform}: wrt must be an int, a parameter name or a "
                               f"tuple of those, got {w!r}.")
        if isinstance(w, str):
            if w not in names:
                raise SrcGradError(f"sg.{transform}: wrt={w!r} is not a parameter "
                                   f"(parameters: {', '.join(names)}).")
            out.append(names.index(w))
        else:
            if not -len(names) <= w < len(names):
                raise SrcGradError(f"sg.{transform}: wrt={w} is out of range for "
                                   f"{len(names)} parameter(s) ({', '.join(names)}).")
            out.append(w % len(names))
    return tuple(out), isinstance(wrt, (tuple, list))

"""What a compiled derivative is and how it is made: :class:`Derivation`.

Sits between the public transforms (:mod:`.api`: ``sg.grad`` and the others build one
``Derivation`` per function, transform and options) and the pipeline it drives per
signature: frontend (``lower``) -> AD (``reverse`` / ``forward`` / ``tangent_grad``) ->
passes -> backend (``emit_function``, ``compile_module``). It owns the derived function
users call (a :class:`.dispatcher.Dispatcher` whose slow path compiles a version for the
arguments' abstract signature and caches it, :mod:`.cache`), and the IR other derivations
inline when the user's code calls a derived function (``inline_ir``, ``primal_ir``).
"""

from __future__ import annotations

import inspect
import threading
from collections.abc import Sequence
from typing import Any

from srcgrad.errors import SrcGradError
from srcgrad.rules import generation

from . import cache
from . import structure as S
from .ad.forward import JVP, JVP_ROWS, forward
from .ad.reverse import GRAD, VALUE_AND_GRAD, VJP, ReverseSpec, reverse
from .ad.tangent_grad import tangent_grad
from .backend.compile import compile_module
from .backend.emit import emit_function, module_text
from .boundary import Boundary, is_tree
from .closures import identity_bound
from .dispatcher import Dispatcher
from .frontend import lower, parameter_names
from .frontend.recursion import call_directly
from .frontend.resolve import Dependency
from .internal_errors import compiler_boundary
from .ir import types as T
from .ir.builder import clone_function
from .ir.core import REVERSE_PAIR, Function
from .ir.verify import each_pass, verify
from .pairs import listing
from .passes.pipeline import for_emission
from .passes.pipeline import optimize as run_passes
from .rows import Unbatchable
from .signature import key_of, same_shapes, types_of
from .tree_text import describe_tree
from .user_lines import point_to_user_line, refuse_real_only

_TITLES = {GRAD: "Gradient", VALUE_AND_GRAD: "Value and gradient", VJP: "Vector-Jacobian product",
           JVP: "Jacobian-vector product", JVP_ROWS: "Jacobian-matrix product"}


# One compilation at a time in the process: the frontend, AD and passes share state per
# user function (its lowered IR, the rule table's versions), and two threads compiling the
# first call of one derived function at once built broken IR. Reentrant: a compilation
# compiles the functions its function calls. Compiled code runs outside it.
COMPILING = threading.RLock()


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
        with COMPILING:  # (a thread that waited finds the version another one compiled)
            entry = cache.lookup(self.f, self.cache_key(self.key(primal)))
            if entry is None:
                entry = self.entry_for(primal)
            key = entry.signature if entry.signature is not None else self.key(primal)
            self.dispatcher.add(key, entry)
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
                        f"{describe_tree(t)} has no float or array leaf.",
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
        key = self.key(primal_args)
        entry = self.compile(arg_types, same_shapes(key))
        entry.signature = key
        # a function argument the compilation also met elsewhere stands for itself only
        leaves = [s for kind in entry.signature if is_tree(kind) for s in S.static_leaves(kind)]
        bound = identity_bound([s.value for s in leaves], entry.deps)
        for leaf in leaves:
            leaf.exact = leaf.exact or id(leaf.value) in bound
        cache.store(self.f, self.cache_key(entry.signature), entry)
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

    def compile(self, arg_types: list[T.AType] | None,
                shapes_alike: tuple[tuple[int, int], ...] = ()) -> cache.Entry:
        """The entry for ``arg_types``; ``shapes_alike``: pairs of parameters the version's
        guard proves to have one shape (``signature.same_shapes``)."""
        with COMPILING:
            return self._compile(arg_types, shapes_alike)

    def _compile(self, arg_types: list[T.AType] | None,
                 shapes_alike: tuple[tuple[int, int], ...]) -> cache.Entry:
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
            if shapes_alike and boundary is None:  # (a boundary's IR takes leaves)
                for ir in {id(derived): derived, id(emitted_ir): emitted_ir}.values():
                    ir.meta["same_shapes"] = shapes_alike
            if self.optimize:
                per_pass = each_pass()  # the verifier after every pass (tests), or None
                run_passes(derived, check=per_pass)
                verify(derived)  # after optimisation
                if paired:
                    run_passes(emitted_ir, check=per_pass)
                    verify(emitted_ir)
                optimized = emitted_ir
                emitted_ir = for_emission(emitted_ir, check=per_pass)  # (derived composes)
                if emitted_ir is not optimized:  # before emission: a rewritten copy
                    verify(emitted_ir)
                # its loops may tape arrays into buffers kept between calls (buffers.py)
                emitted_ir.meta["tape_buffers"] = True
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

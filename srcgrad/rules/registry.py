"""The one table of derivative rules: its record type and how rules are registered.

Every primitive srcgrad knows (``multiply``, ``sin``, ``sum``, ``matmul``, the helper
primitives such as ``unbroadcast``) has exactly one :class:`Rule`. The runtime's backward
nodes, the compiler's differentiator and the test suite all read this table; nothing else
holds derivative math.

A rule's derivative functions are plain Python in NumPy's vocabulary. Their *parameter
names* say what they need, and so what a tape must save:

- ``g``: the output cotangent (VJP) / ``t``: the input tangent (explicit JVP);
- ``out``: the primal result;
- an input's name (``x``, ``y``): that primal input;
- ``x_shape`` / ``x_dtype``: only the shape / dtype of input ``x`` (saved as metadata);
- a static parameter's name (``axis``, ``keepdims``): its value;
- ``i``: for a variadic input (``concatenate``'s arrays), the position of the element
  (``xs_shape`` is then the tuple of every element's shape).

How a call maps onto these names is the rule's *form* (:mod:`.callform`): the text of a
Python parameter list in the public function's argument order, listing exactly the rule's
inputs and params (default: inputs then params, all required). ``rule.bind(args, kwargs)``
turns a concrete call into an environment of names, ``rule.apply(env)`` calls ``impl``
from one, ``rule.metadata(env)`` adds the ``x_shape``/``x_dtype`` entries the derivative
functions ask for.

Example::

    defrule("sin", np.sin, inputs=("x",), kind=ELEMENTWISE,
            vjp={"x": lambda g, x: g * np.cos(x)})
    defrule("sum", np.sum, inputs=("x",), params=("axis", "keepdims"), kind=LINEAR,
            form="x, axis=None, *, keepdims=False",
            vjp={"x": lambda g, x_shape, axis, keepdims: unreduce(g, x_shape, axis, keepdims)})

User rules (``sg.defvjp``, ``user=True``) have the fixed signature ``rule(g, out, *args,
**kwargs)``; :mod:`.user` wraps them so that ``needs`` names every primal input, every
param and ``out``.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .callform import CallForm, default_form, parse_form

# How forward mode is derived for a rule without an explicit ``jvp``.
ELEMENTWISE = "elementwise"  # JVP of an input = its VJP formula with the tangent for ``g``
LINEAR = "linear"  # JVP = the op itself applied to the tangents of its inputs
BILINEAR = "bilinear"  # JVP = op(tx, y) + op(x, ty)
NONDIFF = "nondiff"  # zero derivative everywhere (sign, floor, comparisons, argmax)
KINDS = (ELEMENTWISE, LINEAR, BILINEAR, NONDIFF, None)

# Names a derivative function may ask for besides inputs and static parameters.
_SPECIAL = {"g", "t", "out", "i"}

NodeNamer = Callable[..., tuple[str, int]]


class NoDerivativeError(LookupError):
    """A derivative was asked of a rule that has none for that input (or mode)."""


@dataclass
class Rule:
    """Everything srcgrad knows about one primitive."""

    name: str
    impl: Callable[..., Any]
    inputs: tuple[str, ...]
    params: tuple[str, ...] = ()
    vjp: dict[str, Callable[..., Any]] = field(default_factory=dict)
    jvp: dict[str, Callable[..., Any]] = field(default_factory=dict)
    kind: str | None = None
    broadcasts: bool = False  # inputs broadcast against each other (undone by unbroadcast)
    variadic: str | None = None  # name of an input that is a sequence of arrays
    aliases: tuple[Callable[..., Any], ...] = ()
    user: bool = False  # registered through sg.defvjp / sg.defjvp
    form: str | CallForm | None = None  # the call form (module docstring); None: inputs, params
    # Static params that depend on the inputs' ndims, made explicit when a call is bound so
    # derivative functions branch on params, never on shapes (``norm``'s vector-or-matrix
    # ``axis``): ``resolve(params, {input: ndim or None if unknown})`` -> params, or
    # ValueError for a call it refuses. Every interpreter calls it: the compiler at compile
    # time (from the abstract types), the runtime per call.
    resolve: Callable[[dict[str, Any], dict[str, int | None]], dict[str, Any]] | None = None
    # The derivative formulas, spelled with ``math.*`` and Python operators on floats,
    # raise on no input where the Python spelling of the primitive succeeded (``cos`` for
    # ``math.sin``: x is finite; ``g / y`` for ``x / y``: y != 0), so the derivative code of
    # a user's ``math.sin(x)`` / ``x / y`` needs no NumPy fallback (compiler backend)
    safe_python_derivative: bool = False
    # Another spelling of a call turned into the form's, by ``bind`` (so in every
    # interpreter): ``canonical(args, kwargs)`` -> ``(args, kwargs)`` (einsum's sublists)
    canonical: Callable[[Sequence[Any], dict[str, Any]],
                        tuple[list[Any], dict[str, Any]]] | None = None
    # --- facts other interpreters read (each once, here; nothing keys them by name) ----
    # PyTorch's backward node for a call form (runtime): a class name (arity = number of
    # tensors), a ``(name, arity)`` pair, or a namer ``(tensors=, ndims=, form=, **params)
    # -> (name, arity)`` (:mod:`.torch_names`). None: the runtime derives ``XBackward0``
    # from the rule name; a NONDIFF rule with a ``torch`` name is recorded with a zero
    # gradient, as PyTorch records ``floor``.
    torch: str | tuple[str, int] | NodeNamer | None = None
    # Array-method and attribute spellings (``x.sum(0)``, ``x.T``) that mean this rule.
    # A method call ``x.m(*a, **k)`` binds as ``impl(x, *a, **k)``; with ``method_spread``
    # spread-out items are gathered into one tuple (``x.reshape(2, 3)``).
    methods: tuple[str, ...] = ()
    method_spread: bool = False
    attributes: tuple[str, ...] = ()
    # PyTorch's spellings of this rule on ``sg.Tensor`` / ``srcgrad`` (``"t.abs()"``,
    # ``"sg.linalg.cholesky"``), for the supported-functions page.
    pytorch: tuple[str, ...] = ()
    # Memory: ``view``: NumPy's result may share memory with the first input (the
    # compiler never writes into it in place; the runtime makes the Tensor a view when
    # it does share). ``fresh``: the result is a new array nothing else refers to.
    view: bool = False
    fresh: bool = False
    # Correctly rounded in IEEE arithmetic, so NumPy at compile time and Python at run time
    # agree to the bit (constant folding may evaluate it; ``math.sin``/``np.sin`` may not)
    correctly_rounded: bool = False
    # The Python operator spelling (``"+"``, ``"@"``, ``"<"``; ``"-"`` for ``negative``):
    # the backend emits the operator instead of a call.
    operator: str | None = None
    # The implementation without dispatch or type tests that emitted code calls where its
    # first input is known to be a float ndarray of at least one axis and every other
    # array input an ndarray (same numbers as ``impl``; a few tests fewer per call, which
    # counts on small arrays: ``kept``, ``taken``)
    on_arrays: Callable[..., Any] | None = None
    structural: bool = False  # compiler-only (builtins, seeds, casts): no runtime, no NumPy
    runtime_only: bool = False  # only the runtime records it (relu, select, index_put, ...)
    # The runtime computes it in floating point even on integer tensors (as PyTorch)
    float_result: bool = False
    # What derivative is returned where the function has a kink, a tie, a zero or a bound
    # (documented on the supported-functions page; the kink tests check the value).
    kinks: str | None = None
    # Where the rule has no second derivative, and why (None: it differentiates twice
    # wherever it differentiates once); the per-rule tests' samples agree with it
    second_order: str | None = None
    needs: dict[str, tuple[str, ...]] = field(default_factory=dict, init=False)
    jvp_needs: dict[str, tuple[str, ...]] = field(default_factory=dict, init=False)
    call_form: CallForm = field(init=False, repr=False)

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"rule {self.name!r}: unknown kind {self.kind!r}")
        if self.view and self.fresh:
            raise ValueError(f"rule {self.name!r}: a result cannot be both a view and fresh")
        if self.structural and self.runtime_only:
            raise ValueError(f"rule {self.name!r}: compiler-only and runtime-only")
        self.methods, self.attributes = tuple(self.methods), tuple(self.attributes)
        self.pytorch = tuple(self.pytorch)
        if self.variadic is not None and self.variadic not in self.inputs:
            raise ValueError(f"rule {self.name!r}: variadic {self.variadic!r} is not an input")
        names = (*self.inputs, *self.params)
        if isinstance(self.form, CallForm):
            self.call_form = self.form
        elif self.form is None:
            self.call_form = default_form(self.name, names)
        else:
            self.call_form = parse_form(self.name, self.form)
        if sorted(self.call_form.names) != sorted(names):
            raise ValueError(f"rule {self.name!r}: form {self.form!r} must name exactly the "
                             f"inputs and params {names}")
        if self.user:
            # sg.defvjp rules get every primal value (user.py wraps them accordingly)
            self.needs = {k: ("g", "out", *names) for k in self.vjp}
            self.jvp_needs = {k: ("t", "out", *names) for k in self.jvp}
            for k in (*self.vjp, *self.jvp):
                _check_input(self, k)
        else:
            self.needs = {k: _parameter_names(self, k, f) for k, f in self.vjp.items()}
            self.jvp_needs = {k: _parameter_names(self, k, f) for k, f in self.jvp.items()}

    # --- calls ---------------------------------------------------------------------------
    def bind(self, args: Sequence[Any], kwargs: Mapping[str, Any]) -> dict[str, Any]:
        """The environment ``{input or param name: value}`` of a call in the public form."""
        if self.canonical is not None:
            args, kwargs = self.canonical(args, dict(kwargs))
        return self.call_form.bind(args, kwargs)

    def apply(self, env: Mapping[str, Any]) -> Any:
        """Call ``impl`` with the inputs and params in ``env``."""
        args, kwargs = self.call_form.call_args(env)
        return self.impl(*args, **kwargs)

    def metadata(self, env: Mapping[str, Any]) -> dict[str, Any]:
        """The ``x_shape`` / ``x_dtype`` entries the derivative functions ask for.

        For a variadic input they are tuples over its elements. Entries already in
        ``env`` are not recomputed.
        """
        meta: dict[str, Any] = {}
        for needs in (*self.needs.values(), *self.jvp_needs.values()):
            for n in needs:
                if (n in meta or n in env or not n.endswith(("_shape", "_dtype"))
                        or n in self.params):
                    continue
                base, what = n.rsplit("_", 1)
                read = np.shape if what == "shape" else _dtype_of
                value = env[base]
                meta[n] = (tuple(read(v) for v in value) if base == self.variadic
                           else read(value))
        return meta

    # --- what a tape must keep -------------------------------------------------------
    def saved_names(self, wrt: Sequence[str] | None = None) -> set[str]:
        """Names the VJPs for inputs ``wrt`` (default: all) read, besides ``g``."""
        names: set[str] = set()
        for k in self.vjp if wrt is None else wrt:
            names.update(self.needs.get(k, ()))
        names.discard("g")
        return names

    @property
    def differentiable(self) -> bool:
        return self.kind != NONDIFF and bool(self.vjp or self.jvp)

    def has_forward(self, name: str) -> bool:
        """Can forward mode push a tangent through input ``name``?"""
        if name in self.jvp or self.kind in (LINEAR, BILINEAR):
            return True
        return self.kind == ELEMENTWISE and name in self.vjp

    # --- calling derivative functions ------------------------------------------------
    def call_vjp(self, name: str, env: dict[str, Any]) -> Any:
        """Cotangent of input ``name`` (before unbroadcasting), reading ``env``."""
        fn = self.vjp.get(name)
        if fn is None:
            raise NoDerivativeError(f"{self.name}() has no reverse-mode rule for its input "
                                    f"{name!r}; register one with sg.defvjp")
        return fn(**{k: env[k] for k in self.needs[name]})

    def call_jvp(self, name: str, env: dict[str, Any]) -> Any:
        """Output tangent contributed by input ``name``'s tangent ``env['t']``.

        Only for explicit JVPs and elementwise rules; linear and bilinear forward mode
        re-applies ``impl`` and is done by the caller, which knows how to build its inputs.
        """
        if name in self.jvp:
            fn, needs = self.jvp[name], self.jvp_needs[name]
            return fn(**{k: env[k] for k in needs})
        if self.kind == ELEMENTWISE and name in self.vjp:
            args = {k: env["t"] if k == "g" else env[k] for k in self.needs[name]}
            return self.vjp[name](**args)
        raise NoDerivativeError(f"{self.name}() has no forward-mode rule for its input "
                                f"{name!r}; register one with sg.defjvp")

    def torch_node(self, **call: Any) -> tuple[str, int]:
        """PyTorch's node class name and number of ``next_functions`` for this call."""
        torch = self.torch
        if isinstance(torch, str):
            return torch, len(call.get("tensors", ()))
        if isinstance(torch, tuple):
            return torch
        if torch is not None:
            return torch(**call)
        base = "".join(p.capitalize() for p in self.name.split("_"))
        return f"{base}Backward0", len(self.inputs)


def _dtype_of(value: Any) -> Any:
    dtype = getattr(value, "dtype", None)
    return np.result_type(value) if dtype is None else dtype


def _check_input(rule: Rule, key: str) -> None:
    if key not in rule.inputs:
        raise ValueError(f"rule {rule.name!r}: derivative given for unknown input {key!r}")


def _parameter_names(rule: Rule, key: str, fn: Callable[..., Any]) -> tuple[str, ...]:
    _check_input(rule, key)
    names = tuple(inspect.signature(fn).parameters)
    allowed = _SPECIAL | set(rule.inputs) | set(rule.params)
    allowed |= {f"{n}_shape" for n in rule.inputs} | {f"{n}_dtype" for n in rule.inputs}
    for n in names:
        if n not in allowed:
            raise ValueError(
                f"rule {rule.name!r}: derivative for {key!r} asks for {n!r}; allowed: "
                f"{sorted(allowed)}"
            )
    return names


# --- the table ----------------------------------------------------------------------

RULES: dict[str, Rule] = {}
_BY_CALLABLE: dict[int, Rule] = {}
_KEEPALIVE: list[Callable[..., Any]] = []  # id() keys stay valid while the callable lives
_generation = [0]  # bumped on every registration, so caches of compiled code can notice
# called after every change of the table: the compiler's derived functions drop their
# installed versions at once, so their per-call guard need not read the generation
_LISTENERS: list[Callable[[], None]] = []


def _changed() -> None:
    _generation[0] += 1
    for listener in list(_LISTENERS):
        listener()


def on_change(listener: Callable[[], None]) -> None:
    """Call ``listener()`` after every change of the table (a registration, a restore)."""
    _LISTENERS.append(listener)


def defrule(name: str, impl: Callable[..., Any], **fields: Any) -> Rule:
    """Register (or replace) the rule for primitive ``name``; returns the record."""
    inputs = fields.pop("inputs")
    rule = Rule(name=name, impl=impl, inputs=tuple(inputs), **fields)
    RULES[name] = rule
    for fn in (impl, *rule.aliases):
        _BY_CALLABLE[id(fn)] = rule
        _KEEPALIVE.append(fn)
    _changed()
    return rule


def rule_named(name: str) -> Rule:
    return RULES[name]


def rule_for(fn: Any) -> Rule | None:
    """The rule for a callable (``np.sin``, ``math.sin``, a helper primitive), if any."""
    rule = _BY_CALLABLE.get(id(fn))
    if rule is None:
        wrapped = getattr(fn, "__srcgrad_rule__", None)
        return wrapped if isinstance(wrapped, Rule) else None
    return rule


def generation() -> int:
    """A counter that changes whenever the table changes."""
    return _generation[0]


TableState = tuple[dict[str, Rule], dict[int, Rule]]


def snapshot() -> TableState:
    """The table as it is now, for :func:`restore` (tests that register rules use it)."""
    return dict(RULES), dict(_BY_CALLABLE)


def restore(state: TableState) -> None:
    """Put the table back as :func:`snapshot` saw it; counts as a change."""
    rules, by_callable = state
    RULES.clear()
    RULES.update(rules)
    _BY_CALLABLE.clear()
    _BY_CALLABLE.update(by_callable)
    _changed()

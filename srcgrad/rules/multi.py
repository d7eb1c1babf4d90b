"""Functions whose result is a tuple (or list) of arrays: ``np.split``, ``np.meshgrid``,
``np.linalg.eigh``, ``t.sort()``.

Where it sits: in the rule table (bottom layer), beside :mod:`.registry`. Every
interpreter reads it the same way: the compiler's frontend, the runtime's NumPy protocol
and Tensor methods, and the tests.

The idea: **each item of the result is its own primitive with its own rule** (``split_piece``,
``eigh_values``, ``eigh_vectors``, ...), so reverse mode, forward mode, second order and
the runtime's nodes need nothing new. The public function has a :class:`MultiRule` that
says how a bound call maps onto its items: how many, and which primitive with which inputs
and params each. An interpreter then

1. binds the call with the record's form (``multi.bind(args, kwargs)``),
2. asks for the items (``multi.expand(args, kwargs, ndim)``, ``ndim`` telling an array
   input's number of dimensions, or None where it is not known),
3. applies each item's rule as it applies any rule (the compiler records one op per item,
   the runtime one node per item), and
4. builds the result with ``multi.result(items)`` (a list for ``np.split``, NumPy's named
   tuple for ``np.linalg.eigh``, ...).

So in the compiler the result is a Python tuple (or list) of traced values: unpacking it,
indexing it with a constant, iterating over it, ``len()`` and passing the pieces on all
work while compiling. That needs the **number of items at compile time**: ``items`` raises
:class:`ItemCountUnknown` (message and advice) when it depends on something known only at
run time (an array's length, a traced ``sections``).

How to add a tuple-returning function (``np.linalg.eigh``, say)::

    defrule("eigh_values", _eigh_values, inputs=("a",), params=("UPLO",), vjp=..., jvp=...)
    defrule("eigh_vectors", _eigh_vectors, inputs=("a",), params=("UPLO",), vjp=..., jvp=...)
    defmulti("linalg.eigh", np.linalg.eigh, form="a, UPLO='L'", inputs=("a",),
             item_rules=("eigh_values", "eigh_vectors"),
             items=lambda env, ndims: [Item("eigh_values", env), Item("eigh_vectors", env)],
             result=lambda items: EighResult(*items))

``item_rules`` names every primitive ``items`` may return (the supported-functions page
lists them, and ``tests/rules/test_multi.py`` checks the calls use no other).
``Item(rule, env, form=None)``: ``env`` names exactly the item rule's inputs and params (extra
names in it are dropped), ``form`` is the runtime's surface spelling for PyTorch's node
name (:mod:`.torch_names`). Each item rule gets samples in ``tests/rules`` like any rule;
the record itself gets a line in ``tests/rules/test_multi.py``'s table of calls.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .callform import CallForm, parse_form
from .registry import RULES


class ItemCountUnknown(ValueError):
    """The number of items of a call is not known (the compiler's case: known only at run
    time). ``advice`` says what to write instead."""

    def __init__(self, message: str, advice: str = "") -> None:
        super().__init__(message)
        self.advice = advice


@dataclass(frozen=True)
class Item:
    """One item of a tuple result: primitive ``rule`` applied to ``env`` (its inputs and
    params by name); ``form`` picks PyTorch's node name where spellings share a rule."""

    rule: str
    env: Mapping[str, Any]
    form: str | None = None

    def arguments(self) -> tuple[tuple[Any, ...], dict[str, Any]]:
        """``(inputs in order, params)`` of the item's rule, from ``env``."""
        rule = RULES[self.rule]
        return (tuple(self.env[n] for n in rule.inputs),
                {p: self.env[p] for p in rule.params if p in self.env})


ItemsFn = Callable[[dict[str, Any], dict[str, "int | None"]], list[Item]]


@dataclass
class MultiRule:
    """How a call of a tuple-returning function maps onto primitives, one per item."""

    name: str  # as users spell it after ``np.``: "split", "linalg.eigh"
    impl: Callable[..., Any]
    form: str  # the call form (see :mod:`.callform`): every supported argument
    inputs: tuple[str, ...]  # the array arguments among the form's names
    items: ItemsFn
    result: Callable[[list[Any]], Any] = tuple
    item_rules: tuple[str, ...] = ()  # every primitive ``items`` may name (docs, tests)
    aliases: tuple[Callable[..., Any], ...] = ()
    spelling: str = ""  # how messages name it; default ``np.<name>``
    call_form: CallForm = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.call_form = parse_form(self.name, self.form)
        if not self.spelling:
            self.spelling = f"np.{self.name}"
        missing = set(self.inputs) - set(self.call_form.names)
        if missing:
            raise ValueError(f"multi {self.name!r}: inputs {sorted(missing)} not in its form")
        if not self.item_rules:  # may name rules registered later: tests check they exist
            raise ValueError(f"multi {self.name!r}: item_rules must name its items' rules")

    def bind(self, args: Sequence[Any], kwargs: Mapping[str, Any]) -> dict[str, Any]:
        return self.call_form.bind(args, kwargs)

    def expand(self, args: Sequence[Any], kwargs: Mapping[str, Any],
               ndim: Callable[[Any], int | None]) -> list[Item]:
        """The items of the call ``impl(*args, **kwargs)``; ``ndim(value)`` gives an array
        input's number of dimensions or None. Raises TypeError for arguments the form
        does not take, ValueError (:class:`ItemCountUnknown` among them) for a call it
        refuses."""
        env = self.bind(args, kwargs)
        ndims = {n: ndim(env[n]) for n in self.inputs}
        return self.items(env, ndims)


MULTI: dict[str, MultiRule] = {}
_BY_CALLABLE: dict[int, MultiRule] = {}
_KEEPALIVE: list[Callable[..., Any]] = []


def defmulti(name: str, impl: Callable[..., Any], **fields: Any) -> MultiRule:
    """Register (or replace) the record of tuple-returning function ``name``."""
    multi = MultiRule(name=name, impl=impl, **fields)
    MULTI[name] = multi
    for fn in (impl, *multi.aliases):
        _BY_CALLABLE[id(fn)] = multi
        _KEEPALIVE.append(fn)
    return multi


def multi_for(fn: Any) -> MultiRule | None:
    """The record of a tuple-returning callable (``np.split``), if it has one."""
    return _BY_CALLABLE.get(id(fn))


def static_int(value: Any, what: str, spelling: str, advice: str) -> int:
    """``value`` as a Python int, or :class:`ItemCountUnknown` (a traced value)."""
    if isinstance(value, bool) or not hasattr(value, "__index__"):
        raise ItemCountUnknown(
            f"{spelling}: the number of items it returns must be known when the function "
            f"is compiled, and {what} is known only at run time.", advice)
    return int(value.__index__())


def static_ints(value: Any, what: str, spelling: str, advice: str) -> tuple[int, ...]:
    """A list or tuple of Python ints, or :class:`ItemCountUnknown`."""
    if not isinstance(value, (list, tuple)):
        items = getattr(value, "tolist", None)  # a constant ndarray of indices
        if items is None or getattr(value, "ndim", None) != 1:
            raise ItemCountUnknown(
                f"{spelling}: the number of items it returns must be known when the "
                f"function is compiled, and {what} is known only at run time.", advice)
        value = items()
    return tuple(static_int(v, what, spelling, advice) for v in value)


# --- tuple-returning functions without item rules ---------------------------------------------
# NumPy functions known to return a tuple whose items srcgrad has no rules for (yet). The
# compiler still knows the result is a tuple of ``count(args, kwargs)`` items (None: this
# call returns one array), so unpacking it works where nothing is differentiated through it,
# and a derivative through it is refused naming the function, never as "an array of
# unknown shape". A MultiRule for the same function (defmulti) takes precedence.
TupleCount = Callable[[Sequence[Any], Mapping[str, Any]], "int | None"]
_DECLARED: dict[int, tuple[str, TupleCount]] = {}


def declare_tuple(fn: Callable[..., Any], spelling: str, count: TupleCount) -> None:
    _DECLARED[id(fn)] = (spelling, count)
    _KEEPALIVE.append(fn)


def declared_tuple(fn: Any, args: Sequence[Any],
                   kwargs: Mapping[str, Any]) -> tuple[str, int] | None:
    """``(spelling, number of items)`` of a call of a declared tuple-returning function, or
    None (not declared, or this call returns one array)."""
    found = _DECLARED.get(id(fn))
    if found is None:
        return None
    spelling, count = found
    try:
        n = count(args, kwargs)
    except (TypeError, ValueError, IndexError):
        return None
    return None if n is None else (spelling, n)


def _arg(args: Sequence[Any], kwargs: Mapping[str, Any], pos: int, name: str,
         default: Any) -> Any:
    return args[pos] if len(args) > pos else kwargs.get(name, default)


def _declare_numpy() -> None:
    import numpy as np

    def fixed(n: int) -> TupleCount:
        return lambda args, kwargs: n

    la = np.linalg
    for fn, n in ((la.eigh, 2), (la.eig, 2), (la.slogdet, 2), (la.lstsq, 4), (np.divmod, 2),
                  (np.modf, 2), (np.frexp, 2), (np.histogram, 2)):
        prefix = "np.linalg." if fn.__module__ and "linalg" in fn.__module__ else "np."
        declare_tuple(fn, prefix + fn.__name__, fixed(n))
    declare_tuple(la.svd, "np.linalg.svd",
                  lambda a, k: 3 if _arg(a, k, 2, "compute_uv", True) else None)
    declare_tuple(la.qr, "np.linalg.qr",
                  lambda a, k: None if _arg(a, k, 1, "mode", "reduced") == "r" else 2)
    declare_tuple(np.broadcast_arrays, "np.broadcast_arrays", lambda a, k: len(a))


_declare_numpy()

"""``sg.defvjp`` / ``sg.defjvp``: users' derivative rules, registered in the same table.

A user rule has the fixed signature of API.md: ``rule(g, out, *args, **kwargs)`` returns
the cotangent of one positional argument of ``fn`` (``defvjp``), ``rule(t, out, *args,
**kwargs)`` the output tangent contributed by that argument's tangent ``t`` (``defjvp``).
One rule per positional argument, in order; ``None`` (or leaving trailing ones out) marks
an argument without derivative.

Registration makes one :class:`Rule` per ``fn`` with ``user=True``:

- a function the table already knows (``np.round``) keeps its rule's name, call form and
  twins, and the user's derivatives replace the old ones (its NONDIFF marking included);
- any other function gets a rule of its own whose inputs are its positional parameters
  and whose params are its keyword-only ones;
- ``defjvp`` after ``defvjp`` (or the reverse) adds to the same rule.

Both return ``fn`` wrapped as a dispatching primitive (:func:`.dispatch.dispatching`):
called on Tensors or the compiler's symbolic values, the wrapper hands the call to their
``__array_function__``, which finds the rule with ``rule_for`` (by ``fn`` or by wrapper).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .callform import CallForm, form_from_signature
from .dispatch import dispatching
from .registry import RULES, defrule, rule_for

# Derivative functions read these names from the environment; a user's parameter of the
# same name is renamed so the two cannot collide.
_RESERVED = {"g", "t", "out", "i"}

# id of a rule's impl -> the wrapper handed out for it (impls are kept alive by the table)
_WRAPPERS: dict[int, Callable[..., Any]] = {}


def defvjp(fn: Callable[..., Any], *rules: Callable[..., Any] | None) -> Callable[..., Any]:
    """Give ``fn`` reverse-mode derivative rules, one per positional argument.

    The compiler uses them wherever it resolves a call to ``fn`` (they win over ``fn``'s
    source); the runtime uses them when the returned wrapper is called on Tensors. A rule
    body may use any NumPy function srcgrad supports, so rules differentiate again.

    Args:
        fn: the function (yours, or a NumPy function without a rule).
        *rules: ``rule(g, out, *args, **kwargs)`` returning that argument's cotangent given
            the result's cotangent ``g`` and the result ``out``; ``None`` for an argument
            without derivative; trailing ones may be left out.

    Returns:
        ``fn`` wrapped as a primitive (call it instead of ``fn`` on Tensors).

    Example::

        import numpy as np
        import srcgrad as sg

        def logsumexp(x):
            m = np.max(x)
            return m + np.log(np.sum(np.exp(x - m)))

        sg.defvjp(logsumexp, lambda g, out, x: g * np.exp(x - out))
        def f(x):
            return 2.0 * logsumexp(x)             # the call uses the rule

        print(sg.grad(f)(np.array([0.0, 1.0])))   # 2 * softmax(x)
    """
    return _register("defvjp", fn, rules, "vjp")


def defjvp(fn: Callable[..., Any], *rules: Callable[..., Any] | None) -> Callable[..., Any]:
    """Give ``fn`` forward-mode derivative rules (for ``sg.jvp``), one per argument.

    Args:
        fn: the function.
        *rules: ``rule(t, out, *args, **kwargs)`` returning the result's tangent
            contributed by that argument's tangent ``t``; ``None`` for an argument without
            derivative.

    Returns:
        ``fn`` wrapped as a primitive.

    Example::

        import numpy as np
        import srcgrad as sg

        def cube(x):
            return x ** 3

        sg.defjvp(cube, lambda t, out, x: 3 * x ** 2 * t)
        def f(x):
            return cube(x) + x                    # the call uses the rule

        print(sg.jvp(f)(np.array([2.0]), np.array([1.0])))   # (array([10.]), array([13.]))
    """
    return _register("defjvp", fn, rules, "jvp")


def _register(api: str, fn: Callable[..., Any], rules: Sequence[Any], mode: str
              ) -> Callable[..., Any]:
    if not callable(fn):
        raise TypeError(f"sg.{api}: the first argument must be the function to give "
                        f"derivatives to, not {type(fn).__name__}")
    for k, r in enumerate(rules):
        if r is not None and not callable(r):
            raise TypeError(f"sg.{api}: rule {k} for {_label(fn)} must be a function or "
                            f"None, not {type(r).__name__}")
    old = rule_for(fn)
    if old is not None and old.user:
        name, impl, form, inputs, params = old.name, old.impl, old.call_form, old.inputs, old.params
        vjp, jvp, aliases = dict(old.vjp), dict(old.jvp), old.aliases
    elif old is not None:  # a function the table knows (np.round): same primitive, new math
        name, impl, form, inputs, params = old.name, old.impl, old.call_form, old.inputs, old.params
        vjp, jvp, aliases = {}, {}, old.aliases
    else:
        name = _fresh_name(fn)
        form, inputs, params = _form_of(api, fn)
        impl, vjp, jvp, aliases = dispatching(fn), {}, {}, (fn,)
    if len(rules) > len(inputs):
        raise TypeError(f"sg.{api}: {_label(fn)} takes {len(inputs)} positional "
                        f"argument(s) {inputs} but {len(rules)} rules were given")
    lead = "g" if mode == "vjp" else "t"
    fresh = {inputs[k]: _adapt(r, lead, inputs, params) for k, r in enumerate(rules)
             if r is not None}
    if mode == "vjp":
        vjp = fresh
    else:
        jvp = fresh
    wrapper = impl if old is None else _WRAPPERS.get(id(impl)) or dispatching(impl)
    _WRAPPERS[id(impl)] = wrapper
    defrule(name, impl, inputs=inputs, params=params, form=form, vjp=vjp, jvp=jvp,
            user=True, aliases=tuple(dict.fromkeys((*aliases, fn, wrapper))))
    return wrapper


def _label(fn: Any) -> str:
    return getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None) or repr(fn)


def _fresh_name(fn: Any) -> str:
    base = f"{getattr(fn, '__module__', None) or 'user'}.{_label(fn)}"
    name, n = base, 1
    while name in RULES:
        n += 1
        name = f"{base}#{n}"
    return name


def _form_of(api: str, fn: Any) -> tuple[CallForm, tuple[str, ...], tuple[str, ...]]:
    """The call form, inputs (positional parameters) and params (keyword-only) of ``fn``."""
    if isinstance(fn, np.ufunc):  # its operands; out=, where=... are not differentiated
        signature = inspect.Signature([
            inspect.Parameter(f"x{k}", inspect.Parameter.POSITIONAL_ONLY) for k in range(fn.nin)])
    else:
        try:
            signature = inspect.signature(fn)
        except (TypeError, ValueError):
            raise TypeError(f"sg.{api}: cannot read the parameters of {_label(fn)}; wrap it "
                            "in a Python function (def f(x): ...) and register that") from None
    renamed = [p.replace(name=f"{p.name}_") if p.name in _RESERVED else p
               for p in signature.parameters.values()]
    try:
        form = form_from_signature(_label(fn), signature.replace(parameters=renamed))
    except ValueError as exc:
        raise TypeError(f"sg.{api}: {exc}") from None
    if form.star is not None:
        raise TypeError(f"sg.{api}: {_label(fn)} takes *{form.star}; srcgrad needs one rule "
                        "per positional argument, so give it named parameters")
    return form, form.positional, form.keyword


def _adapt(rule: Callable[..., Any], lead: str, inputs: tuple[str, ...],
           params: tuple[str, ...]) -> Callable[..., Any]:
    """Call ``rule(lead, out, *inputs, **params)``, passing only what ``rule`` accepts."""
    npos, names = _accepts(rule)
    count = max(npos - 2, 0)

    def adapted(**env: Any) -> Any:
        args = [env[n] for n in inputs[:count]]
        kwargs = {p: env[p] for p in params if names is None or p in names}
        args = [env[lead], env["out"], *args]
        # a symbolic value (the compiler's) traces the body its own way: user code reads
        # x.T, len(x), np.eye(n) with n known only at run time, which Python on a
        # stand-in cannot run. Tensors and arrays just run it.
        trace = next((type(v).__srcgrad_rule_body__ for v in
                      (*args, *kwargs.values())
                      if hasattr(type(v), "__srcgrad_rule_body__")), None)
        if trace is not None:
            return trace(rule, args, kwargs)
        return rule(*args, **kwargs)

    adapted.__name__ = getattr(rule, "__name__", "rule")
    adapted.__wrapped_rule__ = rule  # type: ignore[attr-defined]
    return adapted


def _accepts(rule: Callable[..., Any]) -> tuple[int, set[str] | None]:
    """How many positional arguments ``rule`` takes, and which keywords (None: any)."""
    try:
        ps = list(inspect.signature(rule).parameters.values())
    except (TypeError, ValueError):
        return 1 << 30, None
    if any(p.kind is p.VAR_POSITIONAL for p in ps):
        npos = 1 << 30
    else:
        npos = sum(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in ps)
    if any(p.kind is p.VAR_KEYWORD for p in ps):
        return npos, None
    return npos, {p.name for p in ps if p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD)}


__all__ = ["defvjp", "defjvp"]

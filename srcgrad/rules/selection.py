"""Picking values: ``np.partition`` (values moved by a permutation) and ``np.select`` (each
element taken from the first choice whose condition holds).

Where it sits: in the rule table (bottom layer), beside :mod:`.sorting`, whose
``sort_gather`` / ``sort_scatter`` pair moves a cotangent through a permutation.

==============  ========================================================================
partition       ``np.partition(a, kth, axis)``: the elements of ``a`` in the order
                ``np.argpartition`` gives (``partition_order``, zero derivative); VJP
                ``sort_scatter(g, order, a_shape, axis)``, JVP ``sort_gather(t, order,
                axis)``. The values are computed through that same order, so the value and
                the derivative agree on which of tied elements went where.
argpartition    indices: no derivative
select_choices  ``np.select(condlist, choicelist, default)``, bound as
                ``select_choices(condlist, choices=[*choicelist, default])``: linear
                in the choices (the conditions keep their values); VJP of choice ``i``:
                ``g`` where ``select_chosen(condlist, i)`` else 0, summed back to the
                choice's shape
select_chosen   where choice ``i`` is taken: condition ``i`` holds and no earlier one
                (``i = len(condlist)``, the default: no condition holds)
==============  ========================================================================

Ties in ``partition``: the gradient of each output position goes to the one input element
NumPy's ``argpartition`` put there (never split among equal elements).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .dispatch import dispatching
from .helpers import unbroadcast
from .registry import LINEAR, NONDIFF, defrule
from .shape import astype
from .sorting import sort_gather, sort_scatter


@dispatching
def partition_order(a: Any, kth: Any, axis: Any) -> Any:
    """``np.argpartition(a, kth, axis)``: the permutation ``partition`` applies."""
    return np.argpartition(a, kth, axis=axis)


@dispatching
def partition(a: Any, kth: Any, axis: Any = -1, kind: str = "introselect") -> Any:
    """``np.partition(a, kth, axis, kind)``, computed as the elements ``partition_order``
    picks (NumPy's own partition may order ties differently)."""
    if kind != "introselect":
        raise ValueError(f"np.partition: kind={kind!r} is not a selection algorithm NumPy has")
    return sort_gather(a, partition_order(a, kth, axis), axis)


defrule("partition_order", partition_order, inputs=("a",), params=("kth", "axis"),
        kind=NONDIFF)
defrule("argpartition", np.argpartition, inputs=("a",), params=("kth", "axis", "kind"),
        form="a, kth, axis=-1, kind='introselect'", kind=NONDIFF)
defrule("partition", partition, inputs=("a",), params=("kth", "axis", "kind"),
        form="a, kth, axis=-1, kind='introselect'", aliases=(np.partition,),
        vjp={"a": lambda g, a, a_shape, kth, axis: sort_scatter(
            g, partition_order(a, kth, axis), a_shape, axis)},
        jvp={"a": lambda t, a, kth, axis: sort_gather(t, partition_order(a, kth, axis), axis)},
        kinks="tied elements: each output position's gradient goes to the element "
              "np.argpartition put there, never split among equal elements")


@dispatching
def select_chosen(condlist: Any, i: int) -> Any:
    """Where ``np.select`` takes choice ``i``; ``i >= len(condlist)``: its default (where
    no condition holds)."""
    conds = [np.asarray(c, dtype=bool) for c in condlist]
    taken = np.zeros(np.broadcast_shapes(*(np.shape(c) for c in conds)), dtype=bool)
    for c in conds[:int(i)]:
        taken = taken | c
    return ~taken if int(i) >= len(conds) else conds[int(i)] & ~taken


@dispatching
def select_choices(condlist: Any, *, choices: Any) -> Any:
    """``np.select(condlist, choices[:-1], default=choices[-1])``."""
    choices = list(choices)
    return np.select(list(condlist), choices[:-1], choices[-1])


def _select_canonical(args: Any, kwargs: dict[str, Any]) -> tuple[list[Any], dict[str, Any]]:
    """``np.select(condlist, choicelist, default=0)`` as ``select_choices(condlist,
    choices=[*choicelist, default])``: one variadic input holds every differentiable
    argument. A call already in that form (``choices=`` by keyword: how every interpreter
    calls the rule back) is left as it is."""
    if "choices" in kwargs:
        return list(args), kwargs
    names = ("condlist", "choicelist", "default")
    env = dict(zip(names, args))
    for k, v in kwargs.items():
        if k not in names or k in env:
            raise TypeError(f"select() got an unexpected or repeated argument {k!r} "
                            "(srcgrad supports select(condlist, choicelist, default=0))")
        env[k] = v
    if "condlist" not in env or "choicelist" not in env:
        raise TypeError("select() needs condlist and choicelist")
    return [env["condlist"]], {"choices": [*env["choicelist"], env.get("default", 0)]}


def _select_vjp(g: Any, condlist: Any, choices_shape: Any, choices_dtype: Any, i: int) -> Any:
    picked = np.where(select_chosen(condlist, i), g, 0)
    return astype(unbroadcast(picked, choices_shape[i]), choices_dtype[i])


defrule("select_chosen", select_chosen, inputs=(), params=("condlist", "i"), kind=NONDIFF)
# The conditions are a static parameter: truth values carry no derivative, and a list of
# them is read as it is (the runtime reads a Tensor's values there). The choices and the
# default are one variadic input, the default last.
defrule("select_choices", select_choices, inputs=("choices",), params=("condlist",),
        variadic="choices",
        form="condlist, *, choices", canonical=_select_canonical, aliases=(np.select,),
        kind=LINEAR, vjp={"choices": _select_vjp},
        kinks="where no condition holds the gradient goes to default; elsewhere only the "
              "first choice whose condition holds gets it")

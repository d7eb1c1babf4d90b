"""The dispatching wrapper's fast path (issue 16): plain ndarrays, numbers and shape tuples
run the implementation directly, while a type that knows srcgrad's primitives is still
offered the call wherever it sits: any positional place, inside a tuple, or a keyword."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from srcgrad.rules.dispatch import dispatching


class Knowing:
    """An array type that knows srcgrad's primitives and records what it was offered."""

    __srcgrad_primitives__ = True
    offered: list[str] = []

    def __array_function__(self, func: Any, types: Any, args: Any, kwargs: Any) -> Any:
        Knowing.offered.append(func.__name__)
        return "dispatched"


@dispatching
def first_of(x: Any, shape: Any = None, axis: Any = None) -> Any:
    return "implementation"


@pytest.mark.parametrize("args, kwargs", [
    ((np.ones(3), (3,)), {}),
    ((1.5, (2, 3), 1), {}),
    ((np.ones((2, 2)), ((2, 2), (1, 2))), {}),
    ((np.float64(2.0),), {"shape": (4,), "axis": None}),
    ((np.ones(2), None, slice(0, 1)), {}),
])
def test_plain_arguments_run_the_implementation(args, kwargs):
    assert first_of(*args, **kwargs) == "implementation"


@pytest.mark.parametrize("place", ["first", "second", "in_tuple", "nested_last", "keyword"])
def test_a_type_knowing_the_primitives_is_offered_the_call_in_every_place(place):
    k = Knowing()
    args: tuple[Any, ...] = {
        "first": (k, (3,)),
        "second": (np.ones(3), k),
        "in_tuple": (np.ones(3), (3, k)),
        "nested_last": (1.0, (2, 3), (np.ones(2), k)),
        "keyword": (np.ones(3),),
    }[place]
    kwargs = {"shape": k} if place == "keyword" else {}
    Knowing.offered.clear()
    assert first_of(*args, **kwargs) == "dispatched"
    assert Knowing.offered == ["first_of"]

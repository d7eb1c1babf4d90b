"""Writing a tensor that requires grad into a view of one that does not (``z[0] += x``).

PyTorch makes the base part of the graph: its ``grad_fn`` becomes ``CopySlices`` (or the
op's node for a write into the base itself), and every view of it, taken before or after
the write, reads its history afresh (``AsStridedBackward0``). ``z[0] += x`` is two writes:
the add into the view ``z[0]``, then ``z[0] = <that view>``, whose source is a view made
before the first write; it lost x's gradient (found by the fuzzer).

Each program below runs on a library (``srcgrad`` or ``torch``) and returns what it
observed; the expected records are PyTorch 2.13's, written here so the tests run without
torch, and checked against torch when it is installed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

import srcgrad as sg


def _name(t: Any) -> str | None:
    return None if t.grad_fn is None else type(t.grad_fn).__name__


def _weighted_sum(lib: Any, z: Any) -> Any:
    """A loss that tells positions apart: sum of z * [1, 2, 3]."""
    return (z * lib.arange(1.0, 4.0, dtype=lib.float64)).sum()


def _scalar(lib: Any, value: float = 0.5) -> Any:
    return lib.tensor(value, dtype=lib.float64, requires_grad=True)


def _finish(lib: Any, x: Any, z: Any, **observed: Any) -> dict[str, Any]:
    """What the program saw, then x's gradient through the weighted sum of z."""
    record = {"grad_fn": _name(z), "requires_grad": z.requires_grad,
              "version": z._version, **observed}
    _weighted_sum(lib, z).backward()
    record["grad"] = x.grad.tolist()
    return record


def add_into_an_element(lib: Any) -> dict[str, Any]:
    x, z = _scalar(lib), lib.zeros(3, dtype=lib.float64)
    z[0] += x
    return _finish(lib, x, z, values=z.tolist())


def assign_an_element(lib: Any) -> dict[str, Any]:
    x, z = _scalar(lib), lib.zeros(3, dtype=lib.float64)
    z[0] = x
    return _finish(lib, x, z, values=z.tolist())


def add_into_a_slice(lib: Any) -> dict[str, Any]:
    x, z = _scalar(lib), lib.zeros(3, dtype=lib.float64)
    z[1:] += x
    return _finish(lib, x, z, values=z.tolist())


def multiply_an_element(lib: Any) -> dict[str, Any]:
    x, z = _scalar(lib), lib.tensor([2.0, 3.0, 4.0], dtype=lib.float64)
    z[2] *= x
    return _finish(lib, x, z, values=z.tolist())


def add_into_a_named_view(lib: Any) -> dict[str, Any]:
    x, z = _scalar(lib), lib.zeros(3, dtype=lib.float64)
    v = z[1]
    v += x
    return _finish(lib, x, z, view_grad_fn=_name(v), view_version=v._version,
                   values=z.tolist())


def add_into_the_base_itself(lib: Any) -> dict[str, Any]:
    x, z = _scalar(lib), lib.zeros(3, dtype=lib.float64)
    z.add_(x)
    return _finish(lib, x, z, values=z.tolist())


def two_writes_into_sibling_elements(lib: Any) -> dict[str, Any]:
    x, z = _scalar(lib), lib.zeros(3, dtype=lib.float64)
    z[0] += x
    z[2] += 2 * x
    return _finish(lib, x, z, values=z.tolist())


def add_into_a_row_slice_of_a_matrix(lib: Any) -> dict[str, Any]:
    x, z = _scalar(lib), lib.zeros(2, 3, dtype=lib.float64)
    z[1, 1:] += x
    record = {"grad_fn": _name(z), "version": z._version}
    _weighted_sum(lib, z.sum(0)).backward()
    return {**record, "grad": x.grad.tolist()}


def view_taken_before_the_write_then_used(lib: Any) -> dict[str, Any]:
    """The view's requires_grad is decided afresh, also when an op reads it."""
    x, z = _scalar(lib), lib.zeros(3, dtype=lib.float64)
    v = z[:2]
    z[0] += x
    y = v * v
    record = {"view_requires_grad": v.requires_grad, "view_grad_fn": _name(v),
              "product_grad_fn": _name(y)}
    y.sum().backward()
    return {**record, "grad": x.grad.tolist()}


def view_taken_before_a_write_into_the_base(lib: Any) -> dict[str, Any]:
    x = lib.tensor([0.5, 1.5], dtype=lib.float64, requires_grad=True)
    z = lib.zeros(2, 2, dtype=lib.float64)
    v = z[1]
    z.add_(x)
    y = (v * v).sum()
    record = {"view_grad_fn": _name(v), "base_grad_fn": _name(z)}
    y.backward()
    return {**record, "grad": x.grad.tolist()}


def view_taken_before_the_write_joins_a_cat(lib: Any) -> dict[str, Any]:
    x = lib.tensor([0.5, 1.5], dtype=lib.float64, requires_grad=True)
    z = lib.zeros(2, 2, dtype=lib.float64)
    v = z[1]
    z[1] += x
    y = lib.cat([v, z[0]])
    record = {"cat_grad_fn": _name(y)}
    y.pow(2).sum().backward()
    return {**record, "grad": x.grad.tolist()}


def detached_alias_shares_the_version(lib: Any) -> dict[str, Any]:
    x, z = _scalar(lib), lib.zeros(3, dtype=lib.float64)
    d = z.detach()
    z[0] += x
    return _finish(lib, x, z, alias_version=d._version,
                   alias_requires_grad=d.requires_grad)


# (program, what PyTorch 2.13 observes)
CASES: list[tuple[Callable[[Any], dict[str, Any]], dict[str, Any]]] = [
    (add_into_an_element, {"grad_fn": "CopySlices", "requires_grad": True, "version": 2,
                           "values": [0.5, 0.0, 0.0], "grad": 1.0}),
    (assign_an_element, {"grad_fn": "CopySlices", "requires_grad": True, "version": 1,
                         "values": [0.5, 0.0, 0.0], "grad": 1.0}),
    (add_into_a_slice, {"grad_fn": "CopySlices", "requires_grad": True, "version": 2,
                        "values": [0.0, 0.5, 0.5], "grad": 5.0}),
    (multiply_an_element, {"grad_fn": "CopySlices", "requires_grad": True, "version": 2,
                           "values": [2.0, 3.0, 2.0], "grad": 12.0}),
    (add_into_a_named_view, {"grad_fn": "CopySlices", "requires_grad": True, "version": 1,
                             "view_grad_fn": "AsStridedBackward0", "view_version": 1,
                             "values": [0.0, 0.5, 0.0], "grad": 2.0}),
    (add_into_the_base_itself, {"grad_fn": "AddBackward0", "requires_grad": True,
                                "version": 1, "values": [0.5, 0.5, 0.5], "grad": 6.0}),
    (two_writes_into_sibling_elements, {"grad_fn": "CopySlices", "requires_grad": True,
                                        "version": 4, "values": [0.5, 0.0, 1.0],
                                        "grad": 7.0}),
    (add_into_a_row_slice_of_a_matrix, {"grad_fn": "CopySlices", "version": 2,
                                        "grad": 5.0}),
    (view_taken_before_the_write_then_used, {"view_requires_grad": True,
                                             "view_grad_fn": "AsStridedBackward0",
                                             "product_grad_fn": "MulBackward0",
                                             "grad": 1.0}),
    (view_taken_before_a_write_into_the_base, {"view_grad_fn": "AsStridedBackward0",
                                               "base_grad_fn": "AddBackward0",
                                               "grad": [1.0, 3.0]}),
    (view_taken_before_the_write_joins_a_cat, {"cat_grad_fn": "CatBackward0",
                                               "grad": [1.0, 3.0]}),
    (detached_alias_shares_the_version, {"grad_fn": "CopySlices", "requires_grad": True,
                                         "version": 2, "alias_version": 2,
                                         "alias_requires_grad": False, "grad": 1.0}),
]
IDS = [program.__name__ for program, _ in CASES]


@pytest.mark.parametrize(("program", "expected"), CASES, ids=IDS)
def test_srcgrad_matches_pytorch(program: Callable[[Any], dict[str, Any]],
                                 expected: dict[str, Any]) -> None:
    assert program(sg) == expected


@pytest.mark.parametrize(("program", "expected"), CASES, ids=IDS)
def test_the_expected_records_are_pytorchs(program: Callable[[Any], dict[str, Any]],
                                           expected: dict[str, Any]) -> None:
    torch = pytest.importorskip("torch")
    assert program(torch) == expected


def test_create_graph_through_a_write_into_a_no_grad_view() -> None:
    """Second order: d/dx of d/dx sum((z * w)^2) with z[0] += x, z[1] += x * x."""
    x = _scalar(sg)
    z = sg.zeros(3, dtype=sg.float64)
    z[0] += x
    z[1] += x * x
    (first,) = sg.autograd.grad(_weighted_sum(sg, z * z), x, create_graph=True)
    (second,) = sg.autograd.grad(first, x)
    # loss = x^2 + 2 x^4: first = 2x + 8x^3 = 2.0, second = 2 + 24x^2 = 8.0
    assert (first.item(), second.item()) == pytest.approx((2.0, 8.0))

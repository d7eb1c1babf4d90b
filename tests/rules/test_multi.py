"""The records of tuple-returning functions (srcgrad/rules/multi.py): every record has
calls here, and for each call its items, each applied through its own rule, are what the
NumPy function returns (same count, container, shapes and values), on ndarrays and (the
runtime) on Tensors. The per-item derivatives are checked like every rule, from
samples_multi.py. Functions declared tuple-returning without items say how many items
NumPy returns."""

from __future__ import annotations

import numpy as np
import pytest

import srcgrad as sg
from srcgrad.rules import RULES
from srcgrad.rules.multi import MULTI, declared_tuple

from .samples import R

A = R((6, 4))
CUBE = R((2, 4, 6))
SYM = R((3, 3)) + np.eye(3) * 3
SYM = SYM + SYM.T

CALLS: dict[str, list[tuple[tuple, dict]]] = {
    "split": [((R((6,)), 3), {}), ((A, [1, 4]), {}), ((A, 2), {"axis": 1}),
              ((A, np.array([2])), {"axis": -1})],
    "array_split": [((R((7,)), 3), {}), ((A, 4), {"axis": 1}), ((A, [2, 9]), {})],
    "hsplit": [((A, 2), {}), ((R((6,)), [1]), {})],
    "vsplit": [((A, 3), {})],
    "dsplit": [((CUBE, [1, 3]), {})],
    "unstack": [((A,), {}), ((CUBE,), {"axis": -1})],
    "meshgrid": [((R((3,)), R((4,))), {}), ((R((2,)), R((3,)), R((4,))), {"indexing": "ij"}),
                 ((R((2, 2)), R(())), {})],
    "linalg.eigh": [((SYM,), {}), ((SYM,), {"UPLO": "U"})],
    "linalg.svd": [((A,), {"full_matrices": False}), ((A,), {"compute_uv": False})],
    "linalg.qr": [((A,), {}), ((A,), {"mode": "r"})],
    "linalg.slogdet": [((SYM,), {}), ((np.stack([SYM, -SYM]),), {})],
}

CALLS["gradient"] = [((R((6,)),), {}), ((A, 0.5), {}), ((CUBE,), {"axis": (0, -1)}),
                     ((A, list(np.cumsum(R((6,), 0.5, 1.0)))), {"axis": 0, "edge_order": 2}),
                     ((CUBE, 2.0, 1.0, 0.5), {"edge_order": 1})]

_REAL_EIG = np.array([[2.0, 1.0, 0.3], [0.5, -1.0, 0.2], [0.1, 0.4, 0.7]])
CALLS["linalg.eig"] = [((_REAL_EIG,), {}), ((np.stack([_REAL_EIG, _REAL_EIG.T * 2]),), {})]


def _items(name, args, kwargs):
    multi = MULTI[name]
    out = []
    for item in multi.expand(args, kwargs, np.ndim):
        rule = RULES[item.rule]
        names = set(rule.inputs) | set(rule.params)
        out.append(rule.apply({k: v for k, v in item.env.items() if k in names}))
    return multi.result(out)


def test_every_multi_record_has_calls():
    assert sorted(set(MULTI) - set(CALLS)) == []


CASES = [(name, k) for name in sorted(CALLS) if name in MULTI
         for k in range(len(CALLS[name]))]


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0]}-{c[1]}")
def test_items_are_what_numpy_returns(case):
    name, k = case
    args, kwargs = CALLS[name][k]
    want = MULTI[name].impl(*args, **kwargs)
    got = _items(name, args, kwargs)
    assert type(got) is type(want) and len(got) == len(want)
    for g, w in zip(got, want):
        assert np.shape(g) == np.shape(w)
        np.testing.assert_array_equal(g, w)


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0]}-{c[1]}")
def test_numpy_function_on_tensors_returns_tensors_of_the_same_values(case):
    name, k = case
    args, kwargs = CALLS[name][k]
    want = MULTI[name].impl(*args, **kwargs)
    tensors = [sg.tensor(a, requires_grad=True) if isinstance(a, np.ndarray)
               and a.dtype.kind == "f" else a for a in args]
    got = MULTI[name].impl(*tensors, **kwargs)
    if isinstance(want, np.ndarray):  # a call whose result is one array (qr mode='r')
        got, want = (got,), (want,)
    assert type(got) is type(want) and len(got) == len(want)
    items = MULTI[name].expand(args, kwargs, np.ndim)
    for g, w, item in zip(got, want, items):
        # a zero-derivative item (slogdet's sign) does not require grad, as in PyTorch
        assert isinstance(g, sg.Tensor) and g.requires_grad == RULES[item.rule].differentiable
        np.testing.assert_array_equal(g.detach().numpy(), w)


def test_item_rules_name_exactly_the_rules_the_calls_use():
    """``item_rules`` (what the supported-functions page lists) is what ``items`` returns."""
    for name, multi in MULTI.items():
        assert all(r in RULES for r in multi.item_rules), name
        used = {item.rule for args, kwargs in CALLS[name]
                for item in multi.expand(args, kwargs, np.ndim)}
        assert used == set(multi.item_rules), (name, used)


DECLARED = [(np.linalg.eigh, (SYM,), {}), (np.linalg.eig, (SYM,), {}),
            (np.linalg.svd, (A,), {}), (np.linalg.svd, (A,), {"compute_uv": False}),
            (np.linalg.qr, (A,), {}), (np.linalg.qr, (A, "r"), {}),
            (np.linalg.slogdet, (SYM,), {}), (np.linalg.lstsq, (A, R((6,))), {}),
            (np.divmod, (A, 0.3), {}), (np.modf, (A,), {}), (np.frexp, (A,), {}),
            (np.histogram, (A,), {}), (np.broadcast_arrays, (A, R((4,)), 1.0), {})]


@pytest.mark.parametrize("call", DECLARED, ids=lambda c: c[0].__name__)
def test_declared_tuple_functions_count_numpys_items(call):
    fn, args, kwargs = call
    result = fn(*args, **kwargs)
    found = declared_tuple(fn, args, kwargs)
    if isinstance(result, np.ndarray):
        assert found is None
    else:
        assert found is not None and found[1] == len(result)
        assert found[0].endswith(fn.__name__)

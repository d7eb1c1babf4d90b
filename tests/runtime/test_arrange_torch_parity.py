"""PyTorch's spellings of the rearranging and product functions (issue 14) agree with
PyTorch: values, gradients (first and second order) and node names; and the same
functions spelled as NumPy's, applied to Tensors, give PyTorch's gradients. Skips without
torch.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import srcgrad as sg

torch = pytest.importorskip("torch")

A = np.cos(np.arange(12.0)).reshape(3, 4) + 0.5
V = np.array([0.3, -1.2, 0.8])
U = np.array([1.1, 0.4, -0.6])


def _t(lib: Any, data: Any, grad: bool = True) -> Any:
    return lib.tensor(np.array(data), dtype=lib.float64, requires_grad=grad)


def _idx(lib: Any, data: Any) -> Any:
    return lib.tensor(np.array(data), dtype=lib.int64)


# each program: (lib, a, b) -> a tensor; a is 3 x 4, b is another 3-vector or matrix
PROGRAMS: dict[str, tuple[Callable[..., Any], Any, Any]] = {
    "t.tril(k)": (lambda lib, a, b: a.tril(-1) * a, A, None),
    "t.triu(k)": (lambda lib, a, b: lib.triu(a, 1) ** 2, A, None),
    "t.roll(shifts, dims)": (lambda lib, a, b: a.roll((1, -2), (0, 1)) * a, A, None),
    "t.roll(shift)": (lambda lib, a, b: lib.roll(a, 5) * a, A, None),
    "t.flip(dims)": (lambda lib, a, b: a.flip((0, 1)) * a, A, None),
    "fliplr": (lambda lib, a, b: lib.fliplr(a) * a, A, None),
    "flipud": (lambda lib, a, b: lib.flipud(a) * a, A, None),
    "rot90": (lambda lib, a, b: lib.rot90(a, 1, (0, 1)) ** 2, A, None),
    "rot90 k=3 dims=(1,0)": (lambda lib, a, b: lib.rot90(a, 3, (1, 0)) ** 2, A, None),
    "kron": (lambda lib, a, b: lib.kron(a, b), A, A[:2, :2]),
    "t.diff()": (lambda lib, a, b: a.diff() ** 2, A, None),
    "t.diff(n, dim, prepend)": (lambda lib, a, b: a.diff(2, 0, prepend=_t(
        lib, A[:1] + 1.5, grad=False)) ** 2, A, None),
    "t.diff(prepend, append) requiring grad": (lambda lib, a, b: a.diff(
        1, 1, prepend=b, append=b ** 2) ** 2, A, A[:, :2]),
    "tensordot int": (lambda lib, a, b: lib.tensordot(a, b, 1), A, A.T),
    "tensordot lists": (lambda lib, a, b: lib.tensordot(a, b, dims=([0, 1], [0, 1])), A,
                        A * 2.0),
    "t.diagonal(offset, dim1, dim2)": (lambda lib, a, b: a.diagonal(1, 1, 0) ** 2, A, None),
    "t.diagonal()": (lambda lib, a, b: a.diagonal() ** 2, A, None),
    "cross": (lambda lib, a, b: lib.cross(a, b), V, U),
    "linalg.cross batched": (lambda lib, a, b: lib.linalg.cross(a, b), A[:, :3], V[None]),
    "cross dim": (lambda lib, a, b: lib.cross(a, b, dim=0), np.outer(V, U), np.outer(U, V)),
    "t.take_along_dim(i, dim)": (lambda lib, a, b: a.take_along_dim(
        _idx(lib, [[0, 3, 3], [1, 1, 2], [2, 0, 0]]), 1) ** 2, A, None),
    "take_along_dim flat": (lambda lib, a, b: lib.take_along_dim(a, _idx(lib, [1, 1, 7]))
                            ** 2, A, None),
    "take_along_dim flat, 2-d indices": (lambda lib, a, b: lib.take_along_dim(
        a, _idx(lib, [[1, 1], [7, 0]])) ** 2, A, None),
    "take": (lambda lib, a, b: lib.take(a, _idx(lib, [[5, 5], [0, 11]])) ** 2, A, None),
    "t.movedim": (lambda lib, a, b: a[None].movedim(0, 2) ** 2, A, None),
    "moveaxis": (lambda lib, a, b: lib.moveaxis(a[None], (0, 1), (2, 0)) ** 2, A, None),
    "atleast_2d": (lambda lib, a, b: lib.atleast_2d(a[0]) ** 2, A, None),
    "atleast_3d": (lambda lib, a, b: lib.atleast_3d(a) ** 2, A, None),
    "atleast_1d": (lambda lib, a, b: lib.atleast_1d(a[0, 0]) ** 2, A, None),
}
# kron and tensordot end in a view in PyTorch (one edge), srcgrad's node has one per operand;
# PyTorch's diff subtracts two slices (two edges), srcgrad's diff node has one
ARITY_DIFFERS = {"kron", "tensordot int", "tensordot lists", "t.diff()",
                 "t.diff(n, dim, prepend)", "t.diff(prepend, append) requiring grad"}


def _run(lib: Any, name: str) -> tuple[Any, list[Any], Any]:
    fn, a0, b0 = PROGRAMS[name]
    a = _t(lib, a0)
    b = _t(lib, b0) if b0 is not None else None
    out = fn(lib, a, b)
    leaves = [a] + ([b] if b is not None else [])
    weights = lib.tensor(np.cos(np.arange(out.numel())).reshape(tuple(out.shape)),
                         dtype=lib.float64)
    grads = lib.autograd.grad((out * weights).sum(), leaves, create_graph=True)
    second = lib.autograd.grad(sum((g * g).sum() for g in grads), leaves)
    return out, [g.detach().numpy() for g in grads], [s.numpy() for s in second]


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_runtime_spelling_matches_torch(name):
    out_s, grads_s, second_s = _run(sg, name)
    out_t, grads_t, second_t = _run(torch, name)
    np.testing.assert_allclose(out_s.detach().numpy(), out_t.detach().numpy(), rtol=1e-12,
                               atol=1e-14)
    for gs, gt in zip(grads_s, grads_t):
        np.testing.assert_allclose(gs, gt, rtol=1e-10, atol=1e-12)
    for ss, st in zip(second_s, second_t):
        np.testing.assert_allclose(ss, st, rtol=1e-10, atol=1e-12)


def _node(lib: Any, name: str) -> Any:
    fn, a0, b0 = PROGRAMS[name]
    out = fn(lib, _t(lib, a0), _t(lib, b0) if b0 is not None else None)
    node = out.grad_fn
    # step past the program's own elementwise tail (``** 2``, ``* a``) to the op itself
    while type(node).__name__ in ("PowBackward0", "MulBackward0"):
        node = node.next_functions[0][0]
    return node


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_runtime_spelling_node_names_match_torch(name):
    ours, theirs = _node(sg, name), _node(torch, name)
    assert type(ours).__name__ == type(theirs).__name__
    if name not in ARITY_DIFFERS:
        assert len(ours.next_functions) == len(theirs.next_functions)


def test_atleast_returns_a_tensor_that_has_the_dimensions_itself():
    a = sg.tensor(A, requires_grad=True)
    assert sg.atleast_2d(a) is a
    one, two = sg.atleast_1d(a[0, 0], a)
    assert one.shape == (1,) and two is a


def test_linalg_cross_refuses_vectors_of_two():
    with pytest.raises(RuntimeError, match="length 3"):
        sg.linalg.cross(sg.tensor([1.0, 2.0]), sg.tensor([3.0, 4.0]))


NUMPY_ON_TENSORS = {
    "np.tril": lambda lib, a: (np.tril(a, -1) if lib is sg else a.tril(-1)) * a,
    "np.roll": lambda lib, a: (np.roll(a, (1, -2), (0, 1)) if lib is sg
                               else a.roll((1, -2), (0, 1))) * a,
    "np.rot90": lambda lib, a: (np.rot90(a) if lib is sg else torch.rot90(a)) ** 2,
    "np.flipud": lambda lib, a: (np.flipud(a) if lib is sg else torch.flipud(a)) * a,
    "np.kron": lambda lib, a: np.kron(a, a) if lib is sg else torch.kron(a, a),
    "np.diff": lambda lib, a: (np.diff(a, 2, axis=0) if lib is sg else a.diff(2, 0)) ** 2,
    "np.tensordot": lambda lib, a: (np.tensordot(a, a.T, 1) if lib is sg
                                    else torch.tensordot(a, a.T, 1)),
    "np.diagonal": lambda lib, a: (np.diagonal(a, 1) if lib is sg else a.diagonal(1)) ** 2,
    "np.moveaxis": lambda lib, a: (np.moveaxis(a[None], 0, 2) if lib is sg
                                   else a[None].movedim(0, 2)) ** 2,
    "np.swapaxes": lambda lib, a: (np.swapaxes(a, 0, 1) if lib is sg
                                   else a.swapaxes(0, 1)) ** 2,
    "np.rollaxis": lambda lib, a: (np.rollaxis(a[None], 2) if lib is sg
                                   else a[None].movedim(2, 0)) ** 2,
    "np.vstack": lambda lib, a: np.vstack((a, a ** 2)) if lib is sg else torch.vstack(
        (a, a ** 2)),
    "np.column_stack": lambda lib, a: (np.column_stack((a[0], a[1])) if lib is sg else
                                       torch.column_stack((a[0], a[1]))) ** 2,
    "np.atleast_3d": lambda lib, a: (np.atleast_3d(a[0]) if lib is sg
                                     else torch.atleast_3d(a[0])) ** 2,
    "np.einsum ...": lambda lib, a: (np.einsum("...ij,...kj->...ik", a[None], a)
                                     if lib is sg else
                                     torch.einsum("...ij,...kj->...ik", a[None], a)),
}


@pytest.mark.parametrize("name", sorted(NUMPY_ON_TENSORS))
def test_numpy_function_on_tensors_matches_torch_gradient(name):
    fn = NUMPY_ON_TENSORS[name]
    grads = []
    for lib in (sg, torch):
        a = _t(lib, A)
        out = fn(lib, a)
        w = lib.tensor(np.sin(np.arange(out.numel())).reshape(tuple(out.shape)))
        (out * w).sum().backward()
        grads.append(a.grad.numpy())
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("spell", ["np.flip", "np.flipud", "np.fliplr", "np.rot90",
                                   "np.rollaxis", "np.atleast_2d"])
def test_in_place_write_through_a_numpy_view_of_a_tensor_reaches_the_gradient(spell):
    # NumPy returns views here: an in-place change of the result changes the array it views,
    # which the gradient must see (it was computed from the old values)
    fn = {"np.flip": lambda a: np.flip(a), "np.flipud": np.flipud, "np.fliplr": np.fliplr,
          "np.rot90": np.rot90, "np.rollaxis": lambda a: np.rollaxis(a, 1),
          "np.atleast_2d": lambda a: np.atleast_2d(a[0])}[spell]
    x = sg.tensor(A, requires_grad=True)
    a = x * 1.0
    fn(a).mul_(3.0)
    (a * x).sum().backward()
    want = np.array(A)
    want_view = fn(want)
    want_view *= 3.0  # the same write on plain arrays: want is now a after the write
    np.testing.assert_allclose(a.detach().numpy(), want)
    np.testing.assert_allclose(x.grad.numpy(), want + A * (want / A))


@pytest.mark.parametrize("spell", ["t.flip", "sg.fliplr", "sg.flipud", "sg.rot90"])
def test_torch_spelled_flips_are_copies_with_their_own_version(spell):
    fn = {"t.flip": lambda t: t.flip(0), "sg.fliplr": sg.fliplr, "sg.flipud": sg.flipud,
          "sg.rot90": sg.rot90}[spell]
    x = sg.tensor(A, requires_grad=True)
    a = x * 1.0
    y = a.exp()  # saves a's version
    fn(a).mul_(2.0)
    y.sum().backward()  # a's data and version are untouched: no in-place error
    np.testing.assert_allclose(x.grad.numpy(), np.exp(A))

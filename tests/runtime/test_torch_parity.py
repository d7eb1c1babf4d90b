"""The same programs in srcgrad and in PyTorch: values, node names and errors agree.

Each program takes the library (``torch`` or ``srcgrad``) and returns what it computed
(tensors are compared by value, node names by string). Skips without torch.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pytest

import srcgrad as sg

torch = pytest.importorskip("torch")


def f32(lib: Any, data: Any, grad: bool = True) -> Any:
    return lib.tensor(data, dtype=lib.float32, requires_grad=grad)


def names(t: Any) -> list[str]:
    """The node names along the first edges, from ``t.grad_fn`` to a leaf."""
    out, fn = [], t.grad_fn
    while fn is not None:
        out.append(type(fn).__name__)
        fn = fn.next_functions[0][0] if fn.next_functions else None
    return out


def arity(t: Any) -> list[bool]:
    return [n is None for n, _ in t.grad_fn.next_functions]


def seed_graph(lib):
    a = f32(lib, [2.0])
    c = (a * 3).sin()
    c.backward()
    return names(c), a.grad


def chain_rule(lib):
    x = f32(lib, [0.5, 1.0])
    lib.sin(x * 3).sum().backward()
    return x.grad


def accumulation(lib):
    x = f32(lib, [1.0])
    (2 * x).sum().backward()
    (3 * x).sum().backward()
    return x.grad


def second_order(lib):
    x = f32(lib, [2.0])
    g1 = lib.autograd.grad(x ** 3, x, create_graph=True)[0]
    g2 = lib.autograd.grad(g1, x)[0]
    return g1.detach(), g2, names(g1)


def operators(lib):
    x, y = f32(lib, [0.5, 1.5, 2.0]), f32(lib, [1.0, 2.0, 3.0])
    outs = [x * 3, 3 * x, x * y, x + 3, 3 + x, x - 3, 3 - x, x / 3, 3 / x, x / y, -x,
            x ** 2, x ** y, 2 ** x]
    total = sum(o.sum() for o in outs)
    total.backward()
    return [type(o.grad_fn).__name__ for o in outs], [arity(o) for o in outs], x.grad, y.grad


def methods(lib):
    m = f32(lib, [[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]])
    outs = [m.sum(), m.sum(0), m.mean(), m.mean(1, keepdim=True), m.max(), m.max(1)[0],
            m.min(0)[0], m.prod(), m.std(), m.var(1), m.relu(), m.sigmoid(), m.tanh(),
            m.softmax(1), m.log_softmax(0), m.exp(), m.abs(), m.square(), m.clamp(0, 1),
            m.t(), m.T, m.transpose(0, 1), m.permute(1, 0), m.view(6), m.reshape(3, 2),
            m.flatten(), m.unsqueeze(0), m[0], m[:, 1], m[0, 1:], m[[0, 1, 1]], m[m > 0],
            m.double(), m.clone(), m[None], m.expand(2, 2, 3)]
    total = sum(o.double().sum() if o.dtype != lib.float64 else o.sum() for o in outs)
    total.backward()
    return [type(o.grad_fn).__name__ for o in outs], m.grad


def products(lib):
    a, b = f32(lib, [[1.0, 2.0], [3.0, 4.0]]), f32(lib, [[0.5], [1.5]])
    v = f32(lib, [1.0, -1.0])
    outs = [a @ b, a @ v, v @ v, lib.matmul(a, a)]
    sum(o.sum() for o in outs).backward()
    return [type(o.grad_fn).__name__ for o in outs], a.grad, b.grad, v.grad


def functions(lib):
    a, b = f32(lib, [1.0, 2.0]), f32(lib, [3.0, 4.0])
    outs = [lib.cat([a, b]), lib.stack([a, b], 1), lib.where(a > 1, a, b),
            lib.where(a > 1, a, 0.0), lib.maximum(a, b), lib.exp(a), lib.relu(a - 1.5)]
    sum(o.sum() for o in outs).backward()
    return [type(o.grad_fn).__name__ for o in outs], [arity(o) for o in outs], a.grad, b.grad


def inplace(lib):
    x, y = f32(lib, [1.0, 2.0, 3.0]), f32(lib, [4.0, 5.0, 6.0])
    results = []
    for op in (lambda t: t.add_(1), lambda t: t.mul_(y), lambda t: t.zero_(),
               lambda t: t.fill_(2.0), lambda t: t.clamp_(0, 1.5), lambda t: t.copy_(y),
               lambda t: t.__setitem__(0, y[1]), lambda t: t.__setitem__(0, 5.0),
               lambda t: t.__setitem__(slice(0, 2), y[:2]),
               lambda t: t.__setitem__([0, 1], y[:2])):
        t = x * 1
        op(t)
        (t * lib.tensor([1.0, 2.0, 3.0])).sum().backward()
        results.append((type(t.grad_fn).__name__, arity(t), t.detach()))
    return results, x.grad, y.grad


def view_inplace(lib):
    x = f32(lib, [1.0, 2.0, 3.0])
    b = x * 1
    v1, v2 = b[0:2], b[1:3]
    v1.mul_(2)
    (v2 * lib.tensor([1.0, 10.0])).sum().backward()
    return type(b.grad_fn).__name__, type(v1.grad_fn).__name__, arity(b), x.grad


def hooks(lib):
    x = f32(lib, [1.0, 2.0])
    x.register_hook(lambda g: g * 2)
    h = x * x
    h.retain_grad()
    h.register_hook(lambda g: g + 1)
    h.sum().backward()
    return x.grad, h.grad


def promotion(lib):
    i, f, d = lib.tensor([1, 2]), lib.tensor([1.0, 2.0]), lib.tensor([1.0, 2.0],
                                                                     dtype=lib.float64)
    outs = [i * 0.5, f + d, i / i, lib.sin(i), i + 1, f + lib.tensor(1.0, dtype=lib.float64),
            i + lib.tensor(1.0, dtype=lib.float64), lib.tensor([True]) + 1, i > 1]
    return [str(o.dtype).split(".")[1] for o in outs]


def reprs(lib):
    x = f32(lib, [2.0])
    return [repr(t).replace("torch.", "srcgrad.") for t in (
        x, x * 3, lib.tensor([1.0, 2.0], dtype=lib.float64), lib.tensor([1, 2]),
        lib.tensor([True, False]), lib.tensor(3.5), lib.tensor([0.5, 1.0]),
        lib.tensor([1e-5, 1e3]), lib.zeros(2, 3), lib.tensor([]), lib.zeros(0, 3),
        lib.tensor([[1.5, 2.0], [3.0, 4.0]], requires_grad=True), lib.arange(2000.0),
        lib.tensor([123456.0, 0.001]), lib.tensor([1e9, 1.0]), lib.tensor([-1.5, 2.25]))]


def indexing(lib):
    x = f32(lib, [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    outs = [x[0], x[:, 1], x[1, ::2], x[None, 0], x[..., -1], x[lib.tensor([0, 0, 1])],
            x[x > 2.5], x[[1, 0], [2, 2]]]
    weights = [lib.arange(float(o.numel())).reshape(o.shape) for o in outs]
    sum((o * w).sum() for o, w in zip(outs, weights)).backward()
    return [type(o.grad_fn).__name__ for o in outs], [o.detach() for o in outs], x.grad


def kinks(lib):
    x = f32(lib, [0.0, 1.0, 1.0, -2.0])
    outs = [x.abs(), x.relu(), x.clamp(0.0, 1.0), x.max(), x[1:3].sqrt(), lib.maximum(x, 1.0 - x)]
    sum(o.sum() for o in outs).backward()
    return x.grad


def versions(lib):
    x = lib.zeros(3)
    v = x[1:]
    v.add_(1)
    x.mul_(2)
    d = x.detach()
    d.add_(1)
    return [x._version, v._version, d._version, x.data._version], x


class _Cube:
    @staticmethod
    def make(lib):
        class Cube(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x, k):
                ctx.save_for_backward(x)
                ctx.k = k
                return x ** 3 * k

            @staticmethod
            def backward(ctx, g):
                (x,) = ctx.saved_tensors
                return g * 3 * x ** 2 * ctx.k, None

        return Cube


def custom_function(lib):
    cube = _Cube.make(lib)
    x = f32(lib, [1.0, 2.0])
    y = cube.apply(x, 2.0)
    (g,) = lib.autograd.grad(y.sum(), x, create_graph=True)
    (h,) = lib.autograd.grad(g.sum(), x)
    return type(y.grad_fn).__name__, len(y.grad_fn.next_functions), y.detach(), g.detach(), h


def functional(lib):
    x = lib.tensor([1.0, 2.0], dtype=lib.float64)
    jac = lib.autograd.functional.jacobian(lambda v: v.sin() * v[0], x)
    hess = lib.autograd.functional.hessian(lambda v: (v ** 3).sum() * v[1], x)
    ok = lib.autograd.gradcheck(lambda v: (v * v).tanh(), (x.clone().requires_grad_(),))
    return jac, hess, ok


def grad_modes(lib):
    x = f32(lib, [1.0])
    with lib.no_grad():
        a = x * 2
        with lib.enable_grad():
            b = x * 2
    with lib.set_grad_enabled(False):
        c = x * 2
    return [t.requires_grad for t in (a, b, c)], [t.is_leaf for t in (a, b, c)]


def piecewise_constant(lib):
    x = f32(lib, [1.5, -2.25, 0.5])
    ys = [x.round(), x.floor(), x.ceil(), x.sign(), x.trunc(), x.round(decimals=1),
          lib.round(x), lib.floor(x), lib.ceil(x), lib.sign(x), lib.trunc(x)]
    sum(y.sum() * (k + 1) for k, y in enumerate(ys)).backward()
    return [names(y) for y in ys], [y.detach() for y in ys], x.grad


def extremes_with_inf_and_nan(lib):
    inf, nan = float("inf"), float("nan")
    x = f32(lib, [[1.0, inf, -inf], [2.0, 0.0, nan]])
    y = x[0].max() * x[0].min() + (x.max(dim=1).values * inf).sum() + x.min(dim=0).values.sum()
    y.backward()
    z = f32(lib, [1.0, nan, 2.0])
    z.max().backward()
    return x.grad, z.grad


def variance_without_degrees_of_freedom(lib):
    import warnings

    x = f32(lib, [3.0])
    rows = f32(lib, [[3.0], [1.0]])
    with warnings.catch_warnings():  # both warn "degrees of freedom <= 0" in the forward
        warnings.simplefilter("ignore")
        (x.var() + x.std()).backward()
        rows.var(dim=1).sum().backward()
    return x.grad, rows.grad


def amax_amin_share_ties(lib):
    inf = float("inf")
    x = f32(lib, [[1.0, 3.0, 3.0], [2.0, -inf, 2.0]])
    ys = [x.amax(), x.amax(1), x.amin(0, keepdim=True), x.amax((0, 1)), lib.amax(x, dim=1),
          x.amin(dim=None)]
    sum(y.sum() for y in ys).backward()
    z = f32(lib, [[1.0, 3.0, 3.0], [2.0, -inf, 0.0]])
    (z.amax(1) * inf).sum().backward()  # PyTorch: G / count * mask, so inf * 0 is NaN here
    return [names(y) for y in ys], [y.detach() for y in ys], x.grad, z.grad


def reduction_forms(lib):
    x = f32(lib, [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    ys = [x.sum(), x.sum(dim=None), x.sum(None), x.sum(dim=()), x.sum(dim=[]),
          x.sum(dim=None, keepdim=True), x.mean(), x.mean(dim=None), x.mean(()),
          x.mean(dim=None, keepdim=True), x.var(dim=None), x.std(dim=None),
          lib.sum(x, dim=None), lib.mean(x, None), x.sum(0)]
    # (not x.var(()): torch 2.13 reduces all in the forward but its backward divides by
    # N - 1 = 0 as if nothing were reduced, giving +-inf; srcgrad's gradient is finite)
    sum(y.sum() for y in ys).backward()
    return [names(y) for y in ys], [list(y.shape) for y in ys], [y.detach() for y in ys], x.grad


PROGRAMS = [seed_graph, chain_rule, accumulation, second_order, operators, methods, products,
            functions, inplace, view_inplace, hooks, promotion, reprs, indexing, kinks,
            versions, custom_function, functional, grad_modes, piecewise_constant,
            extremes_with_inf_and_nan, variance_without_degrees_of_freedom, reduction_forms,
            amax_amin_share_ties]


def _plain(value: Any) -> Any:
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, torch.Tensor):
        return value.detach().double().numpy()
    if isinstance(value, sg.Tensor):
        return value.detach().double().numpy()
    return value


def _compare(ours: Any, theirs: Any, where: str) -> None:
    if isinstance(theirs, list):
        assert isinstance(ours, list) and len(ours) == len(theirs), where
        for k, (a, b) in enumerate(zip(ours, theirs)):
            _compare(a, b, f"{where}[{k}]")
    elif isinstance(theirs, np.ndarray):
        np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-6, err_msg=where)
    else:
        assert ours == theirs, where


@pytest.mark.parametrize("program", PROGRAMS, ids=lambda p: p.__name__)
def test_same_values_and_node_names(program) -> None:
    _compare(_plain(program(sg)), _plain(program(torch)), program.__name__)


# --- errors: same type, and our message carries PyTorch's words ----------------------

def _backward_twice(lib):
    x = f32(lib, [2.0])
    y = (x * x).sum()
    y.backward()
    y.backward()


def _modified(lib):
    a = f32(lib, [1.0, 2.0, 3.0, 4.0])
    b = a * 2
    c = b * b
    b.add_(1)
    c.sum().backward()


ERRORS = {
    "int_requires_grad": lambda lib: lib.tensor([1, 2]).requires_grad_(),
    "int_tensor_requires_grad": lambda lib: lib.tensor([1, 2], requires_grad=True),
    "int_backward": lambda lib: lib.tensor([1, 2]).sum().backward(),
    "non_scalar": lambda lib: (f32(lib, [1.0, 2.0]) * 2).backward(),
    "twice": _backward_twice,
    "leaf_inplace": lambda lib: f32(lib, [1.0]).add_(1),
    "view_of_leaf": lambda lib: f32(lib, [1.0, 2.0])[0:1].add_(1),
    "numpy_requires_grad": lambda lib: f32(lib, [1.0]).numpy(),
    "mm": lambda lib: lib.zeros(2, 3) @ lib.zeros(4, 5),
    "mv": lambda lib: lib.zeros(2, 3) @ lib.zeros(4),
    "dot": lambda lib: lib.zeros(3) @ lib.zeros(4),
    "matmul_0d": lambda lib: lib.tensor(1.0) @ lib.zeros(4),
    "too_many_indices": lambda lib: lib.zeros(4)[:, 0],
    "out_of_bounds": lambda lib: lib.zeros(4)[5],
    "broadcast": lambda lib: lib.zeros(3) + lib.zeros(4),
    "view_size": lambda lib: lib.zeros(3).view(4),
    "view_stride": lambda lib: lib.zeros(3, 2).t().view(6),
    "modified": _modified,
    "item": lambda lib: lib.zeros(3).item(),
    "float": lambda lib: float(lib.zeros(3)),
    "unused": lambda lib: lib.autograd.grad((f32(lib, [1.0]) * 2).sum(),
                                            [f32(lib, [1.0]), f32(lib, [1.0])]),
    "no_grad_input": lambda lib: lib.autograd.grad((f32(lib, [1.0]) * 2).sum(),
                                                   [lib.ones(1)]),
    "len_0d": lambda lib: len(lib.tensor(1.0)),
    "int_add_float_inplace": lambda lib: lib.tensor([1, 2]).add_(0.5),
    "mean_int": lambda lib: lib.tensor([1, 2]).mean(),
    "retain_grad": lambda lib: lib.ones(2).retain_grad(),
    "hook": lambda lib: lib.ones(2).register_hook(lambda g: g),
    "leaf_requires_grad_false": lambda lib: setattr(f32(lib, [1.0]) * 2, "requires_grad",
                                                    False),
}


def _error(fn: Any, lib: Any) -> BaseException:
    with pytest.raises(Exception) as info:
        fn(lib)
    return info.value


def _words(message: str) -> str:
    text = message.replace("torch.", "srcgrad.").split("Hint:")[0]
    text = re.sub(r"torch\.Size\(\[([^\]]*)\]\)", r"(\1)", text)
    return " ".join(text.split())


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_same_errors(name) -> None:
    ours, theirs = _error(ERRORS[name], sg), _error(ERRORS[name], torch)
    assert type(ours) is type(theirs), (ours, theirs)
    want = _words(str(theirs)).split(". ")[0]  # PyTorch's first sentence, word for word
    got = _words(str(ours))
    assert want in got, f"{got!r} does not carry {want!r}"

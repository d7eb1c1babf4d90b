"""Making tensors, dtypes, reading values back, and PyTorch's repr (API.md section 3)."""

from __future__ import annotations

import numpy as np
import pytest

import srcgrad as sg


@pytest.mark.parametrize("data,dtype", [
    ([1.0, 2.0], sg.float32), ([1, 2], sg.int64), ([True, False], sg.bool),
    (2.5, sg.float32), (3, sg.int64), ([[1, 2.5]], sg.float32),
])
def test_tensor_infers_pytorch_default_dtypes(data, dtype) -> None:
    assert sg.tensor(data).dtype is dtype


def test_ndarray_keeps_its_dtype_and_is_copied() -> None:
    a = np.array([1.0, 2.0])
    t = sg.tensor(a)
    assert t.dtype is sg.float64
    a[0] = 9
    assert t.tolist() == [1.0, 2.0]


def test_dtype_argument_and_requires_grad() -> None:
    t = sg.tensor([1, 2], dtype=sg.float64, requires_grad=True)
    assert t.dtype is sg.float64 and t.requires_grad and t.is_leaf


@pytest.mark.parametrize("make", [
    lambda: sg.tensor([1.0, -1.2], dtype=sg.float64),
    lambda: sg.tensor([[1.0], [-1.2]], dtype=sg.float64).reshape(-1),
    lambda: sg.as_tensor([1.0, -1.2], dtype=sg.float64),
    lambda: sg.Tensor([1.0, -1.2], dtype=sg.float64),
    lambda: sg.full((2,), -1.2, dtype=sg.float64) * sg.tensor([-1 / 1.2, 1.0],
                                                              dtype=sg.float64),
])
def test_float64_from_python_floats_is_exact(make) -> None:
    # Python floats are doubles: no detour through float32 before the cast (as PyTorch)
    assert make().tolist() == [1.0, -1.2]


def test_float64_scalar_and_ranges_from_python_floats_are_exact() -> None:
    assert sg.tensor(-1.2, dtype=sg.float64).item() == -1.2
    assert sg.full_like(sg.zeros(1, dtype=sg.float64), -1.2).tolist() == [-1.2]
    assert sg.arange(0, 0.3, 0.1, dtype=sg.float64).tolist() == [0.0, 0.1, 0.2]
    assert sg.linspace(0, 1.2, 2, dtype=sg.float64).tolist() == [0.0, 1.2]


def test_dtype_cast_of_python_data_truncates_like_pytorch() -> None:
    assert sg.tensor([1.7, -1.7], dtype=sg.int64).tolist() == [1, -1]
    assert sg.tensor([-1.2], dtype=sg.float32).tolist() == [np.float32(-1.2).item()]


def test_tensor_class_constructor_is_float32() -> None:
    t = sg.Tensor([1, 2])
    assert t.dtype is sg.float32 and t.tolist() == [1.0, 2.0]


def test_integer_tensor_cannot_require_grad() -> None:
    with pytest.raises(RuntimeError, match="Only Tensors of floating point and complex dtype "
                                           "can require gradients"):
        sg.tensor([1, 2], requires_grad=True)
    with pytest.raises(RuntimeError, match="only Tensors of floating point"):
        sg.tensor([1, 2]).requires_grad_()


def test_requires_grad_can_be_set_on_leaves_only() -> None:
    x = sg.tensor([1.0])
    x.requires_grad = True
    assert x.requires_grad
    y = x * 2
    with pytest.raises(RuntimeError, match="only change requires_grad flags of leaf"):
        y.requires_grad = False


def test_dtype_objects_print_and_compare() -> None:
    assert repr(sg.float32) == "srcgrad.float32"
    assert sg.float64 == np.float64 and sg.int64 == np.dtype("int64")
    assert sg.bool.name == "bool"


@pytest.mark.parametrize("factory,args,shape", [
    (sg.zeros, (2, 3), (2, 3)), (sg.ones, ((4,),), (4,)), (sg.rand, (2, 2), (2, 2)),
    (sg.randn, (3,), (3,)),
])
def test_factories_make_float32_of_the_shape(factory, args, shape) -> None:
    t = factory(*args)
    assert t.shape == shape and t.dtype is sg.float32 and not t.requires_grad


def test_factories_take_dtype_and_requires_grad() -> None:
    t = sg.zeros(2, dtype=sg.float64, requires_grad=True)
    assert t.dtype is sg.float64 and t.requires_grad
    assert sg.full((2,), 7.0).tolist() == [7.0, 7.0] and sg.full((2,), 7).dtype is sg.int64
    like = sg.ones_like(t)
    assert like.dtype is sg.float64 and not like.requires_grad
    assert sg.zeros_like(t, requires_grad=True).requires_grad


def test_arange_dtypes() -> None:
    assert sg.arange(3).dtype is sg.int64 and sg.arange(3).tolist() == [0, 1, 2]
    assert sg.arange(0, 1, 0.5).dtype is sg.float32
    assert sg.arange(1, 7, 2, dtype=sg.float64).tolist() == [1.0, 3.0, 5.0]


def test_manual_seed_repeats_random_draws() -> None:
    sg.manual_seed(3)
    a = sg.randn(4)
    sg.manual_seed(3)
    assert sg.randn(4).tolist() == a.tolist()


def test_value_readers() -> None:
    t = sg.tensor([[1.5, 2.0]])
    assert float(sg.tensor([2.5])) == 2.5 and int(sg.tensor(3)) == 3
    assert sg.tensor([4.0]).item() == 4.0
    assert t.tolist() == [[1.5, 2.0]]
    assert np.asarray(t).tolist() == [[1.5, 2.0]]


def test_item_of_several_elements_raises() -> None:
    with pytest.raises(RuntimeError, match="a Tensor with 3 elements cannot be converted"):
        sg.zeros(3).item()
    with pytest.raises(ValueError, match="only one element tensors"):
        float(sg.zeros(3))


def test_numpy_shares_memory_and_refuses_grad() -> None:
    t = sg.zeros(2)
    t.numpy()[0] = 5
    assert t.tolist() == [5.0, 0.0]
    x = sg.zeros(2, requires_grad=True)
    with pytest.raises(RuntimeError, match=r"Can't call numpy\(\) on Tensor that requires "
                                           r"grad. Use tensor.detach\(\).numpy\(\) instead."):
        x.numpy()
    assert x.detach().numpy().tolist() == [0.0, 0.0]


def test_shape_queries() -> None:
    t = sg.zeros(2, 3)
    assert t.shape == (2, 3) and t.ndim == 2 and len(t) == 2 and t.numel() == 6
    assert t.size() == (2, 3) and t.size(1) == 3 and t.dim() == 2
    with pytest.raises(TypeError, match="len\\(\\) of a 0-d tensor"):
        len(sg.tensor(1.0))


@pytest.mark.parametrize("make,text", [
    (lambda: sg.tensor([2.0], requires_grad=True), "tensor([2.], requires_grad=True)"),
    (lambda: sg.tensor([2.0], requires_grad=True) * 3, "tensor([6.], grad_fn=<MulBackward0>)"),
    (lambda: sg.tensor([1.0, 2.0], dtype=sg.float64), "tensor([1., 2.], dtype=srcgrad.float64)"),
    (lambda: sg.tensor([1, 2]), "tensor([1, 2])"),
    (lambda: sg.tensor([True, False]), "tensor([ True, False])"),
    (lambda: sg.tensor(3.5), "tensor(3.5000)"),
    (lambda: sg.tensor([0.5, 1.0]), "tensor([0.5000, 1.0000])"),
    (lambda: sg.tensor([1e-5, 1e3]), "tensor([1.0000e-05, 1.0000e+03])"),
    (lambda: sg.zeros(2, 3), "tensor([[0., 0., 0.],\n        [0., 0., 0.]])"),
    (lambda: sg.tensor([]), "tensor([])"),
    (lambda: sg.zeros(0, 3), "tensor([], size=(0, 3))"),
    (lambda: sg.tensor([1, 2], dtype=sg.int32), "tensor([1, 2], dtype=srcgrad.int32)"),
    (lambda: sg.tensor([1.5, float("nan"), float("inf")]), "tensor([1.5000,    nan,    inf])"),
    (lambda: sg.tensor(2.0, dtype=sg.float64, requires_grad=True),
     "tensor(2., dtype=srcgrad.float64, requires_grad=True)"),
])
def test_repr_like_pytorch(make, text) -> None:
    assert repr(make()) == text


def test_repr_summarises_large_tensors() -> None:
    text = repr(sg.arange(2000.0))
    assert text == ("tensor([0.0000e+00, 1.0000e+00, 2.0000e+00,  ..., 1.9970e+03, 1.9980e+03,"
                    "\n        1.9990e+03])")


def test_format_of_one_element() -> None:
    assert f"{sg.tensor(2.0):.2f}" == "2.00"


def test_deepcopy_of_a_leaf_is_independent() -> None:
    import copy

    x = sg.tensor([1.0], requires_grad=True)
    y = copy.deepcopy(x)
    assert y.requires_grad and y.tolist() == [1.0] and not np.shares_memory(x._data, y._data)


def test_ragged_data_is_refused_clearly() -> None:
    with pytest.raises(ValueError, match="not rectangular"):
        sg.tensor([[1, 2], [3]])


def test_devices_other_than_cpu_are_refused() -> None:
    assert sg.zeros(2, device="cpu").tolist() == [0.0, 0.0]
    with pytest.raises(RuntimeError, match="CPU only; device 'cuda'"):
        sg.tensor([1.0], device="cuda")
    with pytest.raises(RuntimeError, match="CPU only"):
        sg.ones(2).to("cuda")


def test_a_tensor_subclass_takes_part_in_the_graph() -> None:
    class Parameter(sg.Tensor):
        pass

    p = Parameter([1.0, 2.0], requires_grad=True)
    (g,) = sg.autograd.grad((p ** 3).sum(), p, create_graph=True)
    (h,) = sg.autograd.grad(g.sum(), p)
    assert g.tolist() == [3.0, 12.0] and h.tolist() == [6.0, 12.0]

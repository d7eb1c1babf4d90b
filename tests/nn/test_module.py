"""``sg.nn.Module`` and its layers: registration, names, modes, state dicts, init (no torch)."""

from __future__ import annotations

import numpy as np
import pytest

import srcgrad as sg
from tests.fd import assert_close, numeric_gradient


class TwoLayer(sg.nn.Module):
    def __init__(self):
        super().__init__()
        self.hidden = sg.nn.Linear(3, 4)
        self.out = sg.nn.Linear(4, 2, bias=False)
        self.scale = sg.nn.Parameter(sg.ones(2))
        self.not_a_param = sg.ones(2)  # a plain tensor attribute is not registered

    def forward(self, x):
        return self.out(self.hidden(x).tanh()) * self.scale


def test_module_registers_parameters_and_submodules_by_attribute_in_order():
    m = TwoLayer()
    assert [n for n, _ in m.named_parameters()] == ["scale", "hidden.weight", "hidden.bias",
                                                     "out.weight"] or \
        [n for n, _ in m.named_parameters()] == ["hidden.weight", "hidden.bias",
                                                  "out.weight", "scale"]
    assert all(p.requires_grad and p.is_leaf for p in m.parameters())
    assert [n for n, _ in m.named_children()] == ["hidden", "out"]
    assert m.out.bias is None
    assert len(list(m.modules())) == 3


def test_named_parameters_follow_torch_order_parameters_first_then_children():
    m = TwoLayer()
    assert [n for n, _ in m.named_parameters()] == ["scale", "hidden.weight", "hidden.bias",
                                                     "out.weight"]


def test_sequential_names_parameters_by_index_and_is_indexable():
    m = sg.nn.Sequential(sg.nn.Linear(3, 4), sg.nn.ReLU(), sg.nn.Linear(4, 1))
    assert [n for n, _ in m.named_parameters()] == ["0.weight", "0.bias", "2.weight", "2.bias"]
    assert list(m.state_dict()) == ["0.weight", "0.bias", "2.weight", "2.bias"]
    assert isinstance(m[1], sg.nn.ReLU) and len(m) == 3 and isinstance(m[-1], sg.nn.Linear)
    assert [type(x).__name__ for x in m[:2]] == ["Linear", "ReLU"]


def test_linear_is_float32_and_initialised_uniformly_within_one_over_sqrt_fan_in():
    sg.manual_seed(3)
    lin = sg.nn.Linear(400, 300)
    w, b = lin.weight.detach().numpy(), lin.bias.detach().numpy()
    assert lin.weight.dtype == sg.float32 and lin.bias.dtype == sg.float32
    assert w.shape == (300, 400) and b.shape == (300,)
    bound = 1 / np.sqrt(400)
    assert np.abs(w).max() <= bound and np.abs(b).max() <= bound
    # uniform on (-bound, bound): mean 0, variance bound^2 / 3
    assert abs(w.mean()) < 0.01 * bound
    assert np.var(w) == pytest.approx(bound ** 2 / 3, rel=0.02)
    sg.manual_seed(3)
    assert np.array_equal(sg.nn.Linear(400, 300).weight.detach().numpy(), w)  # seeded


def test_linear_float64_dtype_argument():
    assert sg.nn.Linear(2, 3, dtype=sg.float64).weight.dtype == sg.float64


def test_module_gradient_matches_finite_differences():
    sg.manual_seed(0)
    m = TwoLayer().double()
    x = sg.tensor(np.random.default_rng(0).standard_normal((5, 3)))
    m(x).pow(2).sum().backward()
    w = m.hidden.weight

    def f(wv):
        h = np.tanh(x.numpy() @ wv.T + m.hidden.bias.detach().numpy())
        y = (h @ m.out.weight.detach().numpy().T) * m.scale.detach().numpy()
        return np.sum(y ** 2)

    assert_close(w.grad.numpy(), numeric_gradient(f, [w.detach().numpy().copy()], None, 0))


def test_zero_grad_resets_every_parameter_to_none():
    m = TwoLayer()
    m(sg.ones(2, 3)).sum().backward()
    assert all(p.grad is not None for p in m.parameters())
    m.zero_grad()
    assert all(p.grad is None for p in m.parameters())


def test_train_and_eval_set_the_mode_recursively_and_switch_dropout():
    m = sg.nn.Sequential(sg.nn.Linear(3, 3), sg.nn.Dropout(0.5))
    assert m.training and m[1].training
    assert m.eval() is m and not m[0].training and not m[1].training
    x = sg.ones(4, 3)
    assert np.array_equal(m(x).detach().numpy(), m[0](x).detach().numpy())
    m.train()
    assert m[1].training


def test_state_dict_round_trip_and_load_copies_in_place():
    a, b = TwoLayer(), TwoLayer()
    weight = b.hidden.weight
    result = b.load_state_dict(a.state_dict())
    assert result.missing_keys == [] and result.unexpected_keys == []
    assert b.hidden.weight is weight  # the same Parameter, new values
    for (na, pa), (nb, pb) in zip(a.state_dict().items(), b.state_dict().items()):
        assert na == nb and np.array_equal(pa.numpy(), pb.numpy())
        assert not pa.requires_grad  # detached, as PyTorch's state_dict


def test_load_state_dict_reports_missing_unexpected_and_size_mismatch():
    m = sg.nn.Linear(2, 3)
    with pytest.raises(RuntimeError, match=r'Missing key\(s\) in state_dict: "bias"'):
        m.load_state_dict({"weight": sg.zeros(3, 2)})
    with pytest.raises(RuntimeError, match=r'Unexpected key\(s\) in state_dict: "extra"'):
        m.load_state_dict({**m.state_dict(), "extra": sg.zeros(1)})
    with pytest.raises(RuntimeError, match="size mismatch for weight"):
        m.load_state_dict({"weight": sg.zeros(2, 2), "bias": sg.zeros(3)})
    keys = m.load_state_dict({"weight": sg.zeros(3, 2)}, strict=False)
    assert keys.missing_keys == ["bias"]
    assert np.all(m.weight.detach().numpy() == 0)


def test_assigning_a_non_parameter_to_a_parameter_name_is_a_type_error():
    m = sg.nn.Linear(2, 2)
    with pytest.raises(TypeError, match="cannot assign"):
        m.weight = sg.ones(2, 2)


def test_module_without_forward_raises_like_torch():
    with pytest.raises(NotImplementedError, match='missing the required "forward"'):
        sg.nn.Module()(1)


def test_parameter_shares_storage_and_prints_like_torch():
    t = sg.zeros(2)
    p = sg.nn.Parameter(t)
    assert p.requires_grad and p.is_leaf
    t.add_(1)
    assert p.detach().numpy().tolist() == [1.0, 1.0]
    assert repr(p).startswith("Parameter containing:\ntensor(")


def test_dropout_is_seeded_by_manual_seed_and_scales_kept_elements():
    x = sg.ones(1000, dtype=sg.float64, requires_grad=True)
    sg.manual_seed(11)
    a = sg.nn.functional.dropout(x, 0.25)
    sg.manual_seed(11)
    b = sg.nn.functional.dropout(x, 0.25)
    assert np.array_equal(a.detach().numpy(), b.detach().numpy())
    kept = a.detach().numpy() != 0
    assert np.allclose(a.detach().numpy()[kept], 1 / 0.75)
    assert 0.65 < kept.mean() < 0.85
    a.sum().backward()
    assert np.array_equal(x.grad.numpy(), a.detach().numpy())  # d/dx (x * mask) = mask
    assert type(a.grad_fn).__name__ == "MulBackward0"
    assert sg.nn.functional.dropout(x, 0.5, training=False) is x
    with pytest.raises(ValueError, match="between 0 and 1"):
        sg.nn.functional.dropout(x, 1.5)


def test_loss_modules_call_their_functional_with_their_options():
    x = sg.tensor(np.random.default_rng(1).standard_normal((4, 3)), requires_grad=True)
    t = sg.tensor([0, 2, 1, 2])
    loss = sg.nn.CrossEntropyLoss(reduction="sum", label_smoothing=0.1)
    assert float(loss(x, t)) == float(sg.nn.functional.cross_entropy(
        x, t, reduction="sum", label_smoothing=0.1))
    assert list(sg.nn.CrossEntropyLoss(weight=sg.ones(3)).state_dict()) == ["weight"]
    with pytest.raises(ValueError, match="not a valid value for reduction"):
        sg.nn.MSELoss(reduction="avg")

"""The example scripts of ``docs/api.md`` for families of look-alike names.

Data for :mod:`.apidoc`: one runnable script per family of names that share one docstring
or have none of their own (dtypes, Tensor methods, the ``sg.nn`` modules ...), shown once
under the family's table instead of under every name.
"""

# One example per family of names that share one docstring or none of their own.
FAMILY_EXAMPLES = {
    "dtypes": """\
import srcgrad as sg

t = sg.tensor([1.0, 2.0], dtype=sg.float64)
print(t.dtype, t.float().dtype, sg.tensor([1, 2]).dtype)   # float64, float32, int64
""",
    "mirrors": """\
import srcgrad as sg

t = sg.tensor([[1.0, -2.0], [3.0, 0.5]], requires_grad=True)
y = sg.sum(sg.sin(t) * sg.exp(t), dim=1)     # the same as t.sin() * t.exp() ... .sum(dim=1)
y = sg.mean(sg.clamp(y, min=0.0))
y.backward()
print(y, t.grad)
parts = sg.split(t, 1, dim=0)                 # PyTorch's split: a piece size
print(len(parts), sg.stack(parts).shape, sg.cat(parts, dim=1).shape)
""",
    "tensors": """\
import numpy as np
import srcgrad as sg

sg.manual_seed(0)
a = sg.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)   # a leaf, float32
b = sg.from_numpy(np.arange(4.0).reshape(2, 2))              # shares memory, float64
c = sg.zeros(2, 2) + sg.ones_like(a) + sg.full((2, 2), 0.5) + sg.eye(2)
d = sg.randn(2, 2) * sg.rand(2, 2) + sg.randint(0, 3, (2, 2))
e = sg.arange(0, 4).reshape(2, 2) + sg.linspace(0.0, 1.0, 4).reshape(2, 2)
loss = (a * c + d + e).sum() + (a.double() * b).sum()
loss.backward()
print(a.grad, sg.is_tensor(a), sg.numel(a), sg.empty(1).shape, sg.zeros_like(a).dtype)
""",
    "grad_mode": """\
import srcgrad as sg

w = sg.tensor([1.0], requires_grad=True)
with sg.no_grad():
    print(sg.is_grad_enabled(), (w * 2).requires_grad)     # False False
    with sg.enable_grad():
        print((w * 2).requires_grad)                        # True
with sg.set_grad_enabled(False):
    print((w * 2).requires_grad)                            # False

@sg.no_grad()
def update(p):
    p -= 0.1                                                # in place on a leaf: fine here

update(w)
print(w)
""",
    "autograd": """\
import srcgrad as sg

x = sg.tensor([1.0, 2.0], requires_grad=True, dtype=sg.float64)
(g,) = sg.autograd.grad((x ** 3).sum(), x, create_graph=True)   # 3x^2
sg.autograd.backward(g.sum())                                   # x.grad = 6x
print(g, x.grad)

class Square(sg.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    @sg.autograd.once_differentiable
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return 2 * x * grad

print(sg.autograd.gradcheck(Square.apply, (x,)), sg.autograd.gradgradcheck(lambda t: t ** 3, (x,)))
with sg.autograd.detect_anomaly():
    print(sg.autograd.is_anomaly_enabled())                     # True
with sg.autograd.inference_mode():
    print((x * 2).requires_grad)                                # False
print(sg.autograd.functional.jacobian(lambda t: t ** 2, x))
print(sg.autograd.functional.hessian(lambda t: (t ** 3).sum(), x))
""",
    "optim": """\
import srcgrad as sg

w = sg.tensor([1.0, -2.0], requires_grad=True)
for optimizer in (sg.optim.SGD([w], lr=0.1, momentum=0.9), sg.optim.Adam([w], lr=0.1)):
    for _ in range(20):
        optimizer.zero_grad()
        loss = (w ** 2).sum()
        loss.backward()
        optimizer.step()
    print(type(optimizer).__name__, loss.item(), isinstance(optimizer, sg.optim.Optimizer))
""",
    "linalg": """\
import srcgrad as sg

A = sg.tensor([[4.0, 1.0], [1.0, 3.0]], dtype=sg.float64, requires_grad=True)
L = sg.linalg.cholesky(A)
w, V = sg.linalg.eigh(A)
sign, logabsdet = sg.linalg.slogdet(A)
U, S, Vh = sg.linalg.svd(A)
Q, R = sg.linalg.qr(A)
x = sg.linalg.solve(A, sg.tensor([1.0, 2.0], dtype=sg.float64))
total = (L.sum() + w.sum() + logabsdet + S.sum() + R.sum() + x.sum()
         + sg.linalg.inv(A).sum() + sg.linalg.det(A) + sg.linalg.pinv(A).sum()
         + sg.linalg.norm(A) + sg.linalg.vector_norm(A) + sg.linalg.matrix_norm(A)
         + sg.linalg.matrix_power(A, 2).sum() + sg.linalg.multi_dot([A, A, A]).sum()
         + sg.linalg.eigvalsh(A).sum() + sg.linalg.svdvals(A).sum())
total.backward()
print(A.grad)
""",
    "viz": """\
import srcgrad as sg

a = sg.tensor([2.0], requires_grad=True)
dot = sg.viz.make_dot((a * 3).sin(), params={"a": a})
print(dot.source.splitlines()[0])                           # digraph {
""",
    "nn": """\
import srcgrad as sg
import srcgrad.nn as nn

sg.manual_seed(0)

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(3, 8), nn.GELU(), nn.Dropout(0.1), nn.Linear(8, 8))
        self.act = nn.Tanh()
        self.head = nn.Linear(8, 2)

    def forward(self, x):
        return self.head(self.act(self.body(x)))

net = Net()
x, target = sg.randn(4, 3), sg.tensor([0, 1, 1, 0])
logits = net(x)
losses = [nn.CrossEntropyLoss()(logits, target), nn.NLLLoss()(nn.LogSoftmax(dim=1)(logits), target),
          nn.MSELoss()(nn.Softmax(dim=1)(logits), sg.ones(4, 2) / 2),
          nn.L1Loss()(nn.ReLU()(logits), sg.zeros(4, 2)), nn.SmoothL1Loss()(logits, sg.zeros(4, 2)),
          nn.BCELoss()(nn.Sigmoid()(logits), sg.ones(4, 2)),
          nn.BCEWithLogitsLoss()(nn.Identity()(logits), sg.ones(4, 2))]
sum(losses).backward()
net.eval()
state = net.state_dict()
net.load_state_dict(state)
print(sorted(state)[:2], [p.grad.shape for p in net.parameters()][:2],
      isinstance(net.head.weight, nn.Parameter))
""",
    "nn_functional": """\
import srcgrad as sg
import srcgrad.nn.functional as F

sg.manual_seed(0)
x = sg.randn(4, 3, requires_grad=True)
w, b = sg.randn(2, 3, requires_grad=True), sg.zeros(2, requires_grad=True)
z = F.linear(x, w, b)                                  # AddmmBackward0
p = F.softmax(z, dim=1)
target = sg.tensor([0, 1, 1, 0])
loss = (F.cross_entropy(z, target) + F.nll_loss(F.log_softmax(z, dim=1), target)
        + F.cross_entropy(z, p.detach())                 # class probabilities
        + F.mse_loss(F.relu(z), sg.zeros(4, 2)) + F.l1_loss(F.gelu(z), sg.zeros(4, 2))
        + F.smooth_l1_loss(F.tanh(z), sg.zeros(4, 2), beta=0.5)
        + F.binary_cross_entropy(F.sigmoid(z), sg.ones(4, 2))
        + F.binary_cross_entropy_with_logits(F.dropout(z, p=0.2), sg.ones(4, 2)))
loss.backward()
print(loss.grad_fn.name(), x.grad.shape, w.grad.shape, b.grad.shape)
""",
    "methods": """\
import srcgrad as sg

t = sg.arange(6, dtype=sg.float64).reshape(2, 3).requires_grad_()
y = (t.T @ t).tanh().sum(dim=0).max()
y.backward()
print(y.item(), t.grad.shape, t.detach().numpy().sum())
""",
}

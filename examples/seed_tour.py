"""The seed walkthrough of PyTorch autograd, block by block, with srcgrad's names.

Run: python examples/seed_tour.py   (``torch.`` became ``sg.``; values print as in the seed)
"""

import math

import srcgrad as sg

if __name__ == "__main__":
    print("-- how the graph is built")
    a = sg.tensor([2.0], requires_grad=True)
    b = a * 3  # grad_fn=<MulBackward0>
    c = b.sin()  # grad_fn=<SinBackward0>
    print("c.grad_fn:", c.grad_fn)
    print("b.grad_fn:", b.grad_fn)
    c.backward()
    print("a.grad:", a.grad)  # cos(6) * 3 ~ 2.88

    print("-- chain rule: grad = cos(3x) * 3")
    x = sg.tensor([0.5, 1.0], requires_grad=True)
    sg.sin(x * 3).sum().backward()
    print([round(g, 4) for g in x.grad.tolist()])
    print([round(e, 4) for e in (math.cos(1.5) * 3, math.cos(3.0) * 3)])

    print("-- accumulation and zeroing")
    x = sg.tensor([1.0], requires_grad=True)
    (2 * x).sum().backward()
    (3 * x).sum().backward()  # ACCUMULATES
    print("grad after two backwards:", x.grad)  # 2 + 3 = 5
    x.grad.zero_()
    print("after zero_:", x.grad)
    y = x * 2
    try:  # the seed leaves x.add_(1) commented out; uncommented, PyTorch (and we) raise here
        x.add_(1)
    except RuntimeError as e:
        print("inplace on a leaf:", str(e)[:60])

    print("-- detach, no_grad, enable_grad")
    x = sg.randn(4, requires_grad=True)
    print("z.requires_grad:", (x * 2).detach().requires_grad)  # False
    with sg.no_grad():
        out = x * 3
        with sg.enable_grad():
            g = x * 3
    print("no_grad:", out.requires_grad, " enable_grad inside:", g.requires_grad)
    sg.set_grad_enabled(False)  # global toggle (for this thread)
    print("after set_grad_enabled(False):", (x * 3).requires_grad)
    sg.set_grad_enabled(True)

    print("-- create_graph and second-order gradients")
    x = sg.tensor([2.0], requires_grad=True)
    g1 = sg.autograd.grad(x ** 3, x, create_graph=True)[0]  # 3x^2 = 12
    g2 = sg.autograd.grad(g1, x)[0]  # 6x = 12
    print("first:", g1.item(), " second:", g2.item())

    print("-- autograd.grad vs backward")
    sg.manual_seed(0)
    x = sg.randn(2, requires_grad=True)
    y = x.square().sum()
    print("grad via autograd.grad:", sg.autograd.grad(y, x, retain_graph=True))
    y.backward()
    print("grad via backward:", x.grad)

    print("-- debugging the graph")
    x = sg.randn(2, 2, requires_grad=True)
    try:  # the seed's flatten()[:, 0] indexes a 1-D tensor twice: PyTorch raises too
        (x + 1).relu().flatten()[:, 0]
    except IndexError as e:
        print("flatten()[:, 0]:", e)
    fn = (x + 1).relu().flatten()[0].grad_fn
    while fn is not None:  # the seed's loop also fails at the leaf (AccumulateGrad has
        print(type(fn).__name__)  # no next_functions); stop there instead
        fn = fn.next_functions[0][0] if fn.next_functions else None
    print(sg.viz.make_dot((x + 1).relu().sum(), params={"x": x}).splitlines()[0])
    with sg.autograd.detect_anomaly():
        try:
            sg.tensor([-1.0], requires_grad=True).sqrt().backward()
        except RuntimeError as e:
            print("anomaly:", str(e).splitlines()[0])

# ruff: noqa
# Golden emitted source (pytest --update-golden regenerates it).
# forward mode: the gradient w.r.t. one float is one directional derivative, so
# its tangent is carried through the code beside the value (no tape, no reverse)
def grad_while_doubling(x):
    # line 79: while x < 100.0:
    x_1 = x
    dx_1 = 1.0
    while x_1 < 100.0:
        # line 80: x = x * 2.0
        x_1 = x_1 * 2.0
        dx_1 = dx_1 * 2.0
    return dx_1

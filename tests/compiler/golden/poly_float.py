# ruff: noqa
# Golden emitted source (pytest --update-golden regenerates it).
import math
from srcgrad.compiler.support import like


# forward mode: the gradient w.r.t. one float is one directional derivative, so
# its tangent is carried through the code beside the value (no tape, no reverse)
def grad_poly(x):
    # line 20: y = math.sin(x) * x ** 2
    _t1 = math.cos(x) * x ** 2.0
    _t1 = _t1 + math.sin(x) * 2.0 * x
    dx = like(_t1, x)
    return dx

"""Corpus: Python statements (assignment forms, docstrings, pass, annotations, assert, print,
raise in dead code, default and keyword arguments)."""

import numpy as np

from . import ND, PYFLOAT, C, F, program


@program(F())
def assign_chain(x):
    a = x * 2.0
    b = a + 1.0
    c = b * a
    return np.sum(c)


@program(F())
def rebind_same_name(x):
    x = x * 2.0
    x = np.sin(x)
    x = x + x * x
    return np.sum(x)


@program(F(), F())
def aug_add(x, y):
    s = x * y
    s += x * x
    s += 3.0
    return np.sum(s)


@program(F(), F())
def aug_sub(x, y):
    s = x * 3.0
    s -= y * x
    s -= 1.0
    return np.sum(s)


@program(F(), F())
def aug_mul(x, y):
    s = x + 1.0
    s *= y
    s *= s
    return np.sum(s)


@program(F(), F(lo=0.5, hi=2.0))
def aug_div(x, y):
    s = x * 2.0
    s /= y
    s /= 4.0
    return np.sum(s)


@program(F(), F(), kinds=PYFLOAT)
def aug_on_float_alias(x, y):
    # for Python floats and NumPy scalars ``a = x; a += y`` rebinds ``a`` only
    a = x * 1.0
    b = a
    a += y
    return np.sum(a * b)


@program(F(), F())
def tuple_unpack(x, y):
    a, b = x * 2.0, y + 1.0
    return np.sum(a * b)


@program(F(), F())
def tuple_swap(x, y):
    a, b = x, y
    a, b = b, a * 3.0
    return np.sum(a * 2.0 + b * b)


@program(F(), F())
def nested_unpack(x, y):
    (a, b), c = (x, y * 2.0), x * y
    return np.sum(a * b + c)


@program(F(), C(3))
def int_arithmetic(x, n):
    m = n * 2 + 1
    k = m // 2
    return np.sum(x * m + k ** 2)


@program(F())
def docstring_pass_annotation(x):
    """A docstring is kept in the primal and has no derivative."""
    y: float = x * 2.0
    pass
    z: float
    z = y * y
    return np.sum(z)


@program(F(), C(2))
def assert_statement(x, n):
    assert n > 0, "n must be positive"
    assert n < 10
    return np.sum(x ** n)


@program(F())
def print_statement(x):
    y = np.sin(x)
    print("srcgrad corpus: y =", y)
    return np.sum(y * x)


@program(F())
def raise_after_return(x):
    y = x * x
    return np.sum(y)
    raise RuntimeError("dead code after return")


@program(F(), kw={"scale": F(lo=0.5, hi=2.0)})
def keyword_argument(x, scale=1.0):
    return np.sum(scale * np.sin(x))


@program(F(), kw={"scale": F(lo=0.5, hi=2.0)}, wrt="scale")
def keyword_argument_wrt(x, scale=1.0):
    return np.sum(scale * np.sin(x) + scale * scale)


@program(F())
def default_argument_used(x, shift=0.5, power=2):
    return np.sum((x + shift) ** power)


@program(F(), kw={"shift": F()})
def keyword_only_argument(x, *, shift=0.0):
    return np.sum(np.exp(x - shift))


@program(F((2, 3)), kinds=ND)
def augmented_on_fresh_array(x):
    y = x * 1.0  # a new array: writing into it cannot reach the caller's data
    y += x
    y *= x
    return np.sum(y)


@program(F(), F(), wrt=(0, 1))
def names_clash_with_adjoints(x, dx):
    # the user's own ``dx`` and ``_t1``: emitted adjoint and temporary names must not clash
    _t1 = x * dx
    ddx = _t1 + dx * dx
    return np.sum(ddx * x)

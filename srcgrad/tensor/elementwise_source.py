"""The source templates of the elementwise ops (:mod:`.elementwise` fills and compiles
them): a unary op, a binary op with its usual forms written out to their end (``tail``),
and the plain result tensor every form makes. They read the names of the op's namespace
(``tensor``, ``quiet_run``, ``plans``...), bound by :mod:`.elementwise`.
"""

from __future__ import annotations

# every slot of a plain result tensor (tensor.py), at the op's indentation
PLAIN = """\
    result = new(tensor)
    result._data = out
    result._vc = [0]
    result._grad_fn = result._base = result._acc = None
    result._rg = False
    result._output_nr = 0
"""


def indent(text: str, by: int) -> str:
    return "".join(" " * by + line if line.strip() else line
                   for line in text.splitlines(keepends=True))


UNARY = """\
def op(self):
    a = self
    x = a._data
    dt = x.dtype
    if dt is F32 or dt is F64:  # (identity first: the kind of a dtype is slower)
        plain = True
    else:
        if float_result and dt.kind != "f":
            x = x.astype(F32)
        plain = x.dtype.kind in NUMERIC
    # nan/inf are values, not warnings (PyTorch): in the quiet context when only
    # NumPy's loops run (fp_errors), else by setting the error state around it
    if plain and type(x) is ndarray:
        try:
            out = quiet_run(direct, x)
        except RuntimeError:  # the context is in use: an op run from inside one
            out = quietly(direct, x)
    else:
        out = quietly(impl, x)
    if type(out) is not ndarray:
        out = asarray(out)
    # a view may require grad without knowing it yet (nodes.view_requires)
    if (a._rg or a._base is not None and view_requires(a)) and (ALL_THREADS.grad or
                                                                 STATE.enabled):
        if out.dtype is dt:  # nothing to cast back (dt: the input's): the quick builder
{fused}\
            plan = quick_plans[1] or plan_for(1, spec, True, False, True)
{plain_quick}\
            plan.quick(result, a)
            return result
        plan = plans[1] or plan_for(1, spec, True, False, False)
{plain_build}\
        plan.build((a,), (a,), (a._data,), result, None)
        return result
{plain}\
    return result
"""

BINARY = """\
def op(self, other):
    a, b = self, other
    # The usual forms first, each written out to its end: a Tensor of one of the two usual
    # float dtypes with another of the same dtype, or with a Python number on either side
    # (the general code below decides the same, with more checks). ``also``: a subclass
    # whose operands are plain Tensors here (``nn.Parameter``: register_operand_class)
    kind = type(a)
    if kind is tensor or kind is also:
        x = a._data
        dt = x.dtype
        if dt is F32 or dt is F64:
            kind = type(b)
            if kind is tensor or kind is also:
                y = b._data
                if y.dtype is dt:
{tail_3}\
            elif kind is float:
                y = b = (S32 if dt is F32 else S64).get(b) or scalar_array(b, dt)
{tail_2}\
            elif kind is int:  # (a 0-d array too where the dtype holds it exactly)
                if -EXACT <= b <= EXACT:
                    y = b = (S32 if dt is F32 else S64).get(b) or scalar_array(b, dt)
                else:
                    y = b
{tail_2}\
    elif (kind := type(b)) is tensor or kind is also:
        y = b._data
        dt = y.dtype
        if dt is F32 or dt is F64:
            kind = type(a)
            if kind is float:
                x = a = (S32 if dt is F32 else S64).get(a) or scalar_array(a, dt)
{tail_1}\
            elif kind is int:
                if -EXACT <= a <= EXACT:
                    x = a = (S32 if dt is F32 else S64).get(a) or scalar_array(a, dt)
                else:
                    x = a
{tail_1}\
    ta = type(a) is tensor or isinstance(a, tensor)
    tb = type(b) is tensor or isinstance(b, tensor)
    x = a._data if ta else a
    y = b._data if tb else b
    # the Spec per call form, at 2 * (a is a Tensor) + (b is a Tensor): an index, where a
    # dict would hash a fresh tuple per operation
    form = 2 * ta + tb
    spec = forms[form]
    if spec is None:
        spec = forms[form] = spec_for(rule, (ta, tb))
    if ta and tb:
        dt = x.dtype  # (identity first: the kind of a dtype is a slower attribute)
        # (other dtypes than numbers, whose ufunc loops call Python, take the general
        # path: it does not run in the quiet context, see below)
        fast = dt is y.dtype and (dt is F32 or dt is F64 or dt.kind == "f" or
                                  not spec.float_result and dt.kind in NUMERIC)
    elif ta:
        dt = x.dtype
        fast = type(y) in SCALARS and (dt is F32 or dt is F64 or dt.kind == "f")
        if fast and type(y) is float:
            cache = S32 if dt is F32 else S64 if dt is F64 else scalars(dt)
            y = b = cache.get(y) or scalar_array(y, dt)
    else:
        dt = y.dtype
        fast = type(x) in SCALARS and (dt is F32 or dt is F64 or dt.kind == "f")
        if fast and type(x) is float:
            cache = S32 if dt is F32 else S64 if dt is F64 else scalars(dt)
            x = a = cache.get(x) or scalar_array(x, dt)
    if not fast:
        if not (ta or isinstance(x, (int, float, bool, ndarray, generic))) or \\
                not (tb or isinstance(y, (int, float, bool, ndarray, generic))):
            raise TypeError(f"unsupported operand types for {{spec.rule.name}}: "
                            f"{{type(a).__name__}} and {{type(b).__name__}}")
        x, y = promote(spec, (x, y))  # (the node reads the inputs' own dtypes)
    # nan/inf are values, not warnings: the fast forms (numbers only: NumPy's loops alone
    # run) in the quiet context, the others by setting the error state
    call = spec.impl
    try:
        if fast:
            try:
                out = quiet_run(call, x, y)
            except RuntimeError:  # the context is in use: an op run from inside one
                out = quietly(call, x, y)
        else:
            out = quietly(call, x, y)
    except ValueError as e:
        if "broadcast" not in str(e):
            raise
        raise RuntimeError(broadcast_message(x, y)) from None
    if type(out) is not ndarray:
        out = asarray(out)
    ra = ta and (a._rg or a._base is not None and view_requires(a))
    rb = tb and (b._rg or b._base is not None and view_requires(b))
    if (ra or rb) and (ALL_THREADS.grad or STATE.enabled) and spec.differentiable:
        # the plan per call form and inputs needing grad, at 4 * form + 2 * ra + rb
        k = 4 * form + 2 * ra + rb
        # quick: nothing to unbroadcast or cast back (see specialize). Elementwise: a
        # number or 0-d array takes the tensor's shape; two tensors, their common one
        if fast and out.dtype is dt and elementwise and (not (ta and tb) or
                                                         x.shape == y.shape):
{fused}\
            plan = quick_plans[k] or plan_for(k, spec, ra, rb, True)
{plain_quick}\
            plan.quick(result, a, b)  # (a number operand is its own array here)
            return result
        plan = plans[k] or plan_for(k, spec, ra, rb, False)
{plain_build}\
        plan.build((a, b), (a, b), (a._data if ta else x, b._data if tb else y), result,
                   None)
        return result
{plain}\
    return result
"""

# the end of one usual form of a binary op (form = 2 * (a is a Tensor) + (b is a Tensor)):
# its operands x, y are arrays (or a Python int) of dtype dt; {requires} says which need grad
TAIL = """\
try:  # (quiet: see the general code)
    try:
        out = quiet_run(impl, x, y)
    except RuntimeError:
        out = quietly(impl, x, y)
except ValueError as e:
    if "broadcast" not in str(e):
        raise
    raise RuntimeError(broadcast_message(x, y)) from None
if type(out) is not ndarray:
    out = asarray(out)
{requires}\
if (ra or rb) and (ALL_THREADS.grad or STATE.enabled) and differentiable:
    k = {k0} + 2 * ra + rb
    if out.dtype is dt and elementwise{same_shape}:
{fused}\
        plan = quick_plans[k] or plan_for(k, forms[{form}] or spec_of({form}), ra, rb, True)
{plain_quick}\
        plan.quick(result, a, b)
        return result
    plan = plans[k] or plan_for(k, forms[{form}] or spec_of({form}), ra, rb, False)
{plain_build}\
    plan.build((a, b), (a, b), (x, y), result, None)  # (a number: its own array)
    return result
{plain}\
return result
"""

REQUIRES = {
    3: "ra = a._rg or a._base is not None and view_requires(a)\n"
       "rb = b._rg or b._base is not None and view_requires(b)\n",
    2: "ra = a._rg or a._base is not None and view_requires(a)\nrb = False\n",
    1: "ra = False\nrb = b._rg or b._base is not None and view_requires(b)\n",
}


def tail(form: int, fused: str, depth: int) -> str:
    """The written-out end of usual form ``form``, at ``depth`` spaces."""
    text = TAIL.format(
        form=form,
        requires=REQUIRES[form], k0=4 * form,
        same_shape=" and x.shape == y.shape" if form == 3 else "",
        fused=indent(fused, 8), plain=dedent(PLAIN),
        plain_quick=indent(dedent(PLAIN), 8), plain_build=indent(dedent(PLAIN), 4))
    return indent(text, depth)


def dedent(text: str) -> str:
    return "".join(line[4:] if line.startswith("    ") else line
                   for line in text.splitlines(keepends=True))

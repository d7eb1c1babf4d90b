# ruff: noqa
# Golden emitted source (pytest --update-golden regenerates it).
import numpy as np
from srcgrad.compiler.support import like, seed_one, zeros_of
from srcgrad.rules.helpers import scatter_add, unreduce


def grad_first_large_row(a):
    _t1 = a.shape
    # line 86: for row in a:
    _t2 = len(a)
    tape = []
    _return1 = False
    _returned1 = None
    for i in range(_t2):
        row = a[i]
        _t3 = not _return1
        if _t3:
            # line 87: if np.sum(row) > 1.0:
            _t5 = row.sum() > 1.0
            if _t5:
                # line 88: return np.sum(row * row)
                _t7 = row * row
                _t6 = row.shape
                _returned1_2 = _t7.sum()
                _return1_2 = True
            else:
                _return1_2, _returned1_2, _t6 = _return1, _returned1, None
            _return1_1, _returned1_1, _t4 = _return1_2, _returned1_2, _t6
        else:
            _return1_1, _returned1_1, _t4, _t5 = _return1, _returned1, None, None
        tape.append((_t4, row, _returned1, _t5, _t3))
        _return1, _returned1 = _return1_1, _returned1_1
    # line 86: for row in a:
    if _return1:
        _t8 = _returned1
    else:
        # line 89: return np.sum(a)
        _t8 = a.sum()
    _t8 = seed_one(_t8)
    # line 86: for row in a:
    if _return1:
        da = np.zeros(a.shape)
        d_returned1 = _t8
    else:
        # line 89: return np.sum(a)
        da = unreduce(_t8, _t1)
        # line 86: for row in a:
        d_returned1 = zeros_of(_returned1)
    for i_1 in reversed(range(_t2)):
        _t9, row_1, _returned1_3, _t10, _t11 = tape.pop()
        if _t11:
            # line 87: if np.sum(row) > 1.0:
            if _t10:
                # line 88: return np.sum(row * row)
                drow_2 = unreduce(d_returned1, _t9) * row_1
                drow_1 = drow_2 + drow_2
                # line 87: if np.sum(row) > 1.0:
                d_returned1_2 = zeros_of(_returned1_3)
            else:
                drow_1 = zeros_of(row_1)
                d_returned1_2 = d_returned1
            drow, d_returned1_1 = drow_1, d_returned1_2
        else:
            # line 86: for row in a:
            drow = zeros_of(row_1)
            d_returned1_1 = d_returned1
        da = da + scatter_add(drow, _t1, i_1)
        d_returned1 = d_returned1_1
    da = like(da, a)
    return da

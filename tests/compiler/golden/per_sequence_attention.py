# ruff: noqa
# Golden emitted source (pytest --update-golden regenerates it).
import numpy as np
from srcgrad.compiler.support import like
from srcgrad.rules.helpers import unbroadcast
# _tape_buffers = buffers of the arrays its loops tape, kept between calls (srcgrad.compiler.buffers)  (not importable; bound by srcgrad)


def grad_per_sequence_attention(Wq, Wv, x):
    buffers = _tape_buffers.take()
    _t1 = x.shape
    # line 222: for b in range(x.shape[0]):
    _t2 = _t1[0]
    tape = []
    total = 0.0
    for i in range(_t2):
        # line 223: xb = x[b]
        xb = x[i]
        # line 224: q, v = xb @ Wq, xb @ Wv
        q = xb @ Wq if buffers is None else buffers.into(0, np.matmul, xb, Wq)
        v = xb @ Wv if buffers is None else buffers.into(1, np.matmul, xb, Wv)
        # line 225: s = q @ q.T
        _t3 = q.T
        s = q @ _t3
        # line 226: p = np.exp(s - s.max(axis=1, keepdims=True))
        p = np.exp(s - s.max(1, keepdims=True))
        del s
        # line 227: p = p / p.sum(axis=1, keepdims=True)
        _t4 = p.sum(1, keepdims=True)
        _t5 = _t4.shape
        p_1 = p / _t4 if buffers is None else buffers.into(2, np.divide, p, _t4)
        del p, _t4
        # line 228: total = total + np.sum((p @ v) ** 2)
        _t6 = p_1 @ v if buffers is None else buffers.into(3, np.matmul, p_1, v)
        _t7 = _t6 ** 2
        _t8 = _t6.shape
        total = total + _t7.sum()
        del _t7
        tape.append((_t6, v, p_1, _t5, _t3, q, xb))
    # line 222: for b in range(x.shape[0]):
    dWv = np.zeros(Wv.shape)
    dWq = np.zeros(Wq.shape)
    for i_1 in reversed(range(_t2)):
        _t9, v_1, p_2, _t10, _t11, q_1, xb_1 = tape.pop()
        # line 228: total = total + np.sum((p @ v) ** 2)
        _t12 = 2.0 * _t9
        del _t9
        dp_1 = _t12 @ v_1.T
        del v_1
        dv = p_2.T @ _t12
        del _t12
        # line 227: p = p / p.sum(axis=1, keepdims=True)
        dp_1 -= unbroadcast(dp_1 * p_2, _t10)
        # line 226: p = np.exp(s - s.max(axis=1, keepdims=True))
        dp_1 *= p_2
        del p_2
        # line 225: s = q @ q.T
        dq = dp_1 @ _t11.T + np.transpose(dp_1) @ q_1
        del _t11, q_1, dp_1
        # line 224: q, v = xb @ Wq, xb @ Wv
        _t13 = xb_1.T
        dWv_1 = _t13 @ dv
        del dv
        dWq_1 = _t13 @ dq
        del dq
        # line 222: for b in range(x.shape[0]):
        dWv += dWv_1
        del dWv_1
        dWq += dWq_1
    dWq = like(dWq, Wq)
    dWv = like(dWv, Wv)
    _tape_buffers.give(buffers)
    return dWq, dWv

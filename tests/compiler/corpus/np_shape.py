"""Corpus: shape functions (``np.transpose``, ``np.reshape``, ``np.squeeze``,
``np.expand_dims``, ``np.broadcast_to``, ``np.concatenate``, ``np.stack``, ``np.tile``,
``np.repeat``, ``np.flip``)."""

import numpy as np

from . import ND, F, program

RAMP_6 = np.arange(6.0)


@program(F((2, 3, 4)), kinds=ND)
def np_transpose(A):
    B = np.transpose(A)
    C = np.transpose(A, (1, 0, 2))
    return np.sum(B[:, :, 0] * np.arange(12.0).reshape(4, 3)) + np.sum(C[0] ** 2)


@program(F((2, 3)), kinds=ND)
def np_reshape(A):
    B = np.reshape(A, (3, 2))
    C = np.reshape(A, -1)
    return np.sum(B @ A) + np.sum(C * RAMP_6)


@program(F((3, 1)), kinds=ND)
def np_squeeze_expand(x):
    v = np.squeeze(x)
    w = np.squeeze(x, axis=1)
    r = np.expand_dims(v, 0)
    c = np.expand_dims(w, axis=-1)
    return np.sum(r * c * v)


@program(F((3,)), kinds=ND)
def np_broadcast_to(v):
    B = np.broadcast_to(v, (4, 3))
    return np.sum(B * np.arange(12.0).reshape(4, 3))


@program(F((2, 3)), F((1, 3)), kinds=ND, wrt=(0, 1))
def np_concatenate(A, b):
    C = np.concatenate([A, b, A * b])
    D = np.concatenate((A, A), axis=1)
    return np.sum(C * np.arange(15.0).reshape(5, 3)) + np.sum(D ** 2)


@program(F((2, 3)), F((2, 3)), kinds=ND, wrt=(0, 1))
def np_stack_axes(A, B):
    S0 = np.stack([A, B])
    S2 = np.stack([A, B, A], axis=2)
    return np.sum(S0[1] * S0[0]) + np.sum(S2 * np.array([1.0, 2.0, 3.0]))


@program(F((2, 3)), kinds=ND)
def np_tile(A):
    T = np.tile(A, (2, 2))
    t = np.tile(A[0], 3)
    return np.sum(T * np.arange(24.0).reshape(4, 6)) + np.sum(t * t)


@program(F((2, 3)), kinds=ND)
def np_repeat(A):
    R = np.repeat(A, 2, axis=0)
    r = np.repeat(A, 3)
    return np.sum(R * np.arange(12.0).reshape(4, 3)) + np.sum(r * np.arange(18.0))


@program(F((2, 3)), kinds=ND)
def np_flip(A):
    return (np.sum(np.flip(A) * np.arange(6.0).reshape(2, 3))
            + np.sum(np.flip(A, axis=1)[0] * np.array([1.0, 2.0, 3.0])))

"""User functions in a module of their own: corpus programs call them across modules."""

import math

import numpy as np

SCALE = 1.5  # a module global read by a function of this module


def softplus(x):
    return np.log1p(np.exp(x))


def scaled_tanh(x, scale=SCALE):
    return scale * np.tanh(x)


def affine(x, w, b=0.25):
    return w * x + b


def cube_math(v):
    return math.pow(v, 3.0) + math.sin(v)


def polar(r, theta):
    return r * np.cos(theta), r * np.sin(theta)


def make_power(p):
    """A closure factory: the returned function reads ``p`` from its cell."""

    def power(v):
        return v ** p

    return power

"""``sg.tensor`` of an array of another library is refused with a clear error.

The runtime computes on NumPy in the client process: a Tensor made from a Dask array would
compute it, and PyTorch's float inference would turn its float64 into float32 silently.
The error names the array type and says what to do (sg.grad on the arrays themselves, or
an explicit np.asarray).
"""

from __future__ import annotations

import numpy as np
import pytest

import srcgrad as sg
from tests.foreign.devicearray import DeviceArray


def _refused(data):
    with pytest.raises(TypeError) as info:
        sg.tensor(data)
    message = str(info.value)
    assert type(data).__qualname__ in message
    assert "sg.grad" in message and "np.asarray" in message
    return message


def test_tensor_of_a_dask_array_is_refused_without_computing_it():
    da = pytest.importorskip("dask.array")
    callbacks = pytest.importorskip("dask.callbacks")
    computed = []
    with callbacks.Callback(start=lambda dsk: computed.append(1)):
        _refused(da.ones(3, dtype=np.float64, chunks=2))
    assert computed == []


def test_tensor_of_a_cupy_like_array_is_refused():
    _refused(DeviceArray(np.ones(3)))


def test_tensor_of_an_explicitly_converted_dask_array_keeps_float64():
    da = pytest.importorskip("dask.array")
    t = sg.tensor(np.asarray(da.ones(3, dtype=np.float64, chunks=2)))
    assert t.dtype == sg.float64


def test_tensor_arithmetic_with_a_dask_array_is_refused_not_computed():
    da = pytest.importorskip("dask.array")
    callbacks = pytest.importorskip("dask.callbacks")
    t = sg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    computed = []
    with callbacks.Callback(start=lambda dsk: computed.append(1)):
        with pytest.raises(TypeError):
            sg.as_tensor(da.ones(3, chunks=2))
        with pytest.raises(TypeError):
            t + da.ones(3, chunks=2)
    assert computed == []

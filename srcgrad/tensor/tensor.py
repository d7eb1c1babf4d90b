"""The runtime's Tensor: an ndarray plus what autograd needs (top of the tensor layer).

A Tensor holds its values in ``_data`` (an ndarray) and its autograd state: ``_grad_fn``
(the node that made it; ``None`` for leaves), ``_rg`` (requires grad), ``_grad``,
``_vc`` (a version counter, a one-element list shared with its views and ``detach()``),
and for views ``_base`` (the tensor owning the storage) and ``_view_fn`` (how to replay
the view from the base). The math is in the mixins: :mod:`.math_methods`,
:mod:`.reduce_methods`, :mod:`.shape_methods` (views and indexing), :mod:`.inplace`,
:mod:`.numpy_protocol`; each operation is recorded by :mod:`.ops`.
"""

from __future__ import annotations

import warnings
import weakref
from typing import Any

import numpy as np

from ..autograd.api import backward as _backward
from ..autograd.graph import AccumulateGrad, RemovableHandle
from . import dtypes, formatting
from . import ops as _ops
from .arrange_methods import ArrangeMethods
from .complex_methods import ComplexMethods
from .elem_methods import ElemMethods
from .inplace import refresh_view
from .math_methods import MathMethods
from .numpy_protocol import NumpyProtocol
from .reduce_methods import ReduceMethods
from .shape_methods import ShapeMethods

_new = object.__new__


class Tensor(MathMethods, ReduceMethods, ShapeMethods, NumpyProtocol, ArrangeMethods,
             ElemMethods, ComplexMethods):
    """A multi-dimensional array that records the operations applied to it."""

    # What every operation reads lives in slots, set by each constructor (``__new__``,
    # ``_wrap`` and the recording paths, which write all seven): a slot read is a fixed
    # offset, where a class-level default is looked up through the instance dict and the
    # mixins' MRO on every read. (The mixins have no slots: a tensor still has a
    # ``__dict__`` and weak references, for what is rarely set and for subclasses.)
    __slots__ = ("_data", "_vc", "_grad_fn", "_rg", "_output_nr", "_base", "_acc")
    _data: np.ndarray
    _vc: list[int]
    _grad_fn: Any
    _rg: bool
    _output_nr: int
    _base: Tensor | None
    _acc: Any
    # Class-level defaults for the rest: a new tensor sets them only when they differ.
    _grad: Tensor | None = None
    _view_fn: Any = None
    _base_fn: Any = None
    _hooks: list[Any] | None = None
    _retains_grad = False
    __array_priority__ = 1000.0

    def __new__(cls, *args: Any, **kwargs: Any) -> Tensor:
        """Every slot set (subclasses such as ``nn.Parameter`` build through this)."""
        t = _new(cls)
        t._vc = [0]
        t._grad_fn = t._base = t._acc = None
        t._rg = False
        t._output_nr = 0
        return t

    def __init__(self, data: Any = (), *, requires_grad: bool = False,
                 dtype: Any = None) -> None:
        """``sg.Tensor(data)``: like ``torch.Tensor``, float32 unless ``dtype`` says."""
        if isinstance(data, Tensor):
            data = data._data
        np_dtype = dtypes.to_numpy(dtype) if dtype is not None else dtypes.DEFAULT_FLOAT
        self._data = np.array(data, dtype=np_dtype)
        self._vc = [0]
        if requires_grad:
            self.requires_grad_(True)

    @classmethod
    def _wrap(cls, data: np.ndarray, grad_fn: Any = None, output_nr: int = 0) -> Tensor:
        """A tensor around ``data`` (no copy); the runtime's own constructor."""
        t = _new(cls)
        t._data = data
        t._vc = [0]
        t._base = t._acc = None
        t._grad_fn = grad_fn
        t._output_nr = output_nr
        t._rg = grad_fn is not None
        return t

    # --- autograd state ----------------------------------------------------------------
    @property
    def requires_grad(self) -> bool:
        if self._base is not None and self._base_fn is not self._base._grad_fn:
            self._refresh_view()
        return self._rg

    @requires_grad.setter
    def requires_grad(self, flag: bool) -> None:
        self.requires_grad_(flag)

    def requires_grad_(self, requires_grad: bool = True) -> Tensor:
        flag = bool(requires_grad)
        if self._grad_fn is not None:
            if not flag:
                raise RuntimeError(
                    "you can only change requires_grad flags of leaf variables. If you want "
                    "to use a computed variable in a subgraph that doesn't require "
                    "differentiation use var_no_grad = var.detach().")
            return self
        if flag and self._data.dtype.kind != "f":
            raise RuntimeError("only Tensors of floating point dtype can require gradients "
                               f"(this one is {self.dtype.name})")
        self._rg = flag
        return self

    @property
    def grad_fn(self) -> Any:
        if self._base is not None and self._base_fn is not self._base._grad_fn:
            self._refresh_view()
        return self._grad_fn

    @property
    def is_leaf(self) -> bool:
        return self.grad_fn is None

    @property
    def grad(self) -> Tensor | None:
        if self._grad_fn is not None and not self._retains_grad and self._grad is None:
            warnings.warn(
                "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. "
                "Its .grad attribute won't be populated during autograd.backward(). If you "
                "indeed want the .grad field to be populated for a non-leaf Tensor, use "
                ".retain_grad() on the non-leaf Tensor.", UserWarning, stacklevel=2)
        return self._grad

    @grad.setter
    def grad(self, value: Tensor | None) -> None:
        if value is not None:
            if not isinstance(value, Tensor):
                raise TypeError(f"assigned grad expected to be a Tensor or None but got "
                                f"{type(value).__name__}")
            if value._data.shape != self._data.shape:
                raise RuntimeError(f"assigned grad has data of a different size: "
                                   f"{value._data.shape} vs {self._data.shape}")
            if value._data.dtype != self._data.dtype:
                raise RuntimeError(f"assigned grad has data of a different type: "
                                   f"{value.dtype.name} vs {self.dtype.name}")
        self._grad = value

    @grad.deleter
    def grad(self) -> None:
        self._grad = None

    @property
    def output_nr(self) -> int:
        return self._output_nr

    @property
    def _version(self) -> int:
        return self._vc[0]

    @property
    def retains_grad(self) -> bool:
        return self._retains_grad

    def _accumulator(self) -> AccumulateGrad:
        """This leaf's ``AccumulateGrad`` (held weakly, as PyTorch does)."""
        acc = self._acc() if self._acc is not None else None
        if acc is None:
            acc = AccumulateGrad(self)
            self._acc = weakref.ref(acc)
        return acc

    def _refresh_view(self) -> None:
        """The base was written in place after this view was made: re-read its history."""
        refresh_view(self)

    def retain_grad(self) -> None:
        """Keep this non-leaf tensor's gradient in ``.grad`` after backward."""
        if not self.requires_grad:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        if self._grad_fn is None or self._retains_grad:
            return
        fn = self._grad_fn
        if fn._retained is None:
            fn._retained = {}
            fn._special = True
        fn._retained[self._output_nr] = weakref.ref(self)
        self._retains_grad = True

    def register_hook(self, hook: Any) -> RemovableHandle:
        """``hook(grad)`` runs when this tensor's gradient is computed; a returned value
        replaces the gradient. Returns a handle with ``.remove()``."""
        if not self.requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require "
                               "gradient")
        fn = self.grad_fn
        if fn is None:
            if self._hooks is None:
                self._hooks = []
            hooks = self._hooks
        else:
            if fn._tensor_hooks is None:
                fn._tensor_hooks = {}
                fn._special = True
            hooks = fn._tensor_hooks.setdefault(self._output_nr, [])
        hooks.append(hook)
        return RemovableHandle(hooks, hook)

    def backward(self, gradient: Any = None, retain_graph: bool | None = None,
                 create_graph: bool = False, inputs: Any = None) -> None:
        """Accumulate d(self)/d(leaf) into every leaf's ``.grad`` (see ``sg.autograd``)."""
        _backward(self, gradient, retain_graph, create_graph, inputs=inputs)

    def detach(self) -> Tensor:
        """A new leaf sharing this tensor's storage and version counter."""
        t = Tensor._wrap(self._data)
        t._vc = self._vc
        return t

    def detach_(self) -> Tensor:
        """Make this tensor a leaf that does not require grad, in place."""
        if self._base is not None:
            raise RuntimeError("Can't detach views in-place. Use detach() instead.")
        self._grad_fn = None
        self._rg = False
        self._output_nr = 0
        return self

    @property
    def data(self) -> Tensor:
        """The values as a tensor outside the graph (shares storage, own version)."""
        return Tensor._wrap(self._data)

    @data.setter
    def data(self, value: Tensor) -> None:
        self._data = value._data if isinstance(value, Tensor) else np.asarray(value)

    # --- reading values ----------------------------------------------------------------
    @property
    def dtype(self) -> dtypes.DType:
        return dtypes.from_numpy(self._data.dtype)

    @property
    def shape(self) -> tuple[int, ...]:
        return self._data.shape

    @property
    def ndim(self) -> int:
        return self._data.ndim

    @property
    def device(self) -> str:
        return "cpu"

    def is_floating_point(self) -> bool:
        return self._data.dtype.kind == "f"

    def size(self, dim: int | None = None) -> Any:
        return self._data.shape if dim is None else self._data.shape[dim]

    def dim(self) -> int:
        return self._data.ndim

    def numel(self) -> int:
        return int(self._data.size)

    def element_size(self) -> int:
        return self._data.itemsize

    def __len__(self) -> int:
        if self._data.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._data.shape[0]

    def item(self) -> Any:
        if self._data.size != 1:
            raise RuntimeError(f"a Tensor with {self._data.size} elements cannot be "
                               "converted to Scalar")
        return self._data.reshape(()).item()

    def tolist(self) -> Any:
        return self._data.tolist()

    def numpy(self, *, force: bool = False) -> np.ndarray:
        """The values as an ndarray sharing memory (raises if this tensor requires grad)."""
        if self.requires_grad and not force:
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use "
                               "tensor.detach().numpy() instead.")
        return self._data

    def _scalar(self, kind: str) -> Any:
        if self._data.size != 1:
            raise ValueError(f"only one element tensors can be converted to Python scalars "
                             f"(this one has shape {self._data.shape})")
        return self._data.reshape(()).item()

    def __float__(self) -> float:
        return float(self._scalar("float"))

    def __int__(self) -> int:
        return int(self._scalar("int"))

    def __index__(self) -> int:
        if self._data.dtype.kind not in "iub" or self._data.size != 1:
            raise TypeError("only integer tensors of a single element can be converted to "
                            "an index")
        return int(self._data.reshape(()).item())

    def __bool__(self) -> bool:
        if self._data.size != 1:
            raise RuntimeError(f"Boolean value of Tensor with more than one value is "
                               f"ambiguous (shape {self._data.shape})")
        return bool(self._data.reshape(()).item())

    def __complex__(self) -> complex:
        return complex(self._scalar("complex"))

    def __format__(self, spec: str) -> str:
        if self._data.ndim == 0 or (spec and self._data.size == 1):
            return format(self._data.reshape(()).item(), spec)
        return format(repr(self), spec)

    def __hash__(self) -> int:
        return id(self)

    def __iter__(self) -> Any:
        if self._data.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return (self[i] for i in range(self._data.shape[0]))

    def __repr__(self) -> str:
        return formatting.tensor_repr(self)

    def __str__(self) -> str:
        return formatting.tensor_repr(self)

    def __reduce_ex__(self, protocol: Any) -> Any:
        return (_rebuild, (self._data, self._rg if self._grad_fn is None else False))

    def __deepcopy__(self, memo: dict[int, Any]) -> Tensor:
        if self._grad_fn is not None:
            raise RuntimeError("Only Tensors created explicitly by the user (graph leaves) "
                               "support the deepcopy protocol at the moment.")
        t = Tensor._wrap(self._data.copy())
        t._rg = self._rg
        if self._grad is not None:
            t._grad = Tensor._wrap(self._grad._data.copy())
        memo[id(self)] = t
        return t


def _rebuild(data: np.ndarray, requires_grad: bool) -> Tensor:
    t = Tensor._wrap(data)
    t._rg = requires_grad
    return t


_ops._Tensor = Tensor  # the recording hot paths' global (no module lookup per operation)
_ops.bind_tensor(Tensor)  # (the elementwise ops' name for it)

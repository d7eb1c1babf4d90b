"""``sg.nn.Module`` and ``sg.nn.Parameter``: PyTorch's container of trainable tensors.

Sits on the runtime (``tensor``). Assigning a :class:`Parameter` or a :class:`Module` to
an attribute registers it, as in PyTorch, so ``parameters()``, ``named_parameters()``
(dotted names such as ``0.weight``), ``state_dict()`` and ``zero_grad()`` find it without
the user listing anything; calling a module runs its ``forward``.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Iterator
from typing import Any, NamedTuple

import numpy as np

from ..autograd.grad_mode import no_grad
from ..tensor import dtypes
from ..tensor.elementwise import register_operand_class
from ..tensor.tensor import Tensor

__all__ = ["Module", "Parameter"]


class Parameter(Tensor):
    """A leaf Tensor that a :class:`Module` registers; it requires grad by default.

    It shares ``data``'s storage, as ``torch.nn.Parameter`` does.
    """

    def __init__(self, data: Any = None, requires_grad: bool = True) -> None:
        if data is None:
            data = np.empty((0,), dtype=np.float32)
        self._data = data._data if isinstance(data, Tensor) else np.asarray(data)
        self._vc = [0]
        if requires_grad:
            self.requires_grad_(True)

    def __repr__(self) -> str:
        return "Parameter containing:\n" + super().__repr__()


# (the operators' written-out forms take a Parameter as the Tensor it is: ``h * w``)
register_operand_class(Parameter)


class _IncompatibleKeys(NamedTuple):
    missing_keys: list[str]
    unexpected_keys: list[str]

    def __repr__(self) -> str:
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return (f"_IncompatibleKeys(missing_keys={self.missing_keys}, "
                f"unexpected_keys={self.unexpected_keys})")


class Module:
    """Base class of every layer: subclass it, assign parameters and submodules in
    ``__init__``, write ``forward``; ``module(x)`` calls ``forward(x)``."""

    training: bool

    def __init__(self) -> None:
        object.__setattr__(self, "training", True)
        object.__setattr__(self, "_parameters", OrderedDict())
        object.__setattr__(self, "_buffers", OrderedDict())
        object.__setattr__(self, "_modules", OrderedDict())

    # --- registration --------------------------------------------------------------------
    def _tables(self) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
        try:
            return (self.__dict__["_parameters"], self.__dict__["_buffers"],
                    self.__dict__["_modules"])
        except KeyError:
            raise AttributeError("cannot assign parameters or modules before "
                                 "Module.__init__() call") from None

    def __setattr__(self, name: str, value: Any) -> None:
        if isinstance(value, (Parameter, Module)) or name in self.__dict__.get(
                "_parameters", ()) or name in self.__dict__.get("_modules", ()) \
                or name in self.__dict__.get("_buffers", ()):
            params, buffers, modules = self._tables()
            if isinstance(value, Parameter):
                self._forget(name)
                params[name] = value
            elif isinstance(value, Module):
                self._forget(name)
                modules[name] = value
            elif name in params:
                if value is not None:
                    raise TypeError(f"cannot assign '{type(value).__name__}' as parameter "
                                    f"'{name}' (sg.nn.Parameter or None expected)")
                params[name] = None
            elif name in modules:
                if value is not None:
                    raise TypeError(f"cannot assign '{type(value).__name__}' as child module "
                                    f"'{name}' (sg.nn.Module or None expected)")
                modules[name] = None
            else:
                if value is not None and not isinstance(value, Tensor):
                    raise TypeError(f"cannot assign '{type(value).__name__}' as buffer "
                                    f"'{name}' (sg.Tensor or None expected)")
                buffers[name] = value
            return
        object.__setattr__(self, name, value)

    def _forget(self, name: str) -> None:
        self.__dict__.pop(name, None)
        for table in self._tables():
            table.pop(name, None)

    def __getattr__(self, name: str) -> Any:
        # only reached when normal lookup fails: parameters, buffers, submodules
        for table in ("_parameters", "_buffers", "_modules"):
            found = self.__dict__.get(table)
            if found is not None and name in found:
                return found[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name: str) -> None:
        for table in self._tables():
            if name in table:
                del table[name]
                return
        object.__delattr__(self, name)

    def register_parameter(self, name: str, param: Parameter | None) -> None:
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(f"cannot assign '{type(param).__name__}' object to parameter "
                            f"'{name}' (sg.nn.Parameter or None required)")
        self._forget(name)
        self._tables()[0][name] = param

    def register_buffer(self, name: str, tensor: Tensor | None, persistent: bool = True) -> None:
        self._forget(name)
        self._tables()[1][name] = tensor

    def add_module(self, name: str, module: Module | None) -> None:
        if module is not None and not isinstance(module, Module):
            raise TypeError(f"{type(module).__name__} is not a Module subclass")
        self._forget(name)
        self._tables()[2][name] = module

    register_module = add_module

    # --- calling -----------------------------------------------------------------------
    def forward(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(f'Module [{type(self).__name__}] is missing the required '
                                  '"forward" function')

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.forward(*args, **kwargs)

    # --- walking the tree -----------------------------------------------------------------
    def named_modules(self, memo: set[int] | None = None, prefix: str = "",
                      remove_duplicate: bool = True) -> Iterator[tuple[str, Module]]:
        memo = set() if memo is None else memo
        if remove_duplicate:
            if id(self) in memo:
                return
            memo.add(id(self))
        yield prefix, self
        for name, child in self._modules.items():
            if child is not None:
                sub = f"{prefix}.{name}" if prefix else name
                yield from child.named_modules(memo, sub, remove_duplicate)

    def modules(self) -> Iterator[Module]:
        for _, m in self.named_modules():
            yield m

    def named_children(self) -> Iterator[tuple[str, Module]]:
        seen: set[int] = set()
        for name, child in self._modules.items():
            if child is not None and id(child) not in seen:
                seen.add(id(child))
                yield name, child

    def children(self) -> Iterator[Module]:
        for _, child in self.named_children():
            yield child

    def _named_members(self, table: str, prefix: str, recurse: bool,
                       remove_duplicate: bool = True) -> Iterator[tuple[str, Any]]:
        seen: set[int] = set()
        owners = self.named_modules(prefix=prefix) if recurse else [(prefix, self)]
        for owner_name, owner in owners:
            for name, value in getattr(owner, table).items():
                if value is None or (remove_duplicate and id(value) in seen):
                    continue
                seen.add(id(value))
                yield (f"{owner_name}.{name}" if owner_name else name), value

    def named_parameters(self, prefix: str = "", recurse: bool = True,
                         remove_duplicate: bool = True) -> Iterator[tuple[str, Parameter]]:
        """``(dotted name, parameter)`` pairs in registration order, each tensor once."""
        return self._named_members("_parameters", prefix, recurse, remove_duplicate)

    def parameters(self, recurse: bool = True) -> Iterator[Parameter]:
        for _, p in self.named_parameters(recurse=recurse):
            yield p

    def named_buffers(self, prefix: str = "", recurse: bool = True,
                      remove_duplicate: bool = True) -> Iterator[tuple[str, Tensor]]:
        return self._named_members("_buffers", prefix, recurse, remove_duplicate)

    def buffers(self, recurse: bool = True) -> Iterator[Tensor]:
        for _, b in self.named_buffers(recurse=recurse):
            yield b

    # --- training state -------------------------------------------------------------------
    def train(self, mode: bool = True) -> Module:
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        for m in self.modules():
            object.__setattr__(m, "training", mode)
        return self

    def eval(self) -> Module:
        return self.train(False)

    def requires_grad_(self, requires_grad: bool = True) -> Module:
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Reset every parameter's ``.grad`` (to ``None`` by default, as PyTorch 2.x)."""
        for p in self.parameters():
            if p.grad is None:
                continue
            if set_to_none:
                p.grad = None
            else:
                p.grad.detach_()
                p.grad.zero_()

    def apply(self, fn: Callable[[Module], None]) -> Module:
        for child in self.children():
            child.apply(fn)
        fn(self)
        return self

    def _cast(self, dtype: Any) -> Module:
        target = dtypes.to_numpy(dtype)
        for t in (*self.parameters(), *self.buffers()):
            if t._data.dtype.kind == "f":
                t._data = t._data.astype(target)
                if t.grad is not None:
                    t.grad = t.grad.to(dtype)
        return self

    def float(self) -> Module:
        return self._cast(dtypes.float32)

    def double(self) -> Module:
        return self._cast(dtypes.float64)

    def to(self, *args: Any, **kwargs: Any) -> Module:
        """``module.to(sg.float64)`` casts floating parameters and buffers in place."""
        dtype = kwargs.get("dtype")
        for a in args:
            if isinstance(a, dtypes.DType):
                dtype = a
            elif str(a).split(":")[0] != "cpu":
                raise RuntimeError(f"srcgrad runs on the CPU only; device {a!r} is not "
                                   "available")
        return self if dtype is None else self._cast(dtype)

    # --- saving and loading ---------------------------------------------------------------
    def state_dict(self, *, destination: dict[str, Any] | None = None, prefix: str = "",
                   keep_vars: bool = False) -> dict[str, Any]:
        """Parameters and buffers by dotted name (detached unless ``keep_vars``)."""
        out: dict[str, Any] = OrderedDict() if destination is None else destination
        for owner_name, owner in self.named_modules(prefix=prefix.rstrip(".")):
            for table in (owner._parameters, owner._buffers):
                for name, value in table.items():
                    if value is not None:
                        key = f"{owner_name}.{name}" if owner_name else name
                        out[key] = value if keep_vars else value.detach()
        return out

    def load_state_dict(self, state_dict: dict[str, Any], strict: bool = True,
                        assign: bool = False) -> _IncompatibleKeys:
        """Copy values in by name; with ``strict``, missing or unexpected keys raise."""
        own = self.state_dict(keep_vars=True)
        missing = [k for k in own if k not in state_dict]
        unexpected = [k for k in state_dict if k not in own]
        errors = []
        for key, target in own.items():
            if key not in state_dict:
                continue
            value = state_dict[key]
            shape = tuple(np.shape(value._data if isinstance(value, Tensor) else value))
            if shape != tuple(target.shape):
                errors.append(f"size mismatch for {key}: copying a param with shape "
                              f"{_size(shape)} from checkpoint, the shape in current model is "
                              f"{_size(tuple(target.shape))}.")
        if strict:
            if unexpected:
                errors.insert(0, "Unexpected key(s) in state_dict: "
                              + ", ".join(f'"{k}"' for k in unexpected) + ". ")
            if missing:
                errors.insert(0, "Missing key(s) in state_dict: "
                              + ", ".join(f'"{k}"' for k in missing) + ". ")
        if errors:
            raise RuntimeError(f"Error(s) in loading state_dict for {type(self).__name__}:\n\t"
                               + "\n\t".join(errors))
        with no_grad():
            for key, target in own.items():
                if key in state_dict:
                    value = state_dict[key]
                    data = value._data if isinstance(value, Tensor) else np.asarray(value)
                    target._data[...] = data  # in place, as PyTorch's param.copy_
                    target._vc[0] += 1
        return _IncompatibleKeys(missing, unexpected)

    # --- printing -------------------------------------------------------------------------
    def extra_repr(self) -> str:
        return ""

    def __repr__(self) -> str:
        lines = []
        for name, child in self._modules.items():
            body = repr(child).replace("\n", "\n  ")
            lines.append(f"({name}): {body}")
        extra = self.extra_repr()
        if not lines:
            return f"{type(self).__name__}({extra})"
        head = f"{type(self).__name__}(" + (f"\n  {extra}" if extra else "")
        return head + "\n  " + "\n  ".join(lines) + "\n)"


def _size(shape: tuple[int, ...]) -> str:
    return f"sg.Size({list(shape)})"

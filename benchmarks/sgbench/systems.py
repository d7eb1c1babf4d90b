"""The systems under test, each behind one small adapter with the same shape.

``system.build(fn, workload)`` returns ``(call, first_call_s)``: ``call()`` computes the
gradient of ``fn`` at the workload's arguments w.r.t. ``workload.wrt`` (inputs already in
the system's own types, as its users keep them), and ``first_call_s`` is the time from
asking for the gradient to the first result (for compilers: the compile latency).
``system.to_numpy(result)`` gives a tuple of float64 arrays for the correctness check.

Peers are imported lazily inside :meth:`System.load`, so a missing one is reported, not
fatal; tracing peers run the workload's own code with ``np`` rebound to their namespace.
"""

from __future__ import annotations

import os
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .handwritten import GRADIENTS, REVERSE_SWEEPS
from .workloads import Workload, rebind_numpy

Call = Callable[[], Any]


class System(ABC):
    """An adapter: ``key`` (stable id in JSON), ``label`` (table heading)."""

    key = ""
    label = ""
    compiles = False  # report its first-call latency as a compile latency

    @abstractmethod
    def load(self) -> str:
        """Import the system; returns its version. Raises ImportError when missing."""

    @abstractmethod
    def build(self, fn: Callable[..., Any], workload: Workload) -> tuple[Call, float]:
        """``(call, first_call_s)`` for the gradient of ``fn`` at the workload's point."""

    def to_numpy(self, result: Any) -> tuple[np.ndarray, ...]:
        values = result if isinstance(result, (tuple, list)) else (result,)
        return tuple(np.asarray(v, dtype=np.float64) for v in values)


def _timed_first_call(make: Callable[[], Call]) -> tuple[Call, float]:
    start = time.perf_counter()
    call = make()
    call()
    return call, time.perf_counter() - start


def _closed_over(fn: Callable[..., Any], workload: Workload,
                 convert: Callable[[Any], Any] = lambda value: value) -> Callable[..., Any]:
    """``fn`` as a function of the differentiated arguments only; the others are fixed,
    arrays among them converted once by ``convert`` into the system's own array type."""
    wrt = workload.wrt
    args = [value if index in wrt or not isinstance(value, np.ndarray) else convert(value)
            for index, value in enumerate(workload.args)]

    def of_wrt(*wrt_values: Any) -> Any:
        full = list(args)
        for index, value in zip(wrt, wrt_values):
            full[index] = value
        return fn(*full)

    return of_wrt


class HandWritten(System):
    key, label = "handwritten", "hand-written"

    def load(self) -> str:
        return "numpy " + np.__version__

    def build(self, fn: Callable[..., Any], workload: Workload) -> tuple[Call, float]:
        gradient, args = GRADIENTS[workload.key], workload.args
        return _timed_first_call(lambda: lambda: gradient(*args))


class HandWrittenReverse(System):
    """The hand-written reverse sweep over a stored trajectory (for W2 and W3 it is the
    baseline itself), timed beside the baseline so both ratios come from one run."""

    key, label = "handwritten_reverse", "hand-written reverse sweep"

    def load(self) -> str:
        return "numpy " + np.__version__

    def build(self, fn: Callable[..., Any], workload: Workload) -> tuple[Call, float]:
        gradient, args = REVERSE_SWEEPS[workload.key], workload.args
        return _timed_first_call(lambda: lambda: gradient(*args))


class SrcGrad(System):
    key, label, compiles = "srcgrad", "srcgrad", True

    def load(self) -> str:
        import srcgrad

        self.sg = srcgrad
        return srcgrad.__version__

    def build(self, fn: Callable[..., Any], workload: Workload) -> tuple[Call, float]:
        self.sg.clear_cache()
        wrt = workload.wrt if len(workload.wrt) > 1 else workload.wrt[0]
        args = workload.args

        def make() -> Call:
            df = self.sg.grad(fn, wrt=wrt)
            return lambda: df(*args)

        return _timed_first_call(make)


class Autograd(System):
    key, label = "autograd", "autograd"

    def load(self) -> str:
        import autograd
        import autograd.numpy as anp

        self.autograd, self.anp = autograd, anp
        return _version("autograd")

    def build(self, fn: Callable[..., Any], workload: Workload) -> tuple[Call, float]:
        traced = _closed_over(rebind_numpy(fn, self.anp), workload)
        argnums = tuple(range(len(workload.wrt))) if len(workload.wrt) > 1 else 0
        values = [workload.args[i] for i in workload.wrt]

        def make() -> Call:
            gradient = self.autograd.grad(traced, argnums)
            return lambda: gradient(*values)

        return _timed_first_call(make)


class TorchEager(System):
    key, label = "torch", "torch eager"

    def __init__(self, threads: int) -> None:
        self.threads = threads

    def load(self) -> str:
        import torch

        torch.set_num_threads(self.threads)
        self.torch = torch
        return torch.__version__

    def _leaf(self, value: Any) -> Any:
        if isinstance(value, np.ndarray):
            return self.torch.from_numpy(value).requires_grad_()
        return self.torch.tensor(value, dtype=self.torch.float64, requires_grad=True)

    def build(self, fn: Callable[..., Any], workload: Workload) -> tuple[Call, float]:
        torch = self.torch
        traced = _closed_over(rebind_numpy(fn, torch), workload, torch.from_numpy)
        leaves = [self._leaf(workload.args[i]) for i in workload.wrt]

        def make() -> Call:
            return lambda: torch.autograd.grad(traced(*leaves), leaves)

        return _timed_first_call(make)

    def to_numpy(self, result: Any) -> tuple[np.ndarray, ...]:
        return tuple(np.asarray(v.detach().numpy(), dtype=np.float64) for v in result)


class Jax(System):
    key, label = "jax", "jax"

    def __init__(self, jit: bool) -> None:
        self.jit = jit
        self.compiles = jit
        if jit:
            self.key, self.label = "jax_jit", "jax.jit"

    def load(self) -> str:
        import jax

        jax.config.update("jax_enable_x64", True)  # the workloads are float64
        import jax.numpy as jnp

        self.jax, self.jnp = jax, jnp
        return jax.__version__

    def build(self, fn: Callable[..., Any], workload: Workload) -> tuple[Call, float]:
        jax = self.jax
        traced = _closed_over(rebind_numpy(fn, self.jnp), workload, self.jnp.asarray)
        values = [v if isinstance(v, float) else self.jnp.asarray(v)
                  for v in (workload.args[i] for i in workload.wrt)]
        argnums = tuple(range(len(values)))

        def make() -> Call:
            if self.jit:
                jax.clear_caches()  # so the first call compiles afresh, every time it is measured
            gradient = jax.grad(traced, argnums=argnums)
            if self.jit:
                gradient = jax.jit(gradient)
            return lambda: jax.block_until_ready(gradient(*values))

        return _timed_first_call(make)


class Tangent(System):
    """tangent-ad with its caches off: its in-memory cache is cleared before each build and
    its disk cache (on by default, in ~/.cache/tangent-ad) disabled, so the first call
    measures the source transformation, as srcgrad's does after ``sg.clear_cache()``."""

    key, label, compiles = "tangent", "tangent-ad", True

    def load(self) -> str:
        os.environ["TANGENT_DISK_CACHE"] = "0"  # read per call by tangent.disk_cache
        import tangent

        self.tangent = tangent
        return _version("tangent-ad")

    def build(self, fn: Callable[..., Any], workload: Workload) -> tuple[Call, float]:
        args = workload.args
        wrt = workload.wrt

        def make() -> Call:
            self.tangent.clear_cache()
            df = self.tangent.grad(fn, wrt=wrt, verbose=0)
            return lambda: df(*args)

        return _timed_first_call(make)


def _version(distribution: str) -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(distribution)
    except PackageNotFoundError:
        return "unknown version"


def all_systems(threads: int) -> list[System]:
    """Every system, in table order (hand-written first: it is the baseline)."""
    return [HandWritten(), HandWrittenReverse(), SrcGrad(), Autograd(), TorchEager(threads),
            Jax(jit=False), Jax(jit=True), Tangent()]


def select(systems: Sequence[System], keys: Sequence[str]) -> list[System]:
    """The systems named in ``keys`` (hand-written always included), in table order."""
    wanted = set(keys) | {"handwritten", "handwritten_reverse"}
    unknown = set(keys) - {s.key for s in systems}
    if unknown:
        raise ValueError(f"unknown system(s) {sorted(unknown)}; "
                         f"choose from {[s.key for s in systems]}")
    return [s for s in systems if s.key in wanted]

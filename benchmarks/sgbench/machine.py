"""The machine a run measured, and the thread limit every BLAS and XLA pool obeys.

:func:`limit_threads` must run before numpy (or torch, jax) is imported: the thread pools
read these variables once, at load time. This module therefore imports numpy only inside
:func:`describe_machine`.
"""

from __future__ import annotations

import os
import platform
import sys
from typing import Any

THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
                    "VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS")


def limit_threads(threads: int) -> None:
    """Set every known thread-pool variable to ``threads`` (inherited by subprocesses)."""
    for name in THREAD_VARIABLES:
        os.environ[name] = str(threads)
    if threads == 1:
        flags = os.environ.get("XLA_FLAGS", "")
        extra = "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1"
        if extra not in flags:
            os.environ["XLA_FLAGS"] = f"{flags} {extra}".strip()


def blas_threads() -> str:
    """What the BLAS pools really use, from threadpoolctl when it is installed."""
    try:
        from threadpoolctl import threadpool_info
    except ImportError:
        return "threadpoolctl not installed (limits set through environment variables)"
    pools = [f"{p.get('internal_api')}={p.get('num_threads')}" for p in threadpool_info()]
    return ", ".join(pools) or "no BLAS pool found"


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as handle:
            for line in handle:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def load_average() -> str:
    """The 1/5/15-minute load averages: other work on the machine skews absolute times."""
    try:
        return " ".join(f"{v:.2f}" for v in os.getloadavg())
    except OSError:
        return "unknown"


def describe_machine(threads: int) -> dict[str, Any]:
    import numpy as np

    return {"platform": platform.platform(), "cpu": cpu_model(), "cpus": os.cpu_count(),
            "python": platform.python_version(), "python_executable": sys.executable,
            "numpy": np.__version__, "threads": threads, "blas_threads": blas_threads(),
            "load_average_at_start": load_average()}

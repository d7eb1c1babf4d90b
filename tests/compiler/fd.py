"""The compiler tests' name for the suite's one finite-difference module, ``tests/fd.py``
(they import it as ``from fd import ...``): a re-export only, so nothing is implemented twice.
"""

from tests.fd import (  # noqa: F401
    ATOL,
    EPS,
    RTOL,
    assert_close,
    directional_derivative,
    inner,
    numeric_gradient,
    numeric_hessian,
    numeric_jacobian,
    numeric_second_differences,
    resolve_wrt,
    scalarize,
)

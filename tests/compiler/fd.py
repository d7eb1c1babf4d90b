"""The compiler tests' name for the suite's one finite-difference module, ``tests/fd.py``
(they import it as ``from fd import ...``): a re-export only, so nothing is implemented twice.
"""

from tests.fd import (  # noqa: F401
    ATOL,
    EPS,
    RTOL,
    assert_close,
    assert_leaf_types,
    assert_tree_close,
    directional_derivative,
    directional_tree_difference,
    inner,
    numeric_gradient,
    numeric_hessian,
    numeric_jacobian,
    numeric_second_differences,
    numeric_tree_gradient,
    resolve_wrt,
    scalarize,
    tree_map_paths,
)

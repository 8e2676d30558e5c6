"""The one place that imports numba.

``jit`` compiles a kernel with :func:`numba.njit` (``cache=True`` by default)
when numba is importable and enabled, and otherwise returns the plain Python
function, so the pure-Python path always stays reachable. Setting
``NUMBA_DISABLE_JIT=1`` runs every kernel as Python (numba's own switch);
``STATLEARN_DISABLE_NUMBA=1`` does the same without importing numba at all.
"""

from __future__ import annotations

import functools
import os

__all__ = ["NUMBA_ENABLED", "jit", "one_blas_thread", "prange", "set_num_threads_ctx"]

_disabled = os.environ.get("STATLEARN_DISABLE_NUMBA", "0") not in ("", "0")

if not _disabled:
    try:
        import numba as _numba
    except ImportError:  # pragma: no cover - numba is a hard dependency
        _numba = None
else:  # pragma: no cover - exercised by the env-var CI variant
    _numba = None

NUMBA_ENABLED = _numba is not None and not _numba.config.DISABLE_JIT


def jit(*args, **kwargs):
    """Decorator compiling a kernel in nopython mode, or leaving it as Python.

    Accepts numba's ``njit`` arguments (``cache``, ``parallel``, ``fastmath``,
    signatures, ...). ``cache`` defaults to ``True`` for non-parallel kernels
    defined in a source file.

    Examples
    --------
    >>> import numpy as np
    >>> from statlearn.utils import jit
    >>> @jit
    ... def total(x):
    ...     s = 0.0
    ...     for v in x:
    ...         s += v
    ...     return s
    >>> float(total(np.arange(4.0)))
    6.0
    """
    if len(args) == 1 and callable(args[0]) and not kwargs:
        return jit()(args[0])

    def decorate(func):
        if _numba is None:
            return func
        kw = dict(kwargs)
        # caching needs a source file (not a doctest or an interactive session)
        has_file = os.path.isfile(getattr(func, "__code__", None).co_filename)
        kw.setdefault("cache", has_file and not kw.get("parallel", False))
        return _numba.njit(*args, **kw)(func)

    return decorate


if _numba is not None:
    prange = _numba.prange
else:  # pragma: no cover
    prange = range


class set_num_threads_ctx:
    """Context manager setting numba's thread count and restoring it after.

    Examples
    --------
    >>> from statlearn.utils import set_num_threads_ctx
    >>> with set_num_threads_ctx(1):
    ...     pass
    """

    def __init__(self, n_threads: int | None):
        self.n_threads = n_threads
        self._old = None

    def __enter__(self):
        if _numba is not None and self.n_threads is not None:
            self._old = _numba.get_num_threads()
            n = max(1, min(int(self.n_threads), _numba.config.NUMBA_NUM_THREADS))
            _numba.set_num_threads(n)
        return self

    def __exit__(self, *exc):
        if self._old is not None:
            _numba.set_num_threads(self._old)
        return False


@functools.cache
def _blas_controller():
    """The threadpool controller, built once (building it scans the loaded libraries)."""
    from threadpoolctl import ThreadpoolController

    return ThreadpoolController()


def one_blas_thread():
    """Context manager running BLAS (OpenBLAS, MKL, ...) on one thread, then restoring it.

    For small linear algebra next to the parallel Numba kernels: BLAS worker
    threads keep spinning for a while after a multi-threaded call, and a Numba
    ``prange`` loop that starts then shares the cores with them (measured on
    2 cores: the unlearning gradient pass at n = 1e5, p = 200 took 18-30 ms right
    after a 200 x 200 product instead of 10-12 ms). The controller is built once
    (building it scans the loaded libraries); entering the context then costs
    well under a millisecond.

    Examples
    --------
    >>> import numpy as np
    >>> from statlearn.utils._numba import one_blas_thread
    >>> with one_blas_thread():
    ...     c = np.ones((3, 3)) @ np.ones(3)
    >>> c.tolist()
    [3.0, 3.0, 3.0]
    """
    return _blas_controller().limit(limits=1, user_api="blas")

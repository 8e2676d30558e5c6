"""Serial or parallel twin of a row kernel, chosen by timing both on this machine.

Every row kernel of the classification scores comes in a serial and a
parallel (``prange``) twin that compute each row independently, so both give
the same output. Which is faster depends on the machine (cores, the thread
pool's start-up cost, other load) and on the work per call, so no size
constant fits everywhere: the first call of each size class (``n K`` by powers
of two, up to :data:`MEASURE_MAX_SIZE`) times both on its leading rows, best
of two runs each, and later calls of that class run the faster one. Above
:data:`MEASURE_MAX_SIZE` entries the thread pool's start-up is amortised and
the choice made there is reused.
"""

from __future__ import annotations

import time

from ...utils import _numba

__all__ = ["MEASURE_MAX_SIZE", "MIN_PARALLEL_SIZE", "run_rows"]

#: Calls with fewer entries (n K) run the serial twin without measuring.
MIN_PARALLEL_SIZE = 1 << 12
#: Largest size class measured (its choice is reused above it).
MEASURE_MAX_SIZE = 1 << 20

#: ``{(kernel name, numba threads, size class): parallel is faster}``, filled by :func:`run_rows`.
CHOICE: dict = {}


def _threads():
    if not _numba.NUMBA_ENABLED or _numba._numba is None:
        return 1
    return _numba._numba.get_num_threads()


def _best(kernel, rows, rest, repeat=2):
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        kernel(*rows, *rest)
        best = min(best, time.perf_counter() - t0)
    return best


def run_rows(name, serial, parallel, rows, rest=()):
    """``serial(*rows, *rest)`` or ``parallel(*rows, *rest)``, whichever runs faster here.

    Parameters
    ----------
    name : str
        Key of the kernel pair in :data:`CHOICE`.
    serial, parallel : callable
        The twins (same signature, same output).
    rows : tuple of ndarray
        The per-row arguments (first axis: the rows), the matrix first.
    rest : tuple
        The other arguments.

    Returns
    -------
    The kernel's output.
    """
    size = rows[0].size
    threads = _threads()
    if size < MIN_PARALLEL_SIZE or threads < 2:
        return serial(*rows, *rest)
    key = (name, threads, min(size, MEASURE_MAX_SIZE).bit_length())
    use_parallel = CHOICE.get(key)
    if use_parallel is None:
        n = rows[0].shape[0]
        m = max(1, min(n, MEASURE_MAX_SIZE // max(1, size // max(n, 1))))
        head = tuple(r[:m] for r in rows)
        one = tuple(r[:1] for r in rows)
        serial(*one, *rest)  # compiled (or loaded from the cache) outside the timings
        parallel(*one, *rest)
        use_parallel = _best(parallel, head, rest) < _best(serial, head, rest)
        CHOICE[key] = use_parallel
    return (parallel if use_parallel else serial)(*rows, *rest)

"""Numba kernels of the shared utilities (pure functions on arrays)."""

from __future__ import annotations

import numpy as np

from ._numba import jit

__all__ = ["probability_rows_status", "probability_rows_status_reference"]

# status codes returned by the row check
OK, NOT_FINITE, NEGATIVE, BAD_SUM = 0, 1, 2, 3


@jit
def probability_rows_status(P, atol):
    """One pass over a probability matrix: first problem found, or OK.

    Returns ``(status, row, row_sum)``: ``status`` is ``OK`` (0),
    ``NOT_FINITE`` (1), ``NEGATIVE`` (2) or ``BAD_SUM`` (3) for the first
    offending row in row order, with that row's sum for ``BAD_SUM``.
    Non-finite entries take precedence over negative ones, which take
    precedence over bad sums, matching the reference.
    """
    n, K = P.shape
    first_neg = -1
    first_sum = -1
    bad_sum_value = 0.0
    for i in range(n):
        s = 0.0
        for j in range(K):
            v = P[i, j]
            if not np.isfinite(v):
                return NOT_FINITE, i, 0.0
            if v < 0 and first_neg < 0:
                first_neg = i
            s += v
        if first_sum < 0 and abs(s - 1.0) > atol:
            first_sum = i
            bad_sum_value = s
    if first_neg >= 0:
        return NEGATIVE, first_neg, 0.0
    if first_sum >= 0:
        return BAD_SUM, first_sum, bad_sum_value
    return OK, -1, 0.0


def probability_rows_status_reference(P, atol):
    """NumPy reference of :func:`probability_rows_status` (same outputs)."""
    P = np.asarray(P)
    finite = np.isfinite(P)
    if not finite.all():
        return NOT_FINITE, int(np.argmin(finite.all(axis=1))), 0.0
    neg = (P < 0).any(axis=1)
    if neg.any():
        return NEGATIVE, int(np.argmax(neg)), 0.0
    sums = P.sum(axis=1)
    bad = np.abs(sums - 1.0) > atol
    if bad.any():
        i = int(np.argmax(bad))
        return BAD_SUM, i, float(sums[i])
    return OK, -1, 0.0

"""Numba kernels of the conformal subpackage (pure functions on NumPy arrays).

The SOCOP score of Wang, Sun & Dobriban (2025) for one probability vector is
computed by a monotone-chain scan of the lower convex hull of the points
``P_j = (Gamma_j, g_j)``, ``j = 0..K`` (``Gamma_j`` = sum of the ``j`` largest
probabilities, ``g_j = 1{j > k0} + lam * j``). Differences of ``Gamma`` are
taken from suffix sums accumulated from the smallest probability upward, so a
tiny positive probability never collapses onto its neighbour.

Every kernel here has a vectorised array-API counterpart in
:mod:`statlearn.conformal._scores` (a different algorithm: the two-chain bridge
of the hull), and the tests assert that both agree.
"""

from __future__ import annotations

import numpy as np

from ..utils import jit, prange

__all__ = [
    "PARALLEL_MIN_SIZE",
    "conformal_pvalues_kernel",
    "conformal_pvalues_kernel_serial",
    "socop_label_scores_kernel",
    "socop_label_scores_kernel_serial",
    "socop_rank_scores",
    "socop_scores_kernel",
    "socop_scores_kernel_serial",
    "socop_sets_kernel",
    "socop_sets_kernel_serial",
]

#: Inputs with fewer entries (n * K) use the serial kernels.
PARALLEL_MIN_SIZE = 1 << 16


@jit(cache=True)
def socop_rank_scores(p_sorted, lam, k0, suffix, vert, out):
    """SOCOP scores by rank for one vector sorted in decreasing order.

    Parameters
    ----------
    p_sorted : ndarray of shape (K,)
        Probabilities in decreasing order.
    lam : float
        Weight of the mean set size (``lam >= 0``).
    k0 : int
        Size above which a set is penalised (``1`` for singletons).
    suffix : ndarray of shape (K + 1,)
        Scratch space (suffix sums).
    vert : ndarray of shape (K + 1,), int64
        Scratch space (hull vertices).
    out : ndarray of shape (K,)
        On return ``out[j]`` is the score of the label of rank ``j + 1``.

    Returns
    -------
    int
        Number of hull edges.
    """
    K = p_sorted.shape[0]
    suffix[K] = 0.0
    for j in range(K - 1, -1, -1):
        suffix[j] = suffix[j + 1] + p_sorted[j]
    support = 0
    while support < K and p_sorted[support] > 0.0:
        support += 1
    # lower convex hull of P_0..P_support (zero-probability points dropped)
    h = 0
    vert[0] = 0
    for c in range(1, support + 1):
        gc = (1.0 if c > k0 else 0.0) + lam * c
        while h >= 1:
            b = vert[h]
            a = vert[h - 1]
            ga = (1.0 if a > k0 else 0.0) + lam * a
            gb = (1.0 if b > k0 else 0.0) + lam * b
            if (gb - ga) * (suffix[a] - suffix[c]) >= (gc - ga) * (suffix[a] - suffix[b]):
                h -= 1
            else:
                break
        h += 1
        vert[h] = c
    for i in range(1, h + 1):
        a = vert[i - 1]
        b = vert[i]
        ga = (1.0 if a > k0 else 0.0) + lam * a
        gb = (1.0 if b > k0 else 0.0) + lam * b
        eta = (gb - ga) / (suffix[a] - suffix[b])
        for j in range(a, b):
            out[j] = eta
    for j in range(support, K):
        out[j] = np.inf
    return h


@jit(cache=True)
def _row_by_rank(p_row, lam, k0):
    """Label order and rank scores of one row."""
    K = p_row.shape[0]
    order = np.argsort(-p_row, kind="mergesort")
    p_sorted = p_row[order]
    suffix = np.empty(K + 1)
    vert = np.empty(K + 1, dtype=np.int64)
    out = np.empty(K)
    socop_rank_scores(p_sorted, lam, k0, suffix, vert, out)
    return order, out


@jit(cache=True)
def _scores_row(p_row, lam, k0, dest):
    order, out = _row_by_rank(p_row, lam, k0)
    for j in range(p_row.shape[0]):
        dest[order[j]] = out[j]


@jit(cache=True)
def _label_score_row(p_row, label, lam, k0):
    order, out = _row_by_rank(p_row, lam, k0)
    for j in range(p_row.shape[0]):
        if order[j] == label:
            return out[j]
    return np.nan


@jit(cache=True)
def _set_row(p_row, lam, k0, thresholds, dest):
    order, out = _row_by_rank(p_row, lam, k0)
    for j in range(p_row.shape[0]):
        lab = order[j]
        dest[lab] = out[j] <= thresholds[lab]


# Each kernel exists in a parallel and a serial version: for small inputs the
# cost of waking numba's thread pool exceeds the work.
@jit(parallel=True, cache=True)
def socop_scores_kernel(proba, lam, k0):
    """SOCOP scores of every label, shape (n, K), rows in parallel."""
    scores = np.empty(proba.shape)
    for i in prange(proba.shape[0]):
        _scores_row(proba[i], lam, k0, scores[i])
    return scores


@jit(cache=True)
def socop_scores_kernel_serial(proba, lam, k0):
    """Serial twin of :func:`socop_scores_kernel`."""
    scores = np.empty(proba.shape)
    for i in range(proba.shape[0]):
        _scores_row(proba[i], lam, k0, scores[i])
    return scores


@jit(parallel=True, cache=True)
def socop_label_scores_kernel(proba, labels, lam, k0):
    """SOCOP score of one label per row, shape (n,)."""
    res = np.empty(proba.shape[0])
    for i in prange(proba.shape[0]):
        res[i] = _label_score_row(proba[i], labels[i], lam, k0)
    return res


@jit(cache=True)
def socop_label_scores_kernel_serial(proba, labels, lam, k0):
    """Serial twin of :func:`socop_label_scores_kernel`."""
    res = np.empty(proba.shape[0])
    for i in range(proba.shape[0]):
        res[i] = _label_score_row(proba[i], labels[i], lam, k0)
    return res


@jit(parallel=True, cache=True)
def socop_sets_kernel(proba, lam, k0, thresholds):
    """Prediction sets ``{y : r(x, y) <= thresholds[y]}`` as a boolean (n, K) mask."""
    sets = np.empty(proba.shape, dtype=np.bool_)
    for i in prange(proba.shape[0]):
        _set_row(proba[i], lam, k0, thresholds, sets[i])
    return sets


@jit(cache=True)
def socop_sets_kernel_serial(proba, lam, k0, thresholds):
    """Serial twin of :func:`socop_sets_kernel`."""
    sets = np.empty(proba.shape, dtype=np.bool_)
    for i in range(proba.shape[0]):
        _set_row(proba[i], lam, k0, thresholds, sets[i])
    return sets


# --------------------------------------------------------------------------
# Conformal p-values by binary search in the sorted calibration scores.
#
# p = (#{c_i > s} + u (1 + #{c_i = s})) / (n + 1) for each test score s, with
# the counts read off two binary searches: O(log n) per test score after one
# O(n log n) sort. NumPy reference: ``_quantile._conformal_pvalues_xp``.

@jit(cache=True)
def _pvalue_one(sorted_cal, s, u):
    n = sorted_cal.shape[0]
    lo = 0
    hi = n
    while lo < hi:  # first index with sorted_cal >= s
        mid = (lo + hi) >> 1
        if sorted_cal[mid] < s:
            lo = mid + 1
        else:
            hi = mid
    left = lo
    if lo < n and sorted_cal[lo] == s:  # ties: second search, only when there are any
        hi = n
        while lo < hi:  # first index with sorted_cal > s
            mid = (lo + hi) >> 1
            if sorted_cal[mid] <= s:
                lo = mid + 1
            else:
                hi = mid
    return ((n - lo) + u * (1.0 + (lo - left))) / (n + 1.0)


@jit(parallel=True, cache=True)
def conformal_pvalues_kernel(sorted_cal, test, u):
    """Conformal p-values of the 1-D ``test`` scores against sorted calibration scores.

    ``u`` has the length of ``test`` (the tie-breaking uniforms; ones for
    deterministic p-values). Test scores in parallel.
    """
    out = np.empty(test.shape[0])
    for j in prange(test.shape[0]):
        out[j] = _pvalue_one(sorted_cal, test[j], u[j])
    return out


@jit(cache=True)
def conformal_pvalues_kernel_serial(sorted_cal, test, u):
    """Serial twin of :func:`conformal_pvalues_kernel`."""
    out = np.empty(test.shape[0])
    for j in range(test.shape[0]):
        out[j] = _pvalue_one(sorted_cal, test[j], u[j])
    return out

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
    "socop_label_scores_kernel",
    "socop_rank_scores",
    "socop_scores_kernel",
    "socop_sets_kernel",
]


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


@jit(parallel=True, cache=True)
def socop_scores_kernel(proba, lam, k0):
    """SOCOP scores of every label, shape (n, K), rows in parallel."""
    n, K = proba.shape
    scores = np.empty((n, K))
    for i in prange(n):
        order = np.argsort(-proba[i], kind="mergesort")
        p_sorted = proba[i][order]
        suffix = np.empty(K + 1)
        vert = np.empty(K + 1, dtype=np.int64)
        out = np.empty(K)
        socop_rank_scores(p_sorted, lam, k0, suffix, vert, out)
        for j in range(K):
            scores[i, order[j]] = out[j]
    return scores


@jit(parallel=True, cache=True)
def socop_label_scores_kernel(proba, labels, lam, k0):
    """SOCOP score of one label per row, shape (n,)."""
    n, K = proba.shape
    res = np.empty(n)
    for i in prange(n):
        order = np.argsort(-proba[i], kind="mergesort")
        p_sorted = proba[i][order]
        suffix = np.empty(K + 1)
        vert = np.empty(K + 1, dtype=np.int64)
        out = np.empty(K)
        socop_rank_scores(p_sorted, lam, k0, suffix, vert, out)
        for j in range(K):
            if order[j] == labels[i]:
                res[i] = out[j]
                break
    return res


@jit(parallel=True, cache=True)
def socop_sets_kernel(proba, lam, k0, thresholds):
    """Prediction sets ``{y : r(x, y) <= thresholds[y]}`` as a boolean (n, K) mask."""
    n, K = proba.shape
    sets = np.zeros((n, K), dtype=np.bool_)
    for i in prange(n):
        order = np.argsort(-proba[i], kind="mergesort")
        p_sorted = proba[i][order]
        suffix = np.empty(K + 1)
        vert = np.empty(K + 1, dtype=np.int64)
        out = np.empty(K)
        socop_rank_scores(p_sorted, lam, k0, suffix, vert, out)
        for j in range(K):
            lab = order[j]
            sets[i, lab] = out[j] <= thresholds[lab]
    return sets

"""Numba kernels of the conformal subpackage (pure functions on NumPy arrays).

The SOCOP score of Wang, Sun & Dobriban (2025) for one probability vector is
computed by a monotone-chain scan of the lower convex hull of the points
``P_j = (Gamma_j, g_j)``, ``j = 0..K`` (``Gamma_j`` = sum of the ``j`` largest
probabilities, ``g_j = 1{j > k0} + lam * j``). Differences of ``Gamma`` are
taken from suffix sums accumulated from the smallest probability upward, so a
tiny positive probability never collapses onto its neighbour.

Every kernel here has a vectorised array-API counterpart next to its caller
(``socop_scores_reference`` in ``_classification/_socop.py``, a different
algorithm: the two-chain bridge of the hull; ``_aps_sets_reference`` in
``_classification/_baselines.py``, for the APS kernels of ``_aps_kernels.py``,
re-exported here; ``_conformal_pvalues_xp`` in
``_core/_quantile.py``), and the tests assert that both agree.
"""

from __future__ import annotations

import numpy as np

from ..utils import jit, prange
from ._aps_kernels import (  # re-exported: the APS kernels live there
    BLOCK,
    aps_sets_kernel,
    aps_sets_kernel_serial,
    aps_sets_threshold_kernel,
    aps_sets_threshold_kernel_serial,
    rank_block,
)

__all__ = [
    "FAST_SET_MAX_K0",
    "PARALLEL_MIN_SIZE",
    "FAST_PARALLEL_MIN_SIZE",
    "SOCOP_BLOCK_MAX_K",
    "aps_sets_kernel",
    "aps_sets_kernel_serial",
    "aps_sets_threshold_kernel",
    "aps_sets_threshold_kernel_serial",
    "lac_sets_kernel",
    "lac_sets_kernel_serial",
    "socop_sets_threshold_kernel",
    "socop_sets_threshold_kernel_serial",
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
#: Row chunks of the chunked parallel kernels (scratch space allocated once per chunk).
_N_CHUNKS = 64


@jit(cache=True)
def _dg(a, b, lam, k0):
    """``g_b - g_a`` for ``g_j = 1{j > k0} + lam j`` (``a < b``)."""
    step = 1.0 if (b > k0 and a <= k0) else 0.0
    return step + lam * (b - a)


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
    h, support = _socop_hull(p_sorted, lam, k0, suffix, vert)
    for i in range(1, h + 1):
        a = vert[i - 1]
        b = vert[i]
        eta = _dg(a, b, lam, k0) / (suffix[a] - suffix[b])
        for j in range(a, b):
            out[j] = eta
    for j in range(support, p_sorted.shape[0]):
        out[j] = np.inf
    return h


@jit(cache=True)
def _socop_hull(p_sorted, lam, k0, suffix, vert):
    """Suffix sums and lower hull vertices ``vert[0..h]`` of one sorted vector.

    Returns ``(h, support)``: the number of hull edges and of positive
    probabilities (the hull ends at ``vert[h] == support``).
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
        while h >= 1:
            b = vert[h]
            a = vert[h - 1]
            # differences of g formed directly: no cancellation of the 1 against lam;
            # slopes compared as quotients, not cross products, which underflow to
            # 0 >= 0 (a wrong pop) when lam and the probabilities are subnormal
            if _dg(a, b, lam, k0) / (suffix[a] - suffix[b]) >= \
                    _dg(a, c, lam, k0) / (suffix[a] - suffix[c]):
                h -= 1
            else:
                break
        h += 1
        vert[h] = c
    return h, support


@jit(cache=True)
def _socop_rank_score_at(p_sorted, lam, k0, suffix, vert, rank):
    """``out[rank]`` of :func:`socop_rank_scores` (the same arithmetic), one edge only."""
    h, support = _socop_hull(p_sorted, lam, k0, suffix, vert)
    if rank < support:
        for i in range(1, h + 1):
            a = vert[i - 1]
            b = vert[i]
            if rank < b:
                return _dg(a, b, lam, k0) / (suffix[a] - suffix[b])
    return np.inf


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


# Label scores (calibration): the rows come sorted by NumPy (``np.sort(proba, axis=1)``,
# a vectorised sort of the values; equal values are interchangeable), the label's
# rank by decreasing probability, ties by the lower index (a stable sort's order),
# is one count, and only the hull edge over that rank is evaluated.
@jit(cache=True)
def _label_scores_rows(proba, proba_sorted, labels, lam, k0, lo, hi, res):
    K = proba.shape[1]
    p_desc = np.empty(K)
    suffix = np.empty(K + 1)
    vert = np.empty(K + 1, dtype=np.int64)
    for i in range(lo, hi):
        label = labels[i]
        if label < 0 or label >= K:
            res[i] = np.nan
            continue
        for j in range(K):
            p_desc[j] = proba_sorted[i, K - 1 - j]
        v = proba[i, label]
        rank = 0
        for j in range(K):
            w = proba[i, j]
            if w > v or (w == v and j < label):
                rank += 1
        res[i] = _socop_rank_score_at(p_desc, lam, k0, suffix, vert, rank)


@jit(parallel=True, cache=True)
def socop_label_scores_kernel(proba, proba_sorted, labels, lam, k0):
    """SOCOP score of one label per row, shape (n,); chunks of rows in parallel.

    ``proba_sorted`` is ``np.sort(proba, axis=1)`` (increasing).
    """
    n = proba.shape[0]
    res = np.empty(n)
    step = (n + _N_CHUNKS - 1) // _N_CHUNKS
    for c in prange(_N_CHUNKS):
        _label_scores_rows(proba, proba_sorted, labels, lam, k0, c * step,
                           min(n, (c + 1) * step), res)
    return res


@jit(cache=True)
def socop_label_scores_kernel_serial(proba, proba_sorted, labels, lam, k0):
    """Serial twin of :func:`socop_label_scores_kernel`."""
    res = np.empty(proba.shape[0])
    _label_scores_rows(proba, proba_sorted, labels, lam, k0, 0, proba.shape[0], res)
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


# --------------------------------------------------------------------------
# Fast set prediction with one threshold.
#
# SOCOP: the set {y : r(x, y) <= q} is the largest minimiser over top-j sets of
# F(j) = 1{j > k0} + sum_{i <= j} (lam - q p_(i)). The terms grow with i, so the
# minimiser is either the c labels with q p >= lam (c = their count), cut to at
# most k0 or grown to at least k0 + 1 labels: only the k0 + 1 largest
# probabilities, c and one sum are needed, found in one O(K) pass without a
# sort. Rows where a comparison is within rounding of a tie (q p ~ lam, or the
# two candidate minima ~ equal) are recomputed by the exact hull scan
# (``_set_row``), so the sets equal those of ``socop_sets_kernel`` row for row.
# NumPy reference: ``socop_scores_reference(p, lam, k0) <= q``.

#: ``k0`` up to which the one-pass SOCOP set kernel is used (larger: hull scan).
FAST_SET_MAX_K0 = 15
_TIE_RTOL = 1e-9


@jit(cache=True)
def _socop_set_row_fast(proba, row, lam, k0, q, thresholds, top, sets):
    # the matrix and a row index, not row views: a view per row costs reference counting
    K = proba.shape[1]
    m = min(k0 + 1, K)
    cnt = 0
    c = 0
    s = 0.0
    tie = False
    for i in range(K):
        v = proba[row, i]
        sets[row, i] = False
        if v <= 0.0:
            continue
        qv = q * v
        if qv >= lam:
            c += 1
            s += lam - qv
        if abs(qv - lam) <= _TIE_RTOL * (qv + lam):
            tie = True
        # keep the m largest (ties: the lower index first) in decreasing order
        if cnt < m or v > proba[row, top[cnt - 1]]:
            pos = cnt if cnt < m else m - 1
            while pos > 0 and v > proba[row, top[pos - 1]]:
                if pos < m:
                    top[pos] = top[pos - 1]
                pos -= 1
            top[pos] = i
            if cnt < m:
                cnt += 1
    if tie:
        _set_row(proba[row], lam, k0, thresholds, sets[row])
        return
    # best set of at most k0 labels
    if c <= k0:
        a_val = s
        j_a = c
    else:
        a_val = 0.0
        for r in range(k0):
            a_val += lam - q * proba[row, top[r]]
        j_a = k0
    j_star = j_a
    if cnt == k0 + 1:  # at least k0 + 1 labels of positive probability
        if c >= k0 + 1:
            b_val = 1.0 + s
            j_b = c
        else:
            b_val = 1.0
            for r in range(k0 + 1):
                b_val += lam - q * proba[row, top[r]]
            j_b = k0 + 1
        if abs(b_val - a_val) <= _TIE_RTOL * (1.0 + lam * K + q):
            _set_row(proba[row], lam, k0, thresholds, sets[row])
            return
        if b_val <= a_val:
            j_star = j_b
    if j_star == c:
        for i in range(K):
            v = proba[row, i]
            if v > 0.0 and q * v >= lam:
                sets[row, i] = True
    else:
        for r in range(j_star):
            sets[row, top[r]] = True


#: Inputs with fewer entries (n * K) use the serial one-pass set kernels.
FAST_PARALLEL_MIN_SIZE = 1 << 20
#: Rows with at most this many labels take the blocked one-pass kernel (ranks by counting).
SOCOP_BLOCK_MAX_K = 16


@jit(cache=True)
def _socop_block_fast(proba, lam, k0, q, thresholds, r0, r1, pT, rank, srt, c_hit, s_hit, npos,
                      tie, sets):
    """:func:`_socop_set_row_fast` for rows ``r0:r1``, the per-label pass vectorised over rows.

    The same quantities in the same order: ``c`` and ``s`` summed in label
    order, the ``k0 + 1`` largest probabilities read at ranks ``0..k0``
    (``rank_block``: larger first, ties by the lower index), the same
    comparisons and the same hull-scan fallback near a tie.
    """
    K = proba.shape[1]
    m = r1 - r0
    rank_block(proba, r0, r1, pT, rank, srt)
    for b in range(m):
        c_hit[b] = 0
        s_hit[b] = 0.0
        npos[b] = 0
        tie[b] = False
    for i in range(K):
        for b in range(m):
            v = pT[i, b]
            qv = q * v
            pos = v > 0.0
            hit = pos & (qv >= lam)
            npos[b] += pos
            c_hit[b] += hit
            s_hit[b] += (lam - qv) if hit else 0.0
            tie[b] |= pos & (abs(qv - lam) <= _TIE_RTOL * (qv + lam))
    for b in range(m):
        row = r0 + b
        c = c_hit[b]
        s = s_hit[b]
        if tie[b]:
            _set_row(proba[row], lam, k0, thresholds, sets[row])
            continue
        if c <= k0:  # best set of at most k0 labels
            a_val = s
            j_a = c
        else:
            a_val = 0.0
            for r in range(k0):
                a_val += lam - q * srt[r, b]
            j_a = k0
        j_star = j_a
        if npos[b] >= k0 + 1:
            if c >= k0 + 1:
                b_val = 1.0 + s
                j_b = c
            else:
                b_val = 1.0
                for r in range(k0 + 1):
                    b_val += lam - q * srt[r, b]
                j_b = k0 + 1
            if abs(b_val - a_val) <= _TIE_RTOL * (1.0 + lam * K + q):
                _set_row(proba[row], lam, k0, thresholds, sets[row])
                continue
            if b_val <= a_val:
                j_star = j_b
        if j_star == c:
            for i in range(K):
                sets[row, i] = pT[i, b] > 0.0 and q * pT[i, b] >= lam
        else:
            for i in range(K):
                sets[row, i] = rank[i, b] < j_star


@jit(cache=True)
def _socop_rows_fast(proba, lam, k0, q, lo, hi, sets):
    """Rows ``lo:hi`` of the one-threshold SOCOP sets (blocked for few labels)."""
    K = proba.shape[1]
    thresholds = np.full(K, q)
    if K > SOCOP_BLOCK_MAX_K:
        top = np.empty(k0 + 1, dtype=np.int64)
        for i in range(lo, hi):
            _socop_set_row_fast(proba, i, lam, k0, q, thresholds, top, sets)
        return
    B = BLOCK
    pT = np.empty((K, B))
    srt = np.empty((K, B))
    rank = np.empty((K, B), dtype=np.int64)
    c_hit = np.empty(B, dtype=np.int64)
    s_hit = np.empty(B)
    npos = np.empty(B, dtype=np.int64)
    tie = np.empty(B, dtype=np.bool_)
    for r0 in range(lo, hi, B):
        _socop_block_fast(proba, lam, k0, q, thresholds, r0, min(hi, r0 + B), pT, rank, srt,
                          c_hit, s_hit, npos, tie, sets)


@jit(parallel=True, cache=True)
def socop_sets_threshold_kernel(proba, lam, k0, q):
    """SOCOP sets for one finite threshold ``q`` (``k0 <= FAST_SET_MAX_K0``), rows in parallel."""
    n = proba.shape[0]
    sets = np.empty(proba.shape, dtype=np.bool_)
    step = (n + _N_CHUNKS - 1) // _N_CHUNKS
    for c in prange(_N_CHUNKS):
        _socop_rows_fast(proba, lam, k0, q, c * step, min(n, (c + 1) * step), sets)
    return sets


@jit(cache=True)
def socop_sets_threshold_kernel_serial(proba, lam, k0, q):
    """Serial twin of :func:`socop_sets_threshold_kernel`."""
    sets = np.empty(proba.shape, dtype=np.bool_)
    _socop_rows_fast(proba, lam, k0, q, 0, proba.shape[0], sets)
    return sets


# --------------------------------------------------------------------------
# LAC sets ``1 - p <= q`` without the (n, K) score temporary.

@jit(parallel=True, cache=True)
def lac_sets_kernel(proba, q):
    """``1 - proba <= q`` (``q`` per label), rows in parallel."""
    n, K = proba.shape
    sets = np.empty(proba.shape, dtype=np.bool_)
    for i in prange(n):
        for k in range(K):
            sets[i, k] = 1.0 - proba[i, k] <= q[k]
    return sets


@jit(cache=True)
def lac_sets_kernel_serial(proba, q):
    """Serial twin of :func:`lac_sets_kernel`."""
    n, K = proba.shape
    sets = np.empty(proba.shape, dtype=np.bool_)
    for i in range(n):
        for k in range(K):
            sets[i, k] = 1.0 - proba[i, k] <= q[k]
    return sets

"""Numba kernels of the APS / RAPS prediction sets (pure functions on NumPy arrays).

Split from ``_kernels.py`` (which re-exports every public name here) to keep
each module to one concept. The NumPy reference of every kernel is
``_aps_sets_reference`` in ``_classification/_baselines.py``; the tests assert
that both give the same sets.

Three kernels cover the APS score of Romano, Sesia & Candes (2020) and its
regularised form RAPS (Angelopoulos et al. 2021, Section 2.1, the score
``Gamma_j + u p_(j) + lam_reg (j - k_reg)^+``):

* ``aps_sets_kernel``: one threshold per label (one sort per row);
* ``aps_sets_threshold_kernel``, one threshold, few labels (``K <=
  _APS_SMALL_K``): the rows are taken in blocks, transposed into scratch
  space, and each label's rank is a count of the labels above it, vectorised
  over the block's rows; the walk down the ranks is vectorised the same way;
* the same kernel, many labels: the probabilities of a row are bucketed by value
  and only the bucket that holds the set's boundary is sorted.

The walk adds the probabilities in rank order exactly as the per-row walk
does, so the blocked and the per-row kernels give the same sets bit for bit.
"""

from __future__ import annotations

import numpy as np

from ..utils import jit, prange

__all__ = [
    "BLOCK",
    "rank_block",
    "aps_sets_kernel",
    "aps_sets_kernel_serial",
    "aps_sets_threshold_kernel",
    "aps_sets_threshold_kernel_serial",
]

#: Row chunks of the chunked parallel kernels (scratch space allocated once per chunk).
_N_CHUNKS = 64
#: Rows with at most this many labels go to the blocked rank kernel; longer rows are
#: bucketed by value.
_APS_SMALL_K = 32
#: Rows per block of the blocked kernels (their scratch space, ``(K, BLOCK)``, stays in cache).
BLOCK = 256
_N_BUCKETS_MAX = 4096



@jit(cache=True)
def _desc_order(p_row):
    """Labels by decreasing probability, ties by the lower index."""
    order = np.argsort(-p_row)
    K = p_row.shape[0]
    i = 0
    while i < K:
        j = i + 1
        v = p_row[order[i]]
        while j < K and p_row[order[j]] == v:
            j += 1
        if j - i > 1:
            order[i:j] = np.sort(order[i:j])
        i = j
    return order


@jit(cache=True)
def _aps_set_row(p_row, u, randomized, lam_reg, k_reg, q, dest):
    K = p_row.shape[0]
    order = _desc_order(p_row)
    cum = 0.0
    prev = -np.inf
    for r in range(K):
        lab = order[r]
        pr = p_row[lab]
        cum = cum + pr
        excess = float(r + 1 - k_reg)
        reg = lam_reg * excess if excess > 0 else 0.0
        if randomized:
            s = cum - pr + u * pr
            if lam_reg > 0:
                s = s + reg
            dest[lab] = s <= q[lab]
        else:
            dest[lab] = prev < q[lab]
            prev = cum + reg if lam_reg > 0 else cum


@jit(parallel=True, cache=True)
def aps_sets_kernel(proba, u, randomized, lam_reg, k_reg, q):
    """APS/RAPS sets (randomised: ``s <= q``; else the crossing label kept), rows in parallel."""
    sets = np.empty(proba.shape, dtype=np.bool_)
    for i in prange(proba.shape[0]):
        _aps_set_row(proba[i], u[i], randomized, lam_reg, k_reg, q, sets[i])
    return sets


@jit(cache=True)
def aps_sets_kernel_serial(proba, u, randomized, lam_reg, k_reg, q):
    """Serial twin of :func:`aps_sets_kernel`."""
    sets = np.empty(proba.shape, dtype=np.bool_)
    for i in range(proba.shape[0]):
        _aps_set_row(proba[i], u[i], randomized, lam_reg, k_reg, q, sets[i])
    return sets


@jit(cache=True)
def _aps_set_row_select(p_row, u, randomized, lam_reg, k_reg, q, cnt, mass, vals, idx, bid,
                        dest):
    """APS/RAPS set for one threshold ``q`` without sorting the row.

    The score grows with the rank, so the set is the top ``L`` labels. The
    probabilities are bucketed by value (``B = len(cnt)`` equal buckets on
    ``[0, max p]``); walking the buckets from the top with the mass and count
    above, a bucket is wholly in the set when even its last label passes, wholly
    out (with everything below) when its first label fails, and otherwise holds
    the boundary: only that bucket's labels are sorted and walked exactly.
    Expected O(K) per row. Each label's bucket is computed once, kept in ``bid``
    (scratch of length ``K``) and read again by the pass that writes the set.
    """
    K = p_row.shape[0]
    B = cnt.shape[0]
    pmax = 0.0
    for i in range(K):
        if p_row[i] > pmax:
            pmax = p_row[i]
    scale = B / pmax
    for b in range(B):
        cnt[b] = 0
        mass[b] = 0.0
    for i in range(K):
        b = int(p_row[i] * scale)
        if b >= B:
            b = B - 1
        bid[i] = b
        cnt[b] += 1
        mass[b] += p_row[i]
    above_mass = 0.0
    above_cnt = 0
    cut = B - 1  # buckets above ``cut`` are in the set
    part = -1  # the bucket that holds the boundary, if any
    for b in range(B - 1, -1, -1):
        c = cnt[b]
        if c == 0:
            continue
        lo_val = (b / scale) * (1.0 - 1e-12)  # at most the bucket's smallest value
        r_first = above_cnt + 1
        r_last = above_cnt + c
        if randomized:
            ex = float(r_first - k_reg)
            first_low = above_mass + u * lo_val
            if lam_reg > 0 and ex > 0:
                first_low += lam_reg * ex
            ex = float(r_last - k_reg)
            last_high = above_mass + mass[b]
            if lam_reg > 0 and ex > 0:
                last_high += lam_reg * ex
            all_in = last_high <= q
            all_out = first_low > q
        else:
            ex = float(r_first - 1 - k_reg)
            first_prev = above_mass
            if lam_reg > 0 and ex > 0:
                first_prev += lam_reg * ex
            ex = float(r_last - 1 - k_reg)
            last_prev = above_mass + mass[b]
            if lam_reg > 0 and ex > 0:
                last_prev += lam_reg * ex
            all_in = last_prev < q
            all_out = r_first > 1 and first_prev >= q
        if all_in:
            above_mass += mass[b]
            above_cnt += c
            cut = b - 1
            continue
        if not all_out:
            part = b
        break
    m = 0
    for i in range(K):
        b = bid[i]
        dest[i] = b > cut
        if b == part:
            vals[m] = p_row[i]
            idx[m] = i
            m += 1
    if part >= 0:
        _walk_sorted(vals, idx, m, above_mass, above_cnt, u, randomized, lam_reg, k_reg, q,
                     dest)


@jit(cache=True)
def _walk_sorted(vals, idx, m, above_mass, above_cnt, u, randomized, lam_reg, k_reg, q,
                 dest):
    """Sort ``m`` labels into rank order (decreasing p, then index) and admit them in
    turn while their score passes; ``above_*`` are the mass and count ranked above."""
    for t in range(1, m):
        v = vals[t]
        ix = idx[t]
        j = t
        while j > 0 and (vals[j - 1] < v or (vals[j - 1] == v and idx[j - 1] > ix)):
            vals[j] = vals[j - 1]
            idx[j] = idx[j - 1]
            j -= 1
        vals[j] = v
        idx[j] = ix
    cum = above_mass
    for t in range(m):
        rank = above_cnt + t + 1
        pv = vals[t]
        if randomized:
            ex = float(rank - k_reg)
            sc = cum + u * pv
            if lam_reg > 0 and ex > 0:
                sc += lam_reg * ex
            inside = sc <= q
        elif rank == 1:
            inside = True
        else:
            ex = float(rank - 1 - k_reg)
            e_prev = cum
            if lam_reg > 0 and ex > 0:
                e_prev += lam_reg * ex
            inside = e_prev < q
        if not inside:
            break
        dest[idx[t]] = True
        cum += pv


@jit(cache=True)
def rank_block(proba, r0, r1, pT, rank, srt):
    """Ranks of the labels of rows ``r0:r1`` by counting, vectorised over the rows.

    ``pT[i, b]`` is ``proba[r0 + b, i]``; ``rank[i, b]`` is the number of
    labels above label ``i`` in row ``r0 + b`` (a larger probability, or an
    equal one at a lower index: the order of a stable sort by decreasing
    probability), and ``srt[t, b]`` the probability at rank ``t``. The
    scratch arrays have shape ``(K, block)``, ``block >= r1 - r0``.
    """
    K = proba.shape[1]
    m = r1 - r0
    for b in range(m):
        for i in range(K):
            pT[i, b] = proba[r0 + b, i]
    for i in range(K):
        for b in range(m):
            rank[i, b] = 0
        for j in range(i):  # lower index: above on ties
            for b in range(m):
                rank[i, b] += pT[j, b] >= pT[i, b]
        for j in range(i + 1, K):
            for b in range(m):
                rank[i, b] += pT[j, b] > pT[i, b]
    for i in range(K):
        for b in range(m):
            srt[rank[i, b], b] = pT[i, b]


@jit(cache=True)
def _aps_block_ranked(proba, u, randomized, lam_reg, k_reg, q, r0, r1, pT, rank, srt, cum,
                      size, alive, sets):
    """APS/RAPS sets of rows ``r0:r1`` for one threshold ``q``, vectorised over the rows.

    ``rank[i, b]`` counts the labels above label ``i`` of row ``r0 + b``
    (larger probability, or equal with a lower index: the stable order), so
    ``srt[rank[i, b], b] = p[i]`` sorts each row; the walk then admits rank
    ``t`` while the score passes, with the arithmetic of :func:`_walk_sorted`.
    """
    K = proba.shape[1]
    m = r1 - r0
    rank_block(proba, r0, r1, pT, rank, srt)
    for b in range(m):
        cum[b] = 0.0
        size[b] = 0
        alive[b] = True
    for t in range(K):
        # rank t + 1; the deterministic rule reads the score of rank t (E_{t})
        ex = float(t + 1 - k_reg)
        ex_prev = float(t - k_reg)
        if randomized:
            reg = lam_reg > 0 and ex > 0
            for b in range(m):
                sc = cum[b] + u[r0 + b] * srt[t, b]
                if reg:
                    sc += lam_reg * ex
                ok = alive[b] & (sc <= q)
                alive[b] = ok
                size[b] += ok
                cum[b] += srt[t, b]
        elif t == 0:
            for b in range(m):
                size[b] = 1
                cum[b] += srt[0, b]
        else:
            reg = lam_reg > 0 and ex_prev > 0
            for b in range(m):
                e_prev = cum[b]
                if reg:
                    e_prev += lam_reg * ex_prev
                ok = alive[b] & (e_prev < q)
                alive[b] = ok
                size[b] += ok
                cum[b] += srt[t, b]
    for b in range(m):
        for i in range(K):
            sets[r0 + b, i] = rank[i, b] < size[b]


@jit(cache=True)
def _aps_rows_ranked(proba, u, randomized, lam_reg, k_reg, q, lo, hi, sets):
    """:func:`_aps_block_ranked` over rows ``lo:hi``, block by block (scratch allocated once)."""
    K = proba.shape[1]
    B = BLOCK
    pT = np.empty((K, B))
    srt = np.empty((K, B))
    rank = np.empty((K, B), dtype=np.int64)
    cum = np.empty(B)
    size = np.empty(B, dtype=np.int64)
    alive = np.empty(B, dtype=np.bool_)
    for r0 in range(lo, hi, B):
        _aps_block_ranked(proba, u, randomized, lam_reg, k_reg, q, r0, min(hi, r0 + B), pT,
                          rank, srt, cum, size, alive, sets)


@jit(parallel=True, cache=True)
def aps_sets_threshold_kernel(proba, u, randomized, lam_reg, k_reg, q):
    """APS/RAPS sets for one threshold ``q`` (blocked ranks or value buckets), rows in parallel."""
    n, K = proba.shape
    sets = np.empty(proba.shape, dtype=np.bool_)
    step = (n + _N_CHUNKS - 1) // _N_CHUNKS
    if K <= _APS_SMALL_K:
        for c in prange(_N_CHUNKS):
            _aps_rows_ranked(proba, u, randomized, lam_reg, k_reg, q, c * step,
                             min(n, (c + 1) * step), sets)
        return sets
    nb = min(K, _N_BUCKETS_MAX)
    for c in prange(_N_CHUNKS):
        cnt = np.empty(nb, dtype=np.int64)
        mass = np.empty(nb)
        vals = np.empty(K)
        idx = np.empty(K, dtype=np.int64)
        bid = np.empty(K, dtype=np.int64)
        for i in range(c * step, min(n, (c + 1) * step)):
            _aps_set_row_select(proba[i], u[i], randomized, lam_reg, k_reg, q, cnt, mass,
                                vals, idx, bid, sets[i])
    return sets


@jit(cache=True)
def aps_sets_threshold_kernel_serial(proba, u, randomized, lam_reg, k_reg, q):
    """Serial twin of :func:`aps_sets_threshold_kernel`."""
    n, K = proba.shape
    sets = np.empty(proba.shape, dtype=np.bool_)
    if K <= _APS_SMALL_K:
        _aps_rows_ranked(proba, u, randomized, lam_reg, k_reg, q, 0, n, sets)
        return sets
    nb = min(K, _N_BUCKETS_MAX)
    cnt = np.empty(nb, dtype=np.int64)
    mass = np.empty(nb)
    vals = np.empty(K)
    idx = np.empty(K, dtype=np.int64)
    bid = np.empty(K, dtype=np.int64)
    for i in range(n):
        _aps_set_row_select(proba[i], u[i], randomized, lam_reg, k_reg, q, cnt, mass, vals,
                            idx, bid, sets[i])
    return sets

"""Numba kernels for lazy random walks on CSR graphs (NumPy twins: :mod:`._references`).

Randomness is counter based: the ``i``-th step of walk ``w`` of estimate
``e`` draws ``h(a ^ salt(i)) ^ c`` where ``h`` is a 32-bit integer hash
(the "lowbias32" mixer: xor-shift, multiply, xor-shift, multiply,
xor-shift), ``a, c`` are the walk's two keys (derived from the estimate's
two seed words and the walk id) and ``salt(i)`` is a multiple of the golden
ratio constant. Every number is kept below ``2**32`` before it is multiplied
by a 32-bit constant, so no operation overflows 64-bit unsigned arithmetic:
the kernels, the pure-Python fallback (``NUMBA_DISABLE_JIT=1``) and the
vectorised array-API reference in :mod:`statlearn.cluster._references` give
bit-identical walks, on any thread count and in any order. Every kernel has a
NumPy twin there (``*_reference``), which the tests compare it with.

One lazy step of the ``d``-bounded convention from vertex ``v``: draw
``r`` uniform on ``{0, ..., 2d - 1}`` (as ``(u * 2d) >> 32`` for a 32-bit
``u``); move to the ``r``-th neighbour if ``r < deg(v)``, else stay. This
stays with probability ``1/2 + (d - deg(v)) / (2d)`` and moves to each
neighbour with probability ``1/(2d)``, i.e. one step of
``W = (I + A/d) / 2`` where ``A`` carries ``d - deg(v)`` self-loops at
``v``. The draw is uniform up to a relative error of ``2d / 2**32``.

The degree-normalised walk (``walk="degree-normalised"``) is the lazy random
walk of the graph itself, with laziness ``l``: it moves when ``u < T``, with
``T = round((1 - l) 2**32)`` the *move threshold*
(:func:`._references.move_threshold`), to the neighbour
``r = floor(u deg(v) / T)``; so it stays with probability ``l`` and moves to
each neighbour with probability ``(1 - l) / deg(v)`` (a vertex of degree 0
stays), uniform up to a relative error of ``deg(v) / T``. At the default
``l = 1/2`` (``T = 2**31``) this is the ``d``-bounded draw with ``2 deg(v)`` in
place of ``2d``, bit for bit (``(u 2 deg(v)) >> 32``), and the kernels take
that shift. The kernels take the walk when given ``max_degree = 0``, and its
laziness as the trailing ``move_threshold`` argument (default ``2**31``).
Its collision statistics weight a collision at ``v`` by ``dbar / deg(v)``
(``dbar = nnz / n``, the mean degree): the inverse stationary distribution
``1 / pi(v) = 2m / deg(v)`` divided by ``n``, which equals 1 on regular graphs
(:func:`normalised_collision_sums_kernel`, :func:`index_weighted_counts_kernel`).

Walk ids: in estimate ``e`` the walks from ``x`` have ids ``0, 2, 4, ...``
and the walks from ``y`` ids ``1, 3, 5, ...`` (walk ``j * b + w`` of a side
has id ``2 * (j * b + w) + side``), so the two sides are always independent
walk sets, also when ``x == y``.
"""

from __future__ import annotations

import numpy as np

from statlearn.utils import jit, prange

from ._references import _GOLDEN, _HALF, _MASK, _SIDE_SALT

__all__ = [
    "GROUP",
    "advance_walks_kernel",
    "bipartite_component_kernel",
    "collision_counts_kernel",
    "hash32",
    "index_counts_kernel",
    "index_scores_kernel",
    "index_weighted_counts_kernel",
    "missing_mirrors_kernel",
    "normalised_collision_sums_kernel",
    "walk_endpoints_kernel",
    "walk_keys",
    "weighted_step",
    "weighted_walk_endpoints_kernel",
]


@jit(cache=True)
def hash32(x):
    """Mix a 32-bit value (held in a ``uint64``) into a 32-bit value; a bijection."""
    x = np.uint64(x)
    x ^= x >> np.uint64(16)
    x = (x * np.uint64(0x7FEB352D)) & np.uint64(_MASK)
    x ^= x >> np.uint64(15)
    x = (x * np.uint64(0x846CA68B)) & np.uint64(_MASK)
    x ^= x >> np.uint64(16)
    return x


@jit(cache=True)
def walk_keys(k0, k1, walk_id):
    """Two 32-bit keys of walk ``walk_id`` under estimate seed words ``(k0, k1)``."""
    a = hash32(np.uint64(k0) ^ hash32(np.uint64(walk_id) ^ np.uint64(_SIDE_SALT)))
    c = hash32(np.uint64(k1) ^ a)
    return a, c


@jit(cache=True)
def _normalised_slot(u, deg, thr):
    """Neighbour slot of one degree-normalised step with 32-bit draw ``u``: ``floor(u deg /
    thr)``, below ``deg`` exactly when ``u < thr`` (a move, probability ``thr / 2**32``).

    ``thr = 2**31`` (laziness 1/2) takes the shift ``(u 2 deg) >> 32``, the same number.
    ``u deg < 2**63`` (degrees below ``2**31``), so nothing overflows.
    """
    if thr == np.uint64(_HALF):
        return np.int64((u * np.uint64(2 * deg)) >> np.uint64(32))
    return np.int64((u * np.uint64(deg)) // thr)


#: walks advanced together by one thread: their memory reads overlap (see ``_walk_group``)
GROUP = 16


@jit(cache=True)
def _walk_group(indptr, indices, m, starts, a, c, g, ts, out, col, thr):
    """Advance ``g`` independent walks together, step by step.

    Walk ``i`` starts at ``starts[i]`` with keys ``a[i], c[i]``; its position
    after ``ts[ci]`` steps goes to ``out[ci, col + i]``. Each walk follows
    exactly the steps of a walk run alone (the draws are counter based), but
    interleaving ``g`` walks gives the processor ``g`` independent chains of
    reads of ``indptr``/``indices``, so their cache misses overlap instead
    of being paid one after the other (about twice as fast on graphs that do
    not fit in cache). ``m = 0``: the degree-normalised walk with move threshold
    ``thr`` (see :func:`_normalised_slot`).
    """
    normalised = m == np.uint64(0)
    v = np.empty(g, dtype=np.int64)
    for i in range(g):
        v[i] = starts[i]
    n_t = ts.shape[0]
    ci = 0
    while ci < n_t and ts[ci] == 0:
        for i in range(g):
            out[ci, col + i] = v[i]
        ci += 1
    step = 0
    while ci < n_t:
        salt = (np.uint64(step + 1) * np.uint64(_GOLDEN)) & np.uint64(_MASK)
        for i in range(g):
            u = hash32(a[i] ^ salt) ^ c[i]
            vi = v[i]
            lo = indptr[vi]
            deg = np.int64(indptr[vi + 1] - lo)
            if normalised:
                r = _normalised_slot(u, deg, thr)
            else:
                r = np.int64((u * m) >> np.uint64(32))
            if r < deg:
                v[i] = np.int64(indices[lo + r])
        step += 1
        while ci < n_t and ts[ci] == step:
            for i in range(g):
                out[ci, col + i] = v[i]
            ci += 1


@jit(parallel=True, cache=True)
def walk_endpoints_kernel(indptr, indices, max_degree, starts, keys, walk_ids, ts,
                          move_threshold=_HALF):
    """Positions of independent lazy walks after each number of steps in ``ts``.

    Parameters
    ----------
    indptr, indices : ndarray of int
        CSR structure of the graph (``indices[indptr[v]:indptr[v+1]]`` are
        the neighbours of ``v``).
    max_degree : int
        The ``d`` of the ``d``-bounded convention (at least every degree), or 0
        for the degree-normalised walk.
    starts : ndarray of int64, shape (n_walks,)
        Start vertex of each walk.
    keys : ndarray of uint64, shape (n_walks, 2)
        Seed words of the estimate each walk belongs to.
    walk_ids : ndarray of int64, shape (n_walks,)
        Walk id inside its estimate (see the module docstring).
    ts : ndarray of int64, shape (n_t,)
        Non-decreasing checkpoints (numbers of steps).
    move_threshold : int, default=2**31
        ``T`` of the degree-normalised walk (see the module docstring): it moves with
        probability ``T / 2**32``, ``1 - laziness``. Unused when ``max_degree > 0``.

    Returns
    -------
    ndarray of int64, shape (n_t, n_walks)
    """
    n_walks = starts.shape[0]
    out = np.empty((ts.shape[0], n_walks), dtype=np.int64)
    m = np.uint64(2 * max_degree)
    thr = np.uint64(move_threshold)
    n_groups = (n_walks + GROUP - 1) // GROUP
    for gi in prange(n_groups):
        lo = gi * GROUP
        g = min(GROUP, n_walks - lo)
        a = np.empty(g, dtype=np.uint64)
        c = np.empty(g, dtype=np.uint64)
        for i in range(g):
            a[i], c[i] = walk_keys(keys[lo + i, 0], keys[lo + i, 1], walk_ids[lo + i])
        _walk_group(indptr, indices, m, starts[lo:lo + g], a, c, g, ts, out, lo, thr)
    return out


@jit(parallel=True, cache=True)
def advance_walks_kernel(indptr, indices, cumw, max_degree, pos, keys, first, step0, n_steps,
                         move_threshold=_HALF):
    """Continue stored walks in place: ``n_steps`` more lazy steps after ``step0`` steps.

    Row ``j`` of ``pos`` holds the positions of walks ``first, first + 1, ...``
    of the vertex whose seed words are ``keys[j]``, each after ``step0``
    steps; on return they hold the positions after ``step0 + n_steps`` steps,
    exactly those of :func:`walk_endpoints_kernel` (or its weighted version)
    run from the start for ``step0 + n_steps`` steps: draws are counter based,
    so a walk can stop and go on. Only the positions are kept between calls
    (one word per walk, in the dtype of ``pos``).

    Parameters
    ----------
    indptr, indices : ndarray of int
        CSR structure of the graph.
    cumw : ndarray of float64
        Row-wise cumulative edge weights (see :func:`weighted_step`), or an
        empty array for unweighted walks.
    max_degree : float
        ``d`` (the largest weighted degree for weighted walks); 0 for the
        degree-normalised walk (unweighted).
    pos : ndarray of int, shape (m, count)
        Positions, updated in place.
    keys : ndarray of uint64, shape (m, 2)
        Seed words of each row's vertex (as given to :func:`walk_keys`).
    first, step0, n_steps : int
        Walk id of column 0, steps already taken, steps to add.
    move_threshold : int, default=2**31
        ``T`` of the degree-normalised walk (as in :func:`walk_endpoints_kernel`).
    """
    m_rows, count = pos.shape
    thr = np.uint64(move_threshold)
    weighted = cumw.shape[0] > 0
    mm = np.uint64(2 * np.int64(max_degree)) if not weighted else np.uint64(0)
    scale = 2.0 * max_degree / 4294967296.0
    per_row = (count + GROUP - 1) // GROUP
    for gi in prange(m_rows * per_row):
        j = gi // per_row
        lo = (gi % per_row) * GROUP
        g = min(GROUP, count - lo)
        a = np.empty(g, dtype=np.uint64)
        c = np.empty(g, dtype=np.uint64)
        v = np.empty(g, dtype=np.int64)
        for i in range(g):
            a[i], c[i] = walk_keys(keys[j, 0], keys[j, 1], first + lo + i)
            v[i] = pos[j, lo + i]
        for step in range(step0, step0 + n_steps):
            salt = (np.uint64(step + 1) * np.uint64(_GOLDEN)) & np.uint64(_MASK)
            for i in range(g):
                u = hash32(a[i] ^ salt) ^ c[i]
                vi = v[i]
                if weighted:
                    e = weighted_step(indptr, cumw, scale, vi, u)
                    if e < indptr[vi + 1]:
                        v[i] = np.int64(indices[e])
                else:
                    lo_e = indptr[vi]
                    deg = np.int64(indptr[vi + 1] - lo_e)
                    if mm == np.uint64(0):
                        r = _normalised_slot(u, deg, thr)
                    else:
                        r = np.int64((u * mm) >> np.uint64(32))
                    if r < deg:
                        v[i] = np.int64(indices[lo_e + r])
        for i in range(g):
            pos[j, lo + i] = v[i]


@jit(cache=True)
def _lower_bound(sorted_values, x):
    """First position ``i`` with ``sorted_values[i] >= x``."""
    lo = 0
    hi = sorted_values.shape[0]
    while lo < hi:
        mid = (lo + hi) // 2
        if sorted_values[mid] < x:
            lo = mid + 1
        else:
            hi = mid
    return lo


@jit(parallel=True, cache=True)
def index_counts_kernel(endpoints, owners, queries, s):
    """Collision counts of rows of walk endpoints with the landmarks of a sorted index.

    Parameters
    ----------
    endpoints : ndarray of int, shape (m,)
        Stored walk endpoints, sorted.
    owners : ndarray of int, shape (m,)
        Landmark (``0 .. s-1``) of each stored endpoint.
    queries : ndarray of int, shape (q, r)
        Endpoints of ``r`` walks per row.
    s : int
        Number of landmarks.

    Returns
    -------
    ndarray of int64, shape (q, s)
        ``out[i, j]`` = number of pairs (walk of row ``i``, stored walk of
        landmark ``j``) with the same endpoint.
    """
    q, r = queries.shape
    n = endpoints.shape[0]
    out = np.zeros((q, s), dtype=np.int64)
    for i in prange(q):
        for w in range(r):
            e = queries[i, w]
            pos = _lower_bound(endpoints, e)
            while pos < n and endpoints[pos] == e:
                out[i, owners[pos]] += 1
                pos += 1
    return out


@jit(cache=True)
def collision_weight(indptr, dbar, v):
    """``dbar / deg(v)`` (``dbar / 1`` at a vertex of degree 0): the weight of a collision
    at ``v`` in the degree-normalised statistics."""
    deg = indptr[v + 1] - indptr[v]
    return dbar / np.float64(deg if deg > 0 else 1)


@jit(parallel=True, cache=True)
def index_weighted_counts_kernel(endpoints, owners, queries, s, indptr, dbar):
    """:func:`index_counts_kernel` with each collision at ``v`` weighted by
    :func:`collision_weight` (the degree-normalised statistics).

    Parameters
    ----------
    endpoints, owners, queries, s
        As in :func:`index_counts_kernel`.
    indptr : ndarray of int
        CSR row pointers of the graph (the degrees).
    dbar : float
        Mean degree ``nnz / n``.

    Returns
    -------
    ndarray of float64, shape (q, s)
    """
    q, r = queries.shape
    n = endpoints.shape[0]
    out = np.zeros((q, s))
    for i in prange(q):
        for w in range(r):
            e = queries[i, w]
            pos = _lower_bound(endpoints, e)
            if pos < n and endpoints[pos] == e:
                wt = collision_weight(indptr, dbar, e)
                while pos < n and endpoints[pos] == e:
                    out[i, owners[pos]] += wt
                    pos += 1
    return out


@jit(parallel=True, cache=True)
def index_scores_kernel(endpoints, owners, queries, weights):
    """Score of each walk: ``sum_j c_j(e) weights[j]`` over the stored endpoints equal to
    its endpoint ``e`` (``c_j(e)`` of them belong to landmark ``j``).

    Parameters
    ----------
    endpoints, owners
        Sorted index, as in :func:`index_counts_kernel`.
    queries : ndarray of int, shape (m,)
        Walk endpoints.
    weights : ndarray of float64, shape (s, k)

    Returns
    -------
    ndarray of float64, shape (m, k)
    """
    m = queries.shape[0]
    k = weights.shape[1]
    n = endpoints.shape[0]
    out = np.zeros((m, k))
    for i in prange(m):
        e = queries[i]
        pos = _lower_bound(endpoints, e)
        while pos < n and endpoints[pos] == e:
            j = owners[pos]
            for c in range(k):
                out[i, c] += weights[j, c]
            pos += 1
    return out


@jit(parallel=True, cache=True)
def collision_counts_kernel(indptr, indices, max_degree, xs, ys, keys, ts, n_batches,
                            batch_size):
    """Batched collision counts of ``EstRWDot`` for many ``(x, y)`` pairs.

    For each pair and batch, ``batch_size`` walks from ``x`` are run and
    their endpoints kept in a sorted list (``batch_size`` words per
    checkpoint); then ``batch_size`` walks from ``y`` are streamed, each
    adding the number of ``x`` endpoints equal to its own endpoint. The
    count summed over batches divided by ``n_batches * batch_size**2`` is
    the estimate ``Z``. Walks are advanced ``GROUP`` at a time (the ``y``
    side then holds ``GROUP`` positions instead of one); the counts are the
    same as for walks run one by one.

    Parameters
    ----------
    indptr, indices, max_degree
        Graph, as in :func:`walk_endpoints_kernel`.
    xs, ys : ndarray of int64, shape (n_pairs,)
        The pairs.
    keys : ndarray of uint64, shape (n_pairs, 2)
        Seed words of each pair's estimate.
    ts : ndarray of int64, shape (n_t,)
        Walk lengths (non-decreasing); one estimate per length from the same
        walks.
    n_batches, batch_size : int
        ``B`` and ``b``.

    Returns
    -------
    ndarray of int64, shape (n_pairs, n_t)
        Total number of colliding (x-walk, y-walk) pairs within batches.
    """
    n_pairs = xs.shape[0]
    n_t = ts.shape[0]
    out = np.zeros((n_pairs, n_t), dtype=np.int64)
    m = np.uint64(2 * max_degree)
    thr = np.uint64(_HALF)  # max_degree = 0: the degree-normalised walk of laziness 1/2
    for p in prange(n_pairs):
        buf = np.empty((n_t, batch_size), dtype=np.int64)
        pos = np.empty((n_t, GROUP), dtype=np.int64)
        st = np.empty(GROUP, dtype=np.int64)
        a = np.empty(GROUP, dtype=np.uint64)
        c = np.empty(GROUP, dtype=np.uint64)
        k0 = keys[p, 0]
        k1 = keys[p, 1]
        for j in range(n_batches):
            st[:] = xs[p]
            for w0 in range(0, batch_size, GROUP):
                g = min(GROUP, batch_size - w0)
                for i in range(g):
                    a[i], c[i] = walk_keys(k0, k1, 2 * (j * batch_size + w0 + i))
                _walk_group(indptr, indices, m, st, a, c, g, ts, buf, w0, thr)
            for ci in range(n_t):
                buf[ci].sort()
            st[:] = ys[p]
            for w0 in range(0, batch_size, GROUP):
                g = min(GROUP, batch_size - w0)
                for i in range(g):
                    a[i], c[i] = walk_keys(k0, k1, 2 * (j * batch_size + w0 + i) + 1)
                _walk_group(indptr, indices, m, st, a, c, g, ts, pos, 0, thr)
                for ci in range(n_t):
                    row = buf[ci]
                    for i in range(g):
                        v = pos[ci, i]
                        out[p, ci] += (np.searchsorted(row, v, side="right")
                                       - np.searchsorted(row, v, side="left"))
    return out


@jit(parallel=True, cache=True)
def normalised_collision_sums_kernel(indptr, indices, dbar, xs, ys, keys, ts, n_batches,
                                     batch_size, move_threshold=_HALF):
    """:func:`collision_counts_kernel` for the degree-normalised walk, each collision at
    ``v`` weighted by :func:`collision_weight` (``dbar / deg(v)``).

    Same walks (walk ids, batches, ``GROUP``) as the unweighted kernel run with
    ``max_degree = 0``; divided by ``n_batches * batch_size**2`` the sum is an
    unbiased estimate of ``sum_v p_x^t(v) p_y^t(v) dbar / deg(v)``, the collision
    probability weighted by the inverse stationary distribution (over ``n``).
    ``move_threshold`` sets the laziness (as in :func:`walk_endpoints_kernel`).

    Returns
    -------
    ndarray of float64, shape (n_pairs, n_t)
    """
    n_pairs = xs.shape[0]
    n_t = ts.shape[0]
    out = np.zeros((n_pairs, n_t))
    m = np.uint64(0)
    thr = np.uint64(move_threshold)
    for p in prange(n_pairs):
        buf = np.empty((n_t, batch_size), dtype=np.int64)
        pos = np.empty((n_t, GROUP), dtype=np.int64)
        st = np.empty(GROUP, dtype=np.int64)
        a = np.empty(GROUP, dtype=np.uint64)
        c = np.empty(GROUP, dtype=np.uint64)
        k0 = keys[p, 0]
        k1 = keys[p, 1]
        for j in range(n_batches):
            st[:] = xs[p]
            for w0 in range(0, batch_size, GROUP):
                g = min(GROUP, batch_size - w0)
                for i in range(g):
                    a[i], c[i] = walk_keys(k0, k1, 2 * (j * batch_size + w0 + i))
                _walk_group(indptr, indices, m, st, a, c, g, ts, buf, w0, thr)
            for ci in range(n_t):
                buf[ci].sort()
            st[:] = ys[p]
            for w0 in range(0, batch_size, GROUP):
                g = min(GROUP, batch_size - w0)
                for i in range(g):
                    a[i], c[i] = walk_keys(k0, k1, 2 * (j * batch_size + w0 + i) + 1)
                _walk_group(indptr, indices, m, st, a, c, g, ts, pos, 0, thr)
                for ci in range(n_t):
                    row = buf[ci]
                    for i in range(g):
                        v = pos[ci, i]
                        cnt = (np.searchsorted(row, v, side="right")
                               - np.searchsorted(row, v, side="left"))
                        if cnt > 0:
                            out[p, ci] += cnt * collision_weight(indptr, dbar, v)
    return out


@jit(cache=True)
def weighted_step(indptr, cumw, scale, v, u):
    """Slot taken by one lazy step of a weighted walk at ``v`` with 32-bit draw ``u``.

    ``cumw[e]`` is the cumulative edge weight of row ``v`` up to slot ``e``
    (inclusive), so ``cumw[indptr[v+1] - 1]`` is the weighted degree ``w(v)``;
    ``scale = 2 d / 2**32`` where ``d`` is the largest weighted degree. The
    draw ``r = u * scale`` is uniform on ``[0, 2d)``; the walk takes slot
    ``e`` when ``cumw[e-1] <= r < cumw[e]`` (probability ``A_ve / (2d)``) and
    stays otherwise (probability ``1/2 + (d - w(v)) / (2d)``): one step of
    ``W = (I + (A + diag(d - w)) / d) / 2``. Returns the slot, or
    ``indptr[v+1]`` for "stay" (so the result is non-decreasing in ``u``).
    """
    lo = indptr[v]
    hi = indptr[v + 1]
    r = np.float64(u) * scale
    if hi == lo or r >= cumw[hi - 1]:
        return hi
    a = lo
    b = hi - 1
    while a < b:
        mid = (a + b) // 2
        if cumw[mid] > r:
            b = mid
        else:
            a = mid + 1
    return a


@jit(parallel=True, cache=True)
def weighted_walk_endpoints_kernel(indptr, indices, cumw, max_weight, starts, keys, walk_ids,
                                   ts):
    """Weighted version of :func:`walk_endpoints_kernel` (same draws, same walk ids).

    ``cumw`` holds row-wise cumulative edge weights (see :func:`weighted_step`)
    and ``max_weight`` is ``d``, at least every weighted degree.
    """
    n_walks = starts.shape[0]
    n_t = ts.shape[0]
    out = np.empty((n_t, n_walks), dtype=np.int64)
    scale = 2.0 * max_weight / 4294967296.0
    for i in prange(n_walks):
        a, c = walk_keys(keys[i, 0], keys[i, 1], walk_ids[i])
        v = np.int64(starts[i])
        ci = 0
        while ci < n_t and ts[ci] == 0:
            out[ci, i] = v
            ci += 1
        step = 0
        while ci < n_t:
            salt = (np.uint64(step + 1) * np.uint64(_GOLDEN)) & np.uint64(_MASK)
            u = hash32(a ^ salt) ^ c
            e = weighted_step(indptr, cumw, scale, v, u)
            if e < indptr[v + 1]:
                v = np.int64(indices[e])
            step += 1
            while ci < n_t and ts[ci] == step:
                out[ci, i] = v
                ci += 1
    return out


@jit(parallel=True, cache=True)
def missing_mirrors_kernel(indptr, indices):
    """Whether a CSR pattern is symmetric, without building its transpose.

    Each stored ``(v, u)`` with ``u > v`` is looked up by binary search in
    row ``u``; the pattern is symmetric exactly when all of them are found
    and there are as many entries below the diagonal as above (the mirror
    map from the upper to the lower entries is then a bijection). Needs rows
    with sorted, distinct column indices (canonical CSR); uses no memory
    beyond the input.

    Parameters
    ----------
    indptr, indices : ndarray of int
        Canonical CSR structure of a square matrix.

    Returns
    -------
    int
        Upper entries without a mirror plus the absolute difference between
        the numbers of lower and upper entries: ``0`` exactly when the
        pattern is symmetric.
    """
    n = indptr.shape[0] - 1
    missing = 0
    balance = 0
    for v in prange(n):
        miss = 0
        bal = 0
        for e in range(indptr[v], indptr[v + 1]):
            u = indices[e]
            if u < v:
                bal += 1
            elif u > v:
                bal -= 1
                lo = np.int64(indptr[u])
                end = np.int64(indptr[u + 1])
                hi = end
                while lo < hi:
                    mid = (lo + hi) // 2
                    if indices[mid] < v:
                        lo = mid + 1
                    else:
                        hi = mid
                if lo == end or indices[lo] != v:
                    miss += 1
        missing += miss
        balance += bal
    return missing + abs(balance)


@jit(cache=True)
def bipartite_component_kernel(indptr, indices):
    """First vertex of a bipartite connected component with at least one edge, or -1.

    Two-colours each component by breadth-first search (``O(n + nnz)`` time, one colour
    byte and one queue slot per vertex); a component is bipartite when no edge joins two
    vertices of one colour. Isolated vertices do not count (the walk stays there).

    Parameters
    ----------
    indptr, indices : ndarray of int
        CSR structure of a symmetric graph.

    Returns
    -------
    int
        The smallest vertex of the first bipartite component found (components in the
        order of their smallest vertex), or -1 when there is none.
    """
    n = indptr.shape[0] - 1
    colour = np.full(n, -1, dtype=np.int8)
    queue = np.empty(n, dtype=np.int64)
    for root in range(n):
        if colour[root] >= 0 or indptr[root + 1] == indptr[root]:
            continue
        colour[root] = 0
        queue[0] = root
        head = 0
        tail = 1
        odd = False
        while head < tail:
            v = queue[head]
            head += 1
            for e in range(indptr[v], indptr[v + 1]):
                u = indices[e]
                if colour[u] < 0:
                    colour[u] = 1 - colour[v]
                    queue[tail] = u
                    tail += 1
                elif colour[u] == colour[v]:
                    odd = True
        if not odd:
            return root
    return -1

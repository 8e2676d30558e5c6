"""Pure NumPy (array-API) lazy walks and counts: the references of the Numba kernels.

A leaf of the package: it imports nothing from :mod:`statlearn.cluster`, and
:mod:`._kernels` depends on it only (for the hash constants). It holds

* the counter-based hash in two forms, on arrays of any namespace
  (:func:`_hash32_xp`) and on Python ints (:func:`_hash32_py`), with the
  constants every engine shares (see :mod:`._kernels` for the scheme);
* the vectorised walks and batched collision counts of the array-API backends
  (``backend="numpy"`` or ``"cupy"``): :func:`walk_endpoints_xp` and
  :func:`collision_counts_xp`, bit-identical to the kernels;
* the NumPy twin of every kernel (``*_reference``), which the tests compare
  the kernels with.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from statlearn.utils import get_namespace

__all__ = [
    "advance_walks_reference",
    "bipartite_component_reference",
    "collision_counts_reference",
    "collision_counts_xp",
    "default_lanes",
    "index_counts_reference",
    "index_scores_reference",
    "index_weighted_counts_reference",
    "missing_mirrors_reference",
    "move_threshold",
    "walk_endpoints_xp",
    "weighted_walk_endpoints_reference",
]

_MASK = 0xFFFFFFFF
_GOLDEN = 0x9E3779B9
_SIDE_SALT = 0xA511E9B3
_XP_CHUNK_WALKS = 2**22
#: move threshold of the degree-normalised walk at laziness 1/2
_HALF = 1 << 31


def move_threshold(laziness) -> int:
    """``T = round((1 - laziness) 2**32)``, the move threshold of the degree-normalised walk.

    A step moves when its 32-bit draw ``u`` is below ``T`` (probability ``T / 2**32``,
    ``1 - laziness`` up to ``2**-33``) and then takes the neighbour
    ``floor(u deg(v) / T)``; laziness 1/2 gives ``2**31``, 0 gives ``2**32``.

    Examples
    --------
    >>> from statlearn.cluster._references import move_threshold
    >>> move_threshold(0.5) == 2**31, move_threshold(0.0) == 2**32
    (True, True)
    """
    lz = float(laziness)
    if not 0.0 <= lz < 1.0:
        raise ValueError(f"laziness must be in [0, 1), got {laziness!r}.")
    return max(1, min(1 << 32, round((1.0 - lz) * 2.0**32)))


# ---------------------------------------------------------------- hashing
def _hash32_xp(x, xp):
    x = x ^ (x >> 16)
    x = (x * 0x7FEB352D) & _MASK
    x = x ^ (x >> 15)
    x = (x * 0x846CA68B) & _MASK
    return x ^ (x >> 16)


def _hash32_py(x: int) -> int:
    x ^= x >> 16
    x = (x * 0x7FEB352D) & _MASK
    x ^= x >> 15
    x = (x * 0x846CA68B) & _MASK
    return x ^ (x >> 16)


# ---------------------------------------------------------------- array-API walks
def walk_endpoints_xp(indptr, indices, max_degree, starts, keys, walk_ids, ts,
                      move_threshold=_HALF):
    """Vectorised array-API version of :func:`._kernels.walk_endpoints_kernel`.

    All arguments are arrays of one namespace (NumPy, CuPy, array-api-strict):
    ``indptr``/``indices`` int64, ``starts``/``walk_ids`` int64 of shape
    ``(n_walks,)``, ``keys`` uint64 of shape ``(n_walks, 2)``; ``ts`` is a
    non-decreasing sequence of Python ints. Returns int64 positions of shape
    ``(len(ts), n_walks)`` in the same namespace, equal to the kernel's.
    ``max_degree = 0``: the degree-normalised walk with move threshold
    ``move_threshold`` (see :func:`move_threshold`; default laziness 1/2).
    """
    xp = get_namespace(indptr)
    n_walks = starts.shape[0]
    no_edges = indices.shape[0] == 0
    wid = xp.astype(walk_ids, xp.uint64)
    a = _hash32_xp(keys[:, 0] ^ _hash32_xp(wid ^ _SIDE_SALT, xp), xp)
    c = _hash32_xp(keys[:, 1] ^ a, xp)
    m = 2 * int(max_degree)
    thr = int(move_threshold)
    v = xp.astype(starts, xp.int64)
    out = []
    ts = [int(t) for t in ts]
    ci = 0
    while ci < len(ts) and ts[ci] == 0:
        out.append(v)
        ci += 1
    step = 0
    while ci < len(ts):
        salt = ((step + 1) * _GOLDEN) & _MASK
        u = _hash32_xp(a ^ salt, xp) ^ c
        r = xp.astype((u * m) >> 32, xp.int64)
        lo = xp.take(indptr, v)
        deg = xp.take(indptr, v + 1) - lo
        if m == 0:  # degree-normalised: u * deg(v) < 2**63 (deg < 2**31)
            if thr == _HALF:  # the same number as the division, by a shift
                r = xp.astype((u * xp.astype(2 * deg, xp.uint64)) >> 32, xp.int64)
            else:
                r = xp.astype((u * xp.astype(deg, xp.uint64)) // thr, xp.int64)
        move = r < deg
        if no_edges:  # nothing to gather: no walk ever moves
            step += 1
            while ci < len(ts) and ts[ci] == step:
                out.append(v)
                ci += 1
            continue
        # clamp the gathered index of walks that stay (always valid, no padded copy)
        nb = xp.take(indices, xp.where(move, lo + r, xp.zeros_like(lo)))
        v = xp.where(move, xp.astype(nb, xp.int64), v)
        step += 1
        while ci < len(ts) and ts[ci] == step:
            out.append(v)
            ci += 1
    if not out:
        return xp.zeros((0, n_walks), dtype=xp.int64)
    return xp.stack(out, axis=0)


def _batch_walks(xs, ys, keys, j, batch_size, xp):
    """Starts, keys and ids of batch ``j`` of the given pairs (x side, then y side).

    Walk ``w`` of batch ``j`` has id ``2 (j b + w)`` on the ``x`` side and
    ``2 (j b + w) + 1`` on the ``y`` side, as in the kernels.
    """
    p = xs.shape[0]
    idx = xp.arange(batch_size, dtype=xp.int64) + j * batch_size
    ones = xp.ones((1, batch_size), dtype=xp.int64)
    start_x = xp.reshape(xp.reshape(xs, (p, 1)) * ones, (-1,))
    start_y = xp.reshape(xp.reshape(ys, (p, 1)) * ones, (-1,))
    id_x = xp.reshape(xp.zeros((p, 1), dtype=xp.int64) + 2 * idx, (-1,))
    kx = xp.reshape(xp.reshape(keys, (p, 1, 2)) * xp.ones((1, batch_size, 1), dtype=keys.dtype),
                    (-1, 2))
    starts = xp.concat([start_x, start_y])
    ids = xp.concat([id_x, id_x + 1])
    return starts, xp.concat([kx, kx]), ids


_NUMPY_LANES = 64


def default_lanes(xp, batch_size):
    """Pairs walked at once on the array-API path (64 on NumPy, more on devices).

    Each pair in flight holds one batch (``2 b`` walk positions plus
    temporaries of the same length), like one thread of the Numba kernel, so
    memory is ``lanes * O(b)``: it follows ``batch_size``. NumPy uses 64
    lanes (vectorisation without a large footprint); a GPU (CuPy) runs as
    many pairs as fit ``2**22`` walk positions. ``n_jobs`` sets it.
    """
    import array_api_compat

    if array_api_compat.is_numpy_namespace(xp):
        return _NUMPY_LANES
    return max(1, _XP_CHUNK_WALKS // max(1, 2 * batch_size))


def collision_counts_xp(indptr, indices, max_degree, xs, ys, keys, ts, n_batches, batch_size,
                        prior=False, lanes=None, dbar=None, move_threshold=_HALF):
    """Array-API version of :func:`._kernels.collision_counts_kernel` (same output).

    Walks run one batch at a time: ``lanes`` pairs are in flight, each
    holding the ``2 * batch_size`` walks of its current batch, so the memory
    follows ``batch_size`` (``lanes * 2 * batch_size`` positions and
    temporaries of that length), never the total ``n_walks``. ``lanes``
    defaults to :func:`default_lanes`. With ``prior=True`` the single batch
    holds all ``n_walks`` walks of each side (the unbatched estimator).
    With ``dbar`` (and ``max_degree = 0``, the degree-normalised walk) each
    collision at ``v`` counts ``dbar / max(deg(v), 1)`` and the float64 sums are
    returned: the twin of :func:`._kernels.normalised_collision_sums_kernel`
    (equal up to the order of the floating-point additions). ``move_threshold``: the
    laziness of the degree-normalised walk (see :func:`move_threshold`).
    """
    xp = get_namespace(indptr)
    n = int(indptr.shape[0]) - 1
    p = int(xs.shape[0])
    n_t = len(ts)
    lanes = default_lanes(xp, batch_size) if lanes is None else max(1, int(lanes))
    results = []
    for lo in range(0, p, lanes):
        hi = min(p, lo + lanes)
        q = hi - lo
        half = q * batch_size
        # composite key: pair * n + vertex, so one sort serves all pairs in flight
        group = xp.reshape(xp.arange(q, dtype=xp.int64), (q, 1))
        group = xp.reshape(group * xp.ones((1, batch_size), dtype=xp.int64), (-1,)) * n
        total = xp.zeros((q, n_t), dtype=xp.int64 if dbar is None else xp.float64)
        for j in range(n_batches):
            starts, kk, ids = _batch_walks(xs[lo:hi], ys[lo:hi], keys[lo:hi, :], j,
                                           batch_size, xp)
            ends = walk_endpoints_xp(indptr, indices, max_degree, starts, kk, ids, ts,
                                     move_threshold)
            rows = []
            for ci in range(n_t):
                ex = xp.sort(ends[ci, :half] + group)
                ey = ends[ci, half:] + group
                cnt = (xp.searchsorted(ex, ey, side="right")
                       - xp.searchsorted(ex, ey, side="left"))
                if dbar is not None:
                    v = ends[ci, half:]
                    deg = xp.take(indptr, v + 1) - xp.take(indptr, v)
                    cnt = xp.astype(cnt, xp.float64) * (
                        float(dbar) / xp.astype(xp.where(deg > 0, deg, xp.ones_like(deg)),
                                                xp.float64))
                rows.append(xp.sum(xp.reshape(cnt, (q, batch_size)), axis=1))
            total = total + xp.stack(rows, axis=1)
        results.append(total)
    if not results:
        return xp.zeros((0, n_t), dtype=xp.int64 if dbar is None else xp.float64)
    return xp.concat(results, axis=0)


# ---------------------------------------------------------------- kernel references
def advance_walks_reference(indptr, indices, cumw, max_degree, pos, keys, first, step0,
                            n_steps, move_threshold=_HALF):
    """Reference of :func:`._kernels.advance_walks_kernel`: the walks rerun from their starts.

    ``pos`` here holds the *start* vertices (step 0) and ``step0`` is ignored
    beyond checking it; returns the positions after ``step0 + n_steps`` steps
    from :func:`._kernels.walk_endpoints_kernel` / :func:`weighted_walk_endpoints_reference`.

    Examples
    --------
    >>> import numpy as np
    >>> from statlearn.cluster._references import advance_walks_reference
    >>> ip, ix = np.array([0, 1, 2]), np.array([1, 0])
    >>> keys = np.zeros((1, 2), dtype=np.uint64)
    >>> out = advance_walks_reference(ip, ix, np.zeros(0), 1, np.array([[0, 0]]), keys, 0, 0, 3)
    >>> out.shape
    (1, 2)
    """
    starts = np.asarray(pos, dtype=np.int64)
    m_rows, count = starts.shape
    flat_keys = np.repeat(np.asarray(keys, dtype=np.uint64), count, axis=0)
    ids = np.tile(np.arange(first, first + count, dtype=np.int64), m_rows)
    ts = np.array([step0 + n_steps], dtype=np.int64)
    if np.asarray(cumw).shape[0] > 0:
        out = weighted_walk_endpoints_reference(indptr, indices, cumw, max_degree,
                                                starts.ravel(), flat_keys, ids, ts)
    else:
        out = walk_endpoints_xp(np.asarray(indptr, dtype=np.int64),
                                np.asarray(indices, dtype=np.int64), int(max_degree),
                                starts.ravel(), flat_keys, ids, [int(ts[0])], move_threshold)
    return out.reshape(m_rows, count)


def _index_hits(endpoints, owners, queries_flat):
    """``(walk, owner)`` of every stored endpoint equal to each looked-up one (NumPy)."""
    e = np.asarray(queries_flat).ravel()
    lo = np.searchsorted(endpoints, e, side="left")
    hi = np.searchsorted(endpoints, e, side="right")
    n_hit = hi - lo
    walk = np.repeat(np.arange(e.size), n_hit)
    offset = np.cumsum(n_hit) - n_hit
    where = np.arange(int(n_hit.sum())) - np.repeat(offset - lo, n_hit)
    return walk, np.asarray(owners)[where]


def index_counts_reference(endpoints, owners, queries, s):
    """NumPy reference of :func:`._kernels.index_counts_kernel` (binary searches, then a bincount).

    Examples
    --------
    >>> import numpy as np
    >>> from statlearn.cluster._references import index_counts_reference
    >>> index_counts_reference(np.array([1, 1, 4]), np.array([0, 1, 1]),
    ...                        np.array([[1, 4, 2]]), 2).tolist()
    [[1, 2]]
    """
    queries = np.asarray(queries)
    q, r = queries.shape
    walk, owner = _index_hits(endpoints, owners, queries)
    return np.bincount((walk // r) * s + owner, minlength=q * s).reshape(q, s)


def index_weighted_counts_reference(endpoints, owners, queries, s, indptr, dbar):
    """NumPy reference of :func:`._kernels.index_weighted_counts_kernel`: each collision at
    ``v`` counts ``dbar / max(deg(v), 1)`` (one weighted bincount).

    Examples
    --------
    >>> import numpy as np
    >>> from statlearn.cluster._references import index_weighted_counts_reference
    >>> indptr = np.array([0, 1, 3, 4, 5, 7])  # degrees 1, 2, 1, 1, 2
    >>> index_weighted_counts_reference(np.array([1, 1, 4]), np.array([0, 1, 1]),
    ...                                 np.array([[1, 4, 2]]), 2, indptr, 2.0).tolist()
    [[1.0, 2.0]]
    """
    queries = np.asarray(queries)
    q, r = queries.shape
    walk, owner = _index_hits(endpoints, owners, queries)
    e = queries.ravel()[walk]
    deg = np.asarray(indptr)[e + 1] - np.asarray(indptr)[e]
    w = float(dbar) / np.maximum(deg, 1)
    return np.bincount((walk // r) * s + owner, weights=w, minlength=q * s).reshape(q, s)


def index_scores_reference(endpoints, owners, queries, weights):
    """NumPy reference of :func:`._kernels.index_scores_kernel` (one weighted bincount per column).

    Examples
    --------
    >>> import numpy as np
    >>> from statlearn.cluster._references import index_scores_reference
    >>> index_scores_reference(np.array([1, 1, 4]), np.array([0, 1, 1]), np.array([1, 2]),
    ...                        np.array([[1.0], [10.0]])).tolist()
    [[11.0], [0.0]]
    """
    e = np.asarray(queries).ravel()
    walk, owner = _index_hits(endpoints, owners, e)
    weights = np.asarray(weights, dtype=np.float64)
    out = np.zeros((e.size, weights.shape[1]))
    for c in range(weights.shape[1]):
        out[:, c] = np.bincount(walk, weights=weights[owner, c], minlength=e.size)
    return out


def weighted_walk_endpoints_reference(indptr, indices, cumw, max_weight, starts, keys, walk_ids,
                                      ts):
    """Pure-Python reference of :func:`._kernels.weighted_walk_endpoints_kernel` (same walks).

    Examples
    --------
    >>> import numpy as np
    >>> from statlearn.cluster._references import weighted_walk_endpoints_reference
    >>> ip, ix, cw = np.array([0, 1, 2]), np.array([1, 0]), np.array([2.0, 2.0])
    >>> keys = np.zeros((1, 2), dtype=np.uint64)
    >>> out = weighted_walk_endpoints_reference(ip, ix, cw, 2.0, np.array([0]), keys,
    ...                                         np.array([0]), [0, 50])
    >>> out.shape, int(out[0, 0])
    ((2, 1), 0)
    """
    mask = 0xFFFFFFFF

    def h(x):
        x ^= x >> 16
        x = (x * 0x7FEB352D) & mask
        x ^= x >> 15
        x = (x * 0x846CA68B) & mask
        return x ^ (x >> 16)

    scale = 2.0 * float(max_weight) / 4294967296.0
    ts = [int(t) for t in ts]
    out = np.empty((len(ts), len(starts)), dtype=np.int64)
    for i in range(len(starts)):
        a = h(int(keys[i, 0]) ^ h(int(walk_ids[i]) ^ _SIDE_SALT))
        c = h(int(keys[i, 1]) ^ a)
        v = int(starts[i])
        ci = 0
        while ci < len(ts) and ts[ci] == 0:
            out[ci, i] = v
            ci += 1
        step = 0
        while ci < len(ts):
            u = h(a ^ (((step + 1) * _GOLDEN) & mask)) ^ c
            lo, hi = int(indptr[v]), int(indptr[v + 1])
            r = float(u) * scale
            if hi > lo and r < cumw[hi - 1]:
                e = lo + int(np.searchsorted(cumw[lo:hi], r, side="right"))
                v = int(indices[e])
            step += 1
            while ci < len(ts) and ts[ci] == step:
                out[ci, i] = v
                ci += 1
    return out


def collision_counts_reference(endpoints_x, endpoints_y, n_batches, batch_size, weights=None):
    """Pure-NumPy reference of the counting step of :func:`._kernels.collision_counts_kernel`.

    Parameters
    ----------
    endpoints_x, endpoints_y : ndarray of int, shape (n_batches * batch_size,)
        Endpoints of the walks from ``x`` and from ``y``, in walk order.
    n_batches, batch_size : int
    weights : ndarray of float64, shape (n,), optional
        Weight of a collision at each vertex (the degree-normalised statistics of
        :func:`._kernels.normalised_collision_sums_kernel`: ``dbar / deg(v)``).

    Returns
    -------
    int or float
        ``sum_j sum_v c_x^j(v) c_y^j(v)`` (times ``weights[v]``) over batches ``j``.

    Examples
    --------
    >>> import numpy as np
    >>> from statlearn.cluster._references import collision_counts_reference
    >>> collision_counts_reference(np.array([0, 1, 1, 2]), np.array([1, 1, 2, 2]), 2, 2)
    4
    """
    ex = np.asarray(endpoints_x).reshape(n_batches, batch_size)
    ey = np.asarray(endpoints_y).reshape(n_batches, batch_size)
    total = 0
    for j in range(n_batches):
        vx, cx = np.unique(ex[j], return_counts=True)
        vy, cy = np.unique(ey[j], return_counts=True)
        common, ix, iy = np.intersect1d(vx, vy, assume_unique=True, return_indices=True)
        if weights is None:
            total += int(np.sum(cx[ix] * cy[iy]))
        else:
            total += float(np.sum(cx[ix] * cy[iy] * np.asarray(weights)[common]))
    return total


def missing_mirrors_reference(indptr, indices):
    """NumPy/SciPy reference of :func:`._kernels.missing_mirrors_kernel` (sets of pairs).

    Examples
    --------
    >>> import numpy as np
    >>> from statlearn.cluster._references import missing_mirrors_reference
    >>> missing_mirrors_reference(np.array([0, 1, 1]), np.array([1]))  # only 0 -> 1
    2
    """
    n = indptr.shape[0] - 1
    A = sp.coo_array(sp.csr_array((np.ones(indices.shape[0]), indices, indptr), shape=(n, n)))
    upper = set(zip(A.row[A.col > A.row].tolist(), A.col[A.col > A.row].tolist()))
    lower = set(zip(A.col[A.col < A.row].tolist(), A.row[A.col < A.row].tolist()))
    return len(upper - lower) + abs(len(lower) - len(upper))


def bipartite_component_reference(indptr, indices):
    """SciPy reference of :func:`._kernels.bipartite_component_kernel` (the double cover).

    A connected component is bipartite exactly when it splits into two components in the
    bipartite double cover ``[[0, A], [A, 0]]``: vertex ``v`` and its copy ``v + n`` are
    then in different components.

    Examples
    --------
    >>> import numpy as np
    >>> from statlearn.cluster._references import bipartite_component_reference
    >>> bipartite_component_reference(np.array([0, 1, 2]), np.array([1, 0]))  # one edge
    0
    """
    from scipy.sparse.csgraph import connected_components

    n = indptr.shape[0] - 1
    A = sp.csr_array((np.ones(indices.shape[0]), indices, indptr), shape=(n, n))
    cover = sp.block_array([[None, A], [A, None]], format="csr")
    _, lab = connected_components(cover, directed=False)
    _, comp = connected_components(A, directed=False)
    deg = np.diff(indptr)
    split = (lab[:n] != lab[n:]) & (deg > 0)
    if not split.any():
        return -1
    # the smallest vertex of the first bipartite component, in the order of smallest vertices
    first = np.full(comp.max() + 1, n)
    np.minimum.at(first, comp, np.arange(n))
    return int(first[comp[split]].min())

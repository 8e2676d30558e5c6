"""Numba kernels for lazy random walks on CSR graphs (and their references).

Randomness is counter based: the ``i``-th step of walk ``w`` of estimate
``e`` draws ``h(a ^ salt(i)) ^ c`` where ``h`` is a 32-bit integer hash
(the "lowbias32" mixer: xor-shift, multiply, xor-shift, multiply,
xor-shift), ``a, c`` are the walk's two keys (derived from the estimate's
two seed words and the walk id) and ``salt(i)`` is a multiple of the golden
ratio constant. Every number is kept below ``2**32`` before it is multiplied
by a 32-bit constant, so no operation overflows 64-bit unsigned arithmetic:
the kernels, the pure-Python fallback (``NUMBA_DISABLE_JIT=1``) and the
vectorised array-API reference in :mod:`statlearn.cluster._walks` give
bit-identical walks, on any thread count and in any order.

One lazy step of the ``d``-bounded convention from vertex ``v``: draw
``r`` uniform on ``{0, ..., 2d - 1}`` (as ``(u * 2d) >> 32`` for a 32-bit
``u``); move to the ``r``-th neighbour if ``r < deg(v)``, else stay. This
stays with probability ``1/2 + (d - deg(v)) / (2d)`` and moves to each
neighbour with probability ``1/(2d)``, i.e. one step of
``W = (I + A/d) / 2`` where ``A`` carries ``d - deg(v)`` self-loops at
``v``. The draw is uniform up to a relative error of ``2d / 2**32``.

Walk ids: in estimate ``e`` the walks from ``x`` have ids ``0, 2, 4, ...``
and the walks from ``y`` ids ``1, 3, 5, ...`` (walk ``j * b + w`` of a side
has id ``2 * (j * b + w) + side``), so the two sides are always independent
walk sets, also when ``x == y``.
"""

from __future__ import annotations

import numpy as np

from statlearn.utils import jit, prange

__all__ = [
    "collision_counts_kernel",
    "collision_counts_reference",
    "hash32",
    "walk_endpoints_kernel",
    "walk_keys",
]

_MASK = 0xFFFFFFFF
_GOLDEN = 0x9E3779B9
_SIDE_SALT = 0xA511E9B3


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
def _step_draw(a, c, step, m):
    salt = (np.uint64(step + 1) * np.uint64(_GOLDEN)) & np.uint64(_MASK)
    u = hash32(a ^ salt) ^ c
    return np.int64((u * m) >> np.uint64(32))


@jit(cache=True)
def _walk(indptr, indices, m, start, a, c, ts, out, col):
    """Walk from ``start`` to ``ts[-1]`` steps, writing the position after
    ``ts[i]`` steps into ``out[i, col]``."""
    v = np.int64(start)
    n_t = ts.shape[0]
    ci = 0
    step = 0
    while ci < n_t and ts[ci] == 0:
        out[ci, col] = v
        ci += 1
    while ci < n_t:
        r = _step_draw(a, c, step, m)
        lo = indptr[v]
        if r < indptr[v + 1] - lo:
            v = np.int64(indices[lo + r])
        step += 1
        while ci < n_t and ts[ci] == step:
            out[ci, col] = v
            ci += 1


@jit(parallel=True, cache=True)
def walk_endpoints_kernel(indptr, indices, max_degree, starts, keys, walk_ids, ts):
    """Positions of independent lazy walks after each number of steps in ``ts``.

    Parameters
    ----------
    indptr, indices : ndarray of int
        CSR structure of the graph (``indices[indptr[v]:indptr[v+1]]`` are
        the neighbours of ``v``).
    max_degree : int
        The ``d`` of the ``d``-bounded convention (at least every degree).
    starts : ndarray of int64, shape (n_walks,)
        Start vertex of each walk.
    keys : ndarray of uint64, shape (n_walks, 2)
        Seed words of the estimate each walk belongs to.
    walk_ids : ndarray of int64, shape (n_walks,)
        Walk id inside its estimate (see the module docstring).
    ts : ndarray of int64, shape (n_t,)
        Non-decreasing checkpoints (numbers of steps).

    Returns
    -------
    ndarray of int64, shape (n_t, n_walks)
    """
    n_walks = starts.shape[0]
    out = np.empty((ts.shape[0], n_walks), dtype=np.int64)
    m = np.uint64(2 * max_degree)
    for i in prange(n_walks):
        a, c = walk_keys(keys[i, 0], keys[i, 1], walk_ids[i])
        _walk(indptr, indices, m, starts[i], a, c, ts, out, i)
    return out


@jit(parallel=True, cache=True)
def collision_counts_kernel(indptr, indices, max_degree, xs, ys, keys, ts, n_batches,
                            batch_size):
    """Batched collision counts of ``EstRWDot`` for many ``(x, y)`` pairs.

    For each pair and batch, ``batch_size`` walks from ``x`` are run one at
    a time and their endpoints kept in a sorted list (``batch_size`` words
    per checkpoint); then ``batch_size`` walks from ``y`` are streamed, one
    at a time, each adding the number of ``x`` endpoints equal to its own
    endpoint. The count summed over batches divided by
    ``n_batches * batch_size**2`` is the estimate ``Z``.

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
    for p in prange(n_pairs):
        buf = np.empty((n_t, batch_size), dtype=np.int64)
        pos = np.empty((n_t, 1), dtype=np.int64)
        k0 = keys[p, 0]
        k1 = keys[p, 1]
        for j in range(n_batches):
            for w in range(batch_size):
                a, c = walk_keys(k0, k1, 2 * (j * batch_size + w))
                _walk(indptr, indices, m, xs[p], a, c, ts, buf, w)
            for ci in range(n_t):
                buf[ci].sort()
            for w in range(batch_size):
                a, c = walk_keys(k0, k1, 2 * (j * batch_size + w) + 1)
                _walk(indptr, indices, m, ys[p], a, c, ts, pos, 0)
                for ci in range(n_t):
                    v = pos[ci, 0]
                    row = buf[ci]
                    out[p, ci] += (np.searchsorted(row, v, side="right")
                                   - np.searchsorted(row, v, side="left"))
    return out


def collision_counts_reference(endpoints_x, endpoints_y, n_batches, batch_size):
    """Pure-NumPy reference of the counting step of :func:`collision_counts_kernel`.

    Parameters
    ----------
    endpoints_x, endpoints_y : ndarray of int, shape (n_batches * batch_size,)
        Endpoints of the walks from ``x`` and from ``y``, in walk order.
    n_batches, batch_size : int

    Returns
    -------
    int
        ``sum_j sum_v c_x^j(v) c_y^j(v)`` over batches ``j``.

    Examples
    --------
    >>> import numpy as np
    >>> from statlearn.cluster._kernels import collision_counts_reference
    >>> collision_counts_reference(np.array([0, 1, 1, 2]), np.array([1, 1, 2, 2]), 2, 2)
    4
    """
    ex = np.asarray(endpoints_x).reshape(n_batches, batch_size)
    ey = np.asarray(endpoints_y).reshape(n_batches, batch_size)
    total = 0
    for j in range(n_batches):
        vx, cx = np.unique(ex[j], return_counts=True)
        vy, cy = np.unique(ey[j], return_counts=True)
        _, ix, iy = np.intersect1d(vx, vy, assume_unique=True, return_indices=True)
        total += int(np.sum(cx[ix] * cy[iy]))
    return total

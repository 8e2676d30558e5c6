"""Generators of clusterable graphs as sparse adjacency matrices.

All generators return :class:`scipy.sparse.csr_array` adjacency matrices of
simple undirected graphs (symmetric, zero diagonal, entries 1) and take a
``random_state``. They are vectorised so that graphs with ``10**6``
vertices and ``10**7`` edges take seconds.
"""

from __future__ import annotations

import math
import numbers

import numpy as np
import scipy.sparse as sp

from statlearn.utils import check_int, check_real, check_rng

__all__ = ["make_planted_expanders", "make_random_regular_graph", "make_sbm_graph"]


def _bernoulli_indices(rng, n_total: int, p: float) -> np.ndarray:
    """Sorted indices in ``[0, n_total)``, each kept independently with probability ``p``.

    Geometric skipping: the gaps between kept indices are i.i.d. Geometric(p),
    so the cost is proportional to the number of kept indices, not ``n_total``.
    """
    if n_total <= 0 or p <= 0.0:
        return np.zeros(0, dtype=np.int64)
    if p >= 1.0:
        return np.arange(n_total, dtype=np.int64)
    chunks = []
    last = -1
    mean = n_total * p
    while True:
        size = int(mean + 6 * math.sqrt(mean) + 16)
        gaps = rng.geometric(p, size=size).astype(np.int64)
        idx = last + np.cumsum(gaps)
        if idx[-1] >= n_total:
            chunks.append(idx[idx < n_total])
            break
        chunks.append(idx)
        last = int(idx[-1])
        mean = max((n_total - 1 - last) * p, 1.0)
    return np.concatenate(chunks)


def _triangle_decode(k: np.ndarray, m: int):
    """Row/column ``(i, j)``, ``i < j < m``, of linear index ``k`` of the strict upper triangle."""
    if k.size == 0:
        return k.copy(), k.copy()
    kf = k.astype(np.float64)
    b = 2.0 * m - 1.0
    i = np.floor((b - np.sqrt(np.maximum(b * b - 8.0 * kf, 0.0))) / 2.0).astype(np.int64)
    i = np.clip(i, 0, m - 2)

    def offset(r):
        return r * (2 * m - r - 1) // 2

    # correct floating-point rounding (at most one step either way)
    for _ in range(2):
        i = np.where(offset(i) > k, i - 1, i)
        i = np.where(offset(i + 1) <= k, i + 1, i)
    j = k - offset(i) + i + 1
    return i, j


def _symmetric_csr(u, v, n, dtype):
    rows = np.concatenate([u, v])
    cols = np.concatenate([v, u])
    data = np.ones(rows.size, dtype=dtype)
    A = sp.csr_array((data, (rows, cols)), shape=(n, n))
    A.sort_indices()
    if A.nnz < 2**31 - 1 and n < 2**31 - 1:  # 32-bit indices when they fit (as scipy does)
        A.indices = A.indices.astype(np.int32)
        A.indptr = A.indptr.astype(np.int32)
    return A


def _check_sizes(sizes, name="sizes"):
    if isinstance(sizes, numbers.Integral) or isinstance(sizes, str):
        raise TypeError(f"{name} must be a sequence of cluster sizes, got {sizes!r}.")
    arr = np.asarray(sizes)
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(f"{name} must be a non-empty 1-D sequence of cluster sizes.")
    if arr.dtype == bool or not np.issubdtype(arr.dtype, np.integer):
        raise TypeError(f"{name} must hold integers, got dtype {arr.dtype}.")
    if np.any(arr < 1):
        raise ValueError(f"{name} must hold positive cluster sizes, got {arr.tolist()}.")
    return arr.astype(np.int64)


def _check_dtype(dtype):
    try:
        dtype = np.dtype(dtype)
    except TypeError as exc:
        raise TypeError(f"dtype must be a NumPy numeric dtype, got {dtype!r}.") from exc
    if dtype.kind not in "biuf":
        raise TypeError(f"dtype must be a NumPy numeric dtype, got {dtype}.")
    return dtype


def make_sbm_graph(sizes, p, q, *, random_state=None, dtype=np.float64):
    """Stochastic block model with sparse output.

    Vertices are split into consecutive blocks of the given ``sizes``; each
    pair inside a block is an edge with probability ``p`` and each pair
    across blocks with probability ``q``, independently. Edges are drawn by
    geometric skipping over the pair index, so the cost is linear in the
    number of edges (``n = 10**6`` with average degree 20 takes a few
    seconds).

    Parameters
    ----------
    sizes : sequence of int
        Block sizes (each at least 1).
    p, q : float
        Within- and between-block edge probabilities in ``[0, 1]``.
    random_state : None, int, SeedSequence or Generator
        Seed.
    dtype : numpy dtype, default=float64
        Dtype of the stored ones.

    Returns
    -------
    adjacency : scipy.sparse.csr_array of shape (n, n)
        Symmetric 0/1 adjacency with zero diagonal.
    labels : ndarray of int64, shape (n,)
        Block of each vertex.

    Examples
    --------
    >>> from statlearn.datasets import make_sbm_graph
    >>> A, y = make_sbm_graph([100, 100], 0.2, 0.01, random_state=0)
    >>> A.shape, int(y.max())
    ((200, 200), 1)
    >>> bool((A != A.T).nnz == 0)
    True
    """
    sizes = _check_sizes(sizes)
    p = check_real(p, "p", low=0, high=1)
    q = check_real(q, "q", low=0, high=1)
    dtype = _check_dtype(dtype)
    rng = check_rng(random_state)
    starts = np.concatenate([[0], np.cumsum(sizes)])
    n = int(starts[-1])
    us, vs = [], []
    for a in range(sizes.size):
        m = int(sizes[a])
        k = _bernoulli_indices(rng, m * (m - 1) // 2, p)
        i, j = _triangle_decode(k, m)
        us.append(i + starts[a])
        vs.append(j + starts[a])
        for b in range(a + 1, sizes.size):
            mb = int(sizes[b])
            k = _bernoulli_indices(rng, m * mb, q)
            us.append(k // mb + starts[a])
            vs.append(k % mb + starts[b])
    u = np.concatenate(us)
    v = np.concatenate(vs)
    labels = np.repeat(np.arange(sizes.size, dtype=np.int64), sizes)
    return _symmetric_csr(u, v, n, dtype), labels


def _configuration_edges(rng, n, degree, offset=0):
    """Edges of a configuration-model multigraph, loops and repeated edges removed."""
    stubs = np.repeat(np.arange(n, dtype=np.int64), degree)
    rng.shuffle(stubs)
    u, v = stubs[0::2], stubs[1::2]
    lo, hi = np.minimum(u, v), np.maximum(u, v)
    keep = lo != hi
    code = np.unique(lo[keep] * n + hi[keep])
    return code // n + offset, code % n + offset


def make_random_regular_graph(n_vertices, degree, *, random_state=None, dtype=np.float64):
    """Random (nearly) ``degree``-regular expander from the configuration model.

    Each vertex gets ``degree`` half-edges, paired uniformly at random; the
    few self-loops and repeated edges this creates (about ``(degree**2-1)/4``
    in expectation, independent of ``n``) are removed, so a handful of
    vertices have degree ``degree - 1`` or ``degree - 2``. Such graphs are
    expanders with high probability (second adjacency eigenvalue near
    ``2 sqrt(degree - 1)``), and are ``degree``-bounded as the clustering
    oracle expects.

    Parameters
    ----------
    n_vertices : int
        Number of vertices (at least ``degree + 1``); ``n_vertices * degree``
        must be even.
    degree : int
        Target degree (at least 1).
    random_state : None, int, SeedSequence or Generator
        Seed.
    dtype : numpy dtype, default=float64
        Dtype of the stored ones.

    Returns
    -------
    scipy.sparse.csr_array of shape (n_vertices, n_vertices)

    Examples
    --------
    >>> from statlearn.datasets import make_random_regular_graph
    >>> A = make_random_regular_graph(1000, 8, random_state=0)
    >>> int(A.sum(axis=1).max()), bool(A.sum(axis=1).min() >= 6)
    (8, True)
    """
    n = check_int(n_vertices, "n_vertices", low=2)
    d = check_int(degree, "degree", low=1)
    if d >= n:
        raise ValueError(f"degree must be below n_vertices={n}, got {d}.")
    if (n * d) % 2:
        raise ValueError(f"n_vertices * degree must be even, got {n} * {d}.")
    dtype = _check_dtype(dtype)
    rng = check_rng(random_state)
    u, v = _configuration_edges(rng, n, d)
    return _symmetric_csr(u, v, n, dtype)


def make_planted_expanders(sizes, degree, n_bridges, *, random_state=None, dtype=np.float64):
    """Random regular expanders (one per cluster) joined by a few random edges.

    Cluster ``i`` is a :func:`make_random_regular_graph` on ``sizes[i]``
    vertices; then ``n_bridges`` edges are added between uniformly chosen
    vertices of different clusters (repeats dropped). With few bridges the
    clusters have inner conductance ``Omega(1)`` and outer conductance about
    ``n_bridges / (degree * n)``: the ``(k, phi, epsilon)``-clusterable graphs
    of the oracle's theory. ``n_bridges=0`` gives disjoint expanders.

    Parameters
    ----------
    sizes : sequence of int
        Cluster sizes; ``size * degree`` must be even for each.
    degree : int
        Degree inside each cluster.
    n_bridges : int
        Number of inter-cluster edges (``0`` allowed; needs two clusters
        otherwise).
    random_state : None, int, SeedSequence or Generator
        Seed.
    dtype : numpy dtype, default=float64
        Dtype of the stored ones.

    Returns
    -------
    adjacency : scipy.sparse.csr_array of shape (n, n)
    labels : ndarray of int64, shape (n,)

    Examples
    --------
    >>> from statlearn.datasets import make_planted_expanders
    >>> A, y = make_planted_expanders([500, 500], 8, n_bridges=10, random_state=0)
    >>> A.shape, int((y[A.nonzero()[0]] != y[A.nonzero()[1]]).sum())
    ((1000, 1000), 20)
    """
    sizes = _check_sizes(sizes)
    d = check_int(degree, "degree", low=1)
    nb = check_int(n_bridges, "n_bridges", low=0)
    if nb and sizes.size < 2:
        raise ValueError("n_bridges > 0 needs at least two clusters.")
    for s in sizes:
        if d >= s:
            raise ValueError(f"degree must be below every cluster size, got {d} and {int(s)}.")
        if (s * d) % 2:
            raise ValueError(f"every size * degree must be even, got {int(s)} * {d}.")
    dtype = _check_dtype(dtype)
    rng = check_rng(random_state)
    starts = np.concatenate([[0], np.cumsum(sizes)])
    n = int(starts[-1])
    labels = np.repeat(np.arange(sizes.size, dtype=np.int64), sizes)
    us, vs = [], []
    for a, s in enumerate(sizes):
        u, v = _configuration_edges(rng, int(s), d, offset=int(starts[a]))
        us.append(u)
        vs.append(v)
    u = np.concatenate(us)
    v = np.concatenate(vs)
    if nb:
        bu, bv = [], []
        existing = set()
        while len(bu) < nb:
            a = rng.integers(0, n, size=2 * nb)
            b = rng.integers(0, n, size=2 * nb)
            ok = labels[a] != labels[b]
            lo, hi = np.minimum(a[ok], b[ok]), np.maximum(a[ok], b[ok])
            for x, y in zip(lo.tolist(), hi.tolist()):
                if (x, y) not in existing:
                    existing.add((x, y))
                    bu.append(x)
                    bv.append(y)
                    if len(bu) == nb:
                        break
        bu = np.asarray(bu, dtype=np.int64)
        bv = np.asarray(bv, dtype=np.int64)
        u = np.concatenate([u, bu])
        v = np.concatenate([v, bv])
    return _symmetric_csr(u, v, n, dtype), labels

"""Batched collision estimates (``EstRWDot``) of lazy walks on every backend.

Three ways to run the same walks (bit-identical, see :mod:`._kernels`):

* ``"numba"``: the parallel kernels over CSR arrays (NumPy input);
* ``"numpy"`` / ``"cupy"``: the vectorised array-API path of
  :mod:`._references`, which runs many walks at once (the CuPy path for
  GPUs; with NumPy it is the reference the kernels are tested against);
* a pure-Python loop for graphs given as query objects
  (``degree(v)``, ``neighbor(v, i)``).

Every estimate and walk set draws its randomness from seed words derived from
the seed and integer ids (:func:`derive_keys`), so results do not depend on
order, grouping, threads or engine. The batched estimator is Algorithm 1
(``EstRWDot``) of Shen, Zhu, Peng and Huang (2026); :func:`median_estimates`
is the median trick of their Algorithm 2.
"""

from __future__ import annotations

import numpy as np

from statlearn.utils import (
    check_int,
    check_option,
    import_optional,
    set_num_threads_ctx,
    spawn_seeds,
    to_numpy,
)
from statlearn.utils._validation import _scalar

from ._graph import GraphAccess, as_graph_access
from ._kernels import collision_counts_kernel, normalised_collision_sums_kernel
from ._references import (
    _GOLDEN,
    _MASK,
    _SIDE_SALT,
    _hash32_py,
    _hash32_xp,
    collision_counts_xp,
)

__all__ = ["estimate_collision_probabilities"]

BACKENDS = ("numba", "numpy", "cupy")


# ---------------------------------------------------------------- seed words
def base_words(seed) -> np.ndarray:
    """Two 32-bit seed words (as ``uint64``) from a ``SeedSequence``."""
    return seed.generate_state(2, dtype=np.uint32).astype(np.uint64)


def derive_keys(base, ids) -> np.ndarray:
    """Per-estimate seed words from base words and integer ids (order independent).

    Parameters
    ----------
    base : ndarray of uint64, shape (2,)
        Words from :func:`base_words`.
    ids : array-like of int, shape (n, m)
        Non-negative ids below ``2**32`` naming each estimate (for example
        ``(vertex, landmark, repeat)``).

    Returns
    -------
    ndarray of uint64, shape (n, 2)
    """
    ids = np.asarray(ids, dtype=np.int64)
    if ids.ndim == 1:
        ids = ids[:, None]
    if ids.size and (ids.min() < 0 or ids.max() > _MASK):
        raise ValueError("estimate ids must lie in [0, 2**32).")
    a = np.full(ids.shape[0], base[0], dtype=np.uint64)
    c = np.full(ids.shape[0], base[1], dtype=np.uint64)
    for col in ids.T.astype(np.uint64):
        a = _hash32_xp(a ^ _hash32_xp(col ^ c, np), np)
        c = _hash32_xp(c ^ _hash32_xp(a ^ np.uint64(_GOLDEN), np), np)
    return np.stack([a, c], axis=1)


# ---------------------------------------------------------------- query objects
def _walk_object(g: GraphAccess, start, k0, k1, walk_id, ts):
    a = _hash32_py(int(k0) ^ _hash32_py(int(walk_id) ^ _SIDE_SALT))
    c = _hash32_py(int(k1) ^ a)
    m = 2 * g.max_degree
    v = int(start)
    out = []
    ci = 0
    while ci < len(ts) and ts[ci] == 0:
        out.append(v)
        ci += 1
    step = 0
    while ci < len(ts):
        salt = ((step + 1) * _GOLDEN) & _MASK
        r = ((_hash32_py(a ^ salt) ^ c) * m) >> 32
        deg = g.degree(v)
        if r < deg:
            v = g.neighbor(v, r)
        step += 1
        while ci < len(ts) and ts[ci] == step:
            out.append(v)
            ci += 1
    return out


def _collision_counts_object(g, xs, ys, keys, ts, n_batches, batch_size):
    out = np.zeros((len(xs), len(ts)), dtype=np.int64)
    for p_, (x, y) in enumerate(zip(xs, ys)):
        k0, k1 = int(keys[p_, 0]), int(keys[p_, 1])
        for j in range(n_batches):
            buf = [_walk_object(g, x, k0, k1, 2 * (j * batch_size + w), ts)
                   for w in range(batch_size)]
            rows = [np.sort(np.array([b_[ci] for b_ in buf], dtype=np.int64))
                    for ci in range(len(ts))]
            for w in range(batch_size):
                pos = _walk_object(g, y, k0, k1, 2 * (j * batch_size + w) + 1, ts)
                for ci, row in enumerate(rows):
                    out[p_, ci] += (np.searchsorted(row, pos[ci], side="right")
                                    - np.searchsorted(row, pos[ci], side="left"))
    return out


# ---------------------------------------------------------------- dispatch
def collision_counts(g: GraphAccess, xs, ys, keys, ts, n_batches, batch_size, *,
                     backend="numba", n_jobs=None, prior=False):
    """Collision counts of ``(x, y)`` pairs on the chosen backend (NumPy arrays out).

    ``prior=True`` is the unbatched estimator of the earlier oracles (all
    ``R = n_batches * batch_size`` endpoints of both sides, inner product of
    the two count vectors); it requires ``n_batches == 1``. That number is
    what one batch of ``R`` walks counts, so the engines compute it that way
    (streaming the ``y`` side); the memory counters still report the earlier
    oracles' ``2 R`` words. On a degree-normalised graph (``g.normalised``) the
    walks are the degree-normalised ones and the result is the float64 sum of the
    collision weights ``dbar / deg(v)`` (see :mod:`._kernels`).
    """
    xs = np.ascontiguousarray(xs, dtype=np.int64)
    ys = np.ascontiguousarray(ys, dtype=np.int64)
    keys = np.ascontiguousarray(keys, dtype=np.uint64)
    ts_arr = np.ascontiguousarray(ts, dtype=np.int64)
    if prior and n_batches != 1:
        raise ValueError("the prior (unbatched) estimator uses a single batch.")
    if xs.size == 0:
        return np.zeros((0, ts_arr.size), dtype=np.float64 if g.normalised else np.int64)
    if not g.has_csr:
        return _collision_counts_object(g, xs, ys, keys, [int(t) for t in ts_arr],
                                        n_batches, batch_size)
    if backend == "numba":
        # prior mode is one batch of R walks: sum_v c_x(v) c_y(v) is also what the kernel
        # counts when it streams the y walks against the sorted x endpoints
        with set_num_threads_ctx(n_jobs):
            if g.normalised:
                return normalised_collision_sums_kernel(g.indptr, g.indices, g.mean_degree,
                                                        xs, ys, keys, ts_arr, n_batches,
                                                        batch_size, g.move_threshold)
            return collision_counts_kernel(g.indptr, g.indices, g.max_degree, xs, ys, keys,
                                           ts_arr, n_batches, batch_size)
    xp = _namespace(backend)
    out = collision_counts_xp(
        xp.asarray(g.indptr.astype(np.int64, copy=False)),
        xp.asarray(g.indices.astype(np.int64, copy=False)),
        g.step_degree, xp.asarray(xs), xp.asarray(ys), xp.asarray(keys),
        [int(t) for t in ts_arr], n_batches, batch_size, prior=prior, lanes=n_jobs,
        dbar=g.mean_degree if g.normalised else None, move_threshold=g.move_threshold)
    return to_numpy(out).astype(np.float64 if g.normalised else np.int64)


_ESTIMATES_PER_CALL = 256


def median_estimates(g, xs, ys, ids, base, t, reps, n_batches, batch_size, *, prior=False,
                     backend="numba", n_jobs=None):
    """Median of ``reps`` independent estimates per pair (the median trick).

    ``ids`` (n_pairs, m) are integers naming each pair; with the base words
    they fix every estimate's keys, so results do not depend on the order or
    grouping of the pairs. Pairs are processed in groups of about
    ``256 / reps``, so the keys and counts held at once stay bounded
    (instead of growing with ``n_pairs * reps``).
    """
    xs = np.asarray(xs, dtype=np.int64)
    ys = np.broadcast_to(np.asarray(ys, dtype=np.int64), xs.shape)
    n_pairs = xs.size
    ids = np.asarray(ids, dtype=np.int64).reshape(n_pairs, -1)
    out = np.empty(n_pairs)
    step = max(1, _ESTIMATES_PER_CALL // reps)
    for lo in range(0, n_pairs, step):
        hi = min(n_pairs, lo + step)
        c = hi - lo
        rep = np.repeat(np.arange(reps), c)
        keys = derive_keys(base, np.column_stack([np.tile(ids[lo:hi], (reps, 1)), rep]))
        counts = collision_counts(g, np.tile(xs[lo:hi], reps), np.tile(ys[lo:hi], reps), keys,
                                  [t], n_batches, batch_size, backend=backend, n_jobs=n_jobs,
                                  prior=prior)
        z = counts[:, 0].reshape(reps, c) / (n_batches * batch_size ** 2)
        out[lo:hi] = np.median(z, axis=0)
    return out


def _namespace(backend):
    if backend == "numpy":
        import array_api_compat.numpy as xp

        return xp
    import_optional("cupy", extra="gpu", purpose="backend='cupy'")
    import array_api_compat.cupy as xp

    return xp


# ---------------------------------------------------------------- public estimator
def estimate_collision_probabilities(graph, x, y, *, walk_length, n_walks, batch_size=None,
                                     prior=False, max_degree=None, walk="d-bounded",
                                     laziness=0.5, backend="numba", n_jobs=None,
                                     random_state=None):
    """Batched Monte Carlo estimates of ``<p_x^t, p_y^t>`` (``EstRWDot``, Algorithm 1).

    For each pair, ``B = ceil(R / b)`` batches are run; batch ``j`` runs
    ``b`` lazy walks of length ``t`` from ``x`` (keeping only their
    endpoints) and ``b`` independent walks from ``y`` (streamed), and scores
    ``Z_j = (1/b^2) sum_v c_x(v) c_y(v)``. The estimate is the mean of the
    ``Z_j``; it is unbiased for every ``b``, also when ``x == y``, because
    the two walk sets are independent. Memory per estimate: ``b`` endpoints
    (plus two counters); time: ``2 B b t`` walk steps.

    Parameters
    ----------
    graph : scipy.sparse matrix, tuple (indptr, indices) or query object
        Undirected, unweighted graph (see :class:`SpectralClusteringOracle`).
    x, y : int or array-like of int
        Vertices; broadcast against each other. Every pair gets its own,
        independent estimate.
    walk_length : int
        ``t >= 0``.
    n_walks : int
        ``R``, walks per side; rounded up to a multiple of ``b``.
    batch_size : int or None
        ``b``; ``None`` or a value above ``R`` means one batch (``b = R``).
    prior : bool, default=False
        Use the unbatched estimator of the earlier oracles: keep all ``R``
        endpoints of both sides and take the inner product of the two
        empirical distributions (memory ``2R``). Equal to ``b = R``, which
        is how it is computed.
    max_degree : int or None
        ``d`` of the ``d``-bounded convention; default the largest degree.
    walk : {"d-bounded", "degree-normalised"}, default="d-bounded"
        ``"degree-normalised"``: the lazy random walk of the graph (stay with
        probability ``laziness``, else a uniform neighbour) and the collision
        probability weighted by the inverse stationary distribution,
        ``sum_v p_x^t(v) p_y^t(v) / (n pi(v))`` with ``pi(v) = deg(v) / 2m``
        (each collision at ``v`` counts ``dbar / deg(v)``, ``dbar = 2m / n``;
        1 on regular graphs). CSR graphs only.
    laziness : float in [0, 1), default=0.5
        Stay probability of the degree-normalised walk: its endpoint distributions are
        those of ``W = l I + (1 - l) A D^{-1}``. 0 (the non-lazy walk) is refused on a
        graph with a bipartite connected component, where that walk is periodic; the
        ``d``-bounded walk takes only 0.5.
    backend : {"numba", "numpy", "cupy"}, default="numba"
        Kernel over CSR arrays, or the vectorised array-API path on NumPy or
        CuPy. All give identical numbers (for ``walk="degree-normalised"``
        equal up to the order of the floating-point additions).
    n_jobs : int or None
        Numba threads, or on the array-API backends the number of
        pairs walked at once (each holding one batch: memory grows with it and
        with ``batch_size``; default 64 on NumPy). Results do not depend on it.
    random_state : None, int, SeedSequence, Generator or RandomState
        Seed; estimate ``i`` (in C order of the broadcast pairs) uses keys
        derived from it and ``i`` only (a ``Generator`` or ``RandomState``
        gives the seed by one draw).

    Returns
    -------
    ndarray of float64
        Estimates with the broadcast shape of ``x`` and ``y``.

    Examples
    --------
    >>> import numpy as np
    >>> from statlearn.cluster import estimate_collision_probabilities
    >>> from statlearn.datasets import make_random_regular_graph
    >>> A = make_random_regular_graph(200, 6, random_state=0)
    >>> z = estimate_collision_probabilities(A, np.zeros(400, int), 5, walk_length=20,
    ...                                      n_walks=64, batch_size=8, random_state=0)
    >>> bool(abs(z.mean() * 200 - 1) < 0.2)  # uniform limit: 1/n
    True
    """
    check_option(walk, "walk", ("d-bounded", "degree-normalised"))
    g = graph if isinstance(graph, GraphAccess) else as_graph_access(graph, max_degree=max_degree,
                                                                      walk=walk,
                                                                      laziness=laziness)
    t = check_int(walk_length, "walk_length", low=0)
    r = check_int(n_walks, "n_walks", low=1)
    if batch_size is None:
        b = r
    else:
        b = min(check_int(batch_size, "batch_size", low=1), r)
    check_option(backend, "backend", BACKENDS)
    prior = _scalar(prior)
    if not isinstance(prior, bool | np.bool_):
        raise TypeError(f"prior must be a bool, got {type(prior).__name__}.")
    if prior:
        b = r
    n_batches = -(-r // b)
    if 2 * n_batches * b >= 2**32:
        raise ValueError("n_walks is too large: 2 * n_walks must stay below 2**32.")
    xv, yv = _vertices(x, "x", g.n), _vertices(y, "y", g.n)
    try:
        xa, ya = np.broadcast_arrays(xv, yv)
    except ValueError:
        raise ValueError(f"x and y must broadcast against each other (one estimate per "
                         f"pair), got shapes {xv.shape} and {yv.shape}.") from None
    shape = xa.shape
    seed = spawn_seeds(_scalar(random_state), 1)[0]
    keys = derive_keys(base_words(seed), np.arange(xa.size))
    counts = collision_counts(g, xa.ravel(), ya.ravel(), keys, [t], n_batches, b,
                              backend=backend, n_jobs=n_jobs, prior=bool(prior))
    return (counts[:, 0] / (n_batches * b * b)).reshape(shape)


def _vertices(v, name, n):
    """Vertex ids as int64 (integer arrays, or floats holding whole numbers)."""
    arr = np.asarray(v)
    if arr.size == 0:
        return arr.astype(np.int64)
    if arr.dtype != bool and np.issubdtype(arr.dtype, np.floating):
        if not np.all(np.isfinite(arr)):
            raise ValueError(f"{name} must hold vertex ids, got NaN or infinite values.")
        if not np.all(arr == np.round(arr)):
            raise TypeError(f"{name} must hold integer vertex ids, got fractional values.")
        arr = arr.astype(np.int64)
    if arr.dtype == bool or not np.issubdtype(arr.dtype, np.integer):
        raise TypeError(f"{name} must hold integer vertex ids, got dtype {arr.dtype}.")
    if arr.size and (arr.min() < 0 or arr.max() >= n):
        bad = arr[(arr < 0) | (arr >= n)].ravel()[0]
        raise IndexError(f"{name} must hold vertices in [0, {n - 1}], got {int(bad)}.")
    return arr.astype(np.int64)

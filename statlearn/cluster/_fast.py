"""Fast mode of the clustering oracle: landmark walks drawn once, queries reuse theirs.

The low-memory estimator redraws both walk sets for every (query, landmark)
pair. Here every landmark keeps the endpoints of ``R`` walks, drawn once at
build time, in one sorted array of endpoints with their landmarks; a query draws
its own ``R_q`` walks once and counts collisions with every landmark in one
look-up per endpoint. Each estimate still compares two independent walk
sets (the query's walks are never the landmark's; the Gram diagonal uses a
second, independent set per landmark), so every collision estimate is
unbiased, as in the batched estimator with one batch.

The sequential (anytime) decision rule used by ``error_rate`` lives here too.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from statlearn.utils import set_num_threads_ctx

from ._graph import GraphAccess
from ._kernels import (
    advance_walks_kernel,
    index_counts_kernel,
    index_scores_kernel,
    walk_endpoints_kernel,
    weighted_walk_endpoints_kernel,
)
from ._walks import _namespace, _walk_object, derive_keys, walk_endpoints_xp

__all__ = ["LandmarkIndex", "OracleQueryResult", "certify_look", "certify_moments",
           "empirical_bernstein_radius", "position_dtype", "sequential_argmax",
           "walk_endpoints", "walk_rows"]


_WALK_CHUNK = 1 << 17


def walk_endpoints(g: GraphAccess, starts, keys, walk_ids, ts, *, backend="numba", n_jobs=None):
    """Positions ``(len(ts), n_walks)`` of lazy walks on any backend (same walks everywhere)."""
    starts = np.ascontiguousarray(starts, dtype=np.int64)
    keys = np.ascontiguousarray(keys, dtype=np.uint64)
    walk_ids = np.ascontiguousarray(walk_ids, dtype=np.int64)
    ts_list = [int(t) for t in ts]
    if starts.size == 0:
        return np.zeros((len(ts_list), 0), dtype=np.int64)
    if not g.has_csr:
        out = np.empty((len(ts_list), starts.size), dtype=np.int64)
        for i in range(starts.size):
            out[:, i] = _walk_object(g, starts[i], keys[i, 0], keys[i, 1], walk_ids[i], ts_list)
        return out
    if g.weights is not None:
        # weighted walks: Numba kernel on every backend (the array-API path is unweighted)
        with set_num_threads_ctx(n_jobs):
            return weighted_walk_endpoints_kernel(g.indptr, g.indices, g.weights,
                                                  float(g.max_weight), starts, keys, walk_ids,
                                                  np.asarray(ts_list, dtype=np.int64))
    if backend == "numba":
        with set_num_threads_ctx(n_jobs):
            return walk_endpoints_kernel(g.indptr, g.indices, g.max_degree, starts, keys,
                                         walk_ids, np.asarray(ts_list, dtype=np.int64))
    from statlearn.utils import to_numpy

    xp = _namespace(backend)
    out = walk_endpoints_xp(xp.asarray(g.indptr.astype(np.int64)),
                            xp.asarray(g.indices.astype(np.int64)), g.max_degree,
                            xp.asarray(starts), xp.asarray(keys), xp.asarray(walk_ids), ts_list)
    return to_numpy(out).astype(np.int64)


def vertex_walks(g, vertices, base, first, count, ts, *, tags=None, backend="numba",
                 n_jobs=None):
    """Walks ``first .. first + count - 1`` of each vertex, keyed by ``(vertex, tag)`` only.

    A vertex gets the same walks whichever other vertices are asked with it,
    and the walks of later doubling rounds continue its walk ids. Distinct
    ``tags`` (default all 0) give the same vertex independent walk sets (used
    for landmarks, which are sampled with replacement).
    Returns endpoints of shape ``(len(ts), len(vertices), count)``.
    """
    vertices = np.asarray(vertices, dtype=np.int64)
    q = vertices.size
    tags = np.zeros(q, dtype=np.int64) if tags is None else np.asarray(tags, dtype=np.int64)
    keys = derive_keys(base, np.column_stack([vertices, tags]))
    out = np.empty((len(ts), q, count), dtype=np.int64)
    # chunks of at most _WALK_CHUNK walks: the per-walk starts, keys and ids are
    # temporaries of 4 words per walk, so they are never built for all walks at once
    per = max(1, _WALK_CHUNK // max(count, 1))
    ids = np.arange(first, first + count, dtype=np.int64)
    for lo in range(0, q, per):
        hi = min(q, lo + per)
        m = hi - lo
        ends = walk_endpoints(g, np.repeat(vertices[lo:hi], count),
                              np.repeat(keys[lo:hi], count, axis=0), np.tile(ids, m), ts,
                              backend=backend, n_jobs=n_jobs)
        out[:, lo:hi, :] = ends.reshape(len(ts), m, count)
    return out


def position_dtype(n):
    """Smallest index dtype for vertex ids below ``n`` (int32 below ``2**31``)."""
    return np.int32 if n < 2**31 - 1 else np.int64


def walk_rows(g: GraphAccess, vertices, keys, first, count, t, *, out=None, step0=0,
              backend="numba", n_jobs=None):
    """Positions ``(m, count)`` of walks ``first .. first + count - 1`` of each row's vertex.

    Row ``j`` holds the walks of ``vertices[j]`` under seed words ``keys[j]``
    (see :func:`vertex_walks`, which gives the same walks), after ``t``
    steps. With ``out`` (positions after ``step0`` steps, updated in place)
    the walks go on from there: on the Numba engine only the remaining
    ``t - step0`` steps are taken and nothing but the positions is held (one
    word per walk, int32 below ``2**31`` vertices); other engines redraw the
    walks from the start (same positions).
    """
    vertices = np.asarray(vertices, dtype=np.int64)
    keys = np.ascontiguousarray(keys, dtype=np.uint64)
    m = vertices.size
    if out is None:
        out = np.empty((m, count), dtype=position_dtype(g.n))
        out[:] = vertices[:, None]
        step0 = 0
    if t == step0 or m == 0 or count == 0:
        return out
    if backend == "numba" and g.has_csr:
        cumw = g.weights if g.weights is not None else np.zeros(0)
        d = float(g.max_weight) if g.weights is not None else float(g.max_degree)
        with set_num_threads_ctx(n_jobs):
            advance_walks_kernel(g.indptr, g.indices, cumw, d, out, keys, int(first),
                                 int(step0), int(t - step0))
        return out
    per = max(1, _WALK_CHUNK // max(count, 1))
    ids = np.arange(first, first + count, dtype=np.int64)
    for lo in range(0, m, per):
        hi = min(m, lo + per)
        ends = walk_endpoints(g, np.repeat(vertices[lo:hi], count),
                              np.repeat(keys[lo:hi], count, axis=0), np.tile(ids, hi - lo), [t],
                              backend=backend, n_jobs=n_jobs)
        out[lo:hi] = ends.reshape(hi - lo, count)
    return out


#: walk endpoints looked up at once in the landmark index (bounds the temporaries)
_LOOKUP_CHUNK = 1 << 15


class LandmarkIndex:
    """The landmarks' stored walk endpoints, sorted (one walk length).

    ``endpoints`` holds the ``s R`` endpoints of the landmarks' walks in
    increasing order (int32 below ``2**31`` vertices) and ``owners`` the
    landmark of each (uint8 up to 256 landmarks): the count of landmark
    ``j``'s walks ending at ``v`` is the number of entries ``(v, j)``. A walk
    endpoint is looked up by binary search. Words held: ``s R`` endpoints
    plus their owners (a quarter word each up to 256 landmarks, counted as
    a half).
    """

    def __init__(self, ends, n_walks):
        # ends: an (s, R) array, or a list of (rows, R) blocks of consecutive landmarks
        blocks = [np.asarray(ends)] if not isinstance(ends, list | tuple) else \
            [np.asarray(b) for b in ends]
        s = sum(b.shape[0] for b in blocks)
        key = np.empty(sum(b.size for b in blocks), dtype=np.int64)
        row = at = 0
        for b in blocks:
            m = b.shape[0]
            part = key[at:at + b.size].reshape(b.shape)
            np.multiply(b, s, out=part, dtype=np.int64, casting="unsafe")
            part += np.arange(row, row + m, dtype=np.int64)[:, None]
            row += m
            at += b.size
        key.sort()
        top = int(key[-1] // s) if key.size else 0
        # split the keys without int64 temporaries of their size (the ufuncs cast in
        # buffered blocks)
        self.endpoints = np.empty(key.size, dtype=position_dtype(top + 1))
        np.floor_divide(key, s, out=self.endpoints, casting="unsafe")
        owner_dtype = np.uint8 if s <= 256 else (np.uint16 if s <= 65536 else np.int64)
        self.owners = np.empty(key.size, dtype=owner_dtype)
        np.remainder(key, s, out=self.owners, casting="unsafe")
        del key
        self.n_walks = int(n_walks)
        self.s = s

    @property
    def words(self) -> int:
        return int(self.endpoints.size + (self.owners.size + 1) // 2)

    @property
    def counts(self):
        """Sparse ``(distinct endpoints, s)`` count matrix (built on demand; for tests)."""
        verts, pos = np.unique(self.endpoints, return_inverse=True)
        C = sp.csr_array((np.ones(self.endpoints.size), (pos.ravel(), self.owners)),
                         shape=(verts.size, self.s))
        C.sum_duplicates()
        return C

    def collision_counts(self, endpoints):
        """``(q, s)`` collision counts of each row of walk endpoints with every landmark."""
        # mixed index dtypes (int32 index, int64 walks) compare exactly in the kernel
        return index_counts_kernel(self.endpoints, self.owners,
                                   np.ascontiguousarray(endpoints), self.s)

    def gram_counts(self, other_ends, own_ends=None):
        """``s x s`` collision counts: set A against set A off the diagonal, A against the
        independent set ``other_ends`` (B) on it (so self-collisions are unbiased).

        ``own_ends`` are the ``(s, R)`` endpoints of set A the index was built
        from (recovered from the index when not given)."""
        G = self.collision_counts(self.set_a_endpoints() if own_ends is None else own_ends)
        diag = np.zeros(self.s, dtype=np.int64)
        other_ends = np.asarray(other_ends)
        per = max(1, _LOOKUP_CHUNK // max(other_ends.shape[1], 1))
        for lo in range(0, self.s, per):
            hi = min(self.s, lo + per)
            c = self.collision_counts(other_ends[lo:hi])
            diag[lo:hi] = c[np.arange(hi - lo), np.arange(lo, hi)]
        G[np.diag_indices_from(G)] = diag
        return G

    def set_a_endpoints(self):
        """The stored endpoints as an ``(s, R)`` array, row ``j`` the walks of landmark ``j``
        (sorted within the row)."""
        order = np.argsort(self.owners, kind="stable")
        return self.endpoints[order].reshape(self.s, -1)

    def walk_scores(self, endpoints, weights):
        """Per-walk scores ``sum_j c_j(e) weights[j]`` for a flat array of endpoints ``e``.

        ``weights`` has shape ``(s, k)``; returns ``(len(e), k)``.
        """
        e = np.ascontiguousarray(np.asarray(endpoints).ravel())
        return index_scores_kernel(self.endpoints, self.owners, e,
                                   np.ascontiguousarray(weights, dtype=np.float64))

    def score_range(self, weights):
        """``(k, k)`` range of one walk's score difference over every vertex.

        Entry ``[a, b]`` bounds ``h_a(v) - h_b(v)`` (``[a, a]`` bounds
        ``h_a(v)``) where ``h(v) = sum_j c_j(v) weights[j]``, over the distinct
        stored endpoints and every other vertex (score 0). Computed in chunks
        of whole endpoint groups.
        """
        k = weights.shape[1]
        hi_ = np.zeros((k, k))
        lo_ = np.zeros((k, k))
        n_e = self.endpoints.size
        start = 0
        while start < n_e:
            stop = min(n_e, start + _LOOKUP_CHUNK)
            if stop < n_e:  # do not split a group of equal endpoints
                cut = int(np.searchsorted(self.endpoints, self.endpoints[stop], side="left"))
                stop = cut if cut > start else int(
                    np.searchsorted(self.endpoints, self.endpoints[stop], side="right"))
            seg = self.endpoints[start:stop]
            first = np.flatnonzero(np.r_[True, seg[1:] != seg[:-1]])
            h = np.add.reduceat(weights[self.owners[start:stop]], first, axis=0)
            for a in range(k):
                for b in range(k):
                    col = h[:, a] - h[:, b] if a != b else h[:, a]
                    hi_[a, b] = max(hi_[a, b], col.max(initial=0.0))
                    lo_[a, b] = min(lo_[a, b], col.min(initial=0.0))
            start = stop
        return hi_ - lo_


def empirical_bernstein_radius(variance, n, value_range, delta):
    """One-sided empirical Bernstein radius (Maurer and Pontil 2009, Theorem 4).

    For ``n >= 2`` i.i.d. values in an interval of length ``value_range`` with
    sample variance ``variance`` (``ddof=1``), the true mean is at least the
    sample mean minus this radius with probability at least ``1 - delta``
    (and at most the sample mean plus it, with the same probability).

    Parameters
    ----------
    variance : float or ndarray
    n : int
    value_range : float or ndarray
    delta : float

    Returns
    -------
    float or ndarray

    Examples
    --------
    >>> from statlearn.cluster._fast import empirical_bernstein_radius
    >>> round(float(empirical_bernstein_radius(0.25, 1000, 1.0, 0.05)), 4)
    0.0516
    """
    log_term = math.log(2.0 / delta)
    return (np.sqrt(2.0 * np.maximum(variance, 0.0) * log_term / n)
            + 7.0 * np.asarray(value_range) * log_term / (3.0 * (n - 1)))


def round_delta(delta, n_tests, round_index):
    """Error budget of one test in round ``r = 1, 2, ...``: ``6 delta / (pi^2 r^2 n_tests)``.

    Summed over all rounds and tests this is ``delta`` (union bound), so the
    sequential rule may look at the data after every doubling.
    """
    return 6.0 * delta / (math.pi ** 2 * round_index ** 2 * n_tests)


def sequential_argmax(draw, n_options, delta, first, maximum, *, value_range,
                      threshold=None):
    """Anytime-valid arg-max of the means of ``n_options`` streams, with doubling.

    ``draw(m)`` returns an ``(m, n_options)`` array of fresh i.i.d. rows
    (option scores of one sample). Rounds use ``first, 2 first, 4 first, ...``
    samples in total, up to ``maximum``. After each round, the option with the
    best mean is *certified* when, for every other option, the empirical
    Bernstein lower bound on the mean difference is positive (and, with a
    ``threshold``, when the best mean is certified above or below it). Each
    of the ``n_options (n_options - 1)`` ordered comparisons (plus the two
    threshold sides) gets error ``6 delta / (pi^2 r^2 n_tests)`` in round
    ``r``, so the probability that a certified answer is wrong, over all
    rounds, is at most ``delta``.

    Parameters
    ----------
    draw : callable
    n_options : int
    delta : float
        Error probability of a certified answer.
    first, maximum : int
        Samples in the first round and the cap.
    value_range : ndarray of shape (n_options, n_options)
        ``value_range[a, b]`` bounds the range of ``score_a - score_b`` of one
        sample; it must hold for every possible sample.
    threshold : float or None
        If set, also decide whether the best mean is at least ``threshold``.

    Returns
    -------
    best : int
        Option with the largest mean at the last round.
    certified : bool
        Whether the decision was certified before reaching ``maximum``.
    above : bool
        Best mean at least ``threshold`` (``True`` without threshold); certified
        with ``certified``.
    n_used : int
        Samples drawn.
    means : ndarray of shape (n_options,)
    """
    data = draw(first)
    r = 1
    while True:
        best, ok, above, n, means = certify_look(data, n_options, delta, value_range,
                                                 threshold, r)
        if ok or n >= maximum:
            return best, ok, above, n, means
        data = np.concatenate([data, draw(min(n, maximum - n))])
        r += 1


def certify_look(data, n_options, delta, value_range, threshold, round_index):
    """One look of :func:`sequential_argmax` at the ``(n, n_options)`` samples of round ``r``.

    Returns ``(best, certified, above, n, means)`` as :func:`sequential_argmax`.
    """
    data = np.asarray(data, dtype=np.float64)
    n = data.shape[0]
    best, ok, above, means = certify_moments(n, data.sum(axis=0), data.T @ data, delta,
                                             value_range, threshold, round_index)
    return best, ok, above, n, means


def certify_moments(n, s1, s2, delta, value_range, threshold, round_index):
    """The test of :func:`certify_look` from running sums (no samples kept).

    ``s1[c]`` is the sum of option ``c``'s scores over ``n`` samples and
    ``s2[c, d]`` the sum of products of options ``c`` and ``d``; the sample
    variance of a difference ``c - d`` follows from them.

    Returns ``(best, certified, above, means)``.
    """
    n_options = s1.shape[0]
    means = s1 / n
    best = int(np.argmax(means))
    above = True if threshold is None else bool(means[best] >= threshold)
    if n < 2:
        return best, False, above, means
    n_tests = max(1, n_options * (n_options - 1) + (2 if threshold is not None else 0))
    d_r = round_delta(delta, n_tests, round_index)
    for o in range(n_options):
        if o == best:
            continue
        ss = s2[best, best] + s2[o, o] - 2.0 * s2[best, o]
        mean = means[best] - means[o]
        var = max(ss - n * mean * mean, 0.0) / (n - 1)
        if mean - empirical_bernstein_radius(var, n, value_range[best, o], d_r) <= 0:
            return best, False, above, means
    if threshold is not None:
        var = max(s2[best, best] - n * means[best] ** 2, 0.0) / (n - 1)
        rad = empirical_bernstein_radius(var, n, value_range[best, best], d_r)
        if not (means[best] - rad >= threshold or means[best] + rad < threshold):
            return best, False, above, means
    return best, True, above, means


@dataclass(frozen=True, repr=False)
class OracleQueryResult:
    """Answers of :meth:`SpectralClusteringOracle.query` (fast mode).

    Attributes
    ----------
    labels : ndarray of int64, shape (q,)
        Cluster of each vertex (``outlier_label`` when below the threshold).
    certified : ndarray of bool, shape (q,)
        Whether the sequential test certified the label (all ``False`` when
        ``error_rate`` is None: fixed number of walks, no certificate).
    n_walks : ndarray of int64, shape (q,)
        Query walks drawn per vertex.
    scores : ndarray of shape (q, k)
        Mean estimated dot product with each cluster's landmarks.
    error_rate : float or None
        Bound on the probability that a certified label differs from the
        label the same oracle would give with infinitely many query walks.
    """

    labels: np.ndarray
    certified: np.ndarray
    n_walks: np.ndarray
    scores: np.ndarray
    error_rate: float | None

    def __repr__(self):
        return (f"OracleQueryResult(q={self.labels.size}, certified={int(self.certified.sum())}, "
                f"mean_walks={float(self.n_walks.mean()) if self.n_walks.size else 0:.1f})")

    def summary(self) -> str:
        """Counts of labels, certified answers and walks used."""
        q = self.labels.size
        lines = [f"queries: {q}", f"error_rate: {self.error_rate}",
                 f"certified: {int(self.certified.sum())} of {q}"]
        if q:
            lines.append(f"walks per query: mean {self.n_walks.mean():.1f}, "
                         f"max {int(self.n_walks.max())}")
            vals, cnt = np.unique(self.labels, return_counts=True)
            lines.append("labels: " + ", ".join(f"{a}: {b}" for a, b in zip(vals, cnt)))
        return "\n".join(lines)

    def plot(self, ax=None):
        """Histogram of query walks used, certified and not; returns the Axes."""
        import matplotlib.pyplot as plt

        if ax is None:
            _, ax = plt.subplots()
        for mask, name in ((self.certified, "certified"), (~self.certified, "not certified")):
            if mask.any():
                ax.hist(self.n_walks[mask], bins=20, alpha=0.6, label=name)
        ax.set_xlabel("query walks")
        ax.set_ylabel("vertices")
        ax.legend()
        return ax

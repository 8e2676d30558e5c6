"""Fast mode: the sorted index of the landmarks' stored walks, its build stages and query walks.

The low-memory estimator redraws both walk sets for every (query, landmark)
pair. Here every landmark keeps the endpoints of ``R`` walks, drawn once at
build time, in one sorted array of endpoints with their landmarks
(:class:`LandmarkIndex`); a query draws its own ``R`` walks once and counts
collisions with every landmark in one look-up per endpoint. Each estimate
still compares two independent walk sets (the query's walks are never the
landmark's; the Gram diagonal uses a second, independent set per landmark),
so every collision estimate is unbiased: the estimator of the batched mode
(Algorithm 1 of Shen, Zhu, Peng and Huang 2026) with one batch, ``b = R``, in
distribution.

*Build* (:func:`fast_stages`). Landmark walks (set A: walk ids ``0..R-1``,
kept in the index; set B: ids ``R..2R-1``, only for the Gram diagonal) are
continued from one candidate walk length to the next (the draws are counter
based; only their ``2 s R`` positions are held), so the walk-length search
costs the steps of the longest candidate tried plus one Gram matrix per
candidate; the candidate with the largest eigen-gap ratio is kept (its index;
the current one is dropped when it loses). Cluster landmarks draw fresh walks,
compared with the stored ones a chunk at a time. Construction fails with a
diagnostic (eigenvalues near ``k``, the gap ratio, the component sizes of the
similarity graph and the walk steps spent) after at most
``2 s R max(candidates) + s' R t`` walk steps: there are no hidden retries.
``peak_memory_words_`` counts the walk positions, the indexes, the Gram
matrix and its eigenvectors (search), or the kept index, one chunk of
cluster-landmark walks, ``Psi`` and the ``alpha`` rows (clusters), whichever
is larger.

*Queries.* Query walks are keyed by the vertex only, so a vertex gets the same
answer in any batch. A walk ending at ``v`` has the score vector ``h(v) =
sum_j c_j(v) W[j]`` (``c_j(v)`` stored walks of landmark ``j`` end at ``v``):
its contribution to every cluster's *mean* estimated dot product, the label
being the cluster with the largest mean (the batched mode takes the maximum
over landmarks). Queries run in chunks of at most 65,536 walks, keeping only
running sums per vertex, so a batch's working memory does not grow with its
size; the decision rule on these sums is in :mod:`._certified_queries`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import scipy.sparse as sp

from statlearn.utils._validation import _scalar

from ._build import BuildState, Search, refusal, start_attempt
from ._embedding import (
    cluster_means,
    cluster_score_scale,
    embed_landmarks,
    gap_ratio,
    gram_spectrum,
    label_landmarks,
    length_rank,
    search_stops,
    signal_to_noise,
)
from ._kernels import index_counts_kernel, index_scores_kernel, index_weighted_counts_kernel
from ._params import AUTO_WALKS_DOUBLINGS, AUTO_WALKS_GAP, WORDS_PER_ENDPOINT
from ._walk_positions import position_dtype, walk_rows
from ._walks import base_words, derive_keys

__all__ = ["FastBuildState", "LandmarkIndex", "add_query_moments", "alpha_from_index",
           "fast_stages", "index_weighting", "query_walks"]

#: walks per chunk of a fast-mode query batch (bounds the query's working memory)
_QUERY_CHUNK_WALKS = 1 << 16
#: landmark walks advanced per kernel call (one stage of the build each)
_WALK_ROWS_CHUNK = 1 << 16
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
    a half). With ``indptr`` and ``dbar`` (the degree-normalised walk) a
    collision at ``v`` counts ``dbar / deg(v)``, read from the graph's
    ``indptr`` (nothing stored per vertex).
    """

    def __init__(self, ends, n_walks, *, indptr=None, dbar=None):
        self.indptr = indptr
        self.dbar = dbar
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
        """``(q, s)`` collision counts of each row of walk endpoints with every landmark
        (weighted sums for the degree-normalised walk)."""
        # mixed index dtypes (int32 index, int64 walks) compare exactly in the kernel
        if self.indptr is not None:
            return index_weighted_counts_kernel(self.endpoints, self.owners,
                                                np.ascontiguousarray(endpoints), self.s,
                                                self.indptr, float(self.dbar))
        return index_counts_kernel(self.endpoints, self.owners,
                                   np.ascontiguousarray(endpoints), self.s)

    def vertex_weights(self, vertices):
        """Collision weight of each vertex: 1, or ``dbar / max(deg(v), 1)`` (normalised)."""
        vertices = np.asarray(vertices, dtype=np.int64)
        if self.indptr is None:
            return np.ones(vertices.shape)
        deg = self.indptr[vertices + 1] - self.indptr[vertices]
        return float(self.dbar) / np.maximum(deg, 1)

    def gram_counts(self, other_ends, own_ends=None):
        """``s x s`` collision counts: set A against set A off the diagonal, A against the
        independent set ``other_ends`` (B) on it (so self-collisions are unbiased).

        ``own_ends`` are the ``(s, R)`` endpoints of set A the index was built
        from (recovered from the index when not given)."""
        G = self.collision_counts(self.set_a_endpoints() if own_ends is None else own_ends)
        diag = np.zeros(self.s, dtype=np.int64 if self.indptr is None else np.float64)
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
        out = index_scores_kernel(self.endpoints, self.owners, e,
                                  np.ascontiguousarray(weights, dtype=np.float64))
        if self.indptr is not None:  # every stored endpoint equal to e has e's weight
            out *= self.vertex_weights(e)[:, None]
        return out

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
            h *= self.vertex_weights(seg[first])[:, None]
            for a in range(k):
                for b in range(k):
                    col = h[:, a] - h[:, b] if a != b else h[:, a]
                    hi_[a, b] = max(hi_[a, b], col.max(initial=0.0))
                    lo_[a, b] = min(lo_[a, b], col.min(initial=0.0))
            start = stop
        return hi_ - lo_


@dataclass(frozen=True)
class Candidate:
    """A walk length tried by the fast search: its index of set-A endpoints and Gram matrix."""

    t: int
    index: LandmarkIndex
    gram: np.ndarray


@dataclass(frozen=True)
class FastSearch(Search):
    """The fast walk-length search: :class:`~._build.Search` and the best candidate so far."""

    best: Candidate | None = None


@dataclass
class FastBuildState(BuildState):
    """:class:`~._build.BuildState` of the fast build, plus the landmark walk positions.

    ``positions`` maps each chunk of landmarks to ``(steps taken, positions of its
    2 R walks)`` during the walk-length search; ``None`` once the search is over
    (the walks are released, only the index of the best length is kept).
    """

    positions: dict | None = None
    n_walks: int | None = None


def fast_stages(o, st: FastBuildState):
    """The stages of the fast build (see the module docstring)."""
    cands = o._build.cands
    sample = start_attempt(o, st)
    landmarks, cluster_landmarks = sample.landmarks, sample.cluster_landmarks
    ts = list(cands) if cands else [int(_scalar(o.walk_length))]
    if o._build.first is None:
        o._build.first = o._p  # the parameters resolved by fit (R of the first round)
    first = o._build.first
    if st.n_walks is None:
        st.n_walks = first.n_walks
    r = st.n_walks
    p = o._p = replace(first, n_walks=r, batch_size=r, buffer_words=WORDS_PER_ENDPOINT * r)
    keys = derive_keys(base_words(sample.seeds["gram"]), np.column_stack([landmarks,
                                                                          np.arange(p.s)]))
    while True:
        yield from _search_lengths(o, st, ts, landmarks, keys)
        gap = st.search.scores[st.search.best.t]
        if (not p.auto_walks or gap >= AUTO_WALKS_GAP
                or r >= first.n_walks << AUTO_WALKS_DOUBLINGS):
            break
        # n_walks="auto": the noise part of sigma_{k+1} falls like 1 / R; search again
        # with twice the walks (the walks are counter based: the first R are the same)
        r = st.n_walks = 2 * r
        p = o._p = replace(p, n_walks=r, batch_size=r, buffer_words=WORDS_PER_ENDPOINT * r)
        st.search, st.positions = None, {}
        yield f"n_walks doubled to {r} (eigen-gap {gap:.3g})", 0
    o.n_walks_ = o.batch_size_ = r
    yield from _finish(o, st, cands, sample, cluster_landmarks)


def _search_lengths(o, st, ts, landmarks, keys):
    """The walk-length search of the fast build at the current ``R`` (continued walks)."""
    g, p = o._g, o._p
    r = p.n_walks
    rows = max(1, _WALK_ROWS_CHUNK // (2 * r))
    chunks = [(lo, min(p.s, lo + rows)) for lo in range(0, p.s, rows)]
    advancing = o.backend == "numba" and g.has_csr
    if st.positions is None:
        st.positions = {}
    pos = st.positions
    for t in ts:
        search = st.search or FastSearch({}, False)
        if search.stopped:
            break
        if t in search.scores:
            continue
        for ci, (lo, hi) in enumerate(chunks):
            step0, arr = pos.get(ci, (0, None))
            if step0 == t:
                continue
            new = walk_rows(g, landmarks[lo:hi], keys[lo:hi], 0, 2 * r, t,
                            out=None if arr is None else arr.copy(), step0=step0,
                            backend=o.backend, n_jobs=o.n_jobs)
            pos[ci] = (t, new)
            yield f"landmark walks t={t}", (hi - lo) * 2 * r * (t - step0 if advancing else t)
        index = LandmarkIndex([pos[ci][1][:, :r] for ci in range(len(chunks))], r,
                              **index_weighting(g))
        G = np.zeros((p.s, p.s))
        for ci, (lo, hi) in enumerate(chunks):
            G[lo:hi] = index.collision_counts(pos[ci][1][:, :r])
            diag = index.collision_counts(pos[ci][1][:, r:])
            G[np.arange(lo, hi), np.arange(lo, hi)] = diag[np.arange(hi - lo),
                                                          np.arange(lo, hi)]
        G /= float(r * r)
        vals = gram_spectrum(G, g.n)[0]
        scores = {**search.scores, t: gap_ratio(vals, p.k)}
        snr = {**search.snr, t: signal_to_noise(vals, p.k)}
        best = search.best
        rule = o.walk_length_rule
        if best is None or (length_rank(rule, scores[t], snr[t])
                            > length_rank(rule, scores[best.t], snr[best.t])):
            best = Candidate(t, index, G)
        st.search = FastSearch(scores, search_stops(rule, scores, snr, t, best.t), snr, best)
        yield f"Gram matrix t={t}", 0


def _finish(o, st, cands, sample, cluster_landmarks):
    """Embedding, cluster landmarks, labels and accounting at the chosen walk length."""
    g, p = o._g, o._p
    r = p.n_walks
    st.positions = None  # landmark walks are no longer needed
    scores, best = st.search.scores, st.search.best
    t, index = best.t, best.index
    o.walk_length_ = t
    o.walk_length_scores_ = scores if cands else {}

    def diagnostic(vals):
        return (f"eigenvalues of (n/s) G near k: {np.round(vals[:p.k + 2], 4).tolist()}, "
                f"gap sigma_k/sigma_(k+1) = {o.eigengap_:.3g}")

    embed_landmarks(o, st, best.gram, lambda vals: refusal(
        f"the {p.k}-th eigenvalue of the landmark Gram matrix is not positive at walk "
        f"length {t}: no cluster structure at n_clusters={p.k} ({diagnostic(vals)}; "
        f"{st.steps} walk steps spent).", vals, None, st.steps))
    vals = o.gram_eigenvalues_
    # cluster landmarks: fresh walks against the stored landmark walks, a chunk at a time
    ckeys = derive_keys(base_words(sample.seeds["clusters"]),
                        np.column_stack([cluster_landmarks, np.arange(p.sc)]))
    parts = st.pieces.setdefault("alpha", {})
    rows = max(1, _WALK_ROWS_CHUNK // r)
    for ci, lo in enumerate(range(0, p.sc, rows)):
        if ci in parts:
            continue
        hi = min(p.sc, lo + rows)
        ends = walk_rows(g, cluster_landmarks[lo:hi], ckeys[lo:hi], 0, r, t,
                         backend=o.backend, n_jobs=o.n_jobs)
        parts[ci] = index.collision_counts(ends) / float(r * r)
        del ends
        yield f"cluster landmarks {hi}/{p.sc}", (hi - lo) * r * t
    alpha = np.concatenate([parts[c] for c in sorted(parts)])
    o._alpha_cluster = alpha
    o._index = index
    labels, n_comp = label_landmarks(o, alpha, sample.seeds["clusters"])
    o.landmark_labels_ = labels
    o.walk_steps_fit_ = int(st.steps)
    o.walk_steps_per_query_ = int(r * t)
    o._query_base = base_words(sample.seeds["queries"])
    if n_comp != p.k:
        sizes = np.bincount(labels).tolist()
        hint = (" (fewer than n_clusters: the threshold may exceed 1/|C_max|; with "
                "unbalanced clusters lower balance or threshold)") if n_comp < p.k else ""
        raise refusal(
            f"the similarity graph on {p.sc} cluster landmarks has {n_comp} connected "
            f"components (sizes {sizes}), expected n_clusters={p.k}{hint}; "
            f"{diagnostic(vals)}; {o.walk_steps_fit_} walk steps spent.", vals, sizes,
            o.walk_steps_fit_)
    # per-landmark weights of a walk's cluster scores: the mean over a query's walks of
    # sum_j c_j(endpoint) W[j] is alpha_x^T Psi (mean alpha_u over the component)
    means = cluster_means(alpha, labels, p.k)
    # k-means: scores divided by the centroid norms (closest centroid in angle); else 1
    o._score_scale = cluster_score_scale(o, means)
    o._weights = (o.psi_ @ means) / (float(r) * o._score_scale)
    # range of one walk's score (and score difference) over every possible endpoint,
    # including those no landmark walk reached (score 0)
    o._score_range = index.score_range(o._weights)
    o.index_words_ = index.words + o._weights.size
    # words held at once (sequential count; positions and endpoints one word each):
    # search = the 2 s R walk positions, the current and the best index (one when a
    # single length is tried), the Gram matrix and its eigenvectors; clusters = the
    # kept index, one chunk of cluster-landmark walks, Psi and the alpha rows
    search = 2 * p.s * r + (1 if len(scores) == 1 else 2) * index.words + 2 * p.s * p.s
    clusters = index.words + min(p.sc, rows) * r + p.s * p.s + p.s * p.sc
    o.peak_memory_words_ = int(max(search, clusters) + p.s * p.k + 3 * (p.s + p.sc))
    o.walk_buffer_words_ = int(index.words)
    o.query_memory_words_ = int(2 * r + p.s + p.k)
    qmax = o.max_query_walks
    o.max_query_walks_ = int(_scalar(qmax)) if qmax is not None else 32 * r


def index_weighting(g):
    """The keyword arguments of :class:`LandmarkIndex` for the walk of graph ``g``."""
    return {"indptr": g.indptr, "dbar": g.mean_degree} if g.normalised else {}


# ------------------------------------------------------------------ query walks
def query_walks(o, vertices, first, count):
    """Positions of query walks ``first..first+count-1`` (keyed by the vertex only)."""
    keys = derive_keys(o._query_base,
                       np.column_stack([vertices, np.zeros(vertices.size, dtype=np.int64)]))
    return walk_rows(o._g, vertices, keys, first, count, o.walk_length_,
                     backend=o.backend, n_jobs=o.n_jobs)


def add_query_moments(o, vertices, which, first, count, s1, s2):
    """Add the cluster scores of walks ``first..first+count-1`` of ``vertices[which]``
    to the running sums ``s1`` (scores) and ``s2`` (products), in chunks of at most
    ``_QUERY_CHUNK_WALKS`` walks, so memory does not grow with the number of queries."""
    per = max(1, _QUERY_CHUNK_WALKS // max(count, 1))
    k = o._p.k
    for lo in range(0, which.size, per):
        idx = which[lo:lo + per]
        ends = query_walks(o, vertices[idx], first, count)
        z = o._index.walk_scores(ends, o._weights).reshape(idx.size, count, k)
        del ends
        s1[idx] += z.sum(axis=1)
        s2[idx] += np.einsum("qwc,qwd->qcd", z, z)


def alpha_from_index(o, vertices):
    """Estimated collision probabilities ``alpha_x`` of each vertex with the landmarks."""
    p = o._p
    q = vertices.size
    out = np.empty((q, p.s))
    per = max(1, _QUERY_CHUNK_WALKS // p.n_walks)
    for lo in range(0, q, per):
        ends = query_walks(o, vertices[lo:lo + per], 0, p.n_walks)
        out[lo:lo + per] = o._index.collision_counts(ends) / float(p.n_walks) ** 2
    return out

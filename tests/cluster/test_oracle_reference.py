"""The oracle against a step-by-step reference on small graphs.

On graphs of ten or so vertices, the reference below redoes every step of the
construction and of the queries (Algorithms 1-4 of Shen, Zhu, Peng and Huang
2026, the similarity graph of Shen and Peng 2023 that they build on,
``WhichCluster``, and the fast mode of the class Notes) from the documented seed
scheme and the walk primitives (``median_estimates`` of the batched and prior
modes, ``vertex_walks`` with brute-force collision counts in fast mode), and
the oracle must give the same landmarks, Gram matrix, ``Psi``, labels,
counters and answers.  Everything is exact or equal up to rounding.
"""

import math
import re
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components

from statlearn.base import StaleFitError
from statlearn.cluster import OracleConstructionError, SpectralClusteringOracle
from statlearn.cluster._certified_queries import certify_moments
from statlearn.cluster._embedding import gap_ratio, similarity_components
from statlearn.cluster._graph import as_graph_access
from statlearn.cluster._params import default_walk_length_candidates, memory_layout
from statlearn.cluster._walk_positions import vertex_walks
from statlearn.cluster._walks import base_words, median_estimates
from tests.helpers import raises

PHASES = ("landmarks", "walk_length", "gram", "clusters", "queries")


def _exact(msg):
    return "^" + re.escape(msg) + "$"


def two_cliques(m, bridges=1):
    """Two cliques of ``m`` vertices joined by ``bridges`` edges (vertex i to m + i)."""
    n = 2 * m
    A = np.zeros((n, n))
    A[:m, :m] = A[m:, m:] = 1.0
    np.fill_diagonal(A, 0.0)
    for i in range(bridges):
        A[i, m + i] = A[m + i, i] = 1.0
    return sp.csr_array(A)


def phase_seeds(random_state, attempt=0, n_attempts=1):
    root = np.random.SeedSequence(random_state).spawn(n_attempts)[attempt]
    return dict(zip(PHASES, root.spawn(len(PHASES))))


def sample_landmarks(seeds, n, s, sc):
    rng = np.random.default_rng(seeds["landmarks"])
    return rng.integers(0, n, size=s), rng.integers(0, n, size=sc)


def gap(vals, k):
    b = vals[k] if vals.size > k else 0.0
    if vals[k - 1] <= 0:
        return 0.0
    return vals[k - 1] / b if b > 0 else math.inf


def components(adj):
    """Labels of the components of ``adj``, numbered by their smallest vertex."""
    _, lab = connected_components(sp.csr_array(adj), directed=False)
    first = {}
    for c in lab:
        first.setdefault(c, len(first))
    return np.array([first[c] for c in lab]), len(first)


def psi_of(G, n, k):
    s = G.shape[0]
    vals, vecs = np.linalg.eigh(n / s * G)
    vals, vecs = vals[::-1], vecs[:, ::-1]
    W = vecs[:, :k]
    return vals, (n / s) * (W / vals[:k] ** 2) @ W.T


class BatchedReference:
    """Algorithms 1-4 and the similarity graph with median-of-repeats estimates (batched or
    prior mode)."""

    def __init__(self, A, *, k, t, s, sc, b, R, reps, theta, random_state, prior=False,
                 cands=(), attempt=0, n_attempts=1):
        self.g = g = as_graph_access(A)
        n = g.n
        self.n, self.k, self.s, self.sc, self.theta = n, k, s, sc, theta
        self.kw = dict(reps=reps, n_batches=R // b, batch_size=b, prior=prior)
        seeds = phase_seeds(random_state, attempt, n_attempts)
        self.lm, self.cl = sample_landmarks(seeds, n, s, sc)
        self.steps = 0
        self.scores = {}
        if cands:
            sel = dict(self.kw, reps=min(reps, 3))
            base = base_words(seeds["walk_length"])
            for c in cands:
                G = self.gram(base, c, sel)
                self.steps += sel["reps"] * s * (s + 1) // 2 * 2 * R * c
                self.scores[c] = gap(np.linalg.eigvalsh(n / s * G)[::-1], k)
                if max(self.scores.values()) >= 2 and self.scores[c] < max(self.scores.values()):
                    break
            t = max(self.scores, key=lambda c: (self.scores[c], -c))
        self.t = t
        self.G = self.gram(base_words(seeds["gram"]), t, self.kw)
        self.steps += reps * s * (s + 1) // 2 * 2 * R * t
        self.vals, self.psi = psi_of(self.G, n, k)
        iu, jl = np.repeat(np.arange(sc), s), np.tile(np.arange(s), sc)
        self.alpha = self.est(self.cl[iu], self.lm[jl], np.column_stack([iu, jl]),
                              base_words(seeds["clusters"]), t, self.kw).reshape(sc, s)
        self.steps += reps * sc * s * 2 * R * t
        self.per_query = reps * s * 2 * R * t
        dots = self.alpha @ self.psi @ self.alpha.T
        adj = np.triu(dots >= theta, 1)
        self.labels, self.n_comp = components(adj | adj.T)
        self.qbase = base_words(seeds["queries"])

    def est(self, xs, ys, ids, base, t, kw):
        return median_estimates(self.g, xs, ys, ids, base, t, kw["reps"], kw["n_batches"],
                                kw["batch_size"], prior=kw["prior"])

    def gram(self, base, t, kw):
        iu, ju = np.triu_indices(self.s)
        z = self.est(self.lm[iu], self.lm[ju], np.column_stack([iu, ju]), base, t, kw)
        G = np.zeros((self.s, self.s))
        G[iu, ju] = z
        G[ju, iu] = z
        return G

    def alpha_of(self, v):
        v = np.asarray(v)
        xs, jl = np.repeat(v, self.s), np.tile(np.arange(self.s), v.size)
        return self.est(xs, self.lm[jl], np.column_stack([xs, jl]), self.qbase, self.t,
                        self.kw).reshape(v.size, self.s)

    def dots(self, v):
        return self.alpha_of(v) @ self.psi @ self.alpha.T

    #: k-means landmark clustering: the centroid norms (the cluster score is the mean dot
    #: product over them); None: the closest landmark, the paper's WhichCluster
    scale = None

    def predict(self, v, force=False, outlier=-1):
        d = self.dots(v)
        if self.scale is None:
            best = np.stack([d[:, self.labels == c].max(axis=1) for c in range(self.k)], 1)
        else:
            best = np.stack([d[:, self.labels == c].mean(axis=1) / self.scale[c]
                             for c in range(self.k)], 1)
        lab = np.argmax(best, axis=1)
        if not force:
            lab[d.max(axis=1) < self.theta] = outlier
        return lab


def counts_of(ends, n):
    """``(len(ends), n)`` matrix: how many walks of each row end at each vertex."""
    C = np.zeros((ends.shape[0], n))
    for i, row in enumerate(ends):
        np.add.at(C[i], row, 1.0)
    return C


class FastReference:
    """Fast mode (class Notes): stored landmark walks, brute-force collision counts."""

    def __init__(self, A, *, k, s, sc, R, theta, random_state, ts):
        g = self.g = as_graph_access(A)
        n = self.n = g.n
        self.k, self.s, self.sc, self.R, self.theta = k, s, sc, R, theta
        seeds = phase_seeds(random_state)
        self.lm, self.cl = sample_landmarks(seeds, n, s, sc)
        base = base_words(seeds["gram"])
        self.scores, best, self.steps, t_done = {}, None, 0, 0
        for t in ts:
            # set A: walk ids 0..R-1 (kept), set B: ids R..2R-1 (Gram diagonal only);
            # the walks go on from the previous length (steps of the longest tried)
            ends = vertex_walks(g, self.lm, base, 0, 2 * R, [t], tags=np.arange(s))[0]
            CA, CB = counts_of(ends[:, :R], n), counts_of(ends[:, R:], n)
            G = CA @ CA.T
            G[np.diag_indices(s)] = (CA * CB).sum(axis=1)
            G /= R * R
            self.steps += s * 2 * R * (t - t_done)
            t_done = t
            words = self.index_words(s, R)
            vals, psi = psi_of(G, n, k)
            self.scores[t] = gap(vals, k)
            if best is None or self.scores[t] > self.scores[best[0]]:
                best = (t, CA, vals, psi, words)
            elif self.scores[best[0]] >= 2:
                break
        self.t, self.CA, self.vals, self.psi, self.words = best
        t = self.t
        cend = vertex_walks(g, self.cl, base_words(seeds["clusters"]), 0, R, [t],
                            tags=np.arange(sc))[0]
        self.steps += sc * R * t
        n_idx = 1 if len(self.scores) == 1 else 2
        search = 2 * s * R + n_idx * self.words + 2 * s * s
        clusters = self.words + min(sc, (1 << 16) // R) * R + s * s + s * sc
        self.peak = max(search, clusters) + s * k + 3 * (s + sc)
        self.alpha = counts_of(cend, n) @ self.CA.T / (R * R)
        dots = self.alpha @ self.psi @ self.alpha.T
        adj = np.triu(dots >= theta, 1)
        self.labels, self.n_comp = components(adj | adj.T)
        if self.n_comp == k:
            means = np.stack([self.alpha[self.labels == c].mean(axis=0) for c in range(k)], 1)
            # score of one query walk ending at each vertex (0 where no landmark walk ended)
            self.H = self.CA.T @ self.psi @ means / R
        self.qbase = base_words(seeds["queries"])

    @staticmethod
    def index_words(s, R):
        """Sorted endpoints (one word each) and their landmarks (a half word each)."""
        return int(s * R + (s * R + 1) // 2)

    def query_means(self, v):
        ends = vertex_walks(self.g, np.asarray(v), self.qbase, 0, self.R, [self.t])[0]
        return self.H[ends].mean(axis=1)

    #: the divisors of the cluster scores (k-means: the centroid norms)
    scale = 1.0

    def predict(self, v, force=False, outlier=-1):
        m = self.query_means(v)
        lab = np.argmax(m, axis=1)
        if not force:
            raw = m[np.arange(lab.size), lab] * np.broadcast_to(self.scale, (self.k,))[lab]
            lab[raw < self.theta] = outlier
        return lab

    def alpha_of(self, v):
        ends = vertex_walks(self.g, np.asarray(v), self.qbase, 0, self.R, [self.t])[0]
        return counts_of(ends, self.n) @ self.CA.T / (self.R * self.R)


BATCHED = dict(walk_length=3, n_landmarks=5, n_cluster_landmarks=6, batch_size=8, n_walks=32,
               n_repeats=3, threshold=0.05)


def _check_batched(o, ref, A):
    n = ref.n
    np.testing.assert_array_equal(o.landmarks_, ref.lm)
    np.testing.assert_array_equal(o.cluster_landmarks_, ref.cl)
    assert o.walk_length_ == ref.t
    np.testing.assert_allclose(o.gram_eigenvalues_, ref.vals, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(o.psi_, ref.psi, rtol=1e-9, atol=1e-9)
    np.testing.assert_array_equal(o.landmark_labels_, ref.labels)
    assert o.eigengap_ == pytest.approx(gap(ref.vals, 2), rel=1e-12)
    assert o.walk_steps_fit_ == ref.steps
    assert o.walk_steps_per_query_ == ref.per_query
    v = np.arange(n)
    np.testing.assert_allclose(o.embedding_dots(v), ref.dots(v), rtol=1e-9, atol=1e-12)
    np.testing.assert_array_equal(o.predict(v), ref.predict(v))
    np.testing.assert_array_equal(o.predict(v, force=True), ref.predict(v, force=True))
    a = ref.alpha_of([2, 7])
    assert o.dot(2, 7) == pytest.approx(a[0] @ ref.psi @ a[1], rel=1e-9, abs=1e-12)
    assert o.which_cluster(7) == ref.predict([7])[0]


def test_batched_construction_and_queries_follow_the_reference():
    A = two_cliques(5)
    o = SpectralClusteringOracle(2, random_state=3, **BATCHED).fit(A)
    ref = BatchedReference(A, k=2, t=3, s=5, sc=6, b=8, R=32, reps=3, theta=0.05,
                           random_state=3)
    assert ref.n_comp == 2
    _check_batched(o, ref, A)
    assert (o.n_vertices_, o.max_degree_, o.batch_size_, o.n_walks_, o.n_batches_,
            o.n_repeats_, o.threshold_, o.walk_buffer_words_, o.n_attempts_) == \
        (10, 5, 8, 32, 4, 3, 0.05, 8, 1)
    assert o.walk_length_scores_ == {}
    with_walks, without = memory_layout(5, 6, 2, 3, 0)
    assert o.peak_memory_words_ == max(with_walks + 8, without)
    assert o.query_memory_words_ == 5 + 6 + 3 + 8 + 2
    assert o.outlier_label_ == -1


def test_prior_mode_and_the_outlier_label():
    A = two_cliques(5)
    kw = dict(BATCHED, batch_size=None, n_walks=24, outlier_label=7)
    o = SpectralClusteringOracle(2, mode="prior", random_state=5, **kw).fit(A)
    ref = BatchedReference(A, k=2, t=3, s=5, sc=6, b=24, R=24, reps=3, theta=0.05,
                           random_state=5, prior=True)
    assert ref.n_comp == 2
    _check_batched(o, ref, A)
    v = np.arange(10)
    np.testing.assert_array_equal(o.predict(v), ref.predict(v, outlier=7))
    assert o.walk_buffer_words_ == 48 and o.batch_size_ == o.n_walks_ == 24
    assert o.outlier_label_ == 7
    # raising the threshold after the fact never answers from the fitted one silently:
    # the query refuses until fit runs again (or the value is set back)
    o.set_params(threshold=10.0)
    with pytest.raises(StaleFitError, match=r"threshold changed since fit \(fit with 0\.05, "
                                            r"now 10\.0\)"):
        o.predict(v)
    o.set_params(threshold=0.05)
    np.testing.assert_array_equal(o.predict(v), ref.predict(v, outlier=7))


def test_automatic_walk_length_follows_the_eigen_gap_rule():
    A = two_cliques(5)
    kw = dict(BATCHED, walk_length="auto", walk_length_candidates=[6, 1, 3, 3, 2])
    o = SpectralClusteringOracle(2, random_state=1, **kw).fit(A)
    ref = BatchedReference(A, k=2, t=None, s=5, sc=6, b=8, R=32, reps=3, theta=0.05,
                           random_state=1, cands=(1, 2, 3, 6))
    assert list(o.walk_length_scores_) == list(ref.scores)
    for c, v in ref.scores.items():
        assert o.walk_length_scores_[c] == pytest.approx(v, rel=1e-12)
    assert ref.n_comp == 2
    _check_batched(o, ref, A)


def test_retries_use_the_next_attempt_seed():
    A = two_cliques(5)
    # a threshold no dot product reaches: every cluster landmark is its own component
    o = SpectralClusteringOracle(2, random_state=2, max_retries=2, **dict(BATCHED,
                                                                          threshold=50.0))
    exc = raises(lambda: o.fit(A), OracleConstructionError, names="n_clusters",
                 shows=["6 cluster landmarks", "6 connected components", "n_clusters=2"],
                 match=r"similarity graph .* components, expected n_clusters=2\.$")
    assert "fewer than" not in str(exc)
    assert o.n_attempts_ == 3
    ref = BatchedReference(A, k=2, t=3, s=5, sc=6, b=8, R=32, reps=3, theta=50.0,
                           random_state=2, attempt=2, n_attempts=3)
    np.testing.assert_array_equal(o.landmarks_, ref.lm)
    np.testing.assert_allclose(o.psi_, ref.psi, rtol=1e-9, atol=1e-9)
    # one component (a threshold everything reaches): the hint about unbalanced clusters
    low = SpectralClusteringOracle(2, random_state=2, **dict(BATCHED, threshold=-1.0))
    with pytest.raises(OracleConstructionError, match=re.escape(
            "has 1 connected components, expected n_clusters=2 (fewer than n_clusters: the "
            "threshold may exceed 1/|C_max|; with unbalanced clusters lower balance or "
            "threshold).")):
        low.fit(A)
    assert low.n_attempts_ == 1


FAST = dict(mode="fast", walk_length=3, n_landmarks=5, n_cluster_landmarks=6, n_walks=24,
            threshold=0.05)


def test_fast_construction_and_queries_follow_the_reference():
    A = two_cliques(5)
    o = SpectralClusteringOracle(2, random_state=4, **FAST).fit(A)
    ref = FastReference(A, k=2, s=5, sc=6, R=24, theta=0.05, random_state=4, ts=[3])
    assert ref.n_comp == 2
    np.testing.assert_array_equal(o.landmarks_, ref.lm)
    np.testing.assert_array_equal(o.cluster_landmarks_, ref.cl)
    assert o.walk_length_ == 3 and o.walk_length_scores_ == {}
    np.testing.assert_allclose(o.gram_eigenvalues_, ref.vals, rtol=1e-12, atol=1e-12)
    assert o.eigengap_ == pytest.approx(ref.vals[1] / ref.vals[2], rel=1e-12)
    np.testing.assert_allclose(o.psi_, ref.psi, rtol=1e-9, atol=1e-9)
    np.testing.assert_array_equal(o.landmark_labels_, ref.labels)
    v = np.arange(10)
    res = o.query(v)
    np.testing.assert_allclose(res.scores, ref.query_means(v), rtol=1e-9, atol=1e-12)
    np.testing.assert_array_equal(res.labels, ref.predict(v))
    np.testing.assert_array_equal(res.n_walks, np.full(10, 24))
    assert not res.certified.any() and res.error_rate is None
    np.testing.assert_array_equal(o.predict(v), ref.predict(v))
    np.testing.assert_array_equal(o.query(v, force=True).labels, ref.predict(v, force=True))
    np.testing.assert_allclose(o.embedding_dots(v), ref.alpha_of(v) @ ref.psi @ ref.alpha.T,
                               rtol=1e-9, atol=1e-12)
    a = ref.alpha_of([1, 8])
    assert o.dot(1, 8) == pytest.approx(a[0] @ ref.psi @ a[1], rel=1e-9, abs=1e-12)
    # counters and memory
    assert o.walk_steps_fit_ == ref.steps == 5 * 48 * 3 + 6 * 24 * 3
    assert o.walk_steps_per_query_ == 24 * 3
    assert o.index_words_ == ref.words + 5 * 2
    assert o.walk_buffer_words_ == ref.words
    assert o.peak_memory_words_ == ref.peak
    assert o.query_memory_words_ == 2 * 24 + 5 + 2
    assert o.max_query_walks_ == 32 * 24
    assert SpectralClusteringOracle(2, random_state=4, error_rate=0.2, max_query_walks=50,
                                    **FAST).fit(A).max_query_walks_ == 50
    assert o.query([]).labels.shape == (0,)


def test_fast_automatic_walk_length_keeps_the_best_candidate():
    A = two_cliques(5)
    kw = dict(FAST, walk_length="auto", walk_length_candidates=[1, 2, 4, 8])
    o = SpectralClusteringOracle(2, random_state=3, **kw).fit(A)
    ref = FastReference(A, k=2, s=5, sc=6, R=24, theta=0.05, random_state=3, ts=[1, 2, 4, 8])
    assert list(o.walk_length_scores_) == list(ref.scores)
    for c, v in ref.scores.items():
        assert o.walk_length_scores_[c] == pytest.approx(v, rel=1e-12)
    assert o.walk_length_ == ref.t == 4
    np.testing.assert_allclose(o.psi_, ref.psi, rtol=1e-9, atol=1e-9)
    assert o.walk_steps_fit_ == ref.steps
    assert o.peak_memory_words_ == ref.peak
    v = np.arange(10)
    np.testing.assert_array_equal(o.predict(v), ref.predict(v))
    # a search that stops at the first decrease after a ratio >= 2 (8 is never tried);
    # this construction then fails, and its error counts the steps of the tried lengths
    ref = FastReference(A, k=2, s=5, sc=6, R=24, theta=0.05, random_state=24, ts=[1, 2, 4, 8])
    assert list(ref.scores) == [1, 2, 4] and ref.n_comp != 2
    o = SpectralClusteringOracle(2, random_state=24, **kw)
    with pytest.raises(OracleConstructionError) as info:
        o.fit(A)
    assert info.value.walk_steps == ref.steps
    assert list(o.walk_length_scores_) == [1, 2, 4] and o.walk_length_ == 2


def test_fast_construction_refusals_carry_their_diagnostic():
    A = two_cliques(5)
    o = SpectralClusteringOracle(2, random_state=4, **dict(FAST, threshold=50.0))
    ref = FastReference(A, k=2, s=5, sc=6, R=24, theta=50.0, random_state=4, ts=[3])
    exc = raises(lambda: o.fit(A), OracleConstructionError, names="n_clusters",
                 shows=["6 cluster landmarks", "6 connected components", "n_clusters=2"],
                 match="similarity graph on .* expected n_clusters=2; eigenvalues")
    sizes = np.bincount(ref.labels).tolist()
    assert exc.component_sizes == sizes == [1] * 6
    assert exc.walk_steps == ref.steps
    np.testing.assert_allclose(exc.eigenvalues, ref.vals, rtol=1e-12, atol=1e-12)
    # the printed numbers are formatted from the exception's own eigenvalues (checked
    # against the reference just above): rounding the reference's could flip a digit
    vals = exc.eigenvalues
    for shown in (f"(sizes {sizes})", f"near k: {np.round(vals[:4], 4).tolist()}, ",
                  f"gap sigma_k/sigma_(k+1) = {vals[1] / vals[2]:.3g}; ",
                  f"; {ref.steps} walk steps spent."):
        assert shown in str(exc), (shown, str(exc))
    low = SpectralClusteringOracle(2, random_state=4, **dict(FAST, threshold=-1.0))
    with pytest.raises(OracleConstructionError, match=re.escape(
            "components (sizes [6]), expected n_clusters=2 (fewer than n_clusters: the "
            "threshold may exceed 1/|C_max|; with unbalanced clusters lower balance or "
            "threshold); eigenvalues")):
        low.fit(A)


def _sequential_reference(ref, v, delta, cap, thr, outlier=-1):
    """Doubling rounds with the empirical Bernstein test, one vertex at a time."""
    H, k = ref.H, ref.k
    rng_ = np.zeros((k, k))
    for a in range(k):
        for b in range(k):
            col = H[:, a] - H[:, b] if a != b else H[:, a]
            rng_[a, b] = max(col.max(), 0.0) - min(col.min(), 0.0)
    out = []
    for x in v:
        used, r = ref.R, 1
        z = H[vertex_walks(ref.g, [x], ref.qbase, 0, used, [ref.t])[0, 0]]
        s1, s2 = z.sum(axis=0), z.T @ z
        while True:
            best, ok, above, m = certify_moments(used, s1, s2, delta, rng_, thr, r)
            if ok or used >= cap:
                break
            extra = min(used, cap - used)
            z = H[vertex_walks(ref.g, [x], ref.qbase, used, extra, [ref.t])[0, 0]]
            s1, s2 = s1 + z.sum(axis=0), s2 + z.T @ z
            used += extra
            r += 1
        out.append((best if (above or thr is None) else outlier, ok, used, m))
    return out


@pytest.mark.parametrize("force", [False, True])
def test_sequential_queries_double_until_certified(force):
    A = two_cliques(5)
    o = SpectralClusteringOracle(2, random_state=4, error_rate=0.2, max_query_walks=200,
                                 **dict(FAST, outlier_label=-3)).fit(A)
    ref = FastReference(A, k=2, s=5, sc=6, R=24, theta=0.05, random_state=4, ts=[3])
    v = np.arange(10)
    res = o.query(v, force=force)
    want = _sequential_reference(ref, v, 0.2, 200, None if force else 0.05, outlier=-3)
    np.testing.assert_array_equal(res.labels, [w[0] for w in want])
    np.testing.assert_array_equal(res.certified, [w[1] for w in want])
    np.testing.assert_array_equal(res.n_walks, [w[2] for w in want])
    np.testing.assert_allclose(res.scores, [w[3] for w in want], rtol=1e-9, atol=1e-12)
    assert res.labels.dtype == np.int64 and res.certified.dtype == bool
    assert res.error_rate == 0.2
    # several rounds were needed, some vertices reached the cap (200 = 24 + 24 + 48 + 96 + 8)
    assert len(set(res.n_walks.tolist())) > 1
    np.testing.assert_array_equal(o.predict(v, force=force), res.labels)


def test_one_cluster_and_an_edgeless_graph():
    A = two_cliques(3)
    o = SpectralClusteringOracle(1, walk_length=4, random_state=0).fit(A)
    assert o.walk_length_ == 4 and o.eigengap_ == math.inf and o.n_attempts_ == 1
    assert o.psi_.shape == (0, 0) and o.landmarks_.size == 0 and o.gram_eigenvalues_.size == 0
    assert o.peak_memory_words_ == o.walk_steps_fit_ == o.walk_steps_per_query_ == 0
    assert o.query_memory_words_ == 0 and o.walk_length_scores_ == {}
    np.testing.assert_array_equal(o.predict([0, 5, 3]), [0, 0, 0])
    assert o.predict([0, 5]).dtype == np.int64
    assert SpectralClusteringOracle(1, random_state=0).fit(A).walk_length_ is None
    raises(lambda: o.embedding_dots([0]), ValueError, names=["embedding_dots", "n_clusters"],
           shows="n_clusters=1", match="needs the Psi matrix, which is not built")
    raises(lambda: o.dot(0, 1), ValueError, names=["dot", "n_clusters"], shows="n_clusters=1",
           match="needs the Psi matrix, which is not built")
    f = SpectralClusteringOracle(1, mode="fast", walk_length=2).fit(A)
    res = f.query([1, 4])
    np.testing.assert_array_equal(res.labels, [0, 0])
    np.testing.assert_array_equal(res.n_walks, [0, 0])
    assert res.certified.all() and res.certified.dtype == bool
    assert res.labels.dtype == res.n_walks.dtype == np.int64
    np.testing.assert_array_equal(res.scores, np.zeros((2, 1)))
    raises(lambda: SpectralClusteringOracle(2, walk_length=2).fit(sp.csr_array((4, 4))),
           ValueError, names=["graph", "n_clusters"], match="has no edges")


def test_landmarks_of_degree_zero_are_resampled():
    A = two_cliques(5).toarray()
    A = np.pad(A, ((0, 30), (0, 30)))          # 30 isolated vertices
    A = sp.csr_array(A)
    o = SpectralClusteringOracle(2, random_state=0, **BATCHED)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            o.fit(A)
        except OracleConstructionError:
            pass
    rng = np.random.default_rng(phase_seeds(0)["landmarks"])
    out = rng.integers(0, 40, size=5)
    while (bad := np.flatnonzero(out >= 10)).size:
        out[bad] = rng.integers(0, 40, size=bad.size)
    np.testing.assert_array_equal(o.landmarks_, out)
    assert o.landmarks_.dtype == np.int64
    n = 10**6
    lonely = sp.csr_array((np.ones(2), ([0, 1], [1, 0])), shape=(n, n))
    raises(lambda: SpectralClusteringOracle(2, walk_length=2, n_landmarks=3,
                                            n_cluster_landmarks=2, n_walks=2, batch_size=2,
                                            n_repeats=1).fit(lonely),
           ValueError, names="graph", match="only isolated vertices.*landmarks of positive degree")


# ------------------------------------------------------------ helpers
def test_helpers_by_hand():
    assert default_walk_length_candidates(3000) == (4, 8, 16, 32, 64)
    assert default_walk_length_candidates(2) == (4, 8, 16)
    # 8 ln n = 32 exactly at n = e^4 (just below: 16 is the top)
    assert default_walk_length_candidates(54) == (4, 8, 16)
    assert default_walk_length_candidates(55) == (4, 8, 16, 32)
    assert gap_ratio(np.array([3.0, 1.5, 0.5]), 2) == 3.0
    assert gap_ratio(np.array([3.0, 1.5]), 2) == math.inf
    assert gap_ratio(np.array([3.0, 1.5, 0.0]), 2) == math.inf
    assert gap_ratio(np.array([3.0, 1.5, -1.0]), 1) == 2.0
    assert gap_ratio(np.array([3.0, 0.0, 0.0]), 2) == 0.0
    assert gap_ratio(np.array([3.0, -1.0, -2.0]), 2) == 0.0
    alpha = np.eye(4)
    psi = np.array([[1.0, 0.5, 0.0, 0.0], [0.5, 1.0, 0.0, 0.2], [0.0, 0.0, 1.0, 0.0],
                    [0.0, 0.2, 0.0, 1.0]])
    lab, n = similarity_components(alpha, psi, 0.5)
    assert n == 3 and lab.tolist() == [0, 0, 1, 2]
    lab, n = similarity_components(alpha, psi, 0.2)
    assert n == 2 and lab.tolist() == [0, 0, 1, 0]
    lab, n = similarity_components(alpha[[3, 2, 1, 0]], psi, 0.2)
    assert n == 2 and lab.tolist() == [0, 1, 0, 0]
    lab, n = similarity_components(alpha, psi, 0.51)
    assert n == 4 and lab.tolist() == [0, 1, 2, 3] and lab.dtype == np.int64


def test_validation_messages():
    """Each refused parameter: the error type, the argument named, the value shown and the
    rule broken (constraint errors start with ``SpectralClusteringOracle parameter``)."""
    A = two_cliques(3)
    param = r"^SpectralClusteringOracle parameter "
    bad = [
        (dict(mode="quick"), ValueError, "mode", "'quick'",
         param + r"mode must be one of \['batched', 'prior', 'fast'\]"),
        (dict(landmark_clustering="spectral"), ValueError, "landmark_clustering", "'spectral'",
         param + r"landmark_clustering must be one of \['threshold', 'kmeans'\]"),
        (dict(error_rate=True, mode="fast"), TypeError, "error_rate", "bool True",
         param + r"error_rate must be None or a real in \(0, 1\)"),
        (dict(error_rate="0.1", mode="fast"), TypeError, "error_rate", "str '0.1'",
         param + r"error_rate must be None or a real in \(0, 1\)"),
        (dict(error_rate=0.0, mode="fast"), ValueError, "error_rate", "0.0",
         param + r"error_rate must be in \(0, 1\)"),
        (dict(error_rate=1.0, mode="fast"), ValueError, "error_rate", "1.0",
         param + r"error_rate must be in \(0, 1\)"),
        (dict(max_query_walks=1, mode="fast"), ValueError, "max_query_walks", "got 1",
         param + r"max_query_walks must be in \[2, inf\]"),
        (dict(backend="gpu"), ValueError, "backend", "'gpu'",
         param + r"backend must be one of \['numba', 'numpy', 'cupy'\]"),
        (dict(outlier_label=True), TypeError, "outlier_label", "bool True",
         param + "outlier_label must be an int"),
        (dict(outlier_label=1.5), TypeError, "outlier_label", "float 1.5",
         param + "outlier_label must be an int"),
        (dict(max_retries=-1), ValueError, "max_retries", "-1",
         param + r"max_retries must be in \[0, inf\]"),
        (dict(n_jobs=0), ValueError, "n_jobs", "got 0", param + r"n_jobs must be in \[1, inf\]"),
        (dict(walk_length="long"), ValueError, "walk_length", "'long'",
         param + r"walk_length must be one of \['auto'\] or an int in \[1, inf\]"),
        (dict(walk_length=0), ValueError, "walk_length", "got 0",
         param + r"walk_length must be one of \['auto'\] or an int in \[1, inf\]"),
        (dict(walk_length_candidates="48"), TypeError, "walk_length_candidates", "str '48'",
         param + "walk_length_candidates must be None or an array-like"),
        (dict(walk_length_candidates=4), TypeError, "walk_length_candidates", "int 4",
         param + "walk_length_candidates must be None or an array-like"),
        (dict(walk_length_candidates=()), ValueError, "walk_length_candidates", None,
         "must not be empty"),
        (dict(walk_length_candidates=[2, 0]), ValueError, "walk_length_candidates", "got 0",
         r"must be in \[1, inf\]"),
        (dict(weighted=True), ValueError, "weighted", "mode='fast'",
         "the batched and prior walk engines are unweighted"),
    ]
    for kwargs, exc, name, value, phrase in bad:
        raises(lambda kwargs=kwargs: SpectralClusteringOracle(2, **kwargs).fit(A), exc,
               names=name, shows=value, match=phrase)
    # boundaries that are allowed
    ok = SpectralClusteringOracle(2, walk_length=1, max_retries=0, n_jobs=1, error_rate=0.5,
                                  max_query_walks=2, mode="fast", n_landmarks=3,
                                  n_cluster_landmarks=2, n_walks=16, threshold=-1.0,
                                  random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            ok.fit(A)
        except OracleConstructionError:
            pass
    assert ok.n_attempts_ == 1
    with pytest.warns(UserWarning, match=r"walk_length=10001 is very long \(> 1e4 steps"):
        with pytest.raises(ValueError, match="no edges"):
            SpectralClusteringOracle(2, walk_length=10001).fit(sp.csr_array((3, 3)))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError, match="no edges"):
            SpectralClusteringOracle(2, walk_length=10000).fit(sp.csr_array((3, 3)))


def test_query_and_vertex_checks():
    A = two_cliques(5)
    o = SpectralClusteringOracle(2, random_state=3, **BATCHED).fit(A)
    raises(lambda: o.query([0]), ValueError, names="query", shows="mode='fast'", match="needs")
    raises(lambda: o.predict([[0, 1]]), ValueError, names="vertices", shows="(1, 2)",
           match="must be a 1-D array of vertex ids")
    for call, name, value in ((lambda: o.which_cluster(True), "v", "True"),
                              (lambda: o.which_cluster(1.0), "v", "1.0"),
                              (lambda: o.dot(1, False), "y", "False"),
                              (lambda: o.dot("1", 2), "x", "'1'")):
        raises(call, TypeError, names=name, shows=f"got {value}",
               match="must be an integer vertex id")
    assert o.which_cluster(np.int64(7)) == o.predict([7])[0]
    assert o.embedding_dots([]).shape == (0, 6)
    assert o.predict([]).dtype == np.int64
    np.testing.assert_array_equal(o.fit_predict(A), o.predict(np.arange(10)))


K8 = sp.csr_array(np.ones((8, 8)) - np.eye(8))
SMALL = dict(walk_length=2, n_landmarks=5, n_cluster_landmarks=4, batch_size=8, n_walks=32,
             n_repeats=3, threshold=-1.0)


def test_eigenvalue_refusals_and_their_counters():
    # no cluster structure: the 4-th eigenvalue of (n/s) G is negative (estimation noise)
    ref = BatchedReference(K8, k=4, t=2, s=5, sc=4, b=8, R=32, reps=3, theta=-1.0,
                           random_state=4)
    assert ref.vals[0] > 0 and ref.vals[3] <= 0 < ref.vals[2]
    o = SpectralClusteringOracle(4, random_state=4, **SMALL)
    exc = raises(lambda: o.fit(K8), OracleConstructionError, names="n_clusters",
                 shows=["4-th eigenvalue", "walks of length 2"],
                 match="landmark Gram matrix is not positive .*n_clusters too large")
    np.testing.assert_allclose(o.gram_eigenvalues_, ref.vals, rtol=1e-12, atol=1e-12)
    # the printed eigenvalues are formatted from the oracle's own (checked just above)
    assert f"(eigenvalues {np.round(o.gram_eigenvalues_[:5], 6).tolist()})" in str(exc)
    assert o.walk_steps_per_query_ == 3 * 5 * 64 * 2
    fr = FastReference(K8, k=4, s=5, sc=4, R=24, theta=-1.0, random_state=1, ts=[2])
    assert fr.vals[0] > 0 and fr.vals[3] <= 0 < fr.vals[2]
    f = SpectralClusteringOracle(4, random_state=1, mode="fast", walk_length=2, n_landmarks=5,
                                 n_cluster_landmarks=4, n_walks=24, threshold=-1.0)
    exc = raises(lambda: f.fit(K8), OracleConstructionError, names="n_clusters",
                 shows=["4-th eigenvalue", "at walk length 2", "n_clusters=4",
                        "gap sigma_k/sigma_(k+1) = 0; 480 walk steps spent)."],
                 match="landmark Gram matrix is not positive .*no cluster structure")
    assert f"near k: {np.round(exc.eigenvalues[:6], 4).tolist()}, gap" in str(exc)
    assert exc.walk_steps == 480 and exc.component_sizes is None
    np.testing.assert_allclose(exc.eigenvalues, fr.vals, rtol=1e-12, atol=1e-12)
    assert f.walk_steps_per_query_ == 48 and f.eigengap_ == 0.0


def test_top_eigenvalue_below_one_is_not_refused_and_small_gaps_warn():
    # K8 at k = 2: sigma_1 < 1 but sigma_2 > 0, and sigma_2 / sigma_3 < 2
    ref = BatchedReference(K8, k=2, t=2, s=5, sc=4, b=8, R=32, reps=3, theta=-1.0,
                           random_state=13)
    assert 0 < ref.vals[0] < 1 and gap(ref.vals, 2) < 2
    msg = (f"small eigen-gap sigma_k/sigma_(k+1) = {gap(ref.vals, 2):.3g} < 2 in the landmark "
           f"Gram matrix: Psi is ill-conditioned; check n_clusters and walk_length.")
    o = SpectralClusteringOracle(2, random_state=13, **SMALL)
    with pytest.warns(UserWarning, match=_exact(msg)):
        with pytest.raises(OracleConstructionError, match="has 1 connected components"):
            o.fit(K8)
    fr = FastReference(K8, k=2, s=5, sc=4, R=24, theta=-1.0, random_state=5, ts=[2])
    assert 0 < fr.vals[0] < 1 and gap(fr.vals, 2) < 2
    msg = (f"small eigen-gap sigma_k/sigma_(k+1) = {gap(fr.vals, 2):.3g} < 2 in the landmark "
           f"Gram matrix: Psi is ill-conditioned; check n_clusters and walk_length.")
    f = SpectralClusteringOracle(2, random_state=5, mode="fast", walk_length=2, n_landmarks=5,
                                 n_cluster_landmarks=4, n_walks=24, threshold=-1.0)
    with pytest.warns(UserWarning, match=_exact(msg)):
        with pytest.raises(OracleConstructionError, match=re.escape("(sizes [4])")):
            f.fit(K8)


def test_walk_length_search_keeps_the_best_not_the_last():
    A = two_cliques(5)
    kw = dict(BATCHED, walk_length="auto", walk_length_candidates=[1, 2, 3, 6])
    for seed, scores, t in ((2, [1, 2, 3, 6], 3), (7, [1, 2, 3], 2)):
        ref = BatchedReference(A, k=2, t=None, s=5, sc=6, b=8, R=32, reps=3, theta=0.05,
                               random_state=seed, cands=(1, 2, 3, 6))
        assert list(ref.scores) == scores and ref.t == t and ref.n_comp == 2
        o = SpectralClusteringOracle(2, random_state=seed, **kw).fit(A)
        assert o.walk_length_ == t and list(o.walk_length_scores_) == scores
        _check_batched(o, ref, A)
        with_walks, without = memory_layout(5, 6, 2, 3, 4)
        assert o.peak_memory_words_ == max(with_walks + 8, without)


def test_kmeans_landmark_clustering_follows_the_reference():
    from sklearn.cluster import KMeans

    A = two_cliques(5)
    o = SpectralClusteringOracle(2, random_state=3, landmark_clustering="kmeans",
                                 **BATCHED).fit(A)
    ref = BatchedReference(A, k=2, t=3, s=5, sc=6, b=8, R=32, reps=3, theta=0.05,
                           random_state=3)
    w, V = np.linalg.eigh(ref.psi)
    top = np.argsort(w)[::-1][:2]
    emb = ref.alpha @ (V[:, top] * np.sqrt(np.maximum(w[top], 0.0)))
    norms = np.linalg.norm(emb, axis=1, keepdims=True)
    assert norms.max() < 1      # rows are rescaled to unit length, whatever their norm
    emb = emb / norms
    rs = int(phase_seeds(3)["clusters"].generate_state(1)[0])
    raw = KMeans(2, n_init=10, random_state=rs).fit_predict(emb)
    first = list(dict.fromkeys(raw.tolist()))
    labels = np.array([first.index(c) for c in raw])
    np.testing.assert_array_equal(o.landmark_labels_, labels)
    assert o.landmark_labels_.dtype == np.int64 and labels[0] == 0
    ref.labels = labels
    # queries go to the centroid closest in angle: mean dot product over ||m_c||,
    # ||m_c||^2 = m_c^T Psi m_c with m_c the mean alpha row of cluster c
    means = np.stack([ref.alpha[labels == c].mean(axis=0) for c in range(2)], 1)
    ref.scale = np.sqrt(np.diag(means.T @ ref.psi @ means))
    np.testing.assert_allclose(o._score_scale, ref.scale, rtol=1e-9)
    v = np.arange(10)
    np.testing.assert_array_equal(o.predict(v), ref.predict(v))
    np.testing.assert_array_equal(o.predict(v, force=True), ref.predict(v, force=True))


def test_weighted_walks_in_fast_mode_and_result_dtypes():
    A = two_cliques(5).astype(float) * 2.0
    o = SpectralClusteringOracle(2, weighted=True, random_state=4, **FAST).fit(A)
    assert o.predict([0, 9]).tolist() in ([0, 1], [1, 0])
    f = SpectralClusteringOracle(2, random_state=4, **FAST).fit(two_cliques(5))
    res = f.query(np.arange(10))
    assert res.labels.dtype == np.int64 and res.certified.dtype == bool
    empty = SpectralClusteringOracle(2, random_state=4, error_rate=0.1, **FAST) \
        .fit(two_cliques(5)).query([])
    assert empty.labels.dtype == empty.n_walks.dtype == np.int64
    assert empty.scores.shape == (0, 2) and empty.certified.dtype == bool
    assert empty.error_rate == 0.1


def test_walk_length_search_details():
    A = two_cliques(5)
    # more than 3 repeats: the search uses 3, the Gram matrix all 5
    kw = dict(BATCHED, n_repeats=5, walk_length="auto", walk_length_candidates=[1, 2, 3, 6])
    o = SpectralClusteringOracle(2, random_state=2, **kw).fit(A)
    ref = BatchedReference(A, k=2, t=None, s=5, sc=6, b=8, R=32, reps=5, theta=0.05,
                           random_state=2, cands=(1, 2, 3, 6))
    assert ref.t == 3 and ref.n_comp == 2
    for c, v in ref.scores.items():
        assert o.walk_length_scores_[c] == pytest.approx(v, rel=1e-12)
    _check_batched(o, ref, A)
    # the search stops at the first decrease once a ratio of at least 2 was seen (2.48
    # at t = 2, then 2.02): t = 6 is never tried (this construction then fails)
    ref = BatchedReference(A, k=2, t=None, s=5, sc=6, b=8, R=32, reps=3, theta=0.05,
                           random_state=9, cands=(1, 2, 3, 6))
    assert list(ref.scores) == [1, 2, 3] and 2 <= max(ref.scores.values()) < 3
    o = SpectralClusteringOracle(2, random_state=9, **dict(kw, n_repeats=3))
    with pytest.warns(UserWarning, match="small eigen-gap"):
        with pytest.raises(OracleConstructionError):
            o.fit(A)
    assert list(o.walk_length_scores_) == [1, 2, 3] and o.walk_length_ == 2
    # equal scores (both infinite): the shorter walk wins
    ref = BatchedReference(K8, k=4, t=None, s=5, sc=4, b=8, R=32, reps=3, theta=-1.0,
                           random_state=7, cands=(1, 2))
    assert ref.scores == {1: math.inf, 2: math.inf}
    o = SpectralClusteringOracle(4, random_state=7, **dict(SMALL, walk_length="auto",
                                                           walk_length_candidates=[2, 1]))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(OracleConstructionError):
            o.fit(K8)
    assert o.walk_length_ == 1 and o.walk_length_scores_ == {1: math.inf, 2: math.inf}


def test_which_cluster_with_force():
    A = two_cliques(5)
    o = SpectralClusteringOracle(2, random_state=2, **dict(BATCHED, threshold=0.2)).fit(A)
    ref = BatchedReference(A, k=2, t=3, s=5, sc=6, b=8, R=32, reps=3, theta=0.2,
                           random_state=2)
    assert ref.predict([0])[0] == -1 and ref.predict([0], force=True)[0] == 1
    assert o.which_cluster(0) == -1
    assert o.which_cluster(0, force=True) == 1
    np.testing.assert_array_equal(o.predict(np.arange(10)), ref.predict(np.arange(10)))


def test_fast_single_vertex_queries_and_released_walks():
    A = two_cliques(5)
    o = SpectralClusteringOracle(2, random_state=4, **FAST).fit(A)
    ref = FastReference(A, k=2, s=5, sc=6, R=24, theta=0.05, random_state=4, ts=[3])
    batch = o.query(np.arange(10))
    for v in (0, 7):
        one = o.query([v])
        np.testing.assert_allclose(one.scores[0], ref.query_means([v])[0], rtol=1e-9,
                                   atol=1e-12)
        np.testing.assert_allclose(one.scores[0], batch.scores[v], rtol=1e-12)
        assert one.n_walks.tolist() == [24]
        assert o.which_cluster(v) == ref.predict([v])[0] == batch.labels[v]
    # the landmark walk positions are dropped once the index is built: the fitted
    # oracle keeps only the index (memory about s R words, not 3 s R)
    assert o._build.state.positions is None


def test_fast_kmeans_with_many_cluster_landmarks():
    from sklearn.cluster import KMeans

    A = two_cliques(5)
    kw = dict(FAST, n_cluster_landmarks=20, landmark_clustering="kmeans")
    o = SpectralClusteringOracle(2, random_state=4, **kw).fit(A)
    ref = FastReference(A, k=2, s=5, sc=20, R=24, theta=0.05, random_state=4, ts=[3])
    w, V = np.linalg.eigh(ref.psi)
    top = np.argsort(w)[::-1][:2]
    emb = ref.alpha @ (V[:, top] * np.sqrt(np.maximum(w[top], 0.0)))
    emb = emb / np.linalg.norm(emb, axis=1, keepdims=True)
    rs = int(phase_seeds(4)["clusters"].generate_state(1)[0])
    raw = KMeans(2, n_init=10, random_state=rs).fit_predict(emb)
    first = list(dict.fromkeys(raw.tolist()))
    labels = np.array([first.index(c) for c in raw])
    np.testing.assert_array_equal(o.landmark_labels_, labels)
    means = np.stack([ref.alpha[labels == c].mean(axis=0) for c in range(2)], 1)
    # scores over the centroid norms ||m_c|| = sqrt(m_c^T Psi m_c): closest in angle
    ref.scale = np.sqrt(np.diag(means.T @ ref.psi @ means))
    ref.H = ref.CA.T @ ref.psi @ means / 24 / ref.scale
    v = np.arange(10)
    np.testing.assert_array_equal(o.predict(v), ref.predict(v))
    np.testing.assert_array_equal(o.predict(v, force=True), ref.predict(v, force=True))
    res = o.query(v, force=True)
    np.testing.assert_allclose(res.scores, ref.query_means(v) * ref.scale, rtol=1e-9)
    # 20 cluster landmarks: the cluster phase (index, their walks, Psi, alpha) sets the peak
    assert ref.peak == ref.words + 20 * 24 + 25 + 100 + 10 + 75
    assert o.peak_memory_words_ == ref.peak

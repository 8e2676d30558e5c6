"""Weighted lazy walks, networkx and SciPy sparse-array input, real kNN graphs."""

import math

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
from scipy.stats import chi2

from statlearn.cluster import SpectralClusteringOracle, lazy_walk_distribution
from statlearn.cluster._graph import as_graph_access
from statlearn.cluster._kernels import weighted_step, weighted_walk_endpoints_kernel
from statlearn.cluster._landmark_index import LandmarkIndex
from statlearn.cluster._references import weighted_walk_endpoints_reference
from statlearn.cluster._walk_positions import vertex_walks
from statlearn.cluster._walks import base_words, derive_keys
from statlearn.datasets import make_planted_expanders, make_sbm_graph

from .test_oracle import accuracy


def _weighted_graph(n=8, seed=0):
    rng = np.random.default_rng(seed)
    A = sp.random_array((n, n), density=0.5, random_state=rng, format="coo")
    A = sp.csr_array(A + A.T)
    A.setdiag(0)
    A.eliminate_zeros()
    return A


def _dense_w(A):
    """Weighted lazy transition matrix, built from scratch (dense)."""
    A = A.toarray()
    w = A.sum(axis=1)
    d = w.max()
    return 0.5 * (np.eye(len(w)) + (A + np.diag(d - w)) / d)


def _first_u(f, target):
    """Smallest 32-bit u with f(u) >= target (f non-decreasing)."""
    lo, hi = 0, 2**32
    while lo < hi:
        mid = (lo + hi) // 2
        if f(mid) >= target:
            hi = mid
        else:
            lo = mid + 1
    return lo


@pytest.mark.numba
def test_weighted_step_matches_the_transition_matrix_exactly():
    """Over all 2**32 draws, each neighbour is taken with probability A_vu / (2d) and the
    walk stays with 1/2 + (d - w(v)) / (2d), up to the 2**-32 grid of the draw."""
    A = _weighted_graph()
    g = as_graph_access(A, weighted=True)
    W = _dense_w(A)
    scale = 2.0 * g.max_weight / 2**32
    for v in range(g.n):
        lo, hi = int(g.indptr[v]), int(g.indptr[v + 1])

        def f(u, v=v):
            return weighted_step(g.indptr, g.weights, scale, v, np.uint64(u))

        bounds = [_first_u(f, e) for e in range(lo, hi + 1)] + [2**32]
        for e in range(lo, hi):
            p = (bounds[e - lo + 1] - bounds[e - lo]) / 2**32
            assert abs(p - W[v, g.indices[e]]) <= 2.0**-31
        assert abs((bounds[-1] - bounds[-2]) / 2**32 - W[v, v]) <= 2.0**-31


@pytest.mark.numba
def test_weighted_kernel_equals_reference():
    A = _weighted_graph(12, 1)
    g = as_graph_access(A, weighted=True)
    starts = np.arange(12).repeat(5)
    keys = derive_keys(base_words(np.random.SeedSequence(0)), np.arange(starts.size))
    ids = np.arange(starts.size)
    ts = np.array([0, 1, 7])
    out = weighted_walk_endpoints_kernel(g.indptr, g.indices, g.weights, g.max_weight, starts,
                                         keys, ids, ts)
    ref = weighted_walk_endpoints_reference(g.indptr, g.indices, g.weights, g.max_weight,
                                            starts, keys, ids, ts)
    np.testing.assert_array_equal(out, ref)


def test_weighted_walk_endpoints_follow_the_weighted_distribution():
    """Endpoints of 40,000 walks (t = 6) against W^t 1_x: chi-square test at level 1e-3."""
    A = _weighted_graph(10, 2)
    g = as_graph_access(A, weighted=True)
    m = 40_000
    ends = vertex_walks(g, np.full(m, 3), base_words(np.random.SeedSequence(1)), 0, 1, [6],
                        tags=np.arange(m))[0].ravel()
    p = lazy_walk_distribution(A, 3, 6, weighted=True)
    np.testing.assert_allclose(p, np.linalg.matrix_power(_dense_w(A), 6)[3], atol=1e-12)
    obs = np.bincount(ends, minlength=10)
    keep = p > 0
    assert obs[~keep].sum() == 0
    stat = np.sum((obs[keep] - m * p[keep]) ** 2 / (m * p[keep]))
    assert stat <= chi2.ppf(0.999, keep.sum() - 1)


def test_weighted_fast_estimates_are_unbiased():
    """Unbiasedness (Algorithm 1) on a weighted graph: mean of 1500 stored-walk estimates
    within 4 SE of <p_x, p_y> (false alarm 6e-5); the SE from the exact one-batch variance."""
    A = _weighted_graph(30, 3)
    g = as_graph_access(A, weighted=True)
    r, n_mc = 16, 1500
    px = lazy_walk_distribution(A, 0, 4, weighted=True)
    py = lazy_walk_distribution(A, 5, 4, weighted=True)
    P = px @ py
    var = (P - P**2 + (r - 1) * (px @ py**2 + (px**2) @ py - 2 * P**2)) / r**2
    lm = vertex_walks(g, np.full(n_mc, 5), base_words(np.random.SeedSequence(4)), 0, r, [4],
                      tags=np.arange(n_mc))[0]
    q = vertex_walks(g, np.full(n_mc, 0), base_words(np.random.SeedSequence(5)), 0, r, [4],
                     tags=np.arange(n_mc))[0]
    z = np.diagonal(LandmarkIndex(lm, r).collision_counts(q)) / r**2
    assert abs(z.mean() - P) <= 4 * math.sqrt(var / n_mc)


def test_clusters_visible_only_in_the_weights_are_found():
    """Every pair is an edge with probability 0.05 inside and across blocks, but inside
    edges weigh 10 and cross edges 0.1: only the weighted walk sees the clusters."""
    A, y = make_sbm_graph([400, 400], 0.05, 0.05, random_state=0)
    A = sp.csr_array(A)
    r, c = A.nonzero()
    w = np.where(y[r] == y[c], 10.0, 0.1)
    Aw = sp.csr_array((w, (r, c)), shape=A.shape)
    o = SpectralClusteringOracle(2, mode="fast", weighted=True, walk_length=16,
                                 random_state=0).fit(Aw)
    q = np.arange(0, 800, 5)
    assert accuracy(o.predict(q), y[q], 2) >= 0.95


def test_networkx_and_sparse_array_inputs_give_the_same_oracle():
    A, _ = make_planted_expanders([200, 200], 10, n_bridges=10, random_state=0)
    G = nx.from_scipy_sparse_array(sp.csr_array(A))
    kw = dict(mode="fast", walk_length=8, random_state=0)
    a = SpectralClusteringOracle(2, **kw).fit(sp.csr_array(A))
    b = SpectralClusteringOracle(2, **kw).fit(G)
    np.testing.assert_array_equal(a.psi_, b.psi_)
    c = SpectralClusteringOracle(2, weighted=True, **kw).fit(G)  # weights default to 1
    np.testing.assert_array_equal(c.predict([0, 300]), a.predict([0, 300]))


def test_weighted_needs_fast_mode_and_a_matrix():
    A = _weighted_graph()
    with pytest.raises(ValueError, match="weighted=True needs mode='fast'"):
        SpectralClusteringOracle(2, weighted=True).fit(A)
    with pytest.raises(ValueError, match="pass weighted=True"):
        SpectralClusteringOracle(2, mode="fast").fit(A)
    with pytest.raises(TypeError, match="weighted=True needs the graph"):
        as_graph_access((A.indptr, A.indices), weighted=True)
    with pytest.raises(ValueError, match="non-negative"):
        as_graph_access(sp.csr_array(-A), weighted=True)
    with pytest.raises(ValueError, match="symmetric weight matrix"):
        as_graph_access(sp.csr_array(sp.triu(A)), weighted=True)


@pytest.mark.slow
def test_digits_knn_graph():
    """The 10-NN graph of scikit-learn's digits (k = 10): with k-means on the landmark
    embeddings and long walks the oracle labels all 1797 vertices with ARI >= 0.65 against
    the digits (measured 0.74; SpectralClustering on the same graph: 0.76)."""
    from sklearn.datasets import load_digits
    from sklearn.metrics import adjusted_rand_score
    from sklearn.neighbors import kneighbors_graph

    X, y = load_digits(return_X_y=True)
    A = kneighbors_graph(X, 10, include_self=False)
    o = SpectralClusteringOracle(10, mode="fast", symmetrize=True, landmark_clustering="kmeans",
                                 walk_length_candidates=(128,), random_state=0)
    pred = o.fit(A).predict(np.arange(X.shape[0]), force=True)
    assert adjusted_rand_score(y, pred) >= 0.65

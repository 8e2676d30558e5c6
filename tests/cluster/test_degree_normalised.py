"""The degree-normalised walk (``walk="degree-normalised"``): kernels against their NumPy
twins, estimates against the exact weighted collision probabilities computed by matrix
powers of the lazy walk matrix, and the oracle on graphs with heterogeneous degrees."""

from __future__ import annotations

import warnings

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
from scipy.stats import norm

from statlearn.cluster import (
    OracleConstructionError,
    SpectralClusteringOracle,
    estimate_collision_probabilities,
    lazy_walk_distribution,
)
from statlearn.cluster._kernels import (
    advance_walks_kernel,
    index_weighted_counts_kernel,
    normalised_collision_sums_kernel,
    walk_endpoints_kernel,
)
from statlearn.cluster._references import (
    advance_walks_reference,
    collision_counts_reference,
    collision_counts_xp,
    index_weighted_counts_reference,
    walk_endpoints_xp,
)
from statlearn.studies.spectral_oracle import make_dcsbm_graph

WALK = "degree-normalised"


def _karate():
    A = nx.to_scipy_sparse_array(nx.karate_club_graph(), weight=None, format="csr")
    return sp.csr_array((np.ones(A.nnz), A.indices.astype(np.int64),
                         A.indptr.astype(np.int64)), shape=A.shape)


def _with_isolated():
    """Karate club plus an isolated vertex 34 (degree 0: the walk stays)."""
    A = _karate()
    return sp.csr_array(sp.block_diag([A, sp.csr_array((1, 1))], format="csr"))


def _keys(m, seed=0):
    rng = np.random.default_rng(seed)
    return rng.integers(0, 2**32, size=(m, 2), dtype=np.uint64)


def _exact_matrix_power(A, x, y, t, laziness=0.5):
    """``sum_v p_x(v) p_y(v) dbar / deg(v)`` from dense powers of
    ``P = l I + (1 - l) D^-1 A`` (row-stochastic, the transpose of ``l I + (1 - l) A D^-1``;
    distributions are rows of ``P^t``): independent of :func:`lazy_walk_distribution`."""
    A = A.toarray()
    deg = A.sum(axis=1)
    P = laziness * np.eye(A.shape[0]) + (1 - laziness) * A / np.maximum(deg, 1)[:, None]
    P[deg == 0, deg == 0] = 1.0
    Pt = np.linalg.matrix_power(P, t)
    w = deg.mean() / np.maximum(deg, 1)
    return float(np.sum(Pt[x] * Pt[y] * w)), Pt, w


# ---------------------------------------------------------------- kernels and twins
def test_walk_kernel_equals_its_numpy_twin_and_continues():
    A = _with_isolated()
    ip, ix = A.indptr.astype(np.int64), A.indices.astype(np.int64)
    m = 600
    starts = np.arange(m, dtype=np.int64) % A.shape[0]
    keys = _keys(m)
    ids = np.arange(m, dtype=np.int64)
    ts = np.array([0, 1, 5, 17], dtype=np.int64)
    got = walk_endpoints_kernel(ip, ix, 0, starts, keys, ids, ts)
    ref = walk_endpoints_xp(ip, ix, 0, starts, keys, ids, [int(t) for t in ts])
    np.testing.assert_array_equal(got, ref)
    assert np.all(got[:, starts == 34] == 34)  # degree 0: stays
    # continued walks (fast mode) equal walks drawn from the start
    pos = np.tile(starts[:40], (2, 1))
    rkeys = _keys(2, 1)
    expect = advance_walks_reference(ip, ix, np.zeros(0), 0, pos.copy(), rkeys, 0, 0, 9)
    cont = pos.copy()
    advance_walks_kernel(ip, ix, np.zeros(0), 0.0, cont, rkeys, 0, 0, 4)
    advance_walks_kernel(ip, ix, np.zeros(0), 0.0, cont, rkeys, 0, 4, 5)
    np.testing.assert_array_equal(cont, expect)


def test_collision_sums_kernel_equals_its_twins():
    A = _with_isolated()
    ip, ix = A.indptr.astype(np.int64), A.indices.astype(np.int64)
    dbar = ip[-1] / (ip.size - 1)
    xs = np.array([0, 0, 33, 5, 34], dtype=np.int64)
    ys = np.array([0, 33, 16, 6, 34], dtype=np.int64)
    keys = _keys(xs.size, 3)
    ts = np.array([2, 7], dtype=np.int64)
    B, b = 3, 20
    got = normalised_collision_sums_kernel(ip, ix, dbar, xs, ys, keys, ts, B, b)
    xp_ = collision_counts_xp(ip, ix, 0, xs, ys, keys, [2, 7], B, b, dbar=dbar)
    np.testing.assert_allclose(got, xp_, rtol=1e-12)
    # the counting step on the same walks (NumPy reference with per-vertex weights)
    deg = np.diff(ip)
    w = dbar / np.maximum(deg, 1)
    for p_ in range(xs.size):
        wid = np.arange(B * b)
        ex = walk_endpoints_xp(ip, ix, 0, np.full(B * b, xs[p_]), np.tile(keys[p_], (B * b, 1)),
                               2 * wid, [2, 7])
        ey = walk_endpoints_xp(ip, ix, 0, np.full(B * b, ys[p_]), np.tile(keys[p_], (B * b, 1)),
                               2 * wid + 1, [2, 7])
        for ci in range(2):
            ref = collision_counts_reference(ex[ci], ey[ci], B, b, weights=w)
            assert got[p_, ci] == pytest.approx(ref, rel=1e-12)
    assert got[4, 0] == pytest.approx(B * b * b * dbar)  # isolated: every pair collides


def test_index_weighted_counts_kernel_equals_its_twin():
    rng = np.random.default_rng(0)
    A = _karate()
    ip = A.indptr.astype(np.int64)
    ends = np.sort(rng.integers(0, 34, 300))
    owners = rng.integers(0, 7, 300).astype(np.uint8)
    q = rng.integers(0, 34, (9, 25))
    got = index_weighted_counts_kernel(ends, owners, q, 7, ip, 4.5)
    np.testing.assert_allclose(got, index_weighted_counts_reference(ends, owners, q, 7, ip, 4.5),
                               rtol=1e-12)


def test_regular_graph_same_as_d_bounded():
    """On a regular graph both walks take the same steps (``2 deg(v) = 2 d``) and every
    collision weight is 1: identical estimates."""
    A = nx.to_scipy_sparse_array(nx.random_regular_graph(4, 60, seed=0), weight=None,
                                 format="csr")
    assert np.all(np.diff(A.indptr) == 4)
    kw = dict(walk_length=6, n_walks=48, batch_size=8, random_state=0)
    a = estimate_collision_probabilities(A, np.arange(10), 3, **kw)
    b = estimate_collision_probabilities(A, np.arange(10), 3, walk=WALK, **kw)
    np.testing.assert_allclose(a, b, rtol=1e-12)


def test_exact_distribution_matches_matrix_powers():
    A = _with_isolated()
    for x in (0, 11, 34):
        _, Pt, _ = _exact_matrix_power(A, x, x, 7)
        np.testing.assert_allclose(lazy_walk_distribution(A, x, 7, walk=WALK), Pt[x],
                                   atol=1e-12)


# ---------------------------------------------------------------- the guarantee
def _weighted_variance(Pt, w, x, y, b, n_batches):
    """Exact variance of one batched estimate of ``sum_v p_x p_y w`` (``B`` batches of ``b``):
    ``[sum w^2 p_x p_y - P^2 + (b - 1)(sum w^2 p_x p_y^2 + sum w^2 p_x^2 p_y - 2 P^2)]
    / (B b^2)``."""
    px, py = Pt[x], Pt[y]
    P = np.sum(w * px * py)
    a3 = np.sum(w**2 * px * py**2)
    b3 = np.sum(w**2 * px**2 * py)
    return (np.sum(w**2 * px * py) - P**2 + (b - 1) * (a3 + b3 - 2 * P**2)) / (n_batches * b * b)


@pytest.mark.parametrize("laziness", [0.5, 0.2, 0.0])
@pytest.mark.parametrize("backend", ["numba", "numpy"])
def test_estimates_equal_the_exact_weighted_collision_probabilities(backend, laziness):
    """Mean of N = 400 independent estimates per (pair, t) against the exact value from
    matrix powers of ``l I + (1 - l) A D^-1``, within z = 4.9 exact standard errors (each
    check two-sided 1e-6; 12 checks per backend and laziness, 72 in all: false-alarm rate
    <= 7.2e-5 by the union bound). The empirical variance is checked against the exact
    one within a factor in [0.6, 1.6] (chi-square with 399 degrees of freedom: each side
    below 1e-6 for a near-normal estimate).

    Power (planted once, locally): dropping the 1/deg weighting of the collisions makes
    every pair with an endpoint of unequal degree fail by many standard errors; moving
    with probability 1/2 whatever the laziness fails every pair at laziness 0.2 and 0."""
    A = _karate()
    n_est, r, b = 400, 64, 8
    z = norm.isf(1e-6 / 2)
    for t in (3, 8):
        for x, y in ((0, 0), (0, 33), (5, 16), (11, 25), (33, 33), (16, 26)):
            exact, Pt, w = _exact_matrix_power(A, x, y, t, laziness)
            ref = np.sum(lazy_walk_distribution(A, x, t, walk=WALK, laziness=laziness)
                         * lazy_walk_distribution(A, y, t, walk=WALK, laziness=laziness) * w)
            assert ref == pytest.approx(exact, rel=1e-10)
            est = estimate_collision_probabilities(A, np.full(n_est, x), y, walk_length=t,
                                                   n_walks=r, batch_size=b, walk=WALK,
                                                   laziness=laziness, backend=backend,
                                                   random_state=t * 100 + x)
            var = _weighted_variance(Pt, w, x, y, b, r // b)
            se = np.sqrt(var / n_est)
            assert abs(est.mean() - exact) <= z * se, (t, x, y, est.mean(), exact, se)
            assert 0.6 <= est.var(ddof=1) / var <= 1.6, (t, x, y)


@pytest.mark.parametrize("laziness", [0.5, 0.1])
def test_prior_estimator_is_unbiased_too(laziness):
    """``prior=True`` (one batch of all R walks) on the normalised walk: the same z-test
    (z = 4.9, two-sided 1e-6 per check, 4 checks)."""
    A = _karate()
    n_est, r, t = 400, 40, 5
    for x, y in ((0, 33), (16, 16)):
        exact, Pt, w = _exact_matrix_power(A, x, y, t, laziness)
        est = estimate_collision_probabilities(A, np.full(n_est, x), y, walk_length=t,
                                               n_walks=r, prior=True, walk=WALK,
                                               laziness=laziness, random_state=1)
        se = np.sqrt(_weighted_variance(Pt, w, x, y, r, 1) / n_est)
        assert abs(est.mean() - exact) <= norm.isf(1e-6 / 2) * se


# ---------------------------------------------------------------- the oracle
def _ari(a, b):
    from sklearn.metrics import adjusted_rand_score

    return adjusted_rand_score(a, b)


def test_dcsbm_recovered_by_the_normalised_walk_not_the_d_bounded_one():
    """Degree-corrected SBM (3 blocks of 1000, power-law weights with exponent 2.5, mean
    degree about 19, 5% of edges across), fast mode with k-means on the landmarks: the
    degree-normalised walk labels every 3rd vertex with ARI >= 0.9; the d-bounded walk,
    which barely moves low-degree vertices, stays below 0.7 (measured, seed 0: 1.0 and
    0.55; 0.23 for the d-bounded walk when queries took the raw arg-max of the mean dot
    products instead of the centroid closest in angle)."""
    A, y = make_dcsbm_graph(3000, 3, mu=0.05, random_state=0)
    q = np.arange(0, 3000, 3)
    good = SpectralClusteringOracle(3, mode="fast", walk=WALK, landmark_clustering="kmeans",
                                    random_state=0).fit(A)
    assert _ari(y[q], good.predict(q, force=True)) >= 0.9
    with pytest.warns(UserWarning):
        bad = SpectralClusteringOracle(3, mode="fast", landmark_clustering="kmeans",
                                       random_state=0).fit(A)
    assert _ari(y[q], bad.predict(q, force=True)) < 0.7


@pytest.mark.parametrize("mode", ["batched", "prior"])
def test_batched_and_prior_modes_take_the_walk(mode):
    """The low-memory and prior oracles on a small DC-SBM (2 blocks of 300): built with the
    normalised walk, they label the sampled vertices with ARI >= 0.9, and their memory and
    step accounting are those of the d-bounded walk with the same parameters."""
    A, y = make_dcsbm_graph(600, 2, mean_degree=16, mu=0.03, random_state=1)
    kw = dict(mode=mode, walk_length=8, n_repeats=1, n_landmarks=16, n_cluster_landmarks=12,
              landmark_clustering="kmeans", random_state=0)
    o = SpectralClusteringOracle(2, walk=WALK, **kw).fit(A)
    q = np.arange(0, 600, 10)
    assert _ari(y[q], o.predict(q, force=True)) >= 0.9
    d = SpectralClusteringOracle(2, **kw)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            d.fit(A)
        except OracleConstructionError:  # the accounting is set before the build runs
            pass
    for attr in ("peak_memory_words_", "walk_buffer_words_", "walk_steps_per_query_",
                 "query_memory_words_"):
        assert getattr(o, attr) == getattr(d, attr), attr


def test_fast_mode_certified_queries_and_accounting():
    A, y = make_dcsbm_graph(2000, 2, mu=0.03, random_state=2)
    kw = dict(mode="fast", landmark_clustering="kmeans", random_state=0, walk_length=8)
    o = SpectralClusteringOracle(2, walk=WALK, error_rate=0.05, **kw).fit(A)
    res = o.query(np.arange(0, 2000, 50))
    assert res.certified.mean() >= 0.8
    ok = res.certified
    assert _ari(y[::50][ok], res.labels[ok]) >= 0.9
    assert o.walk_steps_per_query_ == o.n_walks_ * o.walk_length_


def test_refusals_name_both_parameters():
    A, _ = make_dcsbm_graph(200, 2, random_state=0)
    with pytest.raises(ValueError, match="degree-normalised.*weighted=True"):
        SpectralClusteringOracle(2, mode="fast", walk=WALK, weighted=True).fit(A)
    with pytest.raises(ValueError, match="parameter walk must be .*got 'uniform'"):
        SpectralClusteringOracle(2, walk="uniform").fit(A)

    class Q:
        n_vertices = 3

        def degree(self, v):
            return 1

        def neighbor(self, v, i):
            return (v + 1) % 3

    with pytest.raises(TypeError, match="degree-normalised"):
        estimate_collision_probabilities(Q(), 0, 1, walk_length=2, n_walks=4, walk=WALK)
    with pytest.raises(ValueError, match="walk must be one of"):
        estimate_collision_probabilities(A, 0, 1, walk_length=2, n_walks=4, walk="x")

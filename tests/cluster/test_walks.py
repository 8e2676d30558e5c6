"""The batched collision estimator (Algorithm 1, EstRWDot, of Shen, Zhu, Peng and Huang 2026):
unbiasedness for every batch size, the exact variance, the prior oracles' estimator."""

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from statlearn.cluster import estimate_collision_probabilities, lazy_walk_distribution
from statlearn.cluster._graph import as_graph_access
from statlearn.cluster._kernels import walk_endpoints_kernel
from statlearn.cluster._walks import base_words, derive_keys
from statlearn.datasets import make_sbm_graph
from statlearn.testing import assert_mean_close
from statlearn.utils import spawn_seeds

# the graph of the unbiasedness and variance tests: a 2-block SBM on 300 vertices, walks of
# length 8
T = 8


@pytest.fixture(scope="module")
def sbm300():
    A, y = make_sbm_graph([150, 150], 0.1, 0.02, random_state=0)
    return A


def _exact(A, x, y, t=T):
    px = lazy_walk_distribution(A, x, t)
    py = lazy_walk_distribution(A, y, t)
    P = float(px @ py)
    return P, float(np.sum(px * py**2)), float(np.sum(px**2 * py))


def _exact_variance(A, x, y, b, n_batches, t=T):
    """Var(Z) = [P - P^2 + (b - 1)(A3 + B3 - 2 P^2)] / (B b^2) for independent walk sets
    (our derivation for Algorithm 1; the paper's Lemma 3.1 only bounds it)."""
    P, A3, B3 = _exact(A, x, y, t)
    return (P - P**2 + (b - 1) * (A3 + B3 - 2 * P**2)) / (n_batches * b * b)


PAIRS = {"same": (0, 1), "cross": (0, 200), "self": (0, 0)}


def test_lazy_walk_distribution_matches_dense_matrix_power():
    A, _ = make_sbm_graph([10, 10], 0.5, 0.1, random_state=3)
    d = int(A.sum(axis=1).max())
    Ad = A.toarray()
    W = 0.5 * (np.eye(20) + (Ad + np.diag(d - Ad.sum(axis=1))) / d)
    p = lazy_walk_distribution(A, 4, 6)
    np.testing.assert_allclose(p, np.linalg.matrix_power(W, 6)[4], atol=1e-13)
    assert p.sum() == pytest.approx(1.0)
    with pytest.raises(IndexError, match="x must be a vertex"):
        lazy_walk_distribution(A, 20, 3)
    with pytest.raises(ValueError, match="walk_length"):
        lazy_walk_distribution(A, 0, -1)


@pytest.mark.parametrize("b", [1, 4, 32])
@pytest.mark.parametrize("pair", list(PAIRS))
def test_estimates_are_unbiased_for_every_batch_size(sbm300, b, pair):
    """Algorithm 1 is unbiased: E[Z] = <p_x^t, p_y^t> for every b, including x = y
    (independent walk sets).

    2000 independent estimates with R = 64 walks per side; mean within the
    normal bound of false-alarm rate 1e-6 (per case; 9 cases). Power: with the
    y-side walks planted equal to the x-side ones (reused walks), 8 of the 9
    cases failed at this size (all but cross-32), each by many standard errors.
    """
    x, y = PAIRS[pair]
    P = _exact(sbm300, x, y)[0]
    z = estimate_collision_probabilities(sbm300, np.full(2000, x), y, walk_length=T, n_walks=64,
                                         batch_size=b, random_state=100 + b)
    assert_mean_close(z, P, false_alarm=1e-6, label=f"Z({pair}, b={b})")


def test_reusing_walks_for_self_collisions_would_be_biased(sbm300):
    """The bias the independent walk sets avoid: with one walk set, E = P + (1 - P)/b.

    Checks that the test above is sensitive: the shift (1 - P)/b at b = 4 is
    hundreds of standard errors.
    """
    P = _exact(sbm300, 0, 0)[0]
    z = estimate_collision_probabilities(sbm300, np.full(2000, 0), 0, walk_length=T, n_walks=64,
                                         batch_size=4, random_state=7)
    se = z.std(ddof=1) / np.sqrt(z.size)
    assert (1 - P) / 4 > 50 * se
    assert abs(z.mean() - P) < 5 * se


@pytest.mark.slow
@pytest.mark.parametrize("pair", list(PAIRS))
def test_variance_matches_the_exact_formula(sbm300, pair):
    """Monte Carlo variance within [0.85, 1.15] of the exact variance, b in {4, 16, 64}.

    R * b = 8192 (16384 for the cross pair) so that every estimate expects at
    least 20 collisions; 4000 estimates. The
    relative standard error of a sample variance of N draws is about
    sqrt((kurtosis - 1) / N) ~ 0.025 here (kurtosis ~3.6), so the band is
    about 6 standard errors (false-alarm rate below 1e-8 per case, 9 cases);
    the test checks the band is at least 4.5 standard errors wide.
    """
    x, y = PAIRS[pair]
    exact = {}
    rb = 16384 if pair == "cross" else 8192
    for b in (4, 16, 64):
        r = rb // b
        z = estimate_collision_probabilities(sbm300, np.full(4000, x), y, walk_length=T,
                                             n_walks=r, batch_size=b, random_state=b)
        exact[b] = _exact_variance(sbm300, x, y, b, r // b)
        kurt = np.mean((z - z.mean()) ** 4) / z.var() ** 2
        assert np.sqrt((kurt - 1) / z.size) < 0.15 / 4.5, "band narrower than 4.5 SE"
        ratio = z.var(ddof=1) / exact[b]
        assert 0.85 <= ratio <= 1.15, f"{pair}, b={b}: variance ratio {ratio:.3f}"
    # at fixed R*b the variance grows with b through the shared-walk term
    assert exact[64] > exact[4]


@pytest.mark.slow
def test_doubling_walks_halves_the_variance(sbm300):
    """At fixed b = 16, R -> 2R halves the variance; MC ratio in [0.4, 0.6]
    (relative SE of the ratio ~0.045, band ~4.5 SE)."""
    z1 = estimate_collision_probabilities(sbm300, np.full(2000, 0), 1, walk_length=T,
                                          n_walks=512, batch_size=16, random_state=1)
    z2 = estimate_collision_probabilities(sbm300, np.full(2000, 0), 1, walk_length=T,
                                          n_walks=1024, batch_size=16, random_state=2)
    assert _exact_variance(sbm300, 0, 1, 16, 64) == pytest.approx(
        _exact_variance(sbm300, 0, 1, 16, 32) / 2)
    assert 0.4 <= z2.var(ddof=1) / z1.var(ddof=1) <= 0.6


@pytest.mark.parametrize("backend", ["numba", "numpy"])
def test_prior_estimator_equals_one_batch(sbm300, backend):
    """Storing all R endpoints of both sides (the estimator of the prior oracles, Gluch et
    al. 2021 and Shen and Peng 2023) gives exactly Algorithm 1 with b = R (same walks)."""
    x = np.array([0, 0, 3, 250])
    y = np.array([0, 1, 200, 251])
    kw = dict(walk_length=T, n_walks=48, random_state=5, backend=backend)
    prior = estimate_collision_probabilities(sbm300, x, y, prior=True, **kw)
    one_batch = estimate_collision_probabilities(sbm300, x, y, batch_size=48, **kw)
    np.testing.assert_array_equal(prior, one_batch)
    # the prior estimator written out: all 48 endpoints of each side, inner product of counts
    g = as_graph_access(sbm300)
    keys = derive_keys(base_words(spawn_seeds(5, 1)[0]), np.arange(x.size))
    ids = np.arange(48)
    for i in range(x.size):
        kk = np.repeat(keys[i:i + 1], 48, 0)
        ex = walk_endpoints_kernel(g.indptr, g.indices, g.max_degree, np.full(48, x[i]), kk,
                                   2 * ids, np.array([T]))[0]
        ey = walk_endpoints_kernel(g.indptr, g.indices, g.max_degree, np.full(48, y[i]), kk,
                                   2 * ids + 1, np.array([T]))[0]
        vx, cx = np.unique(ex, return_counts=True)
        vy, cy = np.unique(ey, return_counts=True)
        _, ix, iy = np.intersect1d(vx, vy, return_indices=True)
        assert prior[i] == np.sum(cx[ix] * cy[iy]) / 48**2
    # and b > R is clamped to one batch
    np.testing.assert_array_equal(
        estimate_collision_probabilities(sbm300, x, y, batch_size=1000, **kw), one_batch)


def test_backends_agree_and_results_do_not_depend_on_threads(sbm300):
    kw = dict(walk_length=5, n_walks=40, batch_size=8, random_state=11)
    x, y = np.arange(6), np.arange(6)[::-1]
    a = estimate_collision_probabilities(sbm300, x, y, n_jobs=1, **kw)
    b = estimate_collision_probabilities(sbm300, x, y, n_jobs=2, **kw)
    c = estimate_collision_probabilities(sbm300, x, y, backend="numpy", **kw)
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(a, c)
    # estimate i depends on the seed and i only
    d = estimate_collision_probabilities(sbm300, x[:3], y[:3], **kw)
    np.testing.assert_array_equal(a[:3], d)


@settings(deadline=None, max_examples=30)
@given(n=st.integers(2, 30), seed=st.integers(0, 1000), r=st.integers(1, 40),
       b=st.integers(1, 60), t=st.integers(0, 6))
def test_estimates_are_probabilities(n, seed, r, b, t):
    rng = np.random.default_rng(seed)
    M = sp.random_array((n, n), density=0.2, random_state=rng)
    A = ((M + M.T) > 0).astype(float)
    A.setdiag(0)
    A = sp.csr_array(A)
    A.eliminate_zeros()
    x = rng.integers(0, n, size=4)
    z = estimate_collision_probabilities(A, x, x[::-1], walk_length=t, n_walks=r, batch_size=b,
                                         random_state=seed)
    assert np.all((z >= 0) & (z <= 1))
    if t == 0:  # no steps: collide exactly when x == y
        np.testing.assert_array_equal(z, (x == x[::-1]).astype(float))


def test_isolated_vertex_never_moves():
    A = sp.csr_array(np.array([[0, 1, 0], [1, 0, 0], [0, 0, 0]]))
    z = estimate_collision_probabilities(A, [2, 2], [2, 0], walk_length=10, n_walks=8,
                                         random_state=0)
    np.testing.assert_array_equal(z, [1.0, 0.0])


def test_bad_inputs(sbm300):
    kw = dict(walk_length=3, n_walks=4)
    with pytest.raises(IndexError, match="x must hold vertices"):
        estimate_collision_probabilities(sbm300, 300, 0, **kw)
    with pytest.raises(IndexError, match="y must hold vertices"):
        estimate_collision_probabilities(sbm300, 0, -1, **kw)
    with pytest.raises(TypeError, match="integer vertex ids"):
        estimate_collision_probabilities(sbm300, 0.5, 0, **kw)
    with pytest.raises(ValueError, match="batch_size"):
        estimate_collision_probabilities(sbm300, 0, 0, batch_size=0, **kw)
    with pytest.raises(ValueError, match="n_walks"):
        estimate_collision_probabilities(sbm300, 0, 0, walk_length=3, n_walks=0)
    with pytest.raises(ValueError, match="backend"):
        estimate_collision_probabilities(sbm300, 0, 0, backend="gpu", **kw)
    with pytest.raises(TypeError, match="prior"):
        estimate_collision_probabilities(sbm300, 0, 0, prior="yes", **kw)
    with pytest.raises(ValueError, match="broadcast"):
        estimate_collision_probabilities(sbm300, [0, 1], [0, 1, 2], **kw)

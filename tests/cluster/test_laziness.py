"""The laziness of the degree-normalised walk (``laziness``): kernels against their NumPy
twins at any laziness, the default bit-identical to the walk of laziness 1/2, the
periodicity refusal at laziness 0 (bipartite components) and the parameter in every
mode of the oracle. The estimates against the exact matrix powers of
``l I + (1 - l) A D^-1`` are in ``test_degree_normalised.py``."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp

from statlearn.cluster import (
    SpectralClusteringOracle,
    estimate_collision_probabilities,
    lazy_walk_distribution,
)
from statlearn.cluster._kernels import (
    advance_walks_kernel,
    bipartite_component_kernel,
    normalised_collision_sums_kernel,
    walk_endpoints_kernel,
)
from statlearn.cluster._references import (
    advance_walks_reference,
    bipartite_component_reference,
    collision_counts_xp,
    move_threshold,
    walk_endpoints_xp,
)
from statlearn.studies.spectral_oracle import make_dcsbm_graph

WALK = "degree-normalised"


def _karate_isolated():
    A = nx.to_scipy_sparse_array(nx.karate_club_graph(), weight=None, format="csr")
    A = sp.csr_array((np.ones(A.nnz), A.indices, A.indptr), shape=A.shape)
    return sp.csr_array(sp.block_diag([A, sp.csr_array((1, 1))], format="csr"))


def _keys(m, seed=0):
    return np.random.default_rng(seed).integers(0, 2**32, size=(m, 2), dtype=np.uint64)


def test_move_threshold_and_the_shift_of_laziness_one_half():
    assert move_threshold(0.5) == 2**31 and move_threshold(0.0) == 2**32
    assert move_threshold(0.2) == round(0.8 * 2**32)
    # the shift of laziness 1/2 is the division by 2**31: the default walks are unchanged
    rng = np.random.default_rng(0)
    u = rng.integers(0, 2**32, 10_000, dtype=np.uint64)
    deg = rng.integers(0, 2**31, 10_000).astype(np.uint64)
    np.testing.assert_array_equal((u * (2 * deg)) >> np.uint64(32), (u * deg) // np.uint64(2**31))
    with pytest.raises(ValueError, match="laziness"):
        move_threshold(1.0)


@pytest.mark.parametrize("laziness", [0.0, 0.2, 0.9])
def test_kernels_equal_their_twins_at_any_laziness(laziness):
    A = _karate_isolated()
    ip, ix = A.indptr.astype(np.int64), A.indices.astype(np.int64)
    thr = move_threshold(laziness)
    m = 800
    starts = np.arange(m, dtype=np.int64) % A.shape[0]
    keys, ids = _keys(m), np.arange(m, dtype=np.int64)
    ts = np.array([0, 1, 6, 15], dtype=np.int64)
    got = walk_endpoints_kernel(ip, ix, 0, starts, keys, ids, ts, thr)
    np.testing.assert_array_equal(got, walk_endpoints_xp(ip, ix, 0, starts, keys, ids,
                                                         [int(t) for t in ts], thr))
    assert np.all(got[:, starts == 34] == 34)  # degree 0 stays
    # one step stays with probability l (800 walks: 5 standard errors)
    stayed = np.mean(got[2 - 1] == starts)
    assert abs(stayed - laziness) <= 5 * np.sqrt(max(laziness * (1 - laziness), 0.01) / m) + 0.02
    # continued walks equal walks drawn from the start
    pos = np.tile(starts[:40], (2, 1))
    rkeys = _keys(2, 1)
    expect = advance_walks_reference(ip, ix, np.zeros(0), 0, pos.copy(), rkeys, 0, 0, 9, thr)
    cont = pos.copy()
    advance_walks_kernel(ip, ix, np.zeros(0), 0.0, cont, rkeys, 0, 0, 4, thr)
    advance_walks_kernel(ip, ix, np.zeros(0), 0.0, cont, rkeys, 0, 4, 5, thr)
    np.testing.assert_array_equal(cont, expect)
    # the collision sums
    dbar = ip[-1] / (ip.size - 1)
    xs = np.array([0, 0, 33, 5], dtype=np.int64)
    ys = np.array([0, 33, 16, 6], dtype=np.int64)
    k2 = _keys(4, 3)
    s1 = normalised_collision_sums_kernel(ip, ix, dbar, xs, ys, k2, ts[1:], 3, 20, thr)
    s2 = collision_counts_xp(ip, ix, 0, xs, ys, k2, [1, 6, 15], 3, 20, dbar=dbar,
                             move_threshold=thr)
    np.testing.assert_allclose(s1, s2, rtol=1e-12)


def test_default_laziness_gives_the_walks_of_before():
    """laziness=0.5 (default) is the walk the kernels took without the argument."""
    A = _karate_isolated()
    ip, ix = A.indptr.astype(np.int64), A.indices.astype(np.int64)
    starts = np.arange(300, dtype=np.int64) % 35
    keys, ids, ts = _keys(300), np.arange(300, dtype=np.int64), np.array([3, 9])
    np.testing.assert_array_equal(walk_endpoints_kernel(ip, ix, 0, starts, keys, ids, ts),
                                  walk_endpoints_kernel(ip, ix, 0, starts, keys, ids, ts,
                                                        move_threshold(0.5)))
    kw = dict(walk_length=5, n_walks=32, batch_size=8, walk=WALK, random_state=0)
    np.testing.assert_array_equal(estimate_collision_probabilities(A, np.arange(20), 3, **kw),
                                  estimate_collision_probabilities(A, np.arange(20), 3,
                                                                   laziness=0.5, **kw))


def test_exact_distribution_takes_the_laziness():
    A = _karate_isolated()
    deg = np.diff(A.indptr)
    W = 0.3 * np.eye(35) + 0.7 * A.toarray() / np.maximum(deg, 1)[None, :]
    W[34, 34] = 1.0
    p = np.zeros(35)
    p[0] = 1.0
    np.testing.assert_allclose(lazy_walk_distribution(A, 0, 6, walk=WALK, laziness=0.3),
                               np.linalg.matrix_power(W, 6) @ p, atol=1e-12)


# ---------------------------------------------------------------- bipartite components
def _graphs():
    rng = np.random.default_rng(0)
    out = []
    for i in range(12):
        n = int(rng.integers(5, 40))
        G = nx.gnp_random_graph(n, float(rng.uniform(0.02, 0.2)), seed=i)
        if i % 3 == 0:  # add a bipartite component
            G = nx.disjoint_union(G, nx.complete_bipartite_graph(2, 3))
        if i % 4 == 1:  # add an odd cycle
            G = nx.disjoint_union(nx.cycle_graph(5), G)
        out.append(nx.to_scipy_sparse_array(G, weight=None, format="csr"))
    return out


def test_bipartite_component_kernel_equals_its_twin():
    for A in _graphs():
        ip, ix = A.indptr.astype(np.int64), A.indices.astype(np.int64)
        assert bipartite_component_kernel(ip, ix) == bipartite_component_reference(ip, ix)
    path = sp.csr_array(nx.to_scipy_sparse_array(nx.path_graph(4), weight=None))
    assert bipartite_component_kernel(path.indptr, path.indices) == 0
    tri = sp.csr_array(nx.to_scipy_sparse_array(nx.cycle_graph(3), weight=None))
    assert bipartite_component_kernel(tri.indptr, tri.indices) == -1


def test_laziness_zero_refused_on_a_bipartite_component_only():
    G = nx.disjoint_union(nx.complete_graph(6), nx.cycle_graph(8))  # C8 is bipartite
    A = nx.to_scipy_sparse_array(G, weight=None, format="csr")
    with pytest.raises(ValueError, match=r"laziness=0 .*bipartite .*vertex 6"):
        estimate_collision_probabilities(A, 0, 1, walk_length=3, n_walks=8, walk=WALK,
                                         laziness=0.0)
    with pytest.raises(ValueError, match="laziness=0"):
        SpectralClusteringOracle(2, walk=WALK, laziness=0.0, mode="fast").fit(A)
    # a small positive laziness is accepted (-1 decays like |2 l - 1|^t), and the exact
    # distribution is computed at laziness 0 too
    estimate_collision_probabilities(A, 0, 1, walk_length=3, n_walks=8, walk=WALK,
                                     laziness=0.01)
    p = lazy_walk_distribution(A, 6, 3, walk=WALK, laziness=0.0)
    assert p[6::2].sum() == 0  # odd number of steps on C8: only the other side
    B = nx.to_scipy_sparse_array(nx.disjoint_union(nx.complete_graph(6), nx.cycle_graph(7)),
                                 weight=None, format="csr")
    estimate_collision_probabilities(B, 0, 1, walk_length=3, n_walks=8, walk=WALK,
                                     laziness=0.0)


def test_parameter_validation_names_laziness():
    A, _ = make_dcsbm_graph(200, 2, random_state=0)
    for bad in (1.0, -0.1, 1.5):
        with pytest.raises(ValueError, match=r"parameter laziness must be in \[0, 1\)"):
            SpectralClusteringOracle(2, walk=WALK, laziness=bad).fit(A)
    with pytest.raises((TypeError, ValueError), match="laziness"):
        SpectralClusteringOracle(2, walk=WALK, laziness="low").fit(A)
    with pytest.raises(ValueError, match="laziness=0.3 needs walk='degree-normalised'"):
        SpectralClusteringOracle(2, laziness=0.3).fit(A)
    with pytest.raises(ValueError, match="laziness"):
        estimate_collision_probabilities(A, 0, 1, walk_length=2, n_walks=4, walk=WALK,
                                         laziness=1.0)
    with pytest.raises(TypeError, match="laziness"):
        estimate_collision_probabilities(A, 0, 1, walk_length=2, n_walks=4, walk=WALK,
                                         laziness=True)


# ---------------------------------------------------------------- the oracle, every mode
@pytest.mark.filterwarnings("ignore:small eigen-gap")
@pytest.mark.parametrize("mode", ["batched", "prior", "fast"])
def test_every_mode_takes_the_laziness(mode):
    """A small DC-SBM (2 blocks of 300): with laziness 0.2 each mode labels the sampled
    vertices with ARI >= 0.9; the default equals laziness=0.5 exactly and differs from
    0.2 (the walks change)."""
    from sklearn.metrics import adjusted_rand_score

    A, y = make_dcsbm_graph(600, 2, mean_degree=16, mu=0.03, random_state=1)
    kw = dict(mode=mode, walk=WALK, walk_length=4, landmark_clustering="kmeans",
              random_state=0)
    if mode != "fast":
        kw.update(n_repeats=1, n_landmarks=16, n_cluster_landmarks=12)
    q = np.arange(0, 600, 10)
    eager = SpectralClusteringOracle(2, laziness=0.2, **kw).fit(A)
    assert adjusted_rand_score(y[q], eager.predict(q, force=True)) >= 0.9
    default = SpectralClusteringOracle(2, **kw).fit(A)
    half = SpectralClusteringOracle(2, laziness=0.5, **kw).fit(A)
    np.testing.assert_array_equal(default.gram_eigenvalues_, half.gram_eigenvalues_)
    assert not np.array_equal(default.gram_eigenvalues_, eager.gram_eigenvalues_)


# ---------------------------------------------------------------- the walk-length rule
def test_default_walk_length_grid_follows_the_laziness():
    from statlearn.cluster._params import default_walk_length_candidates

    assert default_walk_length_candidates(10_000) == (4, 8, 16, 32, 64)
    assert default_walk_length_candidates(10_000, 0.5) == (4, 8, 16, 32, 64)
    assert default_walk_length_candidates(10_000, 0.1) == (2, 3, 4, 6, 8, 11, 16, 23, 32)
    A, _ = make_dcsbm_graph(600, 2, mean_degree=16, mu=0.03, random_state=1)
    o = SpectralClusteringOracle(2, mode="fast", walk=WALK, laziness=0.1,
                                 landmark_clustering="kmeans", random_state=0).fit(A)
    assert set(o.walk_length_scores_) <= set(default_walk_length_candidates(600, 0.1))


def _spectrum(sig_k, sig_k1, nu, k=6, s=137):
    """Eigenvalues of ``(n/s) G``: k - 1 large ones, sigma_k, sigma_{k+1}, a noise bulk in
    ``[-nu, nu)``."""
    bulk = np.linspace(nu * 0.9, -nu, s - k - 1)
    return np.concatenate([np.full(k - 1, 1.0), [sig_k, sig_k1], bulk])


def test_noise_floor_rule_on_the_diagnosed_spectra():
    """The lazy walk at 16 R0 on the n = 10^4, mu = 0.3 LFR graph (user guide): ratio 1.043
    at t = 8 with the cluster eigenvalue far above the noise edge (0.003), 1.047 at t = 16
    where it is ten times below. The gap rule takes 16 (noise), the noise-floor rule 8,
    and stops the search at 16."""
    from statlearn.cluster._embedding import (
        gap_ratio,
        length_rank,
        search_stops,
        signal_to_noise,
    )

    nu = 0.003
    spec = {8: _spectrum(0.03, 0.03 / 1.043, nu), 16: _spectrum(3.3e-3, 3.3e-3 / 1.047, nu)}
    # at t = 16 the measured sigma_k is the top of the noise (the signal 3e-4 is below it)
    ratios = {t: gap_ratio(v, 6) for t, v in spec.items()}
    snrs = {t: signal_to_noise(v, 6) for t, v in spec.items()}
    assert snrs[8] == pytest.approx(10.0) and snrs[16] == pytest.approx(1.1)
    assert max(ratios, key=lambda t: length_rank("gap", ratios[t], snrs[t])) == 16
    assert max(ratios, key=lambda t: length_rank("noise-floor", ratios[t], snrs[t])) == 8
    assert search_stops("noise-floor", ratios, snrs, 16, 8)
    assert not search_stops("gap", ratios, snrs, 16, 16)
    # nothing negative: no measured noise, inf
    assert signal_to_noise(np.array([2.0, 1.0, 0.5]), 2) == np.inf


@pytest.mark.filterwarnings("ignore:small eigen-gap")
def test_noise_floor_rule_does_not_pick_a_mixed_length():
    """DC-SBM (3 blocks of about 667, mu = 0.3), laziness 0.1, 400 walks, candidates up to
    128. By exact matrix powers (``exact_walk_spectrum``) the cluster eigenvalue of
    ``(n/s) G`` is below 1e-9 from t = 16 on (2e-16 at 128): those lengths carry no signal.
    The gap rule picks one of them (the largest noise ratio); the noise-floor rule picks a
    length below 16 whose sigma_k is above 1.5 times the measured noise edge, and tries
    fewer candidates. On an easy graph (ratio above 2) both rules build the same oracle."""
    A, _ = make_dcsbm_graph(2000, 3, mu=0.3, random_state=0)
    cands = [2, 3, 4, 6, 8, 11, 16, 23, 32, 45, 64, 90, 128]
    kw = dict(mode="fast", walk=WALK, laziness=0.1, n_walks=400, landmark_clustering="kmeans",
              walk_length_candidates=cands, random_state=0)
    gap = SpectralClusteringOracle(3, **kw).fit(A)
    floor = SpectralClusteringOracle(3, walk_length_rule="noise-floor", **kw).fit(A)
    assert gap.walk_length_ >= 16 and len(gap.walk_length_scores_) == len(cands)
    assert floor.walk_length_ < 16 and floor.signal_to_noise_ >= 1.5
    assert len(floor.walk_length_scores_) < len(cands)
    B, _ = make_dcsbm_graph(600, 2, mean_degree=16, mu=0.03, random_state=1)
    easy = dict(mode="fast", walk=WALK, landmark_clustering="kmeans", random_state=0)
    a = SpectralClusteringOracle(2, **easy).fit(B)
    b = SpectralClusteringOracle(2, walk_length_rule="noise-floor", **easy).fit(B)
    assert a.eigengap_ >= 2 and a.walk_length_ == b.walk_length_
    np.testing.assert_array_equal(a.psi_, b.psi_)


@pytest.mark.filterwarnings("ignore:small eigen-gap")
def test_noise_floor_rule_in_the_batched_mode():
    A, y = make_dcsbm_graph(600, 2, mean_degree=16, mu=0.03, random_state=1)
    kw = dict(mode="batched", walk=WALK, n_repeats=1, n_landmarks=16, n_cluster_landmarks=12,
              landmark_clustering="kmeans", random_state=0, laziness=0.2,
              walk_length_candidates=[2, 3, 4, 6, 8])
    o = SpectralClusteringOracle(2, walk_length_rule="noise-floor", **kw).fit(A)
    g = SpectralClusteringOracle(2, **kw).fit(A)
    assert o.walk_length_ in o.walk_length_scores_
    assert set(o.walk_length_scores_) <= set(g.walk_length_scores_)
    with pytest.raises(ValueError, match="walk_length_rule"):
        SpectralClusteringOracle(2, walk_length_rule="max").fit(A)

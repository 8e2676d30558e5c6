"""``n_walks="auto"`` in fast mode: the walks double until the landmark Gram matrix's
eigen-gap ratio reaches 2, or 16 times the start. The rule is deterministic given the
seed, so each test compares with a fixed build and fails exactly when the rule does."""

from __future__ import annotations

import warnings

import networkx as nx
import numpy as np
import pytest
from sklearn.metrics import adjusted_rand_score

from statlearn.cluster import SpectralClusteringOracle
from statlearn.cluster._params import AUTO_WALKS_DOUBLINGS, AUTO_WALKS_GAP

WALK = "degree-normalised"
KW = dict(mode="fast", walk=WALK, landmark_clustering="kmeans", random_state=0)


@pytest.fixture(scope="module")
def lfr():
    """networkx LFR graph, n = 1000, degree exponent 2.5, mu = 0.2 (6 communities)."""
    n = 1000
    G = nx.LFR_benchmark_graph(n, 2.5, 1.5, 0.2, average_degree=20,
                               max_degree=int(3 * np.sqrt(n)), min_community=n // 8,
                               max_community=n // 4, seed=0)
    comms = sorted({frozenset(G.nodes[v]["community"]) for v in G}, key=min)
    y = np.empty(n, dtype=np.int64)
    for i, c in enumerate(comms):
        y[list(c)] = i
    A = nx.to_scipy_sparse_array(G, nodelist=range(n), weight=None, format="csr")
    return A, y, len(comms)


def _fit(A, k, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return SpectralClusteringOracle(k, **{**KW, **kw}).fit(A)


def test_doubles_until_the_gap_and_ends_as_the_fixed_build_at_those_walks(lfr):
    """LFR with mu = 0.2: at the fixed default ``R`` the gap ratio is below 2 (measured
    1.14, ARI 0.80); "auto" doubles to the first ``R`` with a ratio of at least 2 and
    then equals, bit for bit in its labels and up to rounding in ``psi_``, a fixed build
    with ``n_walks`` set to that ``R``, having spent the earlier rounds' steps on top.

    Planted once: not clearing the walk-length search when the walks double (the old
    best length and Gram matrix kept) fails the ``psi_`` comparison; a flipped gap test
    fails the first assertion."""
    A, y, k = lfr
    base = _fit(A, k)
    assert base.eigengap_ < AUTO_WALKS_GAP
    auto = _fit(A, k, n_walks="auto")
    r = auto.n_walks_
    assert r > base.n_walks_ and auto.eigengap_ >= AUTO_WALKS_GAP
    assert r in [base.n_walks_ << i for i in range(1, AUTO_WALKS_DOUBLINGS + 1)]
    assert auto.batch_size_ == r and auto.walk_steps_per_query_ == r * auto.walk_length_
    fixed = _fit(A, k, n_walks=r)
    assert fixed.eigengap_ == pytest.approx(auto.eigengap_, rel=1e-10)
    # the previous round (half the walks) was below the target: r is the first to reach it
    half = _fit(A, k, n_walks=r // 2)
    assert half.eigengap_ < AUTO_WALKS_GAP
    np.testing.assert_allclose(auto.psi_, fixed.psi_, rtol=1e-10, atol=0)
    np.testing.assert_array_equal(auto.landmarks_, fixed.landmarks_)
    assert auto.walk_length_scores_ == pytest.approx(fixed.walk_length_scores_, rel=1e-10)
    assert auto.peak_memory_words_ == fixed.peak_memory_words_
    assert auto.index_words_ == fixed.index_words_
    # every round's landmark walks are counted: an earlier round stayed below a ratio of 2,
    # so its search tried every candidate, continuing 2 s R' walks to the longest one
    earlier = 2 * auto.landmarks_.size * (r - base.n_walks_) * max(auto._build.cands)
    assert auto.walk_steps_fit_ == fixed.walk_steps_fit_ + earlier
    q = np.arange(0, A.shape[0], 2)
    lab = auto.predict(q, force=True)
    np.testing.assert_array_equal(lab, fixed.predict(q, force=True))
    # the accuracy the doubling buys (measured 0.80 -> 0.99; SpectralClustering 1.0)
    assert adjusted_rand_score(y[q], base.predict(q, force=True)) < 0.9
    assert adjusted_rand_score(y[q], lab) >= 0.95


def test_no_doubling_where_the_default_already_separates():
    """A DC-SBM with mu = 0.05: the default ``R`` already gives a ratio of at least 2, so
    "auto" builds exactly the default oracle (same ``R``, steps and ``psi_``).

    Planted once: doubling while the ratio is *at least* 2 fails it."""
    from statlearn.studies.spectral_oracle import make_dcsbm_graph

    A, _ = make_dcsbm_graph(1500, 3, mu=0.05, random_state=0)
    base = _fit(A, 3)
    assert base.eigengap_ >= AUTO_WALKS_GAP
    auto = _fit(A, 3, n_walks="auto")
    assert auto.n_walks_ == base.n_walks_
    assert auto.walk_steps_fit_ == base.walk_steps_fit_
    np.testing.assert_allclose(auto.psi_, base.psi_, rtol=1e-12, atol=0)


def test_stops_at_sixteen_times_the_start_without_cluster_structure():
    """A random 8-regular graph has no 2 clusters: the ratio stays near 1, the walks
    double 4 times and stop at 16 times the start (the build still ends: k-means on the
    landmarks; ``eigengap_`` says the structure is missing).

    Planted once: an off-by-one cap (``>`` for ``>=``) doubles a fifth time and fails."""
    A = nx.to_scipy_sparse_array(nx.random_regular_graph(8, 400, seed=0), weight=None,
                                 format="csr")
    base = _fit(A, 2, walk_length_candidates=(4, 8))
    auto = _fit(A, 2, walk_length_candidates=(4, 8), n_walks="auto")
    assert auto.eigengap_ < AUTO_WALKS_GAP
    assert auto.n_walks_ == base.n_walks_ * 16
    fixed = _fit(A, 2, walk_length_candidates=(4, 8), n_walks=auto.n_walks_)
    # rounds at R, 2R, 4R, 8R before the last (16R): 15/16 of its search steps again
    search = 2 * fixed.landmarks_.size * fixed.n_walks_ * 8
    assert auto.walk_steps_fit_ == fixed.walk_steps_fit_ + search * 15 // 16


def test_resume_after_every_stage_ends_with_the_same_oracle(lfr):
    """Stopped after each stage (``time_budget=0``), including the doubling stages, the
    resumed build equals the uninterrupted one."""
    A, _, k = lfr
    full = _fit(A, k, n_walks="auto", walk_length_candidates=(4, 8))
    o = SpectralClusteringOracle(k, n_walks="auto", walk_length_candidates=(4, 8),
                                 time_budget=0, **KW)
    stages = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        o.fit(A)
        while o.build_state_ == "partial":
            stages.append(o.build_stage_)
            o.resume()
    assert any(s.startswith("n_walks doubled") for s in stages), stages
    assert o.n_walks_ == full.n_walks_ and o.walk_steps_fit_ == full.walk_steps_fit_
    np.testing.assert_allclose(o.psi_, full.psi_, rtol=1e-12, atol=0)


def test_auto_refuses_other_strings_and_refits_from_the_start(lfr):
    """(The batched and prior modes: ``test_auto_walks_batched.py``.)"""
    A, _, k = lfr
    with pytest.raises(ValueError, match="n_walks"):
        SpectralClusteringOracle(2, mode="fast", n_walks="more").fit(A)
    # a second fit starts again from the default R (nothing carried over)
    o = _fit(A, k, n_walks="auto", walk_length_candidates=(4, 8))
    r1, steps1 = o.n_walks_, o.walk_steps_fit_
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        o.fit(A)
    assert (o.n_walks_, o.walk_steps_fit_) == (r1, steps1)

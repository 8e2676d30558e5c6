"""``n_walks="auto"`` in the batched and prior modes: ``R`` doubles (batch size kept) until
the eigen-gap ratio of the landmark Gram matrix reaches 2, or 16 times the start, and the
last round is the fixed build at the ``R`` kept, queries and accounting included.

The rule is deterministic given the seed, so each test compares with fixed builds and
fails exactly when the rule does. Planted once each (see the report of the change): the
doubling skipped (the first round always kept), the gap test flipped (``gap < 2`` ends
the rounds), the cap ignored and the cap off by one (``>`` for ``>=``), queries drawn with
the default ``R`` (``alpha_from_estimates`` reading the first round's parameters), and
the accounting left at the first round's (``walk_accounting`` not called after the loop).
"""

from __future__ import annotations

import math
import warnings

import networkx as nx
import numpy as np
import pytest

from statlearn.cluster import SpectralClusteringOracle, _walks
from statlearn.cluster._params import AUTO_WALKS_DOUBLINGS, AUTO_WALKS_GAP, memory_layout
from statlearn.datasets import make_planted_expanders

MODES = ("batched", "prior")
#: three 8-regular expanders of 200 vertices joined by 100 random edges, 40 landmarks: at
#: t = 48 the k-th eigenvalue of (n/s) G is about 0.15, the (k+1)-th (estimation noise)
#: falls with R: measured ratio 1.78, 2.15, 3.25 at 1, 2, 4 times the batched default
#: R, 1.52, 3.03, 5.82 at 1, 2, 4 times the prior default
KW = dict(walk_length=48, n_landmarks=40, n_repeats=3, landmark_clustering="kmeans",
          random_state=0)
#: R of the default and after the doubling, from the resolution rules: batched b =
#: ceil(sqrt(600)) = 25, R0 = 25 * ceil(max(25, ceil(2400 / 25)) / 25) = 100; prior R0 =
#: ceil(sqrt(2400)) = 49; one doubling each
EXPECTED = {"batched": (100, 200), "prior": (49, 98)}


@pytest.fixture(scope="module")
def expanders():
    return make_planted_expanders([200] * 3, 8, 100, random_state=0)


def _fit(A, k, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # small eigen-gap warnings of the fixed builds
        return SpectralClusteringOracle(k, **kw).fit(A)


_CACHE = {}


def _oracles(A, mode):
    """The fixed default, the auto build, and fixed builds at every R of the rounds."""
    if mode not in _CACHE:
        kw = dict(KW, mode=mode)
        base = _fit(A, 3, **kw)
        auto = _fit(A, 3, n_walks="auto", **kw)
        fixed = {base.n_walks_: base}
        r = base.n_walks_
        while r < auto.n_walks_:
            r *= 2
            fixed[r] = _fit(A, 3, n_walks=r, **kw)
        _CACHE[mode] = base, auto, fixed
    return _CACHE[mode]


@pytest.mark.parametrize("mode", MODES)
def test_doubles_until_the_gap_and_ends_as_the_fixed_build_at_those_walks(expanders, mode):
    """The fixed default's ratio is below 2; "auto" doubles to the first ``R`` whose ratio
    reaches 2 (every earlier ``R`` stays below it) and then equals the fixed build with
    ``n_walks`` at that ``R``, its step counter adding exactly the earlier rounds' Gram
    matrices (``n_repeats * s (s + 1) / 2`` pairs of ``2 R' t`` steps each)."""
    A, _ = expanders
    base, auto, fixed = _oracles(A, mode)
    r0, r_expected = EXPECTED[mode]
    assert base.n_walks_ == r0 and base.eigengap_ < AUTO_WALKS_GAP
    r = auto.n_walks_
    assert r == r_expected
    assert r in [r0 << i for i in range(1, AUTO_WALKS_DOUBLINGS + 1)]
    assert auto.eigengap_ >= AUTO_WALKS_GAP
    for r_earlier, o in fixed.items():
        if r_earlier < r:  # the doubling sequence: every earlier round was below 2
            assert o.eigengap_ < AUTO_WALKS_GAP, (r_earlier, o.eigengap_)
    f = fixed[r]
    assert f.eigengap_ == pytest.approx(auto.eigengap_, rel=1e-10)
    np.testing.assert_allclose(auto.psi_, f.psi_, rtol=1e-10, atol=0)
    np.testing.assert_array_equal(auto.landmarks_, f.landmarks_)
    np.testing.assert_array_equal(auto.landmark_labels_, f.landmark_labels_)
    assert auto.batch_size_ == f.batch_size_
    if mode == "batched":
        assert auto.batch_size_ == base.batch_size_  # the memory knob stays
    s, reps, t = auto.landmarks_.size, auto.n_repeats_, auto.walk_length_
    earlier = reps * (s * (s + 1) // 2) * 2 * t * (r - r0)  # R0 + 2 R0 + ... + r / 2
    assert auto.walk_steps_fit_ == f.walk_steps_fit_ + earlier


@pytest.mark.parametrize("mode", MODES)
def test_accounting_reports_the_walks_kept(expanders, mode):
    """Walk counts, batches, buffer, peak and query words and steps per query are those of
    the fixed build at the ``R`` kept, computed from it (prior: ``2 R`` buffer words)."""
    A, _ = expanders
    base, auto, fixed = _oracles(A, mode)
    f = fixed[auto.n_walks_]
    names = ("n_walks_", "batch_size_", "n_batches_", "walk_buffer_words_",
             "peak_memory_words_", "query_memory_words_", "walk_steps_per_query_")
    assert {a: getattr(auto, a) for a in names} == {a: getattr(f, a) for a in names}
    r, b = auto.n_walks_, auto.batch_size_
    s, sc, reps, t = auto.landmarks_.size, auto.cluster_landmarks_.size, auto.n_repeats_, 48
    assert auto.walk_steps_per_query_ == reps * s * 2 * r * t
    with_walks, without = memory_layout(s, sc, 3, reps)
    if mode == "prior":
        assert (auto.batch_size_, auto.n_batches_, auto.walk_buffer_words_) == (r, 1, 2 * r)
        assert auto.walk_buffer_words_ == 2 * base.walk_buffer_words_
    else:
        assert (auto.n_batches_, auto.walk_buffer_words_) == (r // b, b)
        assert auto.n_batches_ == 2 * base.n_batches_
    assert auto.peak_memory_words_ == max(with_walks + auto.walk_buffer_words_, without)
    assert auto.query_memory_words_ == s + sc + reps + auto.walk_buffer_words_ + 2


@pytest.mark.parametrize("mode", MODES)
def test_queries_draw_the_walks_kept(expanders, mode, monkeypatch):
    """A query runs ``n_walks_`` walks per side in batches of ``batch_size_`` (counted in
    the walk engine), as many steps as ``walk_steps_per_query_``, and answers as the fixed
    build at that ``R`` (not as the default)."""
    A, y = expanders
    base, auto, fixed = _oracles(A, mode)
    f = fixed[auto.n_walks_]
    calls = []
    real = _walks.collision_counts

    def counting(g, xs, ys, keys, ts, n_batches, batch_size, **kw):
        calls.append((len(xs), list(ts), n_batches, batch_size))
        return real(g, xs, ys, keys, ts, n_batches, batch_size, **kw)

    monkeypatch.setattr(_walks, "collision_counts", counting)
    auto.which_cluster(7, force=True)
    assert calls and all(nb * b == auto.n_walks_ and b == auto.batch_size_
                         for _, _, nb, b in calls), calls
    steps = sum(m * 2 * nb * b * sum(ts) for m, ts, nb, b in calls)
    assert steps == auto.walk_steps_per_query_
    monkeypatch.undo()
    q = np.arange(0, 600, 10)
    labels = auto.predict(q, force=True)
    np.testing.assert_array_equal(labels, f.predict(q, force=True))
    np.testing.assert_allclose(auto.embedding_dots(q[:6]), f.embedding_dots(q[:6]),
                               rtol=1e-10, atol=0)
    assert auto.dot(3, 7) == pytest.approx(f.dot(3, 7), rel=1e-10)
    assert auto.dot(3, 7) != pytest.approx(base.dot(3, 7), rel=1e-3)
    # the accuracy the doubling buys on this graph (all 60 queried vertices right)
    from sklearn.metrics import adjusted_rand_score

    assert adjusted_rand_score(y[q], labels) == pytest.approx(1.0)


@pytest.mark.parametrize("mode", MODES)
def test_no_doubling_where_the_default_already_separates(mode):
    """Forty bridges and t = 16: the default ratio is about 8.5, so "auto" builds exactly
    the default oracle (same ``R``, steps and ``psi_``)."""
    A, _ = make_planted_expanders([200] * 3, 8, 40, random_state=0)
    kw = dict(KW, mode=mode, walk_length=16)
    base = _fit(A, 3, **kw)
    assert base.eigengap_ >= AUTO_WALKS_GAP
    auto = _fit(A, 3, n_walks="auto", **kw)
    assert (auto.n_walks_, auto.walk_steps_fit_) == (base.n_walks_, base.walk_steps_fit_)
    np.testing.assert_allclose(auto.psi_, base.psi_, rtol=1e-12, atol=0)


def _stepped(A, k, **kw):
    """Fit with ``time_budget=0`` and resume stage by stage; returns the oracle and the
    stage names. Stops (and fails) after more doublings than the cap allows."""
    o = SpectralClusteringOracle(k, time_budget=0, **kw)
    stages = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        o.fit(A)
        while o.build_state_ == "partial":
            stages.append(o.build_stage_)
            doubled = [s for s in stages if s.startswith("n_walks doubled")]
            assert len(doubled) <= AUTO_WALKS_DOUBLINGS, doubled
            o.resume()
    return o, stages


@pytest.mark.parametrize("mode", MODES)
def test_stops_at_sixteen_times_the_start_without_cluster_structure(mode):
    """A random 8-regular graph has no 2 clusters: the ratio stays near 1, and ``R``
    doubles exactly 4 times (R0, 2 R0, 4 R0, 8 R0, 16 R0), then the build ends (k-means on
    the landmarks). Built stage by stage (``time_budget=0``, resumed after each stage), it
    equals the fixed build at 16 R0 with the earlier rounds' 15 R0 Gram walks on top.
    In the batched mode ``memory_budget`` sets the batch size, which the doubling keeps
    within the budget."""
    A = nx.to_scipy_sparse_array(nx.random_regular_graph(8, 400, seed=0), weight=None,
                                 format="csr")
    kw = dict(mode=mode, walk_length=8, n_repeats=3, landmark_clustering="kmeans",
              random_state=0)
    s = math.ceil(10 * 2 * math.log(3) + 20)
    r0 = 40  # prior: ceil(sqrt(4 n))
    if mode == "batched":
        # the smallest budget the landmark structures allow; b is the rest
        with_walks, without = memory_layout(s, math.ceil(20 * math.log(3)), 2, 3)
        kw["memory_budget"] = max(with_walks + 20, without)
        b = kw["memory_budget"] - with_walks
        r0 = b * -(-max(b, -(-1600 // b)) // b)  # max(b, ceil(4 n / b)), a multiple of b
    o, stages = _stepped(A, 2, n_walks="auto", **kw)
    doubled = [st for st in stages if st.startswith("n_walks doubled")]
    assert doubled == [f"n_walks doubled to {r0 << i}" for i in range(1, 5)]
    assert o.n_walks_ == 16 * r0 and o.eigengap_ < AUTO_WALKS_GAP
    fixed = _fit(A, 2, n_walks=16 * r0, **kw)
    np.testing.assert_allclose(o.psi_, fixed.psi_, rtol=1e-10, atol=0)
    assert o.peak_memory_words_ == fixed.peak_memory_words_
    earlier = 3 * (s * (s + 1) // 2) * 2 * 8 * 15 * r0
    assert o.walk_steps_fit_ == fixed.walk_steps_fit_ + earlier
    if mode == "batched":
        assert o.batch_size_ == b and o.peak_memory_words_ <= kw["memory_budget"]


def test_walk_length_search_runs_again_each_round_and_resumes(expanders):
    """With a walk-length search, every round searches again at its ``R``: the last
    round's scores are those of the fixed build at the ``R`` kept, and the steps add each
    earlier round's search and Gram matrix (a fixed build at that ``R`` less its cluster
    landmarks). A build stopped after every stage resumes to the same oracle."""
    A, _ = expanders
    kw = dict(KW, walk_length="auto", walk_length_candidates=(48, 64), mode="prior")
    auto, stages = _stepped(A, 3, n_walks="auto", **kw)
    assert any(st.startswith("n_walks doubled") for st in stages)
    r0 = EXPECTED["prior"][0]
    r = auto.n_walks_
    assert r > r0 and auto.eigengap_ >= AUTO_WALKS_GAP
    fixed = _fit(A, 3, n_walks=r, **kw)
    assert auto.walk_length_ == fixed.walk_length_
    assert auto.walk_length_scores_ == pytest.approx(fixed.walk_length_scores_, rel=1e-10)
    np.testing.assert_allclose(auto.psi_, fixed.psi_, rtol=1e-10, atol=0)
    s, sc, reps = auto.landmarks_.size, auto.cluster_landmarks_.size, auto.n_repeats_
    earlier = 0
    r_earlier = r0
    while r_earlier < r:
        o = _fit(A, 3, n_walks=r_earlier, **kw)
        assert o.eigengap_ < AUTO_WALKS_GAP
        earlier += o.walk_steps_fit_ - reps * sc * s * 2 * r_earlier * o.walk_length_
        r_earlier *= 2
    assert auto.walk_steps_fit_ == fixed.walk_steps_fit_ + earlier


def test_prior_auto_refuses_a_memory_budget(expanders):
    """In prior mode the budget fixes ``n_walks`` (``2 R`` buffer words): "auto" with it
    would break the budget, so the combination is refused, naming both."""
    A, _ = expanders
    with pytest.raises(ValueError, match="n_walks='auto'.*memory_budget.*mode='prior'"):
        SpectralClusteringOracle(3, mode="prior", n_walks="auto",
                                 memory_budget=10**5).fit(A)

"""The 1-vs-2 cluster tester (Algorithm 5 and Theorem 1.2 of Shen, Zhu, Peng and Huang 2026)."""

import numpy as np
import pytest

import statlearn.cluster as cl
from statlearn.datasets import make_planted_expanders, make_random_regular_graph, make_sbm_graph
from statlearn.testing import assert_binomial_rate, suite_size


@pytest.mark.slow
@pytest.mark.parametrize("b", [16, 256])
def test_one_vs_two_expanders(b):
    """One random 8-regular expander vs two disjoint halves; correct in >= 95% of trials.

    Full size: n = 4000, 40 trials per graph type; CI size: n = 1000, 16 trials,
    one repeat and t = 20 (long enough to mix on these expanders). The binomial
    check fails with probability <= 1e-6 when the true rate is 0.95.
    """
    n = suite_size(ci=1000, full=4000)
    trials = suite_size(ci=16, full=40)
    kw = dict(batch_size=b, n_repeats=suite_size(ci=1, full=3), walk_length=20)
    correct, nu2 = 0, {1: [], 2: []}
    for trial in range(trials):
        one = make_random_regular_graph(n, 8, random_state=trial)
        two, _ = make_planted_expanders([n // 2, n // 2], 8, n_bridges=0, random_state=trial)
        for truth, graph in ((1, one), (2, two)):
            res = cl.test_one_vs_two_clusters(graph, random_state=1000 + trial, **kw)
            assert res.n_samples >= 64 and res.batch_size == b
            correct += res.n_clusters == truth
            nu2[truth].append(res.nu2)
    assert_binomial_rate(correct, 2 * trials, 0.95, alternative="less", label="correct")
    assert np.median(nu2[1]) < 0.3 < 0.7 < np.median(nu2[2])


def test_result_object_and_costs():
    A = make_random_regular_graph(300, 6, random_state=0)
    res = cl.test_one_vs_two_clusters(A, batch_size=8, n_walks=64, n_samples=10, n_repeats=1,
                                      walk_length=5, random_state=0)
    assert res.n_clusters in (1, 2) and res.two_clusters == (res.n_clusters == 2)
    assert res.eigenvalues.shape == (10,) and np.all(np.diff(res.eigenvalues) <= 0)
    assert res.walk_steps == 55 * 2 * 64 * 5
    assert res.peak_memory_words == 100 + 10 + 1 + 8 + 2
    assert "nu2" in str(res.summary())
    ax = res.plot()
    assert ax.get_title().startswith("decision")
    again = cl.test_one_vs_two_clusters(A, batch_size=8, n_walks=64, n_samples=10, n_repeats=1,
                                        walk_length=5, random_state=0)
    assert again.nu2 == res.nu2


@pytest.mark.parametrize("kwargs, exc, match", [
    (dict(batch_size=0), ValueError, "batch_size"),
    (dict(n_samples=1), ValueError, "n_samples"),
    (dict(walk_length=0), ValueError, "walk_length"),
    (dict(threshold="x"), TypeError, "threshold"),
    (dict(backend="tpu"), ValueError, "backend"),
    (dict(n_repeats=0), ValueError, "n_repeats"),
])
def test_bad_inputs(kwargs, exc, match):
    A = make_random_regular_graph(50, 4, random_state=0)
    with pytest.raises(exc, match=match):
        cl.test_one_vs_two_clusters(A, **kwargs)


def test_not_collected_as_a_test():
    assert cl.test_one_vs_two_clusters.__test__ is False


def test_default_walk_length_finds_two_weakly_linked_blocks():
    """Two-block SBM (in-degree ~20, ~0.2 edges per vertex across): two clusters.

    A fixed walk length of ceil(8 ln n) = 56 mixes over the whole graph here and read
    4 of these 5 graphs as one cluster; the default now chooses t by the oracle's
    eigen-gap rule. One expander must still read as one cluster.
    """
    n = 1000
    for seed in range(5):
        A, _ = make_sbm_graph([n // 2, n // 2], 0.04, 0.0004, random_state=seed)
        res = cl.test_one_vs_two_clusters(A, n_repeats=1, random_state=seed)
        assert res.n_clusters == 2, (seed, res.nu2, res.walk_length_scores)
        assert res.walk_length in res.walk_length_scores
    for seed in range(2):
        one = make_random_regular_graph(n, 8, random_state=seed)
        res = cl.test_one_vs_two_clusters(one, n_repeats=1, random_state=seed)
        assert res.n_clusters == 1, (seed, res.nu2, res.walk_length_scores)
    assert len(repr(res)) < 400 and "eigenvalues=<array shape=(64,)" in repr(res)

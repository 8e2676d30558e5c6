"""The spectral-oracle study: replication function, table and figure at small size."""

import math

import numpy as np
import pytest

from statlearn.simulation import run_study
from statlearn.studies import get_study
from statlearn.studies.spectral_oracle import (
    PAPER_TABLE,
    _figure,
    _table,
    label_accuracy,
    oracle_replication,
)

SMALL = {"n_queries": 20, "n_repeats": 3, "n": 300, "p": 0.3, "q": 0.01}


def test_label_accuracy_uses_best_permutation_and_counts_outliers():
    assert label_accuracy([2, 2, 0, 1], [0, 0, 1, 2], 3) == 1.0
    assert label_accuracy([-1, 0], [0, 0], 1) == 0.5


def test_table_and_figure_from_a_small_run():
    grid = [{"oracle": o, "memory": m, **SMALL}
            for o, m in (("low-memory", 8), ("low-memory", 20), ("prior", 4), ("prior", 20))]
    res = run_study(oracle_replication, grid, n_reps=2, random_state=0, progress=False)
    table = _table(res, 300)
    assert list(table["oracle"]) == ["low-memory", "low-memory", "prior", "prior"]
    lo = table[table["oracle"] == "low-memory"]
    assert (lo["success rate"] == 1).all() and (lo["accuracy"] > 0.9).all()
    # the trade-off: S_walk * T / n is flat across b for the low-memory oracle
    spread = lo["S_walk*T/n"].max() / lo["S_walk*T/n"].min()
    assert spread < 1.5
    pr = table[table["oracle"] == "prior"]
    assert (pr["walk buffer"] == 2 * pr["b or R"]).all()
    fig = _figure(table)
    assert len(fig.axes) == 2


def test_replication_reports_failure_without_raising():
    out = oracle_replication({"oracle": "prior", "memory": 1, **SMALL}, np.random.default_rng(1))
    assert out["success"] is False and math.isnan(out["accuracy"])
    with pytest.raises(ValueError, match="oracle"):
        oracle_replication({"oracle": "other", "memory": 4, **SMALL}, np.random.default_rng(0))


def test_registered_with_paper_table():
    study = get_study("spectral-oracle")
    assert "ICLR 2026" in study.paper
    assert PAPER_TABLE["accuracy"].max() == 1.0


def test_methods_table_compares_fast_low_memory_prior_and_spectral_clustering():
    from statlearn.studies.spectral_oracle import (
        _methods_figure,
        _methods_table,
        method_replication,
    )

    grid = [{"method": m, "n": 600, "n_queries": 20}
            for m in ("fast", "low-memory", "SpectralClustering")]
    res = run_study(method_replication, grid, n_reps=1, random_state=0, progress=False)
    table = _methods_table(res)
    assert list(table["method"]) == ["fast", "low-memory", "SpectralClustering"]
    assert (table["accuracy"] > 0.9).all()
    assert (table["peak MB"] > 0).all()
    sk = table[table["method"] == "SpectralClustering"].iloc[0]
    assert sk["build / SpectralClustering"] == 1.0 and math.isnan(sk["s/query"])
    fast = table[table["method"] == "fast"].iloc[0]
    assert fast["s/query"] > 0 and fast["break-even q*"] >= 0
    assert len(_methods_figure(table).axes) == 2
    with pytest.raises(ValueError, match="method"):
        method_replication({"method": "other", "n": 60, "n_queries": 2},
                           np.random.default_rng(0))


def test_degrees_comparison_table_and_figure():
    """Heterogeneous degrees: on an LFR graph with mu = 0.1 the normalised walk and
    SpectralClustering recover the communities (ARI >= 0.9 on every vertex; measured
    0.995 and 1.0); the table has one row per graph with every method's ARI, and the
    figure one panel per (n, tau1)."""
    from statlearn.studies._spectral_degrees import (
        DEGREE_METHODS,
        degree_replication,
        degrees_figure,
        degrees_grid,
        degrees_table,
    )

    grid = [{"graph": "LFR", "n": 1000, "tau1": 2.5, "mu": 0.1, "method": m}
            for m in ("SpectralClustering", "normalised")]
    grid += [{"graph": "karate club", "n": None, "tau1": None, "mu": None, "method": m}
             for m in ("SpectralClustering", "normalised")]
    res = run_study(degree_replication, grid, n_reps=1, random_state=0, progress=False)
    table = degrees_table(res)
    assert list(table["graph"]) == ["LFR n=1000 tau1=2.5 mu=0.1", "karate club"]
    lfr = table.iloc[0]
    assert lfr["SpectralClustering ARI"] >= 0.9 and lfr["normalised ARI"] >= 0.9
    assert lfr["normalised R"] > 0 and "SpectralClustering R" not in table
    assert math.isnan(table.iloc[1]["mu"])
    assert len(degrees_figure(table).axes) == 1
    quick = degrees_grid(True)
    assert {s["method"] for s in quick} == set(DEGREE_METHODS)
    assert {s["mu"] for s in quick if s["graph"] == "LFR"} == {0.1, 0.2, 0.3}
    with pytest.raises(ValueError, match="method"):
        degree_replication({**grid[0], "method": "other"}, np.random.default_rng(0))
    with pytest.raises(ValueError, match="graph"):
        degree_replication({**grid[0], "graph": "other"}, np.random.default_rng(0))


def test_exact_walk_spectrum_gram_and_laziness():
    """The exact Gram of the diagnosis equals the weighted collision probabilities of the
    oracle's degree-normalised walk (``lazy_walk_distribution``) at laziness 1/2, and of
    the plain walk ``(A D^-1)^t`` at laziness 0; on the mu = 0.3 LFR graph (n = 1000,
    exponent 3) the non-lazy walk separates at t = 3 where the lazy one does not
    (measured 0.955 against below 0.8 for the lazy walk, which needs t = 8)."""
    import scipy.sparse as sp

    from statlearn.cluster import lazy_walk_distribution
    from statlearn.datasets import make_planted_expanders
    from statlearn.studies._spectral_degrees import (
        _exact_gram,
        exact_walk_spectrum,
        lfr_graph,
    )

    A, _ = make_planted_expanders([40, 60], 4, n_bridges=6, random_state=0)
    A = sp.csr_array(A)
    A = A + sp.csr_array((np.ones(3), ([0, 0, 1], [5, 7, 9])), shape=A.shape)  # uneven degrees
    A = sp.csr_array(((A + A.T) > 0).astype(float))
    deg = np.asarray(A.sum(axis=1)).ravel()
    w = deg.mean() / deg
    xs, ys = np.array([0, 3, 50]), np.array([1, 50, 99])
    got = _exact_gram(A, xs, ys, 5, 0.5)
    px = [lazy_walk_distribution(A, x, 5, walk="degree-normalised") for x in xs]
    py = [lazy_walk_distribution(A, v, 5, walk="degree-normalised") for v in ys]
    want = np.array([[np.sum(a * b * w) for b in py] for a in px])
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-15)
    P = (A @ sp.diags_array(1.0 / deg)).toarray()
    Pt = np.linalg.matrix_power(P, 3)
    np.testing.assert_allclose(_exact_gram(A, xs, ys, 3, 0.0),
                               Pt[:, xs].T @ (Pt[:, ys] * w[:, None]), rtol=1e-12, atol=1e-15)

    B, y, _ = lfr_graph(1000, 3.0, 0.3)
    lazy = exact_walk_spectrum(B, y, [3], n_queries=300)
    eager = exact_walk_spectrum(B, y, [3], laziness=0.0, n_queries=300)
    assert lazy["ari"].iloc[0] < 0.8 < 0.9 < eager["ari"].iloc[0]
    assert list(eager.columns) == ["t", "sigma_k", "sigma_k+1", "gap", "ari"]
    # one propagation through the lengths, rows in the order asked, repeats included:
    # the same spectra as a call per length
    both = exact_walk_spectrum(B, y, [5, 3, 5], n_queries=300)
    assert both["t"].tolist() == [5, 3, 5]
    five = exact_walk_spectrum(B, y, [5], n_queries=300)
    for i, one in ((0, five), (1, lazy), (2, five)):
        np.testing.assert_allclose(both[["sigma_k", "sigma_k+1"]].iloc[i].to_numpy(float),
                                   one[["sigma_k", "sigma_k+1"]].iloc[0].to_numpy(float),
                                   rtol=1e-10)
        assert both["ari"].iloc[i] == pytest.approx(one["ari"].iloc[0], abs=0.02)
    with pytest.raises(ValueError, match="laziness"):
        exact_walk_spectrum(B, y, [3], laziness=1.0)
    with pytest.raises(ValueError, match="walk_lengths"):
        exact_walk_spectrum(B, y, [0])
    with pytest.raises(ValueError, match="y must"):
        exact_walk_spectrum(B, y[:10], [3])
    with pytest.raises(ValueError, match="n_queries"):
        exact_walk_spectrum(B, y, [3], n_queries=0)

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

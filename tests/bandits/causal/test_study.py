"""The causal-bandits study: registration, one replication, the tidy summary."""

import numpy as np
import pytest

from statlearn.simulation import run_study
from statlearn.studies import get_study
from statlearn.studies.causal_bandits import _summaries, causal_bandit_replication


def test_registered():
    study = get_study("causal-bandits")
    assert "2018" in study.paper and "2026" in study.paper


def test_replication_and_summary():
    setting = {"task": "counterfactual", "instance": 0, "strategy": "POMIS", "solver": "TS",
               "T": 400, "n_points": 6}
    out = causal_bandit_replication(setting, np.random.default_rng(0))
    assert out == causal_bandit_replication(setting, np.random.default_rng(0))
    # every do-arm is at least Delta = 0.423 below the counterfactual optimum
    assert out["r400"] >= 400 * 0.42 and out["o400"] == 0
    grid = {"task": ["counterfactual"], "instance": [0], "strategy": ["CTF-POMIS", "POMIS"],
            "solver": ["KL-UCB"], "T": [400], "n_points": [6]}
    res = run_study(causal_bandit_replication, grid, n_reps=4, random_state=0, progress=False)
    tab, paths = _summaries(res, 400, 6)
    assert list(tab["strategy"]) == ["CTF-POMIS", "POMIS"]
    assert tab.loc[1, "growth"] == "linear" and tab.loc[1, "gap of the arm set"] > 0.4
    assert tab.loc[0, "gap of the arm set"] == 0.0
    with pytest.raises(ValueError, match="solver must be one of"):
        causal_bandit_replication({**setting, "solver": "UCB1"}, np.random.default_rng(0))

"""The queueing-bandits study: registration and one replication."""

import numpy as np
import pytest

from statlearn.studies import get_study
from statlearn.studies.queueing_bandits import _power_fit, queueing_replication


def test_registered():
    study = get_study("queueing-bandits")
    assert "2601.19300" in study.paper


def test_replication_runs_every_policy_on_common_randomness():
    setting = {"instance": 1, "slack": 0.1, "T": 600,
               "policies": "random+oracle+cqb_eps+cqb_opt+greedy+blind", "n_points": 6}
    out = queueing_replication(setting, np.random.default_rng(0))
    assert out["oracle_regret"] == 0
    for name in setting["policies"].split("+"):
        assert f"{name}_q600" in out and f"{name}_q0" in out
        assert out[f"{name}_q600"] - out["oracle_q600"] == out[f"{name}_regret"]
    assert out["random_regret"] > 0 and out["tau"] > 0
    again = queueing_replication(setting, np.random.default_rng(0))
    assert again == out
    with pytest.raises(ValueError, match="unknown policy"):
        queueing_replication({**setting, "policies": "nope"}, np.random.default_rng(0))


def test_power_fit_recovers_a_known_slope():
    T = np.array([1000.0, 2000, 4000, 8000])
    R = 3.0 * (T / 1000) ** -0.5
    b, bse = _power_fit(T, R, np.full(4, 0.01), n_reps=1000)
    assert b == pytest.approx(-0.5, abs=1e-6) and bse < 0.05

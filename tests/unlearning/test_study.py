"""The ``unlearning`` study: registration and one replication at tiny size."""

from __future__ import annotations

import numpy as np

from statlearn.studies import get_study
from statlearn.studies.unlearning import ged_replication


def test_study_is_registered():
    study = get_study("unlearning")
    assert "2510.13094" in study.paper


def test_replication_outputs_and_ordering():
    out = ged_replication({"n": 120, "ms": (1, 3), "epsilons": (0.5, 2.0), "n_noise": 5},
                          np.random.default_rng(0))
    assert len(out) == 2 * (2 + 2 * 2)
    for m in (1, 3):
        assert 0 < out[f"newton_err_m{m}"] < out[f"r_m{m}"]
        for eps in ("0.5", "2"):
            g, lap = out[f"ged_gaussian_m{m}_eps{eps}"], out[f"ged_laplace_l2_m{m}_eps{eps}"]
            assert 0 < g < lap  # Laplace-type noise has a norm sqrt(p) times larger
        assert out[f"ged_gaussian_m{m}_eps2"] < out[f"ged_gaussian_m{m}_eps0.5"]
    assert out["ged_gaussian_m1_eps0.5"] < out["ged_gaussian_m3_eps0.5"]
    again = ged_replication({"n": 120, "ms": (1, 3), "epsilons": (0.5, 2.0), "n_noise": 5},
                            np.random.default_rng(0))
    assert again == out

"""The ``unlearning`` study: registration, one replication, and the GED rates.

GED vs p, m and epsilon as in the simulations of Pandey et al. (2025) (the accuracy
bound of their Theorem 3: GED = O(m^2 polylog(n) / sqrt(n))).
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import spearmanr

from statlearn.studies import get_study
from statlearn.studies.unlearning import ged_replication
from statlearn.testing import suite_size


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


def _slope(x, y):
    return float(np.polyfit(np.log(x), np.log(y), 1)[0])


@pytest.mark.slow
def test_ged_slopes_in_p():
    # GED vs p: Gaussian slope in [-0.7, -0.35] (paper -0.47..-0.54), Laplace in
    # [-0.15, 0.15] and above Gaussian everywhere. Reduced sizes in CI.
    ps = [100, 200, 400] if suite_size(0, 1) == 0 else [500, 1000, 2000, 4000]
    reps = suite_size(ci=2, full=10)
    ms = (1, 5)
    means = {}
    for p in ps:
        outs = [ged_replication({"n": p, "ms": ms, "epsilons": (0.75,), "n_noise": 20},
                                np.random.default_rng(1000 * p + k)) for k in range(reps)]
        for key in outs[0]:
            means[(key, p)] = np.mean([o[key] for o in outs])
    for m in ms:
        g = [means[(f"ged_gaussian_m{m}_eps0.75", p)] for p in ps]
        lap = [means[(f"ged_laplace_l2_m{m}_eps0.75", p)] for p in ps]
        assert -0.7 <= _slope(ps, g) <= -0.35, (m, g)
        assert -0.15 <= _slope(ps, lap) <= 0.15, (m, lap)
        assert all(a < b for a, b in zip(g, lap))


@pytest.mark.slow
def test_ged_in_m_and_epsilon():
    n = suite_size(ci=300, full=1255)
    reps = suite_size(ci=2, full=10)
    ms = (5, 10, 20, 40)
    eps = (0.25, 0.5, 0.75, 1.0, 2.0, 4.0)
    outs = [ged_replication({"n": n, "ms": ms, "epsilons": eps, "n_noise": 20},
                            np.random.default_rng(k)) for k in range(reps)]
    mean = {key: np.mean([o[key] for o in outs]) for key in outs[0]}
    g = [mean[f"ged_gaussian_m{m}_eps0.75"] for m in ms]
    lap = [mean[f"ged_laplace_l2_m{m}_eps0.75"] for m in ms]
    assert 1.0 <= _slope(ms, g) <= 1.7, g
    assert all(a < b for a, b in zip(g, lap))
    ge = [mean[f"ged_gaussian_m5_eps{e:g}"] for e in eps]
    le = [mean[f"ged_laplace_l2_m5_eps{e:g}"] for e in eps]
    assert spearmanr(eps, ge)[0] <= -0.8
    assert all(a < b for a, b in zip(ge, le))

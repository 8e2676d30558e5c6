"""HTE data generators: the stated truth, the candidates' MSEs, reproducibility, bad input."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.special import expit

from statlearn.datasets import make_hte_ihdp_like, make_hte_nie_wager, make_hte_reference


def test_reference_truth_and_candidate_mse():
    d = make_hte_reference(200_000, random_state=0)
    x1, x2 = d.X[:, 0], d.X[:, 1]
    np.testing.assert_allclose(d.propensity, expit(0.8 * x1 - 0.5 * x2))
    np.testing.assert_allclose(d.mu0, x2 + 0.5 * x1**2)
    np.testing.assert_allclose(d.tau, 1 + x1)
    # the stated MSEs: 4-SE normal bands (false alarm 6.3e-5 each)
    for name, mse in d.mse.items():
        sq = (d.candidates[name] - d.tau) ** 2
        assert abs(sq.mean() - mse) <= 4 * sq.std() / np.sqrt(sq.size), name
    # outcomes: Y - mu_A is standard normal noise
    res = d.y - np.where(d.treatment == 1, d.mu1, d.mu0)
    assert abs(res.std() - 1) < 0.01 and abs(res.mean()) < 0.01
    # treatment follows the propensity (4 SE)
    assert abs(np.mean(d.treatment - d.propensity)) < 4 * 0.5 / np.sqrt(d.treatment.size)


def test_reference_is_reproducible():
    a, b = make_hte_reference(50, random_state=3), make_hte_reference(50, random_state=3)
    np.testing.assert_array_equal(a.y, b.y)


@pytest.mark.parametrize("setup", ["A", "B", "C", "D"])
def test_nie_wager_truth(setup):
    d = make_hte_nie_wager(2000, setup, random_state=1)
    np.testing.assert_allclose(d.mu1 - d.mu0, d.tau, atol=1e-12)
    assert np.all((d.propensity > 0) & (d.propensity < 1))
    assert set(np.unique(d.treatment)) == {0, 1}
    if setup == "B":
        assert np.all(d.propensity == 0.5)


def test_ihdp_like_att_and_imbalance():
    d = make_hte_ihdp_like(100_000, random_state=2)
    # att = E[e tau] / E[e] = 4 by construction (population version, weights e)
    att = np.sum(d.propensity * d.tau) / np.sum(d.propensity)
    assert att == pytest.approx(4.0, abs=1e-8)
    assert 0.18 < d.treatment.mean() < 0.20
    lin = make_hte_ihdp_like(500, setting="A", random_state=0)
    np.testing.assert_allclose(lin.tau, 4.0)


@pytest.mark.parametrize("call,match", [
    (lambda: make_hte_reference(0), "n_samples"),
    (lambda: make_hte_reference(10, noise=-1), "noise"),
    (lambda: make_hte_nie_wager(10, "E"), "setup must be one of"),
    (lambda: make_hte_nie_wager(10, "A", n_features=4), "n_features"),
    (lambda: make_hte_ihdp_like(10), "n_samples"),
    (lambda: make_hte_ihdp_like(100, setting="C"), "setting must be one of"),
    (lambda: make_hte_ihdp_like(100, treated_fraction=1.0), "treated_fraction"),
])
def test_bad_input(call, match):
    with pytest.raises(ValueError, match=match):
        call()

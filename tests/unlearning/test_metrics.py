"""GED / UED estimators."""

from __future__ import annotations

import numpy as np
import pytest

from statlearn.testing import assert_normal_close
from statlearn.unlearning import ged, ued


def test_identical_models_have_zero_divergence():
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(100, 5)), rng.poisson(1.0, 100).astype(float)
    beta = rng.normal(size=5) * 0.1
    for loss in ("squared", "logistic", "poisson"):
        yl = (y > 0).astype(float) if loss == "logistic" else y  # 0/1 labels for logistic
        res = ged(beta, beta, X, yl, loss=loss)
        assert res.estimate == 0.0 and res.signed_estimate == 0.0


def test_squared_loss_signed_divergence_matches_closed_form():
    # l(y|z) = (y - z)^2 / 2 and beta_tilde = beta + b, b ~ N(0, s^2 I):
    # E_b[l(y|x^T beta_tilde) - l(y|x^T beta)] = s^2 ||x||^2 / 2, so the signed GED is
    # -s^2 mean ||x||^2 / 2 (ref minus unlearned). Normal check, false-alarm 1e-6.
    rng = np.random.default_rng(1)
    n, p, s, k = 400, 10, 0.3, 400
    X = rng.normal(size=(n, p)) / np.sqrt(p)
    beta = rng.normal(size=p)
    y = X @ beta + rng.normal(size=n)
    draws = beta + s * rng.normal(size=(k, p))
    res = ged(beta, draws, X, y, loss="squared")
    z = X @ beta
    per_point_signed = (0.5 * (y - z) ** 2)[:, None] - 0.5 * (y[:, None] - X @ draws.T) ** 2
    expected = -s**2 * np.mean(np.sum(X**2, axis=1)) / 2
    se = per_point_signed.std() / np.sqrt(n * k)
    assert_normal_close(res.signed_estimate, expected, 2 * se + 1e-12, label="signed GED")
    assert res.estimate >= abs(res.signed_estimate)
    assert res.n_points == n and res.n_draws == k
    lo, hi = res.confidence_interval(0.9)
    assert lo < res.estimate < hi


def test_ued_is_ged_on_removed_rows_and_intercepts():
    rng = np.random.default_rng(2)
    X, y = rng.normal(size=(7, 3)), rng.integers(0, 2, 7).astype(float)
    a, b = rng.normal(size=3), rng.normal(size=(4, 3))
    r1 = ued(a, b, X, y, loss="logistic", intercept_ref=0.2, intercept_unlearned=-0.1)
    r2 = ged(a, b, X, y, loss="logistic", intercept_ref=0.2, intercept_unlearned=-0.1)
    assert r1.kind == "UED" and r2.kind == "GED"
    assert r1.estimate == r2.estimate
    assert "UED" in str(r1.summary())
    assert r1.plot() is not None


@pytest.mark.parametrize("args, match", [
    ((np.zeros(3), np.zeros(4), np.zeros((5, 3)), np.zeros(5), "squared"), "coef_unlearned"),
    ((np.zeros((2, 3)), np.zeros(3), np.zeros((5, 3)), np.zeros(5), "squared"), "coef_ref"),
    ((np.zeros(3), np.zeros(3), np.zeros((5, 3)), np.zeros(4), "squared"), "same number"),
    ((np.zeros(3), np.zeros(3), np.zeros((5, 3)), np.zeros(5), "hinge"), "loss"),
    ((np.zeros(3), np.zeros(3), np.full((5, 3), np.nan), np.zeros(5), "squared"), "NaN"),
])
def test_bad_inputs(args, match):
    with pytest.raises(ValueError, match=match):
        ged(*args)

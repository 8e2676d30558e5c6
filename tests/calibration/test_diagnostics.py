"""Calibration diagnostics: hand-computed moments and ECE, interval coverage, bad input."""

from __future__ import annotations

import numpy as np
import pytest

from statlearn.calibration import (
    calibration_error,
    decision_calibration_error,
    expected_calibration_error,
    reliability_diagram,
    self_orthogonality_violation,
)
from statlearn.testing import assert_binomial_rate


def test_self_orthogonality_moments_by_hand():
    v = np.array([0.2, 0.4, 0.9])
    y = np.array([0.0, 1.0, 1.0])
    res = self_orthogonality_violation(v, y, intercept=True)
    # h = v: (0.2 * -0.2 + 0.4 * 0.6 + 0.9 * 0.1) / 3; h = 1: (-0.2 + 0.6 + 0.1) / 3
    np.testing.assert_allclose(res.estimate.ravel(), [0.29 / 3, 0.5 / 3])
    terms = v * (y - v)
    assert res.se[0, 0] == pytest.approx(terms.std(ddof=1) / np.sqrt(3))
    assert res.max_abs == pytest.approx(0.5 / 3)
    lo, hi = res.confidence_interval(0.9)
    assert np.all(lo < res.estimate) and np.all(res.estimate < hi)
    assert "moment" in str(res.summary())
    assert res.plot().get_ylabel() == "E[h(V)(Y - V)]"


def test_multiclass_labels_and_decision_moments():
    V = np.array([[0.7, 0.3], [0.2, 0.8], [0.6, 0.4]])
    labels = np.array([0, 1, 1])
    a = calibration_error(V, labels)
    b = calibration_error(V, np.eye(2)[labels])
    np.testing.assert_allclose(a.estimate, b.estimate)
    assert a.estimate.shape == (2, 2)
    # accuracy utility u(a, y) = y_a: regions {v0 >= v1} and {v1 > v0}
    dec = decision_calibration_error(V, labels, np.eye(2))
    # action 0 at rows 0 and 2: ((1-0.7) + (0-0.6)) / 3 and ((0-0.3) + (1-0.4)) / 3
    np.testing.assert_allclose(dec.estimate[0], [-0.1, 0.1])
    np.testing.assert_allclose(dec.estimate[1], [-0.2 / 3, 0.2 / 3])


def test_moment_interval_coverage_on_calibrated_data():
    """Y ~ Bernoulli(V) is calibrated, so each moment is 0 and the 80% interval covers it.

    R = 400 datasets of n = 200; acceptance region of Binomial(400, 0.8) at a
    two-sided false-alarm rate of 1e-6. Planted defects: se computed with n
    instead of sqrt(n) (coverage about 0) and without the 1/sqrt(n) (coverage 1):
    both fall outside the region (power about 1 each; checked once).
    """
    rng = np.random.default_rng(2024)
    hits = 0
    for _ in range(400):
        v = rng.uniform(size=200)
        y = rng.binomial(1, v).astype(float)
        lo, hi = self_orthogonality_violation(v, y).confidence_interval(0.8)
        hits += int(lo[0, 0] <= 0 <= hi[0, 0])
    assert_binomial_rate(hits, 400, 0.8, false_alarm=1e-6, label="moment CI coverage")


def test_ece_by_hand_and_reliability_table():
    res = expected_calibration_error([0.2, 0.2, 0.8, 0.8], [0, 1, 1, 1], n_bins=2,
                                     random_state=0)
    # bins [0, .5): confidence 0.2, outcome 0.5; [.5, 1]: 0.8 vs 1.0
    assert res.estimate == pytest.approx((2 * 0.3 + 2 * 0.2) / 4)
    np.testing.assert_allclose(res.table["count"], [2, 2])
    np.testing.assert_allclose(res.table["mean_outcome"], [0.5, 1.0])
    lo, hi = res.confidence_interval()
    assert 0 <= lo <= hi
    assert "ECE" in str(res.summary())
    # top-label: confidences 0.7 (right), 0.8 (right), 0.6 (wrong)
    top = expected_calibration_error([[0.7, 0.3], [0.2, 0.8], [0.6, 0.4]], [0, 1, 1],
                                     n_bins=1, random_state=0)
    assert top.kind == "top-label"
    assert top.estimate == pytest.approx(abs(2 / 3 - 0.7))


def test_ece_separates_calibrated_from_miscalibrated():
    rng = np.random.default_rng(7)
    v = rng.uniform(size=20000)
    y = rng.binomial(1, v)
    good = expected_calibration_error(v, y, random_state=0)
    bad = expected_calibration_error(v, rng.binomial(1, v**2), random_state=0)
    # E|v - v^2| over uniform v = 1/6; binned ECE of the calibrated one is noise only
    assert good.estimate < 0.02
    assert bad.estimate == pytest.approx(1 / 6, abs=0.02)
    q = expected_calibration_error(v, y, strategy="quantile", n_bins=5, random_state=0)
    np.testing.assert_allclose(q.table["count"], 4000, atol=2)
    ax = reliability_diagram(v, y)
    assert ax.get_ylabel() == "mean outcome"


@pytest.mark.parametrize("call, exc, match", [
    (lambda: calibration_error([0.2, 0.3], [0.1]), ValueError, "same number of rows"),
    (lambda: calibration_error([0.2], [0.1]), ValueError, "at least 2"),
    (lambda: calibration_error([0.2, 0.3], [0.1, 0.2], "full"), ValueError, "full"),
    (lambda: calibration_error([0.2, 0.3], [0.1, 0.2], "decision"), ValueError,
     "utility_matrix"),
    (lambda: calibration_error([[0.2, 0.8]] * 2, [0, 2]), ValueError, "class labels"),
    (lambda: expected_calibration_error([0.2, 1.3], [0, 1]), ValueError, "\\[0, 1\\]"),
    (lambda: expected_calibration_error([0.2, 0.3], [0, 1], n_bins=0), ValueError, "n_bins"),
    (lambda: expected_calibration_error([0.2, 0.3], [0, 1], strategy="x"), ValueError,
     "strategy"),
    (lambda: expected_calibration_error([0.2, np.nan], [0, 1]), ValueError, "NaN"),
])
def test_diagnostics_bad_input(call, exc, match):
    with pytest.raises(exc, match=match):
        call()

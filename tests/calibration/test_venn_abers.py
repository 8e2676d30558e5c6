"""Inductive Venn-Abers calibration: the isotonic fits by hand and by brute force, the
pair's order, the estimator, and agreement with MAPIE's implementation."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from sklearn.isotonic import IsotonicRegression

from statlearn.calibration import VennAbersCalibrator, venn_abers
from tests.helpers import raises


def test_venn_abers_by_hand():
    # calibration (0.1, 0), (0.2, 1), (0.3, 0); test score 0.25:
    # label 0: 0, 1, 0, 0 -> PAVA pools the last three: 1/3; label 1: 0, 1, 1, 0 -> 2/3
    # test score 0.05 (below all): label 0 -> 0; label 1: 1, 0, 1, 0 -> pools to 1/2
    # test score 0.2 (tied with a calibration point): pooled with it, as 0.25 above
    got = venn_abers([0.1, 0.2, 0.3], [0, 1, 0], [0.25, 0.05, 0.2])
    np.testing.assert_allclose(got, [[1 / 3, 2 / 3], [0.0, 0.5], [1 / 3, 2 / 3]], rtol=1e-15)


@settings(max_examples=40, deadline=None)
@given(cal=arrays(np.float64, st.integers(1, 25), elements=st.sampled_from(
           [0.0, 0.1, 0.2, 0.35, 0.5, 0.8, 1.0])),
       seed=st.integers(0, 2**16),
       test=arrays(np.float64, st.integers(1, 6), elements=st.sampled_from(
           [0.0, 0.05, 0.1, 0.3, 0.5, 0.9, 1.0])))
def test_venn_abers_equals_isotonic_regression_with_the_test_point(cal, seed, test):
    # brute force: scikit-learn's IsotonicRegression on calibration + (s, label), read at s
    # (tied scores pooled by both); rtol 1e-12: block means summed in other orders
    y = np.random.default_rng(seed).integers(0, 2, cal.size)
    got = venn_abers(cal, y, test)
    for i, s in enumerate(test):
        for label in (0, 1):
            ir = IsotonicRegression().fit(np.r_[cal, s], np.r_[y, label])
            np.testing.assert_allclose(got[i, label], ir.predict([s])[0], rtol=1e-12,
                                       atol=1e-15)
    assert (got[:, 0] <= got[:, 1] + 1e-15).all()  # adding a 1 never lowers the fit


def test_the_true_label_member_is_calibrated_in_the_large():
    """Vovk & Petej 2014: the member p_Y of the pair for the true label is the isotonic fit
    at the test point of n + 1 exchangeable points; PAVA keeps the sum of the fits equal
    to the sum of the labels, so by exchangeability E[Y - p_Y] = 0 exactly. Scores
    U ~ Unif(0, 1) of a miscalibrated model, Y ~ Bernoulli(U^4), n = 10 calibration
    points; the mean of Y - p_Y over the replications within z = 5.33 standard errors
    (two-sided normal bound, false alarm 1e-7).

    At this seed the mean is 0.0010 (standard error 0.0056). Power: with the labels of the
    two fits swapped (p0 fitted with the point labelled 1), the mean is -0.151, 10
    standard errors off at 1200 replications; planted once, this test failed.
    """
    import os

    reps = 30000 if os.environ.get("STATLEARN_SLOW", "0") not in ("", "0") else 1200
    rng = np.random.default_rng(2014)
    d = np.empty(reps)
    for r in range(reps):
        u = rng.random(11)
        y = (rng.random(11) < u ** 4).astype(int)
        pair = venn_abers(u[:10], y[:10], u[10:])
        d[r] = y[10] - pair[0, y[10]]
    se = d.std(ddof=1) / np.sqrt(reps)
    assert abs(d.mean()) <= 5.33 * se, (d.mean(), se)


def test_venn_abers_rejects_bad_input():
    raises(lambda: venn_abers([0.1, 0.2], [0, 2], [0.3]), ValueError, names="cal_labels",
           shows="2")
    raises(lambda: venn_abers([0.1, 0.2], [0, 1, 1], [0.3]), ValueError,
           names=("cal_scores", "cal_labels"))
    raises(lambda: venn_abers([0.1, np.nan], [0, 1], [0.3]), ValueError, names="cal_scores")
    raises(lambda: venn_abers([0.1, 0.2], [0, 1], [[0.3]]), ValueError, names="test_scores")


def test_calibrator_merges_the_pair():
    from sklearn.datasets import make_classification

    X, y = make_classification(800, random_state=3)
    va = VennAbersCalibrator(random_state=0).fit(X[:500], y[:500])
    pair = va.predict_p0p1(X[500:])
    proba = va.predict_proba(X[500:])
    merged = pair[:, 1] / (1 - pair[:, 0] + pair[:, 1])
    np.testing.assert_allclose(proba[:, 1], merged, rtol=1e-15)
    assert ((pair[:, 0] <= proba[:, 1]) & (proba[:, 1] <= pair[:, 1])).all()
    np.testing.assert_array_equal(va.predict(X[500:]), va.classes_[proba.argmax(axis=1)])
    # prefit on the same calibration rows gives venn_abers of the model's scores
    pre = VennAbersCalibrator(va.estimator_, prefit=True).fit(X[500:650], y[500:650])
    s = va.estimator_.predict_proba(X[650:])[:, 1]
    np.testing.assert_array_equal(
        pre.predict_p0p1(X[650:]),
        venn_abers(va.estimator_.predict_proba(X[500:650])[:, 1], y[500:650], s))


def test_calibrator_rejects_bad_input():
    X = np.random.default_rng(0).normal(size=(30, 2))
    raises(lambda: VennAbersCalibrator().fit(X, np.arange(30) % 3), ValueError, names="y")
    raises(lambda: VennAbersCalibrator(prefit=True).fit(X, np.arange(30) % 2), ValueError,
           names="estimator")
    raises(lambda: VennAbersCalibrator(calib_size=1.5).fit(X, np.arange(30) % 2), ValueError,
           names="calib_size", shows="1.5")


def test_agrees_with_mapie():
    mapie_va = pytest.importorskip("mapie._venn_abers")
    rng = np.random.default_rng(1)
    for decimals in (None, 1, 2):  # continuous scores and tied ones
        s = rng.random(300)
        y = (rng.random(300) < s).astype(int)
        t = rng.random(200)
        if decimals is not None:
            s, t = np.round(s, decimals), np.round(t, decimals)
        ours = venn_abers(s, y, t)
        va = mapie_va.VennAbers()
        with np.errstate(invalid="ignore", divide="ignore"):
            va.fit(np.column_stack([1 - s, s]), y)
            p_prime, p0p1 = va.predict_proba(np.column_stack([1 - t, t]))
        # rtol 1e-8: block means (ours) against MAPIE's cumulative-sum diagram slopes
        np.testing.assert_allclose(ours, p0p1, rtol=1e-8, atol=1e-12)
        np.testing.assert_allclose(ours[:, 1] / (1 - ours[:, 0] + ours[:, 1]), p_prime[:, 1],
                                   rtol=1e-8)

"""Monte Carlo guarantees: split-conformal coverage and SOCOP's efficiency trade-off.

Coverage: ``E[coverage] = k / (n + 1) >= 1 - alpha`` for exchangeable data
(Vovk, Gammerman & Shafer 2005), the guarantee every score here inherits, SOCOP
included (Wang, Sun & Dobriban 2025). Trade-off: SOCOP lowers ``P(size > 1)``
at the cost of mean size against LAC, the size-optimal score for the true
probabilities (the paper's objective ``P(|C(X)| > 1) + lam E|C(X)|``; the
data-generating process is ours, the paper's experiments use real data).

Each replication draws a fresh calibration set of size ``n`` and ``m = 500``
test points from a multinomial-logit model, scored with a deliberately
misspecified probability model. The threshold comes from the library
(:func:`conformal_quantile`, :func:`thresholds_from_scores`, the estimator);
the expected coverage is written here independently: with continuous scores
the mean coverage over replications is exactly ``k / (n + 1)``,
``k = ceil((n + 1)(1 - alpha))`` computed in exact rational arithmetic. The
tests compare it with a two-sided normal bound at 4 standard errors
(false-alarm rate 2 * Phi(-4) = 6.3e-5 per check).

Power against the defect they guard: an off-by-one rank (``k - 1`` or
``k + 1``) moves the mean coverage by ``1 / (n + 1)``; the sizes below make that
shift many standard errors (stated per test), and the defect was planted in
:func:`conformal_rank` and seen to fail every coverage test here.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from statlearn.conformal import (
    SplitConformalClassifier,
    aps_scores,
    conformal_quantile,
    lac_scores,
    raps_scores,
    smoothed_pvalues,
    socop_scores,
    socop_sets,
    thresholds_from_scores,
    topk_scores,
)
from statlearn.datasets import make_softmax_classification
from statlearn.testing import assert_mean_close, suite_size

FOUR_SE = float(2 * stats.norm.sf(4.0))  # two-sided false-alarm rate of a 4-SE band
M_TEST = 500


def _softmax(z):
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


def _draws(R, n, K=10, seed=0):
    """``R`` replications of (n calibration + M_TEST test) rows: model probabilities, labels."""
    rng = np.random.default_rng(seed)
    W = rng.standard_normal((5, K))
    W_hat = W + 0.5 * rng.standard_normal((5, K))
    X, y = make_softmax_classification(R * (n + M_TEST), K, 5, scale=2.0, coef=W,
                                       random_state=rng)
    return _softmax(1.5 * X @ W_hat), y, rng


def _rank(n, alpha):
    """``ceil((n + 1)(1 - alpha))`` in exact arithmetic (``alpha`` read as a decimal)."""
    return math.ceil((n + 1) * (1 - Fraction(str(alpha))))


def _coverage_per_rep(scores, R, n, alpha):
    """Per replication: the library's threshold on the first n, coverage of the rest."""
    s = scores.reshape(R, n + M_TEST)
    q = np.array([conformal_quantile(s[r, :n], alpha) for r in range(R)])
    return np.mean(s[:, n:] <= q[:, None], axis=1), _rank(n, alpha) / (n + 1)


SCORES = {
    "socop": lambda p, y, rng: socop_scores(p, 0.1, labels=y),
    "socop-k0=2": lambda p, y, rng: socop_scores(p, 0.05, k0=2, labels=y),
    "lac": lambda p, y, rng: lac_scores(p, y),
    "aps": lambda p, y, rng: aps_scores(p, y, random_state=rng),
    "raps": lambda p, y, rng: raps_scores(p, y, lam_reg=0.1, k_reg=2, random_state=rng),
}


@pytest.mark.parametrize("n, alpha", [(99, 0.1), (100, 0.1), (50, 0.05), (200, 0.2)])
def test_coverage_equals_k_over_n_plus_1(n, alpha):
    # n = 99: k/(n+1) = 0.9 exactly; n = 100: 91/101 = 0.90099.
    # Power: the per-replication sd of the coverage is about sqrt(c(1-c)(1/(n+2) + 1/m))
    # (0.033 at n = 99), so SE = 0.00073 at R = 2000 and an off-by-one rank (shift
    # 1/(n+1) = 0.010) is 13.7 SE away: it fails with probability > 1 - 1e-20 against a
    # false-alarm rate of 6.3e-5 per check (n = 50: 31 SE; n = 200, alpha = 0.2: shift
    # 0.0050 = 6.7 SE, power 0.996). Planted k + 1 and k - 1: every case failed.
    assert [_rank(99, 0.1), _rank(100, 0.1), _rank(50, 0.05), _rank(200, 0.2)] == \
        [90, 91, 49, 161]
    R = 2000
    p, y, rng = _draws(R, n, seed=n)
    for name, score in SCORES.items():
        cov, target = _coverage_per_rep(score(p, y, rng), R, n, alpha)
        assert target >= 1 - alpha
        assert_mean_close(cov, target, false_alarm=FOUR_SE, label=f"{name} coverage")
        # never systematically below 1 - alpha (one-sided)
        assert_mean_close(cov, 1 - alpha, false_alarm=FOUR_SE, alternative="less",
                          label=f"{name} coverage >= 1 - alpha")


@pytest.mark.parametrize("name, score", [
    ("topk", lambda p, y: topk_scores(p, y)),
    ("socop lam=0", lambda p, y: socop_scores(p, 0.0, labels=y)),
])
def test_tied_scores_cover_at_least_and_smoothing_makes_it_exact(name, score):
    # with tied scores the upper bound 1 - alpha + 1/(n+1) fails and the lower one holds;
    # the smoothed p-values (randomized=True) give exactly 1 - alpha.
    R, n, alpha = 2000, 99, 0.1
    p, y, rng = _draws(R, n, seed=7)
    s = score(p, y).reshape(R, n + M_TEST)
    cov, _ = _coverage_per_rep(s.ravel(), R, n, alpha)
    # smoothed p-values: E[coverage] = 1 - alpha exactly; a p-value with "+ U" dropped
    # from the tie term, or n in place of n + 1, moves it by about 1/(n+1) = 0.01 = 14 SE
    assert_mean_close(cov, 1 - alpha, false_alarm=FOUR_SE, alternative="less",
                      label=f"{name} coverage")
    smooth = np.array([np.mean(smoothed_pvalues(s[r, n:], s[r, :n], rng.random(M_TEST))
                               > alpha) for r in range(R)])
    assert_mean_close(smooth, 1 - alpha, false_alarm=FOUR_SE,
                      label=f"{name} smoothed coverage")


def test_class_conditional_coverage_with_mondrian():
    R, n, alpha, K = 1000, 300, 0.1, 5
    p, y, rng = _draws(R, n, K=K, seed=3)
    s = socop_scores(p, 0.1, labels=y).reshape(R, n + M_TEST)
    yy = y.reshape(R, n + M_TEST)
    per_class = [[] for _ in range(K)]
    expected = [[] for _ in range(K)]
    for r in range(R):
        q = thresholds_from_scores(s[r, :n], yy[r, :n], alpha, K, mondrian=True)
        counts = np.bincount(yy[r, :n], minlength=K)
        for k in range(K):
            test = s[r, n:][yy[r, n:] == k]
            if test.size == 0:
                continue
            per_class[k].append(np.mean(test <= q[k]))
            # given the class count n_k the class-k coverage has mean k_k / (n_k + 1)
            expected[k].append(min(1.0, _rank(int(counts[k]), alpha) / (counts[k] + 1)))
    for k in range(K):
        # two-sided against the exact conditional mean, Bonferroni over the K classes.
        # Power: n_k is about 60, so an off-by-one rank shifts the class coverage by
        # about 1/61 = 0.016, which is about 18 SE at R = 1000 (sd per replication 0.05)
        assert_mean_close(np.subtract(per_class[k], expected[k]), 0.0,
                          false_alarm=FOUR_SE / K, label=f"class {k} coverage")
        assert_mean_close(per_class[k], 1 - alpha, false_alarm=FOUR_SE / K,
                          alternative="less", label=f"class {k} coverage >= 1 - alpha")


@pytest.mark.slow
@pytest.mark.parametrize("score", ["socop", "raps"])
def test_classifier_end_to_end_coverage(score):
    """Prefit model through the estimator; RAPS chooses k_reg and lambda on a tuning split.

    n = 24 rows per replication. SOCOP (lam = 0.1) calibrates on all 24: k = 23,
    expected coverage 23/25 = 0.92. RAPS (randomised, continuous scores) tunes on
    5 and calibrates on 19: k = 18, expected coverage 18/20 = 0.9. Power: the sd
    per replication is about 0.06, so SE = 0.0035 at the CI size R = 300 and an
    off-by-one rank (shift 1/25 = 0.04 or 1/20 = 0.05, 11-14 SE) fails with
    probability > 1 - 1e-15; false-alarm rate 6.3e-5.
    """
    from sklearn.linear_model import LogisticRegression

    R, n, alpha = suite_size(ci=300, full=3000), 24, 0.1
    X, y = make_softmax_classification(2000 + R * (n + M_TEST), 8, 5, random_state=1)
    model = LogisticRegression(C=0.05).fit(X[:2000], y[:2000])
    cov = []
    for r in range(R):
        lo = 2000 + r * (n + M_TEST)
        clf = SplitConformalClassifier(model, prefit=True, alpha=alpha, conformity_score=score,
                                       lam=0.1 if score == "socop" else "auto",
                                       randomized_score=True,
                                       random_state=r)
        clf.fit(X[lo:lo + n], y[lo:lo + n])
        cov.append(clf.evaluate(X[lo + n:lo + n + M_TEST], y[lo + n:lo + n + M_TEST]).coverage)
    n_cal = clf.n_calib_
    assert n_cal == (24 if score == "socop" else 19)
    assert_mean_close(cov, _rank(n_cal, alpha) / (n_cal + 1), false_alarm=FOUR_SE,
                      label="end-to-end coverage")


@settings(max_examples=60)
@given(st.lists(st.floats(-1e6, 1e6, allow_nan=False), min_size=1, max_size=60, unique=True),
       st.sampled_from([0.01, 0.05, 0.1, 0.2, 0.3, 0.5, 0.9]))
def test_leave_one_out_covers_exactly_k(scores, alpha):
    """For n + 1 distinct scores, each one in turn the test point calibrated on the other
    n, the number covered is exactly ceil((n + 1)(1 - alpha)) (all n + 1 when that
    exceeds n). An off-by-one rank changes the count by one: it fails deterministically."""
    s = np.array(scores)
    n = s.size - 1
    if n == 0:
        return
    covered = sum(s[i] <= conformal_quantile(np.delete(s, i), alpha) for i in range(n + 1))
    k = _rank(n, alpha)
    assert covered == (k if k <= n else n + 1)


@pytest.mark.slow
@pytest.mark.parametrize("lam", [0.02, 0.1])
def test_efficiency_tradeoff_against_lac(lam):
    """Oracle probabilities: LAC has the smaller mean size, SOCOP the fewer non-singletons."""
    R, n, m, alpha = suite_size(ci=30, full=200), 2000, 3000, 0.05
    rng = np.random.default_rng(17)
    W = rng.standard_normal((5, 10))
    d_size, d_non_single = [], []
    for _ in range(R):
        _, y, p = make_softmax_classification(n + m, 10, 5, scale=2.0, coef=W,
                                              return_proba=True, random_state=rng)
        cal, test = slice(0, n), slice(n, None)
        q_soc = conformal_quantile(socop_scores(p[cal], lam, labels=y[cal]), alpha)
        q_lac = conformal_quantile(lac_scores(p[cal], y[cal]), alpha)
        size_soc = socop_sets(p[test], lam, q_soc).sum(axis=1)
        size_lac = (lac_scores(p[test]) <= q_lac).sum(axis=1)
        d_size.append(size_soc.mean() - size_lac.mean())
        d_non_single.append(np.mean(size_lac > 1) - np.mean(size_soc > 1))
    # each difference must not be significantly negative (one-sided, 4 SE)
    assert_mean_close(d_size, 0.0, false_alarm=FOUR_SE / 2, alternative="less",
                      label="mean size SOCOP - LAC")
    assert_mean_close(d_non_single, 0.0, false_alarm=FOUR_SE / 2, alternative="less",
                      label="P(size>1) LAC - SOCOP")
    # and the trade-off is real, not a tie: SOCOP lowers the non-singleton rate
    assert np.mean(d_non_single) > 0 and np.mean(d_size) > 0

"""Monte Carlo guarantees: coverage (spec 1.8.4) and the efficiency trade-off (spec 1.8.5).

Each replication draws a fresh calibration set of size ``n`` and ``m = 500``
test points from a multinomial-logit model, scored with a deliberately
misspecified probability model. With continuous scores the mean coverage over
replications is exactly ``k / (n + 1)``, ``k = ceil((n + 1)(1 - alpha))``;
the tests compare it with a two-sided normal bound at 4 standard errors
(false-alarm rate 2 * Phi(-4) = 6.3e-5 per check).
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from statlearn.conformal import (
    SplitConformalClassifier,
    aps_scores,
    conformal_rank,
    lac_scores,
    raps_scores,
    smoothed_pvalues,
    socop_scores,
    socop_sets,
    topk_scores,
)
from statlearn.datasets import make_softmax_classification
from statlearn.utils._testing import assert_mean_close, mc_size

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


def _coverage_per_rep(scores, R, n, alpha):
    s = scores.reshape(R, n + M_TEST)
    k = conformal_rank(n, alpha)
    q = np.sort(s[:, :n], axis=1)[:, k - 1] if k <= n else np.full(R, np.inf)
    return np.mean(s[:, n:] <= q[:, None], axis=1), k / (n + 1)


SCORES = {
    "socop": lambda p, y, rng: socop_scores(p, 0.1, labels=y),
    "socop-k0=2": lambda p, y, rng: socop_scores(p, 0.05, k0=2, labels=y),
    "lac": lambda p, y, rng: lac_scores(p, y),
    "aps": lambda p, y, rng: aps_scores(p, y, rng=rng),
    "raps": lambda p, y, rng: raps_scores(p, y, lam_reg=0.1, k_reg=2, rng=rng),
}


@pytest.mark.parametrize("n, alpha", [(99, 0.1), (100, 0.1), (50, 0.05), (200, 0.2)])
def test_coverage_equals_k_over_n_plus_1(n, alpha):
    # n = 99: k/(n+1) = 0.9 exactly; n = 100: 91/101 = 0.90099 (spec 1.8.4)
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
    # spec 1.6: with ties the upper bound fails, the lower one holds; the
    # smoothed p-values (randomized=True) give exactly 1 - alpha.
    R, n, alpha = 2000, 99, 0.1
    p, y, rng = _draws(R, n, seed=7)
    s = score(p, y).reshape(R, n + M_TEST)
    cov, _ = _coverage_per_rep(s.ravel(), R, n, alpha)
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
    for r in range(R):
        for k in range(K):
            cal = s[r, :n][yy[r, :n] == k]
            test = s[r, n:][yy[r, n:] == k]
            if test.size == 0:
                continue
            kk = conformal_rank(max(cal.size, 1), alpha)
            q = np.inf if kk > cal.size else np.sort(cal)[kk - 1]
            per_class[k].append(np.mean(test <= q))
    for k in range(K):
        # one-sided, Bonferroni over the K classes
        assert_mean_close(per_class[k], 1 - alpha, false_alarm=FOUR_SE / K,
                          alternative="less", label=f"class {k} coverage")


@pytest.mark.slow
def test_classifier_end_to_end_coverage():
    """Prefit model, lam chosen on the tuning split, calibration on the rest."""
    from sklearn.linear_model import LogisticRegression

    R, n, alpha = mc_size(ci=150, full=1500), 200, 0.1
    X, y = make_softmax_classification(2000 + R * (n + M_TEST), 8, 5, random_state=1)
    model = LogisticRegression(C=0.05).fit(X[:2000], y[:2000])
    cov = []
    for r in range(R):
        lo = 2000 + r * (n + M_TEST)
        clf = SplitConformalClassifier(model, prefit=True, alpha=alpha, random_state=r)
        clf.fit(X[lo:lo + n], y[lo:lo + n])
        cov.append(clf.evaluate(X[lo + n:lo + n + M_TEST], y[lo + n:lo + n + M_TEST]).coverage)
    n_cal = n - int(round(0.2 * n))
    assert_mean_close(cov, conformal_rank(n_cal, alpha) / (n_cal + 1), false_alarm=FOUR_SE,
                      label="end-to-end coverage")


@pytest.mark.slow
@pytest.mark.parametrize("lam", [0.02, 0.1])
def test_efficiency_tradeoff_against_lac(lam):
    """Oracle probabilities: LAC has the smaller mean size, SOCOP the fewer non-singletons."""
    R, n, m, alpha = mc_size(ci=30, full=200), 2000, 3000, 0.05
    rng = np.random.default_rng(17)
    W = rng.standard_normal((5, 10))
    d_size, d_non_single = [], []
    for _ in range(R):
        _, y, p = make_softmax_classification(n + m, 10, 5, scale=2.0, coef=W,
                                              return_proba=True, random_state=rng)
        cal, test = slice(0, n), slice(n, None)
        q_soc = np.sort(socop_scores(p[cal], lam, labels=y[cal]))[conformal_rank(n, alpha) - 1]
        q_lac = np.sort(lac_scores(p[cal], y[cal]))[conformal_rank(n, alpha) - 1]
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

"""Monte Carlo guarantees of the plug-in (Gao, 2025) relative-error estimator.

Double robustness of the point estimate, coverage of the Wald interval when both
nuisances are consistent, calibration under the null, unbiasedness with the true
nuisances. Reference design (ours): ``X ~ N(0, I_4)``,
``e = sigmoid(0.8 x1 - 0.5 x2)``, ``mu0 = x2 + 0.5 x1^2``, ``tau = 1 + x1``.
Pair P1 = (const 1, 1 + x1 + 0.5 x3) has ``delta = 1 - 0.25 = 0.75``; pair
P0 = (1 + 0.5 x1, 1 + x1 + 0.5 x3) has ``delta = 0.25 - 0.25 = 0``
(computed by hand: ``E[(0.5 x1)^2] = 0.25``, ``E[(0.5 x3)^2] = 0.25``,
``E[x1^2] = 1``).

Each replication fits the nuisances once and evaluates both pairs. Every
assertion states its false-alarm rate; the planted defects named below were
put into the code once, the tests were seen to fail, and the defects were
removed (power written next to each test).
"""

from __future__ import annotations

import functools

import numpy as np
import pytest
from scipy import stats
from sklearn.linear_model import LinearRegression, LogisticRegression
from sklearn.neighbors import KNeighborsRegressor
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import FunctionTransformer

from statlearn.datasets import make_hte_reference
from statlearn.hte import RelativeErrorEvaluator, relative_error_from_nuisances
from statlearn.testing import binomial_acceptance_region, suite_size

DELTA_P1, DELTA_P0 = 0.75, 0.0
Z4 = 4.0  # 4 Monte Carlo standard errors: two-sided false-alarm rate 6.3e-5 under normality


def _with_square(X):
    return np.column_stack([X, X[:, 0] ** 2])


def _only_x3_x4(X):
    return X[:, 2:4]


def _models(case):
    e_ok = LogisticRegression(C=1e4)
    e_bad = make_pipeline(FunctionTransformer(_only_x3_x4), LogisticRegression(C=1e4))
    mu_ok = make_pipeline(FunctionTransformer(_with_square), LinearRegression())
    mu_bad = LinearRegression()
    return {"both ok": (e_ok, mu_ok), "e ok, mu wrong": (e_ok, mu_bad),
            "e wrong, mu ok": (e_bad, mu_ok), "both wrong": (e_bad, mu_bad)}[case]


@functools.cache
def _replicate(case, reps, n=2000):
    """Per replication: (delta, lo, hi) of P1 and of P0, from one nuisance fit."""
    e_model, mu_model = _models(case)
    out = np.empty((reps, 2, 3))
    for r in range(reps):
        d = make_hte_reference(n, random_state=10_000 + r)
        ev = RelativeErrorEvaluator(propensity_model=e_model, outcome_model=mu_model)
        tab = ev.compare(d.X, d.treatment, d.y, d.candidates).table.set_index(
            ["first", "second"])
        for k, pair in enumerate([("const", "noisy"), ("half", "noisy")]):
            row = tab.loc[pair]
            out[r, k] = row["delta"], row["ci_low"], row["ci_high"]
    return out


REPS = suite_size(250, 2000)


# ---------------------------------------------------------------- double robustness
@pytest.mark.parametrize("case", ["both ok", "e ok, mu wrong", "e wrong, mu ok"])
def test_double_robustness_of_the_point_estimate(case):
    """Mean of delta_hat on P1 within 4 MC standard errors of 0.75 when one model is right.

    False alarm 6.3e-5 per case (normal approximation). Planted defect: the
    correction term of the DR pseudo-outcome with the wrong sign; the case
    "e ok, mu wrong" then has mean 3.48, about 117 MC standard errors away:
    it failed (power ~1). The other two cases do not see this defect (the
    correction has mean zero when mu is right), so it is guarded here.
    """
    d = _replicate(case, REPS)[:, 0, 0]
    mcse = d.std(ddof=1) / np.sqrt(d.size)
    assert abs(d.mean() - DELTA_P1) <= Z4 * mcse, (case, d.mean(), mcse)


def test_both_wrong_is_biased():
    """With both models wrong the mean is far from 0.75 (population limit about 2.12)."""
    d = _replicate("both wrong", 50)[:, 0, 0]
    mcse = d.std(ddof=1) / np.sqrt(d.size)
    assert d.mean() - DELTA_P1 > Z4 * mcse
    assert 1.8 < d.mean() < 2.4


# ---------------------------------------------------------------- interval coverage
def _coverage(case, k, truth):
    rep = _replicate(case, REPS)[:, k]
    return int(np.sum((rep[:, 1] <= truth) & (truth <= rep[:, 2])))


@pytest.mark.parametrize("case", ["both ok", "e ok, mu wrong"])
def test_ci_coverage_where_valid(case):
    """90% CI covers 0.75 at a rate inside the binomial region of p = 0.9.

    Two-sided false alarm 1e-3 per case; the region is [0.84, 0.96] at the CI
    size (250 replications) and [0.87, 0.93] at the full size (2000).
    Planted defects in the pairwise table's se: divided by sqrt(2) gave
    coverage 0.72 and 0.78 (failed, power ~1); multiplied by sqrt(2) gave 0.968
    and 0.964 against the upper end 0.956 (failed; power about 0.8 at this
    size, ~1 at the full size). The oracle test below guards the se of the
    single-pair path with power ~1 both ways.
    """
    lo, hi = binomial_acceptance_region(REPS, 0.9, 1e-3)
    k = _coverage(case, 0, DELTA_P1)
    assert lo <= k <= hi, (case, k / REPS, lo / REPS, hi / REPS)


def test_coverage_reported_where_the_ci_under_covers(record_property):
    """e wrong, mu right: the variance ignores the outcome-model estimation.

    Measured, not asserted into the nominal band: our earlier runs gave 0.83; at
    the CI size (250 replications) we measured 0.82. Only asserted to be no
    better than nominal by more than chance (1e-3).
    """
    k = _coverage("e wrong, mu ok", 0, DELTA_P1)
    record_property("coverage_e_wrong_mu_ok", k / REPS)
    _, hi = binomial_acceptance_region(REPS, 0.9, 1e-3)
    assert k <= hi


def test_both_wrong_coverage_near_zero():
    rep = _replicate("both wrong", 50)[:, 0]
    k = int(np.sum((rep[:, 1] <= DELTA_P1) & (DELTA_P1 <= rep[:, 2])))
    assert k <= 5  # measured 0 of 50


# ---------------------------------------------------------------- null calibration
@pytest.mark.parametrize("case,bound", [("both ok", 0.10), ("e ok, mu wrong", 0.10),
                                        ("e wrong, mu ok", 0.15)])
def test_null_calibration(case, bound):
    """Two-sided rejection rate of delta = 0 on P0 at most the binomial bound.

    Nominal 0.10 when e is right; 0.15 when e is wrong (our earlier runs measured
    0.138-0.154). Measured at the CI size: 0.124 (both ok), 0.112 (e ok, mu
    wrong), 0.168 (e wrong, mu ok). One-sided false alarm 1e-3 per case (upper bound 0.16 at
    250 replications when the rate is 0.10; the 0.15 of our earlier runs at 400).
    """
    rep = _replicate(case, REPS)[:, 1]
    rejections = int(np.sum((rep[:, 1] > 0) | (rep[:, 2] < 0)))
    _, hi = binomial_acceptance_region(REPS, bound, 1e-3, alternative="greater")
    assert rejections <= hi, (case, rejections / REPS)


# ---------------------------------------------------- true nuisances and the se
def _oracle_draws(n, reps, seed):
    rng = np.random.default_rng(seed)
    res = np.empty((reps, 3))
    for r in range(reps):
        d = make_hte_reference(n, random_state=rng)
        t1, t2 = d.candidates["const"], d.candidates["noisy"]
        if d.treatment.min() == d.treatment.max():
            res[r] = np.nan
            continue
        out = relative_error_from_nuisances(t1, t2, d.treatment, d.y, d.mu0, d.mu1,
                                            d.propensity)
        res[r] = out.delta, *out.confidence_interval()
    return res[~np.isnan(res[:, 0])]


@pytest.mark.parametrize("n", [20, 100, 1000])
def test_oracle_nuisances_unbiased(n):
    """With the true e and mu the estimator is exactly unbiased at every n (4 MC se, 6.3e-5)."""
    d = _oracle_draws(n, 1000, seed=n)[:, 0]
    mcse = d.std(ddof=1) / np.sqrt(d.size)
    assert abs(d.mean() - DELTA_P1) <= Z4 * mcse, (n, d.mean(), mcse)


def test_standard_error_matches_the_spread():
    """Oracle nuisances, n = 500, 2000 replications: 90% coverage in the binomial region.

    Two-sided false alarm 1e-6. Planted defect: se off by a factor sqrt(2)
    moved the coverage to 0.979 (times) or 0.739 (divided), far outside the
    region [0.867, 0.933]: both failed (power ~1).
    """
    res = _oracle_draws(500, 2000, seed=7)
    k = int(np.sum((res[:, 1] <= DELTA_P1) & (DELTA_P1 <= res[:, 2])))
    lo, hi = binomial_acceptance_region(res.shape[0], 0.9, 1e-6)
    assert lo <= k <= hi, k / res.shape[0]
    # the half-width matches z_0.95 * (MC sd of delta_hat) within 10%
    ratio = np.mean(res[:, 2] - res[:, 1]) / 2 / stats.norm.ppf(0.95) / res[:, 0].std()
    assert 0.9 < ratio < 1.1, ratio


# ---------------------------------------------------------------- cross-fitting
def test_cross_fitting_never_uses_the_evaluation_fold():
    """Memorising outcome model (1-NN), correct propensity, 2-fold cross-fitting.

    Honest cross-fitting keeps the estimator doubly robust (e is right), so
    the 90% CI covers 0.75 (measured 0.89 at n = 1000). Planted defect:
    nuisances fitted on all units including the evaluation fold: the 1-NN
    fit then reproduces Y on its own arm, the correction vanishes and the
    coverage dropped to 0.49 against the bound 0.77: failed (power ~1). One-sided
    binomial bound for p = 0.9 at false alarm 1e-4.
    """
    reps = 100
    cover = 0
    for r in range(reps):
        d = make_hte_reference(1000, random_state=50_000 + r)
        ev = RelativeErrorEvaluator(propensity_model=LogisticRegression(C=1e4),
                                    outcome_model=KNeighborsRegressor(1), cross_fit=2,
                                    random_state=r)
        ev.fit(d.X, d.treatment, d.y, tau1=d.candidates["const"], tau2=d.candidates["noisy"])
        cover += ev.conf_int_.low <= DELTA_P1 <= ev.conf_int_.high
    lo, _ = binomial_acceptance_region(reps, 0.9, 1e-4, alternative="less")
    assert cover >= lo, cover / reps

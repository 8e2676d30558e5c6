"""The guarantee checks: exact regions, measured false-alarm rates, power, bad input.

False-alarm rates are measured by running a check many times on a correct setup
(at a raised ``false_alarm`` so that a rate can be seen at CI size) and bounding
the number of failures by a binomial tolerance at 1e-6; power is measured on the
planted defects of ``_planted.py`` at the sizes the docstrings document.

Measured here (seeds fixed):

* ``check_coverage(exact=True)``, n = 19, 20 test points, 50 replications,
  ``false_alarm=0.05``: the region leaves out an exact mass of 0.0426; 20 000
  runs of the pipeline simulated in one array fall outside it 832 times
  (4.2%); 300 full checks of a correct interval failed 19 times (6.3%, within
  the binomial noise of 300 runs); at
  the documented size (200 replications, 100 test points, ``false_alarm=1e-3``)
  the off-by-one rank (0.90 vs 0.85) fails 40 / 40 runs.
* ``check_coverage(exact=False)``, 100 replications, ``false_alarm=0.05``:
  0 / 300 false alarms on tied (rounded) scores; 1000 replications at 1e-3
  catch the off-by-one rank with continuous scores 20 / 20.
* ``check_fdr``, 100 replications, ``false_alarm=0.05``: 0 / 300 false alarms
  (cfBH's FDR is about 0.11 here, and the bound is distribution-free); 1000
  replications at 1e-3 catch the missing ``+ 1`` (FDR about 0.28 vs 0.2) 40 / 40.
* ``check_unlearning``, 5 replications, ``false_alarm=0.1``: 16 / 300 false
  alarms (5.3%; the noncentrality is a bound, so the check is conservative);
  at the documented 100 replications noise at 70% of the stated level fails
  10 / 10 runs. (Marked slow: a replication fits three GLMs.)
* ``check_regret_slope`` at the boundary null (expected regret exactly
  ``0.5 sqrt(t)``), 50 replications, ``false_alarm=0.05``: 11 / 300 false
  alarms (3.7%; normal approximation); a policy that never learns (slope 1)
  fails 3 / 3 runs of 50 replications against ``rate=0.5``.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from statlearn.testing import (
    GuaranteeCheck,
    check_coverage,
    check_fdr,
    check_regret_slope,
    check_unlearning,
    mc_size,
    suite_size,
)
from statlearn.testing._bounds import (
    betabinom_sum_pmf,
    betabinom_sum_region,
    bounded_mean_region,
    conformal_rank,
)
from tests.helpers import names_argument
from tests.testing._planted import (
    OracleScoreSelector,
    SplitAbs,
    UniformPolicy,
    klucb_regret,
    make_quiet_unlearner,
    make_unlearner,
    regression_data,
    selection_data,
    sqrt_regret,
    unlearning_data,
)

# ----------------------------------------------------------------- the regions, exactly


def test_conformal_rank_is_the_ceiling_in_exact_arithmetic():
    from fractions import Fraction

    for n in range(1, 60):
        for alpha in (0.05, 0.1, 0.2, 0.25, 0.5):
            want = math.ceil((n + 1) * (1 - Fraction(str(alpha))))
            assert conformal_rank(n, alpha) == want


def test_betabinom_sum_equals_direct_convolution():
    groups = {(3, 4, 2): 4, (5, 2, 3): 2}
    ref = np.array([1.0])
    for (m, a, b), c in groups.items():
        one = stats.betabinom.pmf(np.arange(m + 1), m, a, b)
        for _ in range(c):
            ref = np.convolve(ref, one)
    np.testing.assert_allclose(betabinom_sum_pmf(groups), ref, atol=1e-13)


@pytest.mark.parametrize("alternative", ["two-sided", "less", "greater"])
def test_betabinom_region_mass_outside_is_at_most_the_false_alarm(alternative):
    groups, fa = {(10, 18, 2): 30}, 0.01
    pmf = betabinom_sum_pmf(groups)
    lo, hi, _, _ = betabinom_sum_region(groups, fa, alternative)
    outside = pmf[:lo].sum() + pmf[hi + 1:].sum()
    assert outside <= fa * (1 + 1e-9)
    tail = fa / 2 if alternative == "two-sided" else fa
    # not wasteful: one more count on a guarded side would exceed the tail
    if alternative != "greater":
        assert pmf[:lo + 1].sum() > tail
    if alternative != "less":
        assert pmf[hi:].sum() > tail


@pytest.mark.parametrize("mu,alternative", [(0.1, "greater"), (0.2, "greater"),
                                            (0.9, "less")])
def test_bounded_mean_region_holds_for_the_worst_case_bernoulli(mu, alternative):
    """Bernoulli values are the extreme case of [0, 1] values with mean mu."""
    for n_reps in (20, 100, 1000):
        lo, hi = bounded_mean_region(n_reps, mu, 1e-3, alternative)
        if alternative == "greater":
            # P(mean > hi): counts strictly above n * hi
            p = stats.binom.sf(math.floor(n_reps * hi), n_reps, mu)
        else:
            p = stats.binom.cdf(math.ceil(n_reps * lo) - 1, n_reps, mu)
        assert p <= 1e-3


def test_mc_size_matches_the_normal_formula():
    z = stats.norm.isf(1e-3) + stats.norm.ppf(0.8)
    assert mc_size(0.05, rate=0.9) == math.ceil((z * 0.3 / 0.05) ** 2)
    z2 = stats.norm.isf(5e-4) + stats.norm.ppf(0.9)
    assert mc_size(0.01, sd=0.07, power=0.9, two_sided=True) == math.ceil((z2 * 7) ** 2)


# ----------------------------------------------------------------- check_coverage


def _failures(run, n_checks):
    return sum(not run(seed).passed for seed in range(n_checks))


def _tolerance(n_checks, rate):
    """Most failures in ``n_checks`` runs of a check failing with prob. <= rate (1e-6)."""
    return int(stats.binom.isf(1e-6, n_checks, rate))


def test_exact_coverage_false_alarm_rate():
    def run(seed):
        return check_coverage(lambda: SplitAbs(0.1), lambda rng: regression_data(rng, m=20),
                              alpha=0.1, n_reps=50, exact=True, false_alarm=0.05,
                              random_state=seed)

    fails = _failures(run, 300)
    assert fails <= _tolerance(300, 0.05), fails  # measured 19 / 300


def test_exact_region_rate_on_many_simulated_split_conformal_runs():
    """The region of 50 replications x 20 test points (n = 19) against 20 000 runs of the
    split-conformal pipeline simulated here in one array (|N(0, 1)| scores, rank 18)."""
    rng = np.random.default_rng(7)
    lo, hi, _, _ = betabinom_sum_region({(20, 18, 2): 50}, 0.05)
    n_runs = 20_000
    fails = 0
    for _ in range(4):  # in blocks, to bound memory
        y = np.abs(rng.normal(size=(n_runs // 4, 50, 39)))
        q = np.sort(y[..., :19], axis=-1)[..., 17]
        counts = (y[..., 19:] <= q[..., None]).sum(axis=(1, 2))
        fails += int(((counts < lo) | (counts > hi)).sum())
    assert fails <= _tolerance(n_runs, 0.05), fails  # measured 832 / 20 000 (4.2%)


def test_exact_coverage_power_against_an_off_by_one_rank():
    def run(seed):
        return check_coverage(lambda: SplitAbs(0.1, offset=-1), regression_data, alpha=0.1,
                              n_reps=200, exact=True, random_state=seed)

    # documented: power above 0.999 at 200 replications (0.90 vs 0.85)
    assert _failures(run, 40) >= 39  # measured 40 / 40
    res = run(0)
    assert res.guarantee == "coverage == 18/20"
    assert res.expected == pytest.approx(18 / 20, rel=1e-9)
    assert res.detectable_deviation < 0.05


def test_one_sided_coverage_false_alarm_with_ties():
    def run(seed):
        return check_coverage(lambda: SplitAbs(0.1),
                              lambda rng: regression_data(rng, discrete=True, m=20),
                              alpha=0.1, n_reps=100, false_alarm=0.05, random_state=seed)

    fails = _failures(run, 300)
    assert fails <= _tolerance(300, 0.05), fails  # measured 0 / 300


def test_one_sided_coverage_power_against_an_off_by_one_rank():
    def run(seed):
        return check_coverage(lambda: SplitAbs(0.1, offset=-1), regression_data, alpha=0.1,
                              n_reps=1000, random_state=seed)

    # documented: 1000 replications catch 0.85 against the bound 0.9 (power ~ 1)
    assert _failures(run, 20) >= 19  # measured 20 / 20


def test_the_check_does_not_flag_a_continuous_interval_as_one_sided_failure():
    res = check_coverage(lambda: SplitAbs(0.1), regression_data, alpha=0.1, n_reps=200,
                         random_state=0)
    assert res.passed and res.alternative == "less"
    assert res.acceptance_region.high == 1.0


def test_coverage_of_the_library_classifier_and_regressor():
    from sklearn.linear_model import LinearRegression

    from statlearn.conformal import SplitConformalClassifier, SplitConformalRegressor
    from statlearn.datasets import make_softmax_classification

    def cls_data(rng):
        X, y = make_softmax_classification(n_samples=90, n_classes=3,
                                           random_state=int(rng.integers(2**31)))[:2]
        return X[:60], y[:60], X[60:], y[60:]

    res = check_coverage(lambda s: SplitConformalClassifier(conformity_score="lac",
                                                            alpha=0.2, calib_size=0.5,
                                                            random_state=s),
                         cls_data, alpha=0.2, n_reps=40, exact=True, random_state=1)
    assert res.passed, res

    def reg_data(rng):
        X = rng.normal(size=(70, 2))
        y = X @ np.array([1.0, -1.0]) + rng.normal(size=70)
        return X[:40], y[:40], X[40:], y[40:]

    res = check_coverage(lambda s: SplitConformalRegressor(LinearRegression(), alpha=0.1,
                                                           calib_size=0.5, random_state=s),
                         reg_data, alpha=0.1, n_reps=40, exact=True, random_state=2)
    assert res.passed, res


def test_same_result_for_any_backend_and_random_state_type():
    kw = dict(alpha=0.1, n_reps=30, exact=True)
    ref = check_coverage(lambda: SplitAbs(0.1), regression_data, random_state=5, **kw)
    thr = check_coverage(lambda: SplitAbs(0.1), regression_data, random_state=5, n_jobs=2,
                         backend="threading", **kw)
    np.testing.assert_array_equal(ref.values, thr.values)
    a = check_coverage(lambda: SplitAbs(0.1), regression_data,
                       random_state=np.random.default_rng(3), **kw)
    b = check_coverage(lambda: SplitAbs(0.1), regression_data,
                       random_state=np.random.default_rng(3), **kw)
    np.testing.assert_array_equal(a.values, b.values)


def test_process_workers_give_the_same_result():
    """Lambdas reach loky workers (cloudpickle), and the streams do not depend on them."""
    kw = dict(alpha=0.1, n_reps=6, exact=True, random_state=3)
    ref = check_coverage(lambda: SplitAbs(0.1), lambda rng: regression_data(rng), **kw)
    par = check_coverage(lambda: SplitAbs(0.1), lambda rng: regression_data(rng), n_jobs=2,
                         backend="loky", **kw)
    np.testing.assert_array_equal(ref.values, par.values)


def test_result_object():
    res = check_coverage(lambda: SplitAbs(0.1, offset=-1), regression_data, alpha=0.1,
                         n_reps=200, exact=True, random_state=0)
    assert isinstance(res, GuaranteeCheck) and not res and not res.passed
    text = str(res.summary())
    assert "FAILED" in text and "coverage == 18/20" in text
    with pytest.raises(AssertionError, match="outside the acceptance region"):
        res.assert_passed()
    with pytest.raises(AttributeError):
        res.passed = True  # frozen
    ax = res.plot()
    assert ax.get_title().endswith("failed")
    assert "GuaranteeCheck(" in repr(res) and "shape=(200,)" in repr(res)


@pytest.mark.parametrize("kwargs,name", [
    ({"alpha": 1.5}, "alpha"), ({"n_reps": 1}, "n_reps"), ({"false_alarm": 0.7}, "false_alarm"),
    ({"exact": "yes"}, "exact"), ({"n_jobs": 0}, "n_jobs"), ({"backend": "mpi"}, "backend"),
    ({"covered": 3}, "covered"), ({"random_state": -1}, "random_state"),
    ({"progress": "no"}, "progress"),
])
def test_coverage_bad_input_names_the_argument(kwargs, name):
    args = {"alpha": 0.1, "n_reps": 10, **kwargs}
    with pytest.raises((ValueError, TypeError)) as info:
        check_coverage(lambda: SplitAbs(0.1), regression_data, **args)
    assert names_argument(info.value, name), str(info.value)


def test_coverage_bad_callables():
    with pytest.raises(TypeError, match="make_estimator"):
        check_coverage(3, regression_data, alpha=0.1, n_reps=10)
    with pytest.raises(TypeError, match="make_data"):
        check_coverage(lambda: SplitAbs(), lambda rng: (1, 2), alpha=0.1, n_reps=10)

    class NoN(SplitAbs):
        def fit(self, X, y):
            super().fit(X, y)
            del self.n_calib_
            return self

    with pytest.raises(ValueError, match="n_calib_"):
        check_coverage(lambda: NoN(), regression_data, alpha=0.1, n_reps=10, exact=True)


# ----------------------------------------------------------------- check_fdr


def test_fdr_false_alarm_rate():
    def run(seed):
        return check_fdr(lambda: OracleScoreSelector(0.2), selection_data, alpha=0.2,
                         n_reps=100, false_alarm=0.05, random_state=seed)

    fails = _failures(run, 300)
    assert fails <= _tolerance(300, 0.05), fails  # measured 0 / 300


def test_fdr_power_against_a_missing_plus_one():
    def run(seed):
        return check_fdr(lambda: OracleScoreSelector(0.2, plus_one=False), selection_data,
                         alpha=0.2, n_reps=1000, random_state=seed)

    assert _failures(run, 40) >= 39  # measured 40 / 40
    ok = check_fdr(lambda: OracleScoreSelector(0.2), selection_data, alpha=0.2, n_reps=1000,
                   random_state=0)
    assert ok.passed and ok.estimate < 0.2


def test_fdr_of_the_library_selector():
    from statlearn.conformal import ConformalSelector

    def data(rng):
        X = rng.normal(size=(120, 1))
        y = X[:, 0] + 0.5 * rng.normal(size=120)
        return X[:80], y[:80], X[80:], y[80:]

    res = check_fdr(lambda s: ConformalSelector(threshold=0.5, q=0.2, random_state=s), data,
                    alpha=0.2, n_reps=100, random_state=3)
    assert res.passed, res


@pytest.mark.parametrize("kwargs,name", [
    ({"alpha": 0.0}, "alpha"), ({"n_reps": 1.5}, "n_reps"), ({"fdp": "x"}, "fdp"),
    ({"false_alarm": 0.0}, "false_alarm"),
])
def test_fdr_bad_input_names_the_argument(kwargs, name):
    args = {"alpha": 0.2, "n_reps": 10, **kwargs}
    with pytest.raises((ValueError, TypeError)) as info:
        check_fdr(lambda: OracleScoreSelector(), selection_data, **args)
    assert names_argument(info.value, name), str(info.value)


def test_fdr_refuses_a_proportion_outside_the_unit_interval():
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        check_fdr(lambda: OracleScoreSelector(), selection_data, alpha=0.2, n_reps=5,
                  fdp=lambda sel, X, y: 1.5)


# ----------------------------------------------------------------- check_unlearning


@pytest.mark.slow
def test_unlearning_false_alarm_rate():
    n_checks = suite_size(20, 300)

    def run(seed):
        return check_unlearning(make_unlearner, lambda rng: unlearning_data(rng, p=3),
                                n_reps=5, false_alarm=0.1, random_state=seed)

    fails = _failures(run, n_checks)
    assert fails <= _tolerance(n_checks, 0.1), fails  # measured 0 / 20 (16 / 300 at full size)


@pytest.mark.slow
def test_unlearning_distances_follow_the_stated_noise():
    """Newton error far below the noise here: T follows chi-square(p) (KS test, 1e-6)."""
    res = check_unlearning(make_unlearner, unlearning_data, n_reps=suite_size(60, 500),
                           random_state=1)
    assert res.passed
    assert stats.kstest(res.values * 5, stats.chi2(5).cdf).pvalue > 1e-6


@pytest.mark.slow
def test_unlearning_power_against_too_little_noise():
    # documented: 100 replications, 5 features, noise at 70% of the stated level: the mean
    # of T / p is 0.49 against a region from 0.80
    n_runs = suite_size(1, 10)
    fails = _failures(lambda seed: check_unlearning(make_quiet_unlearner, unlearning_data,
                                                    n_reps=100, random_state=seed), n_runs)
    assert fails == n_runs  # measured 10 / 10


def test_unlearning_refuses_a_noise_free_release():
    from statlearn.unlearning import NewtonUnlearner

    with pytest.raises(ValueError, match="sigma_"):
        check_unlearning(lambda: NewtonUnlearner(loss="squared", noise=None,
                                                 fit_intercept=False),
                         unlearning_data, n_reps=3)
    with pytest.raises(TypeError, match="make_data"):
        check_unlearning(make_unlearner, lambda rng: (1, 2), n_reps=3)


# ----------------------------------------------------------------- check_regret_slope


@pytest.mark.slow
def test_regret_slope_false_alarm_at_the_boundary():
    """E R(t) = 0.5 sqrt(t) exactly: the slope equals the stated rate (the worst null)."""
    def run(seed):
        return check_regret_slope(sqrt_regret, horizon=2000, rate=0.5, n_reps=50,
                                  false_alarm=0.05, random_state=seed)

    n_checks = suite_size(100, 300)
    fails = _failures(run, n_checks)
    # measured 5 / 100 at CI size, 11 / 300 at full size (normal approximation)
    assert fails <= _tolerance(n_checks, 0.05), fails


def test_regret_slope_power_against_a_policy_that_never_learns():
    from statlearn.bandits.causal import run_bandit

    def uniform(rng):
        return run_bandit(UniformPolicy(), [0.4, 0.6], 500, random_state=rng)

    for seed in range(3):
        res = check_regret_slope(uniform, horizon=500, rate=0.5, n_reps=50, random_state=seed)
        assert not res.passed and res.estimate > 0.9  # measured 3 / 3 fail
    ok = check_regret_slope(klucb_regret, horizon=1000, rate=0.5, n_reps=100, random_state=0)
    assert ok.passed and ok.estimate < 0.5


@pytest.mark.parametrize("kwargs,name", [
    ({"horizon": 5}, "horizon"), ({"rate": 1.5}, "rate"), ({"start": 1.0}, "start"),
    ({"n_points": 1}, "n_points"), ({"n_reps": 0}, "n_reps"),
])
def test_regret_slope_bad_input_names_the_argument(kwargs, name):
    args = {"horizon": 2000, "rate": 0.5, "n_reps": 5, **kwargs}
    with pytest.raises((ValueError, TypeError)) as info:
        check_regret_slope(sqrt_regret, **args)
    assert names_argument(info.value, name), str(info.value)


def test_regret_slope_refuses_a_short_or_empty_path():
    with pytest.raises(ValueError, match="horizon=2000"):
        check_regret_slope(lambda rng: np.ones(10), horizon=2000, rate=0.5, n_reps=3)
    with pytest.raises(ValueError, match="not positive"):
        check_regret_slope(lambda rng: np.zeros(100), horizon=100, rate=0.5, n_reps=3)

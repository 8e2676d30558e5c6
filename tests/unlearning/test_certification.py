"""Monte Carlo checks of the certificate of Pandey et al. (2025), Theorem 2.

The Newton error stays within the radius r (violation rate; ROC of the unlearned
release against the retrained reference above G_epsilon), and its rates in n and m.

Setting of the paper: x_i ~ N(0, I_p / n), beta* ~ N(0, I_p), logistic responses,
n = p, alpha = lambda = 0.5, one removed point, default radius r = sqrt(m^3 / (2 lambda n)).
"""

from __future__ import annotations

import copy

import numpy as np
import pytest

from statlearn.testing import assert_binomial_rate, suite_size
from statlearn.unlearning import NewtonUnlearner, gaussian_tradeoff, make_glm_data

LAM = 0.5


def _newton_error(n, m, seed):
    X, y, _ = make_glm_data(n, n, random_state=seed)
    est = NewtonUnlearner(fit_intercept=False, alpha=LAM, noise=None, verify=True).fit(X, y)
    idx = np.arange(m)
    exact = est.retrain_reference(idx)
    # the audit fields come from the same run; noise=None keeps the raw Newton output
    est.unlearn(idx)
    rep = est.unlearn_report_
    err = np.linalg.norm(est.coef_ - exact) if not rep.fallback else np.nan
    return err, rep


@pytest.mark.slow
def test_violation_rate_of_the_radius():
    sizes = [400] if suite_size(0, 1) == 0 else [400, 1600]
    n_data = suite_size(ci=100, full=200)
    rates = []
    for n in sizes:
        violations = 0
        for s in range(n_data):
            err, rep = _newton_error(n, 1, seed=10_000 * n + s)
            # the certificate is a true upper bound on the error, always
            assert rep.fallback or err <= rep.delta_cert * (1 + 1e-9)
            violations += rep.fallback or err > rep.r
        rates.append(violations / n_data)
        print(f'radius violations: n={n}, violations {violations}/{n_data}')
        # phi_n <= 0.05; one-sided binomial check, false-alarm 1e-6 per size
        assert_binomial_rate(violations, n_data, 0.05, alternative="greater",
                             false_alarm=1e-6, label=f"violation rate at n={n}")
    if len(rates) == 2:
        assert rates[1] <= rates[0] + 3 * np.sqrt(0.05 * 0.95 / n_data)


@pytest.mark.slow
def test_roc_of_unlearned_vs_retrained_stays_above_g_epsilon():
    # Data fixed; draws of the unlearned release (P_un) and of the retrained reference
    # mechanism (P_re). The best test projects on the mean difference; its empirical ROC
    # must stay above G_eps minus the DKW bands of both empirical CDFs.
    n_draws = suite_size(ci=2000, full=20000)
    eps = 0.75
    X, y, _ = make_glm_data(60, 30, random_state=3)
    idx = [4, 9]
    base = NewtonUnlearner(fit_intercept=False, alpha=LAM, epsilon=eps, random_state=0).fit(X, y)
    un = np.empty((n_draws, 30))
    for k in range(n_draws):
        e = copy.deepcopy(base).unlearn(idx, random_state=k)
        un[k] = e.coef_
    assert not e.unlearn_report_.fallback
    re = base.retrain_reference(idx, add_noise=True, n_draws=n_draws, random_state=10**6)
    sigma = e.unlearn_report_.sigma
    # same noise scale in both mechanisms (pooled std within a 1e-6 false-alarm chi2 band)
    for draws, centre in ((un, un.mean(0)), (re, re.mean(0))):
        sd = np.sqrt(np.mean((draws - centre) ** 2))
        assert abs(sd / sigma - 1) < 5.3 * np.sqrt(1 / (2 * draws.size))
    u = un.mean(0) - re.mean(0)
    u /= np.linalg.norm(u)
    s_un, s_re = un @ u, re @ u
    band = np.sqrt(np.log(2 / 1e-6) / (2 * n_draws))  # DKW, false-alarm 1e-6 per CDF
    mid = 0.5 * (s_un.mean() + s_re.mean())
    for stat_un, stat_re in ((s_un, s_re), (np.abs(s_un - mid), np.abs(s_re - mid))):
        t = np.quantile(np.concatenate([stat_un, stat_re]), np.linspace(0.001, 0.999, 200))
        for a, b in ((stat_re, stat_un), (stat_un, stat_re)):  # both directions of T
            type1 = (a[None, :] > t[:, None]).mean(1)
            type2 = (b[None, :] <= t[:, None]).mean(1)
            lower = gaussian_tradeoff(np.clip(type1 + band, 0, 1), eps) - band
            assert np.all(type2 >= lower - 1e-12)


@pytest.mark.slow
def test_newton_error_decreases_with_n():
    # Theorem 2 bounds the error by order n^(-1/2) only up to polylog factors: test the
    # upper-bound form (error <= r at every size, fitted log-log slope of the median
    # error <= -0.1); a -0.5 slope would be informative only.
    sizes = [125, 250, 500] if suite_size(0, 1) == 0 else [250, 500, 1000, 2000]
    n_data = suite_size(ci=40, full=100)
    medians = []
    for n in sizes:
        errs = []
        for s in range(n_data):
            err, rep = _newton_error(n, 1, seed=77 * n + s)
            assert not rep.fallback and err <= rep.r
            errs.append(err)
        medians.append(np.median(errs))
    slope = np.polyfit(np.log(sizes), np.log(medians), 1)[0]
    print(f'Newton error: sizes {sizes}, median errors {medians}, slope {slope:.3f}')
    assert slope <= -0.1, (sizes, medians, slope)


@pytest.mark.slow
def test_newton_error_growth_in_m():
    n = suite_size(ci=400, full=1000)
    n_data = suite_size(ci=10, full=20)
    ms = [1, 2, 4, 8]
    errs = {m: [] for m in ms}
    for s in range(n_data):
        X, y, _ = make_glm_data(n, n, random_state=5000 + s)
        est = NewtonUnlearner(fit_intercept=False, alpha=LAM, noise=None, verify=False).fit(X, y)
        for m in ms:
            idx = np.arange(m)
            exact = est.retrain_reference(idx)
            out = copy.deepcopy(est)
            with pytest.warns() if m > n ** 0.25 else _nullcontext():
                out.unlearn(idx)
            errs[m].append(np.linalg.norm(out.coef_ - exact))
    med = [np.median(errs[m]) for m in ms]
    slope = np.polyfit(np.log(ms), np.log(med), 1)[0]
    print(f'Newton error: m {ms}, median errors {med}, slope {slope:.3f}')
    assert 0 < slope <= 2.0, (med, slope)


class _nullcontext:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

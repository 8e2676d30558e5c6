"""Trade-off curves, GDP conversion and composition, noise calibration (Pandey et al., 2025,
Theorem 2), noise laws."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from statlearn.testing import assert_binomial_rate
from statlearn.unlearning import (
    NewtonUnlearner,
    compose_gdp,
    draw_noise,
    gaussian_tradeoff,
    gdp_to_dp_delta,
    guo_noise_std,
    make_glm_data,
    noise_radius,
    sekhari_noise_std,
)


def test_tradeoff_endpoints_and_identity():
    a = np.linspace(0, 1, 11)
    np.testing.assert_allclose(gaussian_tradeoff(a, 0.0), 1 - a, atol=1e-15)
    assert gaussian_tradeoff(0.0, 2.0) == pytest.approx(1.0)
    assert gaussian_tradeoff(1.0, 2.0) == pytest.approx(0.0)
    assert gaussian_tradeoff(0.3, math.inf) == 0.0
    # symmetric trade-off: G_mu is its own inverse, G(G(a)) = a
    np.testing.assert_allclose(gaussian_tradeoff(gaussian_tradeoff(a, 1.3), 1.3), a, atol=1e-12)


@pytest.mark.parametrize("mu", [0.5, 1.0, 2.0])
def test_tradeoff_is_type_ii_error_of_the_likelihood_ratio_test(mu):
    # In dimension d, N(0, s^2 I) vs N(v, s^2 I) with ||v|| / s = mu: the optimal test
    # projects on v. Monte Carlo its type-II error at level 0.1.
    rng = np.random.default_rng(0)
    d, s, n = 30, 0.7, 20_000
    v = rng.standard_normal(d)
    v *= mu * s / np.linalg.norm(v)
    u = v / np.linalg.norm(v)
    t = s * stats.norm.ppf(0.9)  # threshold on the projection for type-I error 0.1
    alt = (v + s * rng.standard_normal((n, d))) @ u
    misses = int(np.sum(alt <= t))
    # false-alarm rate 1e-6 per parametrisation
    assert_binomial_rate(misses, n, gaussian_tradeoff(0.1, mu), false_alarm=1e-6,
                         label="type-II error")


@settings(max_examples=30, deadline=None)
@given(mu=st.floats(0.05, 5.0), eps=st.floats(0.0, 8.0))
def test_gdp_to_dp_delta_equals_supremum_over_the_tradeoff(mu, eps):
    # (eps, delta)-DP holds iff f(a) >= 1 - delta - e^eps a for all a, so
    # delta(eps) = sup_a (1 - e^eps a - G_mu(a)); maximise on a fine grid.
    from scipy.optimize import minimize_scalar

    def gap(log_a):
        a = np.minimum(np.exp(log_a), 1.0)
        return 1 - np.exp(eps) * a - gaussian_tradeoff(a, mu)

    grid = np.linspace(np.log(1e-300), 0.0, 2001)
    vals = gap(grid)
    i = int(np.argmax(vals))
    lo, hi = grid[max(i - 1, 0)], grid[min(i + 1, grid.size - 1)]
    best = minimize_scalar(lambda t: -gap(t), bounds=(lo, hi), method="bounded",
                           options={"xatol": 1e-12})
    sup = max(-best.fun, vals.max(), 0.0)
    assert gdp_to_dp_delta(mu, eps) == pytest.approx(sup, abs=1e-8)


def test_gdp_to_dp_delta_values():
    assert gdp_to_dp_delta(1.0, 0.0) == pytest.approx(2 * stats.norm.cdf(0.5) - 1)
    d = gdp_to_dp_delta(0.75, np.array([0.0, 1.0, 2.0, 4.0]))
    assert np.all(np.diff(d) < 0) and np.all(d >= 0)


def test_gdp_to_dp_delta_at_infinite_epsilon_is_zero():
    # delta(eps') -> 0 as eps' -> inf; the log-scale second term would read inf - inf
    assert gdp_to_dp_delta(1.0, math.inf) == 0.0
    d = gdp_to_dp_delta(0.75, [0.0, 1.0, math.inf])
    assert d[2] == 0.0
    np.testing.assert_allclose(d[:2], gdp_to_dp_delta(0.75, [0.0, 1.0]), rtol=1e-12)
    assert gdp_to_dp_delta(1.0, 60.0) < 1e-300  # the limit, approached


def test_compose_gdp():
    assert compose_gdp([]) == 0.0
    assert compose_gdp([0.3, 0.4]) == pytest.approx(0.5)
    assert compose_gdp([1.0, math.inf]) == math.inf
    with pytest.raises(ValueError, match="mus"):
        compose_gdp([-1.0])


# ------------------------- noise calibration: r = C1 sqrt(C2 m^3 / (2 alpha n)), Theorem 2
def test_noise_radius_formula_and_scaling():
    r = noise_radius(500, 3, 0.5, nu=2.0, c1=1.7, c2=2.3)
    assert r == 1.7 * math.sqrt(2.3 * 27 / (2 * 0.5 * 2.0 * 500))
    base = noise_radius(1000, 2, 0.5)
    assert noise_radius(1000, 8, 0.5) / base == pytest.approx(4**1.5)
    assert noise_radius(1000, 2, 2.0) / base == pytest.approx(0.5)
    assert noise_radius(4000, 2, 0.5) / base == pytest.approx(0.5)
    assert noise_radius(10, 0, 1.0) == 0.0


@pytest.mark.parametrize("verify", [True, False])
def test_estimator_sigma_uses_documented_defaults(verify):
    X, y, _ = make_glm_data(400, 50, random_state=0)
    m, n, lam, eps = 2, 400, 0.5, 0.6
    est = NewtonUnlearner(fit_intercept=False,
                          alpha=lam, epsilon=eps, verify=verify, random_state=0).fit(X, y)
    rep = est.unlearn([0, 1]).unlearn_report_
    c = 1.0 if verify else math.log(n)
    assert rep.r == pytest.approx(c * math.sqrt(c * m**3 / (2 * lam * n)), rel=1e-14)
    assert rep.sigma == pytest.approx(rep.r / eps, rel=1e-14)
    custom = NewtonUnlearner(fit_intercept=False,
                             alpha=lam, epsilon=eps, polylog_c1=2.0, polylog_c2=3.0)
    rep2 = custom.fit(X, y).unlearn([0, 1]).unlearn_report_
    assert rep2.r == pytest.approx(2 * math.sqrt(3 * m**3 / (2 * lam * n)), rel=1e-14)
    fixed = NewtonUnlearner(fit_intercept=False,
                            alpha=lam, epsilon=eps, noise_scale=0.01).fit(X, y).unlearn([0])
    assert fixed.unlearn_report_.sigma == pytest.approx(0.01 / eps)


def test_noise_scale_does_not_depend_on_removed_data():
    X, y, _ = make_glm_data(200, 40, random_state=0)
    sig = {NewtonUnlearner(fit_intercept=False,
                           random_state=0).fit(X, y).unlearn(idx).unlearn_report_.sigma
           for idx in ([0, 1], [5, 150], [198, 3])}
    X2, y2, _ = make_glm_data(200, 40, random_state=1)
    sig.add(NewtonUnlearner(fit_intercept=False,
                            random_state=0).fit(X2, y2).unlearn([0, 1]).unlearn_report_.sigma)
    assert len(sig) == 1


def test_gaussian_noise_std_and_covariance():
    n_draws, p, sigma = 10_000, 20, 0.37
    b = draw_noise("gaussian", sigma * 0.8, 0.8, p, n_draws=n_draws, random_state=1)
    sd = b.std(axis=0, ddof=1)
    # per coordinate: (n-1) s^2 / sigma^2 ~ chi2(n-1); two-sided, false-alarm 1e-6 over p coords
    tail = 1e-6 / (2 * p)
    lo = np.sqrt(stats.chi2.ppf(tail, n_draws - 1) / (n_draws - 1)) * sigma
    hi = np.sqrt(stats.chi2.isf(tail, n_draws - 1) / (n_draws - 1)) * sigma
    assert np.all((sd > lo) & (sd < hi)), (sd.min(), sd.max(), lo, hi)
    assert abs(b.std() / sigma - 1) < 0.02
    corr = np.corrcoef(b, rowvar=False)[np.triu_indices(p, 1)]
    z = stats.norm.isf(1e-6 / (p * (p - 1)))  # Bonferroni over pairs, false-alarm 1e-6
    assert np.max(np.abs(corr)) < z / np.sqrt(n_draws)
    assert_binomial_rate(int(np.sum(np.abs(b[:, 0]) < sigma)), n_draws, 0.6826894921370859,
                         label="P(|b| < sigma)")


def test_laplace_l2_noise_law():
    p, scale, n_draws = 50, 0.2, 4000
    b = draw_noise("laplace_l2", scale * 1.5, 1.5, p, n_draws=n_draws, random_state=2)
    norms = np.linalg.norm(b, axis=1)
    # ||b|| ~ Gamma(p, scale): KS test at false-alarm 1e-6
    assert stats.kstest(norms, stats.gamma(p, scale=scale).cdf).pvalue > 1e-6
    # direction uniform on the sphere: coordinates of b / ||b|| have mean 0, var 1/p
    u = b / norms[:, None]
    assert abs(u[:, 0].mean()) < stats.norm.isf(1e-6) / np.sqrt(p * n_draws)
    assert draw_noise("laplace_l2", 0.0, 1.0, 3).tolist() == [0.0, 0.0, 0.0]


def test_baseline_scales():
    assert guo_noise_std(0.1, 1.0, 1e-4) == pytest.approx(math.sqrt(2 * math.log(15000)) * 0.1)
    s = sekhari_noise_std(100, 2, 0.5, 1.0, 0.1, 1.0, 1e-5)
    gamma = 2 * 0.1 * 4 * 1.0 * 100 / 0.5**3
    assert s == pytest.approx(gamma * math.sqrt(2 * math.log(1.25e5)))


@pytest.mark.parametrize("call, match", [
    (lambda: gaussian_tradeoff(1.5, 1.0), "alpha"),
    (lambda: gaussian_tradeoff(0.5, -1.0), "mu"),
    (lambda: gdp_to_dp_delta(0.0, 1.0), "mu"),
    (lambda: gdp_to_dp_delta(1.0, -1.0), "eps_prime"),
    (lambda: noise_radius(0, 1, 1.0), "n_samples"),
    (lambda: noise_radius(10, -1, 1.0), "n_removed"),
    (lambda: noise_radius(10, 1, 0.0), "alpha"),
    (lambda: draw_noise("cauchy", 1.0, 1.0, 3), "noise"),
    (lambda: draw_noise("gaussian", 1.0, 0.0, 3), "epsilon"),
    (lambda: draw_noise("gaussian", 1.0, 1.0, 0), "size"),
    (lambda: guo_noise_std(1.0, 1.0, 0.0), "delta"),
    (lambda: sekhari_noise_std(10, 1, 1.0, -1.0, 1.0, 1.0, 0.1), "lipschitz"),
])
def test_bad_inputs(call, match):
    with pytest.raises(ValueError, match=match):
        call()

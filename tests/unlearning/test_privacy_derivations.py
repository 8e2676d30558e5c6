"""Privacy accounting and noise calibration checked against independent derivations.

Each test pins a property that a small change of the code (an operator, a constant, a
bound of a validated domain, a branch) would break, with the expected value
derived here from the definitions (the paper's forms, quadrature, exact random
streams), never from the function under test.  Inputs avoid coincidences such as
``m = 2`` (where ``m**2 == m*2 == m+2``) or ``L = 1`` (where ``L**2 == L``).
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from scipy import integrate, stats

from statlearn.unlearning import (
    compose_gdp,
    draw_noise,
    gaussian_tradeoff,
    gdp_to_dp_delta,
    guo_noise_std,
    noise_radius,
    sekhari_noise_std,
)
from tests.helpers import raises


# ------------------------------------------------------------ trade-off curve
@pytest.mark.parametrize("mu", [0.3, 1.1, 2.6])
def test_tradeoff_equals_neyman_pearson_type_ii_by_quadrature(mu):
    # Type-II error of the level-a likelihood-ratio test of N(0,1) vs N(mu,1):
    # reject when x > t with P0(x > t) = a; beta = P1(x <= t) = int_{-inf}^{t} phi(x - mu).
    for a in (0.01, 0.2, 0.5, 0.77):
        t = stats.norm.isf(a)
        beta, _ = integrate.quad(lambda x: math.exp(-0.5 * (x - mu) ** 2) / math.sqrt(2 * math.pi),
                                 -np.inf, t)
        assert gaussian_tradeoff(a, mu) == pytest.approx(beta, abs=1e-10)


def test_tradeoff_returns_float_for_scalars_and_arrays_for_arrays():
    out = gaussian_tradeoff(0.25, 0.5)
    assert type(out) is float
    arr = gaussian_tradeoff(np.array([0.1, 0.9]), 0.5)
    assert isinstance(arr, np.ndarray) and arr.shape == (2,)
    grid = gaussian_tradeoff(np.full((2, 3), 0.4), 0.0)
    assert grid.shape == (2, 3)
    np.testing.assert_allclose(grid, 0.6)


def test_tradeoff_domain_is_closed_unit_interval_and_nonnegative_mu():
    # both endpoints of [0, 1] and mu = 0 are valid
    assert gaussian_tradeoff(0.0, 0.0) == pytest.approx(1.0)
    assert gaussian_tradeoff(1.0, 0.0) == pytest.approx(0.0)
    assert gaussian_tradeoff(0.5, 0.7) == pytest.approx(stats.norm.cdf(-0.7))
    raises(lambda: gaussian_tradeoff(-0.01, 1.0), ValueError, names="alpha",
           match=r"must lie in \[0, 1\]\.$")
    raises(lambda: gaussian_tradeoff(1.01, 1.0), ValueError, names="alpha",
           match=r"must lie in \[0, 1\]\.$")
    raises(lambda: gaussian_tradeoff(np.array([0.5, np.nan]), 1.0), ValueError, names="alpha",
           match=r"must lie in \[0, 1\]\.$")
    raises(lambda: gaussian_tradeoff(0.5, -0.1), ValueError, names="mu", shows="[0, inf]")


def test_exact_rational_levels_are_accepted():
    # any real number is a valid level, exact fractions included
    assert gaussian_tradeoff(Fraction(1, 4), 0.5) == pytest.approx(
        stats.norm.cdf(stats.norm.ppf(0.75) - 0.5), rel=1e-14)
    assert gdp_to_dp_delta(1.0, Fraction(1, 2)) == pytest.approx(gdp_to_dp_delta(1.0, 0.5),
                                                                 rel=1e-14)


# -------------------------------------------------------- GDP -> (eps, delta)
@pytest.mark.parametrize("mu", [0.4, 1.0, 2.5])
@pytest.mark.parametrize("eps", [0.0, 0.3, 1.7])
def test_gdp_to_dp_delta_is_the_privacy_loss_tail(mu, eps):
    # For N(0,1) vs N(mu,1) the privacy loss L = mu X - mu^2/2 with X ~ N(mu, 1) under
    # the alternative; delta(eps) = P1(L > eps) - e^eps P0(L > eps) (hockey-stick
    # divergence), computed here by quadrature of the density difference.
    x0 = eps / mu + mu / 2  # L > eps  <=>  x > x0
    p1 = integrate.quad(lambda x: stats.norm.pdf(x, loc=mu), x0, np.inf)[0]
    p0 = integrate.quad(lambda x: stats.norm.pdf(x), x0, np.inf)[0]
    expected = p1 - math.exp(eps) * p0
    assert gdp_to_dp_delta(mu, eps) == pytest.approx(expected, abs=1e-10)


def test_gdp_to_dp_delta_shapes_and_domain():
    assert type(gdp_to_dp_delta(1.0, 0.5)) is float
    vec = gdp_to_dp_delta(1.0, np.array([0.0, 0.5, 1.0]))
    assert isinstance(vec, np.ndarray) and vec.shape == (3,)
    # vanishing delta for a large eps is clipped at 0, never negative
    assert gdp_to_dp_delta(0.2, 40.0) == 0.0
    # delta never exceeds the total-variation distance 2 Phi(mu/2) - 1 (its value at eps=0)
    for mu in (0.1, 0.9, 3.0):
        tv = 2 * stats.norm.cdf(mu / 2) - 1
        assert gdp_to_dp_delta(mu, 0.0) == pytest.approx(tv, abs=1e-12)
    raises(lambda: gdp_to_dp_delta(0.0, 1.0), ValueError, names="mu", shows="(0, inf)")
    raises(lambda: gdp_to_dp_delta(1.0, -1e-9), ValueError, names="eps_prime",
           match=r"must be non-negative\.$")
    raises(lambda: gdp_to_dp_delta(1.0, np.array([np.nan])), ValueError, names="eps_prime",
           match=r"must be non-negative\.$")


# ---------------------------------------------------------------- composition
def test_compose_gdp_is_euclidean_norm():
    mus = [0.3, 1.2, 0.05, 2.0]
    assert compose_gdp(mus) == pytest.approx(math.hypot(*mus), rel=1e-14)
    assert compose_gdp([0.0, 0.0]) == 0.0
    assert compose_gdp([0.7]) == pytest.approx(0.7)
    assert type(compose_gdp(np.array([0.5, 0.5]))) is float
    raises(lambda: compose_gdp([0.1, -0.2]), ValueError, names="mus", shows="[0, inf]")


# ---------------------------------------------------------------- noise radius
def test_noise_radius_against_theorem_form():
    # r = C1 sqrt(C2 m^3 / (2 lambda nu n)), with generic values (no m = 2 coincidences)
    n, m, lam, nu, c1, c2 = 731, 5, 0.37, 1.9, 1.3, 0.45
    expected = c1 * (c2 * m * m * m / (2 * lam * nu * n)) ** 0.5
    assert noise_radius(n, m, lam, nu=nu, c1=c1, c2=c2) == pytest.approx(expected, rel=1e-14)
    # the smallest valid sample size and small positive constants are accepted
    assert noise_radius(1, 1, 0.5, nu=0.5, c1=0.5, c2=0.5) == pytest.approx(
        0.5 * math.sqrt(0.5 / (2 * 0.5 * 0.5)))


def test_noise_radius_defaults_are_the_unit_constants():
    # documented defaults nu = C1 = C2 = 1: r = sqrt(m^3 / (2 lambda n))
    n, m, lam = 480, 3, 0.6
    assert noise_radius(n, m, lam) == pytest.approx(math.sqrt(27 / (2 * 0.6 * 480)), rel=1e-14)
    assert noise_radius(n, m, lam) == noise_radius(n, m, lam, nu=1.0, c1=1.0, c2=1.0)


@pytest.mark.parametrize("kwargs, name", [
    (dict(nu=0.0), "nu"), (dict(c1=0.0), "c1"), (dict(c2=0.0), "c2"),
])
def test_noise_radius_constants_must_be_positive(kwargs, name):
    raises(lambda: noise_radius(100, 1, 1.0, **kwargs), ValueError, names=name, shows="(0, inf)")


def test_noise_radius_domain_messages():
    raises(lambda: noise_radius(0, 1, 1.0), ValueError, names="n_samples", shows="[1, inf]")
    raises(lambda: noise_radius(10, -1, 1.0), ValueError, names="n_removed", shows="[0, inf]")
    raises(lambda: noise_radius(10, 1, 0.0), ValueError, names="alpha", shows="(0, inf)")


# ----------------------------------------------------------------- draw_noise
def test_gaussian_draws_are_scaled_standard_normals_from_the_stream():
    # sigma = radius / epsilon, applied to the caller's stream in row-major order
    radius, eps, p = 0.9, 0.6, 7
    got = draw_noise("gaussian", radius, eps, p, n_draws=3, random_state=np.random.default_rng(11))
    z = np.random.default_rng(11).standard_normal((3, p))
    np.testing.assert_allclose(got, z * (radius / eps), rtol=1e-14)


def test_single_draws_consume_one_vector_of_the_stream():
    # two single draws from one generator equal one batch of two: each call takes
    # exactly p normals from the stream, and a single draw is a 1-D vector
    p = 5
    g = np.random.default_rng(3)
    first = draw_noise("gaussian", 1.0, 2.0, p, random_state=g)
    second = draw_noise("gaussian", 1.0, 2.0, p, random_state=g)
    assert first.shape == (p,) and second.shape == (p,)
    batch = draw_noise("gaussian", 1.0, 2.0, p, n_draws=2, random_state=np.random.default_rng(3))
    np.testing.assert_array_equal(np.vstack([first, second]), batch)


def test_laplace_l2_draw_is_unit_direction_times_gamma_radius():
    # b = u * R with u = z / ||z|| (z the first p normals) and R ~ Gamma(p, radius/eps)
    radius, eps, p, k = 0.8, 0.5, 6, 4
    got = draw_noise("laplace_l2", radius, eps, p, n_draws=k, random_state=np.random.default_rng(5))
    g = np.random.default_rng(5)
    z = g.standard_normal((k, p))
    r = g.gamma(p, radius / eps, size=k)
    expected = z / np.sqrt((z ** 2).sum(axis=1))[:, None] * r[:, None]
    np.testing.assert_allclose(got, expected, rtol=1e-12)
    # k = p: a wrong normalisation axis would broadcast silently here
    sq = draw_noise("laplace_l2", 1.0, 1.0, 3, n_draws=3, random_state=np.random.default_rng(8))
    g = np.random.default_rng(8)
    z = g.standard_normal((3, 3))
    r = g.gamma(3, 1.0, size=3)
    np.testing.assert_allclose(np.linalg.norm(sq, axis=1), r, rtol=1e-12)
    np.testing.assert_allclose(sq / r[:, None], z / np.linalg.norm(z, axis=1)[:, None],
                               rtol=1e-12)


def test_laplace_l2_small_scale_is_not_zeroed():
    # a positive scale below 1 still gives a non-zero draw with norm ~ Gamma(p, scale)
    b = draw_noise("laplace_l2", 0.3, 1.0, 4, random_state=np.random.default_rng(1))
    assert b.shape == (4,)
    g = np.random.default_rng(1)
    g.standard_normal((1, 4))
    assert np.linalg.norm(b) == pytest.approx(g.gamma(4, 0.3), rel=1e-12)


def test_zero_radius_gives_zero_noise_and_size_one_is_valid():
    for noise in ("gaussian", "laplace_l2"):
        z = draw_noise(noise, 0.0, 1.0, 1, n_draws=1, random_state=0)
        assert z.shape == (1, 1) and z[0, 0] == 0.0
        assert draw_noise(noise, 0.0, 0.3, 4).tolist() == [0.0] * 4


def test_draw_noise_domain_messages():
    raises(lambda: draw_noise("gaussian", -1.0, 1.0, 3), ValueError, names="radius",
           shows="[0, inf]")
    raises(lambda: draw_noise("gaussian", 1.0, 0.0, 3), ValueError, names="epsilon",
           shows="(0, inf)")
    raises(lambda: draw_noise("gaussian", 1.0, 1.0, 0), ValueError, names="size", shows="[1, inf]")
    raises(lambda: draw_noise("gaussian", 1.0, 1.0, 3, n_draws=0), ValueError, names="n_draws",
           shows="[1, inf]")
    raises(lambda: draw_noise("cauchy", 1.0, 1.0, 3), ValueError, names="noise", shows="'cauchy'",
           match=r"must be one of ")


# ------------------------------------------------------------ baseline scales
def test_guo_scale_against_its_definition():
    # sigma = c * budget / eps with c = sqrt(2 log(1.5 / delta)) (Guo et al. 2020)
    budget, eps, delta = 0.23, 0.7, 3e-3
    c = math.sqrt(-2 * math.log(delta / 1.5))
    assert guo_noise_std(budget, eps, delta) == pytest.approx(c * budget / eps, rel=1e-14)
    assert guo_noise_std(0.0, 1.0, 0.5) == 0.0
    raises(lambda: guo_noise_std(-0.1, 1.0, 0.5), ValueError, names="budget", shows="[0, inf]")
    raises(lambda: guo_noise_std(0.1, 0.0, 0.5), ValueError, names="epsilon", shows="(0, inf)")
    raises(lambda: guo_noise_std(0.1, 1.0, 1.0), ValueError, names="delta", shows="(0, 1)")
    raises(lambda: guo_noise_std(0.1, 1.0, 0.0), ValueError, names="delta", shows="(0, 1)")


def test_sekhari_scale_against_the_paper_per_example_form():
    # Sekhari et al.: gamma = 2 M m^2 L^2 / (lambda_S^3 n^2) with lambda_S = alpha / n for
    # the sum-of-losses objective; sigma = gamma / eps * sqrt(2 log(1.25 / delta)).
    n, m, alpha, lip, hlip, eps, delta = 157, 3, 0.8, 1.7, 0.35, 0.9, 2e-4
    lam_s = alpha / n
    gamma = 2 * hlip * m * m * lip * lip / (lam_s ** 3 * n * n)
    expected = gamma / eps * math.sqrt(2 * math.log(1.25 / delta))
    got = sekhari_noise_std(n, m, alpha, lip, hlip, eps, delta)
    assert got == pytest.approx(expected, rel=1e-12)
    # smallest valid n and zero Lipschitz constants are accepted
    assert sekhari_noise_std(1, 0, 1.0, 0.0, 0.0, 1.0, 0.5) == 0.0


@pytest.mark.parametrize("args, name, allowed", [
    ((0, 1, 1.0, 1.0, 1.0, 1.0, 0.1), "n_samples", "[1, inf]"),
    ((10, -1, 1.0, 1.0, 1.0, 1.0, 0.1), "n_removed", "[0, inf]"),
    ((10, 1, 0.0, 1.0, 1.0, 1.0, 0.1), "alpha", "(0, inf)"),
    ((10, 1, 1.0, -1.0, 1.0, 1.0, 0.1), "lipschitz", "[0, inf]"),
    ((10, 1, 1.0, 1.0, -1.0, 1.0, 0.1), "hessian_lipschitz", "[0, inf]"),
    ((10, 1, 1.0, 1.0, 1.0, 0.0, 0.1), "epsilon", "(0, inf)"),
    ((10, 1, 1.0, 1.0, 1.0, 1.0, 1.0), "delta", "(0, 1)"),
])
def test_sekhari_domain_messages(args, name, allowed):
    raises(lambda: sekhari_noise_std(*args), ValueError, names=name, shows=allowed)

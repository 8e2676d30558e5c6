"""Noise calibration and Gaussian-differential-privacy accounting.

References
----------
.. [1] A. Pandey, A. Auddy, H. Zou, A. Maleki, S. Kulkarni. "Gaussian certified
   unlearning in high dimensions: a hypothesis testing approach." ICLR 2026,
   arXiv:2510.13094.
.. [2] J. Dong, A. Roth, W. J. Su. "Gaussian differential privacy." JRSS-B 84(1), 2022.
.. [3] C. Guo, T. Goldstein, A. Hannun, L. van der Maaten. "Certified data removal
   from machine learning models." ICML 2020, arXiv:1911.03030.
.. [4] A. Sekhari, J. Acharya, G. Kamath, A. T. Suresh. "Remember what you want to
   forget: algorithms for machine unlearning." NeurIPS 2021, arXiv:2103.03279.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import stats

from ..utils import check_int, check_option, check_real, check_rng

__all__ = [
    "NOISES",
    "compose_gdp",
    "draw_noise",
    "gaussian_tradeoff",
    "gdp_to_dp_delta",
    "guo_noise_std",
    "noise_radius",
    "sekhari_noise_std",
]

NOISES = ("gaussian", "laplace_l2")


def gaussian_tradeoff(alpha, mu):
    """Gaussian trade-off curve ``G_mu(alpha) = Phi(Phi^{-1}(1 - alpha) - mu)``.

    ``G_mu(alpha)`` is the smallest type-II error of any test of
    ``N(0, 1)`` against ``N(mu, 1)`` with type-I error at most ``alpha``.
    For isotropic Gaussians in any dimension,
    ``T(N(a, s^2 I), N(b, s^2 I)) = G_{||a - b|| / s}``.

    Parameters
    ----------
    alpha : float or array-like
        Type-I error level(s) in ``[0, 1]``.
    mu : float
        Mean shift ``>= 0`` (``inf`` gives ``0`` for ``alpha > 0``).

    Returns
    -------
    float or ndarray
        ``G_mu(alpha)``, same shape as ``alpha``.

    Examples
    --------
    >>> from statlearn.unlearning import gaussian_tradeoff
    >>> round(float(gaussian_tradeoff(0.05, 0.0)), 3)
    0.95
    >>> round(float(gaussian_tradeoff(0.05, 1.0)), 3)
    0.74
    """
    mu = check_real(mu, "mu", low=0, allow_inf=True)
    a = np.asarray(alpha, dtype=float)
    if np.any(np.isnan(a)) or np.any((a < 0) | (a > 1)):
        raise ValueError("alpha must lie in [0, 1].")
    out = stats.norm.cdf(stats.norm.ppf(1.0 - a) - mu)
    return float(out) if out.ndim == 0 else out


def gdp_to_dp_delta(mu, eps_prime):
    """``delta(eps')`` such that ``mu``-GDP implies ``(eps', delta)``-DP (Dong, Roth and Su).

    ``delta(eps') = Phi(-eps'/mu + mu/2) - e^{eps'} Phi(-eps'/mu - mu/2)``.

    Parameters
    ----------
    mu : float
        GDP parameter ``> 0``.
    eps_prime : float or array-like
        DP epsilon(s) ``>= 0``; ``inf`` gives ``delta = 0``.

    Returns
    -------
    float or ndarray

    Examples
    --------
    >>> from statlearn.unlearning import gdp_to_dp_delta
    >>> round(gdp_to_dp_delta(1.0, 1.0), 4)
    0.1269
    >>> gdp_to_dp_delta(0.75, 3.0) < 1e-4
    True
    """
    mu = check_real(mu, "mu", low=0, closed="neither")
    e = np.asarray(eps_prime, dtype=float)
    if np.any(np.isnan(e)) or np.any(e < 0):
        raise ValueError("eps_prime must be non-negative.")
    # e^{eps'} Phi(-eps'/mu - mu/2) computed on the log scale to avoid inf * 0; at
    # eps' = inf both terms vanish (delta -> 0), where the log form would give inf - inf
    finite = np.isfinite(e)
    ef = np.where(finite, e, 0.0)
    second = np.exp(ef + stats.norm.logcdf(-ef / mu - mu / 2))
    out = stats.norm.cdf(-ef / mu + mu / 2) - second
    out = np.where(finite, np.maximum(out, 0.0), 0.0)
    return float(out) if out.ndim == 0 else out


def compose_gdp(mus):
    """Compose GDP parameters: ``k`` mechanisms with ``mu_1..mu_k`` give ``sqrt(sum mu_i^2)``-GDP.

    Parameters
    ----------
    mus : sequence of float
        Non-negative GDP parameters (``inf`` allowed).

    Returns
    -------
    float

    Examples
    --------
    >>> from statlearn.unlearning import compose_gdp
    >>> compose_gdp([0.6, 0.8])
    1.0
    """
    vals = [check_real(m, "mus", low=0, allow_inf=True) for m in mus]
    return float(math.sqrt(sum(v * v for v in vals)))


def noise_radius(n_samples, n_removed, alpha, *, nu=1.0, c1=1.0, c2=1.0):
    """The paper's data-independent error radius ``r = c1 sqrt(c2 m^3 / (2 alpha nu n))``.

    ``r`` bounds the Newton error ``||beta^(1) - beta_hat_{-M}||`` with high
    probability (Pandey et al., Theorem 2); the Gaussian noise scale is
    ``sigma = r / epsilon``. It depends only on ``(n, m, alpha, nu)``, never
    on the removed data.

    Parameters
    ----------
    n_samples : int
        Number of training points ``n`` before the removal (>= 1).
    n_removed : int
        Number of removed points ``m`` (>= 0).
    alpha : float
        Ridge strength ``lambda > 0``.
    nu : float, default=1.0
        Strong-convexity constant of the penalty (1 for ``||beta||^2 / 2``).
    c1, c2 : float, default=1.0
        The polylog factors ``C1(n)``, ``C2(n)`` (not given in the paper).

    Returns
    -------
    float

    Examples
    --------
    >>> from statlearn.unlearning import noise_radius
    >>> round(noise_radius(500, 1, 0.5), 4)
    0.0447
    """
    n = check_int(n_samples, "n_samples", low=1)
    m = check_int(n_removed, "n_removed", low=0)
    alpha = check_real(alpha, "alpha", low=0, closed="neither")
    nu = check_real(nu, "nu", low=0, closed="neither")
    c1 = check_real(c1, "c1", low=0, closed="neither")
    c2 = check_real(c2, "c2", low=0, closed="neither")
    return c1 * math.sqrt(c2 * m**3 / (2.0 * alpha * nu * n))


def draw_noise(noise, radius, epsilon, size, *, n_draws=None, random_state=None):
    """Draw unlearning noise with scale set by ``radius / epsilon``.

    * ``"gaussian"``: ``b ~ N(0, sigma^2 I)`` with ``sigma = radius / epsilon``.
    * ``"laplace_l2"``: density proportional to ``exp(-epsilon ||b|| / radius)``
      (Zou et al. 2025 style, for comparisons): uniform direction times a
      ``Gamma(shape=size, scale=radius/epsilon)`` radius, so ``||b||`` is about
      ``size * radius / epsilon`` against ``sqrt(size) * radius / epsilon`` for
      the Gaussian.

    Parameters
    ----------
    noise : {"gaussian", "laplace_l2"}
        Noise family.
    radius : float
        Error radius ``r >= 0``.
    epsilon : float
        Privacy parameter ``> 0``.
    size : int
        Dimension ``p``.
    n_draws : int, optional
        Number of independent draws; ``None`` returns one vector.
    random_state : None, int or numpy.random.Generator
        Random stream.

    Returns
    -------
    ndarray of shape (size,) or (n_draws, size)

    Examples
    --------
    >>> from statlearn.unlearning import draw_noise
    >>> b = draw_noise("gaussian", 0.1, 0.5, 1000, n_draws=50, random_state=0)
    >>> round(float(b.std()), 2)
    0.2
    >>> c = draw_noise("laplace_l2", 0.1, 0.5, 1000, random_state=0)
    >>> bool(abs(float((c ** 2).sum() ** 0.5) / 200 - 1) < 0.2)
    True
    """
    check_option(noise, "noise", NOISES)
    radius = check_real(radius, "radius", low=0)
    epsilon = check_real(epsilon, "epsilon", low=0, closed="neither")
    size = check_int(size, "size", low=1)
    k = 1 if n_draws is None else check_int(n_draws, "n_draws", low=1)
    rng = check_rng(random_state)
    scale = radius / epsilon
    if noise == "gaussian":
        out = scale * rng.standard_normal((k, size))
    else:
        direction = rng.standard_normal((k, size))
        direction /= np.linalg.norm(direction, axis=1, keepdims=True)
        out = direction * rng.gamma(size, scale, size=(k, 1)) if scale > 0 else 0 * direction
    return out[0] if n_draws is None else out


def guo_noise_std(budget, epsilon, delta):
    """Objective-perturbation scale of Guo et al. (2020): ``sigma = c * budget / epsilon``.

    ``c = sqrt(2 log(1.5 / delta))``; removals whose accumulated gradient
    residual stays below ``budget`` are ``(epsilon, delta)``-certified.

    Examples
    --------
    >>> from statlearn.unlearning import guo_noise_std
    >>> round(guo_noise_std(0.1, 1.0, 1e-4), 4)
    0.4384
    """
    budget = check_real(budget, "budget", low=0)
    epsilon = check_real(epsilon, "epsilon", low=0, closed="neither")
    delta = check_real(delta, "delta", low=0, high=1, closed="neither")
    return math.sqrt(2.0 * math.log(1.5 / delta)) * budget / epsilon


def sekhari_noise_std(n_samples, n_removed, alpha, lipschitz, hessian_lipschitz, epsilon,
                      delta):
    """Output-perturbation scale of Sekhari et al. (2021), in the sum-of-losses scaling.

    Sekhari et al. state ``sigma = (gamma / epsilon) sqrt(2 log(1.25 / delta))`` with
    ``gamma = 2 M m^2 L^2 / (lambda_S^3 n^2)`` for a ``lambda_S``-strongly convex,
    ``L``-Lipschitz, ``M``-Hessian-Lipschitz per-example loss. Writing our
    objective as ``n`` times a mean gives ``lambda_S = alpha / n``, hence
    ``gamma = 2 M m^2 L^2 n / alpha^3``: it grows with ``n``, which is why
    per-example assumptions break down when ``p ~ n``.

    ``lipschitz`` and ``hessian_lipschitz`` are constants of the loss class
    over the whole feature domain (for the logistic loss with rows of norm at
    most ``R``: ``L = R``, ``M = R^3 / (6 sqrt 3)``), fixed before seeing the
    data. Computing them from the training rows would make the noise depend
    on the data and void the guarantee; :class:`NewtonUnlearner` takes ``R``
    as ``feature_bound``.

    Examples
    --------
    >>> from statlearn.unlearning import sekhari_noise_std
    >>> s1 = sekhari_noise_std(100, 1, 1.0, 1.0, 0.1, 1.0, 1e-5)
    >>> s2 = sekhari_noise_std(200, 1, 1.0, 1.0, 0.1, 1.0, 1e-5)
    >>> round(s2 / s1, 6)
    2.0
    """
    n = check_int(n_samples, "n_samples", low=1)
    m = check_int(n_removed, "n_removed", low=0)
    alpha = check_real(alpha, "alpha", low=0, closed="neither")
    lip = check_real(lipschitz, "lipschitz", low=0)
    hlip = check_real(hessian_lipschitz, "hessian_lipschitz", low=0)
    epsilon = check_real(epsilon, "epsilon", low=0, closed="neither")
    delta = check_real(delta, "delta", low=0, high=1, closed="neither")
    gamma = 2.0 * hlip * m**2 * lip**2 * n / alpha**3
    return gamma / epsilon * math.sqrt(2.0 * math.log(1.25 / delta))

"""Synthetic data with known heterogeneous treatment effects.

Every generator returns a :class:`sklearn.utils.Bunch` with the observed data
(``X``, ``treatment``, ``y``) and the truth behind it (``mu0``, ``mu1``,
``tau``, ``propensity``), so that the error of any CATE estimate can be
computed exactly.
"""

from __future__ import annotations

import numpy as np
from scipy.special import expit
from sklearn.utils import Bunch

from ..utils import check_int, check_option, check_real, check_rng

__all__ = ["make_hte_ihdp_like", "make_hte_nie_wager", "make_hte_reference"]


def _finish(X, mu0, mu1, e, rng, noise, tau=None):
    n = X.shape[0]
    tau = mu1 - mu0 if tau is None else tau
    a = (rng.random(n) < e).astype(np.int64)
    y = np.where(a == 1, mu1, mu0) + noise * rng.standard_normal(n)
    return Bunch(X=X, treatment=a, y=y, mu0=mu0, mu1=mu1, tau=tau, propensity=e)


def make_hte_reference(n_samples=2000, *, noise=1.0, random_state=None):
    """The reference design for relative-error evaluation, with two candidate pairs.

    ``X ~ N(0, I_4)``, ``e(x) = sigmoid(0.8 x1 - 0.5 x2)``,
    ``mu0(x) = x2 + 0.5 x1^2``, ``tau(x) = 1 + x1`` and
    ``Y = mu0 + A tau + noise * N(0, 1)``. Three fixed CATE "candidates" come
    with it: ``const = 1`` (MSE 1), ``half = 1 + 0.5 x1`` (MSE 0.25) and
    ``noisy = 1 + x1 + 0.5 x3`` (MSE 0.25). Pair ``P1 = (const, noisy)`` has
    relative error ``delta = +0.75``; pair ``P0 = (half, noisy)`` has
    ``delta = 0``.

    Parameters
    ----------
    n_samples : int, default=2000
        Number of units (``>= 1``).
    noise : float, default=1.0
        Standard deviation of the outcome noise (``>= 0``).
    random_state : None, int or numpy.random.Generator
        Seed or generator.

    Returns
    -------
    data : sklearn.utils.Bunch
        ``X`` (n, 4), ``treatment`` (n,) in {0, 1}, ``y`` (n,), the truth
        ``mu0``, ``mu1``, ``tau``, ``propensity`` (n,), ``candidates`` (dict
        name -> predictions at ``X``), ``mse`` (dict name -> population MSE)
        and ``pairs`` (dict pair name -> (name1, name2, delta)).

    Examples
    --------
    >>> from statlearn.datasets import make_hte_reference
    >>> d = make_hte_reference(500, random_state=0)
    >>> d.X.shape, sorted(d.candidates)
    ((500, 4), ['const', 'half', 'noisy'])
    >>> d.pairs["P1"]
    ('const', 'noisy', 0.75)
    """
    n = check_int(n_samples, "n_samples", low=1)
    noise = check_real(noise, "noise", low=0)
    rng = check_rng(random_state)
    X = rng.standard_normal((n, 4))
    x1, x2, x3 = X[:, 0], X[:, 1], X[:, 2]
    e = expit(0.8 * x1 - 0.5 * x2)
    mu0 = x2 + 0.5 * x1**2
    mu1 = mu0 + 1.0 + x1
    out = _finish(X, mu0, mu1, e, rng, noise)
    out.candidates = {"const": np.ones(n), "half": 1.0 + 0.5 * x1,
                      "noisy": 1.0 + x1 + 0.5 * x3}
    out.mse = {"const": 1.0, "half": 0.25, "noisy": 0.25}
    out.pairs = {"P1": ("const", "noisy", 0.75), "P0": ("half", "noisy", 0.0)}
    return out


def make_hte_ihdp_like(n_samples=747, *, n_continuous=6, n_binary=19, treated_fraction=0.19,
                       setting="B", att=4.0, random_state=None):
    """IHDP-like semi-synthetic design (Hill, 2011), without any download.

    The covariates are synthetic (``n_continuous`` standard normal and
    ``n_binary`` Bernoulli(0.5) columns) and treatment follows a logistic
    model whose intercept gives about ``treated_fraction`` treated units, so
    the arms are imbalanced as in IHDP. The outcomes follow Hill's response
    surfaces: ``setting="A"`` linear, ``Y(0) = X b``, ``Y(1) = X b + 4``;
    ``setting="B"`` (the usual benchmark) ``Y(0) = exp((X + 0.5) b)`` and
    ``Y(1) = X b - omega`` with ``omega`` chosen so that the effect on the
    treated is ``att``. Coefficients ``b`` take values 0, 0.1, 0.2, 0.3, 0.4
    with probabilities 0.6, 0.1, 0.1, 0.1, 0.1; outcome noise is N(0, 1).
    This is not the IHDP data set: it mimics its structure for tests and
    studies that must run offline.

    Parameters
    ----------
    n_samples : int, default=747
        Number of units (``>= 20``).
    n_continuous, n_binary : int, default=6, 19
        Numbers of continuous and binary covariates (``>= 1`` and ``>= 0``).
    treated_fraction : float, default=0.19
        Target share of treated units, in (0, 1).
    setting : {"A", "B"}, default="B"
        Response surface.
    att : float, default=4.0
        Effect on the treated in setting B.
    random_state : None, int or numpy.random.Generator
        Seed or generator.

    Returns
    -------
    data : sklearn.utils.Bunch
        ``X``, ``treatment``, ``y``, ``mu0``, ``mu1``, ``tau``, ``propensity``.

    Examples
    --------
    >>> from statlearn.datasets import make_hte_ihdp_like
    >>> d = make_hte_ihdp_like(random_state=0)
    >>> d.X.shape
    (747, 25)
    >>> bool(0.1 < d.treatment.mean() < 0.3)
    True
    """
    n = check_int(n_samples, "n_samples", low=20)
    p_c = check_int(n_continuous, "n_continuous", low=1)
    p_b = check_int(n_binary, "n_binary", low=0)
    frac = check_real(treated_fraction, "treated_fraction", low=0, high=1, closed="neither")
    check_option(setting, "setting", ["A", "B"])
    att = check_real(att, "att")
    rng = check_rng(random_state)
    X = np.hstack([rng.standard_normal((n, p_c)),
                   (rng.random((n, p_b)) < 0.5).astype(float)])
    p = X.shape[1]
    # selection on the continuous covariates: imbalanced, overlapping arms
    g = rng.normal(0.0, 0.5, size=p_c)
    lin = X[:, :p_c] @ g
    lo, hi = -20.0, 20.0
    for _ in range(80):  # intercept giving the target treated share in expectation
        mid = 0.5 * (lo + hi)
        if expit(lin + mid).mean() < frac:
            lo = mid
        else:
            hi = mid
    e = expit(lin + 0.5 * (lo + hi))
    b = rng.choice([0.0, 0.1, 0.2, 0.3, 0.4], size=p, p=[0.6, 0.1, 0.1, 0.1, 0.1])
    if setting == "A":
        mu0 = X @ b
        mu1 = mu0 + 4.0
        return _finish(X, mu0, mu1, e, rng, 1.0)
    mu0 = np.exp((X + 0.5) @ b)
    xb = X @ b
    # omega makes the effect on the treated equal to att (population version, by weights e)
    omega = np.sum(e * (xb - mu0)) / np.sum(e) - att
    mu1 = xb - omega
    return _finish(X, mu0, mu1, e, rng, 1.0)


def make_hte_nie_wager(n_samples=1000, setup="A", *, n_features=6, noise=1.0,
                       random_state=None):
    """The four simulation setups of Nie & Wager (2021, quasi-oracle R-learner).

    ``Y = b(X) + (A - 0.5) tau(X) + noise * N(0, 1)``, so
    ``mu0 = b - tau/2`` and ``mu1 = b + tau/2``.

    - ``"A"``: ``X ~ U(0,1)^d``, ``b = sin(pi x1 x2) + 2 (x3 - 0.5)^2 + x4 + 0.5 x5``,
      ``e = clip(sin(pi x1 x2), 0.1, 0.9)``, ``tau = (x1 + x2) / 2``.
    - ``"B"``: randomised, ``X ~ N(0, I)``, ``e = 0.5``,
      ``b = max(x1 + x2, x3, 0) + max(x4 + x5, 0)``, ``tau = x1 + log(1 + exp(x2))``.
    - ``"C"``: ``X ~ N(0, I)``, ``e = 1 / (1 + exp(x2 + x3))``,
      ``b = 2 log(1 + exp(x1 + x2 + x3))``, ``tau = 1``.
    - ``"D"``: ``X ~ N(0, I)``, ``e = 1 / (1 + exp(-x1) + exp(-x2))``,
      ``b = (max(x1 + x2 + x3, 0) + max(x4 + x5, 0)) / 2``,
      ``tau = max(x1 + x2 + x3, 0) - max(x4 + x5, 0)``.

    Parameters
    ----------
    n_samples : int, default=1000
        Number of units (``>= 1``).
    setup : {"A", "B", "C", "D"}, default="A"
        Which design.
    n_features : int, default=6
        Dimension ``d`` (``>= 5``).
    noise : float, default=1.0
        Noise standard deviation (``>= 0``).
    random_state : None, int or numpy.random.Generator
        Seed or generator.

    Returns
    -------
    data : sklearn.utils.Bunch
        ``X``, ``treatment``, ``y``, ``mu0``, ``mu1``, ``tau``, ``propensity``.

    Examples
    --------
    >>> from statlearn.datasets import make_hte_nie_wager
    >>> d = make_hte_nie_wager(300, "C", random_state=0)
    >>> bool((d.tau == 1).all()), d.X.shape
    (True, (300, 6))
    """
    n = check_int(n_samples, "n_samples", low=1)
    check_option(setup, "setup", ["A", "B", "C", "D"])
    d = check_int(n_features, "n_features", low=5)
    noise = check_real(noise, "noise", low=0)
    rng = check_rng(random_state)
    if setup == "A":
        X = rng.random((n, d))
        x1, x2, x3, x4, x5 = X[:, :5].T
        s = np.sin(np.pi * x1 * x2)
        b = s + 2 * (x3 - 0.5) ** 2 + x4 + 0.5 * x5
        e = np.clip(s, 0.1, 0.9)
        tau = (x1 + x2) / 2
    else:
        X = rng.standard_normal((n, d))
        x1, x2, x3, x4, x5 = X[:, :5].T
        if setup == "B":
            b = np.maximum.reduce([x1 + x2, x3, np.zeros(n)]) + np.maximum(x4 + x5, 0)
            e = np.full(n, 0.5)
            tau = x1 + np.logaddexp(0, x2)
        elif setup == "C":
            b = 2 * np.logaddexp(0, x1 + x2 + x3)
            e = 1 / (1 + np.exp(x2 + x3))
            tau = np.ones(n)
        else:
            b = (np.maximum(x1 + x2 + x3, 0) + np.maximum(x4 + x5, 0)) / 2
            e = 1 / (1 + np.exp(-x1) + np.exp(-x2))
            tau = np.maximum(x1 + x2 + x3, 0) - np.maximum(x4 + x5, 0)
    return _finish(X, b - tau / 2, b + tau / 2, e, rng, noise, tau)

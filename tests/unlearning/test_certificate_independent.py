"""The certificate, the refits and the noise scale against quantities computed here.

The certificate ``||grad P_{-M}|| / alpha`` against a gradient computed here and a
tight scikit-learn retrain; the released noise against ``sqrt(m^3 / (2 lambda n)) /
epsilon`` (Pandey et al., 2025, Theorem 2, ``C1 = C2 = 1``) by a chi-square test; the
Sekhari et al. (2021) noise scale, which must not depend on the data; solver and
fallback refits that miss their tolerance.
"""

from __future__ import annotations

import copy
import math

import numpy as np
import pytest
from scipy import optimize, stats
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression

from statlearn.unlearning import NewtonUnlearner, UnlearningWarning, make_glm_data
from statlearn.unlearning._glm import newton_solve


def _sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


def _logistic_intercept(z, y):
    """Exact unpenalised intercept for fixed coefficients (root of the score equation)."""
    return optimize.brentq(lambda b: np.sum(_sigmoid(z + b)) - y.sum(), -50, 50, xtol=1e-15)


@pytest.mark.parametrize("fit_intercept", [False, True])
def test_certificate_equals_gradient_norm_computed_here(fit_intercept):
    # delta_cert must be ||grad of the retained objective|| / alpha at the released point
    # (intercept profiled out when it is free); a certificate half too small fails the
    # equality and, on this problem, also the error bound below
    lam = 0.5
    X, y, _ = make_glm_data(200, 150, random_state=11)
    est = NewtonUnlearner(alpha=lam, noise=None, fit_intercept=fit_intercept).fit(X, y)
    gone = [7, 8, 9]
    est.unlearn(gone)
    rep = est.unlearn_report_
    keep = np.setdiff1d(np.arange(200), gone)
    Xk, yk = X[keep], y[keep]
    c = est.coef_
    b = _logistic_intercept(Xk @ c, yk) if fit_intercept else 0.0
    assert est.intercept_ == pytest.approx(b, abs=1e-10)
    grad = Xk.T @ (_sigmoid(Xk @ c + b) - yk) + lam * c
    assert rep.delta_cert == pytest.approx(np.linalg.norm(grad) / lam, rel=1e-6)
    # and it bounds the true distance to the retrained coefficients, from a tight solve here
    ref = LogisticRegression(C=1 / lam, fit_intercept=fit_intercept, tol=1e-14,
                             max_iter=10_000, solver="newton-cholesky").fit(Xk, yk)
    err = np.linalg.norm(c - ref.coef_.ravel())
    assert err <= rep.delta_cert + 1e-9
    assert err > 0.5 * rep.delta_cert  # so a halved certificate would not bound the error


def test_released_noise_has_the_documented_scale():
    # b = released - noise-free output over 40 requests x 150 coordinates = 6000 draws of
    # N(0, sigma^2), sigma = sqrt(m^3 / (2 lambda n)) / eps computed here.
    # chi2 band at false-alarm 1e-6; noise 20% too small moves the sd by ~15 standard
    # errors (power > 1 - 1e-12).
    n, p, lam, eps, m = 300, 150, 0.5, 0.75, 2
    X, y, _ = make_glm_data(n, p, random_state=5)
    sigma = math.sqrt(m**3 / (2 * lam * n)) / eps
    noisy = NewtonUnlearner(fit_intercept=False, alpha=lam, epsilon=eps, random_state=0).fit(X, y)
    silent = NewtonUnlearner(fit_intercept=False, alpha=lam, noise=None).fit(X, y)
    base = silent.unlearn([0, 1]).coef_
    draws = np.array([copy.deepcopy(noisy).unlearn([0, 1], random_state=k).coef_ - base
                      for k in range(40)])
    dof = draws.size
    s2 = np.sum(draws**2) / sigma**2
    assert stats.chi2.ppf(5e-7, dof) < s2 < stats.chi2.isf(5e-7, dof), s2 / dof


def test_sekhari_noise_does_not_depend_on_the_data():
    # sigma may use (n, m, lambda, eps, delta) and a-priori constants only; rescaling the
    # rows (same n, p) or removing different rows must not move it
    X, y, _ = make_glm_data(150, 30, random_state=2)
    kw = dict(fit_intercept=False, alpha=0.5, mechanism="sekhari", feature_bound=3.0,
              random_state=0)
    sig = {NewtonUnlearner(**kw).fit(Xs, y).unlearn(idx).unlearn_report_.sigma
           for Xs in (X, 0.3 * X, 2.0 * X) for idx in ([0], [149])}
    assert len(sig) == 1
    # the construction: gamma = 2 M m^2 L^2 n / alpha^3 with L = R, M = R^3 / (6 sqrt 3)
    R, n, m, lam, eps, delta = 3.0, 150, 1, 0.5, 0.75, 1e-5
    gamma = 2 * (R**3 / (6 * math.sqrt(3))) * m**2 * R**2 * n / lam**3
    assert sig.pop() == pytest.approx(gamma / eps * math.sqrt(2 * math.log(1.25 / delta)))
    with pytest.raises(ValueError, match="feature_bound"):
        NewtonUnlearner(**{**kw, "feature_bound": 0.01}).fit(X, y)


def test_solver_warns_when_it_stops_without_progress_above_tolerance():
    X, y, _ = make_glm_data(80, 20, random_state=3)
    import array_api_compat.numpy as npx

    with pytest.warns(ConvergenceWarning, match="no step makes progress"):
        newton_solve(X, y, "logistic", 0.5, npx, tol=1e-300)


def test_fallback_refit_that_misses_its_tolerance_is_not_certified():
    X, y, _ = make_glm_data(100, 40, random_state=4)
    with pytest.warns(ConvergenceWarning):
        est = NewtonUnlearner(fit_intercept=False, alpha=0.5, noise=None, noise_scale=1e-300,
                              tol=1e-300).fit(X, y)
    with pytest.warns(UnlearningWarning, match="NOT certified"):
        est.unlearn([0, 1])
    rep = est.unlearn_report_
    assert rep.fallback and not rep.certified
    assert rep.delta_cert > 1e-300

"""Regression tests: positions vs labels, data-free baseline noise, checked refits,
scikit-learn defaults (intercept), fitted state only, and a certificate and noise checked
against quantities computed here, independently of the library."""

from __future__ import annotations

import copy
import math
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import optimize, stats
from sklearn.datasets import load_breast_cancer, load_diabetes
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression, Ridge
from sklearn.preprocessing import StandardScaler

from statlearn.base import StaleFitError
from statlearn.unlearning import NewtonUnlearner, UnlearningWarning, make_glm_data
from statlearn.unlearning._glm import newton_solve


def _sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


def _logistic_intercept(z, y):
    """Exact unpenalised intercept for fixed coefficients (root of the score equation)."""
    return optimize.brentq(lambda b: np.sum(_sigmoid(z + b)) - y.sum(), -50, 50, xtol=1e-15)


# ------------------------------------------------------------ positions, not labels
def test_pandas_labels_are_refused_with_a_conversion_hint():
    X, y, _ = make_glm_data(300, 10, random_state=0)
    df = pd.DataFrame(X).iloc[100:]
    est = NewtonUnlearner(random_state=0).fit(df, y[100:])
    for labels in (pd.Index([100, 101]), pd.Series([100, 101]), pd.Series([True] * 200)):
        with pytest.raises(TypeError, match="get_indexer"):
            est.unlearn(labels)
    assert not est.removed_.any() and est.history_ == []
    # the documented conversion forgets exactly the labelled rows
    pos = df.index.get_indexer([100, 101])
    np.testing.assert_array_equal(pos, [0, 1])
    est.unlearn(pos)
    np.testing.assert_array_equal(np.flatnonzero(est.removed_), [0, 1])


def test_boolean_mask_equals_positions():
    X, y, _ = make_glm_data(120, 8, random_state=1)
    mask = np.zeros(120, dtype=bool)
    mask[[3, 50, 77]] = True
    a = NewtonUnlearner(random_state=0).fit(X, y).unlearn(mask)
    b = NewtonUnlearner(random_state=0).fit(X, y).unlearn([3, 50, 77])
    np.testing.assert_array_equal(a.removed_, b.removed_)
    np.testing.assert_array_equal(a.coef_, b.coef_)
    with pytest.raises(ValueError, match="boolean mask"):
        NewtonUnlearner().fit(X, y).unlearn(mask[:-1])


# ------------------------------------------------------------ Sekhari et al. noise
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


# ------------------------------------------------------------ solver and refit checks
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


# ------------------------------------------------------------ certificate, independently
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


# ------------------------------------------------------------ noise scale, measured
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


# ------------------------------------------------------------ scikit-learn defaults
def test_default_squared_model_is_sklearn_ridge():
    X, y = load_diabetes(return_X_y=True)
    ours = NewtonUnlearner(loss="squared", noise=None).fit(X, y)
    sk = Ridge().fit(X, y)
    np.testing.assert_allclose(ours.coef_, sk.coef_, rtol=1e-8)
    assert ours.intercept_ == pytest.approx(sk.intercept_, rel=1e-10)
    assert ours.score(X, y) == pytest.approx(sk.score(X, y), abs=1e-10)
    assert ours.score(X, y) > 0.4


def test_default_logistic_model_is_sklearn_logistic_regression():
    X, y = load_breast_cancer(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    ours = NewtonUnlearner(noise=None).fit(X, y)
    sk = LogisticRegression(tol=1e-12, max_iter=10_000, solver="newton-cholesky").fit(X, y)
    np.testing.assert_allclose(ours.coef_, sk.coef_.ravel(), rtol=1e-6, atol=1e-8)
    assert ours.intercept_ == pytest.approx(sk.intercept_[0], rel=1e-6)


def test_intercept_unlearning_is_exact_for_squared_loss_and_noise_skips_intercept():
    X, y = load_diabetes(return_X_y=True)
    gone = np.arange(0, 40)
    est = NewtonUnlearner(loss="squared", noise=None).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnlearningWarning)
        est.unlearn(gone)
    keep = np.setdiff1d(np.arange(X.shape[0]), gone)
    sk = Ridge().fit(X[keep], y[keep])
    np.testing.assert_allclose(est.coef_, sk.coef_, rtol=1e-8)
    assert est.intercept_ == pytest.approx(sk.intercept_, rel=1e-10)
    # with noise: the intercept is the exact one for the released coefficients
    noisy = NewtonUnlearner(loss="squared", random_state=0).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnlearningWarning)
        noisy.unlearn(gone)
    assert noisy.intercept_ == pytest.approx(np.mean(y[keep] - X[keep] @ noisy.coef_),
                                             rel=1e-12)
    assert noisy.coef_.shape == (X.shape[1],)


# ------------------------------------------------------------ fitted state only
def test_predictions_and_requests_refuse_parameters_changed_after_fit():
    # set_params after fit used to be ignored silently (the fitted parameters were used);
    # now every output and request refuses until the next fit or until it is set back
    X, y, _ = make_glm_data(150, 10, random_state=6)
    est = NewtonUnlearner(epsilon=0.5, random_state=0).fit(X, y)
    before = est.predict(X)
    proba = est.predict_proba(X)
    est.set_params(loss="squared", fit_intercept=False, epsilon=5.0, noise=None)
    outputs = [lambda: est.predict(X), lambda: est.predict_proba(X),
               lambda: est.decision_function(X), lambda: est.score(X, y),
               lambda: est.unlearn([0]), lambda: est.retrain_reference([0]),
               lambda: est.sigma_, lambda: est.r_, lambda: est.delta_cert_,
               lambda: est.mu_effective_]
    for output in outputs:
        with pytest.raises(StaleFitError, match=r"NewtonUnlearner parameter \w+ changed "
                                                r"since fit"):
            output()
    assert est.removed_.sum() == 0 and est.history_ == []  # nothing was released
    est.set_params(loss="logistic", fit_intercept=True, epsilon=0.5, noise="gaussian")
    np.testing.assert_array_equal(est.predict(X), before)
    np.testing.assert_array_equal(est.predict_proba(X), proba)
    rep = est.unlearn([0]).unlearn_report_
    assert rep.epsilon == 0.5 and rep.noise == "gaussian"
    assert rep.sigma == pytest.approx(math.sqrt(1 / (2 * 1.0 * 150)) / 0.5)
    # a new fit takes the new parameters
    est.set_params(loss="squared", fit_intercept=False).fit(X, y)
    assert est.loss_ == "squared" and est.intercept_ == 0.0


def test_draw_noise_spells_its_seed_random_state():
    from statlearn.unlearning import draw_noise

    a = draw_noise("gaussian", 1.0, 1.0, 4, random_state=3)
    np.testing.assert_array_equal(a, draw_noise("gaussian", 1.0, 1.0, 4, random_state=3))
    with pytest.raises(TypeError, match="rng"):
        draw_noise("gaussian", 1.0, 1.0, 4, rng=3)

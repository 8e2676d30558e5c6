"""NewtonUnlearner against solvers, radii and ledgers computed in the test.

Written against the mutation report of ``statlearn/unlearning/_estimator.py``.
Minimisers come from a plain Newton solver written here (ridge closed form for
the squared loss, IRLS for the logistic and Poisson losses, the intercept left
unpenalised); the one Newton step of a request, the profiled intercept, the
certificate ``||grad P_{-M}|| / alpha``, the radius
``C1 sqrt(C2 m^3 / (2 alpha n))``, the noise scale ``r / epsilon`` and the
composed GDP parameter ``sqrt(sum epsilon_k^2)`` are computed here from their
definitions and compared with the report. Error messages are checked in full.
"""

from __future__ import annotations

import math
import re
import warnings

import numpy as np
import pytest

from statlearn.unlearning import NewtonUnlearner, UnlearningWarning, make_glm_data


def _raises(call, pattern, exc=ValueError):
    with pytest.raises(exc) as info:
        call()
    msg = str(info.value)
    assert re.fullmatch(pattern, msg, flags=re.S), msg


# ------------------------------------------------------------------ reference solvers
def _sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


def _derivs(loss, y, z):
    """First and second derivatives of the loss in the linear predictor."""
    if loss == "squared":
        return z - y, np.ones_like(z)
    if loss == "logistic":
        s = _sigmoid(z)
        return s - y, s * (1 - s)
    mu = np.exp(z)
    return mu - y, mu


def _design(X, intercept):
    return np.c_[X, np.ones(len(X))] if intercept else X


def _pen(p, alpha, intercept):
    pen = np.full(p, alpha)
    if intercept:
        pen[-1] = 0.0
    return pen


def _grad(theta, Z, y, loss, pen):
    d1, _ = _derivs(loss, y, Z @ theta)
    return Z.T @ d1 + pen * theta


def _hess(theta, Z, y, loss, pen):
    _, d2 = _derivs(loss, y, Z @ theta)
    return Z.T @ (d2[:, None] * Z) + np.diag(pen)


def _solve(Z, y, loss, pen, theta=None):
    theta = np.zeros(Z.shape[1]) if theta is None else theta.copy()
    for _ in range(100):
        step = np.linalg.solve(_hess(theta, Z, y, loss, pen), _grad(theta, Z, y, loss, pen))
        theta -= step
        if np.linalg.norm(step) < 1e-14 * (1 + np.linalg.norm(theta)):
            break
    return theta


def _profiled(coef, X, y, loss):
    """Exact minimiser over the intercept with the coefficients fixed (1-D Newton)."""
    z = X @ coef
    if loss == "squared":
        return float(np.mean(y - z))
    if loss == "poisson":
        return float(np.log(y.sum() / np.exp(z).sum()))
    b = 0.0
    for _ in range(200):
        s = _sigmoid(z + b)
        step = (s.sum() - y.sum()) / (s * (1 - s)).sum()
        b -= step
        if abs(step) < 1e-15:
            break
    return b


def _radius(n, m, alpha, c1=1.0, c2=1.0):
    return c1 * math.sqrt(c2 * m**3 / (2 * alpha * n))


@pytest.fixture(scope="module")
def logistic():
    X, y, _ = make_glm_data(120, 6, random_state=3)
    return X, y.astype(float)


# ------------------------------------------------------------------ fit
@pytest.mark.parametrize("loss", ["squared", "logistic", "poisson"])
@pytest.mark.parametrize("intercept", [True, False])
def test_fit_is_the_exact_minimiser(loss, intercept):
    X, y, _ = make_glm_data(80, 5, loss=loss, random_state=1)
    y = y.astype(float)
    est = NewtonUnlearner(loss=loss, alpha=0.7, fit_intercept=intercept, noise=None).fit(X, y)
    Z = _design(X, intercept)
    theta = _solve(Z, y, loss, _pen(Z.shape[1], 0.7, intercept))
    np.testing.assert_allclose(est.coef_, theta[:5], rtol=1e-8, atol=1e-10)
    assert est.intercept_ == pytest.approx(theta[5] if intercept else 0.0, abs=1e-9)
    assert isinstance(est.intercept_, float)
    assert est.loss_ == loss and est.n_features_in_ == 5 and est.n_iter_ >= 1
    assert est.removed_.dtype == bool and est.removed_.shape == (80,) and not est.removed_.any()
    assert est.unlearn_report_ is None and est.history_ == [] and est.mu_spent_ == 0.0
    assert (est.sigma_, est.r_, est.delta_cert_, est.mu_effective_) == (None,) * 4
    # the stored Cholesky factor is the one of the objective's Hessian at the fit
    L = est.hessian_cholesky_
    np.testing.assert_allclose(L @ L.T, _hess(theta, Z, y, loss, _pen(Z.shape[1], 0.7, intercept)),
                               rtol=1e-8, atol=1e-8)
    # predictions
    z = X @ theta[:5] + (theta[5] if intercept else 0.0)
    if loss == "logistic":
        np.testing.assert_allclose(est.decision_function(X), z, rtol=1e-8, atol=1e-9)
        proba = est.predict_proba(X)
        np.testing.assert_allclose(proba[:, 1], _sigmoid(z), rtol=1e-8)
        np.testing.assert_allclose(proba.sum(axis=1), 1.0)
        np.testing.assert_array_equal(est.predict(X), (z > 0).astype(int))
        assert est.score(X, y) == pytest.approx(np.mean((z > 0) == y))
    else:
        want = z if loss == "squared" else np.exp(z)
        np.testing.assert_allclose(est.predict(X), want, rtol=1e-8, atol=1e-9)
        r2 = 1 - np.sum((y - want) ** 2) / np.sum((y - y.mean()) ** 2)
        assert est.score(X, y) == pytest.approx(r2, rel=1e-10)
        assert not hasattr(est, "predict_proba") and not hasattr(est, "decision_function")


def test_no_stored_hessian_when_asked():
    X, y, _ = make_glm_data(40, 3, random_state=0)
    est = NewtonUnlearner(store_hessian=False).fit(X, y)
    assert est.hessian_cholesky_ is None
    est.unlearn([1])
    assert est.unlearn_report_.hessian == "direct"
    est2 = NewtonUnlearner().fit(X, y).unlearn([1])
    assert est2.unlearn_report_.hessian == "stored"


def test_string_classes_map_the_second_class_to_one():
    X, y, _ = make_glm_data(60, 3, random_state=2)
    labels = np.where(y == 1, "yes", "no")
    est = NewtonUnlearner(noise=None).fit(X, labels)
    np.testing.assert_array_equal(est.classes_, ["no", "yes"])
    ref = NewtonUnlearner(noise=None).fit(X, y)
    np.testing.assert_allclose(est.coef_, ref.coef_)
    np.testing.assert_array_equal(est.predict(X), np.where(ref.predict(X) == 1, "yes", "no"))


# ------------------------------------------------------------------ one request
@pytest.mark.parametrize("intercept", [True, False])
def test_logistic_request_is_one_newton_step_with_the_certificate(logistic, intercept):
    X, y = logistic
    alpha, M = 0.8, [4, 17, 60]
    est = NewtonUnlearner(alpha=alpha, fit_intercept=intercept, noise=None).fit(X, y)
    Z = _design(X, intercept)
    pen = _pen(Z.shape[1], alpha, intercept)
    theta = _solve(Z, y, "logistic", pen)
    keep = np.setdiff1d(np.arange(120), M)
    Zk, yk = Z[keep], y[keep]
    step = theta - np.linalg.solve(_hess(theta, Zk, yk, "logistic", pen),
                                   _grad(theta, Zk, yk, "logistic", pen))
    if intercept:
        coef = step[:-1]
        b0 = _profiled(coef, X[keep], yk, "logistic")
        g = _grad(np.r_[coef, b0], Zk, yk, "logistic", pen)[:-1]
    else:
        coef, b0 = step, 0.0
        g = _grad(coef, Zk, yk, "logistic", pen)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnlearningWarning)
        est.unlearn(M)
    rep = est.unlearn_report_
    np.testing.assert_allclose(est.coef_, coef, rtol=1e-8, atol=1e-11)
    assert est.intercept_ == pytest.approx(b0, abs=1e-9)
    assert rep.delta_cert == pytest.approx(np.linalg.norm(g) / alpha, rel=1e-5, abs=1e-13)
    assert rep.newton_residual_norm == pytest.approx(np.linalg.norm(g), rel=1e-5, abs=1e-13)
    r = _radius(120, 3, alpha)
    assert rep.r == pytest.approx(r, rel=1e-12)
    assert (rep.m, rep.n, rep.certified, rep.fallback) == (3, 120, True, False)
    assert rep.noise == "none" and rep.sigma == 0.0 and rep.n_newton_steps == 1
    assert rep.hessian == "stored" and rep.mechanism == "newton"
    assert rep.epsilon == 0.75
    assert rep.mu_effective == (0.0 if rep.delta_cert == 0 else math.inf)
    assert est.mu_spent_ == math.inf  # a release without noise has no privacy
    np.testing.assert_array_equal(np.flatnonzero(est.removed_), M)
    assert est.history_ == [rep]


def test_two_newton_steps_and_the_direct_hessian(logistic):
    X, y = logistic
    est = NewtonUnlearner(alpha=0.5, fit_intercept=False, noise=None, n_newton_steps=2,
                          store_hessian=False).fit(X, y)
    pen = _pen(6, 0.5, False)
    theta = _solve(X, y, "logistic", pen)
    keep = np.setdiff1d(np.arange(120), [0])
    for _ in range(2):
        theta = theta - np.linalg.solve(_hess(theta, X[keep], y[keep], "logistic", pen),
                                        _grad(theta, X[keep], y[keep], "logistic", pen))
    est.unlearn([0])
    np.testing.assert_allclose(est.coef_, theta, rtol=1e-9, atol=1e-12)
    assert est.unlearn_report_.n_newton_steps == 2 and est.unlearn_report_.hessian == "direct"


def test_assume_optimal_uses_only_the_removed_gradient(logistic):
    X, y = logistic
    pen = _pen(6, 1.0, False)
    est = NewtonUnlearner(fit_intercept=False, noise=None, assume_optimal=True).fit(X, y)
    theta = _solve(X, y, "logistic", pen)
    keep = np.setdiff1d(np.arange(120), [5, 6])
    # at the exact fit, grad L_{-M} = - sum over the removed rows of their loss gradients
    d1, _ = _derivs("logistic", y[[5, 6]], X[[5, 6]] @ theta)
    g = -(X[[5, 6]].T @ d1)
    want = theta - np.linalg.solve(_hess(theta, X[keep], y[keep], "logistic", pen), g)
    est.unlearn([5, 6])
    np.testing.assert_allclose(est.coef_, want, rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("loss", ["logistic", "poisson"])
def test_tiny_radius_falls_back_to_the_exact_refit(loss):
    X, y, _ = make_glm_data(60, 4, loss=loss, random_state=5)
    y = y.astype(float)
    est = NewtonUnlearner(loss=loss, noise=None, noise_scale=1e-14).fit(X, y)
    est.unlearn([0, 1])
    keep = np.arange(2, 60)
    Z = _design(X, True)
    theta = _solve(Z[keep], y[keep], loss, _pen(5, 1.0, True))
    rep = est.unlearn_report_
    assert rep.fallback and rep.certified and rep.r == 1e-14
    # no noise: whatever is left of the error is not covered (mu = inf)
    assert rep.mu_effective == (0.0 if rep.delta_cert == 0 else math.inf)
    np.testing.assert_allclose(est.coef_, theta[:4], rtol=1e-8, atol=1e-10)
    assert est.intercept_ == pytest.approx(theta[4], abs=1e-9)
    assert rep.delta_cert <= 1e-10
    # the one-step residual that triggered the fallback is the one reported
    assert rep.newton_residual_norm > 1e-14
    # with noise, a certified fallback releases the retrained law: mu_effective = 0
    noisy = NewtonUnlearner(loss=loss, noise_scale=1e-14, random_state=0).fit(X, y)
    noisy.unlearn([0, 1])
    rep = noisy.unlearn_report_
    assert rep.fallback and rep.certified and rep.sigma == pytest.approx(1e-14 / 0.75)
    assert rep.mu_effective == 0.0


def test_noise_scale_radius_and_ledger(logistic):
    X, y = logistic
    eps = 0.6
    est = NewtonUnlearner(alpha=2.0, epsilon=eps, random_state=0).fit(X, y)
    noise_free = NewtonUnlearner(alpha=2.0, epsilon=eps, noise=None).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnlearningWarning)
        est.unlearn([1, 2, 3, 4])
        noise_free.unlearn([1, 2, 3, 4])
    r = _radius(120, 4, 2.0)
    rep = est.unlearn_report_
    assert rep.r == pytest.approx(r, rel=1e-12) and est.r_ == rep.r
    assert rep.sigma == pytest.approx(r / eps, rel=1e-12) and est.sigma_ == rep.sigma
    assert rep.noise == "gaussian"
    assert rep.mu_effective == pytest.approx(rep.delta_cert / rep.sigma, rel=1e-12)
    assert est.mu_effective_ == rep.mu_effective and est.delta_cert_ == rep.delta_cert
    assert est.mu_spent_ == pytest.approx(eps)
    # the noise goes on the coefficients: 6 draws of N(0, sigma^2) (seeded) whose norm
    # lies well inside the chi(6) range (a wrong scale by 2x or more falls outside)
    b = est.coef_ - noise_free.coef_
    assert np.all(b != 0)
    assert 0.2 * math.sqrt(6) < np.linalg.norm(b) / rep.sigma < 2.2 * math.sqrt(6)
    # a second request: n is the number of rows still kept, the ledger composes
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnlearningWarning)
        est.unlearn([10, 11])
    assert est.unlearn_report_.n == 116
    assert est.unlearn_report_.r == pytest.approx(_radius(116, 2, 2.0), rel=1e-12)
    assert est.mu_spent_ == pytest.approx(math.sqrt(2) * eps, rel=1e-12)
    assert len(est.history_) == 2


def test_radius_polylogs():
    X, y, _ = make_glm_data(50, 3, random_state=0)
    ln = math.log(50)
    est = NewtonUnlearner(verify=False, noise=None).fit(X, y).unlearn([0])
    assert est.unlearn_report_.r == pytest.approx(_radius(50, 1, 1.0, ln, ln), rel=1e-12)
    assert est.unlearn_report_.certified is False and math.isnan(est.unlearn_report_.delta_cert)
    est = NewtonUnlearner(polylog_c1=2.0, polylog_c2=3.0, noise=None).fit(X, y).unlearn([0])
    assert est.unlearn_report_.r == pytest.approx(_radius(50, 1, 1.0, 2.0, 3.0), rel=1e-12)
    est = NewtonUnlearner(polylog_c1=2.0, noise=None).fit(X, y).unlearn([0])
    assert est.unlearn_report_.r == pytest.approx(_radius(50, 1, 1.0, 2.0, 1.0), rel=1e-12)
    est = NewtonUnlearner(verify=False, polylog_c2=3.0, noise=None).fit(X, y).unlearn([0])
    assert est.unlearn_report_.r == pytest.approx(_radius(50, 1, 1.0, ln, 3.0), rel=1e-12)
    # a small n: ln n < 1, so the polylogs stay at 1
    Xs, ys, _ = make_glm_data(2, 3, random_state=0)
    ys = np.array([0.0, 1.0])
    est = NewtonUnlearner(verify=False, noise=None, fit_intercept=False).fit(Xs, ys)
    est.unlearn([0])
    assert est.unlearn_report_.r == pytest.approx(_radius(2, 1, 1.0), rel=1e-12)
    # a float noise_scale is the radius itself
    est = NewtonUnlearner(noise_scale=0.25, random_state=0).fit(X, y).unlearn([0])
    assert est.unlearn_report_.r == 0.25 and est.unlearn_report_.sigma == pytest.approx(0.25 / 0.75)


def test_empty_requests():
    X, y, _ = make_glm_data(40, 3, random_state=0)
    est = NewtonUnlearner(add_noise_on_empty=False).fit(X, y)
    coef = est.coef_.copy()
    est.unlearn([])
    rep = est.unlearn_report_
    assert (rep.m, rep.n, rep.noise, rep.sigma, rep.r, rep.delta_cert) == (0, 40, "none", 0.0,
                                                                            0.0, 0.0)
    assert rep.certified is True and rep.fallback is False and rep.n_newton_steps == 0
    assert rep.hessian == "none" and rep.mu_effective == 0.0 and rep.epsilon == 0.75
    assert rep.mechanism == "newton" and math.isnan(rep.newton_residual_norm)
    np.testing.assert_array_equal(est.coef_, coef)
    assert est.history_ == [rep] and est.mu_spent_ == 0.0
    # the ledger skips the no-op, then counts a real release
    est.unlearn([3])
    assert est.mu_spent_ == pytest.approx(0.75)
    # an empty request with noise: calibrated as m = 1
    est = NewtonUnlearner(random_state=0).fit(X, y).unlearn([])
    assert est.unlearn_report_.r == pytest.approx(_radius(40, 1, 1.0), rel=1e-12)
    assert est.unlearn_report_.m == 0 and est.unlearn_report_.noise == "gaussian"
    assert not np.allclose(est.coef_, coef)


def test_removing_everything():
    X, y, _ = make_glm_data(20, 3, random_state=0)
    est = NewtonUnlearner(fit_intercept=False, noise=None).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnlearningWarning)
        est.unlearn(np.arange(20))
    rep = est.unlearn_report_
    np.testing.assert_array_equal(est.coef_, np.zeros(3))
    assert (rep.delta_cert, rep.certified, rep.fallback, rep.n_newton_steps) == (0.0, True,
                                                                                 False, 0)
    assert rep.hessian == "none" and rep.newton_residual_norm == 0.0
    assert est.intercept_ == 0.0


def test_large_request_warns_in_full():
    X, y, _ = make_glm_data(16, 3, random_state=0)
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        NewtonUnlearner(random_state=0).fit(X, y).unlearn([0, 1, 2])
    msgs = [str(w.message) for w in rec if issubclass(w.category, UnlearningWarning)]
    assert msgs == ["removing m=3 > n^(1/4)=2.00 points: outside the regime where the theory "
                    "gives a vanishing generalisation error divergence; the noise grows like "
                    "m^(3/2)."]
    # m = 2 = 16^(1/4): no warning
    with warnings.catch_warnings():
        warnings.simplefilter("error", UnlearningWarning)
        NewtonUnlearner(random_state=0).fit(X, y).unlearn([0, 1])


def test_alpha_zero_warns_and_is_not_certified():
    X, y, _ = make_glm_data(60, 4, loss="squared", random_state=0)
    est = NewtonUnlearner(loss="squared", alpha=0.0, allow_singular=True, noise=None,
                          fit_intercept=False).fit(X, y)
    assert est.hessian_cholesky_ is None
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        est.unlearn([0])
    msgs = [str(w.message) for w in rec if issubclass(w.category, UnlearningWarning)]
    assert msgs == ["alpha=0: the objective is not strongly convex; no certificate is "
                    "available."]
    rep = est.unlearn_report_
    assert rep.certified is False and math.isinf(rep.r) and math.isnan(rep.delta_cert)
    keep = np.arange(1, 60)
    np.testing.assert_allclose(est.coef_, np.linalg.lstsq(X[keep], y[keep], rcond=None)[0],
                               rtol=1e-8)


# ------------------------------------------------------------------ baselines
def test_sekhari_noise_and_flags():
    X, y, _ = make_glm_data(80, 3, random_state=0)
    from statlearn.unlearning import sekhari_noise_std

    R = 4.0
    X = X / np.linalg.norm(np.c_[X, np.ones(80)], axis=1, keepdims=True).max() * 3.9
    est = NewtonUnlearner(mechanism="sekhari", feature_bound=R, random_state=0).fit(X, y)
    est.unlearn([0])
    rep = est.unlearn_report_
    c3 = 1.0 / (6.0 * math.sqrt(3.0))
    want = sekhari_noise_std(80, 1, 1.0, R, c3 * R**3, 0.75, 1e-5)
    assert rep.sigma == pytest.approx(want, rel=1e-12) and rep.noise == "gaussian"
    assert rep.certified is True and rep.mechanism == "sekhari"
    assert math.isnan(est.mu_spent_)
    sq = NewtonUnlearner(loss="squared", mechanism="sekhari", feature_bound=R,
                         random_state=0).fit(X, y.astype(float)).unlearn([0])
    want = sekhari_noise_std(80, 1, 1.0, R, 0.0, 0.75, 1e-5)
    assert sq.unlearn_report_.sigma == pytest.approx(want, rel=1e-12)
    none = NewtonUnlearner(mechanism="sekhari", feature_bound=R, noise=None,
                           random_state=0).fit(X, y).unlearn([0])
    assert none.unlearn_report_.noise == "none"
    norm = f"{np.max(np.linalg.norm(np.c_[X, np.ones(80)], axis=1)):.4g}"
    _raises(lambda: NewtonUnlearner(mechanism="sekhari", feature_bound=1.0).fit(X, y),
            r"feature_bound=1\.0 is smaller than the largest design-row norm "
            + re.escape(norm) + r" \(intercept "
            r"column included\): the Sekhari et al\. noise would not cover these rows\. Pass a "
            r"larger a-priori bound or normalise the rows\.")


def test_guo_objective_perturbation_and_budget():
    from statlearn.unlearning import guo_noise_std, noise_radius

    X, y, _ = make_glm_data(100, 4, random_state=0)
    est = NewtonUnlearner(mechanism="guo", random_state=0).fit(X, y)
    budget = 1.0 * noise_radius(100, 1, 1.0)
    sigma = guo_noise_std(budget, 0.75, 1e-5)
    est.unlearn([0])
    rep = est.unlearn_report_
    assert rep.sigma == pytest.approx(sigma, rel=1e-12) and rep.noise == "gaussian-objective"
    assert rep.certified is True and math.isnan(est.mu_spent_) and rep.n_newton_steps == 1
    assert rep.delta_cert == pytest.approx(rep.newton_residual_norm / 1.0)
    # a float noise_scale is the budget
    est = NewtonUnlearner(mechanism="guo", noise_scale=1e-12, random_state=0).fit(X, y)
    est.unlearn([0])
    assert est.unlearn_report_.fallback is True
    assert est.unlearn_report_.sigma == pytest.approx(guo_noise_std(1e-12, 0.75, 1e-5))
    # removing everything leaves the minimiser of the perturbed penalty, -shift / alpha
    est = NewtonUnlearner(mechanism="guo", alpha=2.0, fit_intercept=False,
                          random_state=0).fit(X, y)
    shift = est._shift.copy()
    assert np.asarray(shift).shape == (4,)  # one perturbation per coefficient
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnlearningWarning)
        est.unlearn(np.arange(100))
    np.testing.assert_allclose(est.coef_, -shift / 2.0)
    rep = est.unlearn_report_
    assert rep.certified is True and rep.newton_residual_norm == 0.0


# ------------------------------------------------------------------ retrained reference
def test_retrain_reference_and_its_noise():
    X, y, _ = make_glm_data(60, 3, loss="squared", random_state=4)
    est = NewtonUnlearner(loss="squared", alpha=0.5, random_state=0).fit(X, y)
    Z = _design(X, True)
    keep = np.arange(2, 60)
    theta = _solve(Z[keep], y[keep], "squared", _pen(4, 0.5, True))
    np.testing.assert_allclose(est.retrain_reference([0, 1]), theta, rtol=1e-9, atol=1e-12)
    draws = est.retrain_reference([0, 1], add_noise=True, n_draws=400, random_state=1)
    assert draws.shape == (400, 4)
    # noise on the coefficients with sd r / epsilon, the intercept profiled on the kept rows
    sd = _radius(60, 2, 0.5) / 0.75
    emp = draws[:, :3].std(axis=0, ddof=1)
    # the sd estimate of 400 normal draws has relative sd 1/sqrt(798) = 3.5%: 5 sd bands
    assert np.all(np.abs(emp / sd - 1) < 0.18)
    np.testing.assert_allclose(draws[:, :3].mean(axis=0), theta[:3], atol=5 * sd / 20)
    for row in draws[:5]:
        assert row[3] == pytest.approx(_profiled(row[:3], X[keep], y[keep], "squared"),
                                       abs=1e-10)
    one = est.retrain_reference([0, 1], add_noise=True, random_state=1)
    assert one.shape == (4,)
    nfi = NewtonUnlearner(loss="squared", alpha=0.5, fit_intercept=False).fit(X, y)
    one = nfi.retrain_reference([0, 1], add_noise=True, random_state=1)
    assert one.shape == (3,)
    _raises(lambda: est.retrain_reference([0], n_draws=3), r"n_draws needs add_noise=True\.")
    _raises(lambda: est.retrain_reference([0], add_noise=1), r"add_noise must be a bool, got 1\.",
            TypeError)
    g = NewtonUnlearner(loss="squared", mechanism="guo").fit(X, y)
    _raises(lambda: g.retrain_reference([0], add_noise=True),
            r"add_noise=True needs mechanism='newton' and a noise family, got "
            r"mechanism='guo', noise='gaussian'\.")
    quiet = NewtonUnlearner(loss="squared", noise=None).fit(X, y)
    _raises(lambda: quiet.retrain_reference([0], add_noise=True),
            r"add_noise=True needs mechanism='newton' and a noise family, got "
            r"mechanism='newton', noise=None\.")
    # the state is untouched
    assert not est.removed_.any() and est.unlearn_report_ is None


# ------------------------------------------------------------------ intercept edge cases
def test_profiled_intercept_without_a_minimiser_is_an_error():
    X = np.array([[0.1], [0.2], [0.3], [0.4]])
    est = NewtonUnlearner(noise=None).fit(X, np.array([0, 0, 1, 1]))
    _raises(lambda: est.unlearn([2, 3]),
            r"the rows still kept hold a single class: the unpenalised intercept has no "
            r"minimiser \(use fit_intercept=False\)\.")
    est = NewtonUnlearner(loss="poisson", noise=None).fit(X, np.array([0.0, 0.0, 2.0, 1.0]))
    _raises(lambda: est.unlearn([2, 3]),
            r"the rows still kept have only zero counts: the unpenalised intercept has no "
            r"minimiser \(use fit_intercept=False\)\.")


@pytest.mark.parametrize("loss", ["squared", "logistic", "poisson"])
def test_released_intercept_is_the_exact_profile(loss):
    X, y, _ = make_glm_data(70, 3, loss=loss, random_state=6)
    y = y.astype(float)
    est = NewtonUnlearner(loss=loss, noise_scale=0.5, random_state=2).fit(X, y)
    est.unlearn([0, 1, 2])
    keep = np.arange(3, 70)
    assert est.intercept_ == pytest.approx(_profiled(est.coef_, X[keep], y[keep], loss),
                                           abs=1e-9)


# ------------------------------------------------------------------ parameters
@pytest.mark.parametrize("params, exc, pattern", [
    ({"alpha": 0.0}, ValueError, r"alpha must be > 0: the certificate needs an alpha-strongly "
     r"convex objective \(pass allow_singular=True to accept alpha=0 without any "
     r"certificate\)\."),
    # one parameter alone: the constraint check names the class, the parameter, what is
    # allowed and the value
    ({"alpha": -1.0}, ValueError, r"NewtonUnlearner parameter alpha must be in \[0, inf\], "
     r"got -1\.0\."),
    ({"loss": "hinge"}, ValueError, r"NewtonUnlearner parameter loss must be one of .*, "
     r"got 'hinge'\."),
    ({"penalty": "l1"}, ValueError, r"NewtonUnlearner parameter penalty must be one of "
     r"\['l2'\], got 'l1'\."),
    ({"epsilon": 0.0}, ValueError, r"NewtonUnlearner parameter epsilon must be in \(0, inf\), "
     r"got 0\.0\."),
    ({"noise": "cauchy"}, ValueError, r"NewtonUnlearner parameter noise must be one of "
     r"\['gaussian', 'laplace_l2', None\], got 'cauchy'\."),
    ({"noise_scale": "auto"}, ValueError, r"NewtonUnlearner parameter noise_scale must be one "
     r"of \['paper'\] or a real in \[0, inf\], got 'auto'\."),
    ({"noise_scale": -1.0}, ValueError, r"NewtonUnlearner parameter noise_scale must be .*"
     r"a real in \[0, inf\], got -1.*"),
    ({"polylog_c1": 0.0}, ValueError, r"NewtonUnlearner parameter polylog_c1 must be in "
     r"\(0, inf\), got 0\.0\."),
    ({"polylog_c2": 0.0}, ValueError, r"NewtonUnlearner parameter polylog_c2 must be in "
     r"\(0, inf\), got 0\.0\."),
    ({"n_newton_steps": 0}, ValueError, r"NewtonUnlearner parameter n_newton_steps must be in "
     r"\[1, inf\], got 0\."),
    ({"mechanism": "foo"}, ValueError, r"NewtonUnlearner parameter mechanism must be one of "
     r"\['newton', 'guo', 'sekhari'\], got 'foo'\."),
    # across parameters: checked in fit
    ({"mechanism": "guo", "loss": "poisson"}, ValueError,
     r"mechanism='guo' needs bounded loss derivatives and supports loss in \['logistic', "
     r"'squared'\], got loss='poisson'\."),
    ({"mechanism": "sekhari", "loss": "poisson", "feature_bound": 9.0}, ValueError,
     r"mechanism='sekhari' needs bounded loss derivatives.*"),
    ({"mechanism": "guo", "noise": "laplace_l2"}, ValueError,
     r"mechanism='guo' uses Gaussian noise; noise must be 'gaussian' or None\."),
    ({"mechanism": "sekhari"}, ValueError,
     r"mechanism='sekhari' needs feature_bound, an a-priori bound on the norm of every design "
     r"row: its noise scale depends on the loss's Lipschitz constants, which must not be "
     r"computed from the data\."),
    ({"feature_bound": 0.0}, ValueError, r"NewtonUnlearner parameter feature_bound must be in "
     r"\(0, inf\), got 0\.0\."),
    ({"delta": 1.0}, ValueError, r"NewtonUnlearner parameter delta must be in \(0, 1\), "
     r"got 1\.0\."),
    ({"delta": 0.0}, ValueError, r"NewtonUnlearner parameter delta must be in \(0, 1\), "
     r"got 0\.0\."),
    ({"tol": 0.0}, ValueError, r"NewtonUnlearner parameter tol must be in \(0, inf\), "
     r"got 0\.0\."),
    ({"max_iter": 0}, ValueError, r"NewtonUnlearner parameter max_iter must be in "
     r"\[1, inf\], got 0\."),
    ({"verify": "yes"}, TypeError, r"NewtonUnlearner parameter verify must be a bool, "
     r"got str 'yes'\."),
    ({"store_hessian": 1}, TypeError, r"NewtonUnlearner parameter store_hessian must be a "
     r"bool, got int 1\."),
    ({"assume_optimal": None}, TypeError, r"NewtonUnlearner parameter assume_optimal must be "
     r"a bool, got NoneType None\."),
    ({"add_noise_on_empty": 0}, TypeError, r"NewtonUnlearner parameter add_noise_on_empty "
     r"must be a bool, got int 0\."),
    ({"allow_singular": "no"}, TypeError, r"NewtonUnlearner parameter allow_singular must be "
     r"a bool, got str 'no'\."),
    ({"fit_intercept": 1}, TypeError, r"NewtonUnlearner parameter fit_intercept must be a "
     r"bool, got int 1\."),
])
def test_parameter_errors_in_full(params, exc, pattern):
    X, y, _ = make_glm_data(30, 3, random_state=0)
    _raises(lambda: NewtonUnlearner(**params).fit(X, y), pattern, exc)


def test_boundary_parameters_are_accepted():
    X, y, _ = make_glm_data(30, 3, random_state=0)
    for params in ({"alpha": 0.0, "allow_singular": True, "loss": "squared"},
                   {"epsilon": 1e-3}, {"noise_scale": 0.0}, {"noise": None},
                   {"noise": "laplace_l2"}, {"polylog_c1": 1e-3, "polylog_c2": 1e-3},
                   {"n_newton_steps": 1}, {"delta": 0.5}, {"tol": 1e-3}, {"max_iter": 1},
                   {"feature_bound": 1e-3}, {"mechanism": "guo", "noise": None},
                   {"verify": np.bool_(True)}):
        y_fit = y.astype(float) if params.get("loss") == "squared" else y
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            NewtonUnlearner(**params).fit(X, y_fit)


def test_data_errors_in_full():
    X, y, _ = make_glm_data(30, 3, random_state=0)
    _raises(lambda: NewtonUnlearner().fit(X, np.arange(30) % 3),
            r"Only binary classification is supported: loss='logistic' needs exactly 2 "
            r"classes in y, got 3 class\(es\): \[0, 1, 2\]\.")
    _raises(lambda: NewtonUnlearner(loss="squared").fit(X, np.r_[np.inf, np.ones(29)]),
            r"y must be finite\.|.*infinity.*")
    _raises(lambda: NewtonUnlearner(loss="poisson").fit(X, -np.ones(30)),
            r"loss='poisson' needs non-negative y\.")


def test_laplace_ledger_and_linear_predictor():
    X, y, _ = make_glm_data(40, 3, random_state=0)
    est = NewtonUnlearner(noise="laplace_l2", random_state=0).fit(X, y).unlearn([0])
    assert est.unlearn_report_.noise == "laplace_l2" and math.isnan(est.mu_spent_)
    assert est.unlearn_report_.sigma == pytest.approx(est.unlearn_report_.r / 0.75)


def test_test_instances_and_tags():
    inst = NewtonUnlearner._statlearn_test_instances()
    assert [(i.loss, i.fit_intercept, i.random_state) for i in inst] == [
        ("logistic", True, 0), ("squared", True, 0), ("poisson", True, 0),
        ("squared", False, 0)]
    t = NewtonUnlearner().__sklearn_tags__()
    assert t.estimator_type == "classifier" and t.target_tags.required
    assert t.array_api_support and t.classifier_tags.multi_class is False
    t = NewtonUnlearner(loss="poisson").__sklearn_tags__()
    assert t.estimator_type == "regressor" and t.target_tags.positive_only
    t = NewtonUnlearner(loss="squared").__sklearn_tags__()
    assert t.estimator_type == "regressor" and not t.target_tags.positive_only


# ------------------------------------------------------------------ written against survivors
def test_guo_certificate_divides_by_alpha_and_removing_everything():
    X, y, _ = make_glm_data(60, 3, random_state=1)
    est = NewtonUnlearner(mechanism="guo", alpha=2.0, fit_intercept=False,
                          random_state=0).fit(X, y)
    est.unlearn([0])
    rep = est.unlearn_report_
    assert rep.delta_cert == pytest.approx(rep.newton_residual_norm / 2.0, rel=1e-12)
    assert rep.hessian == "stored" and rep.fallback is False
    # assume_optimal: the removed rows' gradient only, also for the Guo mechanism
    opt = NewtonUnlearner(mechanism="guo", alpha=2.0, fit_intercept=False, assume_optimal=True,
                          random_state=0).fit(X, y).unlearn([0])
    np.testing.assert_allclose(opt.coef_, est.coef_, rtol=1e-5, atol=1e-8)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnlearningWarning)
        est.unlearn(np.arange(1, 60))
    rep = est.unlearn_report_
    assert (rep.hessian, rep.n_newton_steps, rep.delta_cert, rep.fallback) == ("none", 0, 0.0,
                                                                             False)


def _guo_step(theta, X, y, alpha, shift):
    g = X.T @ (_sigmoid(X @ theta) - y) + alpha * theta + shift
    s = _sigmoid(X @ theta)
    H = X.T @ ((s * (1 - s))[:, None] * X) + alpha * np.eye(X.shape[1])
    return np.linalg.solve(H, g)


def test_guo_accumulates_the_residual_bound_and_retrains_over_budget():
    # Guo et al.: after each Newton removal add gamma ||X|| ||d|| ||X d|| (gamma = 1/4 for
    # the logistic loss) to the running bound; retrain with a fresh perturbation when it
    # exceeds the budget. The bound is recomputed here from the released states.
    X, y, _ = make_glm_data(60, 3, random_state=2)
    X = 4.0 * X  # ||X||_2 is about 4: a bound with ||X|| misplaced is 16 times off
    y = y.astype(float)
    budget = 3e-2
    # the direct Hessian at the current state (the stored one is the fit point's)
    est = NewtonUnlearner(mechanism="guo", noise_scale=budget, fit_intercept=False,
                          store_hessian=False, random_state=0).fit(X, y)
    theta, acc, removed = est.coef_.copy(), 0.0, []
    flags = []
    for i in range(8):
        shift = np.asarray(est._shift).copy()
        removed.append(i)
        keep = np.setdiff1d(np.arange(60), removed)
        d = _guo_step(theta, X[keep], y[keep], 1.0, shift)
        acc += 0.25 * np.linalg.norm(X[keep], 2) * np.linalg.norm(d) * np.linalg.norm(X[keep] @ d)
        est.unlearn([i])
        rep = est.unlearn_report_
        flags.append(rep.fallback)
        assert rep.fallback == (acc > budget), (i, acc)
        if rep.fallback:
            acc = 0.0
            new_shift = np.asarray(est._shift)
            assert not np.allclose(new_shift, shift)  # a fresh perturbation
            assert new_shift.shape == (3,)
            # the retrained model minimises the newly perturbed objective, not the plain one
            assert np.linalg.norm(_guo_step(est.coef_, X[keep], y[keep], 1.0, new_shift)) < 1e-8
            assert np.linalg.norm(_guo_step(est.coef_, X[keep], y[keep], 1.0, 0 * shift)) > 1e-6
        else:
            np.testing.assert_allclose(est.coef_, theta - d, rtol=1e-9, atol=1e-12)
        theta = est.coef_.copy()
    assert any(flags) and not all(flags)


def test_alpha_zero_removing_everything_is_not_certified():
    X, y, _ = make_glm_data(10, 3, loss="squared", random_state=0)
    est = NewtonUnlearner(loss="squared", alpha=0.0, allow_singular=True, noise=None,
                          fit_intercept=False).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnlearningWarning)
        est.unlearn(np.arange(10))
    assert est.unlearn_report_.certified is False


def test_sekhari_certificate_with_verification_and_seeded_noise():
    X, y, _ = make_glm_data(80, 3, random_state=0)
    y = y.astype(float)
    R = 1.1 * np.linalg.norm(np.c_[X, np.ones(80)], axis=1).max()
    est = NewtonUnlearner(mechanism="sekhari", feature_bound=R, alpha=0.5, noise=None,
                          random_state=0).fit(X, y)
    est.unlearn([0, 1])
    Z = _design(X, True)
    keep = np.arange(2, 80)
    theta = np.r_[est.coef_, est.intercept_]
    g = _grad(theta, Z[keep], y[keep], "logistic", np.full(4, 0.5))  # intercept penalised
    rep = est.unlearn_report_
    assert rep.delta_cert == pytest.approx(np.linalg.norm(g) / 0.5, rel=1e-6)
    assert rep.newton_residual_norm == pytest.approx(np.linalg.norm(g), rel=1e-6)
    # without verification no certificate is computed
    est = NewtonUnlearner(mechanism="sekhari", feature_bound=R, alpha=0.5, verify=False,
                          noise=None).fit(X, y).unlearn([0])
    assert math.isnan(est.unlearn_report_.delta_cert)
    # the noise comes from the seeded stream
    a = NewtonUnlearner(mechanism="sekhari", feature_bound=R, random_state=3).fit(X, y)
    b = NewtonUnlearner(mechanism="sekhari", feature_bound=R, random_state=3).fit(X, y)
    np.testing.assert_array_equal(a.unlearn([5]).coef_, b.unlearn([5]).coef_)
    c = NewtonUnlearner(mechanism="sekhari", feature_bound=R, random_state=0).fit(X, y)
    assert not np.array_equal(c.unlearn([5], random_state=4).coef_, a.coef_)
    np.testing.assert_array_equal(
        c.coef_, NewtonUnlearner(mechanism="sekhari", feature_bound=R, random_state=0)
        .fit(X, y).unlearn([5], random_state=4).coef_)


def test_singular_fit_uses_the_pseudo_inverse():
    # more features than rows, alpha = 0: the Hessian is singular; the fit still
    # interpolates the data
    rng = np.random.default_rng(0)
    X = rng.normal(size=(5, 8))
    y = rng.normal(size=5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = NewtonUnlearner(loss="squared", alpha=0.0, allow_singular=True, noise=None,
                              fit_intercept=False).fit(X, y)
    np.testing.assert_allclose(X @ est.coef_, y, atol=1e-8)


def test_array_api_inputs_are_validated_in_full():
    xps = pytest.importorskip("array_api_strict")
    X, y, _ = make_glm_data(30, 1, loss="squared", random_state=0)
    est = NewtonUnlearner(loss="squared", noise=None).fit(xps.asarray(X), xps.asarray(y))
    ref = NewtonUnlearner(loss="squared", noise=None).fit(X, y)
    np.testing.assert_allclose(np.asarray(est.coef_), ref.coef_, rtol=1e-10)
    _raises(lambda: NewtonUnlearner(loss="squared").fit(xps.asarray(X), xps.asarray(y[:-1])),
            r"y must be 1-D with 30 entries, got shape \(29,\)\.")
    bad = X.copy()
    bad[3, 0] = np.nan
    _raises(lambda: NewtonUnlearner(loss="squared").fit(xps.asarray(bad), xps.asarray(y)),
            r"X must not contain NaN or infinity\.")
    _raises(lambda: NewtonUnlearner(loss="squared").fit(xps.asarray(X[0]), xps.asarray(y)),
            r"X must be 2-D, got 1 dimension\(s\)\.")
    _raises(lambda: NewtonUnlearner(loss="squared").fit(xps.asarray(X[:, :0]), xps.asarray(y)),
            r"X must have at least one row and column, got \(30, 0\)\.")
    _raises(lambda: est.predict(xps.asarray(np.c_[X, X])),
            r"X has 2 features, but NewtonUnlearner is expecting 1 features as input\.")


def test_retrain_reference_honours_tol_and_max_iter(logistic):
    X, y = logistic
    pen = _pen(6, 1.0, False)
    # max_iter = 1: one Newton step from the current state (warm start)
    est = NewtonUnlearner(fit_intercept=False, noise=None, max_iter=1).fit(X, y)
    beta = est.coef_.copy()
    keep = np.arange(3, 120)
    step = beta - np.linalg.solve(_hess(beta, X[keep], y[keep], "logistic", pen),
                                  _grad(beta, X[keep], y[keep], "logistic", pen))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = est.retrain_reference([0, 1, 2])
    np.testing.assert_allclose(ref, step, rtol=1e-9, atol=1e-12)
    # a loose tol: when the warm start is already within tol * alpha, it is returned
    est = NewtonUnlearner(fit_intercept=False, noise=None, tol=1.0).fit(X, y)
    beta = est.coef_.copy()
    g = _grad(beta, X[1:], y[1:], "logistic", pen)
    assert np.linalg.norm(g) <= 1.0
    np.testing.assert_array_equal(est.retrain_reference([0]), beta)


def test_woodbury_failure_warns_and_falls_back_to_the_direct_hessian(logistic, monkeypatch):
    import statlearn.unlearning._estimator as mod
    from statlearn.unlearning._linalg import CholeskyError

    X, y = logistic
    direct = NewtonUnlearner(fit_intercept=False, noise=None, store_hessian=False).fit(X, y)
    direct.unlearn([0, 1])
    est = NewtonUnlearner(fit_intercept=False, noise=None).fit(X, y)

    def failing(*args, **kwargs):
        raise CholeskyError("not positive definite")

    monkeypatch.setattr(mod, "woodbury_downdate_solve", failing)
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        est.unlearn([0, 1])
    msgs = [str(w.message) for w in rec if w.category is RuntimeWarning]
    assert msgs == ["Woodbury downdate was not numerically positive definite; assembling the "
                    "retained Hessian directly."]
    np.testing.assert_allclose(est.coef_, direct.coef_, rtol=1e-12)
    assert est.unlearn_report_.hessian == "direct"


def test_a_failed_retained_factorisation_is_named(logistic, monkeypatch):
    import statlearn.unlearning._linalg as linalg

    X, y = logistic
    est = NewtonUnlearner(fit_intercept=False, noise=None, store_hessian=False).fit(X, y)
    real, calls = linalg.cholesky_lower, []

    def flaky(H, xp):
        if not calls:
            calls.append(1)
            raise linalg.CholeskyError("not positive definite")
        return real(H, xp)

    monkeypatch.setattr(linalg, "cholesky_lower", flaky)
    with pytest.warns(RuntimeWarning, match=r"^Cholesky factorisation of the retained Hessian "
                                            r"failed; retrying with diagonal jitter"):
        est.unlearn([0])


def test_guo_retraining_honours_tol_and_max_iter():
    X, y, _ = make_glm_data(60, 3, random_state=2)
    y = y.astype(float)
    # max_iter = 1: the retrain is one Newton step from zero on the newly perturbed objective
    est = NewtonUnlearner(mechanism="guo", noise_scale=1e-9, fit_intercept=False, max_iter=1,
                          random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.fit(X, y).unlearn([0])
    assert est.unlearn_report_.fallback
    shift = np.asarray(est._shift)
    want = -_guo_step(np.zeros(3), X[1:], y[1:], 1.0, shift)
    np.testing.assert_allclose(est.coef_, want, rtol=1e-9, atol=1e-12)
    # a tolerance so loose that zero already meets it: the retrain returns zero
    est = NewtonUnlearner(mechanism="guo", noise_scale=1e-9, fit_intercept=False, tol=1e3,
                          random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.fit(X, y).unlearn([0])
    assert est.unlearn_report_.fallback
    np.testing.assert_array_equal(est.coef_, np.zeros(3))


def test_intercept_edge_counts():
    X = np.array([[0.1], [0.2], [0.3], [0.4], [0.5]])
    # one positive left among the kept rows: the intercept still has a minimiser
    est = NewtonUnlearner(noise=None).fit(X, np.array([1, 0, 1, 0, 0]))
    est.unlearn([0])
    z = X[1:, 0] * est.coef_[0] + est.intercept_
    assert np.sum(_sigmoid(z)) == pytest.approx(1.0, abs=1e-12)
    # only positives left: no minimiser
    est = NewtonUnlearner(noise=None).fit(X, np.array([1, 1, 0, 1, 1]))
    _raises(lambda: est.unlearn([2]),
            r"the rows still kept hold a single class: the unpenalised intercept has no "
            r"minimiser \(use fit_intercept=False\)\.")
    # Poisson counts summing to 1 are enough
    est = NewtonUnlearner(loss="poisson", noise=None).fit(X, np.array([0.0, 1.0, 0.0, 2.0, 0.0]))
    est.unlearn([3])
    z = X[[0, 1, 2, 4], 0] * est.coef_[0] + est.intercept_
    assert np.sum(np.exp(z)) == pytest.approx(1.0, rel=1e-12)
    # removing every row: no data for the intercept, which is released as 0
    est = NewtonUnlearner(noise=None).fit(X, np.array([1, 0, 1, 0, 0]))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnlearningWarning)
        est.unlearn(np.arange(5))
    assert est.intercept_ == 0.0 and np.all(est.coef_ == 0.0)


def test_logistic_intercept_root_is_tight():
    X, y, _ = make_glm_data(70, 3, random_state=6)
    est = NewtonUnlearner(noise_scale=0.5, random_state=2).fit(X, y).unlearn([0, 1])
    z = X[2:] @ est.coef_ + est.intercept_
    # the profiled intercept solves sum expit(z + b) = sum y to rounding
    assert abs(np.sum(_sigmoid(z)) - y[2:].sum()) < 1e-12


def test_array_api_predictions_stay_in_their_namespace():
    xps = pytest.importorskip("array_api_strict")
    X, y, _ = make_glm_data(30, 2, loss="squared", random_state=0)
    est = NewtonUnlearner(loss="squared", noise=None).fit(xps.asarray(X), xps.asarray(y))
    pred = est.predict(xps.asarray(X))
    assert isinstance(pred, type(xps.asarray(X)))
    ref = NewtonUnlearner(loss="squared", noise=None).fit(X, y)
    np.testing.assert_allclose(np.asarray(pred), ref.predict(X), rtol=1e-10)
    # one row is enough for the squared loss; zero rows are refused
    one = NewtonUnlearner(loss="squared", noise=None).fit(xps.asarray(X[:1]), xps.asarray(y[:1]))
    assert np.asarray(one.predict(xps.asarray(X[:1]))).shape == (1,)
    _raises(lambda: NewtonUnlearner(loss="squared").fit(xps.asarray(X[:0]), xps.asarray(y[:0])),
            r"X must have at least one row and column, got \(0, 2\)\.")


@pytest.mark.parametrize("intercept", [True, False])
def test_retrained_reference_adds_the_mechanism_noise_from_the_seeded_stream(intercept):
    # the reference mechanism is beta_hat_{-M} + b with b = draw_noise(noise, r, epsilon, p)
    # drawn from the given seed (the public noise sampler, tested on its own)
    from statlearn.unlearning import draw_noise

    X, y, _ = make_glm_data(50, 3, loss="squared", random_state=7)
    est = NewtonUnlearner(loss="squared", alpha=0.5, fit_intercept=intercept).fit(X, y)
    Z = _design(X, intercept)
    p = Z.shape[1]
    for removed, m in (([4, 9], 2), ([], 1)):
        keep = np.setdiff1d(np.arange(50), removed)
        theta = _solve(Z[keep], y[keep], "squared", _pen(p, 0.5, intercept))
        r = _radius(50, m, 0.5)
        b = draw_noise("gaussian", r, 0.75, 3, n_draws=4, random_state=11)
        got = est.retrain_reference(removed, add_noise=True, n_draws=4, random_state=11)
        np.testing.assert_allclose(got[:, :3], theta[:3] + b, rtol=1e-9, atol=1e-12)
        if intercept:
            for row in got:
                assert row[3] == pytest.approx(
                    _profiled(row[:3], X[keep], y[keep], "squared"), abs=1e-10)
        one = est.retrain_reference(removed, add_noise=True, random_state=11)
        np.testing.assert_allclose(one[:3], theta[:3] + b[0], rtol=1e-9, atol=1e-12)


def test_singular_retrained_reference():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(5, 8))
    y = rng.normal(size=5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = NewtonUnlearner(loss="squared", alpha=0.0, allow_singular=True, noise=None,
                              fit_intercept=False).fit(X, y)
        ref = est.retrain_reference([0])
    np.testing.assert_allclose(X[1:] @ ref, y[1:], atol=1e-8)


def test_a_zero_linear_predictor_predicts_the_first_class():
    X, y, _ = make_glm_data(40, 3, random_state=0)
    est = NewtonUnlearner(fit_intercept=False, noise=None).fit(X, np.where(y == 1, "b", "a"))
    # like scikit-learn's LogisticRegression: class 1 only when x^T beta > 0
    np.testing.assert_array_equal(est.predict(np.zeros((2, 3))), ["a", "a"])
    np.testing.assert_allclose(est.predict_proba(np.zeros((1, 3))), [[0.5, 0.5]])


def test_array_api_poisson_predictions_and_reference_noise():
    xps = pytest.importorskip("array_api_strict")
    X, y, _ = make_glm_data(40, 2, loss="poisson", random_state=0)
    est = NewtonUnlearner(loss="poisson", noise=None).fit(xps.asarray(X), xps.asarray(y))
    ref = NewtonUnlearner(loss="poisson", noise=None).fit(X, y)
    pred = est.predict(xps.asarray(X))
    assert isinstance(pred, type(xps.asarray(X)))
    np.testing.assert_allclose(np.asarray(pred), ref.predict(X), rtol=1e-9)
    noisy = NewtonUnlearner(loss="squared").fit(xps.asarray(X), xps.asarray(y.astype(float)))
    plain = NewtonUnlearner(loss="squared").fit(X, y.astype(float))
    np.testing.assert_allclose(noisy.retrain_reference([0], add_noise=True, random_state=2),
                               plain.retrain_reference([0], add_noise=True, random_state=2),
                               rtol=1e-9)


def test_assume_optimal_changes_only_the_first_step(logistic):
    X, y = logistic
    a = NewtonUnlearner(fit_intercept=False, noise=None, n_newton_steps=2, assume_optimal=True,
                        store_hessian=False).fit(X, y).unlearn([3, 8])
    b = NewtonUnlearner(fit_intercept=False, noise=None, n_newton_steps=2,
                        store_hessian=False).fit(X, y).unlearn([3, 8])
    # at the exact fit the removed rows' gradient is the retained gradient: same steps
    np.testing.assert_allclose(a.coef_, b.coef_, rtol=1e-7, atol=1e-10)


def test_fallback_refit_starts_from_the_newton_step_and_honours_the_solver_options(logistic):
    X, y = logistic
    X = 4.0 * X  # a more curved problem: Newton steps still move at 1e-5
    pen = _pen(6, 1.0, False)
    removed = np.arange(30)
    keep = np.arange(30, 120)
    Xk, yk = X[keep], y[keep]

    def newton(beta, Z, t):
        return beta - np.linalg.solve(_hess(beta, Z, t, "logistic", pen),
                                      _grad(beta, Z, t, "logistic", pen))

    exact = _solve(Xk, yk, "logistic", pen)
    # max_iter = 1: the request is one Newton step from the fitted state, and the fallback
    # refit one more step from the request's estimate (not a solve from zero)
    est = NewtonUnlearner(fit_intercept=False, noise=None, noise_scale=1e-14, max_iter=1,
                          store_hessian=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.fit(X, y)
        theta = est.coef_.copy()
        est.unlearn(removed)
    beta1 = newton(theta, Xk, yk)
    beta2 = newton(beta1, Xk, yk)
    assert np.linalg.norm(beta2 - exact) > 1e-6  # one more step would still move it
    rep = est.unlearn_report_
    assert rep.fallback and rep.certified == (rep.delta_cert <= 1e-10)
    np.testing.assert_allclose(est.coef_, beta2, rtol=1e-9, atol=1e-12)
    assert not np.allclose(newton(np.zeros(6), Xk, yk), beta2, rtol=1e-6)
    # a loose tolerance that the one-step estimate already meets: the refit keeps it
    est = NewtonUnlearner(fit_intercept=False, noise=None, noise_scale=1e-14, tol=1.0,
                          store_hessian=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.fit(X, y)
        theta = est.coef_.copy()
        est.unlearn(removed)
    beta1 = newton(theta, Xk, yk)
    assert np.linalg.norm(_grad(beta1, Xk, yk, "logistic", pen)) <= 1.0
    assert np.linalg.norm(beta1 - exact) > 1e-6
    rep = est.unlearn_report_
    assert rep.fallback and rep.certified
    np.testing.assert_allclose(est.coef_, beta1, rtol=1e-9, atol=1e-12)


def test_documented_defaults():
    assert NewtonUnlearner().get_params() == {
        "loss": "logistic", "alpha": 1.0, "penalty": "l2", "epsilon": 0.75,
        "noise": "gaussian", "noise_scale": "paper", "polylog_c1": None, "polylog_c2": None,
        "verify": True, "n_newton_steps": 1, "mechanism": "newton", "delta": 1e-5,
        "store_hessian": True, "assume_optimal": False, "add_noise_on_empty": True,
        "allow_singular": False, "fit_intercept": True, "tol": 1e-10, "max_iter": 100,
        "feature_bound": None, "random_state": None}


def test_singular_direction_is_reported_as_direct():
    X, y, _ = make_glm_data(60, 4, loss="squared", random_state=0)
    est = NewtonUnlearner(loss="squared", alpha=0.0, allow_singular=True, noise=None,
                          fit_intercept=False).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnlearningWarning)
        est.unlearn([0])
    assert est.unlearn_report_.hessian == "direct"


# ------------------------------------------------------------------ second round of survivors
def test_index_errors_name_the_argument():
    X, y, _ = make_glm_data(30, 3, random_state=0)
    est = NewtonUnlearner(fit_intercept=False, noise=None).fit(X, y)
    _raises(lambda: est.unlearn([30]), r"indices must lie in \[0, 29\] \(rows seen by fit\), "
                                       r"got .*")
    _raises(lambda: est.retrain_reference([0, 0]), r"indices must not repeat a row; .*")


def test_regression_tags_are_set():
    t = NewtonUnlearner(loss="squared").__sklearn_tags__()
    assert t.regressor_tags is not None and t.classifier_tags is None


@pytest.mark.parametrize("loss", ["logistic", "squared"])
def test_released_noise_is_the_seeded_draw(loss):
    # released = noise-free step + b, b = draw_noise(noise, r, epsilon, p) from the seeded
    # stream (the public sampler); for Sekhari b = draw_noise("gaussian", sigma, 1, p + 1)
    from statlearn.unlearning import draw_noise

    X, y, _ = make_glm_data(60, 3, loss=loss, random_state=1)
    y = y.astype(float)
    est = NewtonUnlearner(loss=loss, random_state=5).fit(X, y).unlearn([2])
    free = NewtonUnlearner(loss=loss, noise=None).fit(X, y).unlearn([2])
    b = draw_noise("gaussian", est.unlearn_report_.r, 0.75, 3, random_state=5)
    np.testing.assert_allclose(est.coef_ - free.coef_, b, rtol=1e-9, atol=1e-12)
    R = 1.5 * np.linalg.norm(np.c_[X, np.ones(60)], axis=1).max()
    sek = NewtonUnlearner(loss=loss, mechanism="sekhari", feature_bound=R,
                          random_state=5).fit(X, y).unlearn([2])
    sek_free = NewtonUnlearner(loss=loss, mechanism="sekhari", feature_bound=R,
                               noise=None).fit(X, y).unlearn([2])
    b = draw_noise("gaussian", sek.unlearn_report_.sigma, 1.0, 4, random_state=5)
    np.testing.assert_allclose(np.r_[sek.coef_, sek.intercept_]
                               - np.r_[sek_free.coef_, sek_free.intercept_], b,
                               rtol=1e-9, atol=1e-12)


def test_sekhari_small_noise_is_still_added_and_never_falls_back():
    X, y, _ = make_glm_data(400, 3, random_state=0)
    R = 1.01 * np.linalg.norm(np.c_[X, np.ones(400)], axis=1).max()
    est = NewtonUnlearner(mechanism="sekhari", feature_bound=R, alpha=50.0, noise_scale=1e-14,
                          random_state=0).fit(X, y).unlearn([0])
    rep = est.unlearn_report_
    assert rep.sigma < 1 and rep.noise == "gaussian"
    assert rep.fallback is False and rep.certified is True
    # exactly at the bound is allowed
    NewtonUnlearner(mechanism="sekhari", feature_bound=float(
        np.linalg.norm(np.c_[X, np.ones(400)], axis=1).max())).fit(X, y)


def test_report_timing_and_the_no_noise_ledger():
    X, y, _ = make_glm_data(20, 3, random_state=0)
    est = NewtonUnlearner(fit_intercept=False, noise=None).fit(X, y).unlearn([1])
    assert isinstance(est.unlearn_report_.seconds, float)
    assert 0.0 <= est.unlearn_report_.seconds < 60.0
    est = NewtonUnlearner(add_noise_on_empty=False).fit(X, y).unlearn([])
    assert 0.0 <= est.unlearn_report_.seconds < 60.0
    # without noise, removing everything leaves no error: mu_effective = 0
    est = NewtonUnlearner(fit_intercept=False, noise=None).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnlearningWarning)
        est.unlearn(np.arange(20))
    assert est.unlearn_report_.delta_cert == 0.0 and est.unlearn_report_.mu_effective == 0.0


def test_object_labels_and_many_classes_in_the_message():
    X, y, _ = make_glm_data(40, 3, random_state=0)
    labels = np.where(y == 1, "yes", "no").astype(object)
    est = NewtonUnlearner(noise=None).fit(X, labels)
    np.testing.assert_array_equal(est.classes_, ["no", "yes"])
    _raises(lambda: NewtonUnlearner().fit(X, np.arange(40) % 7),
            r"Only binary classification is supported: loss='logistic' needs exactly 2 "
            r"classes in y, got 7 class\(es\): \[0, 1, 2, 3, 4\]\.")


def test_array_api_targets_must_be_finite_and_unlearning_runs():
    xps = pytest.importorskip("array_api_strict")
    X, y, _ = make_glm_data(30, 2, loss="squared", random_state=0)
    bad = y.copy()
    bad[0] = np.inf
    _raises(lambda: NewtonUnlearner(loss="squared").fit(xps.asarray(X), xps.asarray(bad)),
            r"y must be finite\.")
    est = NewtonUnlearner(loss="squared", noise=None).fit(xps.asarray(X), xps.asarray(y))
    ref = NewtonUnlearner(loss="squared", noise=None).fit(X, y)
    est.unlearn([0, 3])
    ref.unlearn([0, 3])
    np.testing.assert_allclose(np.asarray(est.coef_), ref.coef_, rtol=1e-9)
    assert est.intercept_ == pytest.approx(ref.intercept_, rel=1e-9)


def test_sequential_requests_continue_from_the_noise_free_unprofiled_state(logistic):
    X, y = logistic
    Z = _design(X, True)
    pen = _pen(7, 1.0, True)
    theta = _solve(Z, y, "logistic", pen)
    est = NewtonUnlearner(noise=None).fit(X, y)

    def step(beta, removed):
        keep = np.setdiff1d(np.arange(120), removed)
        # the stored Hessian is the fit point's, downdated by every removed row
        H = _hess(theta, Z[keep], y[keep], "logistic", pen)
        return beta - np.linalg.solve(H, _grad(beta, Z[keep], y[keep], "logistic", pen)), keep

    beta1, keep = step(theta, [0, 1])
    est.unlearn([0, 1])
    np.testing.assert_allclose(est.coef_, beta1[:-1], rtol=1e-9, atol=1e-12)
    beta2, keep = step(beta1, [0, 1, 2])  # from beta1 with its own intercept
    est.unlearn([2])
    np.testing.assert_allclose(est.coef_, beta2[:-1], rtol=1e-9, atol=1e-12)
    assert est.intercept_ == pytest.approx(
        _profiled(beta2[:-1], X[keep], y[keep], "logistic"), abs=1e-9)

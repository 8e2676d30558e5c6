"""Removal requests of the Newton mechanism against steps, radii and ledgers computed here.

The one Newton step on the retained objective, the certificate
``||grad P_{-M}|| / alpha`` (intercept profiled out), the radius
``C1 sqrt(C2 m^3 / (2 alpha n))`` and noise scale ``r / epsilon`` of Pandey et al.
(2025), Theorem 2, the exact refit when the certificate exceeds the radius, the
composed GDP parameter ``sqrt(sum epsilon_k^2)`` (Dong, Roth and Su), the edge
cases (empty requests, removing everything, ``alpha = 0``) and the Woodbury
downdate of the stored Hessian.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

from statlearn.unlearning import NewtonUnlearner, UnlearningWarning, make_glm_data

from ._reference import derivs, design, grad, hess, penalty, profiled, radius, solve


# ------------------------------------------------------------------ one request
@pytest.mark.parametrize("intercept", [True, False])
def test_logistic_request_is_one_newton_step_with_the_certificate(logistic, intercept):
    X, y = logistic
    alpha, M = 0.8, [4, 17, 60]
    est = NewtonUnlearner(alpha=alpha, fit_intercept=intercept, noise=None).fit(X, y)
    Z = design(X, intercept)
    pen = penalty(Z.shape[1], alpha, intercept)
    theta = solve(Z, y, "logistic", pen)
    keep = np.setdiff1d(np.arange(120), M)
    Zk, yk = Z[keep], y[keep]
    step = theta - np.linalg.solve(hess(theta, Zk, yk, "logistic", pen),
                                   grad(theta, Zk, yk, "logistic", pen))
    if intercept:
        coef = step[:-1]
        b0 = profiled(coef, X[keep], yk, "logistic")
        g = grad(np.r_[coef, b0], Zk, yk, "logistic", pen)[:-1]
    else:
        coef, b0 = step, 0.0
        g = grad(coef, Zk, yk, "logistic", pen)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnlearningWarning)
        est.unlearn(M)
    rep = est.unlearn_report_
    np.testing.assert_allclose(est.coef_, coef, rtol=1e-8, atol=1e-11)
    assert est.intercept_ == pytest.approx(b0, abs=1e-9)
    assert rep.delta_cert == pytest.approx(np.linalg.norm(g) / alpha, rel=1e-5, abs=1e-13)
    assert rep.newton_residual_norm == pytest.approx(np.linalg.norm(g), rel=1e-5, abs=1e-13)
    r = radius(120, 3, alpha)
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
    pen = penalty(6, 0.5, False)
    theta = solve(X, y, "logistic", pen)
    keep = np.setdiff1d(np.arange(120), [0])
    for _ in range(2):
        theta = theta - np.linalg.solve(hess(theta, X[keep], y[keep], "logistic", pen),
                                        grad(theta, X[keep], y[keep], "logistic", pen))
    est.unlearn([0])
    np.testing.assert_allclose(est.coef_, theta, rtol=1e-9, atol=1e-12)
    assert est.unlearn_report_.n_newton_steps == 2 and est.unlearn_report_.hessian == "direct"


def test_assume_optimal_uses_only_the_removed_gradient(logistic):
    X, y = logistic
    pen = penalty(6, 1.0, False)
    est = NewtonUnlearner(fit_intercept=False, noise=None, assume_optimal=True).fit(X, y)
    theta = solve(X, y, "logistic", pen)
    keep = np.setdiff1d(np.arange(120), [5, 6])
    # at the exact fit, grad L_{-M} = - sum over the removed rows of their loss gradients
    d1, _ = derivs("logistic", y[[5, 6]], X[[5, 6]] @ theta)
    g = -(X[[5, 6]].T @ d1)
    want = theta - np.linalg.solve(hess(theta, X[keep], y[keep], "logistic", pen), g)
    est.unlearn([5, 6])
    np.testing.assert_allclose(est.coef_, want, rtol=1e-6, atol=1e-9)


def test_assume_optimal_changes_only_the_first_step(logistic):
    X, y = logistic
    a = NewtonUnlearner(fit_intercept=False, noise=None, n_newton_steps=2, assume_optimal=True,
                        store_hessian=False).fit(X, y).unlearn([3, 8])
    b = NewtonUnlearner(fit_intercept=False, noise=None, n_newton_steps=2,
                        store_hessian=False).fit(X, y).unlearn([3, 8])
    # at the exact fit the removed rows' gradient is the retained gradient: same steps
    np.testing.assert_allclose(a.coef_, b.coef_, rtol=1e-7, atol=1e-10)


def test_sequential_requests_continue_from_the_noise_free_unprofiled_state(logistic):
    X, y = logistic
    Z = design(X, True)
    pen = penalty(7, 1.0, True)
    theta = solve(Z, y, "logistic", pen)
    est = NewtonUnlearner(noise=None).fit(X, y)

    def step(beta, removed):
        keep = np.setdiff1d(np.arange(120), removed)
        # the stored Hessian is the fit point's, downdated by every removed row
        H = hess(theta, Z[keep], y[keep], "logistic", pen)
        return beta - np.linalg.solve(H, grad(beta, Z[keep], y[keep], "logistic", pen)), keep

    beta1, keep = step(theta, [0, 1])
    est.unlearn([0, 1])
    np.testing.assert_allclose(est.coef_, beta1[:-1], rtol=1e-9, atol=1e-12)
    beta2, keep = step(beta1, [0, 1, 2])  # from beta1 with its own intercept
    est.unlearn([2])
    np.testing.assert_allclose(est.coef_, beta2[:-1], rtol=1e-9, atol=1e-12)
    assert est.intercept_ == pytest.approx(
        profiled(beta2[:-1], X[keep], y[keep], "logistic"), abs=1e-9)


# ------------------------------------------------------------------ verification and fallback
@pytest.mark.parametrize("loss", ["logistic", "poisson"])
def test_tiny_radius_falls_back_to_the_exact_refit(loss):
    X, y, _ = make_glm_data(60, 4, loss=loss, random_state=5)
    y = y.astype(float)
    est = NewtonUnlearner(loss=loss, noise=None, noise_scale=1e-14).fit(X, y)
    est.unlearn([0, 1])
    keep = np.arange(2, 60)
    Z = design(X, True)
    theta = solve(Z[keep], y[keep], loss, penalty(5, 1.0, True))
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


def test_fallback_refit_starts_from_the_newton_step_and_honours_the_solver_options(logistic):
    X, y = logistic
    X = 4.0 * X  # a more curved problem: Newton steps still move at 1e-5
    pen = penalty(6, 1.0, False)
    removed = np.arange(30)
    keep = np.arange(30, 120)
    Xk, yk = X[keep], y[keep]

    def newton(beta, Z, t):
        return beta - np.linalg.solve(hess(beta, Z, t, "logistic", pen),
                                      grad(beta, Z, t, "logistic", pen))

    exact = solve(Xk, yk, "logistic", pen)
    # max_iter = 1: the request is one Newton step from the fitted state, and the fallback
    # refit one more step from the request's estimate (not a solve from zero)
    est = NewtonUnlearner(fit_intercept=False, noise=None, noise_scale=1e-14, max_iter=1,
                          store_hessian=False, solver="newton")
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
                          solver="newton",
                          store_hessian=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.fit(X, y)
        theta = est.coef_.copy()
        est.unlearn(removed)
    beta1 = newton(theta, Xk, yk)
    assert np.linalg.norm(grad(beta1, Xk, yk, "logistic", pen)) <= 1.0
    assert np.linalg.norm(beta1 - exact) > 1e-6
    rep = est.unlearn_report_
    assert rep.fallback and rep.certified
    np.testing.assert_allclose(est.coef_, beta1, rtol=1e-9, atol=1e-12)


# ------------------------------------------------------------------ radius, noise and ledger
def test_noise_scale_radius_and_ledger(logistic):
    X, y = logistic
    eps = 0.6
    est = NewtonUnlearner(alpha=2.0, epsilon=eps, random_state=0).fit(X, y)
    noise_free = NewtonUnlearner(alpha=2.0, epsilon=eps, noise=None).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnlearningWarning)
        est.unlearn([1, 2, 3, 4])
        noise_free.unlearn([1, 2, 3, 4])
    r = radius(120, 4, 2.0)
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
    assert est.unlearn_report_.r == pytest.approx(radius(116, 2, 2.0), rel=1e-12)
    assert est.mu_spent_ == pytest.approx(math.sqrt(2) * eps, rel=1e-12)
    assert len(est.history_) == 2


def test_laplace_ledger_and_linear_predictor():
    X, y, _ = make_glm_data(40, 3, random_state=0)
    est = NewtonUnlearner(noise="laplace_l2", random_state=0).fit(X, y).unlearn([0])
    assert est.unlearn_report_.noise == "laplace_l2" and math.isnan(est.mu_spent_)
    assert est.unlearn_report_.sigma == pytest.approx(est.unlearn_report_.r / 0.75)


def test_radius_polylogs():
    X, y, _ = make_glm_data(50, 3, random_state=0)
    ln = math.log(50)
    est = NewtonUnlearner(verify=False, noise=None).fit(X, y).unlearn([0])
    assert est.unlearn_report_.r == pytest.approx(radius(50, 1, 1.0, ln, ln), rel=1e-12)
    assert est.unlearn_report_.certified is False and math.isnan(est.unlearn_report_.delta_cert)
    est = NewtonUnlearner(polylog_c1=2.0, polylog_c2=3.0, noise=None).fit(X, y).unlearn([0])
    assert est.unlearn_report_.r == pytest.approx(radius(50, 1, 1.0, 2.0, 3.0), rel=1e-12)
    est = NewtonUnlearner(polylog_c1=2.0, noise=None).fit(X, y).unlearn([0])
    assert est.unlearn_report_.r == pytest.approx(radius(50, 1, 1.0, 2.0, 1.0), rel=1e-12)
    est = NewtonUnlearner(verify=False, polylog_c2=3.0, noise=None).fit(X, y).unlearn([0])
    assert est.unlearn_report_.r == pytest.approx(radius(50, 1, 1.0, ln, 3.0), rel=1e-12)
    # a small n: ln n < 1, so the polylogs stay at 1
    Xs, ys, _ = make_glm_data(2, 3, random_state=0)
    ys = np.array([0.0, 1.0])
    est = NewtonUnlearner(verify=False, noise=None, fit_intercept=False).fit(Xs, ys)
    est.unlearn([0])
    assert est.unlearn_report_.r == pytest.approx(radius(2, 1, 1.0), rel=1e-12)
    # a float noise_scale is the radius itself
    est = NewtonUnlearner(noise_scale=0.25, random_state=0).fit(X, y).unlearn([0])
    assert est.unlearn_report_.r == 0.25 and est.unlearn_report_.sigma == pytest.approx(0.25 / 0.75)


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


# ------------------------------------------------------------------ edge cases
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
    assert est.unlearn_report_.r == pytest.approx(radius(40, 1, 1.0), rel=1e-12)
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


def test_large_request_warns_with_the_regime_it_leaves():
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


def test_alpha_zero_removing_everything_is_not_certified():
    X, y, _ = make_glm_data(10, 3, loss="squared", random_state=0)
    est = NewtonUnlearner(loss="squared", alpha=0.0, allow_singular=True, noise=None,
                          fit_intercept=False).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnlearningWarning)
        est.unlearn(np.arange(10))
    assert est.unlearn_report_.certified is False


def test_singular_direction_is_reported_as_direct():
    X, y, _ = make_glm_data(60, 4, loss="squared", random_state=0)
    est = NewtonUnlearner(loss="squared", alpha=0.0, allow_singular=True, noise=None,
                          fit_intercept=False).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnlearningWarning)
        est.unlearn([0])
    assert est.unlearn_report_.hessian == "direct"


# ------------------------------------------------------------------ the stored Hessian
def test_woodbury_failure_warns_and_falls_back_to_the_direct_hessian(logistic, monkeypatch):
    import statlearn.unlearning._mechanisms as mod
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

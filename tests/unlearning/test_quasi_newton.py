"""The quasi-Newton exact solver: same stopping rule as Newton, one Hessian per fit."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from statlearn.unlearning import NewtonUnlearner, _glm, make_glm_data
from tests.unlearning._reference import grad, hess, penalty, solve


def _count_hessians(monkeypatch):
    calls = []
    real = _glm.objective_hessian

    def counting(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(_glm, "objective_hessian", counting)
    import statlearn.unlearning._estimator as est_mod

    monkeypatch.setattr(est_mod, "objective_hessian", counting)
    return calls


@pytest.mark.parametrize("loss", ["squared", "logistic", "poisson"])
def test_fit_forms_one_hessian_and_stores_the_factor_of_the_fit(loss, monkeypatch):
    X, y, _ = make_glm_data(300, 20, loss=loss, random_state=3)
    y = y.astype(float)
    calls = _count_hessians(monkeypatch)
    est = NewtonUnlearner(loss=loss, alpha=0.5, fit_intercept=False, noise=None).fit(X, y)
    assert len(calls) == 1  # the polishing step's Hessian is the one stored
    n_quasi = len(calls)
    calls.clear()
    ref = NewtonUnlearner(loss=loss, alpha=0.5, fit_intercept=False, noise=None,
                          solver="newton").fit(X, y)
    assert len(calls) >= 2 > n_quasi  # Newton: one per step, plus the stored one
    pen = penalty(20, 0.5, False)
    theta = solve(X, y, loss, pen)
    # both within tol = 1e-10 of the minimiser (and polished to Newton's precision)
    np.testing.assert_allclose(est.coef_, theta, rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(est.coef_, ref.coef_, rtol=1e-8, atol=1e-10)
    assert np.linalg.norm(grad(est.coef_, X, y, loss, pen)) <= 1e-10 * 0.5
    L = est.hessian_cholesky_
    np.testing.assert_allclose(L @ L.T, hess(theta, X, y, loss, pen), rtol=1e-8, atol=1e-8)


def test_quasi_newton_stall_is_finished_by_newton_steps(monkeypatch):
    # with the quasi-Newton iterations capped at one, damped Newton steps finish
    X, y, _ = make_glm_data(200, 10, random_state=4)
    monkeypatch.setattr(_glm, "_LBFGS_MAX_ITER", 1)
    est = NewtonUnlearner(alpha=0.5, fit_intercept=False, noise=None).fit(X, y)
    pen = penalty(10, 0.5, False)
    np.testing.assert_allclose(est.coef_, solve(X, y, "logistic", pen), rtol=1e-8, atol=1e-10)
    assert est.n_iter_ >= 2  # one quasi-Newton and at least one Newton iteration
    # and their max_iter is honoured (a warning says the tolerance was not met)
    with pytest.warns(Warning, match="max_iter"):
        NewtonUnlearner(alpha=0.5, fit_intercept=False, noise=None, max_iter=1, tol=1e-15) \
            .fit(4.0 * X, y)


def test_refits_and_reference_agree_with_the_newton_solver():
    X, y, _ = make_glm_data(150, 8, random_state=5)
    out = {}
    for solver in ("quasi-newton", "newton"):
        est = NewtonUnlearner(alpha=0.5, noise=None, solver=solver, random_state=0).fit(X, y)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out[solver] = (est.retrain_reference([0, 1, 2]), est.unlearn([0, 1, 2]).coef_)
    for a, b in zip(out["quasi-newton"], out["newton"]):
        np.testing.assert_allclose(a, b, rtol=1e-8, atol=1e-10)

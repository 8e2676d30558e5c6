"""NewtonUnlearner.retrain_reference: the exact retrain and the retrained reference mechanism.

The reference is ``beta_hat_{-M} + b`` with the noise law of the request
(Pandey et al., 2025: the law ``P_re`` that certifiability compares against),
checked against a solver and the public noise sampler, here.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from statlearn.unlearning import NewtonUnlearner, make_glm_data
from tests.helpers import raises

from ._reference import design, grad, hess, penalty, profiled, radius, solve


def test_retrain_reference_and_its_noise():
    X, y, _ = make_glm_data(60, 3, loss="squared", random_state=4)
    est = NewtonUnlearner(loss="squared", alpha=0.5, random_state=0).fit(X, y)
    Z = design(X, True)
    keep = np.arange(2, 60)
    theta = solve(Z[keep], y[keep], "squared", penalty(4, 0.5, True))
    np.testing.assert_allclose(est.retrain_reference([0, 1]), theta, rtol=1e-9, atol=1e-12)
    draws = est.retrain_reference([0, 1], add_noise=True, n_draws=400, random_state=1)
    assert draws.shape == (400, 4)
    # noise on the coefficients with sd r / epsilon, the intercept profiled on the kept rows
    sd = radius(60, 2, 0.5) / 0.75
    emp = draws[:, :3].std(axis=0, ddof=1)
    # the sd estimate of 400 normal draws has relative sd 1/sqrt(798) = 3.5%: 5 sd bands
    assert np.all(np.abs(emp / sd - 1) < 0.18)
    np.testing.assert_allclose(draws[:, :3].mean(axis=0), theta[:3], atol=5 * sd / 20)
    for row in draws[:5]:
        assert row[3] == pytest.approx(profiled(row[:3], X[keep], y[keep], "squared"),
                                       abs=1e-10)
    one = est.retrain_reference([0, 1], add_noise=True, random_state=1)
    assert one.shape == (4,)
    nfi = NewtonUnlearner(loss="squared", alpha=0.5, fit_intercept=False).fit(X, y)
    one = nfi.retrain_reference([0, 1], add_noise=True, random_state=1)
    assert one.shape == (3,)
    raises(lambda: est.retrain_reference([0], n_draws=3), ValueError,
           names=["n_draws", "add_noise"], match=r"^n_draws needs add_noise=True\.$")
    raises(lambda: est.retrain_reference([0], add_noise=1), TypeError, names="add_noise",
           shows="got 1.", match=r"must be a bool, ")
    g = NewtonUnlearner(loss="squared", mechanism="guo").fit(X, y)
    raises(lambda: g.retrain_reference([0], add_noise=True), ValueError,
           names=["add_noise", "mechanism", "noise"], shows=["='guo'", "='gaussian'."],
           match=r"^add_noise=True needs mechanism='newton' and a noise family, got ")
    quiet = NewtonUnlearner(loss="squared", noise=None).fit(X, y)
    raises(lambda: quiet.retrain_reference([0], add_noise=True), ValueError,
           names=["add_noise", "mechanism", "noise"], shows=["mechanism='newton',", "=None."],
           match=r"^add_noise=True needs mechanism='newton' and a noise family, got ")
    # the state is untouched
    assert not est.removed_.any() and est.unlearn_report_ is None


def test_retrain_reference_honours_tol_and_max_iter(logistic):
    X, y = logistic
    pen = penalty(6, 1.0, False)
    # max_iter = 1: one Newton step from the current state (warm start)
    est = NewtonUnlearner(fit_intercept=False, noise=None, max_iter=1, solver="newton").fit(X, y)
    beta = est.coef_.copy()
    keep = np.arange(3, 120)
    step = beta - np.linalg.solve(hess(beta, X[keep], y[keep], "logistic", pen),
                                  grad(beta, X[keep], y[keep], "logistic", pen))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = est.retrain_reference([0, 1, 2])
    np.testing.assert_allclose(ref, step, rtol=1e-9, atol=1e-12)
    # a loose tol: when the warm start is already within tol * alpha, it is returned
    est = NewtonUnlearner(fit_intercept=False, noise=None, tol=1.0, solver="newton").fit(X, y)
    beta = est.coef_.copy()
    g = grad(beta, X[1:], y[1:], "logistic", pen)
    assert np.linalg.norm(g) <= 1.0
    np.testing.assert_array_equal(est.retrain_reference([0]), beta)


@pytest.mark.parametrize("intercept", [True, False])
def test_retrained_reference_adds_the_mechanism_noise_from_the_seeded_stream(intercept):
    # the reference mechanism is beta_hat_{-M} + b with b = draw_noise(noise, r, epsilon, p)
    # drawn from the given seed (the public noise sampler, tested on its own)
    from statlearn.unlearning import draw_noise

    X, y, _ = make_glm_data(50, 3, loss="squared", random_state=7)
    est = NewtonUnlearner(loss="squared", alpha=0.5, fit_intercept=intercept).fit(X, y)
    Z = design(X, intercept)
    p = Z.shape[1]
    for removed, m in (([4, 9], 2), ([], 1)):
        keep = np.setdiff1d(np.arange(50), removed)
        theta = solve(Z[keep], y[keep], "squared", penalty(p, 0.5, intercept))
        r = radius(50, m, 0.5)
        b = draw_noise("gaussian", r, 0.75, 3, n_draws=4, random_state=11)
        got = est.retrain_reference(removed, add_noise=True, n_draws=4, random_state=11)
        np.testing.assert_allclose(got[:, :3], theta[:3] + b, rtol=1e-9, atol=1e-12)
        if intercept:
            for row in got:
                assert row[3] == pytest.approx(
                    profiled(row[:3], X[keep], y[keep], "squared"), abs=1e-10)
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

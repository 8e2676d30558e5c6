"""``store_influence=True``: the Woodbury step from the stored rows ``H^{-1} x_i``.

The influence rows are ``X H^{-1}`` for the factored Hessian ``H`` of the fit;
a request then takes ``H^{-1} g`` by linearity (the kept gradient's part solved
once, the removed rows' part read off their influence rows) and the Woodbury
correction from the removed rows' influence rows alone. These tests compare the
rows with the definition, every request with the stored-factor step and with
a Newton step written from the definitions (``_reference``), count the
triangular solves a request makes, and check the fallback and the refusal.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from statlearn.unlearning import NewtonUnlearner, UnlearningWarning, make_glm_data
from statlearn.unlearning._linalg import woodbury_downdate_apply

from ._reference import grad, hess, penalty, solve


def _quiet_unlearn(est, M, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnlearningWarning)
        return est.unlearn(M, **kwargs)


def test_influence_rows_are_the_rows_of_x_times_the_inverse_hessian():
    X, y, _ = make_glm_data(200, 15, random_state=4)
    est = NewtonUnlearner(alpha=0.5, store_influence=True, random_state=0).fit(X, y)
    L = est.hessian_cholesky_
    Z1 = np.hstack([X, np.ones((200, 1))])  # the intercept column is part of the design
    assert est.influence_.shape == (200, 16)
    np.testing.assert_allclose(est.influence_ @ (L @ L.T), Z1, rtol=1e-10, atol=1e-12)
    assert NewtonUnlearner(alpha=0.5).fit(X, y).influence_ is None


def test_woodbury_apply_solves_the_downdated_system():
    rng = np.random.default_rng(5)
    A = rng.standard_normal((40, 8))
    H = A.T @ A + 0.3 * np.eye(8)
    U = 0.7 * A[:4]
    v = rng.standard_normal(8)
    Hinv = np.linalg.inv(H)
    x = woodbury_downdate_apply(Hinv @ v, U, U @ Hinv, np)
    np.testing.assert_allclose(x, np.linalg.solve(H - U.T @ U, v), rtol=1e-10)
    # nothing removed: H^{-1} v itself
    assert woodbury_downdate_apply(Hinv @ v, U[:0], U[:0], np) is not None
    np.testing.assert_allclose(woodbury_downdate_apply(Hinv @ v, U[:0], U[:0], np), Hinv @ v)


@pytest.mark.parametrize("loss", ["squared", "logistic", "poisson"])
@pytest.mark.parametrize("intercept", [True, False])
@pytest.mark.parametrize("kw", [{}, {"assume_optimal": True}, {"verify": False},
                                {"mechanism": "guo"}])
def test_influence_step_gives_the_outputs_of_the_stored_factor_step(loss, intercept, kw):
    if kw.get("mechanism") == "guo" and loss == "poisson":
        pytest.skip("the Guo et al. baseline supports the logistic and squared losses")
    X, y, _ = make_glm_data(180, 14, loss=loss, random_state=8)
    args = dict(loss=loss, alpha=0.7, fit_intercept=intercept, random_state=0, **kw)
    ref = NewtonUnlearner(**args).fit(X, y)
    est = NewtonUnlearner(store_influence=True, **args).fit(X, y)
    np.testing.assert_allclose(est.coef_, ref.coef_, rtol=1e-12, atol=1e-14)
    for M in ([2, 9], [40], [], [100, 101, 102]):
        _quiet_unlearn(ref, M)
        _quiet_unlearn(est, M)
        a, b = est.unlearn_report_, ref.unlearn_report_
        np.testing.assert_allclose(est.coef_, ref.coef_, rtol=1e-9, atol=1e-12)
        assert est.intercept_ == pytest.approx(ref.intercept_, rel=1e-9, abs=1e-12)
        # without the verification there is no certified distance (NaN in both)
        assert a.delta_cert == pytest.approx(b.delta_cert, rel=1e-6, abs=1e-12, nan_ok=True)
        assert (a.certified, a.fallback) == (b.certified, b.fallback)
        assert (a.hessian, b.hessian) == ("influence", "stored")


@pytest.mark.parametrize("loss", ["logistic", "poisson"])
def test_sequential_influence_requests_are_the_downdated_newton_steps(loss):
    # the stored Hessian is the fit point's, downdated by every row removed so far
    X, y, _ = make_glm_data(150, 10, loss=loss, random_state=7)
    alpha = 0.6
    pen = penalty(10, alpha, False)
    theta = solve(X, y, loss, pen)
    est = NewtonUnlearner(loss=loss, alpha=alpha, fit_intercept=False, noise=None,
                          solver="newton", store_influence=True).fit(X, y)
    beta, removed = theta, []
    for M in ([3, 40], [7], [90, 91, 120]):
        removed = removed + M
        keep = np.setdiff1d(np.arange(150), removed)
        H = hess(theta, X[keep], y[keep], loss, pen)
        beta = beta - np.linalg.solve(H, grad(beta, X[keep], y[keep], loss, pen))
        _quiet_unlearn(est, M)
        np.testing.assert_allclose(est.coef_, beta, rtol=1e-9, atol=1e-12)
        assert est.unlearn_report_.hessian == "influence"


def test_a_request_makes_one_factor_solve_only_when_its_state_is_new(monkeypatch):
    # the first request's kept gradient is the fit's, solved at fit; a later one is
    # at the previous request's point and costs one solve; the p x p factor is read
    # by no other solve
    import statlearn.unlearning._mechanisms as mod

    X, y, _ = make_glm_data(120, 6, random_state=3)
    est = NewtonUnlearner(alpha=0.5, fit_intercept=False, noise=None,
                          store_influence=True).fit(X, y)
    calls = []
    original = mod.cho_solve

    def counted(L, B, xp):
        calls.append(L.shape)
        return original(L, B, xp)

    monkeypatch.setattr(mod, "cho_solve", counted)
    p = 6
    seen = []
    for M in ([4], [9], [20, 21]):
        before = len(calls)
        _quiet_unlearn(est, M)
        seen.append([s for s in calls[before:] if s == (p, p)])
    assert [len(s) for s in seen] == [0, 1, 1]


def test_influence_fallback_when_the_downdate_is_not_positive_definite(monkeypatch):
    import statlearn.unlearning._mechanisms as mod
    from statlearn.unlearning._linalg import CholeskyError

    X, y, _ = make_glm_data(100, 8, random_state=1)
    direct = NewtonUnlearner(fit_intercept=False, noise=None, store_hessian=False).fit(X, y)
    direct.unlearn([0, 1])
    est = NewtonUnlearner(fit_intercept=False, noise=None, store_influence=True).fit(X, y)

    def failing(*args, **kwargs):
        raise CholeskyError("not positive definite")

    monkeypatch.setattr(mod, "woodbury_downdate_apply", failing)
    with pytest.warns(RuntimeWarning, match="Woodbury downdate was not numerically"):
        est.unlearn([0, 1])
    np.testing.assert_allclose(est.coef_, direct.coef_, rtol=1e-12)
    assert est.unlearn_report_.hessian == "direct"


def test_influence_without_the_stored_factor_is_refused():
    X, y, _ = make_glm_data(50, 4, random_state=0)
    with pytest.raises(ValueError, match="store_influence=True needs store_hessian=True"):
        NewtonUnlearner(store_influence=True, store_hessian=False).fit(X, y)
    with pytest.raises(TypeError, match="store_influence"):
        NewtonUnlearner(store_influence="yes").fit(X, y)

"""NewtonUnlearner: one step is exact for the squared loss, Woodbury = direct Hessian, the exact
refit when the certificate exceeds the radius, agreement with scikit-learn, edge cases."""

from __future__ import annotations

import pickle
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.base import clone
from sklearn.linear_model import LogisticRegression, Ridge
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from statlearn.unlearning import NewtonUnlearner, UnlearningWarning, make_glm_data


def _ridge_closed_form(X, y, alpha, keep):
    Xk, yk = X[keep], y[keep]
    p = X.shape[1]
    return np.linalg.solve(Xk.T @ Xk + alpha * np.eye(p), Xk.T @ yk)


# ------------------------- one Newton step is exact when the objective is quadratic
@settings(max_examples=40, deadline=None)
@given(n=st.integers(5, 60), p=st.integers(1, 60), alpha=st.floats(1e-3, 10.0),
       data=st.data())
def test_squared_loss_one_step_is_exact(n, p, alpha, data):
    seed = data.draw(st.integers(0, 2**31 - 1))
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, p)) / np.sqrt(n)
    y = X @ rng.standard_normal(p) + rng.standard_normal(n)
    removed = data.draw(st.lists(st.integers(0, n - 1), unique=True, max_size=n))
    est = NewtonUnlearner(fit_intercept=False,
                          loss="squared", alpha=alpha, noise=None, random_state=0).fit(X, y)
    beta_hat = est.coef_.copy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnlearningWarning)
        est.unlearn(removed)
    keep = np.setdiff1d(np.arange(n), removed)
    expected = _ridge_closed_form(X, y, alpha, keep)
    rep = est.unlearn_report_
    assert est.coef_.shape == (p,)
    if keep.size == 0:
        np.testing.assert_allclose(est.coef_, 0.0, atol=1e-10 * max(1.0, np.linalg.norm(beta_hat)))
    else:
        scale = max(np.linalg.norm(expected), 1e-300)
        assert np.linalg.norm(est.coef_ - expected) <= 1e-10 * scale + 1e-13
    # report consistency: certified <=> delta_cert <= r or fallback
    assert rep.certified == (rep.delta_cert <= rep.r or rep.fallback)
    assert rep.delta_cert <= 1e-8
    if removed:
        assert rep.certified and not rep.fallback


@pytest.mark.parametrize("store_hessian", [True, False])
def test_remove_everything_returns_penalty_minimiser_plus_noise(store_hessian):
    X, y, _ = make_glm_data(20, 8, loss="squared", random_state=3)
    est = NewtonUnlearner(fit_intercept=False,
                          loss="squared", noise=None, store_hessian=store_hessian).fit(X, y)
    with pytest.warns(UnlearningWarning):
        est.unlearn(np.arange(20))
    np.testing.assert_array_equal(est.coef_, 0.0)
    assert est.unlearn_report_.certified and est.unlearn_report_.delta_cert == 0.0
    noisy = NewtonUnlearner(fit_intercept=False, loss="squared", random_state=0).fit(X, y)
    with pytest.warns(UnlearningWarning):
        noisy.unlearn(np.arange(20))
    # same noise as a fresh draw with the recorded sigma from the same stream state
    assert noisy.unlearn_report_.sigma > 0
    assert np.linalg.norm(noisy.coef_) > 0


def test_empty_request_noise_and_noop():
    X, y, _ = make_glm_data(50, 10, loss="squared", random_state=4)
    est = NewtonUnlearner(fit_intercept=False, loss="squared", noise=None).fit(X, y)
    before = est.coef_.copy()
    est.unlearn([])
    rep = est.unlearn_report_
    assert rep.m == 0 and rep.certified and not rep.fallback
    np.testing.assert_allclose(est.coef_, before, rtol=1e-10, atol=1e-13)
    noisy = NewtonUnlearner(fit_intercept=False,
                            loss="squared", epsilon=1.0, random_state=0).fit(X, y)
    noisy.unlearn([])
    # calibrated as a one-point request: r = sqrt(1 / (2 * alpha * n))
    assert noisy.unlearn_report_.r == pytest.approx(np.sqrt(1 / (2 * 1.0 * 50)), rel=1e-12)
    assert not np.allclose(noisy.coef_, before)
    off = NewtonUnlearner(fit_intercept=False,
                          loss="squared", add_noise_on_empty=False, random_state=0).fit(X, y)
    off.unlearn([])
    np.testing.assert_array_equal(off.coef_, before)
    assert off.mu_spent_ == 0.0


# -------------------------- Woodbury downdate of the stored Hessian == direct assembly
def _separable(n, p, seed):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, p))
    w = rng.standard_normal(p)
    y = (X @ w > 0).astype(float)
    return 5.0 * X, y


_WOODBURY_CASES = [(loss, m, "proportional") for loss in ("logistic", "squared", "poisson")
             for m in (1, 5, 25)] + [("logistic", m, "separable") for m in (1, 5, 25)]


@pytest.mark.parametrize("loss, m, kind", _WOODBURY_CASES)
def test_woodbury_equals_direct(loss, m, kind):
    if kind == "separable":  # logistic weights l'' numerically zero on many rows
        X, y = _separable(80, 40, m)
        alpha = 1e-2
    else:
        X, y, _ = make_glm_data(120, 90, loss=loss, random_state=m)
        alpha = 0.5
    idx = np.random.default_rng(m).choice(X.shape[0], m, replace=False)
    kw = dict(loss=loss, alpha=alpha, noise=None, verify=False, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnlearningWarning)
        fast = NewtonUnlearner(fit_intercept=False, store_hessian=True, **kw).fit(X, y).unlearn(idx)
        slow = NewtonUnlearner(fit_intercept=False,
                               store_hessian=False, **kw).fit(X, y).unlearn(idx)
    assert fast.unlearn_report_.hessian == "stored"
    assert slow.unlearn_report_.hessian == "direct"
    if kind == "separable":
        # some logistic weights are numerically zero
        s = 1 / (1 + np.exp(-(X @ fast.retrain_reference())))
        assert np.min(s * (1 - s)) < 1e-8
    rel = np.linalg.norm(fast.coef_ - slow.coef_) / np.linalg.norm(slow.coef_)
    assert rel <= 1e-9


# ------------------------------------ exact refit when the certificate exceeds the radius
@pytest.mark.parametrize("loss", ["logistic", "poisson"])
def test_tiny_radius_forces_exact_fallback(loss):
    X, y, _ = make_glm_data(100, 60, loss=loss, random_state=9)
    est = NewtonUnlearner(fit_intercept=False,
                          loss=loss, alpha=0.5, noise=None, noise_scale=1e-12).fit(X, y)
    ref = est.retrain_reference([1, 2, 3])
    est.unlearn([1, 2, 3])
    rep = est.unlearn_report_
    assert rep.fallback and rep.certified
    assert rep.newton_residual_norm / 0.5 > 1e-12  # the Newton step alone was not enough
    assert rep.mu_effective == 0.0 or not np.isfinite(rep.mu_effective) or rep.sigma == 0
    np.testing.assert_allclose(est.coef_, ref, rtol=0, atol=1e-9)
    # with noise on, the fallback output is the retrain plus noise of the same scale
    noisy = NewtonUnlearner(fit_intercept=False,
                            loss=loss, alpha=0.5, noise_scale=1e-12, epsilon=1.0,
                            random_state=5).fit(X, y).unlearn([1, 2, 3])
    assert noisy.unlearn_report_.fallback and noisy.unlearn_report_.mu_effective == 0.0
    np.testing.assert_allclose(noisy.coef_, ref, atol=1e-9 + 10 * 1e-12)


def test_verification_certificate_bounds_true_error():
    X, y, _ = make_glm_data(200, 150, random_state=11)
    est = NewtonUnlearner(fit_intercept=False, alpha=0.5, noise=None).fit(X, y)
    ref = est.retrain_reference([7, 8])
    est.unlearn([7, 8])
    rep = est.unlearn_report_
    assert (est.sigma_, est.r_, est.delta_cert_, est.mu_effective_) == (
        rep.sigma, rep.r, rep.delta_cert, rep.mu_effective)
    assert NewtonUnlearner(fit_intercept=False, noise=None).fit(X, y).sigma_ is None
    err = np.linalg.norm(est.coef_ - ref)
    assert err <= rep.delta_cert <= rep.r
    assert rep.certified and not rep.fallback
    # a second Newton step shrinks the error by a lot (quadratic convergence)
    two = NewtonUnlearner(fit_intercept=False,
                          alpha=0.5, noise=None, n_newton_steps=2).fit(X, y).unlearn([7, 8])
    assert np.linalg.norm(two.coef_ - ref) < 1e-2 * err
    assert two.unlearn_report_.n_newton_steps == 2


def test_assume_optimal_matches_full_gradient_at_exact_fit():
    X, y, _ = make_glm_data(150, 100, random_state=2)
    a = NewtonUnlearner(fit_intercept=False, alpha=0.5, noise=None).fit(X, y).unlearn([3, 4])
    b = NewtonUnlearner(fit_intercept=False,
                        alpha=0.5, noise=None, assume_optimal=True).fit(X, y).unlearn([3, 4])
    np.testing.assert_allclose(a.coef_, b.coef_, rtol=0, atol=1e-9)


# ------------------------------------------------------- scikit-learn agreement
def test_full_fit_agrees_with_sklearn_ridge():
    X, y, _ = make_glm_data(200, 80, loss="squared", random_state=0)
    ours = NewtonUnlearner(fit_intercept=False, loss="squared", alpha=0.7).fit(X, y)
    sk = Ridge(alpha=0.7, fit_intercept=False, solver="cholesky").fit(X, y)
    np.testing.assert_allclose(ours.coef_, sk.coef_, rtol=1e-10, atol=1e-12)


def test_full_fit_agrees_with_sklearn_logistic_regression():
    X, y, _ = make_glm_data(300, 100, random_state=1)
    ours = NewtonUnlearner(fit_intercept=False, loss="logistic", alpha=0.5).fit(X, y)
    sk = LogisticRegression(C=1 / 0.5, fit_intercept=False, tol=1e-12, max_iter=10_000,
                            solver="newton-cholesky").fit(X, y)
    np.testing.assert_allclose(ours.coef_, sk.coef_.ravel(), rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(ours.predict_proba(X), sk.predict_proba(X), atol=1e-8)
    np.testing.assert_array_equal(ours.predict(X), sk.predict(X))


def test_string_labels_and_intercept():
    X, y, _ = make_glm_data(120, 10, random_state=3)
    labels = np.where(y == 1, "yes", "no")
    est = NewtonUnlearner(random_state=0).fit(X + 1.0, labels)
    assert set(est.predict(X + 1.0)) <= {"yes", "no"}
    assert isinstance(est.intercept_, float)
    ref = est.retrain_reference([0])
    assert ref.shape == (11,)
    est.unlearn([0])
    assert est.coef_.shape == (10,)


def test_clone_pipeline_gridsearch_pickle():
    X, y, _ = make_glm_data(120, 10, random_state=5)
    pipe = make_pipeline(StandardScaler(), NewtonUnlearner(fit_intercept=False, random_state=0))
    gs = GridSearchCV(pipe, {"newtonunlearner__alpha": [0.1, 1.0]}, cv=3).fit(X, y)
    assert gs.best_params_["newtonunlearner__alpha"] in (0.1, 1.0)
    est = clone(NewtonUnlearner(fit_intercept=False, alpha=0.3)).fit(X, y).unlearn([1])
    again = pickle.loads(pickle.dumps(est))
    np.testing.assert_array_equal(again.coef_, est.coef_)
    again.unlearn([2])
    assert len(again.history_) == 2


# ------------------------------------------------------------------ ledger
def test_sequential_requests_compose_gdp_and_stay_verified():
    X, y, _ = make_glm_data(200, 100, random_state=6)
    est = NewtonUnlearner(fit_intercept=False, alpha=0.5, epsilon=0.6, random_state=0).fit(X, y)
    est.unlearn([0])
    assert est.mu_spent_ == pytest.approx(0.6)
    est.unlearn([1])
    est.unlearn([2])
    assert est.mu_spent_ == pytest.approx(0.6 * np.sqrt(3))
    assert len(est.history_) == 3
    assert est.removed_.sum() == 3
    # each request is verified against the exact retrain on everything still kept
    silent = NewtonUnlearner(fit_intercept=False, alpha=0.5, noise=None).fit(X, y)
    for i in range(3):
        silent.unlearn([i])
        ref = silent.retrain_reference()
        assert np.linalg.norm(silent.coef_ - ref) <= silent.unlearn_report_.delta_cert
    assert NewtonUnlearner(fit_intercept=False,
                           noise=None).fit(X, y).unlearn([0]).mu_spent_ == np.inf
    assert np.isnan(NewtonUnlearner(fit_intercept=False,
                                    noise="laplace_l2").fit(X, y).unlearn([0]).mu_spent_)


# ------------------------------------------------------------- baselines
def test_laplace_noise_norm_is_order_p_times_gaussian_sqrt_p():
    X, y, _ = make_glm_data(200, 200, random_state=8)
    g = NewtonUnlearner(fit_intercept=False, alpha=0.5, random_state=1).fit(X, y)
    lap = NewtonUnlearner(fit_intercept=False,
                          alpha=0.5, noise="laplace_l2", random_state=1).fit(X, y)
    base = NewtonUnlearner(fit_intercept=False, alpha=0.5, noise=None).fit(X, y).unlearn([0]).coef_
    ng = np.linalg.norm(g.unlearn([0]).coef_ - base)
    nl = np.linalg.norm(lap.unlearn([0]).coef_ - base)
    r_over_eps = g.unlearn_report_.r / 0.75
    # ||b_gauss|| ~ sqrt(p) r/eps (chi_p), ||b_lap|| ~ Gamma(p, r/eps): 6-sigma windows
    assert abs(ng / r_over_eps - np.sqrt(200)) < 6 * 0.71
    assert abs(nl / r_over_eps - 200) < 6 * np.sqrt(200)


def test_sekhari_noise_grows_with_n_and_guo_retrains_over_budget():
    X, y, _ = make_glm_data(150, 60, random_state=9)
    s = NewtonUnlearner(fit_intercept=False, alpha=0.5, mechanism="sekhari", feature_bound=2.0,
                        random_state=0).fit(X, y).unlearn([0])
    rep = s.unlearn_report_
    assert rep.mechanism == "sekhari" and rep.hessian == "stored" and rep.sigma > 0
    exact = NewtonUnlearner(fit_intercept=False, alpha=0.5, mechanism="sekhari", noise=None,
                            feature_bound=2.0).fit(X, y).unlearn([0])
    newton = NewtonUnlearner(fit_intercept=False,
                             alpha=0.5, noise=None, assume_optimal=True).fit(X, y).unlearn([0])
    np.testing.assert_allclose(exact.coef_, newton.coef_, atol=1e-12)
    g = NewtonUnlearner(fit_intercept=False,
                        alpha=0.5, mechanism="guo", noise_scale=1e-12, random_state=0)
    g.fit(X, y).unlearn([0])
    assert g.unlearn_report_.fallback  # residual bound over the tiny budget: retrain
    g2 = NewtonUnlearner(fit_intercept=False,
                         alpha=0.5, mechanism="guo", noise_scale=10.0, random_state=0)
    g2.fit(X, y).unlearn([0])
    assert not g2.unlearn_report_.fallback
    sq = NewtonUnlearner(fit_intercept=False,
                         loss="squared", alpha=0.5, mechanism="guo", noise_scale=1e-12,
                         random_state=0).fit(X, X @ np.ones(60)).unlearn([0])
    assert not sq.unlearn_report_.fallback  # gamma = 0: Newton is exact for squared loss


# ------------------------------------------------------------ bad input
@pytest.mark.parametrize("indices, err, match", [
    ([0, 0], ValueError, "repeat"),
    ([-1], ValueError, r"\[0, 29\]"),
    ([30], ValueError, r"\[0, 29\]"),
    (list(range(31)), ValueError, "repeat|\\[0, 29\\]"),
    ([0.5], TypeError, "integer positions"),
    ([True], ValueError, "boolean mask"),
    ([[0, 1]], ValueError, "1-D"),
])
def test_bad_indices(indices, err, match):
    X, y, _ = make_glm_data(30, 5, random_state=0)
    est = NewtonUnlearner(fit_intercept=False).fit(X, y)
    with pytest.raises(err, match=match):
        est.unlearn(indices)


def test_removing_a_point_twice_is_an_error():
    X, y, _ = make_glm_data(30, 5, random_state=0)
    est = NewtonUnlearner(fit_intercept=False).fit(X, y).unlearn([3])
    with pytest.raises(ValueError, match="already removed"):
        est.unlearn([3, 4])
    assert est.removed_.sum() == 1  # state unchanged by the refused request


@pytest.mark.parametrize("params, err, match", [
    ({"alpha": 0.0}, ValueError, "allow_singular"),
    ({"alpha": -1.0}, ValueError, "alpha"),
    ({"loss": "hinge"}, ValueError, "loss"),
    ({"penalty": "l1"}, ValueError, "penalty"),
    ({"epsilon": 0.0}, ValueError, "epsilon"),
    ({"noise": "cauchy"}, ValueError, "noise"),
    ({"noise_scale": "auto"}, ValueError, "noise_scale"),
    ({"noise_scale": -1.0}, ValueError, "noise_scale"),
    ({"polylog_c1": 0.0}, ValueError, "polylog_c1"),
    ({"n_newton_steps": 0}, ValueError, "n_newton_steps"),
    ({"mechanism": "foo"}, ValueError, "mechanism"),
    ({"mechanism": "guo", "loss": "poisson"}, ValueError, "poisson"),
    ({"mechanism": "sekhari", "noise": "laplace_l2", "feature_bound": 1.0}, ValueError,
     "gaussian"),
    ({"mechanism": "sekhari"}, ValueError, "feature_bound"),
    ({"feature_bound": -1.0}, ValueError, "feature_bound"),
    ({"delta": 1.0}, ValueError, "delta"),
    ({"verify": "yes"}, TypeError, "verify"),
])
def test_bad_parameters(params, err, match):
    X, y, _ = make_glm_data(30, 5, random_state=0)
    with pytest.raises(err, match=match):
        NewtonUnlearner(fit_intercept=False, **params).fit(X, y)


def test_bad_data():
    X, y, _ = make_glm_data(30, 5, random_state=0)
    with pytest.raises(ValueError, match="binary"):
        NewtonUnlearner(fit_intercept=False).fit(X, np.arange(30) % 3)
    with pytest.raises(ValueError, match="non-negative"):
        NewtonUnlearner(fit_intercept=False, loss="poisson").fit(X, -np.ones(30))
    with pytest.raises(ValueError, match="NaN"):
        NewtonUnlearner(fit_intercept=False, loss="squared").fit(np.where(X > 0.3, np.nan, X), y)
    est = NewtonUnlearner(fit_intercept=False).fit(X, y)
    with pytest.raises(ValueError, match="features"):
        est.predict(X[:, :3])
    with pytest.raises(ValueError, match="add_noise"):
        est.retrain_reference([0], n_draws=3)
    with pytest.raises(TypeError, match="add_noise"):
        est.retrain_reference([0], add_noise="yes")
    assert not hasattr(NewtonUnlearner(fit_intercept=False, loss="squared"), "predict_proba")


def test_allow_singular_alpha_zero_is_uncertified():
    X, y, _ = make_glm_data(60, 10, loss="squared", random_state=0)
    est = NewtonUnlearner(fit_intercept=False,
                          loss="squared", alpha=0.0, allow_singular=True, noise=None).fit(X, y)
    with pytest.warns(UnlearningWarning, match="strongly convex"):
        est.unlearn([0])
    assert not est.unlearn_report_.certified
    expected = np.linalg.lstsq(np.delete(X, 0, 0), np.delete(y, 0), rcond=None)[0]
    np.testing.assert_allclose(est.coef_, expected, rtol=1e-8)


def test_large_deletion_warns():
    X, y, _ = make_glm_data(81, 5, random_state=0)  # n^(1/4) = 3
    est = NewtonUnlearner(fit_intercept=False).fit(X, y)
    est.unlearn([0, 1, 2])
    with pytest.warns(UnlearningWarning, match="n\\^\\(1/4\\)"):
        est.unlearn([3, 4, 5, 6])


def test_report_summary_and_plot():
    X, y, _ = make_glm_data(60, 20, random_state=0)
    est = NewtonUnlearner(fit_intercept=False, random_state=0).fit(X, y).unlearn([1])
    rep = est.unlearn_report_
    assert "delta_cert" in str(rep.summary())
    assert rep.to_dict()["m"] == 1
    ax = rep.plot()
    assert len(ax.lines) == 3
    import dataclasses

    with pytest.raises(dataclasses.FrozenInstanceError):
        rep.m = 3


# ------------------------------------------------------------ array API
def test_array_api_path_matches_numpy(xp):
    X, y, _ = make_glm_data(80, 40, random_state=0)
    ref = NewtonUnlearner(fit_intercept=False, alpha=0.5, random_state=3).fit(X, y).unlearn([2, 5])
    Xx, yx = xp.asarray(X), xp.asarray(y)
    est = NewtonUnlearner(fit_intercept=False,
                          alpha=0.5, random_state=3).fit(Xx, yx).unlearn([2, 5])
    from statlearn.utils import get_namespace, to_numpy

    assert get_namespace(est.coef_) is get_namespace(Xx)
    np.testing.assert_allclose(to_numpy(est.coef_), ref.coef_, rtol=1e-9, atol=1e-12)
    assert est.unlearn_report_.hessian == "stored"
    proba = est.predict_proba(Xx)
    np.testing.assert_allclose(to_numpy(proba), ref.predict_proba(X), atol=1e-10)
    np.testing.assert_array_equal(est.predict(Xx), ref.predict(X))
    direct = NewtonUnlearner(fit_intercept=False,
                             alpha=0.5, store_hessian=False, noise=None).fit(Xx, yx)
    direct.unlearn([2, 5])
    np.testing.assert_allclose(to_numpy(direct.coef_), to_numpy(direct.retrain_reference()),
                               atol=direct.unlearn_report_.delta_cert + 1e-12)


@settings(max_examples=30, deadline=None)
@given(n=st.integers(5, 60), p=st.integers(1, 60), alpha=st.floats(1e-3, 10.0),
       loss=st.sampled_from(["logistic", "poisson"]), data=st.data())
def test_certificate_bounds_true_error_on_random_problems(n, p, alpha, loss, data):
    seed = data.draw(st.integers(0, 2**31 - 1))
    X, y, _ = make_glm_data(n, p, loss=loss, random_state=seed)
    if loss == "logistic" and np.unique(y).size < 2:
        y[0] = 1.0 - y[0]
    removed = data.draw(st.lists(st.integers(0, n - 1), unique=True, max_size=n))
    est = NewtonUnlearner(fit_intercept=False,
                          loss=loss, alpha=alpha, noise=None, random_state=0).fit(X, y)
    exact = est.retrain_reference(removed)  # tight solver: within tol = 1e-10 of the optimum
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnlearningWarning)
        est.unlearn(removed)
    rep = est.unlearn_report_
    assert est.coef_.shape == (p,)
    assert np.linalg.norm(est.coef_ - exact) <= rep.delta_cert + 2e-10
    assert rep.certified == (rep.delta_cert <= rep.r or rep.fallback)
    assert rep.certified  # verification on: certified directly or through the fallback

"""NewtonUnlearner.fit against a Newton solver written in the test.

The fitted coefficients, intercept, stored Cholesky factor and predictions
against the exact minimiser of the regularised GLM objective (ridge closed form,
IRLS), class labels, the singular (``alpha = 0``) fit, tags and defaults.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from statlearn.unlearning import NewtonUnlearner, make_glm_data
from tests.helpers import raises

from ._reference import design, hess, penalty, sigmoid, solve


# ------------------------------------------------------------------ the exact fit
@pytest.mark.parametrize("loss", ["squared", "logistic", "poisson"])
@pytest.mark.parametrize("intercept", [True, False])
def test_fit_is_the_exact_minimiser(loss, intercept):
    X, y, _ = make_glm_data(80, 5, loss=loss, random_state=1)
    y = y.astype(float)
    est = NewtonUnlearner(loss=loss, alpha=0.7, fit_intercept=intercept, noise=None).fit(X, y)
    Z = design(X, intercept)
    theta = solve(Z, y, loss, penalty(Z.shape[1], 0.7, intercept))
    np.testing.assert_allclose(est.coef_, theta[:5], rtol=1e-8, atol=1e-10)
    assert est.intercept_ == pytest.approx(theta[5] if intercept else 0.0, abs=1e-9)
    assert isinstance(est.intercept_, float)
    assert est.loss_ == loss and est.n_features_in_ == 5 and est.n_iter_ >= 1
    assert est.removed_.dtype == bool and est.removed_.shape == (80,) and not est.removed_.any()
    assert est.unlearn_report_ is None and est.history_ == [] and est.mu_spent_ == 0.0
    assert (est.sigma_, est.r_, est.delta_cert_, est.mu_effective_) == (None,) * 4
    # the stored Cholesky factor is the one of the objective's Hessian at the fit
    L = est.hessian_cholesky_
    pen = penalty(Z.shape[1], 0.7, intercept)
    np.testing.assert_allclose(L @ L.T, hess(theta, Z, y, loss, pen), rtol=1e-8, atol=1e-8)
    # predictions
    z = X @ theta[:5] + (theta[5] if intercept else 0.0)
    if loss == "logistic":
        np.testing.assert_allclose(est.decision_function(X), z, rtol=1e-8, atol=1e-9)
        proba = est.predict_proba(X)
        np.testing.assert_allclose(proba[:, 1], sigmoid(z), rtol=1e-8)
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


# ------------------------------------------------------------------ class labels
def test_string_classes_map_the_second_class_to_one():
    X, y, _ = make_glm_data(60, 3, random_state=2)
    labels = np.where(y == 1, "yes", "no")
    est = NewtonUnlearner(noise=None).fit(X, labels)
    np.testing.assert_array_equal(est.classes_, ["no", "yes"])
    ref = NewtonUnlearner(noise=None).fit(X, y)
    np.testing.assert_allclose(est.coef_, ref.coef_)
    np.testing.assert_array_equal(est.predict(X), np.where(ref.predict(X) == 1, "yes", "no"))


def test_object_labels_and_many_classes_in_the_message():
    X, y, _ = make_glm_data(40, 3, random_state=0)
    labels = np.where(y == 1, "yes", "no").astype(object)
    est = NewtonUnlearner(noise=None).fit(X, labels)
    np.testing.assert_array_equal(est.classes_, ["no", "yes"])
    raises(lambda: NewtonUnlearner().fit(X, np.arange(40) % 7), ValueError,
           names=["loss", "y"], shows=["'logistic'", "got 7 class(es): [0, 1, 2, 3, 4]."],
           match=r"^Only binary classification is supported: loss=.* needs exactly 2 classes in ")


def test_a_zero_linear_predictor_predicts_the_first_class():
    X, y, _ = make_glm_data(40, 3, random_state=0)
    est = NewtonUnlearner(fit_intercept=False, noise=None).fit(X, np.where(y == 1, "b", "a"))
    # like scikit-learn's LogisticRegression: class 1 only when x^T beta > 0
    np.testing.assert_array_equal(est.predict(np.zeros((2, 3))), ["a", "a"])
    np.testing.assert_allclose(est.predict_proba(np.zeros((1, 3))), [[0.5, 0.5]])


# ------------------------------------------------------------------ tags and defaults
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


def test_regression_tags_are_set():
    t = NewtonUnlearner(loss="squared").__sklearn_tags__()
    assert t.regressor_tags is not None and t.classifier_tags is None


def test_documented_defaults():
    assert NewtonUnlearner().get_params() == {
        "loss": "logistic", "alpha": 1.0, "penalty": "l2", "epsilon": 0.75,
        "noise": "gaussian", "noise_scale": "paper", "polylog_c1": None, "polylog_c2": None,
        "verify": True, "n_newton_steps": 1, "mechanism": "newton", "delta": 1e-5,
        "store_hessian": True, "store_influence": False, "assume_optimal": False,
        "add_noise_on_empty": True,
        "solver": "quasi-newton",
        "allow_singular": False, "fit_intercept": True, "tol": 1e-10, "max_iter": 100,
        "feature_bound": None, "random_state": None}

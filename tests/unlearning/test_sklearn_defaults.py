"""The default NewtonUnlearner is scikit-learn's Ridge / LogisticRegression, intercept included.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer, load_diabetes
from sklearn.linear_model import LogisticRegression, Ridge
from sklearn.preprocessing import StandardScaler

from statlearn.unlearning import NewtonUnlearner, UnlearningWarning


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

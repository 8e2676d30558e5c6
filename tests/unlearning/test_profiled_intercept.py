"""The unpenalised intercept released after a request: the exact minimiser for the coefficients.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from statlearn.unlearning import NewtonUnlearner, UnlearningWarning, make_glm_data
from tests.helpers import raises

from ._reference import profiled, sigmoid


@pytest.mark.parametrize("loss", ["squared", "logistic", "poisson"])
def test_released_intercept_is_the_exact_profile(loss):
    X, y, _ = make_glm_data(70, 3, loss=loss, random_state=6)
    y = y.astype(float)
    est = NewtonUnlearner(loss=loss, noise_scale=0.5, random_state=2).fit(X, y)
    est.unlearn([0, 1, 2])
    keep = np.arange(3, 70)
    assert est.intercept_ == pytest.approx(profiled(est.coef_, X[keep], y[keep], loss),
                                           abs=1e-9)


def test_logistic_intercept_root_is_tight():
    X, y, _ = make_glm_data(70, 3, random_state=6)
    est = NewtonUnlearner(noise_scale=0.5, random_state=2).fit(X, y).unlearn([0, 1])
    z = X[2:] @ est.coef_ + est.intercept_
    # the profiled intercept solves sum expit(z + b) = sum y to rounding
    assert abs(np.sum(sigmoid(z)) - y[2:].sum()) < 1e-12


def test_intercept_edge_counts():
    X = np.array([[0.1], [0.2], [0.3], [0.4], [0.5]])
    # one positive left among the kept rows: the intercept still has a minimiser
    est = NewtonUnlearner(noise=None).fit(X, np.array([1, 0, 1, 0, 0]))
    est.unlearn([0])
    z = X[1:, 0] * est.coef_[0] + est.intercept_
    assert np.sum(sigmoid(z)) == pytest.approx(1.0, abs=1e-12)
    # only positives left: no minimiser
    est = NewtonUnlearner(noise=None).fit(X, np.array([1, 1, 0, 1, 1]))
    raises(lambda: est.unlearn([2]), ValueError, names="fit_intercept",
           match=r"^the rows still kept hold a single class: the unpenalised intercept has no "
                 r"minimiser \(use fit_intercept=False\)\.$")
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


def test_profiled_intercept_without_a_minimiser_is_an_error():
    X = np.array([[0.1], [0.2], [0.3], [0.4]])
    est = NewtonUnlearner(noise=None).fit(X, np.array([0, 0, 1, 1]))
    raises(lambda: est.unlearn([2, 3]), ValueError, names="fit_intercept",
           match=r"^the rows still kept hold a single class: the unpenalised intercept has no "
                 r"minimiser \(use fit_intercept=False\)\.$")
    est = NewtonUnlearner(loss="poisson", noise=None).fit(X, np.array([0.0, 0.0, 2.0, 1.0]))
    raises(lambda: est.unlearn([2, 3]), ValueError, names="fit_intercept",
           match=r"^the rows still kept have only zero counts: the unpenalised intercept has "
                 r"no minimiser \(use fit_intercept=False\)\.$")

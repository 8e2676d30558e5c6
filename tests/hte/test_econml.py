"""Agreement with EconML's DR-learner pseudo-outcomes (optional dependency)."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.base import BaseEstimator, RegressorMixin, clone
from sklearn.linear_model import LinearRegression, LogisticRegression
from sklearn.model_selection import StratifiedKFold

from statlearn.datasets import make_hte_reference
from statlearn.hte import DRScorer, RelativeErrorEvaluator

econml_dr = pytest.importorskip("econml.dr")


class _PerArm(RegressorMixin, BaseEstimator):
    """EconML passes hstack([X, T]) to model_regression; fit one regressor per arm."""

    def __init__(self, base=None):
        self.base = base

    def fit(self, XT, y):
        XT = np.asarray(XT)
        arm = XT[:, -1] == 1
        self.m1_ = clone(self.base).fit(XT[arm, :-1], y[arm])
        self.m0_ = clone(self.base).fit(XT[~arm, :-1], y[~arm])
        return self

    def predict(self, XT):
        XT = np.asarray(XT)
        return np.where(XT[:, -1] == 1, self.m1_.predict(XT[:, :-1]), self.m0_.predict(XT[:, :-1]))


def test_relative_error_equals_econml_dr_pseudo_outcome_losses():
    d = make_hte_reference(1500, random_state=21)
    folds = list(StratifiedKFold(3, shuffle=True, random_state=0).split(d.X, d.treatment))
    est = econml_dr.DRLearner(model_propensity=LogisticRegression(),
                              model_regression=_PerArm(LinearRegression()),
                              model_final=LinearRegression(), cv=folds, min_propensity=0.01)
    est.fit(d.y, d.treatment, X=d.X, cache_values=True)
    y_pred = np.asarray(est._cached_values.nuisances[0]).reshape(len(d.y), -1)
    psi_econml = y_pred[:, 1] - y_pred[:, 0]
    sc = DRScorer(cross_fit=3, random_state=0).fit(d.X, d.treatment, d.y)
    np.testing.assert_allclose(sc.pseudo_outcomes_, psi_econml, rtol=1e-8, atol=1e-8)
    t1, t2 = d.candidates["const"], d.candidates["noisy"]
    ev = RelativeErrorEvaluator(cross_fit=3, random_state=0).fit(d.X, d.treatment, d.y,
                                                                 tau1=t1, tau2=t2)
    direct = np.mean((psi_econml - t1) ** 2) - np.mean((psi_econml - t2) ** 2)
    assert ev.delta_ == pytest.approx(direct, rel=1e-8)

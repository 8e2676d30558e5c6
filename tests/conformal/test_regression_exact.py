"""Exact checks of split and cross-conformal regression: groups, refusals, bounds.

Written against the mutation runs of ``conformal._regression._split`` and
``conformal._regression._cross``. Thresholds are the ``ceil((n + 1)(1 - alpha))``-th
smallest score, counted here by hand; errors are matched by type, the argument
they name and the value they show.
"""

from __future__ import annotations

import numpy as np
from sklearn.linear_model import LinearRegression

from statlearn.conformal import SplitConformalRegressor
from tests.helpers import raises


def _data(n=60, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    y = X @ np.array([1.0, -0.5]) + rng.normal(size=n)
    return X, y


def _prefit(X, y):
    return LinearRegression().fit(X, y)


# ------------------------------------------------------------------ _split: groups
def test_object_group_labels_may_be_floats():
    # labels 0.5 and 1.5 held in an object array: two groups, nothing refused
    X, y = _data(40)
    g = np.array([0.5, 1.5] * 20, dtype=object)
    reg = SplitConformalRegressor(_prefit(X, y), prefit=True).fit(X, y, groups=g)
    assert reg.groups_.size == 2
    bad = g.copy()
    bad[3] = np.nan
    raises(lambda: SplitConformalRegressor(_prefit(X, y), prefit=True).fit(X, y, groups=bad),
           ValueError, names="groups", shows="NaN")


def test_evaluate_names_itself_when_test_groups_are_missing():
    X, y = _data(80)
    g = np.repeat([0, 1], 40)
    reg = SplitConformalRegressor(_prefit(X, y), prefit=True).fit(X, y, groups=g)
    raises(lambda: reg.evaluate(X, y), ValueError, names=["groups", "evaluate"])
    raises(lambda: reg.predict_interval(X), ValueError, names=["groups", "predict_interval"])


# ------------------------------------------------------------------ _split: refusals
def test_prefit_normalized_needs_a_fitted_scale_estimator():
    X, y = _data()
    reg = SplitConformalRegressor(_prefit(X, y), conformity_score="normalized", prefit=True)
    raises(lambda: reg.fit(X, y), ValueError, names=["scale_estimator", "prefit"],
           match="needs a fitted scale_estimator")


def test_calibrate_before_fit_says_what_it_needs():
    X, y = _data()
    raises(lambda: SplitConformalRegressor().calibrate(X, y), ValueError,
           names=["fit", "prefit"], match="fitted estimator")


def test_mondrian_models_refuse_other_test_groups_and_say_how_to_fix_it():
    X, y = _data(80)
    reg = SplitConformalRegressor(_prefit(X, y), prefit=True,
                                  mondrian=lambda Z: (Z[:, 0] > 0).astype(int)).fit(X, y)
    other = 1 - (X[:, 0] > 0).astype(int)
    raises(lambda: reg.predict_interval(X, groups=other), ValueError,
           names=["groups", "mondrian", "predict_interval"], shows="80 of 80",
           match="calibrate with groups= instead")
    raises(lambda: reg.predict_interval(X, groups=other[:5]), ValueError, names="groups",
           shows="(80,)")


def test_groups_are_refused_by_a_model_not_calibrated_per_group():
    X, y = _data()
    reg = SplitConformalRegressor(_prefit(X, y), prefit=True).fit(X, y)
    raises(lambda: reg.predict_interval(X, groups=np.zeros(60)), ValueError,
           names=["groups", "predict_interval"], match="not calibrated per group")


def test_contract_instances_fit_and_predict_reproducibly():
    from sklearn.base import clone

    X, y = _data(120)
    for est in SplitConformalRegressor._statlearn_test_instances():
        a = clone(est).fit(X, y).predict_interval(X[:10])
        b = clone(est).fit(X, y).predict_interval(X[:10])
        np.testing.assert_array_equal(a, b)


# ------------------------------------------------------------ cross-conformal, edges
def _cross_data(n=60, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    return X, X @ np.array([1.0, -0.5]) + rng.normal(size=n)


def test_cross_bounds_refuse_negative_residuals_naming_them():
    from statlearn.conformal import cross_conformal_bounds

    P = np.zeros((2, 3))
    raises(lambda: cross_conformal_bounds(P, np.array([0, 1, 0, 1]),
                                          np.array([0.1, -0.2, 0.3, 0.4]), 0.2),
           ValueError, names="residuals", shows=">= 0")


def test_cross_evaluate_with_several_levels_reports_each():
    from statlearn.conformal import CrossConformalRegressor

    X, y = _cross_data()
    est = CrossConformalRegressor(cv=3, alpha=[0.1, 0.3], random_state=0).fit(X, y)
    res = est.evaluate(X[:20], y[:20])
    iv = est.predict_interval(X[:20])
    want = [np.mean((iv[:, 0, j] <= y[:20]) & (y[:20] <= iv[:, 1, j])) for j in range(2)]
    np.testing.assert_array_equal(np.ravel(res.coverage), want)


class _ByResponse:
    """A splitter whose folds depend on y: rows sorted by y, dealt round-robin."""

    def __init__(self, k):
        self.k = k

    def get_n_splits(self, X=None, y=None, groups=None):
        return self.k

    def split(self, X, y=None, groups=None):
        if y is None:
            raise ValueError("this splitter needs y")
        order = np.argsort(y, kind="stable")
        for f in range(self.k):
            te = np.sort(order[f::self.k])
            yield np.setdiff1d(np.arange(len(y)), te), te


def test_a_splitter_that_reads_y_receives_it():
    from statlearn.conformal import CrossConformalRegressor

    X, y = _cross_data()
    est = CrossConformalRegressor(cv=_ByResponse(3), random_state=0).fit(X, y)
    order = np.argsort(y, kind="stable")
    np.testing.assert_array_equal(est.fold_of_[order], np.arange(60) % 3)


class _Partial:
    """Test folds that leave the last row out of every fold."""

    def get_n_splits(self, X=None, y=None, groups=None):
        return 2

    def split(self, X, y=None, groups=None):
        n = len(X)
        yield np.arange(n // 2, n - 1), np.arange(n // 2)
        yield np.arange(n // 2), np.arange(n // 2, n - 1)


def test_folds_that_miss_a_sample_are_refused_naming_cv():
    from statlearn.conformal import CrossConformalRegressor

    X, y = _cross_data()
    raises(lambda: CrossConformalRegressor(cv=_Partial()).fit(X, y), ValueError,
           names="cv", shows="1 appear in none")


def _bad_shape_model():
    from sklearn.base import BaseEstimator, RegressorMixin

    class BadShape(RegressorMixin, BaseEstimator):
        """Predictions of the wrong length once ``bad`` is set after fitting."""

        def fit(self, X, y):
            self.bad_ = False
            return self

        def predict(self, X):
            return np.zeros(len(X) + 1 if self.bad_ else len(X))

    return BadShape()


def test_fold_and_full_predictions_of_the_wrong_shape_name_the_model():
    from statlearn.conformal import CrossConformalRegressor

    X, y = _cross_data()
    est = CrossConformalRegressor(_bad_shape_model(), cv=3).fit(X, y)
    for m in est.fold_estimators_:
        m.bad_ = True
    est.estimator_.bad_ = True
    raises(lambda: est.fold_predictions(X[:5]), ValueError, names="estimator.predict",
           shows="(5,)")
    raises(lambda: est.predict(X[:5]), ValueError, names="estimator.predict", shows="(5,)")

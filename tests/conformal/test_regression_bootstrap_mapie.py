"""Agreement with MAPIE's jackknife+-after-bootstrap on the same samples and models.

MAPIE is an optional test dependency. Both receive the same samples through
one ``mapie.subsample.Subsample`` (an int ``resampling`` draws them from
statlearn's own generator, not MAPIE's ``RandomState`` stream). Where the
definitions coincide (out-of-bag residuals, "plus" and "minmax" bounds, mean
and median aggregation) the outputs must be equal to rounding; where they
differ the test pins the difference:

* point prediction: statlearn's :meth:`predict` aggregates all ``B`` models
  (the bagged ensemble); MAPIE's ``predict`` with
  ``aggregate_point_predictions=True`` aggregates the ``n`` out-of-bag
  ensembles ``mu_{phi,-i}(x)`` instead (and with ``False`` uses a model fitted
  on all the data, which statlearn never fits);
* a training point that is in every sample has no out-of-bag model: MAPIE
  warns and goes on, statlearn raises a ``ValueError``.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.linear_model import LinearRegression
from sklearn.tree import DecisionTreeRegressor

from statlearn.conformal import JackknifeAfterBootstrapRegressor

mapie_regression = pytest.importorskip("mapie.regression")
mapie_subsample = pytest.importorskip("mapie.subsample")


def _data(seed, n):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-2, 2, size=(n, 3))
    y = X[:, 0] - 0.5 * X[:, 1] + rng.normal(size=n) * (0.3 + np.abs(X[:, 0]))
    return X, y


ALPHAS = [0.1, 0.2]


def _pair(model, method, aggregation, n_samples=None, replace=True, n=60, B=40):
    X, y = _data(2, n + 100)
    Xtr, ytr, Xt = X[:n], y[:n], X[n:]

    def sub():
        return mapie_subsample.Subsample(n_resamplings=B, n_samples=n_samples, replace=replace,
                                         random_state=3)

    theirs = mapie_regression.JackknifeAfterBootstrapRegressor(
        model, confidence_level=[1 - a for a in ALPHAS], method=method, resampling=sub(),
        aggregation_method=aggregation).fit_conformalize(Xtr, ytr)
    ours = JackknifeAfterBootstrapRegressor(model, resampling=sub(), aggregation=aggregation,
                                            method=method, alpha=ALPHAS).fit(Xtr, ytr)
    return ours, theirs, Xt


@pytest.mark.parametrize("model", ["ols", "tree"])
@pytest.mark.parametrize("method", ["plus", "minmax"])
@pytest.mark.parametrize("aggregation", ["mean", "median"])
def test_intervals_equal_mapie(model, method, aggregation):
    est = LinearRegression() if model == "ols" else DecisionTreeRegressor(max_depth=3,
                                                                          random_state=0)
    ours, theirs, Xt = _pair(est, method, aggregation)
    np.testing.assert_allclose(ours.residuals_, theirs.conformity_scores, rtol=1e-10,
                               atol=1e-10)
    _, iv = theirs.predict_interval(Xt)
    np.testing.assert_allclose(ours.predict_interval(Xt), iv, rtol=1e-10, atol=1e-10)


def test_subsampling_without_replacement_equals_mapie():
    ours, theirs, Xt = _pair(LinearRegression(), "plus", "mean", n_samples=40, replace=False)
    assert np.all(ours.in_bag_.sum(axis=0) == 40)
    _, iv = theirs.predict_interval(Xt)
    np.testing.assert_allclose(ours.predict_interval(Xt), iv, rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("aggregation", ["mean", "median"])
def test_point_prediction_differs_from_mapie_as_documented(aggregation):
    phi = np.mean if aggregation == "mean" else np.median
    ours, theirs, Xt = _pair(LinearRegression(), "plus", aggregation)
    pred = theirs.predict(Xt)  # aggregate_point_predictions=True by default
    np.testing.assert_allclose(pred, phi(ours.oob_predictions(Xt), axis=0), rtol=1e-10)
    P = np.stack([e.predict(Xt) for e in ours.estimators_])
    np.testing.assert_allclose(ours.predict(Xt), phi(P, axis=0), rtol=1e-12)
    assert np.max(np.abs(ours.predict(Xt) - pred)) > 1e-6  # not the same definition


def test_point_in_every_sample_warns_in_mapie_raises_here():
    X, y = _data(4, 12)
    # two samples of 12 draws from 12 points: some point is in both at seed 0
    sub = mapie_subsample.Subsample(n_resamplings=2, random_state=0)
    bags = [tr for tr, _ in sub.split(X)]
    assert len(set(bags[0]) & set(bags[1])) > 0
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        mapie_regression.JackknifeAfterBootstrapRegressor(
            LinearRegression(), resampling=mapie_subsample.Subsample(
                n_resamplings=2, random_state=0)).fit_conformalize(X, y)
    assert any("belongs to every resamplings" in str(w.message) for w in seen)
    with pytest.raises(ValueError, match="in every one of the B = 2 samples"):
        JackknifeAfterBootstrapRegressor(
            resampling=mapie_subsample.Subsample(n_resamplings=2, random_state=0)).fit(X, y)

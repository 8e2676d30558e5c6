"""Agreement with MAPIE's ``TimeSeriesRegressor`` on the same data, models and resamples.

MAPIE is an optional test dependency. Both implementations get the same block
bootstrap (MAPIE's ``BlockBootstrap``, passed as ``resampler``). Where the
definitions coincide the intervals must agree to ``1e-8``:

* EnbPI with ``symmetric=True`` equals MAPIE's ``method="enbpi"`` with
  ``AbsoluteConformityScore(sym=True)``, and ``symmetric=False`` equals its
  default asymmetric score (``beta = alpha / 2`` on signed residuals), for the
  mean and the median aggregation, before and after the sliding update
  (MAPIE's ``update(..., ensemble=True)``);
* ACI: MAPIE centres its ACI intervals on a model refitted on all the data,
  statlearn on the EnbPI ensemble; with a model that ignores its training
  data the two centres coincide, and then the intervals and the working
  levels agree row by row while the level stays in ``(0, 1)``.

Where they differ, the tests pin the difference:

* MAPIE clips the ACI level to ``[0, 1]``; statlearn follows eq. (2) of Gibbs
  & Candes (2021) unclipped (a level below 0 is the whole line), which is what
  the long-run bound rests on;
* MAPIE's point prediction (``ensemble=False``) is the model fitted on all the
  data; statlearn's ``predict`` is the EnbPI centre, MAPIE's ``ensemble=True``;
* a training point that every resample contains: MAPIE warns and goes on with
  NaN, statlearn raises;
* an update with more rows than the window: MAPIE raises, statlearn keeps the
  latest ``n`` residuals.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.linear_model import Ridge

from statlearn.conformal import TimeSeriesRegressor

mapie_regression = pytest.importorskip("mapie.regression")
mapie_subsample = pytest.importorskip("mapie.subsample")
mapie_scores = pytest.importorskip("mapie.conformity_scores")

TOL = 1e-8


class FixedLinear(RegressorMixin, BaseEstimator):
    """A linear model with fixed coefficients: every resample gives the same model."""

    def __init__(self, coef=(1.0, -1.0, 0.5)):
        self.coef = coef

    def fit(self, X, y):
        self.coef_ = np.asarray(self.coef, dtype=float)
        return self

    def predict(self, X):
        return np.asarray(X) @ self.coef_


def _series(seed, n):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    y = X @ [1.0, -1.0, 0.5] + rng.normal(size=n) * np.linspace(0.5, 3.0, n)
    return X, y


def _bb(n_resamplings=25, seed=3):
    return mapie_subsample.BlockBootstrap(n_resamplings=n_resamplings, length=5,
                                          overlapping=False, random_state=seed)


def _mapie(method, agg, sym, estimator, resampler):
    return mapie_regression.TimeSeriesRegressor(
        estimator, method=method, cv=resampler, agg_function=agg,
        conformity_score=mapie_scores.AbsoluteConformityScore(sym=sym))


@pytest.mark.parametrize("agg", ["mean", "median"])
@pytest.mark.parametrize("sym", [True, False])
@pytest.mark.parametrize("alpha", [0.1, 0.2])
def test_enbpi_equals_mapie_before_and_after_update(agg, sym, alpha):
    X, y = _series(1, 420)
    n = 300
    theirs = _mapie("enbpi", agg, sym, Ridge(), _bb()).fit(X[:n], y[:n])
    ours = TimeSeriesRegressor(Ridge(), resampler=_bb(), aggregation=agg, symmetric=sym,
                               alpha=alpha).fit(X[:n], y[:n])
    scores = np.abs(ours.residuals_) if sym else ours.residuals_
    np.testing.assert_allclose(np.sort(scores), np.sort(theirs.conformity_scores_),
                               rtol=0, atol=TOL)
    for lo, hi in [(n, n + 60), (n + 60, n + 120)]:
        pred, iv = theirs.predict(X[lo:], ensemble=True, confidence_level=1 - alpha)
        np.testing.assert_allclose(ours.predict(X[lo:]), pred, rtol=0, atol=TOL)
        np.testing.assert_allclose(ours.predict_interval(X[lo:]), iv[:, :, 0], rtol=0,
                                   atol=TOL)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # MAPIE's note on update's change
            theirs.update(X[lo:hi], y[lo:hi], ensemble=True)
        ours.update(X[lo:hi], y[lo:hi])


@pytest.mark.parametrize("sym", [True, False])
def test_aci_equals_mapie_when_the_centres_coincide(sym):
    X, y = _series(2, 350)
    n, gamma = 200, 0.01
    theirs = _mapie("aci", "mean", sym, FixedLinear(), _bb(30)).fit(X[:n], y[:n])
    ours = TimeSeriesRegressor(FixedLinear(), method="aci", resampler=_bb(30), symmetric=sym,
                               alpha=0.1, gamma=gamma).fit(X[:n], y[:n])
    ivs, levels = [], []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        for t in range(n, 350):
            _, iv = theirs.predict(X[t:t + 1], confidence_level=0.9, allow_infinite_bounds=True)
            ivs.append(iv[0, :, 0])
            theirs.adapt_conformal_inference(X[t:t + 1], y[t:t + 1], gamma=gamma,
                                             confidence_level=0.9)
            theirs.update(X[t:t + 1], y[t:t + 1], ensemble=True)
            levels.append(theirs.current_alpha[0.1])
    mine = ours.predict_interval_online(X[n:], y[n:])
    assert 0 < min(levels) and max(levels) < 1      # the range where the definitions agree
    np.testing.assert_allclose(mine, np.array(ivs), rtol=0, atol=TOL)
    np.testing.assert_allclose(ours.alpha_path_[1:], levels, rtol=0, atol=TOL)


def test_difference_mapie_clips_the_aci_level():
    X, y = _series(3, 200)
    y[120:] += 40.0   # every new point is missed at first: the level falls fast
    n, gamma = 120, 0.2
    theirs = _mapie("aci", "mean", False, FixedLinear(), _bb(30)).fit(X[:n], y[:n])
    ours = TimeSeriesRegressor(FixedLinear(), method="aci", resampler=_bb(30), alpha=0.1,
                               symmetric=False, gamma=gamma).fit(X[:n], y[:n])
    ours.update(X[n:n + 10], y[n:n + 10])
    levels = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        for t in range(n, n + 10):
            theirs.adapt_conformal_inference(X[t:t + 1], y[t:t + 1], gamma=gamma,
                                             confidence_level=0.9)
            levels.append(theirs.current_alpha[0.1])
    # one miss takes 0.1 to 0.1 - 0.2 * 0.9 = -0.08: MAPIE stops at 0, statlearn does not
    assert ours.alpha_path_[1] == pytest.approx(-0.08, rel=1e-12)
    assert levels[0] == 0.0
    assert min(levels) >= 0 and min(ours.alpha_path_) < 0


def test_difference_point_prediction():
    X, y = _series(4, 200)
    theirs = _mapie("enbpi", "mean", True, Ridge(), _bb()).fit(X[:150], y[:150])
    ours = TimeSeriesRegressor(Ridge(), resampler=_bb()).fit(X[:150], y[:150])
    full = Ridge().fit(X[:150], y[:150]).predict(X[150:])
    np.testing.assert_allclose(theirs.predict(X[150:]), full, rtol=1e-10)
    np.testing.assert_allclose(ours.predict(X[150:]),
                               theirs.predict(X[150:], ensemble=True), rtol=0, atol=TOL)
    assert np.max(np.abs(ours.predict(X[150:]) - full)) > 1e-6


@pytest.mark.filterwarnings("ignore:Mean of empty slice:RuntimeWarning")
def test_difference_point_in_every_resample():
    X, y = _series(5, 100)
    bb = _bb(n_resamplings=3)
    with pytest.warns(UserWarning, match="every resampling"):
        _mapie("enbpi", "mean", True, Ridge(), bb).fit(X, y)
    with pytest.raises(ValueError, match="every bootstrap resample"):
        TimeSeriesRegressor(Ridge(), resampler=bb).fit(X, y)


def test_difference_update_longer_than_window():
    X, y = _series(6, 200)
    theirs = _mapie("enbpi", "mean", True, Ridge(), _bb()).fit(X[:80], y[:80])
    ours = TimeSeriesRegressor(Ridge(), resampler=_bb()).fit(X[:80], y[:80])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        with pytest.raises(ValueError, match="higher than"):
            theirs.update(X[80:], y[80:], ensemble=True)
    ours.update(X[80:], y[80:])
    np.testing.assert_allclose(ours.residuals_, (y[80:] - ours.predict(X[80:]))[-80:],
                               rtol=1e-12)

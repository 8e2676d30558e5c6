"""Agreement with MAPIE's regression intervals on identical splits and models.

MAPIE is an optional test dependency. Where the definitions coincide the
intervals must be equal to rounding; where they differ the test pins the
difference down:

* MAPIE computes the conformal rank as ``np.ceil((1 - alpha)(n + 1))`` in
  floating point, so when ``(1 - alpha)(n + 1)`` is an integer that binary
  rounding lifts above itself (e.g. ``alpha = 0.7``, ``n = 9``: ``0.3 * 10 =
  3.0000000000000004``) it takes one rank more than the exact rule (4 instead
  of 3). statlearn's :func:`conformal_rank` treats values within ``1e-9`` of an
  integer as that integer, so the coverage is exactly ``k/(n+1)`` for the
  level the user wrote.
* MAPIE's CQR corrects the two bounds asymmetrically by default
  (``symmetric_correction=False``: separate quantiles of ``lo - y`` and
  ``y - hi`` at level ``1 - alpha/2`` each); statlearn implements the
  symmetric score ``max(lo - y, y - hi)`` of Romano et al. (2019), equal to
  MAPIE with ``symmetric_correction=True``.
* MAPIE's normalised score fits its residual model on part of the
  conformalisation data unless it is prefit; statlearn fits it on the training
  part. With a prefit scale model both divide by the same ``sigma(x)``.
"""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.compose import TransformedTargetRegressor
from sklearn.ensemble import GradientBoostingRegressor
from sklearn.linear_model import LinearRegression
from sklearn.model_selection import KFold, LeaveOneOut

from statlearn.conformal import SplitConformalRegressor

mapie_regression = pytest.importorskip("mapie.regression")
mapie_scores = pytest.importorskip("mapie.conformity_scores")


def _data(seed, n):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-2, 2, size=(n, 3))
    y = X[:, 0] - 0.5 * X[:, 1] + rng.normal(size=n) * (0.3 + np.abs(X[:, 0]))
    return X, y


@pytest.fixture(scope="module")
def split():
    X, y = _data(0, 700)
    return (X[:300], y[:300]), (X[300:500], y[300:500]), X[500:]


ALPHAS = [0.05, 0.1, 0.2]


def test_split_absolute_equals_mapie(split):
    (Xtr, ytr), (Xc, yc), Xt = split
    model = LinearRegression().fit(Xtr, ytr)
    m = mapie_regression.SplitConformalRegressor(
        model, confidence_level=[1 - a for a in ALPHAS], prefit=True).conformalize(Xc, yc)
    _, theirs = m.predict_interval(Xt)
    ours = SplitConformalRegressor(model, alpha=ALPHAS, prefit=True).fit(Xc, yc)
    np.testing.assert_allclose(ours.predict_interval(Xt), theirs, rtol=1e-12, atol=1e-12)


def test_split_normalized_equals_mapie_with_prefit_scale(split):
    (Xtr, ytr), (Xc, yc), Xt = split
    model = LinearRegression().fit(Xtr, ytr)
    scale = TransformedTargetRegressor(LinearRegression(), func=np.log, inverse_func=np.exp,
                                       check_inverse=False)
    scale.fit(Xtr, np.abs(ytr - model.predict(Xtr)) + 1e-3)
    score = mapie_scores.ResidualNormalisedScore(residual_estimator=scale, prefit=True)
    m = mapie_regression.SplitConformalRegressor(
        model, confidence_level=[1 - a for a in ALPHAS], conformity_score=score,
        prefit=True).conformalize(Xc, yc)
    _, theirs = m.predict_interval(Xt)
    ours = SplitConformalRegressor(model, conformity_score="normalized", scale_estimator=scale,
                                   alpha=ALPHAS, prefit=True).fit(Xc, yc)
    np.testing.assert_allclose(ours.predict_interval(Xt), theirs, rtol=1e-10, atol=1e-10)


def _quantile_models(Xtr, ytr, alpha):
    def gbr(q):
        return GradientBoostingRegressor(loss="quantile", alpha=q, n_estimators=40,
                                         max_depth=2, random_state=0).fit(Xtr, ytr)
    return gbr(alpha / 2), gbr(1 - alpha / 2), gbr(0.5)


def test_cqr_equals_mapie_symmetric_and_explains_asymmetric(split):
    (Xtr, ytr), (Xc, yc), Xt = split
    alpha = 0.1
    lo, hi, med = _quantile_models(Xtr, ytr, alpha)
    m = mapie_regression.ConformalizedQuantileRegressor(
        [lo, hi, med], confidence_level=1 - alpha, prefit=True).conformalize(Xc, yc)
    _, sym = m.predict_interval(Xt, symmetric_correction=True)
    ours = SplitConformalRegressor((lo, hi, med), conformity_score="cqr", alpha=alpha,
                                   prefit=True).fit(Xc, yc)
    np.testing.assert_allclose(ours.predict_interval(Xt), sym[:, :, 0], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(ours.predict(Xt), med.predict(Xt))
    # MAPIE's default asymmetric correction: each side its own 1 - alpha/2 quantile,
    # written here from the definition
    _, asym = m.predict_interval(Xt)
    n = yc.size
    k = int(np.ceil((n + 1) * (1 - alpha / 2)))
    q_lo = np.sort(lo.predict(Xc) - yc)[k - 1]
    q_hi = np.sort(yc - hi.predict(Xc))[k - 1]
    np.testing.assert_allclose(asym[:, 0, 0], lo.predict(Xt) - q_lo, rtol=1e-12)
    np.testing.assert_allclose(asym[:, 1, 0], hi.predict(Xt) + q_hi, rtol=1e-12)


def test_rank_rounding_difference_with_mapie():
    # alpha = 0.7, n = 9: exact k = ceil(10 * 0.3) = 3; MAPIE's float ceil gives 4.
    X, y = _data(1, 40)
    model = LinearRegression().fit(X[:20], y[:20])
    Xc, yc = X[20:29], y[20:29]
    r = np.sort(np.abs(yc - model.predict(Xc)))
    ours = SplitConformalRegressor(model, alpha=0.7, prefit=True).fit(Xc, yc)
    assert ours.threshold_[0] == r[2]
    m = mapie_regression.SplitConformalRegressor(model, confidence_level=0.3,
                                                 prefit=True).conformalize(Xc, yc)
    _, theirs = m.predict_interval(X[29:])
    np.testing.assert_allclose(theirs[:, 1, 0] - model.predict(X[29:]), r[3], rtol=1e-12)


@pytest.mark.parametrize("method", ["plus", "minmax"])
@pytest.mark.parametrize("cv", ["kfold", "loo"])
def test_cross_conformal_equals_mapie(method, cv):
    from statlearn.conformal import CrossConformalRegressor

    X, y = _data(2, 160)
    Xtr, ytr, Xt = X[:60], y[:60], X[60:]
    splitter = KFold(5, shuffle=True, random_state=3) if cv == "kfold" else LeaveOneOut()
    alphas = [0.1, 0.2]
    m = mapie_regression.CrossConformalRegressor(
        LinearRegression(), confidence_level=[1 - a for a in alphas], method=method,
        cv=splitter).fit_conformalize(Xtr, ytr)
    _, theirs = m.predict_interval(Xt)
    ours = CrossConformalRegressor(LinearRegression(), method=method, cv=splitter,
                                   alpha=alphas).fit(Xtr, ytr)
    np.testing.assert_allclose(ours.predict_interval(Xt), theirs, rtol=1e-10, atol=1e-10)

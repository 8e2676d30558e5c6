"""Split-conformal regression: exact rank facts, coverage, Mondrian, API and bad input.

Expected values are derived here: the conformal rank is written as exact
rational arithmetic (``Fraction``), thresholds as order statistics of
residuals sorted in the test.
"""

from __future__ import annotations

import math
import warnings
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from sklearn.base import BaseEstimator, RegressorMixin, clone
from sklearn.compose import TransformedTargetRegressor
from sklearn.ensemble import GradientBoostingRegressor, HistGradientBoostingRegressor
from sklearn.linear_model import LinearRegression, QuantileRegressor, Ridge
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from statlearn.base import StaleFitError
from statlearn.conformal import (
    PredictionIntervalResult,
    SplitConformalRegressor,
    coverage_by_bins,
    evaluate_intervals,
    interval_coverage,
    mean_width,
)
from statlearn.conformal._regression._scores import quantile_parameter
from statlearn.testing import assert_normal_close


def exact_rank(n, alpha):
    """``ceil((n + 1)(1 - alpha))`` in exact arithmetic (alpha given as a decimal)."""
    return math.ceil((n + 1) * (1 - Fraction(str(alpha))))


def hetero(rng, n, d=2):
    X = rng.uniform(-2, 2, size=(n, d))
    y = X[:, 0] + rng.normal(size=n) * (0.2 + np.abs(X[:, 0]))
    return X, y


def _prefit_models(seed=0, n=600):
    rng = np.random.default_rng(seed)
    X, y = hetero(rng, n)
    mu = LinearRegression().fit(X, y)
    res = np.abs(y - mu.predict(X))
    scale = TransformedTargetRegressor(regressor=LinearRegression(), func=np.log,
                                       inverse_func=np.exp, check_inverse=False)
    scale.fit(np.abs(X), res + 1e-3)
    lo = QuantileRegressor(quantile=0.05, alpha=0.0).fit(np.abs(X), y)
    hi = QuantileRegressor(quantile=0.95, alpha=0.0).fit(np.abs(X), y)
    return mu, scale, lo, hi


MU, SCALE, LO, HI = _prefit_models()


def _wrappers(alpha):
    return {
        "absolute": SplitConformalRegressor(MU, alpha=alpha, prefit=True),
        "normalized": SplitConformalRegressor(MU, conformity_score="normalized",
                                              scale_estimator=_AbsModel(SCALE), alpha=alpha,
                                              prefit=True),
        "cqr": SplitConformalRegressor((_AbsModel(LO), _AbsModel(HI)), conformity_score="cqr",
                                       alpha=alpha, prefit=True),
    }


class _AbsModel(RegressorMixin, BaseEstimator):
    """Fitted model applied to |X| (a fitted, prefit-only wrapper)."""

    def __init__(self, model=None):
        self.model = model

    def fit(self, X, y):  # pragma: no cover - prefit only
        raise NotImplementedError

    def predict(self, X):
        return self.model.predict(np.abs(np.asarray(X)))

    def __sklearn_is_fitted__(self):
        return True


# ---------------------------------------------------------------------- exact facts
@pytest.mark.parametrize("score", ["absolute", "normalized", "cqr"])
@pytest.mark.parametrize("alpha", [0.1, 0.25, 0.5])
def test_leave_one_out_covers_exactly_k(score, alpha):
    # For n + 1 exchangeable points with distinct scores, calibrating on n and
    # testing on the remaining one covers it in exactly k of the n + 1 cases.
    rng = np.random.default_rng(1)
    n = 19
    X, y = hetero(rng, n + 1)
    k = exact_rank(n, alpha)
    covered = 0
    for i in range(n + 1):
        keep = np.arange(n + 1) != i
        reg = _wrappers(alpha)[score].fit(X[keep], y[keep])
        lo, hi = reg.predict_interval(X[i:i + 1])[0]
        covered += int(lo <= y[i] <= hi)
    assert covered == k


def test_absolute_threshold_is_kth_residual():
    rng = np.random.default_rng(2)
    X, y = hetero(rng, 40)
    alphas = [0.1, 0.3, 0.7]
    reg = SplitConformalRegressor(MU, alpha=alphas, prefit=True).fit(X, y)
    r = np.sort(np.abs(y - MU.predict(X)))
    for j, a in enumerate(alphas):
        q = r[exact_rank(40, a) - 1]
        assert reg.threshold_[j] == q
        Xt = rng.uniform(-2, 2, size=(5, 2))
        iv = reg.predict_interval(Xt)[:, :, j]
        np.testing.assert_allclose(iv[:, 0], MU.predict(Xt) - q)
        np.testing.assert_allclose(iv[:, 1], MU.predict(Xt) + q)


def test_normalized_and_cqr_formulas():
    rng = np.random.default_rng(3)
    X, y = hetero(rng, 50)
    Xt = rng.uniform(-2, 2, size=(7, 2))
    k = exact_rank(50, 0.2)
    sig = SCALE.predict(np.abs(X))
    q = np.sort(np.abs(y - MU.predict(X)) / sig)[k - 1]
    iv = _wrappers(0.2)["normalized"].fit(X, y).predict_interval(Xt)
    st = SCALE.predict(np.abs(Xt))
    np.testing.assert_allclose(iv, np.c_[MU.predict(Xt) - q * st, MU.predict(Xt) + q * st])
    lo, hi = LO.predict(np.abs(X)), HI.predict(np.abs(X))
    q = np.sort(np.maximum(lo - y, y - hi))[k - 1]
    iv = _wrappers(0.2)["cqr"].fit(X, y).predict_interval(Xt)
    np.testing.assert_allclose(iv, np.c_[LO.predict(np.abs(Xt)) - q, HI.predict(np.abs(Xt)) + q])


def test_too_few_points_give_infinite_intervals_with_warning():
    rng = np.random.default_rng(4)
    X, y = hetero(rng, 5)
    with pytest.warns(UserWarning, match="too few calibration points"):
        reg = SplitConformalRegressor(MU, alpha=0.1, prefit=True).fit(X, y)
    iv = reg.predict_interval(X)
    assert np.all(iv[:, 0] == -np.inf) and np.all(iv[:, 1] == np.inf)


# ---------------------------------------------------------------------- Monte Carlo
@pytest.mark.parametrize("score", ["absolute", "normalized", "cqr"])
def test_coverage_is_k_over_n_plus_1(score):
    # R replications of (calibration n = 19, test m = 50) from the same law.
    # Mean coverage must be k/(n+1) = 18/20 = 0.9 at alpha = 0.1 (exactly, in
    # expectation). Two-sided normal check on the mean of the R per-replication
    # coverages, false-alarm rate 1e-6 per score. Power against an off-by-one
    # rank: k -> k +/- 1 shifts the mean by 1/20 = 0.05, while the per-rep sd
    # is about 0.07, so se = 0.07/sqrt(400) = 0.0035 and the shift is ~14 se
    # (z = 4.9 at 1e-6): power > 1 - 1e-12. Planted k + 1 and k - 1 in
    # conformal_rank: this test failed for every score (and the Mondrian test).
    rng = np.random.default_rng(5)
    n, m, R, alpha = 19, 50, 400, 0.1
    k = exact_rank(n, alpha)
    reg = _wrappers(alpha)[score]
    covs = np.empty(R)
    for r in range(R):
        X, y = hetero(rng, n + m)
        reg.fit(X[:n], y[:n])
        iv = reg.predict_interval(X[n:])
        covs[r] = np.mean((iv[:, 0] <= y[n:]) & (y[n:] <= iv[:, 1]))
    se = covs.std(ddof=1) / np.sqrt(R)
    assert_normal_close(covs.mean(), k / (n + 1), se, false_alarm=1e-6, label=score)


def test_mondrian_coverage_within_each_group():
    # Two groups with fixed calibration sizes 19 and 9 (exchangeable within a
    # group); coverage in group g must be k_g / (n_g + 1): 18/20 and 9/10 at
    # alpha = 0.1. Group 1 is 4x noisier, so a marginal threshold would
    # under-cover it (~0.75). False-alarm 1e-6 per group; an off-by-one rank
    # shifts group 0 by 0.05 (~12 se) and group 1 by 0.1 (~15 se).
    rng = np.random.default_rng(6)
    R, m = 400, 40
    sizes = (19, 9)
    reg = SplitConformalRegressor(MU, alpha=0.1, prefit=True)
    covs = np.empty((R, 2))
    for r in range(R):
        parts = []
        for g, ng in enumerate(sizes):
            X = rng.uniform(-2, 2, size=(ng + m, 2))
            y = MU.predict(X) + rng.normal(size=ng + m) * (1 + 3 * g)
            parts.append((X, y, np.full(ng + m, f"g{g}")))
        Xc = np.vstack([p[0][:ng] for p, ng in zip(parts, sizes)])
        yc = np.concatenate([p[1][:ng] for p, ng in zip(parts, sizes)])
        gc = np.concatenate([p[2][:ng] for p, ng in zip(parts, sizes)])
        reg.fit(Xc, yc, groups=gc)
        for g, (p, ng) in enumerate(zip(parts, sizes)):
            iv = reg.predict_interval(p[0][ng:], groups=p[2][ng:])
            covs[r, g] = np.mean((iv[:, 0] <= p[1][ng:]) & (p[1][ng:] <= iv[:, 1]))
    for g, ng in enumerate(sizes):
        se = covs[:, g].std(ddof=1) / np.sqrt(R)
        assert_normal_close(covs[:, g].mean(), exact_rank(ng, 0.1) / (ng + 1), se,
                            false_alarm=1e-6, label=f"group {g}")


def test_mondrian_callable_equals_groups_argument():
    rng = np.random.default_rng(7)
    X, y = hetero(rng, 300)
    fn = _sign_group
    a = SplitConformalRegressor(alpha=0.2, mondrian=fn, random_state=0).fit(X, y)
    b = SplitConformalRegressor(alpha=0.2, random_state=0).fit(X, y, groups=fn(X))
    np.testing.assert_array_equal(a.predict_interval(X), b.predict_interval(X, groups=fn(X)))
    assert a.threshold_.shape == (2, 1)
    with pytest.raises(ValueError, match="unseen at calibration"):
        b.predict_interval(X[:3], groups=["x", "y", "z"])
    with pytest.raises(ValueError, match="pass groups"):
        b.predict_interval(X[:3])


def test_test_groups_come_from_the_calibration_source():
    rng = np.random.default_rng(7)
    X, y = hetero(rng, 300)
    fn = _sign_group
    # calibrated on mondrian(X): groups at prediction would mix two labellings
    a = SplitConformalRegressor(alpha=0.2, mondrian=fn, random_state=0).fit(X, y)
    flipped = np.where(fn(X) == "left", "right", "left")
    with pytest.raises(ValueError, match=r"groups: .*mondrian\(X\).*differ from it in 300 "):
        a.predict_interval(X, groups=flipped)
    with pytest.raises(ValueError, match=r"groups: .*mondrian\(X\)"):
        a.evaluate(X, y, groups=flipped)
    np.testing.assert_array_equal(a.predict_interval(X, groups=fn(X)), a.predict_interval(X))
    assert a.evaluate(X, y, groups=fn(X)).groups.tolist() == ["left", "right"]
    assert a.evaluate(X, y).groups.tolist() == ["left", "right"]
    # calibrated on groups= with mondrian also set: the test rows need groups= as well
    g = np.where(np.asarray(X)[:, 1] > 0, "right", "left")
    b = SplitConformalRegressor(alpha=0.2, mondrian=fn, random_state=0).fit(X, y, groups=g)
    with pytest.raises(ValueError, match="pass groups"):
        b.predict_interval(X)
    with pytest.raises(ValueError, match="pass groups"):
        b.evaluate(X, y)
    ref = SplitConformalRegressor(alpha=0.2, random_state=0).fit(X, y, groups=g)
    np.testing.assert_array_equal(b.predict_interval(X, groups=g),
                                  ref.predict_interval(X, groups=g))
    # not calibrated per group: groups at prediction would be silently ignored
    c = SplitConformalRegressor(alpha=0.2, random_state=0).fit(X, y)
    with pytest.raises(ValueError, match="groups: this model was not calibrated per group"):
        c.predict_interval(X, groups=g)
    assert c.evaluate(X, y, groups=g).groups.tolist() == ["left", "right"]  # reporting only


def _sign_group(X):
    return np.where(np.asarray(X)[:, 0] > 0, "right", "left")


# ---------------------------------------------------------------------- fit modes
def test_fit_then_calibrate_split_and_several_alphas():
    rng = np.random.default_rng(8)
    X, y = hetero(rng, 500)
    multi = SplitConformalRegressor(Ridge(), alpha=[0.1, 0.3], random_state=0).fit(X, y)
    for j, a in enumerate([0.1, 0.3]):
        one = SplitConformalRegressor(Ridge(), alpha=a, random_state=0).fit(X, y)
        np.testing.assert_array_equal(one.predict_interval(X), multi.predict_interval(X)[:, :, j])
    assert multi.n_calib_ == 150
    iv = multi.predict_interval(X)
    assert np.all(iv[:, 0, 0] <= iv[:, 0, 1]) and np.all(iv[:, 1, 1] <= iv[:, 1, 0])
    # recalibration on new data replaces the threshold only
    X2, y2 = hetero(rng, 200)
    before = multi.estimator_.coef_.copy()
    multi.calibrate(X2, y2)
    np.testing.assert_array_equal(multi.estimator_.coef_, before)
    assert multi.n_calib_ == 200


@pytest.mark.parametrize("est, param", [
    (GradientBoostingRegressor(loss="quantile", n_estimators=20, random_state=0), "alpha"),
    (HistGradientBoostingRegressor(loss="quantile", max_iter=5, random_state=0), "quantile"),
    (QuantileRegressor(alpha=0.0), "quantile"),
    (make_pipeline(StandardScaler(), QuantileRegressor(alpha=0.0)),
     "quantileregressor__quantile"),
])
def test_cqr_fits_quantile_models_at_alpha_over_2(est, param):
    rng = np.random.default_rng(9)
    X, y = hetero(rng, 300)
    reg = SplitConformalRegressor(est, conformity_score="cqr", alpha=[0.1, 0.4],
                                  random_state=0).fit(X, y)
    assert quantile_parameter(est) == param
    levels = [(m[0].get_params()[param], m[1].get_params()[param])
              for m in reg.quantile_estimators_]
    np.testing.assert_allclose(levels, [(0.05, 0.95), (0.2, 0.8)])
    assert reg.estimator_.get_params()[param] == 0.5
    assert est.get_params()[param] != 0.05  # the user's estimator is untouched
    assert reg.predict_interval(X).shape == (300, 2, 2)


def test_cqr_adapts_width_on_heteroscedastic_data():
    rng = np.random.default_rng(10)
    X, y = hetero(rng, 3000)
    gbr = GradientBoostingRegressor(loss="quantile", n_estimators=60, max_depth=2,
                                    random_state=0)
    cqr = SplitConformalRegressor(gbr, conformity_score="cqr", random_state=0).fit(X, y)
    iv = cqr.predict_interval(np.array([[0.0, 0.0], [1.8, 0.0]]))
    w = iv[:, 1] - iv[:, 0]
    assert w[1] > 2 * w[0]  # true widths 0.66 vs 6.6


def test_fitted_state_rule():
    rng = np.random.default_rng(11)
    X, y = hetero(rng, 300)
    reg = SplitConformalRegressor(alpha=0.1, random_state=0).fit(X, y)
    before = reg.predict_interval(X)
    reg.set_params(alpha=0.5, conformity_score="normalized")
    for call in (lambda: reg.predict_interval(X), lambda: reg.predict(X),
                 lambda: reg.evaluate(X, y), lambda: reg.score(X, y)):
        with pytest.raises(StaleFitError, match="alpha changed since fit"):
            call()
    assert reg.alpha_.tolist() == [0.1]
    with pytest.raises(ValueError, match=r"conformity_score changed since fit.*call fit"):
        reg.calibrate(X, y)
    reg.set_params(conformity_score="absolute").calibrate(X, y)  # new alpha, same models
    assert reg.alpha_.tolist() == [0.5]
    reg.set_params(alpha=0.1).calibrate(X, y)
    np.testing.assert_array_equal(reg.predict_interval(X), before)
    cqr = SplitConformalRegressor(conformity_score="cqr", alpha=0.2, random_state=0).fit(X, y)
    with pytest.raises(ValueError, match="fitted for alpha"):
        cqr.set_params(alpha=0.1).calibrate(X, y)


@pytest.mark.parametrize("change", [{"estimator": Ridge()}, {"calib_size": 0.5},
                                    {"random_state": 1}, {"scale_estimator": Ridge()}])
def test_calibrate_refuses_parameters_of_the_fitted_models(change):
    rng = np.random.default_rng(11)
    X, y = hetero(rng, 300)
    reg = SplitConformalRegressor(LinearRegression(), random_state=0).fit(X, y)
    (name, _), = change.items()
    with pytest.raises(ValueError, match=rf"parameter {name} changed since fit.*call fit"):
        reg.set_params(**change).calibrate(X, y)


def test_prefit_calibrate_reads_the_models_again():
    rng = np.random.default_rng(11)
    X, y = hetero(rng, 300)
    a, b = LinearRegression().fit(X, y), Ridge(alpha=1e3).fit(X, y)
    reg = SplitConformalRegressor(a, prefit=True).fit(X, y)
    reg.set_params(estimator=b).calibrate(X, y)
    assert reg.estimator_ is b
    ref = SplitConformalRegressor(b, prefit=True).fit(X, y)
    np.testing.assert_array_equal(reg.predict_interval(X), ref.predict_interval(X))


def test_prefit_calibrate_and_prefit_cqr_median():
    rng = np.random.default_rng(12)
    X, y = hetero(rng, 100)
    a = SplitConformalRegressor(MU, prefit=True).calibrate(X, y)
    b = SplitConformalRegressor(MU, prefit=True).fit(X, y)
    np.testing.assert_array_equal(a.predict_interval(X), b.predict_interval(X))
    np.testing.assert_array_equal(a.predict(X), MU.predict(X))
    c = SplitConformalRegressor((_AbsModel(LO), _AbsModel(HI)), conformity_score="cqr",
                                prefit=True).fit(X, y)
    np.testing.assert_allclose(c.predict(X), (LO.predict(np.abs(X)) + HI.predict(np.abs(X))) / 2)


# ---------------------------------------------------------------------- sklearn tooling
def test_pipeline_gridsearch_clone_pandas():
    rng = np.random.default_rng(13)
    X, y = hetero(rng, 400)
    df = pd.DataFrame(X, columns=["a", "b"])
    ys = pd.Series(y)
    pipe = make_pipeline(StandardScaler(), SplitConformalRegressor(Ridge(), random_state=0))
    pipe.fit(df, ys)
    assert pipe[-1].n_features_in_ == 2
    iv = pipe[-1].predict_interval(pipe[0].transform(df))
    assert iv.shape == (400, 2)
    reg = SplitConformalRegressor(make_pipeline(StandardScaler(), Ridge()), random_state=0)
    reg.fit(df, ys)
    assert list(reg.feature_names_in_) == ["a", "b"]
    np.testing.assert_allclose(reg.predict_interval(df),
                               clone(reg).fit(X, y).predict_interval(X), rtol=1e-12)
    gs = GridSearchCV(SplitConformalRegressor(Ridge(), random_state=0),
                      {"estimator__alpha": [0.1, 10.0]}, cv=3).fit(df, ys)
    assert gs.best_params_["estimator__alpha"] in (0.1, 10.0)
    assert gs.best_estimator_.predict_interval(df).shape == (400, 2)


# ---------------------------------------------------------------------- bad input
def test_bad_input():
    rng = np.random.default_rng(14)
    X, y = hetero(rng, 60)
    for alpha in (0, 1, -0.1, 1.5, np.nan):
        with pytest.raises(ValueError, match="alpha"):
            SplitConformalRegressor(alpha=alpha).fit(X, y)
    with pytest.raises(ValueError, match="alpha"):
        SplitConformalRegressor(alpha=[0.1, 1.0]).fit(X, y)
    with pytest.raises(ValueError, match="at least one level"):
        SplitConformalRegressor(alpha=[]).fit(X, y)
    with pytest.raises(TypeError, match="alpha"):
        SplitConformalRegressor(alpha="0.1").fit(X, y)
    with pytest.raises(ValueError, match="conformity_score"):
        SplitConformalRegressor(conformity_score="abs").fit(X, y)
    y_nan = y.copy()
    y_nan[3] = np.nan
    with pytest.raises(ValueError, match="y must not contain NaN"):
        SplitConformalRegressor().fit(X, y_nan)
    X_nan = X.copy()
    X_nan[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        SplitConformalRegressor().fit(X_nan, y)
    with pytest.raises(ValueError, match="same number of rows"):
        SplitConformalRegressor().fit(X, y[:-1])
    with pytest.raises(TypeError, match="quantile regressor"):
        SplitConformalRegressor(LinearRegression(), conformity_score="cqr").fit(X, y)
    with pytest.raises(TypeError, match="quantile regressor"):
        SplitConformalRegressor(GradientBoostingRegressor(), conformity_score="cqr").fit(X, y)
    with pytest.raises(TypeError, match="lower, upper"):
        SplitConformalRegressor(MU, conformity_score="cqr", prefit=True).fit(X, y)
    with pytest.raises(ValueError, match="prefit=True needs a fitted estimator"):
        SplitConformalRegressor(prefit=True).fit(X, y)
    with pytest.raises(ValueError, match="scale_estimator"):
        SplitConformalRegressor(MU, conformity_score="normalized", prefit=True).fit(X, y)
    with pytest.raises(ValueError, match="sigma"):
        SplitConformalRegressor(MU, conformity_score="normalized", scale_estimator=MU,
                                prefit=True).fit(X, y)  # linear "scale" goes negative
    with pytest.raises(ValueError, match="calibrate needs a fitted model"):
        SplitConformalRegressor().calibrate(X, y)
    with pytest.raises(ValueError, match="calib_size"):
        SplitConformalRegressor(calib_size=1.0).fit(X, y)
    with pytest.raises(TypeError, match="mondrian"):
        SplitConformalRegressor(mondrian="group").fit(X, y)
    with pytest.raises(ValueError, match="groups must have shape"):
        SplitConformalRegressor().fit(X, y, groups=[0, 1])
    with pytest.raises(ValueError, match="at least 2 samples"):
        SplitConformalRegressor().fit(X[:1], y[:1])
    with pytest.raises(TypeError, match="prefit"):
        SplitConformalRegressor(prefit="yes").fit(X, y)


# ---------------------------------------------------------------------- metrics
def test_interval_metrics_and_result():
    iv = np.array([[0.0, 1.0], [0.0, 2.0], [1.0, 3.0], [2.0, 1.5]])  # last one empty
    y = np.array([1.0, 2.5, 1.0, 1.7])
    assert interval_coverage(iv, y) == 0.5  # closed interval: y = upper/lower count
    assert mean_width(iv) == (1 + 2 + 2 + 0) / 4
    edges, counts, cov = coverage_by_bins(np.array([True, True, False, False, True, False]),
                                          np.arange(6.0), n_bins=3)
    np.testing.assert_allclose(cov, [1.0, 0.0, 0.5])
    assert counts.tolist() == [2, 2, 2]
    res = evaluate_intervals(np.stack([iv, iv + 1], axis=2), y, [0.1, 0.2], n_bins=2,
                             groups=["a", "a", "b", "b"])
    assert isinstance(res, PredictionIntervalResult)
    np.testing.assert_allclose(res.coverage, [0.5, 0.5])
    np.testing.assert_allclose(res.group_coverage, [[0.5, 1.0], [0.5, 0.0]])
    assert res.n_covered.tolist() == [2, 2]
    text = str(res.summary())
    assert "by group" in text and "0.5" in text
    assert "coverage=[0.5000, 0.5000]" in repr(res)
    ci = res.confidence_interval(0.9)
    assert ci[0].low < 0.5 < ci[0].high
    import matplotlib

    matplotlib.use("Agg")
    ax = res.plot()
    assert len(ax.lines) == 4
    with pytest.raises(ValueError, match="shape"):
        interval_coverage(np.zeros((3, 3)), [0, 0, 0])
    with pytest.raises(ValueError, match="NaN"):
        mean_width(np.array([[0.0, np.nan]]))
    with pytest.raises(ValueError, match="y must"):
        interval_coverage(iv, [1.0, 2.0])
    with pytest.raises(TypeError, match="boolean"):
        coverage_by_bins([1, 0], [1.0, 2.0])
    with pytest.raises(ValueError, match="alpha must hold 1"):
        evaluate_intervals(iv, y, [0.1, 0.2])


def test_evaluate_from_estimator_reports_groups():
    rng = np.random.default_rng(15)
    X, y = hetero(rng, 800)
    reg = SplitConformalRegressor(alpha=[0.1, 0.2], mondrian=_sign_group,
                                  random_state=0).fit(X[:400], y[:400])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res = reg.evaluate(X[400:], y[400:], n_bins=4)
    assert res.groups.tolist() == ["left", "right"]
    assert res.bin_coverage.shape == (4, 2)
    assert np.all(res.coverage > 0.7)

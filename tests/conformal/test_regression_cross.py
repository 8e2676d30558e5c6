"""Jackknife+, CV+ and minmax: brute-force definition, residuals, coverage, bad input."""

from __future__ import annotations

import math
from fractions import Fraction

import joblib
import numpy as np
import pytest
from sklearn.linear_model import LinearRegression, Ridge
from sklearn.model_selection import KFold, ShuffleSplit

from statlearn.base import StaleFitError
from statlearn.conformal import CrossConformalRegressor, cross_conformal_bounds
from statlearn.conformal._regression import _cross
from statlearn.testing import assert_normal_close


def _data(rng, n, d=3):
    X = rng.normal(size=(n, d))
    return X, X @ np.arange(1.0, d + 1) + rng.normal(size=n)


def brute_bounds(P, fold_of, R, alpha, method):
    """Barber et al. (2021) bounds written with loops and exact ranks."""
    n = R.size
    a = Fraction(str(alpha))
    k_hi = math.ceil((n + 1) * (1 - a))
    k_lo = math.floor((n + 1) * a)
    out = []
    for j in range(P.shape[1]):
        if method == "plus":
            lows = sorted(P[fold_of[i], j] - R[i] for i in range(n))
            ups = sorted(P[fold_of[i], j] + R[i] for i in range(n))
            lo = lows[k_lo - 1] if k_lo >= 1 else -np.inf
            hi = ups[k_hi - 1] if k_hi <= n else np.inf
        else:
            q = sorted(R)[k_hi - 1] if k_hi <= n else np.inf
            lo, hi = min(P[:, j]) - q, max(P[:, j]) + q
        out.append((lo, hi))
    return np.array(out)


@pytest.mark.parametrize("method", ["plus", "minmax"])
@pytest.mark.parametrize("n, K", [(9, 3), (20, 20), (37, 5), (101, 2), (150, 5)])
@pytest.mark.parametrize("alpha", [0.05, 0.1, 0.3, 0.7])
def test_bounds_equal_brute_force(method, n, K, alpha):
    # alpha = 0.7 with n = 9 or 20 - 1 is where (n + 1)(1 - alpha) is an integer
    # that floating point rounds up; the exact rank must be used.
    rng = np.random.default_rng(n * 100 + K)
    P = rng.normal(size=(K, 6))
    fold_of = np.arange(n) % K
    R = np.abs(rng.normal(size=n))
    got = cross_conformal_bounds(P, fold_of, R, alpha, method)
    np.testing.assert_allclose(got, brute_bounds(P, fold_of, R, alpha, method), rtol=1e-15)


@pytest.mark.parametrize("alpha", [0.02, 0.1, 0.5, 0.7])
def test_fold_search_equals_dense_path_with_ties(monkeypatch, alpha):
    # residuals and predictions on a coarse grid: many tied sums; uneven folds
    # and a fold with no training points
    rng = np.random.default_rng(7)
    n, K = 300, 6
    P = np.round(rng.normal(size=(K, 40)), 1)
    fold_of = rng.choice([0, 1, 2, 3, 5], size=n, p=[0.1, 0.2, 0.3, 0.2, 0.2])
    R = np.round(np.abs(rng.normal(size=n)), 1)
    monkeypatch.setattr(_cross, "_CHUNK_VALUES", 10**9)
    calls = []
    orig = _cross._kth_of_shifted
    monkeypatch.setattr(_cross, "_kth_of_shifted", lambda *a: calls.append(1) or orig(*a))
    monkeypatch.setattr(_cross, "_use_fold_path", lambda K, n, m: True)
    fast = cross_conformal_bounds(P, fold_of, R, alpha)
    monkeypatch.undo()
    assert calls
    np.testing.assert_array_equal(fast, brute_bounds(P, fold_of, R, alpha, "plus"))
    monkeypatch.setattr(_cross, "_use_fold_path", lambda K, n, m: False)
    np.testing.assert_array_equal(cross_conformal_bounds(P, fold_of, R, alpha), fast)


def test_chunked_plus_bounds_equal_one_block(monkeypatch):
    rng = np.random.default_rng(1)
    P, fold_of, R = rng.normal(size=(4, 50)), np.arange(30) % 4, np.abs(rng.normal(size=30))
    whole = cross_conformal_bounds(P, fold_of, R, 0.2)
    monkeypatch.setattr(_cross, "_CHUNK_VALUES", 70)  # two rows per chunk
    np.testing.assert_array_equal(cross_conformal_bounds(P, fold_of, R, 0.2), whole)


def test_residuals_are_out_of_fold_and_jobs_do_not_matter():
    rng = np.random.default_rng(2)
    X, y = _data(rng, 50)
    splitter = KFold(5, shuffle=True, random_state=0)
    reg = CrossConformalRegressor(Ridge(), cv=splitter, alpha=[0.1, 0.2]).fit(X, y)
    for k, (tr, te) in enumerate(splitter.split(X)):
        model = Ridge().fit(X[tr], y[tr])
        np.testing.assert_allclose(reg.residuals_[te], np.abs(y[te] - model.predict(X[te])))
        assert np.all(reg.fold_of_[te] == k)
    with joblib.parallel_config(backend="threading"):
        par = CrossConformalRegressor(Ridge(), cv=splitter, alpha=[0.1, 0.2],
                                      n_jobs=2).fit(X, y)
    np.testing.assert_array_equal(par.predict_interval(X), reg.predict_interval(X))
    np.testing.assert_allclose(reg.predict(X), Ridge().fit(X, y).predict(X))
    jk = CrossConformalRegressor(cv="jackknife").fit(X, y)
    assert jk.n_folds_ == 50 and jk.predict_interval(X[:3]).shape == (3, 2)


def test_minmax_contains_plus():
    # min_k mu_k - q <= q_lo(mu - R) and q_hi(mu + R) <= max_k mu_k + q
    rng = np.random.default_rng(3)
    X, y = _data(rng, 80)
    plus = CrossConformalRegressor(cv=4, random_state=0).fit(X, y)
    mm = CrossConformalRegressor(method="minmax", cv=4, random_state=0).fit(X, y)
    Xt = rng.normal(size=(200, 3))
    a, b = plus.predict_interval(Xt), mm.predict_interval(Xt)
    assert np.all(b[:, 0] <= a[:, 0] + 1e-12) and np.all(a[:, 1] <= b[:, 1] + 1e-12)


@pytest.mark.parametrize("method, cv", [("plus", "jackknife"), ("plus", 5), ("minmax", 5)])
def test_coverage_on_ordinary_data(method, cv):
    # R = 300 replications (150 for the jackknife, which fits n + 1 models) of
    # n = 39 training (19 for the jackknife) and m = 40 test points from a
    # linear-Gaussian model, least squares. Guarantees checked one-sided at a
    # false-alarm rate of 1e-6: jackknife+ >= 1 - 2 alpha = 0.8; CV+ (K = 5)
    # >= 1 - 2 alpha - min{2(1 - 1/K)/(n/K + 1), (1 - K/n)/(K + 1)} = 0.655;
    # minmax >= 1 - alpha = 0.9. On such data jackknife+/CV+ cover about
    # 1 - alpha (Barber et al., 2021, Sec. 6): the mean must lie within 0.03
    # of 0.9 plus the same 1e-6 normal margin (an empirical property, not a
    # guarantee; the off-by-one rank is caught exactly by the brute-force test).
    rng = np.random.default_rng(4)
    n, m, R, alpha = (19, 40, 150, 0.1) if cv == "jackknife" else (39, 40, 300, 0.1)
    covs = np.empty(R)
    reg = CrossConformalRegressor(method=method, cv=cv, alpha=alpha, random_state=0)
    for r in range(R):
        X, y = _data(rng, n + m)
        iv = reg.fit(X[:n], y[:n]).predict_interval(X[n:])
        covs[r] = np.mean((iv[:, 0] <= y[n:]) & (y[n:] <= iv[:, 1]))
    se = covs.std(ddof=1) / np.sqrt(R)
    if method == "minmax":
        bound = 1 - alpha
    elif cv == "jackknife":
        bound = 1 - 2 * alpha
    else:
        K = cv
        bound = 1 - 2 * alpha - min(2 * (1 - 1 / K) / (n / K + 1), (1 - K / n) / (K + 1))
    assert_normal_close(covs.mean(), bound, se, false_alarm=1e-6, alternative="less",
                        label="guaranteed coverage")
    if method == "plus":
        assert abs(covs.mean() - (1 - alpha)) <= 0.03 + 4.9 * se


class _OneFold:
    def split(self, X, y=None):
        yield np.arange(0), np.arange(len(X))


def test_bad_input():
    rng = np.random.default_rng(5)
    X, y = _data(rng, 30)
    with pytest.raises(ValueError, match="method"):
        CrossConformalRegressor(method="base").fit(X, y)
    with pytest.raises(ValueError, match=r"cv must be an int in \[2, inf\].*got 1\."):
        CrossConformalRegressor(cv=1).fit(X, y)
    with pytest.raises(ValueError, match="cv"):
        CrossConformalRegressor(cv="loo").fit(X, y)
    with pytest.raises(TypeError, match=r"cv must be .*split method\), got list"):
        CrossConformalRegressor(cv=[1, 2]).fit(X, y)
    with pytest.raises(ValueError, match="exactly one test fold"):
        CrossConformalRegressor(cv=ShuffleSplit(3, test_size=0.2, random_state=0)).fit(X, y)
    with pytest.raises(ValueError, match="cv must give at least 2 folds, got 1"):
        # one "fold" holding every sample: no model would be left to score them
        CrossConformalRegressor(cv=_OneFold()).fit(X, y)
    with pytest.raises(ValueError, match="alpha"):
        CrossConformalRegressor(alpha=1.0).fit(X, y)
    y_nan = y.copy()
    y_nan[0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        CrossConformalRegressor().fit(X, y_nan)
    with pytest.raises(ValueError, match="n_samples = 3"):
        CrossConformalRegressor(cv=5).fit(X[:3], y[:3])
    with pytest.raises(ValueError, match="fold_of"):
        cross_conformal_bounds(np.zeros((2, 3)), np.array([0, 2]), np.ones(2), 0.1)
    with pytest.raises(ValueError, match="residuals"):
        cross_conformal_bounds(np.zeros((2, 3)), np.array([0, 1]), np.array([1.0, -1.0]), 0.1)
    with pytest.raises(ValueError, match="method"):
        cross_conformal_bounds(np.zeros((2, 3)), np.array([0, 1]), np.ones(2), 0.1, "base")


def test_outputs_refuse_parameters_changed_since_fit():
    rng = np.random.default_rng(6)
    X, y = _data(rng, 40)
    reg = CrossConformalRegressor(LinearRegression(), cv=4, random_state=0).fit(X, y)
    before = reg.predict_interval(X)
    for name, value in (("alpha", 0.5), ("method", "minmax"), ("cv", 5), ("random_state", 1),
                        ("estimator", Ridge())):
        old = reg.get_params()[name]
        reg.set_params(**{name: value})
        for call in (lambda: reg.predict_interval(X), lambda: reg.predict(X),
                     lambda: reg.fold_predictions(X), lambda: reg.evaluate(X, y, n_bins=4)):
            with pytest.raises(StaleFitError, match=rf"parameter {name} changed since fit"):
                call()
        reg.set_params(**{name: old})
    np.testing.assert_array_equal(reg.predict_interval(X), before)
    reg.set_params(n_jobs=2)  # cannot change an output
    np.testing.assert_array_equal(reg.predict_interval(X), before)
    res = reg.evaluate(X, y, n_bins=4)
    assert res.alpha.tolist() == [0.1] and res.bin_counts.sum() == 40


def test_pipeline_gridsearch_clone_pandas():
    import pandas as pd
    from sklearn.base import clone
    from sklearn.model_selection import GridSearchCV
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    rng = np.random.default_rng(8)
    X, y = _data(rng, 120)
    df, ys = pd.DataFrame(X, columns=["a", "b", "c"]), pd.Series(y)
    reg = CrossConformalRegressor(make_pipeline(StandardScaler(), Ridge()), cv=4,
                                  random_state=0).fit(df, ys)
    assert list(reg.feature_names_in_) == ["a", "b", "c"]
    np.testing.assert_array_equal(reg.predict_interval(df),
                                  clone(reg).fit(df, ys).predict_interval(df))
    # NumPy input: the same intervals up to rounding of the scaler (an order
    # statistic may switch between two values within 1e-12 of each other)
    np.testing.assert_allclose(reg.predict_interval(df), clone(reg).fit(X, y).predict_interval(X),
                               atol=1e-9)
    gs = GridSearchCV(CrossConformalRegressor(Ridge(), cv=3, random_state=0),
                      {"estimator__alpha": [0.1, 100.0]}, cv=3).fit(df, ys)
    assert gs.best_params_["estimator__alpha"] == 0.1  # low noise: less shrinkage wins on R^2
    pipe = make_pipeline(StandardScaler(), CrossConformalRegressor(cv=3, random_state=0))
    assert pipe.fit(df, ys).predict(df).shape == (120,)


@pytest.mark.parametrize("model", ["ols", "1nn", "tree"])
@pytest.mark.parametrize("alpha", [0.1, 0.25])
def test_jackknife_plus_worst_case_is_deterministic(model, alpha):
    # Barber et al. (2021), proof of Theorem 1, as a fact about any data set of
    # N = n + 1 points and any symmetric, deterministic algorithm: leaving each
    # point out in turn and building jackknife+ from the other n, at most
    # floor(2 alpha N) points are missed ("strange" points of the comparison
    # matrix). Exchangeability turns this into coverage >= 1 - 2 alpha. The
    # 1-nearest-neighbour and deep-tree fits are unstable, the worst case the
    # bound is about; heavy-tailed noise makes misses frequent (here about
    # alpha N of them, so the check guards the bound, not the typical count).
    from sklearn.neighbors import KNeighborsRegressor
    from sklearn.tree import DecisionTreeRegressor

    est = {"ols": LinearRegression(), "1nn": KNeighborsRegressor(n_neighbors=1),
           "tree": DecisionTreeRegressor(random_state=0)}[model]
    rng = np.random.default_rng(9)
    N = 20
    X = rng.normal(size=(N, 2))
    y = X[:, 0] + rng.standard_cauchy(size=N)
    misses = 0
    for i in range(N):
        keep = np.arange(N) != i
        reg = CrossConformalRegressor(est, cv="jackknife", alpha=alpha).fit(X[keep], y[keep])
        lo, hi = reg.predict_interval(X[i:i + 1])[0]
        misses += int(not lo <= y[i] <= hi)
    assert misses <= math.floor(2 * alpha * N)

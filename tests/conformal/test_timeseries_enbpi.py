"""EnbPI (Xu & Xie, 2021, Algorithm 1): brute-force reference, sliding window, bad input.

The reference below is written from the algorithm with plain loops: for each
training point the models whose resample left it out, their mean or median,
the leave-one-out residual; at a test point the aggregate of the leave-one-out
ensembles; the ``ceil((1 - alpha)(n + 1))``-th smallest absolute residual (or
the equal-tailed signed order statistics). The estimator must equal it to
``1e-10`` (the mean path is a matrix product, so only rounding differs).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from sklearn.linear_model import Ridge
from sklearn.model_selection import KFold

from statlearn.base import StaleFitError
from statlearn.conformal import TimeSeriesRegressor, block_bootstrap_indices


def _series(seed, n, p=3):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p))
    y = X @ np.arange(1.0, p + 1) + rng.normal(size=n) * np.linspace(0.5, 2.0, n)
    return X, y


def _rank(n, level):
    x = (n + 1) * (1 - level)
    return round(x) if abs(x - round(x)) <= 1e-9 * x else math.ceil(x)


def _reference(model, X, y, train_sets, X_new, alpha, agg, symmetric):
    agg_f = np.mean if agg == "mean" else np.median
    n = len(y)
    fits = [clone(model).fit(X[tr], y[tr]) for tr in train_sets]
    preds_new = np.array([f.predict(X_new) for f in fits])      # (B, m)
    resid, loo_new = [], []
    for i in range(n):
        out = [b for b, tr in enumerate(train_sets) if i not in set(tr.tolist())]
        resid.append(y[i] - agg_f([fits[b].predict(X[i:i + 1])[0] for b in out]))
        loo_new.append(agg_f(preds_new[out], axis=0))
    resid = np.array(resid)
    centre = agg_f(np.array(loo_new), axis=0)
    if symmetric:
        k = _rank(n, alpha)
        q = np.sort(np.abs(resid))[k - 1] if k <= n else np.inf
        return resid, centre, np.column_stack([centre - q, centre + q])
    k = _rank(n, alpha / 2)
    srt = np.sort(resid)
    hi = srt[k - 1] if k <= n else np.inf
    lo = srt[n - k] if k <= n else -np.inf     # (n + 1 - k)-th smallest
    return resid, centre, np.column_stack([centre + lo, centre + hi])


@pytest.mark.parametrize("agg", ["mean", "median"])
@pytest.mark.parametrize("symmetric", [True, False])
@pytest.mark.parametrize("alpha", [0.1, 0.3])
def test_equals_brute_force_reference(agg, symmetric, alpha):
    X, y = _series(0, 90)
    reg = TimeSeriesRegressor(Ridge(), n_resamplings=12, block_length=3, aggregation=agg,
                              symmetric=symmetric, alpha=alpha, random_state=5)
    reg.fit(X[:60], y[:60])
    resid, centre, iv = _reference(Ridge(), X[:60], y[:60], reg.train_indices_, X[60:],
                                   alpha, agg, symmetric)
    np.testing.assert_allclose(reg.residuals_, resid, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(reg.predict(X[60:]), centre, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(reg.predict_interval(X[60:]), iv, rtol=1e-10, atol=1e-12)


def test_update_slides_the_window():
    X, y = _series(1, 120)
    reg = TimeSeriesRegressor(Ridge(), n_resamplings=15, random_state=0).fit(X[:50], y[:50])
    old = reg.residuals_.copy()
    new = y[50:60] - reg.predict(X[50:60])
    reg.update(X[50:60], y[50:60])
    np.testing.assert_allclose(reg.residuals_, np.concatenate([old[10:], new]), rtol=1e-12)
    assert reg.residuals_.size == 50
    # more new points than the window holds: the latest 50 of them
    newer = y[60:120] - reg.predict(X[60:120])
    reg.update(X[60:120], y[60:120])
    np.testing.assert_allclose(reg.residuals_, newer[-50:], rtol=1e-12)
    assert reg.alpha_t_ == 0.1 and len(reg.errors_) == 70


@pytest.mark.parametrize("batch", [1, 7])
def test_online_equals_predict_then_update(batch):
    X, y = _series(2, 100)
    a = TimeSeriesRegressor(Ridge(), n_resamplings=15, random_state=0).fit(X[:60], y[:60])
    b = clone(a).fit(X[:60], y[:60])
    online = a.predict_interval_online(X[60:], y[60:], batch_size=batch)
    manual = []
    for s in range(60, 100, batch):
        manual.append(b.predict_interval(X[s:s + batch]))
        b.update(X[s:s + batch], y[s:s + batch])
    manual = np.concatenate(manual)
    np.testing.assert_allclose(online, manual, rtol=1e-12)
    np.testing.assert_allclose(a.residuals_, b.residuals_, rtol=1e-12)
    hit = (manual[:, 0] <= y[60:]) & (y[60:] <= manual[:, 1])
    assert a.errors_ == list(~hit)


def test_aci_level_moves_after_each_row():
    X, y = _series(3, 140)
    y[80:] += 6.0  # a level shift the models never saw: misses, so the level drops
    reg = TimeSeriesRegressor(Ridge(), method="aci", gamma=0.05, n_resamplings=15,
                              random_state=0).fit(X[:80], y[:80])
    iv = reg.predict_interval_online(X[80:], y[80:])
    path = np.array(reg.alpha_path_)
    err = np.array(reg.errors_, dtype=float)
    np.testing.assert_allclose(np.diff(path), 0.05 * (0.1 - err), rtol=1e-10, atol=1e-14)
    assert path[-1] < 0.1
    # the interval of each row is the one at its working level: wider as the level drops
    w = iv[:, 1] - iv[:, 0]
    assert w[np.argmin(path[:-1])] >= w[0]


def test_aci_estimator_equals_the_score_stream_version():
    """Symmetric ACI on the estimator is ACI on the scores |y - f(x)| with a window of n."""
    from statlearn.conformal import adaptive_conformal_inference

    X, y = _series(10, 260)
    y[120:] *= 1.5
    reg = TimeSeriesRegressor(Ridge(), method="aci", gamma=0.03, n_resamplings=15,
                              random_state=0).fit(X[:100], y[:100])
    cal = np.abs(reg.residuals_)
    scores = np.abs(y[100:] - reg.predict(X[100:]))
    reg.update(X[100:], y[100:])
    res = adaptive_conformal_inference(scores, cal, alpha=0.1, gamma=0.03, window=100)
    np.testing.assert_array_equal(np.array(reg.errors_), res.errors)
    np.testing.assert_allclose(reg.alpha_path_, res.alphas, rtol=1e-12, atol=1e-15)


def test_aci_empty_and_full_sets():
    X, y = _series(4, 60)
    reg = TimeSeriesRegressor(Ridge(), method="aci", n_resamplings=15, random_state=0)
    reg.fit(X[:40], y[:40])
    reg.alpha_t_ = 1.0
    assert np.all(reg.predict_interval(X[40:]) == [np.inf, -np.inf])
    reg.alpha_t_ = 0.0
    assert np.all(reg.predict_interval(X[40:]) == [-np.inf, np.inf])


def test_infinite_bounds_when_rank_exceeds_window():
    X, y = _series(5, 30)
    reg = TimeSeriesRegressor(Ridge(), alpha=0.05, n_resamplings=15, random_state=0)
    iv = reg.fit(X[:10], y[:10]).predict_interval(X[10:])   # ceil(0.95 * 11) = 11 > 10
    assert np.isneginf(iv[:, 0]).all() and np.isposinf(iv[:, 1]).all()


def test_random_state_reproducible_and_matters():
    X, y = _series(6, 80)
    a = TimeSeriesRegressor(Ridge(), n_resamplings=25, random_state=1).fit(X, y)
    b = TimeSeriesRegressor(Ridge(), n_resamplings=25, random_state=1).fit(X, y)
    c = TimeSeriesRegressor(Ridge(), n_resamplings=25, random_state=2).fit(X, y)
    np.testing.assert_array_equal(a.residuals_, b.residuals_)
    assert not np.array_equal(a.residuals_, c.residuals_)


def test_block_bootstrap_indices_are_consecutive_blocks():
    draws = block_bootstrap_indices(23, 40, block_length=5, random_state=0)
    assert len(draws) == 40
    starts = set(range(0, 23, 5))
    for idx in draws:
        assert idx.size == 23
        pos = 0
        while pos < idx.size:       # every run starts at a block start and is consecutive
            assert idx[pos] in starts
            L = min(5, 23 - idx[pos])
            run = idx[pos:pos + L]
            np.testing.assert_array_equal(run, np.arange(idx[pos], idx[pos] + run.size))
            pos += L
    # every block is drawn at some point
    assert set(np.concatenate(draws).tolist()) == set(range(23))


def test_block_bootstrap_bad_input():
    with pytest.raises(ValueError, match="block_length"):
        block_bootstrap_indices(10, 3, block_length=11)
    with pytest.raises(ValueError, match="n_resamplings"):
        block_bootstrap_indices(10, 0)
    with pytest.raises(ValueError, match="n_samples"):
        block_bootstrap_indices(1, 3)


@pytest.mark.parametrize("params, name", [
    ({"alpha": 1.5}, "alpha"), ({"alpha": 0.0}, "alpha"), ({"gamma": 0.0}, "gamma"),
    ({"gamma": -1.0}, "gamma"), ({"n_resamplings": 0}, "n_resamplings"),
    ({"method": "plus"}, "method"), ({"aggregation": "max"}, "aggregation"),
    ({"block_length": 0}, "block_length"), ({"resampler": "bootstrap"}, "resampler"),
])
def test_bad_parameters(params, name):
    X, y = _series(7, 30)
    with pytest.raises((ValueError, TypeError), match=name):
        TimeSeriesRegressor(**params).fit(X, y)


def test_bad_data():
    X, y = _series(8, 40)
    with pytest.raises(ValueError, match="block_length"):
        TimeSeriesRegressor(block_length=50).fit(X, y)
    y_nan = y.copy()
    y_nan[3] = np.nan
    with pytest.raises(ValueError, match="y"):
        TimeSeriesRegressor().fit(X, y_nan)
    with pytest.raises(ValueError, match="every bootstrap resample"):
        TimeSeriesRegressor(n_resamplings=1, random_state=0).fit(X, y)
    reg = TimeSeriesRegressor(n_resamplings=15, random_state=0).fit(X, y)
    with pytest.raises(ValueError, match="features"):
        reg.update(X[:5, :2], y[:5])
    with pytest.raises(ValueError, match="y"):
        reg.update(X[:5], y_nan[:5])
    with pytest.raises(ValueError, match="same number of rows"):
        reg.update(X[:5], y[:4])
    X_nan = X[:5].copy()
    X_nan[0, 0] = np.nan
    with pytest.raises(ValueError, match="X"):
        reg.update(X_nan, y[:5])
    with pytest.raises(ValueError, match="batch_size"):
        reg.predict_interval_online(X[:5], y[:5], batch_size=0)
    aci = TimeSeriesRegressor(method="aci", n_resamplings=15, random_state=0).fit(X, y)
    with pytest.raises(ValueError, match="batch_size"):
        aci.predict_interval_online(X[:5], y[:5], batch_size=2)


def test_not_fitted_and_stale():
    X, y = _series(9, 40)
    with pytest.raises(NotFittedError):
        TimeSeriesRegressor().predict_interval(X)
    reg = TimeSeriesRegressor(n_resamplings=15, random_state=0).fit(X, y)
    reg.set_params(alpha=0.2)
    with pytest.raises(StaleFitError):
        reg.predict_interval(X)
    with pytest.raises(StaleFitError):
        reg.update(X, y)


@pytest.mark.parametrize("kwargs, message", [
    ({"gamma": 0.05}, r"gamma=0.05 has no effect with method='enbpi'"),
    ({"method": "agaci", "gamma": 0.05}, r"gamma=0.05 has no effect with method='agaci'"),
    ({"method": "aci", "gammas": [0.01, 0.05]}, r"gammas=\[0.01, 0.05\] has no effect"),
    ({"resampler": KFold(3), "n_resamplings": 10}, r"n_resamplings=10 has no effect with a "
                                                   r"resampler"),
    ({"resampler": KFold(3), "block_length": 4}, r"block_length=4 has no effect with a "
                                                 r"resampler"),
    ({"resampler": KFold(3), "random_state": 0}, r"random_state=0 has no effect with a "
                                                 r"resampler"),
])
def test_a_parameter_the_method_never_reads_is_refused(kwargs, message):
    # accepted and silently ignored before: gamma with EnbPI or AgACI, gammas outside
    # AgACI, the bootstrap's size, block length and seed next to a user resampler
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 2))
    y = X[:, 0] + 0.1 * rng.normal(size=60)
    with pytest.raises(ValueError, match=message):
        TimeSeriesRegressor(**kwargs).fit(X, y)

"""Fast paths of the split regressor against the direct formulas.

The intervals of the absolute score without groups are written level by level
(``mu - q``, ``mu + q``: one correctly rounded operation each), so they are
compared exactly with the formula; a response given as a list takes the full
checks and must give the same fit.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.linear_model import LinearRegression

from statlearn.conformal import SplitConformalRegressor
from tests.helpers import raises


def _data(n, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    y = X @ np.array([1.0, -2.0, 0.5]) + rng.standard_t(3, size=n)
    return X, y


@pytest.mark.parametrize("alpha", [0.1, [0.1], [0.05, 0.2, 0.5], [0.01, 0.3]])
@pytest.mark.parametrize("n_cal", [5, 40, 401])
def test_intervals_are_the_prediction_minus_and_plus_the_thresholds(alpha, n_cal):
    X, y = _data(n_cal + 300, seed=n_cal)
    model = LinearRegression().fit(X[:100], y[:100])
    Xc, yc, Xt = X[100:100 + n_cal], y[100:100 + n_cal], X[100 + n_cal:]
    # small calibration sets give infinite thresholds (and a warning): kept in the test
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = SplitConformalRegressor(model, alpha=alpha, prefit=True).fit(Xc, yc)
    out = est.predict_interval(Xt)
    mu = model.predict(Xt)
    q = np.atleast_1d(est.threshold_)
    expected = np.stack([mu[:, None] - q[None, :], mu[:, None] + q[None, :]], axis=1)
    assert np.isinf(q).any() == (n_cal == 5 or (n_cal == 40 and 0.01 in np.atleast_1d(alpha)))
    if np.ndim(alpha) == 0:
        expected = expected[:, :, 0]
    assert out.shape == expected.shape and out.flags.c_contiguous == expected.flags.c_contiguous
    np.testing.assert_array_equal(out, expected)
    # the response as a list takes the full checks: the same thresholds
    ref = SplitConformalRegressor(model, alpha=alpha, prefit=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref.fit(Xc, yc.tolist())
    np.testing.assert_array_equal(ref.threshold_, est.threshold_)
    np.testing.assert_array_equal(ref.predict_interval(Xt), out)


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_a_non_finite_response_is_refused_on_the_fast_path(bad):
    X, y = _data(50)
    y[3] = bad
    model = LinearRegression().fit(X, np.nan_to_num(y, posinf=0.0))
    raises(lambda: SplitConformalRegressor(model, prefit=True).fit(X, y), ValueError,
           names="y")
    raises(lambda: SplitConformalRegressor(model, prefit=True).fit(X, y.astype(np.float32)),
           ValueError, names="y")


def test_integer_and_float32_responses_give_the_float64_fit():
    X, y = _data(200)
    yi = np.round(y).astype(np.int64)
    model = LinearRegression().fit(X, y)
    a = SplitConformalRegressor(model, alpha=[0.1, 0.2], prefit=True).fit(X, yi)
    b = SplitConformalRegressor(model, alpha=[0.1, 0.2], prefit=True).fit(X, yi.astype(float))
    np.testing.assert_array_equal(a.threshold_, b.threshold_)
    c = SplitConformalRegressor(model, prefit=True).fit(X, y.astype(np.float32))
    d = SplitConformalRegressor(model, prefit=True).fit(X, y.astype(np.float32).astype(float))
    np.testing.assert_array_equal(c.threshold_, d.threshold_)


def test_the_cached_parameter_names_are_the_signature():
    import inspect

    names = SplitConformalRegressor._get_param_names()
    sig = [p for p in inspect.signature(SplitConformalRegressor.__init__).parameters if p != "self"]
    assert names == sorted(sig)
    names.append("x")  # a copy: the cache cannot be edited through it
    assert "x" not in SplitConformalRegressor._get_param_names()


def test_prefit_fit_checks_the_seed_it_does_not_use_and_draws_nothing():
    # the prefit fit skips building a generator; a bad seed is still refused by name,
    # and a Generator passed in is left where it was (no split, so no draw)
    from sklearn.linear_model import Ridge

    rng = np.random.default_rng(0)
    X = rng.standard_normal((60, 3))
    y = X.sum(axis=1) + rng.standard_normal(60)
    model = Ridge().fit(X, y)
    with pytest.raises(TypeError, match="random_state"):
        SplitConformalRegressor(model, prefit=True, random_state="seed").fit(X, y)
    gen = np.random.default_rng(5)
    state = gen.bit_generator.state
    a = SplitConformalRegressor(model, alpha=0.2, prefit=True, random_state=gen).fit(X, y)
    assert gen.bit_generator.state == state
    b = SplitConformalRegressor(model, alpha=0.2, prefit=True, random_state=None).fit(X, y)
    np.testing.assert_array_equal(a.predict_interval(X), b.predict_interval(X))

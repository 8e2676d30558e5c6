"""Array-likes, NumPy scalars and bad values at every entry point of statlearn.conformal.

Each test pins a defect that was once there: pandas objects refused or
misread, float32 features fitted in float32, NaN accepted or reported under
another name, NumPy scalars and random generators refused by a parameter.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.linear_model import LogisticRegression

from statlearn.conformal import (
    ConformalSelector,
    CrossConformalRegressor,
    MultiConditionSelector,
    SplitConformalClassifier,
    SplitConformalRegressor,
    aps_scores,
    bh_select,
    cfbh,
    conformal_pvalues,
    cross_conformal_bounds,
    evaluate_intervals,
    label_ranks,
    lac_scores,
    mccs,
    raps_scores,
    region_scores,
    scaled_lam_grid,
    select_lambda,
    socop_scores,
    socop_sets,
    thresholds_from_scores,
    topk_scores,
)


def _series(a):
    """A Series with a non-default index: it must be read by position."""
    return pd.Series(a, index=np.arange(100, 100 + len(a))[::-1], name="v")


def _frame(a):
    return pd.DataFrame(a, index=np.arange(50, 50 + a.shape[0]),
                        columns=[f"c{j}" for j in range(a.shape[1])])


@pytest.fixture(scope="module")
def sel_data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 2))
    y = X[:, 0] + 0.3 * rng.normal(size=300)
    return X, y


# ---------------------------------------------------------------- selection
def test_selection_functions_read_pandas_by_position():
    rng = np.random.default_rng(1)
    mu_cal, mu_test = rng.normal(size=200), rng.normal(size=30)
    y_cal, y_test = mu_cal + 0.3 * rng.normal(size=200), mu_test + 0.3 * rng.normal(size=30)
    p = rng.random(20) ** 2
    ref, got = bh_select(p, 0.2), bh_select(_series(p), 0.2)
    np.testing.assert_array_equal(got[0], ref[0])
    assert got[1] == ref[1]
    u = rng.random(30)
    np.testing.assert_array_equal(conformal_pvalues(_series(mu_test), _series(mu_cal),
                                                    _series(u)),
                                  conformal_pvalues(mu_test, mu_cal, u))
    for func, extra in ((cfbh, {}), (mccs, {"conditions": [(0.5, np.inf)]})):
        ref = func(mu_cal, y_cal, mu_test, q=0.3, y_test=y_test, random_state=0, **extra)
        got = func(_series(mu_cal), _series(y_cal), _series(mu_test), q=0.3,
                   y_test=_series(y_test), random_state=0, **extra)
        np.testing.assert_array_equal(got.selected, ref.selected)
        np.testing.assert_array_equal(got.pvalues, ref.pvalues)
        assert (got.fdp, got.power) == (ref.fdp, ref.power)
    np.testing.assert_array_equal(region_scores(_series(mu_cal), _series(y_cal), lower=0.0,
                                                upper=1.0),
                                  region_scores(mu_cal, y_cal, lower=0.0, upper=1.0))


def test_selector_select_takes_pandas_y_true(sel_data):
    X, y = sel_data
    for sel in (ConformalSelector(q=0.3, random_state=0),
                MultiConditionSelector(conditions=[(0.5, np.inf)], q=0.3, random_state=0)):
        sel.fit(X[:200], y[:200])
        ref = sel.select(X[200:], y_true=y[200:])
        got = sel.select(X[200:], y_true=_series(y[200:]))
        np.testing.assert_array_equal(got.selected, ref.selected)
        assert (got.fdp, got.power) == (ref.fdp, ref.power)


@pytest.mark.parametrize("make_rs", [lambda: np.random.default_rng(3),
                                     lambda: np.random.SeedSequence(3)])
def test_selectors_take_a_generator_as_random_state(sel_data, make_rs):
    X, y = sel_data
    for cls, kw in ((ConformalSelector, {}),
                    (MultiConditionSelector, {"conditions": [(0.5, np.inf)]})):
        runs = [cls(q=0.3, random_state=make_rs(), **kw).fit(X[:200], y[:200])
                .select(X[200:]).selected for _ in range(2)]
        np.testing.assert_array_equal(runs[0], runs[1])


def test_selectors_take_numpy_scalar_parameters(sel_data):
    X, y = sel_data
    ref = ConformalSelector(q=0.3, calib_size=0.4, threshold=0.5, random_state=0)
    ref = ref.fit(X[:200], y[:200]).select(X[200:])
    for wrap in (np.float64, np.asarray):
        sel = ConformalSelector(q=wrap(0.3), calib_size=wrap(0.4), threshold=wrap(0.5),
                                random_state=0).fit(X[:200], y[:200])
        np.testing.assert_array_equal(sel.select(X[200:]).pvalues, ref.pvalues)


def test_selector_per_unit_threshold_errors_name_threshold(sel_data):
    X, y = sel_data
    c = np.zeros(200)
    sel = ConformalSelector(q=0.3, random_state=0).fit(X[:200], y[:200], threshold=c)
    bad = np.zeros(100)
    bad[3] = np.nan
    with pytest.raises(ValueError, match=r"^threshold must be finite"):
        sel.select(X[200:], threshold=bad)
    with pytest.raises(ValueError, match=r"^threshold must be finite with shape \(100,\)"):
        sel.select(X[200:], threshold=np.zeros(99))
    res = sel.select(X[200:], threshold=_series(np.zeros(100)))
    np.testing.assert_array_equal(res.selected, sel.select(X[200:],
                                                           threshold=np.zeros(100)).selected)


# ---------------------------------------------------------------- scores
@pytest.mark.parametrize("func, kw", [
    (lac_scores, {}), (topk_scores, {}), (label_ranks, {}),
    (aps_scores, {"u": np.linspace(0.05, 0.95, 40)}),
    (raps_scores, {"lam_reg": 0.1, "k_reg": 1, "u": np.linspace(0.05, 0.95, 40)}),
    (socop_scores, {"lam": 0.5}),
])
def test_score_functions_read_pandas_by_position(func, kw):
    rng = np.random.default_rng(2)
    proba, labels = rng.dirichlet(np.ones(4), 40), rng.integers(0, 4, 40)
    np.testing.assert_array_equal(func(_frame(proba), labels=_series(labels), **kw),
                                  func(proba, labels=labels, **kw))
    np.testing.assert_array_equal(func(_frame(proba), **kw), func(proba, **kw))


def test_set_and_tuning_functions_read_pandas():
    rng = np.random.default_rng(3)
    proba = rng.dirichlet(np.ones(4) * 0.5, 200)
    labels = np.array([rng.choice(4, p=r) for r in proba])
    np.testing.assert_array_equal(socop_sets(_frame(proba), 0.5, 0.6),
                                  socop_sets(proba, 0.5, 0.6))
    g1, s1 = scaled_lam_grid(_frame(proba), _series(labels), 0.2)
    g2, s2 = scaled_lam_grid(proba, labels, 0.2)
    np.testing.assert_array_equal(g1, g2)
    assert s1 == s2
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert select_lambda(_frame(proba), _series(labels), 0.2).lam == \
            select_lambda(proba, labels, 0.2).lam


def test_thresholds_from_scores_checks_labels():
    scores = np.linspace(0, 1, 10)
    labels = np.arange(10) % 3
    with pytest.raises(TypeError, match="labels must hold integer"):
        thresholds_from_scores(scores, np.where(labels == 0, np.nan, labels), 0.2, 3,
                               mondrian=True)
    for mondrian in (False, True):
        with pytest.raises(ValueError, match="labels must have the shape of scores"):
            thresholds_from_scores(scores, labels[:-1], 0.2, 3, mondrian=mondrian)
        with pytest.raises(ValueError, match=r"labels must be label indices in \[0, 2\]"):
            thresholds_from_scores(scores, labels + 1, 0.2, 3, mondrian=mondrian)
    np.testing.assert_array_equal(
        thresholds_from_scores(_series(scores), _series(labels), 0.2, np.int64(3),
                               mondrian=True),
        thresholds_from_scores(scores, labels, 0.2, 3, mondrian=True))


# ---------------------------------------------------------------- intervals
def test_cross_conformal_bounds_refuses_nan_predictions():
    P = np.zeros((2, 3))
    P[1, 2] = np.nan
    with pytest.raises(ValueError, match="fold_predictions must be finite"):
        cross_conformal_bounds(P, np.array([0, 1, 1]), np.ones(3), 0.4)
    with pytest.raises(TypeError, match="fold_of must hold integer"):
        cross_conformal_bounds(np.zeros((2, 3)), np.array([0.0, 1.0, np.nan]), np.ones(3), 0.4)


def test_evaluate_intervals_names_bins_and_refuses_nan_groups():
    iv = np.column_stack([np.zeros(6), np.ones(6)])
    y = np.linspace(0, 1.2, 6)
    bins = np.linspace(0, 1, 6)
    bins[2] = np.nan
    with pytest.raises(ValueError, match="^bins must not contain NaN"):
        evaluate_intervals(iv, y, 0.1, bins=bins, n_bins=2)
    with pytest.raises(ValueError, match="^groups must not contain NaN"):
        evaluate_intervals(iv, y, 0.1, n_bins=2, groups=np.array([0.0, 1.0, np.nan] * 2))
    ref = evaluate_intervals(iv, y, 0.1, n_bins=2, groups=np.arange(6) % 2)
    got = evaluate_intervals(_frame(iv), _series(y), np.float64(0.1), n_bins=np.int64(2),
                             groups=_series(np.arange(6) % 2))
    np.testing.assert_array_equal(got.group_coverage, ref.group_coverage)


# ---------------------------------------------------------------- wrappers
@pytest.fixture(scope="module")
def reg_data():
    rng = np.random.default_rng(4)
    X = rng.normal(size=(200, 3))
    return X, X @ np.array([1.0, -0.5, 0.2]) + 0.3 * rng.normal(size=200)


def test_wrappers_fit_float32_features_as_float64(reg_data):
    X, y = reg_data
    X32 = X.astype(np.float32)
    X64 = X32.astype(np.float64)
    for make in (lambda: SplitConformalRegressor(random_state=0),
                 lambda: CrossConformalRegressor(cv=3, random_state=0)):
        np.testing.assert_array_equal(make().fit(X32, y).predict_interval(X32),
                                      make().fit(X64, y).predict_interval(X64))
    labels = (X[:, 0] > 0).astype(int) + (X[:, 1] > 0)
    clf = [SplitConformalClassifier(LogisticRegression(), lam=0.5, random_state=0).fit(Z, labels)
           for Z in (X32, X64)]
    np.testing.assert_array_equal(clf[0].predict_proba(X32), clf[1].predict_proba(X64))


def test_regressor_alpha_as_numpy_scalar_and_array(reg_data):
    X, y = reg_data
    ref = SplitConformalRegressor(random_state=0).fit(X, y).predict_interval(X)
    for alpha in (np.float64(0.1), np.asarray(0.1)):
        got = SplitConformalRegressor(alpha=alpha, random_state=0).fit(X, y)
        np.testing.assert_array_equal(got.predict_interval(X), ref)
    multi = SplitConformalRegressor(alpha=np.array([0.1, 0.2]), random_state=0).fit(X, y)
    assert multi.predict_interval(X).shape == (200, 2, 2)
    for cls in (SplitConformalRegressor, CrossConformalRegressor):
        with pytest.raises(ValueError, match=r"parameter alpha must be in \(0, 1\), got 10.* "
                                             r"percentage"):
            cls(alpha=10).fit(X, y)


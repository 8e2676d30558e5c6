"""Set metrics, the result object, the scorer, the lambda search and the data generator."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from statlearn.conformal import (
    LambdaSelection,
    PredictionSetResult,
    class_conditional_coverage,
    conformal_quantile,
    conformal_scorer,
    coverage,
    empty_rate,
    evaluate_sets,
    kneedle,
    mean_set_size,
    non_singleton_rate,
    select_lambda,
    singleton_rate,
    size_stratified_coverage_violation,
)
from statlearn.datasets import make_softmax_classification
from statlearn.utils import Summary

SETS = np.array([
    [True, False, False],   # size 1, covers y=0
    [True, True, False],    # size 2, covers y=1
    [False, False, False],  # empty
    [True, True, True],     # size 3, covers
    [False, True, False],   # size 1, misses y=0
])
Y = np.array([0, 1, 2, 2, 0])


def test_metric_values_by_hand():
    assert coverage(SETS, Y) == pytest.approx(3 / 5)
    assert mean_set_size(SETS) == pytest.approx(7 / 5)
    assert singleton_rate(SETS) == pytest.approx(2 / 5)
    assert non_singleton_rate(SETS) == pytest.approx(2 / 5)
    assert non_singleton_rate(SETS, k0=2) == pytest.approx(1 / 5)
    assert empty_rate(SETS) == pytest.approx(1 / 5)
    # exact strata: size 0 -> 0/1, size 1 -> 1/2, size 2 -> 1/1, size 3 -> 1/1
    assert size_stratified_coverage_violation(SETS, Y, 0.1, "exact") == pytest.approx(0.9)
    # default (RAPS) strata: sizes 0-1 -> 1/3, sizes 2-3 -> 2/2
    assert size_stratified_coverage_violation(SETS, Y, 0.1) == pytest.approx(0.9 - 1 / 3)
    assert size_stratified_coverage_violation(SETS, Y, 0.1, size_bins=[0, 2, 3]) == \
        pytest.approx(abs(1 / 3 - 0.9))
    np.testing.assert_allclose(class_conditional_coverage(SETS, Y), [0.5, 1.0, 0.5])


def test_evaluate_sets_result():
    res = evaluate_sets(SETS, Y, alpha=0.1)
    assert isinstance(res, PredictionSetResult)
    assert (res.n, res.n_covered) == (5, 3)
    np.testing.assert_array_equal(res.size_counts, [1, 2, 1, 1])
    np.testing.assert_allclose(res.coverage_by_size, [0.0, 0.5, 1.0, 1.0])
    np.testing.assert_array_equal(res.class_counts, [2, 1, 2])
    assert res.sscv == pytest.approx(0.9 - 1 / 3)
    assert evaluate_sets(SETS, Y, 0.1, size_bins="exact").sscv == pytest.approx(0.9)
    lo, hi = res.confidence_interval(0.95)
    assert 0 < lo < 0.6 < hi < 1
    s = res.summary()
    assert isinstance(s, Summary) and "P(size > 1)" in str(s) and "<table" in s._repr_html_()
    assert isinstance(res.to_frame(), pd.DataFrame)
    ax = res.plot()
    assert ax.get_xlabel() == "set size" and hasattr(ax, "right_ax")
    with pytest.raises(AttributeError):
        res.coverage = 1.0  # frozen


def test_empty_class_gives_nan():
    sets = np.array([[True, False], [True, True]])
    cc = class_conditional_coverage(sets, [0, 0])
    assert cc[0] == 1.0 and np.isnan(cc[1])


@pytest.mark.parametrize("call, exc, match", [
    (lambda: coverage(np.ones((2, 2)), [0, 1]), TypeError, "boolean mask"),
    (lambda: coverage(np.ones(3, dtype=bool), [0]), ValueError, "2-D"),
    (lambda: coverage(np.ones((2, 2), dtype=bool), [0, 2]), ValueError, "label indices"),
    (lambda: coverage(np.ones((2, 2), dtype=bool), [0]), ValueError, "shape"),
    (lambda: coverage(np.ones((2, 2), dtype=bool), [0.0, 1.0]), TypeError, "integer"),
    (lambda: evaluate_sets(np.ones((2, 2), dtype=bool), [0, 1], 1.0), ValueError, "alpha"),
    (lambda: mean_set_size(np.zeros((0, 2), dtype=bool)), ValueError, "at least one row"),
    (lambda: size_stratified_coverage_violation(SETS, Y, 0.1, size_bins=[1, 3]),
     ValueError, "cover the set sizes"),
    (lambda: size_stratified_coverage_violation(SETS, Y, 0.1, size_bins=[3, 1]),
     ValueError, "increasing"),
    (lambda: non_singleton_rate(SETS, k0=-1), ValueError, "k0"),
    (lambda: size_stratified_coverage_violation(SETS, Y, 0.1, size_bins="sizes"),
     ValueError, "size_bins must be one of"),
    (lambda: conformal_scorer("accuracy"), ValueError, "metric must be one of"),
])
def test_metrics_reject_bad_input(call, exc, match):
    with pytest.raises(exc, match=match):
        call()


def test_conformal_scorer_signs():
    class Stub:
        def evaluate(self, X, y):
            return evaluate_sets(SETS, Y, 0.1)

    assert conformal_scorer("mean_size")(Stub(), None, None) == pytest.approx(-7 / 5)
    assert conformal_scorer("singleton_rate")(Stub(), None, None) == pytest.approx(2 / 5)
    assert conformal_scorer("coverage")(Stub(), None, None) == pytest.approx(3 / 5)
    # minus |coverage - (1 - alpha)| = -|3/5 - 9/10|
    assert conformal_scorer("coverage_gap")(Stub(), None, None) == pytest.approx(-0.3)


# ---------------------------------------------------------------- Kneedle and lambda choice
def test_kneedle_finds_the_elbow_of_a_convex_decreasing_curve():
    x = np.linspace(1, 10, 40)
    y = 1 / x
    k = kneedle(x, y)
    # the knee of 1/x on [1, 10] after scaling: where the slope is -1 in unit coordinates
    xn = (x - 1) / 9
    yn = (y - y.min()) / np.ptp(y)
    assert k == int(np.argmax((1 - xn) - yn))
    # order of the input does not matter
    perm = np.random.default_rng(0).permutation(40)
    assert perm[kneedle(x[perm], y[perm])] == k


def test_kneedle_returns_none_without_a_knee():
    assert kneedle([1, 2], [2, 1]) is None                 # too few points
    assert kneedle([1, 2, 3, 4], [1, 1, 1, 1]) is None     # flat
    assert kneedle([1, 2, 3, 4], [4, 3, 2, 1]) is None     # straight line
    assert kneedle([1, 2, 3, 4], [4.0, 3.9, 3.5, 1.0]) is None  # concave: curve above chord


def test_kneedle_rejects_bad_input():
    with pytest.raises(ValueError, match="equal length"):
        kneedle([1, 2, 3], [1, 2])
    with pytest.raises(ValueError, match="NaN"):
        kneedle([1, 2, np.nan], [3, 2, 1])
    with pytest.raises(ValueError, match="sensitivity"):
        kneedle([1, 2, 3], [3, 2, 1], sensitivity=-1)


def test_select_lambda_traces_the_tradeoff_curve():
    X, y, p = make_softmax_classification(3000, 10, 5, scale=1.5, return_proba=True,
                                          random_state=2)
    from statlearn.conformal import DEFAULT_LAM_GRID

    sel = select_lambda(p, y, alpha=0.1, lam_grid=DEFAULT_LAM_GRID)
    assert isinstance(sel, LambdaSelection) and sel.lam in sel.grid
    # lam = 0 has the fewest non-singletons, the largest lam the smallest mean size
    assert sel.non_singleton_rate[0] <= sel.non_singleton_rate.min() + 1e-12
    assert sel.mean_size[-1] <= sel.mean_size[0]
    # the default (scaled) grid spans the same trade-off, from pure-singleton to LAC-like
    scaled = select_lambda(p, y, alpha=0.1)
    assert scaled.non_singleton_rate[-1] > scaled.non_singleton_rate[0]
    assert scaled.mean_size[-1] < scaled.mean_size[0]
    # the recorded curve is the in-sample calibration of the tuning split
    from statlearn.conformal import socop_scores, socop_sets

    lam = sel.grid[3]
    q = conformal_quantile(socop_scores(p, lam, labels=y), 0.1)
    assert sel.mean_size[3] == pytest.approx(socop_sets(p, lam, q).sum(axis=1).mean())
    assert sel.to_frame().shape == (len(sel.grid), 4)
    ax = sel.plot()
    assert ax.get_xlabel() == "mean set size"


def test_select_lambda_fallback_and_validation():
    X, y, p = make_softmax_classification(300, 4, random_state=0, return_proba=True)
    sel = select_lambda(p, y, alpha=0.2, lam_grid=[0.0, 1.0])  # two points: no knee
    assert sel.method == "fallback" and sel.lam in (0.0, 1.0)
    with pytest.raises(ValueError, match="lam_grid"):
        select_lambda(p, y, alpha=0.2, lam_grid=[-1.0])
    with pytest.raises(ValueError, match="alpha"):
        select_lambda(p, y, alpha=0.0)


# ---------------------------------------------------------------- data generator
def test_make_softmax_classification():
    X, y, p = make_softmax_classification(20000, 4, 3, scale=1.0, return_proba=True,
                                          random_state=0)
    assert X.shape == (20000, 3) and p.shape == (20000, 4)
    np.testing.assert_allclose(p.sum(axis=1), 1.0)
    # labels follow the probabilities: mean of one-hot(y) - p is ~ 0 (4 SE per class)
    onehot = np.eye(4)[y]
    resid = onehot - p
    se = resid.std(axis=0) / np.sqrt(20000)
    assert np.all(np.abs(resid.mean(axis=0)) < 4 * se)
    W = np.random.default_rng(1).standard_normal((3, 4))
    a = make_softmax_classification(10, 4, 3, coef=W, random_state=5)
    b = make_softmax_classification(10, 4, 3, coef=W, random_state=5)
    np.testing.assert_array_equal(a[1], b[1])
    with pytest.raises(ValueError, match="coef must have shape"):
        make_softmax_classification(10, 4, 3, coef=W.T)
    with pytest.raises(ValueError, match="n_classes"):
        make_softmax_classification(10, 1)
    with pytest.raises(ValueError, match="scale"):
        make_softmax_classification(10, 3, scale=-1.0)

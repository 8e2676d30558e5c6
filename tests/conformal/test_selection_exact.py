"""Exact checks of conformal selection: boxes, warnings, truth metrics, the estimators.

Written against the mutation runs of ``conformal._selection._regions``,
``._procedures`` and ``._estimators``. P-values follow the documented formula
``p_j = (#{i : V_i < V_j} + U_j (1 + #{i : V_i = V_j})) / (n + 1)`` on hand-built
data where every count is evident; errors are matched by type, the argument they
name and the value they show.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.model_selection import train_test_split

from statlearn.conformal import (
    ConformalSelector,
    MultiConditionSelector,
    SmallCalibrationWarning,
    cfbh,
    mccs,
    region_scores,
)
from tests.helpers import raises


def _quiet(call):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SmallCalibrationWarning)
        return call()


# ------------------------------------------------------------------ _regions
def _two_task_data(seed=0):
    rng = np.random.default_rng(seed)
    mu_cal = rng.uniform(-1, 12, size=(60, 2))
    y_cal = mu_cal + rng.normal(scale=0.5, size=(60, 2))
    mu_test = rng.uniform(-1, 12, size=(15, 2))
    return mu_cal, y_cal, mu_test


def test_conjunction_of_boxes_on_different_tasks_is_their_product():
    # {0: (0, 1)} and {1: (5, 10)} intersect in the box (0, 1) x (5, 10): the conjunctive
    # p-values are those of that one box (same scores, same uniforms)
    mu_cal, y_cal, mu_test = _two_task_data()
    u = np.linspace(0.05, 0.95, 15)[:, None]
    conj = mccs(mu_cal, y_cal, mu_test, [{0: (0.0, 1.0)}, {1: (5.0, 10.0)}],
                mode="conjunctive", q=0.3, u=u)
    box = mccs(mu_cal, y_cal, mu_test, [{0: (0.0, 1.0), 1: (5.0, 10.0)}], q=0.3, u=u)
    np.testing.assert_array_equal(conj.pvalues, box.pvalues)


def test_a_box_leaves_the_tasks_it_does_not_name_free():
    # {0: (0, 1)} over two tasks constrains task 0 only: the same p-values as the
    # interval (0, 1) on task 0 alone
    mu_cal, y_cal, mu_test = _two_task_data(1)
    u = np.linspace(0.05, 0.95, 15)[:, None]
    two = mccs(mu_cal, y_cal, mu_test, [{0: (0.0, 1.0)}], q=0.3, u=u)
    one = mccs(mu_cal[:, 0], y_cal[:, 0], mu_test[:, 0], [(0.0, 1.0)], q=0.3, u=u)
    np.testing.assert_array_equal(two.pvalues, one.pvalues)


def test_an_unknown_task_shows_the_valid_range():
    z = np.zeros((5, 2))
    raises(lambda: mccs(z, z, z[:2], [{2: (0.0, 1.0)}]), ValueError,
           names=["conditions", "task"], shows=["[0, 1]", "got 2"])


@pytest.mark.parametrize("kwargs, exc, name", [
    ({"lower": "a", "upper": 1.0}, TypeError, "lower"),
    ({"lower": np.nan, "upper": 1.0}, ValueError, "lower"),
    ({"lower": 0.0, "upper": "b"}, TypeError, "upper"),
])
def test_region_ends_are_named_in_their_errors(kwargs, exc, name):
    raises(lambda: region_scores(np.array([0.9]), **kwargs), exc, names=name)


def test_region_scores_stay_in_the_callers_namespace():
    xp = pytest.importorskip("array_api_strict")
    # depth of 0.9 in (0, 1) is 0.1, of 1.5 is -0.5; null values -d
    got = region_scores(xp.asarray([0.9, 1.5]), lower=0.0, upper=1.0)
    assert type(got).__module__.startswith("array_api_strict")
    np.testing.assert_allclose(np.asarray(got), [-0.1, 0.5], atol=1e-15)


# ------------------------------------------------------------------ _procedures
def test_an_infinite_threshold_names_its_argument():
    z = np.zeros(5)
    raises(lambda: _quiet(lambda: cfbh(z, z, z[:2], c_cal=np.inf)), ValueError, names="c_cal")
    raises(lambda: _quiet(lambda: cfbh(z, z, z[:2], c_cal=0.0, c_test=[0.0, -np.inf])),
           ValueError, names="c_test")


def test_deterministic_pvalues_warn_when_small_selections_are_impossible():
    # n = 10, m = 5, q = 0.1: n + 1 = 11 >= 1/q = 10, but 11 < N/q = 50, so with U = 1 a
    # selection of fewer than ceil(50 / 11) = 5 units is impossible
    rng = np.random.default_rng(0)
    mu, y, mt = rng.normal(size=10), rng.normal(size=10), rng.normal(size=5)
    with pytest.warns(SmallCalibrationWarning) as rec:
        cfbh(mu, y, mt, q=0.1, randomize=False)
    msg = " ".join(str(w.message) for w in rec)
    assert "n + 1 = 11" in msg and "N = 5" in msg and "fewer than 5" in msg
    # randomised p-values (drawn here) do not give that second warning
    with warnings.catch_warnings():
        warnings.simplefilter("error", SmallCalibrationWarning)
        cfbh(mu, y, mt, q=0.1, randomize=True, random_state=0)


def test_given_uniforms_count_as_deterministic_for_the_warning():
    rng = np.random.default_rng(0)
    mu, y, mt = rng.normal(size=10), rng.normal(size=10), rng.normal(size=5)
    with pytest.warns(SmallCalibrationWarning, match="N = 5"):
        cfbh(mu, y, mt, q=0.1, u=np.full(5, 0.5))


def test_a_test_response_at_the_open_upper_end_is_a_false_discovery():
    # 19 null calibration units far above (0, 1): V_i = -d_i = mu_i - 1 > 0 > V_j = -0.5
    # for both test units (mu = 0.5, depth 0.5), so p_j = U_j / 20 = 0.05 with U = 1 and
    # BH at 0.2 selects both. Y = 1.0 is outside the open interval, Y = 0.5 inside
    mu_cal = 5.0 + np.arange(19.0)
    res = mccs(mu_cal, mu_cal, np.array([0.5, 0.5]), [(0.0, 1.0)], q=0.2,
               randomize=False, y_test=np.array([1.0, 0.5]))
    np.testing.assert_allclose(res.pvalues[:, 0], [0.05, 0.05], rtol=1e-15)
    assert res.selected.tolist() == [0, 1]
    assert res.fdp == 0.5 and res.pair_fdp == 0.5 and res.power == 1.0


def test_the_indicator_baseline_says_what_it_needs():
    z = np.zeros(5)
    raises(lambda: mccs(z, z, z[:2], [(0.0, 1.0)], method="ind"), ValueError,
           names=["ind_cal", "ind_test"], match=r"1\{Y in target\}")


# ------------------------------------------------------------------ _estimators
def _regression_data(n=200, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    return X, X[:, 0] + 0.3 * rng.normal(size=n)


@pytest.mark.parametrize("seed", [0, 1, 2, 3, 4, 5])
def test_a_generator_seeds_the_split_with_a_32_bit_draw(seed):
    # documented: a Generator gives the seed of the split, drawn as integers(0, 2**32 - 1)
    # (the seeds numpy's RandomState, which scikit-learn's splitters use, accepts)
    X, y = _regression_data()
    sel = ConformalSelector(threshold=0.5, random_state=np.random.default_rng(seed)).fit(X, y)
    split_seed = int(np.random.default_rng(seed).integers(0, 2**32 - 1))
    _, _, _, y_cal = train_test_split(X, y, test_size=0.5, random_state=split_seed)
    np.testing.assert_array_equal(sel.y_cal_, y_cal)


def test_selector_errors_name_their_argument_and_value():
    X, y = _regression_data()
    raises(lambda: ConformalSelector().fit(X, None), ValueError, names="y", shows="None")
    per_unit = ConformalSelector(random_state=0).fit(X, y, threshold=np.full(200, 0.5))
    raises(lambda: per_unit.select(X[:5]), ValueError, names="threshold", shows="(m,)")
    scalar = ConformalSelector(threshold=0.5, random_state=0).fit(X, y)
    raises(lambda: scalar.select(X[:3], threshold=[0.1, 0.2, 0.3]), ValueError,
           names="threshold", match="per-unit calibration thresholds under the same rule")
    raises(lambda: per_unit.select(X[:3], threshold=[0.1, np.nan, 0.3]), ValueError,
           names="threshold", shows=["(3,)", "NaN"])


def test_score_is_the_power_on_the_given_points():
    # precomputed predictions, 99 null calibration units (y = -1 <= c = 0.5, mu in [0, 1]):
    # V_i = c - mu_i >= -0.5. Test units with mu = 10 have V_j = -9.5 below every V_i, so
    # p_j = 1/100 with U = 1; mu = -10 gives p_j = 1. BH at 0.2 over three units selects
    # the two with p = 0.01 (0.01 <= 0.2 * 2 / 3). All three have y = 2 > c: power 2/3
    mu_cal = np.linspace(0.0, 1.0, 99)
    sel = ConformalSelector("precomputed", threshold=0.5, q=0.2, randomize=False).fit(
        mu_cal[:, None], np.full(99, -1.0))
    X_test = np.array([[10.0], [10.0], [-10.0]])
    assert sel.score(X_test, np.full(3, 2.0)) == pytest.approx(2 / 3, rel=1e-15)


def test_a_box_on_a_missing_task_is_refused_at_fit():
    X, y = _regression_data()
    sel = MultiConditionSelector(conditions=[{1: (0.0, 1.0)}], random_state=0)
    raises(lambda: sel.fit(X, y), ValueError, names="conditions", shows=["[0, 0]", "got 1"])


def test_the_selector_runs_the_baseline_it_is_given():
    X, y = _regression_data()
    for method in ("uni", "int-b"):
        sel = MultiConditionSelector(conditions=[(-np.inf, -1.0), (1.0, np.inf)], q=0.2,
                                     method=method, random_state=0).fit(X, y)
        assert sel.select(X[:20]).method == method


def test_selectors_declare_that_they_need_y():
    assert ConformalSelector().__sklearn_tags__().target_tags.required is True
    assert MultiConditionSelector().__sklearn_tags__().target_tags.required is True


def test_float32_features_are_read_as_float64():
    X, y = _regression_data()
    sel = ConformalSelector(threshold=0.5, random_state=0).fit(X.astype(np.float32), y)
    assert sel.estimator_.coef_.dtype == np.float64


@pytest.mark.parametrize("cls", [ConformalSelector, MultiConditionSelector])
def test_contract_instances_fit_and_select_reproducibly(cls):
    # the instances the contract suite checks: valid parameters, seeded splits and draws
    X, y = _regression_data()
    for est in cls._statlearn_test_instances():
        a = clone(est).fit(X, y).select(X[:30])
        b = clone(est).fit(X, y).select(X[:30])
        np.testing.assert_array_equal(a.pvalues, b.pvalues)

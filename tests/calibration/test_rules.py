"""Edge cases, API behaviour and bad input of the decision rules."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.exceptions import NotFittedError

from statlearn.calibration import (
    CalibrationWarning,
    MinimaxDecisionRule,
    SquaredErrorDecisionRule,
    TrustForecastRule,
    affine_utility,
    best_response,
    evaluate_rules,
    value_function,
)

U = np.array([[0.0], [1.0]])
C = np.array([0.4, 0.0])


def test_forecasts_outside_the_box_are_clipped_with_a_warning(ref):
    V = np.array([-0.1, 0.2, 0.8, 1.3])
    with pytest.warns(CalibrationWarning, match="2 forecast"):
        rule = MinimaxDecisionRule(U, C).fit(V)
    Vc = np.clip(V, 0, 1)
    value, _ = ref.robust_value(Vc[:, None], np.full(4, 0.25), Vc[:, None], U, C)
    assert rule.robust_value_ == pytest.approx(value, abs=1e-9)
    np.testing.assert_allclose(rule.forecasts_.ravel(), [0.0, 0.2, 0.8, 1.0])
    with pytest.warns(CalibrationWarning):
        rule.predict_proba([1.5])
    # the user can widen the box instead
    wide = MinimaxDecisionRule(U, C, outcome_bounds=(-0.5, 1.5)).fit(V)
    np.testing.assert_allclose(wide.forecasts_.ravel(), V)


def test_degenerate_forecast_distributions():
    # all forecasts equal (0.3): h(v) = v pins E[q] = 0.3 on one point, so q = 0.3
    rule = MinimaxDecisionRule(U, C).fit(np.full(5, 0.3))
    assert rule.robust_value_ == pytest.approx(0.4, abs=1e-12)
    rule = MinimaxDecisionRule(U, C).fit(np.full(5, 0.9))
    assert rule.robust_value_ == pytest.approx(0.9, abs=1e-9)
    # v = 0 everywhere: the self-orthogonality rows read 0 = 0 (vacuous): min_p val = 0.4
    for method in ("lp", "d1"):
        rule = MinimaxDecisionRule(U, C, method=method).fit(np.zeros(4))
        assert rule.robust_value_ == pytest.approx(0.4, abs=1e-12)


def test_ties_go_to_the_smallest_action_index():
    # at v = 0.4 both actions give 0.4
    assert best_response([0.4], U, C).tolist() == [0]
    assert TrustForecastRule(U, C).fit([0.4]).predict([0.4]).tolist() == [0]
    assert TrustForecastRule(U, C, actions=["safe", "risky"]).fit([0.4]).predict(
        [0.4, 0.9]).tolist() == ["safe", "risky"]


def test_duplicate_forecasts_are_merged_with_weights(ref):
    V = np.array([0.2, 0.2, 0.2, 0.8])
    rule = MinimaxDecisionRule(U, C).fit(V)
    assert rule.forecasts_.shape == (2, 1)
    np.testing.assert_allclose(rule.weights_, [0.75, 0.25])
    value, _ = ref.robust_value(V[:, None], np.full(4, 0.25), V[:, None], U, C)
    assert rule.robust_value_ == pytest.approx(value, abs=1e-9)


def test_empty_bins_fall_back_to_plug_in():
    V = np.array([0.05, 0.1, 0.15, 0.9])
    for method in ("closed_form", "lp"):
        with pytest.warns(CalibrationWarning, match="hold no calibration forecast"), \
                pytest.warns(CalibrationWarning, match="fewer than 10"):
            rule = MinimaxDecisionRule(U, C, tests="binwise", bins=4, method=method).fit(V)
        # 0.7 falls in the empty bin [0.5, 0.75): plug-in says risky
        assert rule.predict([0.7]).tolist() == [1]
        # 0.2 is in the first bin (mean 0.1): safe
        assert rule.predict([0.2]).tolist() == [0]


def test_large_n_uses_the_fast_path_and_agrees_with_the_lp():
    rng = np.random.default_rng(0)
    V = rng.uniform(size=2500)
    Ua, ca = affine_utility([0.8, 1.0, 1.2], cost_scale=0.5)
    fast = MinimaxDecisionRule(Ua, ca).fit(V)
    assert fast.method_ == "d1"
    lp = MinimaxDecisionRule(Ua, ca, method="lp").fit(V)
    assert fast.robust_value_ == pytest.approx(lp.robust_value_, abs=1e-8)
    assert fast.lambda_[0, 0] == pytest.approx(lp.lambda_[0, 0], rel=1e-6)


def test_large_eps_tends_to_the_safe_action():
    V = np.array([0.2, 0.8])
    values = [MinimaxDecisionRule(U, C, eps=e).fit(V).robust_value_ for e in (0, 0.05, 0.5)]
    assert values[0] > values[1] > values[2] - 1e-12
    assert values[2] == pytest.approx(0.4, abs=1e-9)


def test_intercept_test_and_squared_error_rule():
    V = np.array([0.2, 0.5, 0.8])
    a = SquaredErrorDecisionRule(U, C).fit(V)
    b = MinimaxDecisionRule(U, C).fit(V)
    assert a.robust_value_ == pytest.approx(b.robust_value_, abs=1e-12)
    c = SquaredErrorDecisionRule(U, C, intercept=True).fit(V)
    assert c.n_tests_ == 2
    assert c.robust_value_ >= a.robust_value_ - 1e-9
    assert "tests" not in SquaredErrorDecisionRule().get_params()


def test_multiclass_simplex_out_of_sample():
    rng = np.random.default_rng(1)
    V = rng.dirichlet(np.ones(3), size=12)
    rule = MinimaxDecisionRule(np.eye(3)).fit(V)
    assert rule.outcome_set_ == "simplex"
    new = rng.dirichlet(np.ones(3), size=4)
    P = rule.predict_proba(new)
    assert P.shape == (4, 3) and np.allclose(P.sum(axis=1), 1)
    q = rule.q_star(new)
    np.testing.assert_allclose(q.sum(axis=1), 1, atol=1e-9)


def test_simplex_renormalisation_keeps_policies_aligned_with_forecasts(ref):
    # (0.5, 1/3, 1/6) sums to 1 - 1e-16: renormalising moves it past (0.5, 0.5, 0) in
    # the sorted distinct forecasts; predictions must still follow the input rows
    U3 = np.array([[0, 0, 0], [0, 0.1, -0.1]])
    V = np.array([[0, 0, 1], [0, 1, 0], [0.5, 1 / 3, 1 / 6], [0.5, 0.5, 0], [1, 0, 0]])

    def h(X):
        return X[:, [1]]

    rule = MinimaxDecisionRule(U3, tests=h, method="lp").fit(V)
    assert rule.outcome_set_ == "simplex"
    value, _ = ref.robust_value(V, np.full(5, 0.2), h(V), U3, np.zeros(2), simplex=True)
    wc, _ = ref.worst_case(V, np.full(5, 0.2), h(V), U3, np.zeros(2), rule.predict_proba(V),
                           simplex=True)
    assert rule.robust_value_ == pytest.approx(value, abs=1e-9)
    assert wc == pytest.approx(value, abs=1e-7)


def test_worst_case_value_method_matches_the_reference(ref):
    V = np.array([0.1, 0.3, 0.6, 0.9])
    rule = MinimaxDecisionRule(U, C).fit(V)
    plug = TrustForecastRule(U, C).fit(V).predict_proba(V)
    val, q = rule.worst_case_value(V, plug)
    expected, _ = ref.worst_case(V[:, None], np.full(4, 0.25), V[:, None], U, C, plug)
    assert val == pytest.approx(expected, abs=1e-9)
    own, _ = rule.worst_case_value(V)
    assert own == pytest.approx(rule.robust_value_, abs=1e-9)


def test_clone_keeps_params_and_value_function():
    rule = MinimaxDecisionRule(U, C, eps=0.1)
    assert clone(rule).get_params()["eps"] == 0.1
    np.testing.assert_allclose(value_function([0.2, 0.8], U, C), [0.4, 0.8])


# ----------------------------------------------------------------------- bad input
@pytest.mark.parametrize("kwargs, exc, match", [
    (dict(utility_matrix=[[1.0]]), ValueError, "at least 2 actions"),
    (dict(utility_matrix=[[0.0], [1.0]], utility_offset=[0.1]), ValueError, "utility_offset"),
    (dict(utility_matrix=[[0.0], [np.nan]]), ValueError, "utility_matrix"),
    (dict(utility_matrix=[[0.0, 1.0], [1.0, 0.0]]), ValueError, "outcome column"),
    (dict(tests="calibrated"), ValueError, "tests must be one of"),
    (dict(tests=3), TypeError, "tests must be one of"),
    (dict(tests=lambda V: np.ones((2, 1))), ValueError, "tests: each test function"),
    (dict(tests=lambda V: np.full(V.shape[0], np.nan)), ValueError, "NaN"),
    (dict(eps=-0.1), ValueError, "eps"),
    (dict(eps="0.1"), TypeError, "eps"),
    (dict(method="simplex"), ValueError, "method must be one of"),
    (dict(outcome_set="ball"), ValueError, "outcome_set must be one of"),
    (dict(outcome_bounds=(1.0, 0.0)), ValueError, "outcome_bounds"),
    (dict(outcome_bounds=0.5), TypeError, "outcome_bounds"),
    (dict(tests="binwise", bins=0), ValueError, "bins"),
    (dict(tests="binwise", bins=[0.5, 0.2]), ValueError, "bins"),
    (dict(intercept="yes"), TypeError, "intercept"),
    (dict(method="closed_form"), ValueError, "closed_form"),
    (dict(method="d1", intercept=True), ValueError, "method='d1'"),
    (dict(actions=["a"]), ValueError, "actions"),
])
def test_bad_parameters_are_rejected(kwargs, exc, match):
    kwargs.setdefault("utility_matrix", U)
    with pytest.raises(exc, match=match):
        MinimaxDecisionRule(**kwargs).fit([0.2, 0.5, 0.8])


@pytest.mark.parametrize("X, match", [
    ([0.2, np.nan], "NaN"),
    (np.zeros((2, 2, 2)), "X"),
    ([], "X"),
])
def test_bad_forecasts_are_rejected(X, match):
    with pytest.raises(ValueError, match=match):
        MinimaxDecisionRule(U, C).fit(X)
    with pytest.raises(ValueError, match=match):
        TrustForecastRule(U, C).fit(X)


def test_simplex_needs_probability_forecasts():
    with pytest.raises(ValueError, match="probability vector"):
        MinimaxDecisionRule(np.eye(2), outcome_set="simplex").fit([[0.2, 0.3], [0.5, 0.5]])
    with pytest.raises(ValueError, match="at least 2 outcome"):
        MinimaxDecisionRule(U, outcome_set="simplex").fit([0.2, 0.3])


def test_binwise_needs_scalar_forecasts():
    with pytest.raises(ValueError, match="d = 1"):
        MinimaxDecisionRule(np.eye(2), tests="binwise").fit([[0.2, 0.8], [0.5, 0.5]])


def test_predict_needs_fit_and_matching_width():
    with pytest.raises(NotFittedError):
        MinimaxDecisionRule(U, C).predict([0.2])
    rule = MinimaxDecisionRule(np.eye(2)).fit([[0.2, 0.8], [0.5, 0.5]])
    with pytest.raises(ValueError, match="expecting 2 features"):
        rule.predict(np.zeros((1, 3)))
    with pytest.raises(ValueError, match="Reshape"):
        rule.predict([0.2, 0.8])
    with pytest.raises(ValueError, match="policy must have shape"):
        rule.worst_case_value([[0.2, 0.8]], np.ones((1, 3)) / 3)
    with pytest.raises(ValueError, match="y must have shape"):
        rule.expected_utility([[0.2, 0.8]], [[0.2, 0.8], [0.1, 0.9]])


def test_evaluate_rules_bad_input():
    V = [0.2, 0.8]
    rob = MinimaxDecisionRule(U, C).fit(V)
    with pytest.raises(TypeError, match="rules must be"):
        evaluate_rules([rob], V)
    with pytest.raises(TypeError, match="rules\\['x'\\]"):
        evaluate_rules({"x": object()}, V)
    with pytest.raises(ValueError, match="ambiguity"):
        evaluate_rules({"plug": TrustForecastRule(U, C).fit(V)}, V)
    with pytest.raises(ValueError, match="different utility"):
        evaluate_rules({"r": rob, "p": TrustForecastRule(U, [0.5, 0.0]).fit(V)}, V)
    with pytest.raises(ValueError, match="y must have the shape"):
        evaluate_rules({"r": rob}, V, [0.1])
    with pytest.raises(NotFittedError):
        evaluate_rules({"r": MinimaxDecisionRule(U, C)}, V)


def test_evaluate_rules_accepts_array_policies():
    V = np.array([0.1, 0.3, 0.6, 0.9])
    rob = MinimaxDecisionRule(U, C).fit(V)
    plug = TrustForecastRule(U, C).fit(V)
    ev = evaluate_rules({"robust": rob, "plug-in": plug,
                         "array": np.eye(2)[[0, 0, 1, 1]]}, V)
    np.testing.assert_allclose(ev.values[2], ev.values[1])
    with pytest.raises(ValueError, match="shape"):
        evaluate_rules({"robust": rob, "bad": np.ones((4, 3)) / 3}, V)
    with pytest.raises(ValueError, match="sum to 1"):
        evaluate_rules({"robust": rob, "bad": np.ones((4, 2))}, V)


def test_affine_utility_bad_input():
    with pytest.raises(ValueError, match="actions"):
        affine_utility([1.0])
    with pytest.raises(ValueError, match="alpha"):
        affine_utility([0.8, 1.0], alpha=0)


def test_evaluation_result_summary_and_plot():
    V = np.array([0.1, 0.3, 0.6, 0.9])
    y = np.array([0.0, 1.0, 1.0, 0.0])
    ev = evaluate_rules({"plug-in": TrustForecastRule(U, C).fit(V),
                         "robust": MinimaxDecisionRule(U, C).fit(V)}, V, y)
    # hand-computed i.i.d. utilities: plug-in acts (safe, safe, risky, risky)
    assert ev.iid[0] == pytest.approx((0.4 + 0.4 + 1.0 + 0.0) / 4)
    lo, hi = ev.confidence_interval()
    assert np.all(lo <= ev.iid) and np.all(ev.iid <= hi)
    assert "i.i.d." in str(ev.summary())
    assert "RuleEvaluation" in repr(ev)
    ax = ev.plot()
    assert ax.get_ylabel() == "mean utility"
    with pytest.raises(ValueError, match="without y"):
        evaluate_rules({"r": MinimaxDecisionRule(U, C).fit(V)}, V).confidence_interval()

"""Decision rules on the base layer: stale fits refused, degenerate inputs solved, input types."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from statlearn.base import StaleFitError
from statlearn.calibration import (
    MinimaxDecisionRule,
    SquaredErrorDecisionRule,
    TrustForecastRule,
    evaluate_rules,
    expected_calibration_error,
)

U = np.array([[0.0], [1.0]])
C = np.array([0.4, 0.0])
V = np.random.default_rng(0).uniform(size=60)
NEW = np.linspace(0.013, 0.987, 25)          # forecasts not in the calibration set


# ------------------------------------------------------------------- stale fits
@pytest.mark.parametrize("change", [{"tests": "decision"}, {"intercept": True},
                                    {"eps": 0.05}, {"outcome_bounds": (0.0, 2.0)},
                                    {"bins": 4}, {"method": "lp"}])
def test_changing_a_parameter_after_fit_is_refused_by_every_output(change):
    rule = MinimaxDecisionRule(U, C).fit(V)
    before = rule.predict_proba(NEW)
    old = {k: rule.get_params()[k] for k in change}
    rule.set_params(**change)
    name = next(iter(change))
    outputs = [lambda: rule.predict_proba(NEW), lambda: rule.predict(NEW),
               lambda: rule.q_star(NEW), lambda: rule.worst_case_value(NEW),
               lambda: rule.expected_utility(NEW, NEW),
               lambda: evaluate_rules({"r": rule}, NEW)]
    for output in outputs:
        with pytest.raises(StaleFitError, match=rf"parameter {name} changed since fit"):
            output()
    # set back: the fitted answers again, unchanged
    rule.set_params(**old)
    np.testing.assert_array_equal(rule.predict_proba(NEW), before)


def test_changing_tests_or_intercept_never_reaches_the_fitted_tilt():
    # before the base layer, set_params(tests=...) silently changed predict_proba and
    # set_params(intercept=True) crashed inside a matrix product
    rule = MinimaxDecisionRule(U, C).fit(V)
    with pytest.raises(StaleFitError, match="tests"):
        rule.set_params(tests=[lambda F: F[:, 0] ** 2]).predict_proba(NEW)
    rule.set_params(tests="self_orthogonal", intercept=True)
    with pytest.raises(StaleFitError, match="intercept"):
        rule.predict_proba(NEW)
    rule.fit(V)
    assert rule.predict_proba(NEW).shape == (NEW.size, 2)


def test_evaluate_rules_refuses_a_stale_rule_and_a_stale_ambiguity():
    rob = MinimaxDecisionRule(U, C).fit(V)
    plug = TrustForecastRule(U, C).fit(V)
    plug.set_params(utility_offset=[0.5, 0.0])
    with pytest.raises(StaleFitError, match="utility_offset.*evaluate_rules"):
        evaluate_rules({"r": rob, "p": plug}, V)
    plug.set_params(utility_offset=C)
    amb = MinimaxDecisionRule(U, C).fit(V).set_params(eps=0.2)
    with pytest.raises(StaleFitError, match="eps"):
        evaluate_rules({"r": rob, "p": plug}, V, ambiguity=amb)


def test_constraints_name_the_parameter():
    with pytest.raises(ValueError, match=r"MinimaxDecisionRule parameter eps must be .*got -0\.1"):
        MinimaxDecisionRule(U, C, eps=-0.1).fit(V)
    with pytest.raises(ValueError, match=r"SquaredErrorDecisionRule parameter method .*"
                                         r"'closed_form'"):
        SquaredErrorDecisionRule(U, C, method="closed_form").fit(V)
    # NumPy scalars and 0-d arrays are numbers
    a = MinimaxDecisionRule(U, C, eps=np.float32(0.01), tests="binwise", bins=np.int64(4),
                            outcome_bounds=(np.float64(0.0), np.array(1.0)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        b = MinimaxDecisionRule(U, C, eps=0.01, tests="binwise", bins=4).fit(V)
        a.fit(V)
    np.testing.assert_allclose(a.predict_proba(NEW), b.predict_proba(NEW), atol=1e-6)


# ----------------------------------------------------- degenerate, valid inputs
def _vertex_heavy(seed, d=3, n=150):
    rng = np.random.default_rng(seed)
    P = rng.dirichlet([0.1] * d, size=n)            # entries down to 1e-35
    P[:10] = 1e-12
    P[:10, 0] = 1 - (d - 1) * 1e-12
    return P


@pytest.mark.parametrize("tests, eps, intercept", [
    ("self_orthogonal", 0.0, False), ("self_orthogonal", 1e-9, True),
    ("decision", 1e-9, False), ("none", 1e-9, True), ("self_orthogonal", 3e-8, False)])
def test_probabilities_near_zero_and_tiny_eps_are_solved(tests, eps, intercept):
    # HiGHS called these LPs infeasible (they contain q = V); now they are solved and
    # the answer is a saddle point: the fitted policy's worst case is the robust value
    P = _vertex_heavy(0)
    rule = MinimaxDecisionRule(tests=tests, eps=eps, intercept=intercept, method="lp").fit(P)
    assert rule.outcome_set_ == "simplex"
    value, q = rule.worst_case_value(P)
    assert value == pytest.approx(rule.robust_value_, abs=1e-7)
    np.testing.assert_allclose(q.sum(axis=1), 1.0, atol=1e-9)
    # the robust value lies between the safe constant action and trusting the forecasts
    plug_in = float(np.mean(P.max(axis=1)))
    safe = MinimaxDecisionRule(tests="none").fit(P).robust_value_
    assert safe - 1e-9 <= rule.robust_value_ <= plug_in + 1e-9
    # eps continuity: an eps below HiGHS's tolerances gives the eps = 0 answer
    if eps and eps < 1e-7:
        ref = MinimaxDecisionRule(tests=tests, eps=1e-12, intercept=intercept,
                                  method="lp").fit(P)
        assert rule.robust_value_ == pytest.approx(ref.robust_value_, abs=1e-6)
    proba = rule.predict_proba(_vertex_heavy(1, n=20))
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)


def test_full_tests_with_eps_answer_at_unseen_forecasts():
    # with eps > 0 "full" is solved by the LP; an unseen forecast used to crash (one
    # test per calibration forecast); it now gets the plug-in action, like an empty bin
    rule = MinimaxDecisionRule(U, C, tests="full", eps=0.01).fit(V)
    assert rule.method_ == "lp"
    np.testing.assert_array_equal(rule.predict_proba(NEW),
                                  TrustForecastRule(U, C).fit(V).predict_proba(NEW))
    assert rule.predict_proba(V).shape == (V.size, 2)


# ------------------------------------------------- outcomes, policies, input types
def test_outcomes_outside_the_outcome_set_and_policies_off_the_simplex_are_refused():
    rule = MinimaxDecisionRule(U, C).fit(V)
    with pytest.raises(ValueError, match=r"y must lie in the outcome box \[0\.0, 1\.0\]"):
        rule.expected_utility(V, V + 1.5)
    with pytest.raises(ValueError, match=r"y must lie in the outcome box"):
        evaluate_rules({"r": rule}, V, V - 1.0)
    plug = TrustForecastRule(U, C).fit(V).predict_proba(V)
    with pytest.raises(ValueError, match=r"policy: every row must sum to 1"):
        rule.worst_case_value(V, 2 * plug)
    P = _vertex_heavy(2)
    simplex = MinimaxDecisionRule().fit(P)
    with pytest.raises(ValueError, match=r"y: every row must sum to 1"):
        simplex.expected_utility(P, 2 * np.eye(3)[np.argmax(P, axis=1)])
    with pytest.raises(ValueError, match=r"y must lie in \[0, 1\] for the ECE.*got 60"):
        expected_calibration_error(V, V + 2)


def test_lists_pandas_and_any_numeric_dtype_are_accepted():
    idx = np.arange(500, 560)
    Vs = np.round(V, 3)
    ref = MinimaxDecisionRule(U, C).fit(Vs)
    for X in (Vs.tolist(), pd.Series(Vs, index=idx), pd.DataFrame({"p": Vs}, index=idx)):
        rule = MinimaxDecisionRule(U, C).fit(X)
        assert rule.robust_value_ == pytest.approx(ref.robust_value_, abs=1e-12)
        np.testing.assert_array_equal(rule.predict_proba(X), ref.predict_proba(Vs))
    y = (Vs > 0.5).astype(np.int64)
    assert ref.expected_utility(Vs, pd.Series(y, index=idx)) == pytest.approx(
        ref.expected_utility(Vs, y.astype(float)))
    plug = TrustForecastRule(U, C).fit(Vs)
    pol = plug.predict_proba(Vs)
    frame = pd.DataFrame(pol, index=idx, columns=["safe", "risky"])
    a = evaluate_rules({"r": ref, "p": frame, "q": pol.tolist()}, pd.Series(Vs, index=idx),
                       pd.Series(y, index=idx))
    b = evaluate_rules({"r": ref, "p": plug}, Vs, y)
    # the columns: robust dual, then the worst case for each rule
    np.testing.assert_allclose(a.values[1, :2], b.values[1, :2])
    np.testing.assert_allclose(a.values[2, :2], b.values[1, :2])
    np.testing.assert_allclose(a.iid[1:], b.iid[1])
    value, _ = ref.worst_case_value(Vs, frame)
    assert value == pytest.approx(ref.worst_case_value(Vs, pol)[0])
    with pytest.raises(ValueError, match=r"X: .*NaN"):
        ref.predict_proba([0.2, np.nan])

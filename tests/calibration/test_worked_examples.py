"""Worked examples of the robust decision rule (ours, verified by LP), reproduced exactly.

Expected numbers are derived by hand in the comments (and re-derived by the
tests' own LPs in conftest.py), never read from the library.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from statlearn.calibration import MinimaxDecisionRule, TrustForecastRule, evaluate_rules

# u(safe, y) = 0.4, u(risky, y) = y
U = np.array([[0.0], [1.0]])
C = np.array([0.4, 0.0])
SAFE, RISKY = 0, 1
V71 = np.array([0.2, 0.8])
W71 = np.array([0.5, 0.5])


@pytest.mark.parametrize("method", ["lp", "d1"])
def test_example_7_1_robust_rule(method, ref):
    rule = MinimaxDecisionRule(U, C, method=method).fit(V71)
    # value: q* = (0.4, 0.75) satisfies 0.2 * 0.4 + 0.8 * 0.75 = 0.68; val = (0.4 + 0.75) / 2
    assert rule.robust_value_ == pytest.approx(0.575, abs=1e-9)
    np.testing.assert_allclose(rule.calibration_q_.ravel(), [0.40, 0.75], atol=1e-9)
    # tilt s(v) = lambda v; at v = 0.2 it must be -0.25 so that q = 0.4 is the kink
    assert rule.lambda_.shape == (1, 1)
    assert rule.lambda_[0, 0] == pytest.approx(-1.25, abs=1e-9)
    # mixing: P(risky | 0.2) = (-s - slope_safe) / (slope_risky - slope_safe) = 0.25
    np.testing.assert_allclose(rule.predict_proba(V71), [[0.75, 0.25], [0.0, 1.0]], atol=1e-9)
    np.testing.assert_allclose(rule.policy_, [[0.75, 0.25], [0.0, 1.0]], atol=1e-9)
    # saddle certificate by the tests' own LP
    wc, _ = ref.worst_case(V71[:, None], W71, V71[:, None], U, C, rule.policy_)
    assert wc == pytest.approx(0.575, abs=1e-7)
    # dual certificate: G(lambda*) = robust value (Theorem 3.1)
    g = ref.dual_function(V71[:, None], W71, V71[:, None], rule.lambda_, U, C)
    assert g == pytest.approx(0.575, abs=1e-7)
    # a new forecast v = 0.5: tilt -0.625, so q*(0.5) = 0.4 (the kink) and
    # P(risky) = 0.625 / (1 - 0) = 0.625
    np.testing.assert_allclose(rule.predict_proba([0.5]), [[0.375, 0.625]], atol=1e-9)
    np.testing.assert_allclose(rule.q_star([0.5]), [[0.4]], atol=1e-9)
    # predict is argmax of the mixed policy (documented as an approximation)
    np.testing.assert_array_equal(rule.predict(V71), [SAFE, RISKY])


def test_example_7_1_mixed_policy_is_an_equaliser():
    # Q = {q in [0,1]^2 : 0.2 q1 + 0.8 q2 = 0.68}: q2 = 0.85 - 0.25 q1, q1 in [0, 1]
    pi = MinimaxDecisionRule(U, C).fit(V71).predict_proba(V71)
    for q1 in np.linspace(0, 1, 11):
        q = np.array([q1, 0.85 - 0.25 * q1])
        util = 0.5 * sum(pi[i, SAFE] * 0.4 + pi[i, RISKY] * q[i] for i in range(2))
        assert util == pytest.approx(0.575, abs=1e-9)


def test_example_7_1_plug_in_and_deterministic_policies(ref):
    plug = TrustForecastRule(U, C).fit(V71)
    np.testing.assert_array_equal(plug.predict(V71), [SAFE, RISKY])
    # nominal (q = v): (0.4 + 0.8) / 2 = 0.6
    assert plug.expected_utility(V71, V71) == pytest.approx(0.600, abs=1e-12)
    wc, q = ref.worst_case(V71[:, None], W71, V71[:, None], U, C, plug.predict_proba(V71))
    # worst case: 0.5 * (0.4 + q2) with q2 minimal: q1 = 1, q2 = 0.6
    assert wc == pytest.approx(0.500, abs=1e-9)
    np.testing.assert_allclose(q.ravel(), [1.0, 0.6], atol=1e-9)
    values = {}
    for acts in itertools.product([SAFE, RISKY], repeat=2):
        values[acts] = ref.worst_case(V71[:, None], W71, V71[:, None], U, C,
                                      np.eye(2)[list(acts)])[0]
    assert max(values.values()) == pytest.approx(0.500, abs=1e-9)
    assert values[(SAFE, RISKY)] == pytest.approx(0.500, abs=1e-9)
    assert values[(RISKY, RISKY)] == pytest.approx(0.425, abs=1e-9)
    # the library's evaluation gives the same numbers
    ev = evaluate_rules({"plug-in": plug, "robust": MinimaxDecisionRule(U, C).fit(V71)}, V71)
    df = ev.to_frame()
    assert df.loc["plug-in", "worst case for plug-in"] == pytest.approx(0.5, abs=1e-9)
    assert df.loc["robust", "worst case for robust"] == pytest.approx(0.575, abs=1e-9)


@pytest.mark.parametrize("method", ["auto", "lp"])
def test_example_7_1_no_tests_gives_safe_action(method):
    rule = MinimaxDecisionRule(U, C, tests="none", method=method).fit(V71)
    # adversary sets q = 0: risky earns 0, safe earns 0.4
    assert rule.robust_value_ == pytest.approx(0.400, abs=1e-9)
    np.testing.assert_allclose(rule.predict_proba([0.2, 0.5, 0.8]), np.eye(2)[[0, 0, 0]])


@pytest.mark.parametrize("method", ["closed_form", "lp"])
def test_example_7_2_decision_calibration(method, ref):
    V = np.array([0.1, 0.3, 0.6, 0.9])
    rule = MinimaxDecisionRule(U, C, tests="decision", method=method).fit(V)
    # mean val = (0.4 + 0.4 + 0.6 + 0.9) / 4
    assert rule.robust_value_ == pytest.approx(0.575, abs=1e-9)
    np.testing.assert_allclose(rule.predict_proba(V), np.eye(2)[[0, 0, 1, 1]], atol=1e-9)
    plug = TrustForecastRule(U, C).fit(V)
    H = np.stack([V <= 0.4, V > 0.4], axis=1).astype(float)
    wc, _ = ref.worst_case(V[:, None], np.full(4, 0.25), H, U, C, plug.predict_proba(V))
    assert wc == pytest.approx(0.575, abs=1e-9)
    assert plug.expected_utility(V, V) == pytest.approx(0.575, abs=1e-12)


@pytest.mark.parametrize("method", ["closed_form", "lp"])
def test_example_7_3_binwise(method, ref):
    V = np.array([0.1, 0.45, 0.55, 0.95])
    with pytest.warns(UserWarning, match="fewer than 10"):
        rule = MinimaxDecisionRule(U, C, tests="binwise", bins=[0.0, 0.5, 1.0],
                                   method=method).fit(V)
    # bin means 0.275 (-> safe) and 0.75 (-> risky); value (0.4 + 0.75) / 2
    assert rule.robust_value_ == pytest.approx(0.575, abs=1e-9)
    np.testing.assert_allclose(rule.predict_proba(V), np.eye(2)[[0, 0, 1, 1]], atol=1e-9)
    # new forecasts get the action of their bin's mean, not their own best response
    np.testing.assert_array_equal(rule.predict([0.42, 0.52]), [SAFE, RISKY])
    if method == "closed_form":
        np.testing.assert_allclose(rule.bin_means_, [0.275, 0.75])
    H = np.stack([V < 0.5, V >= 0.5], axis=1).astype(float)
    wc, _ = ref.worst_case(V[:, None], np.full(4, 0.25), H, U, C, rule.predict_proba(V))
    assert wc == pytest.approx(0.575, abs=1e-9)


def test_outcome_set_simplex_versus_box():
    # d = 3, u(a, y) = y_a, no tests: over the box min_p max_a p_a = 0 (p = 0); over the
    # simplex it is 1/3 (p uniform), reached by the uniform mixed action
    V = np.array([[0.2, 0.3, 0.5], [0.6, 0.2, 0.2]])
    simp = MinimaxDecisionRule(np.eye(3), tests="none").fit(V)
    assert simp.outcome_set_ == "simplex"
    assert simp.robust_value_ == pytest.approx(1 / 3, abs=1e-9)
    np.testing.assert_allclose(simp.predict_proba(V), np.full((2, 3), 1 / 3), atol=1e-7)
    box = MinimaxDecisionRule(np.eye(3), tests="none", outcome_set="box").fit(V)
    assert box.robust_value_ == pytest.approx(0.0, abs=1e-9)

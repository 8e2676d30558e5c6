"""Exact checks of the decision rules, the minimax rule and its robust LP.

Written against the mutation runs of ``calibration._rules``, ``calibration._minimax``
and ``calibration._lp``. Errors are matched by type, the argument they name and the
value they show; values come from hand computation or from the reference LPs of
``conftest.py`` (dense ``scipy.optimize.linprog`` written for the tests).
"""

from __future__ import annotations

import numpy as np
import pytest

from statlearn.calibration import MinimaxDecisionRule, TrustForecastRule
from tests.helpers import raises, spy_warnings

U = np.array([[0.0], [1.0]])
C = np.array([0.4, 0.0])


# ------------------------------------------------------------------ _rules
@pytest.mark.parametrize("bounds, name, shows, exc", [
    (("a", 1.0), "outcome_bounds[0]", "'a'", TypeError),
    ((0.0, "b"), "outcome_bounds[1]", "'b'", TypeError),
    ((np.nan, 1.0), "outcome_bounds[0]", "NaN", ValueError),
    ((0.0, np.inf), "outcome_bounds[1]", "inf", ValueError),
])
def test_each_outcome_bound_is_named_in_its_error(bounds, name, shows, exc):
    rule = MinimaxDecisionRule(U, C, outcome_bounds=bounds)
    raises(lambda: rule.fit([0.2, 0.5]), exc, names=name, shows=shows)


def test_actions_of_the_wrong_length_show_the_number_of_actions():
    # three actions (rows of U) and two labels: the message gives n_actions = 3
    rule = TrustForecastRule(np.zeros((3, 1)), np.zeros(3), actions=["a", "b"])
    raises(lambda: rule.fit([0.2]), ValueError, names="actions",
           shows=["n_actions=3", "['a', 'b']"])


def test_bad_outcomes_are_named_y():
    rule = TrustForecastRule(U, C).fit([0.2])
    raises(lambda: rule.expected_utility([0.2, 0.3], np.zeros((2, 1, 1))), ValueError,
           names="y")
    raises(lambda: rule.expected_utility([0.2, 0.3], [0.1, np.nan]), ValueError, names="y")


def test_predict_counts_entries_within_1e_12_of_the_best_as_ties():
    # predict takes the smallest action whose probability is within 1e-12 of the row's
    # maximum, the boundary included: 0.5 - 1e-12 ties with 0.5, 0.5 - 1e-9 does not
    rule = TrustForecastRule(U, C).fit([0.2, 0.3])
    P = np.array([[0.5 - 1e-12, 0.5], [0.5 - 1e-9, 0.5]])
    rule.predict_proba = lambda X: P
    assert rule.predict([0.2, 0.3]).tolist() == [0, 1]


# ------------------------------------------------------------------ _lp: pointwise
def _dual_bound(pi, U, c, s, lo, hi, simplex):
    """min over the outcome set of the linear function pi.(U p + c) + s.p (a vertex)."""
    g = pi @ U + s
    if simplex:
        return float(pi @ c + g.min())
    return float(pi @ c + np.sum(np.minimum(g * lo, g * hi)))


def test_pointwise_one_outcome_box_is_the_envelope_rule():
    # val(p) = max(0.4, p) on [0, 1]; min_p val(p) + s p:
    #   s = 0.5: increasing, p = 0, action 0; s = -2: p - 2p on [0.4, 1] wins, p = 1,
    #   action 1; s = -0.5: the kink p = 0.4, and 0 in pi_1 * 1 + s + [0, 0] gives
    #   pi_1 = 0.5 (the dual mixed action)
    from statlearn.calibration._lp import pointwise

    q, pi = pointwise(np.array([[0.5], [-2.0], [-0.5]]), U, C, 0.0, 1.0)
    np.testing.assert_allclose(q, [[0.0], [1.0], [0.4]], atol=1e-12)
    np.testing.assert_allclose(pi, [[1.0, 0.0], [0.0, 1.0], [0.5, 0.5]], atol=1e-12)


@pytest.mark.parametrize("simplex, s, q_star, value", [
    # val(p) = max(p1, p2) on [0, 1]^2. s = (-0.3, -0.8): on t2 >= t1 the objective is
    # 0.2 t2 - 0.3 t1 >= -0.1 t2 >= -0.1, equality only at (1, 1) (and symmetrically)
    (False, [-0.3, -0.8], [1.0, 1.0], -0.1),
    # s = (0.2, 0.1): every term is >= 0, zero only at p = 0
    (False, [0.2, 0.1], [0.0, 0.0], 0.0),
    # s = (-1.5, 0.2): p2 > 0 only adds, and p1 - 1.5 p1 is smallest at p1 = 1
    (False, [-1.5, 0.2], [1.0, 0.0], -0.5),
    # on the simplex p2 = 1 - p1: 0.2 - 0.5 p1 for p1 <= 1/2, 1.5 p1 - 0.8 above: p1 = 1/2
    (True, [-0.3, -0.8], [0.5, 0.5], -0.05),
])
def test_pointwise_two_outcomes_solves_the_small_lp(simplex, s, q_star, value):
    from statlearn.calibration._lp import pointwise

    U2, c2 = np.eye(2), np.zeros(2)
    q, pi = pointwise(np.array([s]), U2, c2, 0.0, 1.0, simplex)
    # HiGHS's primal feasibility tolerance is 1e-7; the vertex is unique
    np.testing.assert_allclose(q[0], q_star, atol=1e-7)
    assert max(q[0]) + np.dot(s, q[0]) == pytest.approx(value, abs=1e-7)
    # the duals are a mixed action that certifies the value (strong duality)
    assert pi[0].min() >= 0 and pi[0].sum() == pytest.approx(1.0, abs=1e-12)
    assert _dual_bound(pi[0], U2, c2, np.array(s), 0.0, 1.0, simplex) == pytest.approx(
        value, abs=1e-7)


# ------------------------------------------------------------------ _minimax
# U, C: u(0, y) = 0.4 (safe), u(1, y) = y (risky); the plug-in action is risky iff v > 0.4

def test_decision_closed_form_at_new_forecasts_is_the_plug_in_rule():
    # decision calibration pins E[Y | plug-in region] = E[V | region]; at a forecast not in
    # the calibration set the closed form returns q = v and the plug-in action
    rule = MinimaxDecisionRule(U, C, tests="decision").fit([0.1, 0.3, 0.6, 0.9])
    assert rule.method_ == "closed_form"
    np.testing.assert_array_equal(rule.q_star([0.5, 0.2]), [[0.5], [0.2]])
    np.testing.assert_array_equal(rule.predict_proba([0.5, 0.2]), [[0.0, 1.0], [1.0, 0.0]])


def test_closed_form_multipliers_are_float_arrays_of_the_documented_shape():
    rule = MinimaxDecisionRule(U, C, tests="decision").fit([0.1, 0.3, 0.6, 0.9])
    assert isinstance(rule.lambda_, np.ndarray) and rule.lambda_.dtype == np.float64
    assert rule.lambda_.shape == (rule.n_tests_, 1) == (2, 1)


def test_binwise_closed_form_multipliers_are_the_slopes_at_the_bin_means():
    # bins [0, .25), [.25, .5), [.5, .75), [.75, 1]: forecasts only in the first and the
    # last. Bin means 0.15 (safe, slope 0) and 0.85 (risky, slope 1): the multiplier of a
    # bin is minus the slope of its best response (the supergradient of the value at the
    # mean), and 0 for an empty bin, which no forecast tests
    with pytest.warns(Warning):
        rule = MinimaxDecisionRule(U, C, tests="binwise", bins=4).fit([0.1, 0.2, 0.8, 0.9])
    assert rule.method_ == "closed_form"
    assert rule.lambda_.dtype == np.float64
    np.testing.assert_array_equal(rule.lambda_, [[0.0], [0.0], [0.0], [-1.0]])
    np.testing.assert_array_equal(rule.bin_counts_, [2, 0, 0, 2])


def test_binwise_bin_counts_leave_out_the_intercept_column():
    # bins of width 1/4; counts by hand: 0.1, 0.2 | 0.3 | 0.6 | 0.8, 0.9
    with pytest.warns(Warning):
        rule = MinimaxDecisionRule(U, C, tests="binwise", bins=4, intercept=True).fit(
            [0.1, 0.2, 0.3, 0.6, 0.8, 0.9])
    np.testing.assert_array_equal(rule.bin_counts_, [2, 1, 1, 2])


def test_simplex_forecasts_with_negative_entries_are_refused():
    # (1.5, -0.5) sums to 1 but is no probability vector
    rule = MinimaxDecisionRule(np.eye(2), np.zeros(2), outcome_set="simplex")
    raises(lambda: rule.fit([[0.3, 0.7], [1.5, -0.5]]), ValueError, names="X",
           shows="'simplex'", match="non-negative")


def test_the_clipping_warning_of_worst_case_value_points_at_the_callers_line(monkeypatch):
    rule = MinimaxDecisionRule(U, C).fit([0.2, 0.8])
    got = spy_warnings(monkeypatch)
    rule.worst_case_value([0.2, 1.3], [[1.0, 0.0], [0.0, 1.0]])
    clipped = [w for w in got if "clipped" in w[0]]
    assert len(clipped) == 1 and "1 forecast(s)" in clipped[0][0]
    assert clipped[0][2] == __file__

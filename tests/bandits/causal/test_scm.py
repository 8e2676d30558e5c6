"""DiscreteSCM: exact values by enumeration, Monte Carlo agreement, counterfactuals, bad input."""

import numpy as np
import pytest

from statlearn.bandits.causal import (
    Arm,
    CausalDiagram,
    DiscreteSCM,
    arm_set,
    example_graph,
    make_random_scm,
    make_xor_scm,
)
from statlearn.testing import assert_binomial_rate


def worked_example():
    """The worked counterfactual example (diagram "C56"): X = N_X ~ B(0.2), W = X ^ U,
    Y = W ^ U ^ X, U ~ B(0.5) shared by W, Y."""
    g, y = example_graph("C56")
    scm = DiscreteSCM(
        g,
        {"X": lambda pa, u: u["NX"], "W": lambda pa, u: pa["X"] ^ u["U"],
         "Y": lambda pa, u: pa["W"] ^ u["U"] ^ pa["X"]},
        {"NX": (["X"], [0.8, 0.2]), "U": (["W", "Y"], [0.5, 0.5])})
    return scm, y


def test_worked_example_values():
    scm, y = worked_example()
    assert scm.expected_value(y) == 0.0
    for x in (0, 1):
        assert scm.expected_value(y, Arm(do={"X": x})) == 0.0
        assert scm.expected_value(y, Arm(do={"W": x})) == pytest.approx(0.5, abs=1e-15)
        for w in (0, 1):
            assert scm.expected_value(y, Arm(do={"X": x, "W": w})) == pytest.approx(0.5)
    # W computed with X = 1 while Y reads the natural X: Y = 1 ^ X, E = 0.8
    assert scm.expected_counterfactual(y, {"W": {"X": 1}}) == pytest.approx(0.8, abs=1e-15)
    assert scm.expected_value(y, Arm(cut={("X", "W"): 1})) == pytest.approx(0.8, abs=1e-15)
    # W reads X = x, Y reads X = x': Y = x ^ x'
    assert scm.expected_value(y, Arm(cut={("X", "W"): 0, ("X", "Y"): 1})) == 1.0
    assert scm.expected_value(y, Arm(cut={("X", "W"): 1, ("X", "Y"): 1})) == 0.0
    assert {str(a) for a in arm_set(scm, y, "POMIS")} == {
        "do(X=0)", "do(X=1)", "do(W=0, X=0)", "do(W=0, X=1)", "do(W=1, X=0)", "do(W=1, X=1)"}


def test_counterfactual_shares_the_unit(global_random_seed):
    """Defect guarded: a fresh u for the submodel would give E = 0.5 instead of 0.8."""
    scm, y = worked_example()
    n = 4000
    s = scm.sample_counterfactual(n, {"W": {"X": 1}}, y, random_state=global_random_seed)
    assert np.array_equal(s["Y"], 1 - s["X"])
    # 4000 draws at p = 0.8 (false alarm 1e-6); p = 0.5 lies ~ 47 sd away (power ~ 1)
    assert_binomial_rate(int(s["Y"].sum()), n, 0.8, label="E[Y_{W[X=1]}]")


def test_monte_carlo_matches_enumeration(global_random_seed):
    """Empirical mean of each arm vs its exact value (false alarm 1e-6 in total, 25 arms).

    Planted defect (redrawing u inside the counterfactual submodel, see above) fails the
    worked-example tests; here the check is that sampling and enumeration agree.
    """
    g, y = example_graph("XYZWST")
    scm = make_random_scm(g, random_state=7)
    arms = arm_set(scm, y, "POMIS") + arm_set(scm, y, "CTF-POMIS")[:8] + [Arm()]
    exact = scm.arm_means(y, arms)
    rng = np.random.default_rng(global_random_seed)
    n = 3000
    for arm, mu in zip(arms, exact):
        k = int(scm.sample(n, arm, random_state=rng)[y].sum())
        assert_binomial_rate(k, n, mu, false_alarm=1e-6 / len(arms), label=str(arm))


def test_enumeration_weights_and_independent_reference():
    g, y = example_graph("IV")
    scm = make_xor_scm(g, {"Z": 0.3, "X": 0.1, "Y": 0.2}, {frozenset("XY"): 0.4})
    u, w = scm.enumerate_exogenous()
    assert w.sum() == pytest.approx(1.0) and len(w) == 16
    # by hand: do(Z=1): X = 1 ^ U_X ^ U_XY, Y = X ^ U_Y ^ U_XY = 1 ^ U_X ^ U_Y
    p1 = 0.1 * 0.8 + 0.9 * 0.2            # P(U_X ^ U_Y = 1)
    assert scm.expected_value(y, Arm(do={"Z": 1})) == pytest.approx(1 - p1)
    assert scm.expected_value(y, Arm(do={"X": 0})) == pytest.approx(0.2 * 0.6 + 0.8 * 0.4)


def test_one_generator_reproducible():
    scm, y = worked_example()
    a = scm.sample(50, random_state=np.random.default_rng(3))
    b = scm.sample(50, random_state=np.random.default_rng(3))
    assert all(np.array_equal(a[k], b[k]) for k in a)


def _ok_parts():
    g = CausalDiagram(["X", "Y"], [("X", "Y")])
    mech = {"X": lambda pa, u: u["UX"], "Y": lambda pa, u: pa["X"]}
    return g, mech, {"UX": (["X"], [0.5, 0.5])}


@pytest.mark.parametrize("change,exc,match", [
    (lambda g, m, e: (g, {"X": m["X"]}, e), ValueError, r"missing for \['Y'\]"),
    (lambda g, m, e: (g, {**m, "Q": m["X"]}, e), ValueError, "unknown nodes"),
    (lambda g, m, e: (g, {**m, "Y": 3}, e), TypeError, "callable"),
    (lambda g, m, e: (g, m, {"UX": (["X"], [1.2, -0.2])}), ValueError, r"in \[0, 1\]"),
    (lambda g, m, e: (g, m, {"UX": (["X"], [0.5, 0.4])}), ValueError, "sum to 1"),
    (lambda g, m, e: (g, m, {"UX": (["Q"], [0.5, 0.5])}), ValueError, "unknown nodes"),
    (lambda g, m, e: (g, m, {"UX": (["X", "Y"], [0.5, 0.5])}), ValueError,
     "no bidirected edge"),
    (lambda g, m, e: ("g", m, e), TypeError, "CausalDiagram"),
])
def test_invalid_scms(change, exc, match):
    g, m, e = change(*_ok_parts())
    with pytest.raises(exc, match=match):
        DiscreteSCM(g, m, e)


def test_bad_mechanism_output_and_arms():
    g, m, e = _ok_parts()
    scm = DiscreteSCM(g, {**m, "Y": lambda pa, u: pa["X"] + 2}, e)
    with pytest.raises(ValueError, match="outside its domain"):
        scm.expected_value("Y")
    scm = DiscreteSCM(g, m, e)
    with pytest.raises(ValueError, match="outside the domain"):
        scm.expected_value("Y", Arm(do={"X": 2}))
    with pytest.raises(ValueError, match="not an edge"):
        scm.expected_value("Y", Arm(cut={("Y", "X"): 1}))
    with pytest.raises(TypeError, match="integer value"):
        Arm(do={"X": 0.5})
    with pytest.raises(TypeError, match="arm must be an Arm"):
        scm.sample(3, {"X": 1})
    with pytest.raises(ValueError, match="not realizable"):
        g2 = CausalDiagram(["X", "Z", "W", "Y"], [("X", "Z"), ("Z", "W"), ("W", "Y")])
        s2 = make_xor_scm(g2, {"X": 0.5})
        s2.sample_counterfactual(5, {"W": {"X": 1}, "Z": {"X": 0}}, "Y")
    with pytest.raises(ValueError, match="must be binary"):
        arm_set(DiscreteSCM(g, m, e, domains={"Y": 3}), "Y")

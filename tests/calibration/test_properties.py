"""The results of Kiyani et al. (2025) as hypothesis properties on random small problems.

The minimax (saddle-point) property of the robust rule (Theorem 3.1), the collapse under
decision calibration (Theorems 4.1-4.2), several tasks at once (Corollary 4.3), the
bin-wise rule (Proposition 4.5), and consequences of the minimax problem that we derived
ourselves: monotonicity in the test class, invariances, labels being irrelevant, and
plug-in optimality under a calibrated truth.

Every expected value comes from the tests' own LPs (conftest.py) or from a
closed form derived here, never from the library.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from statlearn.calibration import MinimaxDecisionRule, TrustForecastRule, value_function
from statlearn.testing.strategies import calibration_problems

TOL = 1e-7


def _linear_tests(A, b):
    def h(V):
        return V @ A.T + b
    return h


def _Hm(p):
    return p["V"] @ p["A"].T + p["b"]


def _w(V):
    return np.full(V.shape[0], 1.0 / V.shape[0])


# Policies and beliefs are read through predict_proba / q_star at V: the rule stores
# them per distinct forecast in its own (sorted, simplex-renormalised) order.
def _fit(p, **kw):
    kw.setdefault("tests", _linear_tests(p["A"], p["b"]))
    kw.setdefault("method", "lp")
    return MinimaxDecisionRule(p["U"], p["c"], outcome_set="simplex" if p["simplex"] else "box",
                               **kw).fit(p["V"])


@given(calibration_problems())
def test_saddle_certificate_and_policy_support(ref, p):
    rule = _fit(p)
    V, U, c, Hm, simp = p["V"], p["U"], p["c"], _Hm(p), p["simplex"]
    w = _w(V)
    value, _ = ref.robust_value(V, w, Hm, U, c, simplex=simp)
    assert rule.robust_value_ == pytest.approx(value, abs=TOL)
    # the returned mixed policy guarantees the robust value against every q in Q
    wc, _ = ref.worst_case(V, w, Hm, U, c, rule.predict_proba(V), simplex=simp)
    assert wc == pytest.approx(value, abs=TOL)
    # dual certificate G(lambda*) = value (Theorem 3.1)
    assert ref.dual_function(V, w, Hm, rule.lambda_, U, c, simplex=simp) == pytest.approx(
        value, abs=1e-6)
    # policies: probability vectors supported on actions tied at q*
    pi = rule.predict_proba(V)
    assert np.all(pi >= 0) and np.allclose(pi.sum(axis=1), 1, atol=1e-12)
    q = rule.q_star(V)
    util = q @ U.T + c
    best = util.max(axis=1, keepdims=True)
    assert np.all((pi <= 1e-9) | (util >= best - 1e-7))
    # q* is feasible: E[h(V)(q - V)] = 0, inside the outcome set
    np.testing.assert_allclose(Hm.T @ (w[:, None] * (q - V)), 0, atol=1e-7)
    assert np.all(q >= -1e-9) and np.all(q <= 1 + 1e-9)
    if simp:
        np.testing.assert_allclose(q.sum(axis=1), 1, atol=1e-7)


@given(calibration_problems(max_forecasts=4))
def test_robust_beats_every_deterministic_policy_in_the_worst_case(ref, p):
    """Minimax (Theorem 3.1): robust value >= worst case of plug-in and of every
    deterministic rule."""
    rule = _fit(p)
    V, U, c, Hm, simp = p["V"], p["U"], p["c"], _Hm(p), p["simplex"]
    w = _w(V)
    n, m = V.shape[0], U.shape[0]
    plug = TrustForecastRule(U, c).fit(V).predict_proba(V)
    wc_plug, _ = ref.worst_case(V, w, Hm, U, c, plug, simplex=simp)
    assert rule.robust_value_ >= wc_plug - TOL
    for acts in itertools.product(range(m), repeat=n):
        wc, _ = ref.worst_case(V, w, Hm, U, c, np.eye(m)[list(acts)], simplex=simp)
        assert rule.robust_value_ >= wc - TOL
    # under a calibrated truth (q = v) the plug-in rule is optimal (ours)
    nominal_rob = np.mean(np.sum(rule.predict_proba(V) * (V @ U.T + c), axis=1))
    assert nominal_rob <= np.mean(value_function(V, U, c)) + 1e-9


@given(calibration_problems(), st.booleans())
def test_decision_calibration_collapse(ref, p, with_extra):
    """Theorems 4.1-4.2: with the decision tests in H, robust value = E[val(V)] = plug-in's
    worst case."""
    V, U, c, simp = p["V"], p["U"], p["c"], p["simplex"]
    w = _w(V)
    a_br = TrustForecastRule(U, c).fit(V).predict(V)
    Hdec = (a_br[:, None] == np.arange(U.shape[0])[None, :]).astype(float)
    Hm = np.hstack([Hdec, _Hm(p)]) if with_extra else Hdec
    mean_val = float(np.mean(value_function(V, U, c)))
    lin = _linear_tests(p["A"], p["b"])

    def tests(X):
        a = TrustForecastRule(U, c).fit(X).predict(X)
        H = (a[:, None] == np.arange(U.shape[0])[None, :]).astype(float)
        return np.hstack([H, lin(X)]) if with_extra else H

    lp = _fit(p, tests=tests)
    assert lp.robust_value_ == pytest.approx(mean_val, abs=TOL)
    wc_plug, _ = ref.worst_case(V, w, Hm, U, c, np.eye(U.shape[0])[a_br], simplex=simp)
    assert wc_plug == pytest.approx(mean_val, abs=TOL)
    closed = MinimaxDecisionRule(U, c, tests="decision",
                                 outcome_set="simplex" if simp else "box").fit(V)
    assert closed.method_ == "closed_form"
    assert closed.robust_value_ == pytest.approx(mean_val, abs=1e-12)
    np.testing.assert_array_equal(closed.predict(V), a_br)


@given(calibration_problems(max_tests=3))
def test_monotone_in_the_test_class(ref, p):
    """Monotonicity (ours): value(none) = min_p val(p) <= value(H1) <= value(H1 + h)
    <= E[val(V)]."""
    V, U, c, simp = p["V"], p["U"], p["c"], p["simplex"]
    k = p["A"].shape[0]
    values = []
    for j in range(k + 1):
        values.append(_fit(p, tests=_linear_tests(p["A"][:j], p["b"][:j])).robust_value_)
    assert all(values[j + 1] >= values[j] - TOL for j in range(k))
    min_val = ref.min_val_tilted(np.zeros(V.shape[1]), U, c, simplex=simp)
    assert values[0] == pytest.approx(min_val, abs=TOL)
    none = _fit(p, tests="none")
    assert none.robust_value_ == pytest.approx(min_val, abs=TOL)
    assert values[-1] <= np.mean(value_function(V, U, c)) + TOL


@given(calibration_problems(dims=(1,), simplex=False, max_forecasts=8), st.integers(1, 4))
def test_binwise_closed_form_equals_lp(ref, p, nb):
    """Proposition 4.5: constant on each bin, equal to the best response to the bin mean."""
    V, U, c = p["V"], p["U"], p["c"]
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        closed = MinimaxDecisionRule(U, c, tests="binwise", bins=nb).fit(V)
        lp = MinimaxDecisionRule(U, c, tests="binwise", bins=nb, method="lp").fit(V)
    edges = np.linspace(0, 1, nb + 1)
    b = np.clip(np.searchsorted(edges, V[:, 0], side="right") - 1, 0, nb - 1)
    Hm = (b[:, None] == np.arange(nb)[None, :]).astype(float)
    value, _ = ref.robust_value(V, _w(V), Hm, U, c)
    # Jensen: value = sum_j P(bin j) val(bin mean j)
    means = np.array([V[b == j, 0].mean() for j in b])
    assert closed.robust_value_ == pytest.approx(np.mean(value_function(means, U, c)),
                                                 abs=1e-12)
    assert closed.robust_value_ == pytest.approx(value, abs=TOL)
    assert lp.robust_value_ == pytest.approx(value, abs=TOL)
    wc, _ = ref.worst_case(V, _w(V), Hm, U, c, closed.predict_proba(V))
    assert wc == pytest.approx(value, abs=TOL)
    a = closed.predict(V)
    for j in np.unique(b):
        assert len(set(a[b == j])) == 1


@given(calibration_problems(dims=(1,), simplex=False, max_forecasts=8, max_tests=1),
       st.sampled_from([0.0, 0.02, 0.1]))
def test_fast_d1_algorithm_equals_generic_lp(ref, p, eps):
    if p["A"].shape[0] == 0:
        p = dict(p, A=np.ones((1, 1)), b=np.zeros(1))
    V, U, c, Hm = p["V"], p["U"], p["c"], _Hm(p)
    w = _w(V)
    value, _ = ref.robust_value(V, w, Hm, U, c, eps=eps)
    d1 = _fit(p, method="d1", eps=eps)
    lp = _fit(p, method="lp", eps=eps)
    assert lp.robust_value_ == pytest.approx(value, abs=TOL)
    assert d1.robust_value_ == pytest.approx(value, abs=TOL)
    wc, _ = ref.worst_case(V, w, Hm, U, c, d1.predict_proba(V), eps=eps)
    assert wc == pytest.approx(value, abs=TOL)
    q = d1.q_star(V)
    assert abs(float(Hm[:, 0] @ (w * (q - V)[:, 0]))) <= eps + 1e-9
    assert float(w @ value_function(q, U, c)) == pytest.approx(value, abs=TOL)


@given(calibration_problems(), st.sampled_from([0.01, 0.05, 0.2]))
def test_approximate_calibration(ref, p, eps):
    """eps > 0: saddle certificate for the relaxed set, value decreasing in eps."""
    V, U, c, Hm, simp = p["V"], p["U"], p["c"], _Hm(p), p["simplex"]
    w = _w(V)
    rule = _fit(p, eps=eps)
    value, _ = ref.robust_value(V, w, Hm, U, c, simplex=simp, eps=eps)
    assert rule.robust_value_ == pytest.approx(value, abs=TOL)
    wc, _ = ref.worst_case(V, w, Hm, U, c, rule.predict_proba(V), simplex=simp, eps=eps)
    assert wc == pytest.approx(value, abs=TOL)
    assert rule.robust_value_ <= _fit(p).robust_value_ + TOL
    # eps large: every q is allowed, the rule is the maximin constant action
    big = _fit(p, eps=1e3)
    assert big.robust_value_ == pytest.approx(
        ref.min_val_tilted(np.zeros(V.shape[1]), U, c, simplex=simp), abs=TOL)


@given(calibration_problems(), st.integers(1, 5), st.integers(-5, 5),
       st.randoms(use_true_random=False))
def test_invariances(ref, p, scale, shift, rnd):
    """Invariances (ours): affine changes of u rescale the value and keep the rule minimax;
    permuting
    the actions permutes the policy."""
    V, U, c, Hm, simp = p["V"], p["U"], p["c"], _Hm(p), p["simplex"]
    w = _w(V)
    base = _fit(p)
    moved = _fit(dict(p, U=scale * U, c=scale * c + shift / 10))
    assert moved.robust_value_ == pytest.approx(scale * base.robust_value_ + shift / 10,
                                                abs=1e-6)
    # the transformed problem's policy is minimax for the original one
    wc, _ = ref.worst_case(V, w, Hm, U, c, moved.predict_proba(V), simplex=simp)
    assert wc == pytest.approx(base.robust_value_, abs=TOL)
    perm = list(range(U.shape[0]))
    rnd.shuffle(perm)
    permuted = _fit(dict(p, U=U[perm], c=c[perm]))
    assert permuted.robust_value_ == pytest.approx(base.robust_value_, abs=TOL)
    back = np.empty_like(permuted.predict_proba(V))
    back[:, perm] = permuted.predict_proba(V)
    wc, _ = ref.worst_case(V, w, Hm, U, c, back, simplex=simp)
    assert wc == pytest.approx(base.robust_value_, abs=TOL)


@given(calibration_problems(dims=(1,), simplex=False), st.integers(0, 2**31 - 1))
def test_labels_are_irrelevant(p, seed):
    """Labels are irrelevant (ours): the rule depends on the calibration forecasts and H only."""
    y = np.random.default_rng(seed).uniform(size=p["V"].shape[0])
    a = _fit(p)
    b = MinimaxDecisionRule(p["U"], p["c"], tests=_linear_tests(p["A"], p["b"]),
                            method="lp").fit(p["V"], y)
    assert a.robust_value_ == b.robust_value_
    np.testing.assert_array_equal(a.policy_, b.policy_)


@given(calibration_problems(dims=(1,), simplex=False),
       calibration_problems(dims=(1,), simplex=False))
def test_decision_calibrated_for_two_tasks_at_once(p1, p2):
    """Corollary 4.3: with the decision tests of both tasks, plug-in is minimax for each task."""
    V = p1["V"]
    tasks = [(p1["U"], p1["c"]), (p2["U"], p2["c"])]

    def tests(X):
        cols = []
        for U, c in tasks:
            a = TrustForecastRule(U, c).fit(X).predict(X)
            cols.append((a[:, None] == np.arange(U.shape[0])[None, :]).astype(float))
        return np.hstack(cols)

    for U, c in tasks:
        rule = MinimaxDecisionRule(U, c, tests=tests, method="lp").fit(V)
        assert rule.robust_value_ == pytest.approx(np.mean(value_function(V, U, c)), abs=TOL)

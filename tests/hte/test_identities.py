"""Exact algebra of the relative-error estimator, edge cases, bad input.

The estimator is the one-step (efficient influence function) estimator of Gao (2025):
the AIPW pseudo-outcome ``psi``, the per-unit contribution
``varphi = t1^2 - t2^2 - 2 (t1 - t2) psi = (t1 - psi)^2 - (t2 - psi)^2`` and their mean.
Expected values are written out here from these formulas, never taken from the code
under test.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from sklearn.linear_model import LinearRegression, LogisticRegression

from statlearn.datasets import make_hte_reference
from statlearn.hte import (
    RelativeErrorEvaluator,
    dr_loss,
    dr_pseudo_outcome,
    r_loss,
    relative_error_from_nuisances,
    relative_error_influence,
)

finite = st.floats(-50, 50, allow_nan=False, allow_infinity=False)


@st.composite
def problems(draw, k=3):
    n = draw(st.integers(4, 30))
    vec = arrays(np.float64, n, elements=finite)
    a = draw(arrays(np.int64, n, elements=st.integers(0, 1)))
    e = draw(arrays(np.float64, n, elements=st.floats(0.02, 0.98)))
    ts = [draw(vec) for _ in range(k)]
    return a, draw(vec), draw(vec), draw(vec), e, ts


def _psi_by_hand(a, y, mu0, mu1, e):
    out = np.empty(a.size)
    for i in range(a.size):  # unit by unit, straight from the AIPW score
        if a[i] == 1:
            out[i] = mu1[i] - mu0[i] + (y[i] - mu1[i]) / e[i]
        else:
            out[i] = mu1[i] - mu0[i] - (y[i] - mu0[i]) / (1 - e[i])
    return out


@given(problems())
def test_influence_is_a_difference_of_dr_losses(p):
    a, y, mu0, mu1, e, (t1, t2, _) = p
    psi = dr_pseudo_outcome(a, y, mu0, mu1, e)
    np.testing.assert_allclose(psi, _psi_by_hand(a, y, mu0, mu1, e), rtol=1e-12, atol=1e-9)
    varphi = relative_error_influence(t1, t2, psi)
    # the per-unit contribution, both forms
    np.testing.assert_allclose(varphi, t1**2 - t2**2 - 2 * (t1 - t2) * psi, rtol=1e-9,
                               atol=1e-6)
    np.testing.assert_allclose(varphi, (t1 - psi) ** 2 - (t2 - psi) ** 2, rtol=1e-9, atol=1e-6)
    res = relative_error_from_nuisances(t1, t2, a, y, mu0, mu1, e)
    # the estimate is the difference of the DR-losses with shared pseudo-outcomes
    direct = np.mean((psi - t1) ** 2) - np.mean((psi - t2) ** 2)
    assert res.delta == pytest.approx(direct, rel=1e-9, abs=1e-6)
    assert res.delta == pytest.approx(dr_loss(t1, psi) - dr_loss(t2, psi), rel=1e-9, abs=1e-6)
    sd = np.sqrt(np.mean((varphi - varphi.mean()) ** 2))
    assert res.se == pytest.approx(sd / np.sqrt(a.size), rel=1e-9, abs=1e-9)


@given(problems())
def test_identical_candidates_antisymmetry_additivity(p):
    a, y, mu0, mu1, e, (t1, t2, t3) = p
    f = lambda u, v: relative_error_from_nuisances(u, v, a, y, mu0, mu1, e)  # noqa: E731
    same = f(t1, t1)
    assert same.delta == 0.0 and same.se == 0.0 and same.decision == 0
    assert tuple(same.confidence_interval()) == (0.0, 0.0)
    d12, d21, d23, d13 = f(t1, t2), f(t2, t1), f(t2, t3), f(t1, t3)
    scale = 1 + np.max(np.abs(np.concatenate([t1, t2, t3, y, mu0, mu1]))) ** 2 / 0.02
    assert d12.delta == pytest.approx(-d21.delta, abs=1e-12 * scale)
    assert d12.se == pytest.approx(d21.se, rel=1e-9, abs=1e-12 * scale)
    assert d13.delta == pytest.approx(d12.delta + d23.delta, abs=1e-11 * scale)


@given(st.floats(-100, 100), st.integers(0, 10_000))
def test_invariant_to_shifting_y_with_least_squares_outcomes(c, seed):
    d = make_hte_reference(120, random_state=seed)
    ev = RelativeErrorEvaluator(outcome_model=LinearRegression(),
                                propensity_model=LogisticRegression())
    t1, t2 = d.candidates["const"], d.candidates["noisy"]
    base = ev.fit(d.X, d.treatment, d.y, tau1=t1, tau2=t2).delta_
    shifted = ev.fit(d.X, d.treatment, d.y + c, tau1=t1, tau2=t2).delta_
    assert shifted == pytest.approx(base, abs=1e-9 * (1 + abs(c)))


def test_plugin_evaluator_equals_direct_difference_of_dr_losses():
    d = make_hte_reference(600, random_state=3)
    ev = RelativeErrorEvaluator(cross_fit=3, random_state=0).fit(
        d.X, d.treatment, d.y, tau1=d.candidates["half"], tau2=d.candidates["noisy"])
    # recompute by hand from the stored nuisances (propensity already clipped)
    a, y = d.treatment, d.y
    psi = ev.mu1_ - ev.mu0_ + a * (y - ev.mu1_) / ev.propensity_ - (1 - a) * (
        y - ev.mu0_) / (1 - ev.propensity_)
    direct = np.mean((psi - d.candidates["half"]) ** 2) - np.mean(
        (psi - d.candidates["noisy"]) ** 2)
    assert ev.delta_ == pytest.approx(direct, rel=1e-12)
    # and the stored nuisances really are out-of-fold fits: refit fold by fold by hand
    from sklearn.model_selection import StratifiedKFold

    mu1 = np.empty(a.size)
    for tr, te in StratifiedKFold(3, shuffle=True, random_state=0).split(d.X, a):
        m = LinearRegression().fit(d.X[tr][a[tr] == 1], y[tr][a[tr] == 1])
        mu1[te] = m.predict(d.X[te])
    np.testing.assert_allclose(ev.mu1_, mu1, rtol=1e-10)


def test_decision_and_pvalue_follow_the_interval():
    rng = np.random.default_rng(0)
    n = 500
    a = rng.integers(0, 2, n)
    y = rng.normal(size=n)
    z = np.zeros(n)
    e = np.full(n, 0.5)
    res = relative_error_from_nuisances(z, z + 1, a, y, z, z, e, alpha=0.1)
    # t1 = 0 is the truth (tau = 0), t2 = 1 has MSE 1: delta_hat near -1, significant
    assert res.decision == -1 and res.pvalue < 1e-6
    lo, hi = res.confidence_interval()
    assert hi < 0
    assert (lo, hi) == pytest.approx((res.delta - 1.6448536 * res.se, res.delta
                                      + 1.6448536 * res.se), rel=1e-6)
    lo95, hi95 = res.confidence_interval(0.95)
    assert hi95 - lo95 == pytest.approx(2 * 1.959964 * res.se, rel=1e-6)
    assert "tau1 more accurate" in str(res.summary())
    assert "influence" not in repr(res)


# ------------------------------------------------------------------------ edge cases
def test_identical_candidates_need_no_fit_and_give_zero():
    d = make_hte_reference(300, random_state=1)
    for nuisance in ("plugin", "balanced"):
        ev = RelativeErrorEvaluator(nuisance=nuisance).fit(
            d.X, d.treatment, d.y, tau1=d.candidates["half"], tau2=d.candidates["half"].copy())
        assert ev.delta_ == 0 and ev.se_ == 0 and ev.decision_ == 0
        assert tuple(ev.conf_int_) == (0.0, 0.0)
        assert ev.pvalue_ == 1.0


def test_constant_treatment_raises():
    d = make_hte_reference(200, random_state=0)
    with pytest.raises(ValueError, match="treatment is constant"):
        RelativeErrorEvaluator().fit(d.X, np.ones(200), d.y, tau1=np.zeros(200),
                                     tau2=np.ones(200))


def test_tiny_arms_warn_and_single_unit_arm_raises():
    d = make_hte_reference(200, random_state=0)
    a = np.zeros(200, dtype=int)
    a[:5] = 1
    with pytest.warns(UserWarning, match="tiny sample"):
        RelativeErrorEvaluator().fit(d.X, a, d.y, tau1=np.zeros(200), tau2=np.ones(200))
    a[1:5] = 0
    with pytest.raises(ValueError, match="at least 2 units per arm"):
        RelativeErrorEvaluator().fit(d.X, a, d.y, tau1=np.zeros(200), tau2=np.ones(200))
    with pytest.raises(ValueError, match="cross_fit=5 needs at least 2 treated"):
        a[:8] = 1
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            RelativeErrorEvaluator(cross_fit=5).fit(d.X, a, d.y, tau1=np.zeros(200),
                                                    tau2=np.ones(200))


def test_extreme_propensities_are_clipped_counted_and_warned():
    rng = np.random.default_rng(0)
    n = 1000
    X = rng.normal(size=(n, 2))
    a = (rng.random(n) < 1 / (1 + np.exp(-6 * X[:, 0]))).astype(int)
    y = X[:, 1] + a + rng.normal(size=n)
    ev = RelativeErrorEvaluator(propensity_model=LogisticRegression(C=1e6))
    with pytest.warns(UserWarning, match="clipped"):
        ev.fit(X, a, y, tau1=np.zeros(n), tau2=np.ones(n))
    assert ev.n_clipped_ > 0.01 * n
    assert ev.propensity_.min() >= 0.01 and ev.propensity_.max() <= 0.99
    assert 0 < ev.result_.ess < n
    # trimming drops exactly the units outside [0.05, 0.95] of the fitted propensity
    raw = LogisticRegression(C=1e6).fit(X, a).predict_proba(X)[:, 1]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tr = RelativeErrorEvaluator(propensity_model=LogisticRegression(C=1e6), trim=0.05).fit(
            X, a, y, tau1=np.zeros(n), tau2=np.ones(n))
    assert tr.result_.n == int(np.sum((raw >= 0.05) & (raw <= 0.95)))


def test_binary_outcome_runs():
    d = make_hte_reference(400, random_state=2)
    yb = (d.y > 0).astype(float)
    ev = RelativeErrorEvaluator().fit(d.X, d.treatment, yb, tau1=np.zeros(400),
                                      tau2=np.full(400, 0.2))
    assert np.isfinite(ev.delta_) and ev.se_ > 0


def test_candidates_as_estimators_and_callables():
    d = make_hte_reference(300, random_state=4)

    class Fitted:
        def effect(self, X):
            return 1 + X[:, 0]

    class Pred:
        def predict(self, X):
            return 1 + X[:, 0]

    vals = [RelativeErrorEvaluator().fit(d.X, d.treatment, d.y, tau1=c,
                                         tau2=d.candidates["const"]).delta_
            for c in (Fitted(), Pred(), lambda X: 1 + X[:, 0], 1 + d.X[:, 0])]
    assert np.ptp(vals) == 0


def test_deterministic_given_random_state():
    d = make_hte_reference(400, random_state=5)
    kw = dict(tau1=d.candidates["const"], tau2=d.candidates["noisy"])
    r1 = RelativeErrorEvaluator(cross_fit=4, random_state=7).fit(d.X, d.treatment, d.y, **kw)
    r2 = RelativeErrorEvaluator(cross_fit=4, random_state=7).fit(d.X, d.treatment, d.y, **kw)
    assert r1.delta_ == r2.delta_


def test_r_loss_by_hand():
    a = np.array([1, 0, 1])
    y = np.array([2.0, 1.0, 0.0])
    m = np.array([1.0, 1.0, 1.0])
    e = np.array([0.5, 0.25, 0.8])
    t = np.array([1.0, 2.0, 3.0])
    by_hand = np.mean([(1 - 0.5 * 1) ** 2, (0 + 0.25 * 2) ** 2, (-1 - 0.2 * 3) ** 2])
    assert r_loss(t, a, y, m, e) == pytest.approx(by_hand)


# ------------------------------------------------------------------ bad input
def _data(n=100):
    d = make_hte_reference(n, random_state=0)
    return d.X, d.treatment, d.y, np.zeros(n), np.ones(n)


@pytest.mark.parametrize("kw,exc,match", [
    ({"nuisance": "magic"}, ValueError, "nuisance must be one of"),
    ({"representation": "cubic"}, ValueError, "representation must be one of"),
    ({"representation": 3}, TypeError, "representation must be"),
    ({"alpha": 1.5}, ValueError, "alpha"),
    ({"clip": 0.7}, ValueError, "clip must be in"),
    ({"clip": 0}, ValueError, "clip must be in"),
    ({"trim": 0.5}, ValueError, "trim must be in"),
    ({"cross_fit": 1}, ValueError, "cross_fit must be in"),
    ({"cross_fit": 2.0}, TypeError, r"cross_fit must be None or an int .*got float 2\.0?"),
    ({"lambda_1": 0}, ValueError, "lambda_1"),
    ({"lambda_2": -1}, ValueError, "lambda_2"),
    ({"huber_c": 0}, ValueError, "huber_c"),
    ({"heads": "ridge"}, ValueError, "heads must be one of"),
    ({"propensity_model": LinearRegression()}, TypeError, "propensity_model"),
    ({"outcome_model": object()}, TypeError, "outcome_model"),
])
def test_bad_parameters(kw, exc, match):
    X, a, y, t1, t2 = _data()
    with pytest.raises(exc, match=match):
        RelativeErrorEvaluator(**kw).fit(X, a, y, tau1=t1, tau2=t2)


def test_bad_data():
    X, a, y, t1, t2 = _data()
    ev = RelativeErrorEvaluator()
    bad_a = a.astype(float)
    bad_a[0] = 2
    with pytest.raises(ValueError, match="treatment must contain only 0 and 1"):
        ev.fit(X, bad_a, y, tau1=t1, tau2=t2)
    bad_y = y.copy()
    bad_y[3] = np.nan
    with pytest.raises(ValueError, match="y"):
        ev.fit(X, a, bad_y, tau1=t1, tau2=t2)
    with pytest.raises(ValueError, match="same number of rows"):
        ev.fit(X, a[:-1], y, tau1=t1, tau2=t2)
    with pytest.raises(ValueError, match="tau1 must give one prediction per row"):
        ev.fit(X, a, y, tau1=t1[:-1], tau2=t2)
    bad_t = t2.copy()
    bad_t[0] = np.inf
    with pytest.raises(ValueError, match="tau2"):
        ev.fit(X, a, y, tau1=t1, tau2=bad_t)
    with pytest.raises(TypeError, match="tau1 must be predictions"):
        ev.fit(X, a, y, tau1="model", tau2=t2)
    with pytest.raises(TypeError, match="both candidates"):
        ev.fit(X, a, y, tau1=t1)
    with pytest.raises(ValueError, match="candidates must be a dict"):
        ev.compare(X, a, y, {"only": t1})


def test_bad_nuisance_values():
    n = 10
    z = np.zeros(n)
    a = np.r_[np.ones(5), np.zeros(5)]
    with pytest.raises(ValueError, match=r"propensity must lie strictly inside \(0, 1\)"):
        relative_error_from_nuisances(z, z, a, z, z, z, np.r_[0.0, np.full(n - 1, 0.5)])
    with pytest.raises(ValueError, match="alpha"):
        relative_error_from_nuisances(z, z, a, z, z, z, np.full(n, 0.5), alpha=0)
    with pytest.raises(ValueError, match="mu1 must be one-dimensional"):
        dr_pseudo_outcome(a, z, z, np.zeros((n, 2)), np.full(n, 0.5))
    with pytest.raises(ValueError, match="inconsistent|same|length"):
        dr_pseudo_outcome(a, z[:-1], z, z, np.full(n, 0.5))

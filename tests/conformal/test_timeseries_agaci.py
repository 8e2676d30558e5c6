"""AgACI (aggregated adaptive conformal inference): BOA invariants, regret bound, references."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from statlearn.conformal import (
    TimeSeriesRegressor,
    adaptive_conformal_inference,
    aggregated_adaptive_conformal_inference,
)
from statlearn.conformal._timeseries._agaci import _BOA

FLOATS = st.floats(-1.0, 1.0, allow_nan=False, width=64)


def _drifting(T, seed):
    rng = np.random.default_rng(seed)
    return rng.normal(size=T) * np.linspace(1.0, 3.0, T) + np.linspace(0.0, 1.0, T)


def _pinball(y, b, tau):
    u = y - b
    return np.maximum(tau * u, (tau - 1.0) * u)


def _run_boa(experts, y, tau):
    """Drive the aggregator over a bounded sequence; returns aggregates, weights, rates."""
    T, K = experts.shape
    boa = _BOA(K, tau)
    agg, W, ETA = np.empty(T), np.empty((T, K)), np.empty((T, K))
    for t in range(T):
        p, eta, E = boa.weights(experts[t])
        agg[t] = boa.aggregate(experts[t], p)
        W[t], ETA[t] = p, eta
        boa.update(experts[t], y[t], agg[t], eta, E)
    return agg, W, ETA


def _regret_bound(experts, y, agg, eta, tau):
    """Linearised regret of each expert and its bound, written from the proof.

    With ``p_t ∝ pi eta_t exp(eta_t R_{t-1})``, ``sum_k p_k r_k = 0`` and
    ``exp(x - x^2) <= 1 + x`` for ``x >= -1/2`` give ``sum_k pi_k
    exp(eta_{t,k} R_{t,k}) <= sum_k pi_k exp(eta_{t,k} R_{t-1,k})``; ``x^a
    <= x + 1 - a`` (``a = eta_t / eta_{t-1} <= 1``) moves to the next rate
    at the cost ``pi_k (1 - a)``. So ``eta_{T,k} R_{T,k} <= log((1 + S) /
    pi_k)``, ``R_{T,k} = sum_t (r_{t,k} - eta_{t,k} r_{t,k}^2)``.
    """
    K = experts.shape[1]
    used = np.all(np.isfinite(eta), axis=1)          # steps where something was learned
    g = np.where(y < agg, 1.0, 0.0) - tau
    r = g[:, None] * (agg[:, None] - experts)
    r, e = r[used], eta[used]
    if r.shape[0] == 0:
        return np.zeros(K), np.zeros(K)
    S = float(np.sum(1.0 - e[1:] / e[:-1]) / K)
    bound = np.sum(e * r * r, axis=0) + math.log((1.0 + S) * K) / e[-1]
    return r.sum(axis=0), bound


# --------------------------------------------------------------- one expert: ACI itself
@pytest.mark.parametrize("window", [None, 60])
def test_one_gamma_is_aci(window):
    e = _drifting(700, 0)
    cal, stream = e[:100], e[100:]
    ag = aggregated_adaptive_conformal_inference(stream, cal, alpha=0.1, gammas=[0.03],
                                                 window=window)
    aci = adaptive_conformal_inference(np.abs(stream), np.abs(cal), alpha=0.1, gamma=0.03,
                                       window=window)
    np.testing.assert_array_equal(ag.expert_errors[:, 0], aci.errors)
    np.testing.assert_allclose(ag.alphas[:, 0], aci.alphas, rtol=0, atol=1e-12)
    assert np.all(ag.weights == 1.0)
    q = np.where(np.isposinf(aci.thresholds), ag.bound_limit,
                 np.where(np.isneginf(aci.thresholds), -ag.bound_limit, aci.thresholds))
    np.testing.assert_allclose(ag.bounds[:, 1], q, rtol=1e-14)
    np.testing.assert_allclose(ag.bounds[:, 0], -q, rtol=1e-14)
    assert ag.bound_limit == pytest.approx(2 * np.max(np.abs(cal if window is None
                                                               else cal[-window:])))
    # where the expert was finite, its interval is ACI's, so the misses agree too
    finite = np.isfinite(aci.thresholds)
    np.testing.assert_array_equal(ag.errors[finite], aci.errors[finite])


# ------------------------------------------------------- deterministic invariants of BOA
@settings(max_examples=100, deadline=None)
@given(e=arrays(np.float64, st.integers(30, 120), elements=FLOATS),
       gammas=st.lists(st.floats(1e-3, 0.3), min_size=2, max_size=5),
       symmetric=st.booleans(), alpha=st.sampled_from([0.1, 0.2, 0.5]))
def test_weights_on_simplex_and_bound_between_experts(e, gammas, symmetric, alpha):
    # Planted defect "weights not renormalised" (p = eta w): fails here on every example.
    res = aggregated_adaptive_conformal_inference(e[10:], e[:10], alpha=alpha, gammas=gammas,
                                                  symmetric=symmetric, window=15,
                                                  bound_limit=5.0)
    assert np.all(res.weights >= 0)
    np.testing.assert_allclose(res.weights.sum(axis=1), 1.0, rtol=0, atol=1e-12)
    lo, hi = res.expert_bounds.min(axis=1), res.expert_bounds.max(axis=1)
    assert np.all(lo <= res.bounds) and np.all(res.bounds <= hi)
    assert np.all(np.abs(res.expert_bounds) <= 5.0)          # infinities became +-M


@settings(max_examples=200, deadline=None)
@given(data=st.data(), T=st.integers(1, 150), K=st.integers(2, 6),
       tau=st.sampled_from([0.05, 0.5, 0.95]), coarse=st.booleans())
def test_boa_regret_bound_on_adversarial_sequences(data, T, K, tau, coarse):
    # coarse: values in {-1, 0, 1}, so ties between experts and y at the kink are frequent
    elements = st.sampled_from([-1.0, 0.0, 1.0]) if coarse else FLOATS
    experts = data.draw(arrays(np.float64, (T, K), elements=elements))
    y = data.draw(arrays(np.float64, (T,), elements=elements))
    agg, W, eta = _run_boa(experts, y, tau)
    lin, bound = _regret_bound(experts, y, agg, eta, tau)
    regret = _pinball(y, agg, tau).sum() - _pinball(y[:, None], experts, tau).sum(axis=0)
    assert np.all(regret <= lin + 1e-9)                  # convexity of the pinball loss
    assert np.all(lin <= bound + 1e-9)


def test_boa_regret_bound_catches_a_wrong_gradient_sign():
    # A stationary stream (y ~ U(0, 1)) where expert 2 is the 0.9-quantile: against it the
    # bound is about 3.5 and the regret about 1.3. A wrong-sign gradient (planted once)
    # drives the weight to expert 0 and that regret to about 0.4 T = 1,600: the test fails.
    rng = np.random.default_rng(5)
    T, tau = 4000, 0.9
    y = rng.random(T)
    experts = np.tile([0.0, 0.5, 0.9], (T, 1))
    agg, W, eta = _run_boa(experts, y, tau)
    lin, bound = _regret_bound(experts, y, agg, eta, tau)
    regret = _pinball(y, agg, tau).sum() - _pinball(y[:, None], experts, tau).sum(axis=0)
    assert np.all(regret <= lin + 1e-9) and np.all(lin <= bound + 1e-9)
    assert bound[2] < 0.01 * T                           # sublinear: the bound has content
    assert W[-1, 2] > 0.5                                # the right quantile wins the weight


@settings(max_examples=25, deadline=None)
@given(e=arrays(np.float64, st.integers(20, 90), elements=FLOATS),
       gammas=st.lists(st.floats(1e-3, 0.3), min_size=1, max_size=4),
       symmetric=st.booleans())
def test_agaci_regret_against_each_expert(e, gammas, symmetric):
    res = aggregated_adaptive_conformal_inference(e[8:], e[:8], alpha=0.2, gammas=gammas,
                                                  symmetric=symmetric, bound_limit=3.0)
    reg = res.pinball_regret()
    for j, tau in enumerate((0.1, 0.9)):
        lin, bound = _regret_bound(res.expert_bounds[:, :, j], res.residuals,
                                   res.bounds[:, j], res.learning_rates[:, :, j], tau)
        assert np.all(reg[:, j] <= bound + 1e-9)


# -------------------------------------------------------------- brute-force reference
def _reference(stream, cal, alpha, gammas, window, M):
    """AgACI from its definition: ACI experts (the tested ACI function), naive BOA loops."""
    T, K = stream.size, len(gammas)
    q = np.column_stack([adaptive_conformal_inference(np.abs(stream), np.abs(cal), alpha,
                                                      g, window=window).thresholds
                         for g in gammas])
    q[np.isposinf(q)], q[np.isneginf(q)] = M, -M   # only the infinite ones are replaced
    out, weights = np.empty((T, 2)), np.empty((T, K, 2))
    for j, (sign, tau) in enumerate(((-1.0, alpha / 2), (1.0, 1 - alpha / 2))):
        x = sign * q
        R, V, E = [0.0] * K, [0.0] * K, 0.0
        for t in range(T):
            E = max(E, max(tau, 1 - tau) * (max(x[t]) - min(x[t])))
            if E == 0 or 1 / (2 * E) == math.inf:
                w = [1.0 / K] * K
                eta = None
            else:
                eta = [min(1 / (2 * E), math.sqrt(math.log(K) / V[k]) if V[k] > 0 else math.inf)
                       for k in range(K)]
                u = [math.log(eta[k]) + eta[k] * R[k] for k in range(K)]
                top = max(u)
                w = [math.exp(v - top) for v in u]
                w = [v / sum(w) for v in w]
            b = sum(w[k] * x[t, k] for k in range(K))
            b = min(max(b, min(x[t])), max(x[t]))
            weights[t, :, j], out[t, j] = w, b
            if eta is not None:
                g = (1.0 if stream[t] < b else 0.0) - tau
                for k in range(K):
                    r = g * (b - x[t, k])
                    R[k] += r - eta[k] * r * r
                    V[k] += r * r
    return out, weights


@pytest.mark.parametrize("window", [None, 50])
def test_fast_path_equals_brute_force(window):
    e = _drifting(500, 3)
    gammas = [0.002, 0.01, 0.04, 0.09]
    res = aggregated_adaptive_conformal_inference(e[100:], e[:100], alpha=0.1, gammas=gammas,
                                                  window=window)
    ref, w = _reference(e[100:], e[:100], 0.1, gammas, window, res.bound_limit)
    np.testing.assert_allclose(res.bounds, ref, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(res.weights, w, rtol=1e-10, atol=1e-12)


def test_result_fields_and_running_coverage():
    e = _drifting(400, 4)
    res = aggregated_adaptive_conformal_inference(e[100:], e[:100], gammas=[0.01, 0.05],
                                                  symmetric=False)
    T = 300
    assert res.alphas.shape == (T + 1, 2) and res.expert_bounds.shape == (T, 2, 2)
    assert res.bounds.shape == (T, 2) and res.errors.dtype == bool
    cov = res.running_coverage()
    assert cov[-1] == pytest.approx(1 - res.miscoverage)
    expected = np.cumsum(~res.errors) / np.arange(1, T + 1)
    np.testing.assert_allclose(cov, expected, rtol=1e-12)
    # each expert moved by its own misses: alpha_{t+1} - alpha_t = gamma (alpha - err)
    steps = np.diff(res.alphas, axis=0)
    np.testing.assert_allclose(steps, res.gammas * (0.1 - res.expert_errors), atol=1e-12)
    assert "AgACIResult" in repr(res)
    with pytest.raises(AttributeError):
        res.alpha = 0.2


def test_default_grid_is_the_papers():
    e = _drifting(300, 6)
    res = aggregated_adaptive_conformal_inference(e[100:], e[:100])
    assert res.gammas.size == 29
    assert res.gammas.min() == 5e-6 and res.gammas.max() == 0.09 and np.all(res.gammas > 0)


# ------------------------------------------------------------------------ bad input
@pytest.mark.parametrize("gammas, exc", [([], ValueError), ([0.1, 0.0], ValueError),
                                         ([-0.01], ValueError), ([np.nan], ValueError),
                                         ([np.inf], ValueError), (0.01, ValueError),
                                         (["a"], TypeError)])
def test_bad_gammas(gammas, exc):
    e = _drifting(60, 7)
    with pytest.raises(exc, match="gammas"):
        aggregated_adaptive_conformal_inference(e[20:], e[:20], gammas=gammas)


def test_bad_streams_and_options():
    e = _drifting(60, 8)
    bad = e.copy()
    bad[30] = np.nan
    with pytest.raises(ValueError, match="residuals"):
        aggregated_adaptive_conformal_inference(bad[20:], e[:20])
    bad[30] = np.inf
    with pytest.raises(ValueError, match="residuals must be finite"):
        aggregated_adaptive_conformal_inference(bad[20:], e[:20])
    with pytest.raises(ValueError, match="calibration_residuals"):
        aggregated_adaptive_conformal_inference(e[20:], bad[20:])
    with pytest.raises(ValueError, match="calibration_residuals"):
        aggregated_adaptive_conformal_inference(e[20:], [])
    with pytest.raises(ValueError, match="bound_limit"):
        aggregated_adaptive_conformal_inference(e[20:], e[:20], bound_limit=0.0)
    with pytest.raises(ValueError, match="bound_limit"):
        aggregated_adaptive_conformal_inference(e[20:], e[:20], bound_limit=np.inf)
    with pytest.raises(ValueError, match="bound_limit"):
        aggregated_adaptive_conformal_inference(e[20:], np.zeros(5))
    with pytest.raises(ValueError, match="alpha"):
        aggregated_adaptive_conformal_inference(e[20:], e[:20], alpha=1.0)
    with pytest.raises(TypeError, match="symmetric"):
        aggregated_adaptive_conformal_inference(e[20:], e[:20], symmetric="yes")
    with pytest.raises(ValueError, match="window"):
        aggregated_adaptive_conformal_inference(e[20:], e[:20], window=0)


# ------------------------------------------------------------------------ estimator
def _series(n=500, seed=9):
    rng = np.random.default_rng(seed)
    t = np.arange(float(n))
    X = np.column_stack([np.sin(t / 10), np.cos(t / 10)])
    y = 2 * X[:, 0] + rng.normal(scale=0.3 + t / n, size=n)
    return X, y


@pytest.mark.parametrize("symmetric", [True, False])
def test_estimator_equals_the_function_on_its_residuals(symmetric):
    X, y = _series()
    kw = dict(n_resamplings=30, symmetric=symmetric, random_state=0)
    reg = TimeSeriesRegressor(method="agaci", gammas=[0.005, 0.02, 0.08], **kw).fit(X[:250],
                                                                                  y[:250])
    cal = reg.residuals_.copy()
    first = reg.predict_interval(X[250:251])
    iv = reg.predict_interval_online(X[250:], y[250:])
    np.testing.assert_allclose(first, iv[:1], rtol=1e-12)
    centre = reg.predict(X[250:])
    res = aggregated_adaptive_conformal_inference(y[250:] - centre, cal, alpha=0.1,
                                                  gammas=[0.005, 0.02, 0.08],
                                                  symmetric=symmetric, window=cal.size)
    np.testing.assert_allclose(iv - centre[:, None], res.bounds, rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(reg.expert_alphas_, res.alphas[-1], atol=1e-12)
    np.testing.assert_allclose(np.asarray(reg.weights_path_), res.weights, atol=1e-12)
    assert reg.bound_limit_ == pytest.approx(res.bound_limit)
    assert len(reg.errors_) == 250


def test_estimator_one_gamma_matches_aci_method_where_finite():
    X, y = _series(seed=10)
    kw = dict(n_resamplings=30, random_state=0)
    aci = TimeSeriesRegressor(method="aci", gamma=0.05, **kw).fit(X[:250], y[:250])
    ag = TimeSeriesRegressor(method="agaci", gammas=[0.05], **kw).fit(X[:250], y[:250])
    a = aci.predict_interval_online(X[250:], y[250:])
    b = ag.predict_interval_online(X[250:], y[250:])
    finite = np.isfinite(a).all(axis=1)
    assert 150 < finite.sum() < 250                  # both kinds of rows are compared
    np.testing.assert_allclose(b[finite], a[finite], rtol=1e-12)
    centre = ag.predict(X[250:])[~finite]
    whole = np.isneginf(a[~finite, 0])               # ACI's whole line becomes centre +- M
    M = ag.bound_limit_
    np.testing.assert_allclose(b[~finite][whole], np.column_stack([centre - M, centre + M])[whole],
                               rtol=1e-12)
    np.testing.assert_allclose(ag.expert_alphas_[0], aci.alpha_t_, atol=1e-12)


def test_estimator_update_in_pieces_equals_one_pass():
    X, y = _series(seed=11)
    kw = dict(method="agaci", gammas=[0.01, 0.05], n_resamplings=30, random_state=0)
    one = TimeSeriesRegressor(**kw).fit(X[:250], y[:250]).update(X[250:], y[250:])
    two = TimeSeriesRegressor(**kw).fit(X[:250], y[:250])
    two.update(X[250:300], y[250:300]).update(X[300:], y[300:])
    np.testing.assert_allclose(one.expert_alphas_, two.expert_alphas_, atol=1e-12)
    np.testing.assert_allclose(one.predict_interval(X[:5]), two.predict_interval(X[:5]),
                               rtol=1e-12)
    assert one.errors_ == two.errors_


def test_estimator_bad_gammas_and_batch_size():
    X, y = _series(n=120)
    for g in ([], [0.01, -1.0], [np.nan]):
        with pytest.raises(ValueError, match="gammas"):
            TimeSeriesRegressor(method="agaci", gammas=g, n_resamplings=30).fit(X, y)
    reg = TimeSeriesRegressor(method="agaci", gammas=[0.01], n_resamplings=30,
                              random_state=0).fit(X[:80], y[:80])
    with pytest.raises(ValueError, match="batch_size"):
        reg.predict_interval_online(X[80:], y[80:], batch_size=2)
    Xl = np.arange(40.0).reshape(-1, 1)
    with pytest.raises(ValueError, match="agaci"):      # y = 0 is fitted exactly: e_i = 0
        TimeSeriesRegressor(method="agaci", n_resamplings=30, random_state=0).fit(Xl, np.zeros(40))

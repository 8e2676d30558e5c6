"""Adaptive conformal inference: the update, its threshold rule and its deterministic bound.

Gibbs & Candes (2021), Proposition 4.1: for every sequence of data,
``|mean(err_1..T) - alpha| <= (max(alpha_1, 1 - alpha_1) + gamma) / (gamma T)``.
The bound is exact (no probability), so the tests below are exact properties
over adversarial inputs chosen by hypothesis; the only slack is a relative
``1e-9`` for the floating-point sum of ``T <= 400`` steps of size ``gamma``
(the telescoped identity ``alpha_{T+1} = alpha_1 + gamma sum(alpha - err_t)``
accumulates at most ``T`` roundings of order ``1e-16``).

Planted defects, each run once and seen to fail these tests at the default
hypothesis settings:

* update sign flipped (``alpha_t - gamma (alpha - err_t)``): the level runs
  away to the empty set, miscoverage goes to 1; the first failing example was
  found within a few examples;
* step halved (``alpha_t + gamma / 2 (alpha - err_t)``) against the bound for
  ``gamma``: fails on the adversary that is covered whenever it can be
  (deviation up to twice the bound): the score-stream test finds one, and
  the explicit examples of the adaptive-adversary test fail it (deviation
  0.045 against a bound of 0.025).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from statlearn.conformal import (
    ACIResult,
    TimeSeriesRegressor,
    aci_miscoverage_bound,
    aci_update,
    adaptive_conformal_inference,
)

SLACK = 1e-9  # relative, for the float sum of the update (see module docstring)

alphas = st.floats(0.02, 0.98)
gammas = st.floats(0.01, 1.0)
lengths = st.integers(50, 400)


def _bound(alpha, gamma, T, a1):
    return (max(a1, 1 - a1) + gamma) / (gamma * T)


@st.composite
def score_streams(draw):
    """Adversarial score streams: random, constant, trending, alternating, adaptive-looking."""
    T = draw(lengths)
    kind = draw(st.sampled_from(["random", "constant", "increasing", "decreasing",
                                 "alternating", "bursts"]))
    if kind == "random":
        s = draw(st.lists(st.floats(-1e6, 1e6), min_size=T, max_size=T))
    elif kind == "constant":
        s = [draw(st.floats(-10, 10))] * T
    elif kind == "increasing":
        s = list(np.linspace(0, draw(st.floats(1, 1e3)), T))
    elif kind == "decreasing":
        s = list(np.linspace(draw(st.floats(1, 1e3)), 0, T))
    elif kind == "alternating":
        s = [1e6 if t % 2 else -1e6 for t in range(T)]
    else:
        period = draw(st.integers(2, 40))
        s = [1e3 if (t // period) % 2 else 0.0 for t in range(T)]
    n_cal = draw(st.integers(1, 60))
    cal = draw(st.lists(st.floats(-1e3, 1e3), min_size=n_cal, max_size=n_cal))
    return np.array(s, dtype=float), np.array(cal, dtype=float)


@given(stream=score_streams(), alpha=alphas, gamma=gammas,
       window=st.one_of(st.none(), st.integers(1, 100)),
       a1=st.one_of(st.none(), st.floats(0, 1)))
@settings(max_examples=200, deadline=None)
def test_long_run_bound_holds_on_every_score_stream(stream, alpha, gamma, window, a1):
    s, cal = stream
    res = adaptive_conformal_inference(s, cal, alpha, gamma, window=window, alpha_init=a1)
    a1 = alpha if a1 is None else a1
    gap = abs(float(np.mean(res.errors)) - alpha)
    assert gap <= _bound(alpha, gamma, s.size, a1) * (1 + SLACK)
    # Lemma 4.1: the working level never leaves [-gamma, 1 + gamma]
    assert np.all(res.alphas >= -gamma * (1 + SLACK))
    assert np.all(res.alphas <= (1 + gamma) * (1 + SLACK))


@given(bits=st.lists(st.booleans(), min_size=50, max_size=400), alpha=alphas, gamma=gammas)
@example(bits=[False] * 400, alpha=0.1, gamma=0.1)  # covered whenever possible
@example(bits=[True] * 400, alpha=0.1, gamma=0.1)   # missed whenever possible
@settings(max_examples=200, deadline=None)
def test_long_run_bound_against_an_adaptive_adversary(bits, alpha, gamma):
    """The adversary decides every miss, except when the set is empty or the whole line."""
    a, errs = alpha, []
    for b in bits:
        if a >= 1:
            err = True       # empty set: a miss whatever y is
        elif a <= 0:
            err = False      # the whole line: covered whatever y is
        else:
            err = b
        errs.append(err)
        a = aci_update(a, err, alpha=alpha, gamma=gamma)
    gap = abs(np.mean(errs) - alpha)
    assert gap <= aci_miscoverage_bound(alpha, gamma, len(bits)) * (1 + SLACK)


@given(y_shift=st.lists(st.sampled_from([-50.0, 0.0, 50.0]), min_size=60, max_size=150),
       gamma=st.floats(0.02, 0.5))
@settings(max_examples=25, deadline=None)
def test_estimator_aci_bound_on_adversarial_responses(y_shift, gamma):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60 + len(y_shift), 2))
    y = X @ [1.0, -1.0] + 0.1 * rng.normal(size=X.shape[0])
    y[60:] += np.array(y_shift)
    reg = TimeSeriesRegressor(method="aci", gamma=gamma, n_resamplings=15, random_state=0)
    reg.fit(X[:60], y[:60]).update(X[60:], y[60:])
    T = len(y_shift)
    assert len(reg.errors_) == T and len(reg.alpha_path_) == T + 1
    gap = abs(np.mean(reg.errors_) - 0.1)
    assert gap <= _bound(0.1, gamma, T, 0.1) * (1 + SLACK)


def test_update_closed_form():
    assert aci_update(0.1, True, alpha=0.1, gamma=0.05) == pytest.approx(0.1 - 0.05 * 0.9,
                                                                         rel=1e-14)
    assert aci_update(0.1, 0, alpha=0.1, gamma=0.05) == pytest.approx(0.1 + 0.05 * 0.1,
                                                                      rel=1e-14)
    # no clipping: a miss at level 0 goes below 0
    assert aci_update(0.0, True, alpha=0.2, gamma=0.5) == pytest.approx(-0.4, rel=1e-14)
    out = aci_update(np.array([0.1, 0.2]), np.array([True, False]), alpha=0.1, gamma=0.1)
    np.testing.assert_allclose(out, [0.1 - 0.09, 0.2 + 0.01], rtol=1e-14)


def test_bound_closed_form():
    assert aci_miscoverage_bound(0.1, 0.01, 1000) == pytest.approx(0.91 / 10, rel=1e-14)
    assert aci_miscoverage_bound(0.1, 0.5, 10, alpha_init=0.3) == pytest.approx(
        (0.7 + 0.5) / 5, rel=1e-14)


def test_thresholds_are_the_window_order_statistics():
    rng = np.random.default_rng(3)
    cal = rng.normal(size=20)
    s = rng.normal(size=200) * np.linspace(1, 3, 200)
    res = adaptive_conformal_inference(s, cal, alpha=0.2, gamma=0.05, window=20)
    assert isinstance(res, ACIResult)
    hist = np.concatenate([cal, s])
    for t in range(s.size):
        win = np.sort(hist[t:t + 20])
        a = res.alphas[t]
        if a >= 1:
            expected = -np.inf
        elif a <= 0:
            expected = np.inf
        else:
            x = 21 * (1 - a)
            k = round(x) if abs(x - round(x)) <= 1e-9 * x else math.ceil(x)
            expected = np.inf if k > 20 else win[k - 1]
        assert res.thresholds[t] == expected
        assert res.errors[t] == (s[t] > expected)
        assert res.alphas[t + 1] == pytest.approx(a + 0.05 * (0.2 - res.errors[t]),
                                                  rel=1e-12, abs=1e-15)
    np.testing.assert_allclose(res.running_coverage()[-1], 1 - res.miscoverage, rtol=1e-12)


def test_level_outside_unit_interval_gives_full_and_empty_sets():
    cal = np.arange(10.0)
    # every score misses at first: the level falls below 0 and the set becomes the line
    res = adaptive_conformal_inference(np.full(40, 1e9), cal, alpha=0.1, gamma=0.3)
    assert res.alphas.min() < 0
    assert np.isposinf(res.thresholds[res.alphas[:-1] <= 0]).all()
    # every score is covered: the level climbs to 1 and the set becomes empty
    res = adaptive_conformal_inference(np.full(40, -1e9), cal, alpha=0.5, gamma=0.5)
    assert res.alphas.max() >= 1
    assert np.isneginf(res.thresholds[res.alphas[:-1] >= 1]).all()
    assert res.errors[res.alphas[:-1] >= 1].all()


@pytest.mark.parametrize("kwargs, name", [
    ({"alpha": 0.0}, "alpha"), ({"alpha": 1.5}, "alpha"), ({"gamma": 0.0}, "gamma"),
    ({"gamma": -0.1}, "gamma"), ({"window": 0}, "window"), ({"alpha_init": 1.2}, "alpha_init"),
])
def test_bad_parameters(kwargs, name):
    args = {"alpha": 0.1, "gamma": 0.01, **kwargs}
    with pytest.raises(ValueError, match=name):
        adaptive_conformal_inference([0.1, 0.2], [0.3], **args)


def test_bad_scores():
    with pytest.raises(ValueError, match="scores"):
        adaptive_conformal_inference([0.1, np.nan], [0.3])
    with pytest.raises(ValueError, match="calibration_scores"):
        adaptive_conformal_inference([0.1], [])
    with pytest.raises(TypeError, match="scores"):
        adaptive_conformal_inference(["a"], [0.3])
    with pytest.raises(ValueError, match="miscovered"):
        aci_update(0.1, 2, alpha=0.1, gamma=0.1)
    with pytest.raises(ValueError, match="alpha_t"):
        aci_update(np.nan, True, alpha=0.1, gamma=0.1)
    with pytest.raises(ValueError, match="gamma"):
        aci_update(0.1, True, alpha=0.1, gamma=0.0)
    with pytest.raises(ValueError, match="n_steps"):
        aci_miscoverage_bound(0.1, 0.1, 0)

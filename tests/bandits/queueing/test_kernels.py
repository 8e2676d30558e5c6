"""The Numba kernels against their NumPy references."""

import math
import re
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from sklearn.exceptions import ConvergenceWarning

from statlearn.bandits.queueing import (
    ContextualQueueEnv,
    CQBEpsilon,
    CQBOpt,
    GreedyMLEPolicy,
    LogisticUCBEstimator,
    OraclePolicy,
    QueueBlindUCBPolicy,
    RandomPolicy,
    run_policy,
)
from statlearn.bandits.queueing import _kernels as K
from statlearn.bandits.queueing._estimator import (
    confidence_radius_np,
    refit_warning_message,
    sigmoid_np,
)

pytestmark = pytest.mark.numba

finite = st.floats(-3, 3, allow_nan=False, allow_infinity=False)


@given(st.floats(-800, 800, allow_nan=False))
def test_sigmoid_matches_reference_and_is_stable(z):
    v = K.sigmoid(z)
    assert 0.0 <= v <= 1.0
    assert v == pytest.approx(float(sigmoid_np(z)), rel=1e-14, abs=1e-300)
    assert K.sigmoid(-z) == pytest.approx(1.0 - v, abs=1e-15)


@given(st.integers(0, 10_000), st.integers(1, 6), st.floats(0.1, 5), st.floats(0, 2))
def test_confidence_radius_matches_reference(n, d, lam, c_beta):
    got = K.confidence_radius(n, d, lam, c_beta, 10.0, math.sqrt(d), math.log(1000))
    want = confidence_radius_np(n, d, lam, c_beta, 10.0, math.sqrt(d), math.log(1000))
    assert got == pytest.approx(want, rel=1e-13)
    # the radius grows with the sample size
    assert K.confidence_radius(n + 100, d, lam, c_beta, 10.0, 1.0, 3.0) >= K.confidence_radius(
        n, d, lam, c_beta, 10.0, 1.0, 3.0)


@given(arrays(np.float64, (6, 3), elements=finite), st.floats(0.01, 1.0))
def test_sherman_morrison_equals_direct_inverse(X, w):
    V = np.eye(3) * 0.7
    vinv = np.linalg.inv(V)
    for x in X:
        K.sherman_morrison(vinv, x, w)
        V += w * np.outer(x, x)
    np.testing.assert_allclose(vinv, np.linalg.inv(V), rtol=1e-8, atol=1e-10)


def _stream(seed, n, d, theta):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, size=(n, d))
    y = (rng.random(n) < 1 / (1 + np.exp(-X @ theta))).astype(float)
    return X, y


@pytest.mark.parametrize("growth", [0.0, 0.1, 0.5])
def test_estimator_update_kernel_equals_numpy_estimator(growth):
    d, n = 3, 400
    theta_true = np.array([1.0, -2.0, 0.5])
    X, y = _stream(0, n, d, theta_true)
    ref = LogisticUCBEstimator(refit_growth=growth).initialize(2, d)
    theta = np.zeros((2, d))
    vinv = np.repeat(np.eye(d)[None], 2, axis=0)
    hinv = vinv.copy()
    n_obs = np.zeros(2, dtype=np.int64)
    n_refit = np.zeros(2, dtype=np.int64)
    Xs, ys = np.zeros((2, n, d)), np.zeros((2, n))
    for i in range(n):
        k = i % 2
        ref.update(X[i], k, y[i])
        K.estimator_update(k, X[i], y[i], theta, vinv, hinv, n_obs, n_refit, Xs, ys,
                           1.0, growth, 20, 1e-8)
        np.testing.assert_allclose(theta, ref.theta_, rtol=1e-9, atol=1e-11)
    np.testing.assert_allclose(vinv, ref.vinv_, rtol=1e-9, atol=1e-12)
    np.testing.assert_array_equal(n_obs, ref.n_obs_)


def test_newton_refit_reaches_the_regularised_mle():
    d, n = 3, 500
    X, y = _stream(1, n, d, np.array([2.0, -1.0, 0.0]))
    theta = np.zeros(d)
    hinv = np.eye(d)
    it, step = K.newton_refit(X, y, n, theta, hinv, 1.0, 20, 1e-10)
    assert it < 20 and step < 1e-10
    mu = 1 / (1 + np.exp(-X @ theta))
    grad = X.T @ (mu - y) + theta
    assert np.max(np.abs(grad)) < 1e-8
    # compare with scikit-learn's penalised MLE (C = 1 / lambda, no intercept)
    from sklearn.linear_model import LogisticRegression

    sk = LogisticRegression(C=1.0, fit_intercept=False, tol=1e-12, max_iter=1000).fit(X, y)
    np.testing.assert_allclose(theta, sk.coef_[0], atol=1e-5)


def test_estimator_update_reports_refits_that_stop_short_like_the_reference():
    """max_iter=1 and a refit at every observation: each refit stops short. The kernel
    returns the last step of every such refit, the reference warns with the same step
    and counts them; with the default max_iter neither reports anything."""
    d, n = 2, 12
    X, y = _stream(3, n, d, np.array([1.0, -1.0]))
    for max_iter, short in ((1, True), (20, False)):
        ref = LogisticUCBEstimator(refit_growth=0.0, max_iter=max_iter).initialize(1, d)
        theta, vinv = np.zeros((1, d)), np.eye(d)[None].copy()
        hinv, n_obs, n_refit = vinv.copy(), np.zeros(1, np.int64), np.zeros(1, np.int64)
        Xs, ys = np.zeros((1, n, d)), np.zeros((1, n))
        steps = []
        for i in range(n):
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                ref.update(X[i], 0, y[i])
            steps.append(K.estimator_update(0, X[i], y[i], theta, vinv, hinv, n_obs, n_refit,
                                            Xs, ys, 1.0, 0.0, max_iter, 1e-8))
            msgs = [str(w.message) for w in caught if w.category is ConvergenceWarning]
            if short:
                assert steps[-1] >= 1e-8
                # the Python estimator's warning, with its own last step printed to 3
                # digits: within half a unit of the third digit (5e-3) of the kernel's step
                # (the two compute exp with different libraries: last bits only)
                assert len(msgs) == 1
                printed = float(re.search(r"last step of (\S+) >=", msgs[0]).group(1))
                assert printed == pytest.approx(steps[-1], rel=5.01e-3)
                assert msgs == [refit_warning_message(0, 1, printed, 1e-8)]
            else:
                assert steps[-1] == 0.0 and msgs == []
        assert ref.n_unconverged_[0] == (n if short else 0)


def _small_instance(data):
    K_ = data.draw(st.integers(1, 3), label="K")
    d = data.draw(st.integers(1, 3), label="d")
    # thetas on a grid of eighths: rows are then equal or far apart, never an ulp apart,
    # where the two engines' exp (different libraries) could break a near-tie differently
    thetas = data.draw(arrays(np.float64, (K_, d), elements=st.integers(-16, 16).map(
        lambda v: v / 8)), label="thetas")
    lam = data.draw(st.floats(0.05, 0.95), label="arrival_rate")
    T = data.draw(st.integers(1, 120), label="T")
    seed = data.draw(st.integers(0, 2**16), label="seed")
    return ContextualQueueEnv(thetas, lam), T, seed


POLICIES = [
    lambda env: OraclePolicy(env.thetas),
    lambda env: RandomPolicy(),
    lambda env: CQBEpsilon(tau=10),
    lambda env: CQBEpsilon(tau=5, explore_rate=0.3, exploit="greedy"),
    lambda env: CQBOpt(c_beta=0.1),
    lambda env: CQBOpt(refit_growth=0.0, c_beta=0.01),
    lambda env: GreedyMLEPolicy(),
    lambda env: QueueBlindUCBPolicy(),
]


@pytest.mark.filterwarnings("ignore:CQBEpsilon")
@settings(max_examples=25, deadline=None)
@given(data=st.data(), which=st.integers(0, len(POLICIES) - 1))
def test_queue_kernel_equals_python_step_loop(data, which):
    env, T, seed = _small_instance(data)
    policy = POLICIES[which](env)
    rand = env.sample_randomness(T, random_state=seed)
    fast = run_policy(policy, env, randomness=rand, random_state=seed + 1)
    slow = run_policy(policy, env, randomness=rand, random_state=seed + 1, engine="python")
    np.testing.assert_array_equal(fast.queue_length, slow.queue_length)
    np.testing.assert_array_equal(fast.jobs, slow.jobs)
    np.testing.assert_array_equal(fast.servers, slow.servers)
    np.testing.assert_array_equal(fast.departed, slow.departed)
    assert fast.n_explore == slow.n_explore
    if fast.theta is not None:
        np.testing.assert_allclose(fast.theta, slow.theta, rtol=1e-8, atol=1e-10)
        np.testing.assert_array_equal(fast.n_obs, slow.n_obs)


def test_queue_kernel_equals_python_loop_on_paper_instance():
    from statlearn.bandits.queueing import make_queueing_instance

    env = make_queueing_instance(random_state=3)
    rand = env.sample_randomness(600, random_state=4)
    for policy in (CQBEpsilon(tau=100), CQBOpt(), QueueBlindUCBPolicy()):
        a = run_policy(policy, env, randomness=rand, random_state=5)
        b = run_policy(policy, env, randomness=rand, random_state=5, engine="python")
        np.testing.assert_array_equal(a.queue_length, b.queue_length)
        np.testing.assert_array_equal(a.servers, b.servers)

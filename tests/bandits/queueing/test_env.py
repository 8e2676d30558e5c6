"""ContextualQueueEnv: contexts, slack rejection, randomness, stepping and bad input."""

import warnings

import numpy as np
import pytest
from scipy import stats
from sklearn.base import clone

from statlearn.bandits.queueing import (
    ContextualQueueEnv,
    QueueRandomness,
    UnstableQueueWarning,
    make_queueing_instance,
)
from statlearn.testing import assert_binomial_rate

THETAS = np.array([[2.0, 0.0], [0.0, 2.0]])


def test_arrivals_are_bernoulli_with_the_arrival_rate():
    env = ContextualQueueEnv(THETAS, arrival_rate=0.3)
    r = env.sample_randomness(20_000, random_state=0)
    # false-alarm rate 1e-6 (exact binomial region)
    assert_binomial_rate(int(r.arrivals.sum()), 20_000, 0.3, label="arrival rate")
    assert r.service_u.min() >= 0 and r.service_u.max() < 1
    # features only where a job arrives
    assert np.all(r.features[~r.arrivals] == 0)
    assert np.all(np.abs(r.features[r.arrivals]) <= 1)


def test_service_uniforms_are_uniform():
    r = ContextualQueueEnv(THETAS, 0.5).sample_randomness(5000, random_state=1)
    # Kolmogorov-Smirnov at level 1e-6
    assert stats.kstest(r.service_u, "uniform").pvalue > 1e-6


def test_rejection_sampling_enforces_slack_and_reports_acceptance():
    env = ContextualQueueEnv(THETAS, arrival_rate=0.6, slack=0.15)
    X, acc = env.sample_contexts(3000, random_state=0)
    assert X.shape == (3000, 2)
    best = env.service_rates(X).max(axis=1)
    assert best.min() >= 0.75
    # acceptance: P(max(2 x1, 2 x2) >= logit(0.75)) for x uniform on the square
    c = np.log(3) / 2
    p = 1 - ((c + 1) / 2) ** 2
    assert acc == pytest.approx(p, abs=0.03)


def test_rejection_sampling_matches_sequential_law():
    # accepted draws are the base law conditioned on the slack event
    env = ContextualQueueEnv(np.array([[3.0]]), arrival_rate=0.5, slack=0.2)
    X, _ = env.sample_contexts(5000, random_state=2)
    lo = np.log(0.7 / 0.3) / 3
    assert X.min() >= lo
    assert stats.kstest(X[:, 0], stats.uniform(lo, 1 - lo).cdf).pvalue > 1e-6


def test_slack_that_cannot_be_met_raises_clear_error():
    env = ContextualQueueEnv(np.zeros((2, 3)), arrival_rate=0.45, slack=0.1)
    with pytest.raises(ValueError, match="slack assumption cannot be met"):
        env.sample_randomness(50, random_state=0)
    # a sampler that only rarely meets it fails after max_attempts too
    env = ContextualQueueEnv(np.array([[1.0]]), 0.5, slack=0.2, max_attempts=5,
                             context_sampler=lambda rng, n: rng.uniform(-1, 0.9, (n, 1)))
    with pytest.raises(ValueError, match="in 5 consecutive draws"):
        env.sample_contexts(100, random_state=0)


def test_context_sequence_is_used_row_by_row_and_checked_for_slack():
    seq = np.arange(20, dtype=float).reshape(10, 2) / 20
    env = ContextualQueueEnv(THETAS, 0.5, context_sequence=seq)
    r = env.sample_randomness(10, random_state=0)
    np.testing.assert_array_equal(r.features[r.arrivals], seq[r.arrivals])
    with pytest.raises(ValueError, match="one row per round"):
        env.sample_randomness(11, random_state=0)
    with pytest.raises(ValueError, match="row 0 has best service rate"):
        ContextualQueueEnv(THETAS, 0.5, context_sequence=seq, slack=0.2).sample_randomness(5)


def test_step_follows_the_rules_and_ordering():
    env = ContextualQueueEnv(THETAS, 1.0, random_state=0).reset(horizon=30)
    assert env.queue_length == 0 and env.t == 1
    dep, arr = env.step(None)  # arrival at the end of round 1
    assert not dep and arr is not None and env.queue_length == 1
    lengths = [env.queue_length]
    for _ in range(29):
        q_before = env.queue_length
        dep, arr = env.step((q_before - 1, 0))
        assert env.queue_length == q_before - int(dep) + 1
        lengths.append(env.queue_length)
    with pytest.raises(RuntimeError, match="run is over"):
        env.step((0, 0))
    # queue features are oldest first and copies
    qf = env.queue_features
    qf[:] = 99
    assert not np.any(env.queue_features == 99)


def test_step_decision_uses_shared_uniform():
    # a job served with rate mu departs exactly when U_t <= mu
    env = ContextualQueueEnv(np.array([[0.0]]), 1.0)
    rand = env.sample_randomness(200, random_state=3)
    env.reset(randomness=rand)
    env.step(None)
    for t in range(2, 201):
        dep, _ = env.step((0, 0))
        assert dep == (rand.service_u[t - 1] <= 0.5)


def test_bad_actions_are_rejected():
    env = ContextualQueueEnv(THETAS, 1.0, random_state=0).reset(horizon=5)
    with pytest.raises(ValueError, match="queue is empty"):
        env.step((0, 0))
    env.step(None)
    with pytest.raises(ValueError, match="job_idx must be in"):
        env.step((3, 0))
    with pytest.raises(ValueError, match="server must be in"):
        env.step((0, 2))
    with pytest.raises(TypeError, match="pair"):
        env.step(0)
    with pytest.raises(RuntimeError, match="reset"):
        ContextualQueueEnv(THETAS, 0.5).step(None)


@pytest.mark.parametrize(
    "kwargs, exc, match",
    [
        ({"thetas": [[np.nan, 1.0]], "arrival_rate": 0.5}, ValueError, "thetas"),
        ({"thetas": [1.0, 2.0], "arrival_rate": 0.5}, ValueError, "thetas"),
        ({"thetas": THETAS, "arrival_rate": 1.5}, ValueError, "arrival_rate must be in"),
        ({"thetas": THETAS, "arrival_rate": "0.5"}, TypeError, "arrival_rate"),
        ({"thetas": THETAS, "arrival_rate": 0.5, "slack": 0.0}, ValueError, "slack"),
        ({"thetas": THETAS, "arrival_rate": 0.8, "slack": 0.3}, ValueError, "below 1"),
        ({"thetas": THETAS, "arrival_rate": 0.5, "max_attempts": 0}, ValueError,
         "max_attempts"),
        ({"thetas": THETAS, "arrival_rate": 0.5, "context_sampler": 3}, TypeError,
         "callable"),
        ({"thetas": THETAS, "arrival_rate": 0.5, "context_sampler": lambda r, n: 0,
          "context_sequence": np.zeros((3, 2))}, ValueError, "not both"),
        ({"thetas": THETAS, "arrival_rate": 0.5, "context_sequence": np.zeros((3, 3))},
         ValueError, "columns"),
    ],
)
def test_bad_constructor_arguments_fail_on_use(kwargs, exc, match):
    env = ContextualQueueEnv(**kwargs)  # __init__ only stores
    with pytest.raises(exc, match=match):
        env.sample_randomness(10, random_state=0)


def test_bad_sampler_output_and_horizon():
    env = ContextualQueueEnv(THETAS, 0.9, context_sampler=lambda rng, n: np.zeros((n, 3)))
    with pytest.raises(ValueError, match="must return an array of shape"):
        env.sample_randomness(10, random_state=0)
    env = ContextualQueueEnv(THETAS, 0.9, context_sampler=lambda rng, n: np.full((n, 2), np.nan))
    with pytest.raises(ValueError, match="NaN"):
        env.sample_randomness(10, random_state=0)
    env = ContextualQueueEnv(THETAS, 0.5)
    for bad in (0, 2.5, None):
        with pytest.raises((ValueError, TypeError), match="horizon"):
            env.sample_randomness(bad)
    with pytest.raises(ValueError, match="horizon or a QueueRandomness"):
        env.reset()
    with pytest.raises(TypeError, match="QueueRandomness"):
        env.reset(randomness=np.zeros(3))
    with pytest.raises(ValueError, match="columns"):
        env.service_rates(np.zeros((2, 5)))


def test_unstable_instance_warns():
    env = ContextualQueueEnv(np.full((2, 2), 0.1), arrival_rate=0.9)
    with pytest.warns(UnstableQueueWarning, match="unstable"):
        top = env.check_stability()
    assert top < 0.6
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ContextualQueueEnv(THETAS, 0.5).check_stability()


def test_context_min_eigenvalue_uniform_box_and_rejection():
    env = ContextualQueueEnv(np.zeros((1, 3)), 0.3)
    assert env.context_min_eigenvalue(60_000) == pytest.approx(1 / 3, abs=0.01)
    env = make_queueing_instance(random_state=0)
    s = env.context_min_eigenvalue(20_000)
    assert 0 < s < 1 / 3 + 0.02


def test_randomness_is_reproducible_and_params_clone():
    env = make_queueing_instance(random_state=5)
    a = env.sample_randomness(300, random_state=7)
    b = env.sample_randomness(300, random_state=7)
    assert isinstance(a, QueueRandomness) and a.horizon == 300
    np.testing.assert_array_equal(a.features, b.features)
    np.testing.assert_array_equal(a.service_u, b.service_u)
    env2 = clone(env)
    assert env2 is not env and np.array_equal(env2.thetas, env.thetas)
    assert env2.get_params()["slack"] == 0.1
    with pytest.raises(ValueError, match="invalid parameter 'foo'"):
        env2.set_params(foo=1)
    assert "ContextualQueueEnv(thetas=" in repr(env)


def test_make_queueing_instance_bad_input():
    with pytest.raises(ValueError, match="n_servers"):
        make_queueing_instance(n_servers=0)
    with pytest.raises(ValueError, match="min_acceptance"):
        make_queueing_instance(min_acceptance=2)
    with pytest.raises(ValueError, match="no parameter draw"):
        make_queueing_instance(arrival_rate=0.97, slack=0.02, max_tries=2, random_state=0)

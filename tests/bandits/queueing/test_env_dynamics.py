"""The queueing environment's dynamics against hand-computed rounds.

Each round's outcome is recomputed here from the pre-drawn randomness and the
model's definition (departure iff ``U_t <= mu(x^T theta_k)``, FIFO queue, an
arriving job joins at the back), the rejection step's consecutive-draw cap is
checked on a deterministic context stream, and the documented error messages
are matched by their type, the argument they name and the value (a parameter's
message from the constraint check starts with the class name; numbers computed
at run time are compared as numbers, not as printed text).
"""

from __future__ import annotations

import math
import re
import warnings

import numpy as np
import pytest

from statlearn.bandits.queueing import (
    ContextualQueueEnv,
    QueueRandomness,
    UnstableQueueWarning,
    make_queueing_instance,
)
from tests.helpers import raises


def _mu(z):
    return 1.0 / (1.0 + math.exp(-z))


THETAS = np.array([[1.5, -0.5], [-1.0, 2.0], [0.3, 0.3]])
# the whole sentence of the rejection cap, numbers left out (shown by each test)
_SLACK_UNMET = (r"^the slack assumption cannot be met: no context with max_k mu\(x\^T theta_k\) "
                r">= arrival_rate \+ slack = .* consecutive draws \(.* candidates accepted so "
                r"far\)\. Lower arrival_rate or slack, or change the context law / thetas\.$")
# the whole sentence when no parameter draw meets the acceptance rate
_NO_DRAW = r"^no parameter draw in .*; lower arrival_rate or slack\.$"


def _randomness(T, seed):
    rng = np.random.default_rng(seed)
    arrivals = rng.random(T) < 0.6
    features = np.where(arrivals[:, None], rng.uniform(-1, 1, (T, 2)), 0.0)
    return QueueRandomness(arrivals=arrivals, features=features, service_u=rng.random(T))


def test_rounds_follow_the_model_against_a_hand_simulation():
    T = 300
    rand = _randomness(T, 0)
    env = ContextualQueueEnv(THETAS, arrival_rate=0.6).reset(randomness=rand)
    queue = []  # hand-kept FIFO list of feature rows
    rng = np.random.default_rng(1)
    for t in range(1, T + 1):
        assert env.t == t and env.queue_length == len(queue)
        np.testing.assert_array_equal(env.queue_features, np.array(queue).reshape(-1, 2))
        if queue:
            job = int(rng.integers(len(queue)))
            k = int(rng.integers(3))
            action = (job, k) if rng.random() < 0.5 else [job, k]
            expect_dep = bool(rand.service_u[t - 1] <= _mu(float(queue[job] @ THETAS[k])))
        else:
            action, expect_dep = None, False
        departed, arrived = env.step(action)
        assert departed is expect_dep
        if expect_dep:
            del queue[job]
        if rand.arrivals[t - 1]:
            np.testing.assert_array_equal(arrived, rand.features[t - 1])
            queue.append(rand.features[t - 1].copy())
        else:
            assert arrived is None
    assert env.t == T + 1
    raises(lambda: env.step(None), RuntimeError, shows="all 300 rounds were played.",
           match=r"^the run is over: ")


def test_queue_grows_past_its_initial_buffer_in_arrival_order():
    T = 70
    rng = np.random.default_rng(3)
    feats = rng.uniform(-1, 1, (T, 2))
    rand = QueueRandomness(arrivals=np.ones(T, bool), features=feats, service_u=np.ones(T))
    env = ContextualQueueEnv(THETAS, 0.9).reset(randomness=rand)
    for _ in range(T):
        env.step(None)
    np.testing.assert_array_equal(env.queue_features, feats)
    # the returned features are a copy: editing them leaves the queue alone
    env.queue_features[:] = 7.0
    np.testing.assert_array_equal(env.queue_features, feats)


def test_departure_at_the_exact_service_probability():
    # U_t equal to mu departs (<=), just above does not. mu is the documented rate as the
    # environment computes it (its last bit depends on the CPU's exp); the formula is
    # pinned by hand to a few ulps
    x = np.array([[0.4, -0.2]])
    mu = float(ContextualQueueEnv(THETAS, 0.5).service_rates(x)[0, 0])
    assert mu == pytest.approx(_mu(0.4 * 1.5 + 0.2 * 0.5), rel=1e-14)
    for u, dep in ((mu, True), (np.nextafter(mu, 1.0), False), (0.0, True)):
        rand = QueueRandomness(arrivals=np.array([True, False]),
                               features=np.vstack([x, [[0.0, 0.0]]]),
                               service_u=np.array([0.5, u]))
        env = ContextualQueueEnv(THETAS, 0.5).reset(randomness=rand)
        env.step(None)
        departed, _ = env.step((0, 0))
        assert departed is dep
        assert env.queue_length == (0 if dep else 1)


def test_last_job_and_last_server_are_valid_actions():
    rand = QueueRandomness(arrivals=np.array([True, True, False]),
                           features=np.array([[0.1, 0.2], [0.3, 0.4], [0.0, 0.0]]),
                           service_u=np.array([0.0, 1.0, 0.0]))
    env = ContextualQueueEnv(THETAS, 0.5).reset(randomness=rand)
    env.step(None)
    env.step((0, 2))  # U = 1: stays
    departed, _ = env.step((1, 2))  # U = 0: the second job leaves, the first stays
    assert departed
    np.testing.assert_array_equal(env.queue_features, [[0.1, 0.2]])


def test_step_messages():
    rand = QueueRandomness(arrivals=np.array([True, False, False]),
                           features=np.array([[0.1, 0.2], [0.0, 0.0], [0.0, 0.0]]),
                           service_u=np.ones(3))
    env = ContextualQueueEnv(THETAS, 0.5).reset(randomness=rand)
    raises(lambda: env.step((0, 0)), ValueError, names="action",
           match=r"must be None when the queue is empty\.$")
    env.step(None)
    raises(lambda: env.step((1, 0)), ValueError, names="job_idx", shows="[0, 0]")
    raises(lambda: env.step((0, 3)), ValueError, names="server", shows="[0, 2]")
    raises(lambda: env.step((0, 0, 0)), TypeError, names=["action", "job_idx", "server"],
           shows="got (0, 0, 0).", match=r"must be a \(job_idx, server\) pair or None, ")
    raises(lambda: env.step(0), TypeError, names="action", shows="got 0.",
           match=r"must be a \(job_idx, server\) pair or None, ")
    raises(lambda: ContextualQueueEnv(THETAS, 0.5).queue_length, RuntimeError, names="reset",
           match=r"^call reset\(\) before stepping the environment\.$")


def test_service_rates_and_dimensions():
    env = ContextualQueueEnv(THETAS, 0.4)
    assert env.n_servers == 3 and env.n_features == 2
    X = np.array([[0.5, -1.0], [2.0, 0.25]])
    expected = [[_mu(float(x @ th)) for th in THETAS] for x in X]
    np.testing.assert_allclose(env.service_rates(X), expected, rtol=1e-14)
    raises(lambda: env.service_rates(np.zeros((1, 3))), ValueError, names="X",
           shows=["2 columns", "got 3."])


def _pattern_sampler(period):
    """Deterministic contexts: only every ``period``-th draw is acceptable."""
    state = {"i": 0}

    def sampler(rng, n):
        i = state["i"] + np.arange(n)
        state["i"] += n
        return np.where((i % period == period - 1)[:, None], 5.0, -5.0)

    return sampler


@pytest.mark.parametrize("period", [3, 300, 700])
def test_rejection_cap_counts_consecutive_draws_across_batches(period):
    # each context needs `period` draws (period - 1 rejections, then an accept); the
    # cap allows a context at most max_attempts draws, in batches of >= 256
    thetas = np.array([[1.0]])
    ok = ContextualQueueEnv(thetas, 0.5, slack=0.2, max_attempts=period,
                            context_sampler=_pattern_sampler(period))
    X, acc = ok.sample_contexts(3, random_state=0)
    np.testing.assert_array_equal(X, np.full((3, 1), 5.0))
    assert 0 < acc <= 1 / period + 1e-12 or period == 3
    tight = ContextualQueueEnv(thetas, 0.5, slack=0.2, max_attempts=period - 1,
                               context_sampler=_pattern_sampler(period))
    raises(lambda: tight.sample_contexts(3, random_state=0), ValueError, names="slack",
           shows=f"in {period - 1} consecutive draws",
           match=r"^the slack assumption cannot be met: ")


def test_acceptance_rate_matches_the_uniform_law():
    # contexts uniform on [-1, 1], theta = 2: accepted iff 2 x >= logit(level)
    env = ContextualQueueEnv(np.array([[2.0]]), arrival_rate=0.5, slack=0.2)
    X, acc = env.sample_contexts(20_000, random_state=4)
    c = math.log(0.7 / 0.3) / 2
    p = (1 - c) / 2
    assert X.min() >= c
    # acceptance counted over at least 20000 / p draws: sd < sqrt(p (1 - p) p / 20000)
    assert abs(acc - p) < 5 * math.sqrt(p * (1 - p) * p / 20_000) + 256 / (20_000 / p)
    # no slack: no rejection
    X0, acc0 = ContextualQueueEnv(np.array([[2.0]]), 0.5).sample_contexts(10, random_state=0)
    assert acc0 == 1.0 and X0.shape == (10, 1)
    assert ContextualQueueEnv(np.array([[2.0]]), 0.5, slack=0.2).sample_contexts(0)[0].shape \
        == (0, 1)


def test_randomness_from_a_context_sequence():
    seq = np.arange(20.0).reshape(10, 2) / 20
    env = ContextualQueueEnv(np.zeros((2, 2)), 0.5, context_sequence=seq)
    r = env.sample_randomness(8, random_state=2)
    assert r.horizon == 8 and r.acceptance_rate == 1.0
    np.testing.assert_array_equal(r.features[r.arrivals], seq[:8][r.arrivals])
    assert np.all(r.features[~r.arrivals] == 0)
    raises(lambda: env.sample_randomness(11), ValueError, names=["context_sequence", "horizon"],
           shows=["10 rows", "horizon = 11 rounds"], match=r" rounds need one row per round\.$")
    raises(lambda: env.sample_contexts(3), ValueError, names="sample_contexts",
           match=r"needs a stochastic context law, not a sequence\.$")


def test_stability_check_against_the_best_rate_of_the_sequence():
    seq = np.array([[0.5, 0.0], [1.0, 1.0], [-1.0, 0.2]])
    # the edge case must be the best rate as the environment computes it (last bit: the
    # CPU's exp); the formula is pinned by hand to a few ulps
    best = float(ContextualQueueEnv(THETAS, 0.0, context_sequence=seq).service_rates(seq).max())
    assert best == pytest.approx(max(max(_mu(float(x @ th)) for th in THETAS) for x in seq),
                                 rel=1e-14)
    stable = ContextualQueueEnv(THETAS, best - 1e-9, context_sequence=seq)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert stable.check_stability() == pytest.approx(best, rel=1e-14)
    edge = ContextualQueueEnv(THETAS, best, context_sequence=seq)
    with pytest.warns(UnstableQueueWarning, match="not below the best service rate"):
        assert edge.check_stability() == pytest.approx(best, rel=1e-14)


def test_min_eigenvalue_of_a_sequence_is_exact():
    seq = np.array([[1.0, 0.0], [0.0, 2.0], [1.0, 1.0]])
    expected = float(np.linalg.eigvalsh(seq.T @ seq / 3)[0])
    env = ContextualQueueEnv(np.zeros((1, 2)), 0.3, context_sequence=seq)
    assert env.context_min_eigenvalue() == pytest.approx(expected, rel=1e-14)
    raises(lambda: env.context_min_eigenvalue(1), ValueError, names="n_samples", shows="[2, inf]")


def test_slack_sequence_message_names_the_first_bad_row():
    seq = np.array([[3.0, 3.0], [0.0, 0.0], [-3.0, -3.0]])
    env = ContextualQueueEnv(np.array([[1.0, 1.0]]), 0.5, slack=0.2, context_sequence=seq)
    pattern = (r"context_sequence violates the slack assumption: row 1 has best service rate "
               r"(\S+) < arrival_rate \+ slack = (\S+)\.$")
    exc = raises(lambda: env.sample_randomness(3), ValueError,
                 names=["context_sequence", "arrival_rate", "slack"], shows="row 1", match=pattern)
    m = re.search(pattern, str(exc))
    assert float(m.group(1)) == pytest.approx(0.5, abs=1e-4)  # mu(0), printed to 4 digits
    assert float(m.group(2)) == pytest.approx(0.7, abs=1e-4)


def test_validation_boundaries():
    # arrival rates 0 and 1 are valid without slack; slack must keep lambda + eps < 1
    for lam in (0.0, 1.0):
        ContextualQueueEnv(THETAS, lam).sample_randomness(3, random_state=0)
    raises(lambda: ContextualQueueEnv(THETAS, 0.6, slack=0.4).sample_randomness(3), ValueError,
           names=["arrival_rate", "slack"], shows="got 0.6 + 0.4 = 1.0.", match=r"must be below 1 ")
    raises(lambda: ContextualQueueEnv(THETAS, 0.6, slack=1.0).sample_randomness(3), ValueError,
           names="slack", shows="(0, 1)")
    ContextualQueueEnv(THETAS, 0.5, max_attempts=1).sample_randomness(3, random_state=0)
    env = ContextualQueueEnv(THETAS, 0.5).reset(horizon=1)
    assert env.t == 1 and env.queue_length == 0
    raises(lambda: ContextualQueueEnv(THETAS, 0.5).reset(
        randomness=_randomness(5, 0).__class__(np.ones(2, bool), np.zeros((2, 3)), np.ones(2))),
        ValueError, names="randomness", match=r"was drawn for another feature dimension\.$")


def test_make_queueing_instance_draws_an_acceptable_instance():
    env = make_queueing_instance(n_servers=3, n_features=4, arrival_rate=0.6, slack=0.1,
                                 min_acceptance=0.05, random_state=0)
    assert env.thetas.shape == (3, 4)
    assert np.all(np.abs(env.thetas) <= 1)
    probe = np.random.default_rng(9).uniform(-1, 1, (20_000, 4))
    acc = np.mean(env.service_rates(probe).max(axis=1) >= 0.7)
    assert acc >= 0.05 - 5 * math.sqrt(0.05 * 0.95 / 20_000) - 0.02
    one = make_queueing_instance(n_servers=1, n_features=1, max_tries=1, min_acceptance=0.0,
                                 random_state=1)
    assert one.thetas.shape == (1, 1)
    raises(lambda: make_queueing_instance(arrival_rate=0.85, slack=0.1, min_acceptance=1.0,
                                          max_tries=2, random_state=0),
           ValueError, names=["arrival_rate", "slack"], shows=["in 2 tries", ">= 1.0;"],
           match=_NO_DRAW)
    raises(lambda: make_queueing_instance(max_tries=0), ValueError, names="max_tries",
           shows="[1, inf]")
    raises(lambda: make_queueing_instance(n_features=0), ValueError, names="n_features",
           shows="[1, inf]")


def test_seeds_make_every_draw_reproducible():
    env = ContextualQueueEnv(THETAS, 0.5, slack=0.1, random_state=3)
    a = env.reset(horizon=40)._rand
    b = env.reset(horizon=40)._rand
    np.testing.assert_array_equal(a.arrivals, b.arrivals)
    np.testing.assert_array_equal(a.features, b.features)
    np.testing.assert_array_equal(a.service_u, b.service_u)
    assert env.get_params()["random_state"] == 3
    X1, _ = env.sample_contexts(20, random_state=4)
    X2, _ = env.sample_contexts(20, random_state=4)
    np.testing.assert_array_equal(X1, X2)
    assert env.check_stability(n_samples=1, random_state=2) == env.check_stability(
        n_samples=1, random_state=2)
    assert env.context_min_eigenvalue(50, random_state=6) == env.context_min_eigenvalue(
        50, random_state=6)
    e1 = make_queueing_instance(n_servers=2, n_features=3, random_state=8)
    e2 = make_queueing_instance(n_servers=2, n_features=3, random_state=8)
    np.testing.assert_array_equal(e1.thetas, e2.thetas)
    # the paper's parameters: uniform on [-1, 1], so both signs occur among 5 x 5 draws
    assert e1.thetas.min() < 0 < e1.thetas.max()
    big = make_queueing_instance(random_state=0)
    assert big.thetas.min() < -0.5 and big.thetas.max() > 0.5


def test_instance_acceptance_is_measured_at_the_slack_level():
    # without slack the level is the arrival rate itself
    env = make_queueing_instance(n_servers=1, n_features=1, arrival_rate=0.5, slack=None,
                                 min_acceptance=0.3, random_state=0)
    assert env.slack is None
    probe = np.random.default_rng(1).uniform(-1, 1, (20_000, 1))
    assert np.mean(env.service_rates(probe).max(axis=1) >= 0.5) >= 0.3 - 0.02
    # with a slack, instances are kept only if the acceptance at lambda + slack is enough
    for seed in range(4):
        env = make_queueing_instance(n_servers=2, n_features=2, arrival_rate=0.5, slack=0.1,
                                     min_acceptance=0.25, random_state=seed)
        probe = np.random.default_rng(seed + 10).uniform(-1, 1, (40_000, 2))
        # the instance's own probe has 4000 points: sd of its estimate < 0.008
        assert np.mean(env.service_rates(probe).max(axis=1) >= 0.6) >= 0.25 - 0.04


def test_unstable_queue_warning_and_reset_messages():
    env = ContextualQueueEnv(THETAS, 0.95)
    with pytest.warns(UnstableQueueWarning) as rec:
        env.check_stability(n_samples=3, random_state=0)
    msg = str(rec[0].message)
    assert re.fullmatch(r"arrival_rate = 0\.95 is not below the best service rate of any "
                        r"context seen \(.*\): the queue is unstable and grows linearly under "
                        r"every policy\. Simulating anyway\.", msg), msg
    raises(lambda: ContextualQueueEnv(THETAS, 0.5).reset(), ValueError,
           names=["reset", "horizon", "QueueRandomness"],
           match=r"needs a horizon or a QueueRandomness\.$")
    raises(lambda: ContextualQueueEnv(THETAS, 0.5).reset(randomness=np.zeros(3)), TypeError,
           names="randomness", shows="got ndarray.", match=r"must be a QueueRandomness, ")
    raises(lambda: ContextualQueueEnv(THETAS, 0.5).sample_contexts(-1), ValueError, names="n",
           shows="[0, inf]")
    raises(lambda: ContextualQueueEnv(THETAS, 0.5).service_rates([[np.nan, 0.0]]), ValueError,
           names="X", match=r"^X: ")
    raises(lambda: ContextualQueueEnv(THETAS, 0.5).service_rates([["a", "b"]]), ValueError,
           names="X", match=r"^X: ")
    raises(lambda: ContextualQueueEnv(np.zeros((1, 2)), 0.5, context_sequence=[[np.nan, 0.0]])
           .context_min_eigenvalue(), ValueError, names="context_sequence",
           match=r"^context_sequence: ")
    raises(lambda: make_queueing_instance(n_servers=0), ValueError, names="n_servers",
           shows="[1, inf]")
    raises(lambda: make_queueing_instance(min_acceptance=-0.1), ValueError, names="min_acceptance",
           shows="[0, 1]")
    env = ContextualQueueEnv(np.zeros((1, 1)), arrival_rate=0.45, slack=0.1, max_attempts=4)
    raises(lambda: env.sample_contexts(2, random_state=0), ValueError,
           names=["arrival_rate", "slack"], shows=["= 0.55 in 4 consecutive draws", "(0 of "],
           match=_SLACK_UNMET)


def _best_rate_by_hand(X, thetas):
    return (1.0 / (1.0 + np.exp(-(X @ thetas.T)))).max(axis=1)


def test_make_queueing_instance_follows_its_documented_draws():
    # by hand: theta ~ U[-1, 1]^(K x d), then 4000 probe contexts ~ U[-1, 1]^d; keep the
    # draw when the share of probes with best rate >= lambda + slack is >= min_acceptance
    def by_hand(K, d, lam, slack, min_acc, seed):
        rng = np.random.default_rng(seed)
        for tries in range(1, 101):
            thetas = rng.uniform(-1.0, 1.0, size=(K, d))
            probe = rng.uniform(-1.0, 1.0, size=(4000, d))
            level = lam + (0.0 if slack is None else slack)
            if np.mean(_best_rate_by_hand(probe, thetas) >= level) >= min_acc:
                return thetas, tries
        return None, 100

    for K, d, lam, slack, min_acc, seed in [(2, 2, 0.6, 0.1, 0.2, 2), (3, 2, 0.55, None, 0.65, 1)]:
        want, tries = by_hand(K, d, lam, slack, min_acc, seed)
        assert tries > 2       # draws were rejected: the probes decide
        env = make_queueing_instance(n_servers=K, n_features=d, arrival_rate=lam, slack=slack,
                                     min_acceptance=min_acc, random_state=seed)
        np.testing.assert_array_equal(env.thetas, want)
        assert env.arrival_rate == lam and env.slack == slack
    # the documented defaults: K = d = 5, lambda = 0.7, slack 0.1, min_acceptance 0.01
    want, _ = by_hand(5, 5, 0.7, 0.1, 0.01, 3)
    env = make_queueing_instance(random_state=3)
    np.testing.assert_array_equal(env.thetas, want)
    assert (env.arrival_rate, env.slack) == (0.7, 0.1)
    raises(lambda: make_queueing_instance(arrival_rate=0.95, slack=0.04, min_acceptance=1.0,
                                          random_state=0),
           ValueError, names=["arrival_rate", "slack"], shows=["in 100 tries", ">= 1.0;"],
           match=_NO_DRAW)


def _two_column_sampler(rng, n):
    return rng.uniform(-1.0, 1.0, size=(n, 2))


def _three_column_sampler(rng, n):
    return rng.uniform(-1.0, 1.0, size=(n, 3))


def test_simulate_checks_the_horizon_against_the_environment():
    from statlearn.bandits.queueing import RandomPolicy, simulate

    assert ContextualQueueEnv(THETAS, 0.3).get_params()["max_attempts"] == 1000
    seq = np.random.default_rng(0).uniform(-1, 1, (6, 2))
    env = ContextualQueueEnv(THETAS, 0.3, context_sequence=seq)
    res = simulate(RandomPolicy(), env, horizon=6, n_reps=1)       # one row per round
    assert res.horizon == 6
    raises(lambda: simulate(RandomPolicy(), env, horizon=7, n_reps=1), ValueError,
           names=["context_sequence", "horizon"], shows=["6 rows", "horizon = 7 rounds"],
           match=r" rounds need one row per round\.$")
    # more rows than columns matter, not the number of columns
    wide = ContextualQueueEnv(THETAS, 0.3, context_sequence=seq[:, :2])
    assert simulate(RandomPolicy(), wide, horizon=3, n_reps=1).horizon == 3
    assert simulate(RandomPolicy(), ContextualQueueEnv(THETAS, 0.3), horizon=1,
                    n_reps=1).horizon == 1
    # a user sampler is tried once (one row) before any run
    ok = ContextualQueueEnv(THETAS, 0.3, context_sampler=_two_column_sampler)
    assert simulate(RandomPolicy(), ok, horizon=4, n_reps=1).horizon == 4
    bad = ContextualQueueEnv(THETAS, 0.3, context_sampler=_three_column_sampler)
    raises(lambda: simulate(RandomPolicy(), bad, horizon=4, n_reps=1), ValueError,
           names="context_sampler", shows=["(rng, 1)", "(1, 2), got (1, 3)."],
           match=r"must return an array of shape ")


def test_default_sample_sizes_and_seeds_and_messages():
    env = ContextualQueueEnv(THETAS, 0.3, slack=0.05)
    assert env.context_min_eigenvalue() == env.context_min_eigenvalue(20000, 0)
    assert env.context_min_eigenvalue() != env.context_min_eigenvalue(20000, 1)
    assert env.context_min_eigenvalue() != env.context_min_eigenvalue(20001, 0)
    assert env.check_stability() == env.check_stability(2000, 0)
    assert env.check_stability() != env.check_stability(2000, 1)
    raises(lambda: env.check_stability(0), ValueError, names="n_samples",
           shows=["[1, inf]", "got 0."])
    raises(lambda: env.sample_randomness(0), ValueError, names="horizon",
           shows=["[1, inf]", "got 0."])
    # numbers given as strings are read as floats
    np.testing.assert_allclose(env.service_rates([["0.5", "-1"]]),
                               1.0 / (1.0 + np.exp(-(np.array([[0.5, -1.0]]) @ THETAS.T))))


class _CyclingSampler:
    """Deterministic 1-d contexts: ``rows`` repeated (the rng is not used)."""

    def __init__(self, rows):
        self.rows = np.asarray(rows, dtype=float)

    def __call__(self, rng, n):
        return np.resize(self.rows, n)[:, None]


def _screen_disagreements(slack=0.1, width=16):
    """Contexts where the logit screen and the rate computed on this machine disagree.

    With ``theta = 1`` a context ``b`` is accepted iff ``mu(b) = 1 / (1 + exp(-b)) >=
    level`` (``level = lam + slack``, formed as the environment forms it); the screen
    ``b >= logit(level)`` alone differs from that for a few floats next to the cut, and
    which floats these are depends on how this CPU rounds ``exp`` (NumPy chooses its
    ``exp`` loop at run time). So the cases are found here, by the machine's own
    arithmetic, over a grid of levels above 1/2 (where ``mu`` has that one branch):
    ``(lam, b, accepted)`` tuples, every one a context the screen decides wrongly.
    """
    out = []
    for lam in np.round(np.arange(0.41, 0.89, 0.01), 2):
        lam = float(lam)
        level = lam + slack
        cut = np.log(level) - np.log1p(-level)
        below = above = cut
        floats = [cut]
        for _ in range(width):
            below, above = np.nextafter(below, -np.inf), np.nextafter(above, np.inf)
            floats += [below, above]
        for b in floats:
            accepted = bool(1.0 / (1.0 + np.exp(-b)) >= level)
            if bool(b >= cut) != accepted:
                out.append((lam, float(b), accepted))
    return out


@pytest.mark.parametrize("accepted", [True, False], ids=["rate-accepts", "rate-rejects"])
def test_acceptance_at_the_threshold_follows_the_exact_rate(accepted):
    # A context next to logit(level) is decided by its rate mu(x) >= lambda + slack, not by
    # the logit screen: take one the screen gets wrong on this machine (both directions
    # occur on every CPU tried, with and without NumPy's AVX-512 loops)
    cases = [c for c in _screen_disagreements() if c[2] == accepted]
    assert cases, "no float next to logit(level) where the screen and the rate disagree"
    lam, b, _ = cases[0]
    env = ContextualQueueEnv(np.array([[1.0]]), lam, slack=0.1,
                             context_sampler=_CyclingSampler([b, -5.0, 3.0]))
    X, rate = env.sample_contexts(6, random_state=0)
    want = [b, 3.0] * 3 if accepted else [3.0] * 6
    np.testing.assert_array_equal(X[:, 0], want)
    # one batch of 256 candidates (b, -5, 3, b, ...): the 85 threes, and the 86 b's if kept
    assert rate == (85 + 86 * accepted) / 256
    rand = env.sample_randomness(40, random_state=1)
    n = int(rand.arrivals.sum())
    assert 0 < n <= 40 and rand.acceptance_rate == (85 + 86 * accepted) / 256
    kept = np.resize([b, 3.0], n) if accepted else np.full(n, 3.0)
    np.testing.assert_array_equal(rand.features[rand.arrivals, 0], kept)


def test_user_sampler_output_is_read_as_floats_and_checked():
    env = ContextualQueueEnv(np.array([[1.0]]), 0.3, slack=0.1,
                             context_sampler=lambda rng, n: [["2.5"]] * n)
    X, _ = env.sample_contexts(3, random_state=0)
    np.testing.assert_array_equal(X, np.full((3, 1), 2.5))
    nan = ContextualQueueEnv(np.array([[1.0]]), 0.3,
                             context_sampler=lambda rng, n: np.full((n, 1), np.nan))
    raises(lambda: nan.sample_contexts(3, random_state=0), ValueError, names="context_sampler",
           match=r"returned NaN or infinite features\.$")


class _CountingSampler:
    """1-d contexts by global draw index: accepted (3.0) at ``hits``, rejected elsewhere."""

    def __init__(self, hits):
        self.hits, self.i = set(hits), 0

    def __call__(self, rng, n):
        out = np.array([3.0 if j in self.hits else -5.0 for j in range(self.i, self.i + n)])
        self.i += n
        return out[:, None]


def test_rejection_cap_at_its_exact_boundaries():
    # draws 0 and 266 accepted: 265 consecutive rejections, across the batch boundary at 256
    env = ContextualQueueEnv(np.array([[1.0]]), 0.6, slack=0.1, max_attempts=265,
                             context_sampler=_CountingSampler([0, 266]))
    raises(lambda: env.sample_contexts(2, random_state=0), ValueError,
           names=["arrival_rate", "slack"],
           shows=["= 0.7 in 265 consecutive draws", "(2 of 512 candidates"],
           match=_SLACK_UNMET)
    env = ContextualQueueEnv(np.array([[1.0]]), 0.6, slack=0.1, max_attempts=266,
                             context_sampler=_CountingSampler([0, 266]))
    X, rate = env.sample_contexts(2, random_state=0)
    assert X[:, 0].tolist() == [3.0, 3.0] and rate == 2 / 512
    # no acceptance at all: the cap is reached after exactly 512 rejections (two batches)
    env = ContextualQueueEnv(np.array([[1.0]]), 0.6, slack=0.1, max_attempts=512,
                             context_sampler=_CountingSampler([]))
    raises(lambda: env.sample_contexts(1, random_state=0), ValueError, names="slack",
           shows="in 512 consecutive draws (0 of 512 candidates accepted so far).")
    # nothing to draw: acceptance rate 1
    env = ContextualQueueEnv(np.array([[1.0]]), 0.0, slack=0.1)
    assert env.sample_randomness(5, random_state=0).acceptance_rate == 1.0


def test_environment_parameters_read_and_checked():
    raises(lambda: ContextualQueueEnv(THETAS, -0.1).service_rates(np.zeros((1, 2))), ValueError,
           names="arrival_rate", shows=["[0, 1]", "got -0.1."])
    env = ContextualQueueEnv([["1.5", "-0.5"]], 0.3)
    np.testing.assert_allclose(env.service_rates([[1.0, 0.0]]), [[1.0 / (1.0 + np.exp(-1.5))]])
    with pytest.raises(ValueError, match="^thetas"):
        ContextualQueueEnv([[np.nan, 0.0]], 0.3).service_rates(np.zeros((1, 2)))


def test_validation_messages_and_the_slack_threshold_of_a_sequence():
    def check(**kw):
        return ContextualQueueEnv(**{"thetas": THETAS, "arrival_rate": 0.3, **kw}) \
            .service_rates(np.zeros((1, 2)))

    raises(lambda: check(max_attempts=0), ValueError, names="max_attempts",
           shows=["[1, inf]", "got 0."])
    raises(lambda: check(context_sampler=_two_column_sampler,
                         context_sequence=np.zeros((3, 2))), ValueError,
           names=["context_sampler", "context_sequence"],
           match=r"^give either .* or .*, not both\.$")
    raises(lambda: check(context_sampler=3), TypeError,
           names=["ContextualQueueEnv", "context_sampler"], shows="got int 3.",
           match=r"must be None or a callable, ")
    with pytest.raises(ValueError, match="^context_sequence"):
        check(context_sequence=[[np.nan, 0.0]])
    # numbers given as strings are read as floats
    np.testing.assert_array_equal(
        ContextualQueueEnv(THETAS, 0.3, slack=0.1, context_sequence=[["3", "3"]] * 4)
        .sample_randomness(4, random_state=0).features[:, 0] == 3.0,
        ContextualQueueEnv(THETAS, 0.3).sample_randomness(4, random_state=0).arrivals)
    # a sequence row whose best rate equals lambda + slack exactly meets the slack: at
    # x = 0 the rate is 1 / (1 + exp(0)) = 1/2 = 0.4 + 0.1 in exact arithmetic
    assert 0.4 + 0.1 == 0.5
    ContextualQueueEnv(np.array([[1.0]]), 0.4, slack=0.1, context_sequence=[[0.0], [3.0]]) \
        .service_rates([[0.0]])
    # and rows next to logit(level) are judged by their rate as this machine computes it
    cases = _screen_disagreements()
    for accepted in (True, False):
        lam, b, _ = next(c for c in cases if c[2] == accepted)
        env = ContextualQueueEnv(np.array([[1.0]]), lam, slack=0.1,
                                 context_sequence=[[3.0], [b]])
        if accepted:
            env.service_rates([[0.0]])
        else:
            with pytest.raises(ValueError, match=r"^context_sequence violates .* row 1 "):
                env.service_rates([[0.0]])

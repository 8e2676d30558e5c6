"""Properties of the contextual queueing model and policies, as Monte Carlo and hypothesis tests.

The regret rates are those of Bae, Kang and Lee (2026): R_T = O~(T^{-1/4}) for CQB-eps
(Theorem 5.5) and R_T = O(d^2 log^2 T / eps^1.5 + d log T / eps^2) for CQB-Opt (Theorem
6.3). The other properties are ours: the oracle's queue under the slack assumption
(Assumption 3.4) is dominated by a birth-death chain, instability when the arrival rate
exceeds every service rate, the random policy's linear growth, the estimator's
consistency, path invariants, and degenerate contexts.

Monte Carlo checks use fixed seeds; each states its false-alarm rate (the
probability that a correct implementation fails it).
"""

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from scipy import optimize, stats

from statlearn.bandits.queueing import (
    ContextualQueueEnv,
    CQBEpsilon,
    CQBOpt,
    GreedyMLEPolicy,
    OraclePolicy,
    QueueBlindUCBPolicy,
    RandomPolicy,
    UnstableQueueWarning,
    make_queueing_instance,
    run_policy,
    simulate,
)
from statlearn.bandits.queueing import _kernels as K
from statlearn.testing import suite_size


@pytest.fixture(scope="module")
def paper_env():
    """The paper's instance: lambda = 0.7, slack 0.1, K = d = 5, uniform contexts."""
    return make_queueing_instance(random_state=0)


def birth_death_means(p, q, n_rounds, n_states=800):
    """Exact E[Q(n+1)] for n = 0..n_rounds of the chain Q' = Q - D + A.

    ``D ~ Bernoulli(q)`` when ``Q >= 1`` (service first), then ``A ~
    Bernoulli(p)`` (arrival), from ``Q = 0``; computed with the transition
    matrix truncated at ``n_states`` (the mass lost there is checked).
    """
    from scipy import sparse

    up, down = p * (1 - q), q * (1 - p)
    diag = np.full(n_states, 1 - up - down)
    diag[0], diag[-1] = 1 - p, 1 - down
    upper = np.full(n_states - 1, up)
    upper[0] = p
    P = sparse.diags([np.full(n_states - 1, down), diag, upper], [-1, 0, 1], format="csr")
    assert np.allclose(P.sum(axis=1), 1.0)
    pi = np.zeros(n_states)
    pi[0] = 1.0
    means = [0.0]
    for _ in range(n_rounds):
        pi = P.T @ pi
        means.append(float(pi @ np.arange(n_states)))
    assert pi[-50:].sum() < 1e-12
    return np.array(means)


def stationary_mean(p, q, n_states=2000):
    r = p * (1 - q) / (q * (1 - p))
    pi = np.empty(n_states)
    pi[0] = 1.0
    pi[1:] = p / (q * (1 - p)) * r ** np.arange(n_states - 1)
    pi /= pi.sum()
    return float(pi @ np.arange(n_states))


# ------------------------- oracle stability under the slack assumption (Assumption 3.4)
def test_oracle_queue_is_bounded_by_the_birth_death_chain(paper_env):
    """Oracle stability (Assumption 3.4): E[Q*(T)] <= lambda (1 - lambda) / eps = 2.1
    (one-sided, 3 SE: 0.13%)."""
    res = simulate(OraclePolicy(paper_env.thetas), paper_env, horizon=2000, n_reps=2000,
                   checkpoints=[500, 1000, 2000], random_state=1)
    q = res.oracle_queue_length[:, -1]
    bound = 0.7 * 0.3 / 0.1
    se = q.std(ddof=1) / math.sqrt(q.size)
    assert q.mean() <= bound + 3 * se, (q.mean(), se)
    # the learner here is the oracle itself: identical paths under common random numbers
    np.testing.assert_array_equal(res.queue_length, res.oracle_queue_length)


# --------------------------------------------------------- the exact single-class chain
def test_exact_chain_values_of_the_birth_death_chain():
    m = birth_death_means(0.5, 0.6, 10)
    assert m[1] == pytest.approx(0.5) and m[2] == pytest.approx(0.7)
    assert m[10] == pytest.approx(1.3563, abs=1e-4)
    assert stationary_mean(0.5, 0.6) == pytest.approx(0.5 * 0.5 / 0.1)
    assert stationary_mean(0.3, 0.6) == pytest.approx(0.3 * 0.7 / 0.3)
    assert birth_death_means(0.5, 0.6, 3000)[-1] == pytest.approx(2.5, abs=1e-3)


@pytest.mark.slow
@pytest.mark.parametrize("p, q", [(0.5, 0.6), (0.3, 0.6)])
def test_single_class_oracle_matches_the_exact_chain(p, q):
    """Single class: simulated E[Q*(t)] within 3 SE of the exact chain at t = 1, 2, 10, 50,
    400.

    Each comparison fails a correct simulator with probability 0.27%
    (two-sided 3 SE, CLT); the 10 comparisons together at most 2.7%
    (Bonferroni). Runs: 20,000 (``STATLEARN_SLOW=1``), 6,000 otherwise.
    """
    T = 400
    theta = np.array([[math.log(q / (1 - q))], [math.log(q / (1 - q)) - 1.0]])
    env = ContextualQueueEnv(theta, arrival_rate=p, context_sequence=np.ones((T, 1)))
    checks = [1, 2, 10, 50, T]
    n = suite_size(ci=6000, full=20_000)
    res = simulate(OraclePolicy(theta), env, horizon=T, n_reps=n, checkpoints=checks,
                   random_state=2)
    exact = birth_death_means(p, q, T)[res.checkpoints]
    sim = res.oracle_queue_length
    se = sim.std(axis=0, ddof=1) / math.sqrt(n)
    z = (sim.mean(axis=0) - exact) / se
    assert np.all(np.abs(z) <= 3), dict(zip(res.checkpoints.tolist(), np.round(z, 2)))


# -------------------------------------------------------------------------- instability
UNSTABLE_THETAS = np.array([[0.2, 0.1], [-0.1, 0.2]])  # every rate < mu(0.3) = 0.5744


@pytest.mark.parametrize("make, T", [
    (lambda: OraclePolicy(UNSTABLE_THETAS), 20_000),
    (RandomPolicy, 20_000),
    (QueueBlindUCBPolicy, 20_000),
    # policies scoring the whole queue cost O(Q K d^2) per round: 20k rounds
    # with STATLEARN_SLOW=1, 5k otherwise
    pytest.param(CQBOpt, suite_size(5000, 20_000), marks=pytest.mark.slow),
    pytest.param(lambda: CQBEpsilon(tau=100), suite_size(5000, 20_000), marks=pytest.mark.slow),
    pytest.param(GreedyMLEPolicy, suite_size(5000, 20_000), marks=pytest.mark.slow),
])
def test_unstable_instance_warns_and_grows_linearly(make, T):
    """Instability: lambda above every rate -> warning, and Q(T)/T >= lambda - max rate.

    ``Q(T) = arrivals - departures`` with departures stochastically below
    Binomial(T, 0.5744), so ``Q(T)/T`` falls below ``0.9 - 0.5744`` by more
    than 5 standard deviations with probability < 3e-7.
    """
    env = ContextualQueueEnv(UNSTABLE_THETAS, arrival_rate=0.9)
    with pytest.warns(UnstableQueueWarning, match="unstable"):
        res = simulate(make(), env, horizon=T, n_reps=1, checkpoints=[T], random_state=3)
    rate = res.queue_length[0, -1] / T
    max_rate = 1 / (1 + math.exp(-0.3))
    sd = math.sqrt((0.9 * 0.1 + max_rate * (1 - max_rate)) / T)
    assert rate > 0
    assert rate >= 0.9 - max_rate - 5 * sd


# ----------------------------------------------------------- the random policy diverges
def test_random_policy_diverges_on_the_paper_instance(paper_env, global_random_seed):
    """The random policy diverges: its mean queue grows, slope > 0 with p < 0.01."""
    res = simulate(RandomPolicy(), paper_env, horizon=2000, n_reps=20,
                   random_state=global_random_seed)
    fit = stats.linregress(res.checkpoints, res.mean_queue_length())
    assert fit.slope > 0 and fit.pvalue < 0.01


# -------------------------------------------------- regret rates (Theorems 5.5 and 6.3)
def _power_law_slope(Ts, R, se):
    """Weighted least-squares fit of ``R_T = c T^b``; returns ``b``."""
    (c, b), _ = optimize.curve_fit(lambda t, c, b: c * (t / Ts[0]) ** b, Ts, R,
                                   p0=(max(R[0], 1e-3), -0.5), sigma=se, absolute_sigma=True)
    return b


def _regret_curve(policy, env, Ts, n_reps, seed):
    out = [simulate(policy, env, horizon=T, n_reps=n_reps, checkpoints=[T], random_state=seed)
           for T in Ts]
    return (np.array([r.regret for r in out]), np.array([r.regret_se for r in out]))


@pytest.mark.slow
def test_cqb_epsilon_regret_decays(paper_env):
    """CQB-eps decay (Theorem 5.5): R_T decreasing in T (increases within 2 SE), log-log
    slope <= -0.1, |R_16k| < 1.

    T in {2k, 4k, 8k, 16k} with 100 coupled runs each (32k and 200 runs with
    ``STATLEARN_SLOW=1``). The 2 SE allowance per consecutive pair and the
    3 SE margin for |R_16k| < 1 make a false alarm from noise alone < 10%.
    """
    Ts = np.array([2000, 4000, 8000, 16000] + ([32000] if suite_size(0, 1) else []))
    n = suite_size(ci=100, full=200)
    R, se = _regret_curve(CQBEpsilon(), paper_env, Ts, n, seed=5)
    for i in range(len(Ts) - 1):
        assert R[i + 1] <= R[i] + 2 * math.hypot(se[i], se[i + 1]), (Ts[i + 1], R, se)
    slope = _power_law_slope(Ts, R, se)
    assert slope <= -0.1, (slope, R, se)
    i16 = int(np.flatnonzero(Ts == 16000)[0])
    assert abs(R[i16]) + 3 * se[i16] < 1
    # below the random policy at every horizon
    Rr, ser = _regret_curve(RandomPolicy(), paper_env, Ts[:2], 10, seed=5)
    assert np.all(R[:2] + 3 * se[:2] < Rr - 3 * ser)


@pytest.mark.slow
def test_cqb_opt_regret_is_polylogarithmic(paper_env):
    """CQB-Opt polylog regret (Theorem 6.3): R_T / log^2 T non-increasing within 2 SE over
    T in {1k, ..., 16k (32k)}.

    60 coupled runs per horizon (200 with ``STATLEARN_SLOW=1``); 2 SE per
    consecutive pair; plus R_T below the random policy's.
    """
    Ts = np.array([1000, 2000, 4000, 8000, 16000] + ([32000] if suite_size(0, 1) else []))
    n = suite_size(ci=60, full=200)
    R, se = _regret_curve(CQBOpt(), paper_env, Ts, n, seed=6)
    norm, nse = R / np.log(Ts) ** 2, se / np.log(Ts) ** 2
    for i in range(len(Ts) - 1):
        assert norm[i + 1] <= norm[i] + 2 * math.hypot(nse[i], nse[i + 1]), (R, se)
    Rr, ser = _regret_curve(RandomPolicy(), paper_env, Ts[:2], 10, seed=6)
    assert np.all(R[:2] + 3 * se[:2] < Rr - 3 * ser)


# ---------------------------------------------------------------- estimator consistency
def test_estimator_error_decays_like_inverse_sqrt_n(global_random_seed):
    """Estimator consistency: mean ||theta_hat - theta|| ~ n^{-1/2}, log-log slope in
    [-0.65, -0.35]."""
    d, reps = 3, 20
    theta_true = np.array([1.0, -1.0, 0.5])
    ns = [250, 1000, 4000, 16000]
    err = np.zeros((reps, len(ns)))
    for r in range(reps):
        rng = np.random.default_rng([global_random_seed, r])
        X = rng.uniform(-1, 1, size=(ns[-1], d))
        y = (rng.random(ns[-1]) < 1 / (1 + np.exp(-X @ theta_true))).astype(float)
        theta = np.zeros((1, d))
        vinv = np.eye(d)[None].copy()
        hinv = vinv.copy()
        n_obs, n_refit = np.zeros(1, np.int64), np.zeros(1, np.int64)
        Xs, ys = np.zeros((1, ns[-1], d)), np.zeros((1, ns[-1]))
        j = 0
        for i in range(ns[-1]):
            K.estimator_update(0, X[i], y[i], theta, vinv, hinv, n_obs, n_refit, Xs, ys,
                               1.0, 0.1, 20, 1e-8)
            if i + 1 == ns[j]:
                err[r, j] = np.linalg.norm(theta[0] - theta_true)
                j += 1
    slope = np.polyfit(np.log(ns), np.log(err.mean(axis=0)), 1)[0]
    assert -0.65 <= slope <= -0.35, (slope, err.mean(axis=0))


# ---------------------------------------------------------------------- path invariants
POLICY_MAKERS = [
    lambda th: OraclePolicy(th), lambda th: RandomPolicy(), lambda th: CQBEpsilon(tau=20),
    lambda th: CQBOpt(), lambda th: GreedyMLEPolicy(), lambda th: QueueBlindUCBPolicy(),
]


@st.composite
def small_instances(draw):
    K_ = draw(st.integers(1, 3))
    d = draw(st.integers(1, 3))
    thetas = draw(arrays(np.float64, (K_, d), elements=st.floats(-3, 3)))
    lam = draw(st.floats(0.05, 0.95))
    T = draw(st.integers(1, 200))
    return ContextualQueueEnv(thetas, lam), T, draw(st.integers(0, 2**20))


@settings(max_examples=40, deadline=None)
@given(small_instances(), st.integers(0, len(POLICY_MAKERS) - 1))
def test_queue_invariants(instance, which):
    """Path invariants: Q >= 0, steps in {-1, 0, 1}, no service of an empty queue, job in
    the queue."""
    env, T, seed = instance
    policy = POLICY_MAKERS[which](env.thetas)
    rand = env.sample_randomness(T, random_state=seed)
    run = run_policy(policy, env, randomness=rand, random_state=seed)
    q = run.queue_length
    assert q[0] == 0 and np.all(q >= 0)
    assert set(np.diff(q).tolist()) <= {-1, 0, 1}
    np.testing.assert_array_equal(np.diff(q), rand.arrivals.astype(int) - run.departed)
    empty = q[:-1] == 0
    assert np.all(run.jobs[empty] == -1) and not run.departed[empty].any()
    busy = ~empty
    assert np.all((run.jobs[busy] >= 0) & (run.jobs[busy] < q[:-1][busy]))
    assert np.all((run.servers[busy] >= 0) & (run.servers[busy] < env.n_servers))
    # deterministic given the seeds
    again = run_policy(policy, env, randomness=env.sample_randomness(T, random_state=seed),
                       random_state=seed)
    np.testing.assert_array_equal(again.queue_length, q)
    np.testing.assert_array_equal(again.servers, run.servers)


@settings(max_examples=40, deadline=None)
@given(small_instances())
def test_oracle_initialised_frozen_learner_reproduces_the_oracle(instance):
    """Path invariants: theta_hat = theta*, beta = 0, frozen estimator == pi* path under CRN."""
    env, T, seed = instance
    rand = env.sample_randomness(T, random_state=seed)
    oracle = run_policy(OraclePolicy(env.thetas), env, randomness=rand)
    twin = run_policy(GreedyMLEPolicy(theta_init=env.thetas, freeze=True), env,
                      randomness=rand, random_state=seed)
    np.testing.assert_array_equal(twin.queue_length, oracle.queue_length)
    np.testing.assert_array_equal(twin.jobs, oracle.jobs)
    np.testing.assert_array_equal(twin.servers, oracle.servers)
    assert np.all(twin.n_obs == 0)


def test_unfrozen_learner_moves_away_from_the_truth():
    env = make_queueing_instance(random_state=1)
    run = run_policy(GreedyMLEPolicy(theta_init=env.thetas), env, horizon=300, random_state=0)
    assert run.n_obs.sum() > 0 and not np.allclose(run.theta, env.thetas)


# ------------------------------------------------------------------ degenerate contexts
def test_identical_contexts_reduce_to_a_k_armed_queueing_bandit():
    """Degenerate contexts: one context for every job; all policies run, the oracle uses the
    best arm."""
    thetas = np.array([[0.2], [1.5], [-0.4]])
    env = ContextualQueueEnv(thetas, 0.6, context_sequence=np.ones((3000, 1)))
    for make in POLICY_MAKERS:
        res = simulate(make(thetas), env, horizon=3000, n_reps=3, random_state=7)
        assert np.all(res.queue_length >= 0)
    run = run_policy(OraclePolicy(thetas), env, horizon=3000)
    assert set(run.servers[run.servers >= 0].tolist()) == {1}
    # a learner finds the best arm: most service rounds at the end use server 1
    late = run_policy(CQBOpt(), env, horizon=3000, random_state=0).servers[-1000:]
    assert np.mean(late[late >= 0] == 1) > 0.9


def test_zero_context_needs_arrival_rate_below_one_half_minus_slack():
    """Degenerate contexts: x = 0 gives mu = 1/2 for every server."""
    zero = ContextualQueueEnv(np.ones((2, 3)), 0.45, slack=0.1,
                              context_sampler=_zero_contexts)
    with pytest.raises(ValueError, match="slack assumption cannot be met"):
        simulate(CQBOpt(), zero, horizon=100, n_reps=1)
    ok = ContextualQueueEnv(np.ones((2, 3)), 0.4, slack=0.1, context_sampler=_zero_contexts)
    res = simulate(CQBOpt(), ok, horizon=500, n_reps=2, random_state=0)
    assert res.acceptance_rate == 1.0
    # every departure has probability 1/2: the oracle is the chain with q = 0.5
    assert np.all(res.regret_runs == 0)


def _zero_contexts(rng, n):
    return np.zeros((n, 3))


def test_estimator_unchanged_while_the_queue_is_empty():
    """Degenerate contexts: after the last job leaves, nothing changes however long the run."""
    env = make_queueing_instance(random_state=2)
    rand = env.sample_randomness(2000, random_state=3)
    arrivals = rand.arrivals.copy()
    arrivals[60:] = False
    from statlearn.bandits.queueing import QueueRandomness

    short = QueueRandomness(arrivals[:400], rand.features[:400], rand.service_u[:400])
    long = QueueRandomness(arrivals, rand.features, rand.service_u)
    # delta fixed: the default 1/T would make the two horizons use different radii
    a = run_policy(CQBOpt(delta=0.01), env, randomness=short, random_state=1)
    b = run_policy(CQBOpt(delta=0.01), env, randomness=long, random_state=1)
    assert a.queue_length[-1] == 0
    np.testing.assert_array_equal(a.theta, b.theta)
    np.testing.assert_array_equal(a.n_obs, b.n_obs)
    # no arrivals at all: no data, the initial estimate stays
    none = ContextualQueueEnv(env.thetas, 0.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnstableQueueWarning)
        c = run_policy(GreedyMLEPolicy(theta_init=np.ones((5, 5))), none, horizon=500)
    assert c.n_obs.sum() == 0 and np.all(c.theta == 1.0)

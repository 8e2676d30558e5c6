"""Policies: decision rules, parameters, defaults, and bad input."""

import math
import pickle

import numpy as np
import pytest
from sklearn.base import clone

from statlearn.bandits.queueing import (
    CQBEpsilon,
    CQBOpt,
    GreedyMLEPolicy,
    LogisticUCBEstimator,
    OraclePolicy,
    QueueBlindUCBPolicy,
    RandomPolicy,
    make_queueing_instance,
    simulate,
)

ALL = [
    lambda: OraclePolicy(np.eye(2)),
    RandomPolicy,
    CQBEpsilon,
    CQBOpt,
    GreedyMLEPolicy,
    QueueBlindUCBPolicy,
]


@pytest.mark.parametrize("make", ALL)
def test_params_clone_pickle(make):
    pol = make()
    params = pol.get_params()
    twin = clone(pol)
    assert type(twin) is type(pol) and twin is not pol
    assert set(twin.get_params()) == set(params)
    assert type(pickle.loads(pickle.dumps(pol))) is type(pol)
    assert repr(pol).startswith(type(pol).__name__ + "(")
    with pytest.raises(ValueError, match="invalid parameter 'not_a_param'"):
        pol.set_params(not_a_param=1)


@pytest.mark.parametrize("make", ALL)
@pytest.mark.filterwarnings("ignore:CQBEpsilon")
def test_select_before_reset_and_bad_queue(make):
    pol = make()
    with pytest.raises(RuntimeError, match="reset"):
        pol.select(np.zeros((1, 2)), 1)
    with pytest.raises(RuntimeError, match="reset"):
        pol.update(np.zeros(2), 0, True)
    pol.reset(2, 2, horizon=5, random_state=0)
    assert pol.select(np.zeros((0, 2)), 1) is None
    with pytest.raises(ValueError, match="queue_X must have shape"):
        pol.select(np.zeros((2, 3)), 1)
    with pytest.raises(ValueError, match="t must be in"):
        pol.select(np.zeros((2, 2)), 6)
    job, k = pol.select(np.zeros((3, 2)), 2)
    assert 0 <= job < 3 and 0 <= k < 2


def test_oracle_picks_the_best_pair_with_tie_breaking():
    thetas = np.array([[1.0, 0.0], [0.0, 1.0], [0.0, 1.0]])
    pol = OraclePolicy(thetas).reset(3, 2, horizon=3)
    X = np.array([[0.0, 0.2], [0.5, 0.5], [0.5, 0.5]])
    # jobs 1 and 2 tie with every server at rate mu(0.5): oldest job, lowest server
    assert pol.select(X, 1) == (1, 0)
    assert pol.select(X[[0, 2]], 1) == (1, 0)
    assert pol.select(np.array([[0.0, 0.9], [0.8, 0.0]]), 2) == (0, 1)
    with pytest.raises(ValueError, match="shape"):
        OraclePolicy(thetas).reset(2, 2, horizon=3)


def test_random_policy_is_uniform_over_jobs_and_servers():
    pol = RandomPolicy().reset(3, 1, horizon=30_000, random_state=0)
    X = np.zeros((4, 1))
    picks = np.array([pol.select(X, t) for t in range(1, 30_001)])
    from scipy import stats

    for col, m in ((0, 4), (1, 3)):
        counts = np.bincount(picks[:, col], minlength=m)
        # chi-square goodness of fit at level 1e-6
        assert stats.chisquare(counts).pvalue > 1e-6


def test_cqb_epsilon_schedule():
    pol = CQBEpsilon(tau=6, explore_rate=0.0).reset(3, 2, horizon=20, random_state=0)
    X = np.arange(8.0).reshape(4, 2) / 10
    # exploration: newest job, servers in round-robin order over service rounds
    picks = [pol.select(X, t) for t in range(1, 7)]
    assert picks == [(3, 0), (3, 1), (3, 2), (3, 0), (3, 1), (3, 2)]
    assert pol.n_explore_ == 6
    # afterwards, no exploration: the UCB argmax (ties at theta = 0 -> largest width)
    job, k = pol.select(X, 7)
    est = pol.estimator_
    width = est.width(X)
    assert width[job, k] == pytest.approx(width.max())
    assert pol.n_explore_ == 6


def test_cqb_epsilon_explores_at_rate_after_tau():
    T = 8000
    pol = CQBEpsilon(tau=0, explore_rate=0.2).reset(2, 1, horizon=T, random_state=1)
    X = np.ones((2, 1))
    for t in range(1, T + 1):
        pol.select(X, t)
    from statlearn.testing import assert_binomial_rate

    assert_binomial_rate(pol.n_explore_, T, 0.2, label="exploration rate")


def test_default_exploration_length_is_small_on_the_paper_instance():
    # a literal c_tau = 1 (the constant hidden in Theorem 5.5) never leaves exploration
    # at T = 5000 ...
    assert CQBEpsilon(c_tau=1.0).exploration_length(5, 5000) > 5000
    with pytest.warns(UserWarning, match="covers the whole"):
        CQBEpsilon(c_tau=1.0).reset(5, 5, 5000)
    # ... the default leaves it after < 10% of the horizon, also with sigma_0^2
    # estimated under slack rejection
    env = make_queueing_instance(random_state=0)
    tau = CQBEpsilon().exploration_length(5, 5000)
    assert tau < 500
    s2 = env.context_min_eigenvalue(20_000)
    assert CQBEpsilon(sigma0_sq=s2).exploration_length(5, 5000) < 1000
    res = simulate(CQBEpsilon(), env, horizon=5000, n_reps=4, random_state=0, checkpoints=[0])
    # explore rounds = tau service rounds at most + Binomial(T - tau, T^-1/2)
    assert np.all(res.n_explore <= tau + 5000 ** 0.5 + 6 * (5000 ** 0.25))


def test_exploit_greedy_uses_no_width():
    pol = CQBEpsilon(tau=0, explore_rate=0.0, exploit="greedy").reset(2, 2, 10, random_state=0)
    pol.update(np.array([1.0, 0.0]), 0, True)
    X = np.array([[1.0, 0.0], [0.0, 1.0]])
    mu = pol.estimator_.mean(X)
    job, k = pol.select(X, 1)
    assert mu[job, k] == mu.max()


def test_queue_blind_serves_the_oldest_job():
    pol = QueueBlindUCBPolicy().reset(2, 2, horizon=5)
    for t in range(1, 6):
        assert pol.select(np.random.default_rng(t).normal(size=(4, 2)), t)[0] == 0


def test_greedy_frozen_never_learns():
    th = np.array([[1.0, 2.0]])
    pol = GreedyMLEPolicy(theta_init=th, freeze=True).reset(1, 2, horizon=5)
    pol.update(np.ones(2), 0, True)
    np.testing.assert_array_equal(pol.estimator_.theta_, th)
    assert pol.estimator_.n_obs_[0] == 0


def test_ucb_radius_formula():
    pol = CQBOpt(c_beta=1.0, kappa=10.0).reset(2, 5, horizon=5000)
    beta = pol.estimator_.radius(c_beta=1.0, kappa=10.0, delta=1 / 5000)
    expected = 10 * (math.sqrt(2 * math.log(5000)) + math.sqrt(5))
    np.testing.assert_allclose(beta, expected)


@pytest.mark.parametrize(
    "pol, match",
    [
        (CQBOpt(c_beta=-1), "c_beta"),
        (CQBOpt(kappa=0), "kappa"),
        (CQBOpt(lam_reg=0), "lam_reg"),
        (CQBOpt(delta=1.0), "delta"),
        (CQBOpt(norm_bound=-1.0), "norm_bound"),
        (CQBOpt(max_iter=0), "max_iter"),
        (CQBOpt(tol=0), "tol"),
        (CQBOpt(refit_growth=-0.1), "refit_growth"),
        (CQBEpsilon(tau=-1), "tau"),
        (CQBEpsilon(c_tau=-1), "c_tau"),
        (CQBEpsilon(sigma0_sq=0), "sigma0_sq"),
        (CQBEpsilon(slack=1.2), "slack"),
        (CQBEpsilon(explore_rate=1.5), "explore_rate"),
        (CQBEpsilon(exploit="thompson"), "exploit"),
        (GreedyMLEPolicy(freeze="yes"), "freeze"),
        (GreedyMLEPolicy(theta_init=np.zeros((3, 3))), "theta_init"),
        (OraclePolicy([[np.inf, 0.0], [0.0, 0.0]]), "thetas"),
    ],
)
def test_bad_parameters_raise_on_reset(pol, match):
    with pytest.raises((ValueError, TypeError), match=match):
        pol.reset(2, 2, horizon=10)


def test_bad_reset_arguments():
    for args in [(0, 2, 5), (2, 0, 5), (2, 2, 0), (2.0, 2, 5)]:
        with pytest.raises((ValueError, TypeError)):
            CQBOpt().reset(*args)
    with pytest.raises(TypeError, match="random_state"):
        RandomPolicy(random_state="a").reset(2, 2, 5)


def test_estimator_bad_input():
    est = LogisticUCBEstimator()
    with pytest.raises(RuntimeError, match="initialize"):
        est.update(np.zeros(2), 0, 1)
    est.initialize(2, 2)
    with pytest.raises(ValueError, match="x must be"):
        est.update(np.zeros(3), 0, 1)
    with pytest.raises(ValueError, match="k must be in"):
        est.update(np.zeros(2), 2, 1)
    with pytest.raises(ValueError, match="y must be"):
        est.update(np.zeros(2), 0, 0.5)
    with pytest.raises(ValueError, match="columns"):
        est.mean(np.zeros((1, 3)))
    with pytest.raises(ValueError, match="lam_reg"):
        LogisticUCBEstimator(lam_reg=-1).initialize(1, 1)
    with pytest.raises(ValueError, match="theta_init"):
        LogisticUCBEstimator().initialize(1, 2, theta_init=np.zeros((2, 2)))

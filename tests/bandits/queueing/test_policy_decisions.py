"""Exact, fast checks of the queueing policies' decisions.

Expected values come from the documented formulas computed here by hand (the
kernel parameter vector, the exploration length, the UCB score, the seeded
uniforms), and from the compiled kernel, whose decision rules are written
independently of the policies' NumPy ``select``.
"""

import math
import re
import warnings

import numpy as np
import pytest

from statlearn.bandits.queueing import (
    ContextualQueueEnv,
    CQBEpsilon,
    CQBOpt,
    GreedyMLEPolicy,
    OraclePolicy,
    QueueBlindUCBPolicy,
    RandomPolicy,
    run_policy,
)
from statlearn.bandits.queueing import _kernels as K
from tests.helpers import raises


def _exact(msg):
    return "^" + re.escape(msg) + "$"


def _params(**values):
    """The kernel parameter vector: index -> value, zeros elsewhere."""
    p = np.zeros(K.N_PARAMS)
    for i, v in values.items():
        p[int(i[1:])] = v
    return p


# ------------------------------------------------------------ constructor defaults
def test_documented_defaults():
    assert CQBOpt().get_params() == dict(
        lam_reg=1.0, c_beta=0.01, kappa=10.0, norm_bound=None, delta=None,
        refit_growth=0.1, max_iter=20, tol=1e-8)
    assert QueueBlindUCBPolicy().get_params() == CQBOpt().get_params()
    assert CQBEpsilon().get_params() == dict(
        tau=None, c_tau=0.01, sigma0_sq=1 / 3, slack=0.1, explore_rate=None, exploit="ucb",
        lam_reg=1.0, c_beta=0.01, kappa=10.0, norm_bound=None, delta=None, refit_growth=0.1,
        max_iter=20, tol=1e-8, random_state=None)
    assert GreedyMLEPolicy().get_params() == dict(
        lam_reg=1.0, refit_growth=0.1, max_iter=20, tol=1e-8, theta_init=None, freeze=False)
    assert RandomPolicy().get_params() == {"random_state": None}
    th = np.eye(2)
    assert OraclePolicy(th).get_params()["thetas"] is th
    # every argument is stored under its own name
    args = dict(lam_reg=2.0, c_beta=0.5, kappa=3.0, norm_bound=4.0, delta=0.2,
                refit_growth=0.3, max_iter=7, tol=1e-3)
    assert CQBOpt(**args).get_params() == args
    eps = dict(tau=5, c_tau=0.2, sigma0_sq=0.25, slack=0.3, explore_rate=0.4,
               exploit="greedy", random_state=11, **args)
    assert CQBEpsilon(**eps).get_params() == eps
    greedy = dict(lam_reg=2.0, refit_growth=0.3, max_iter=7, tol=1e-3, theta_init=th,
                  freeze=True)
    assert GreedyMLEPolicy(**greedy).get_params() == greedy


# ------------------------------------------------------------ kernel parameters
def test_ucb_parameter_vector_is_the_documented_one():
    pol = CQBOpt(lam_reg=2.0, c_beta=0.5, kappa=3.0, norm_bound=4.0, delta=0.2,
                 refit_growth=0.3, max_iter=7, tol=1e-3).reset(2, 3, horizon=10)
    np.testing.assert_array_equal(pol.params_, _params(
        p0=2.0, p1=0.5, p2=3.0, p3=4.0, p4=math.log(5.0), p7=0.3, p8=7, p9=1e-3, p10=1.0))
    # defaults: S = sqrt(d), delta = 1 / T
    pol = CQBOpt().reset(2, 3, horizon=10)
    np.testing.assert_array_equal(pol.params_, _params(
        p0=1.0, p1=0.01, p2=10.0, p3=math.sqrt(3), p4=math.log(10.0), p7=0.1, p8=20,
        p9=1e-8, p10=1.0))
    # T = 1: delta = 1, log(1 / delta) = 0
    assert CQBOpt().reset(1, 1, horizon=1).params_[4] == 0.0
    # QueueBlindUCB shares the vector; the greedy baseline has no radius (c_beta = 0)
    blind = QueueBlindUCBPolicy(kappa=3.0).reset(2, 3, horizon=10)
    np.testing.assert_array_equal(blind.params_, CQBOpt(kappa=3.0).reset(2, 3, 10).params_)
    greedy = GreedyMLEPolicy(lam_reg=2.0, refit_growth=0.0, max_iter=1, tol=0.5,
                             freeze=True).reset(2, 3, horizon=10)
    np.testing.assert_array_equal(greedy.params_, _params(
        p0=2.0, p7=0.0, p8=1, p9=0.5, p10=1.0, p11=1.0))
    np.testing.assert_array_equal(GreedyMLEPolicy(freeze=np.False_).reset(1, 1, 3).params_,
                                  _params(p0=1.0, p7=0.1, p8=20, p9=1e-8, p10=1.0))
    # no parameters for the oracle and the random policy
    for pol in (OraclePolicy(np.ones((2, 3))), RandomPolicy()):
        np.testing.assert_array_equal(pol.reset(2, 3, horizon=10).params_,
                                      np.zeros(K.N_PARAMS))


def test_cqb_epsilon_parameter_vector():
    pol = CQBEpsilon(tau=4, explore_rate=0.25, exploit="greedy", lam_reg=2.0, c_beta=0.5,
                     kappa=3.0, norm_bound=4.0, delta=0.2, refit_growth=0.3, max_iter=7,
                     tol=1e-3).reset(2, 3, horizon=10)
    np.testing.assert_array_equal(pol.params_, _params(
        p0=2.0, p1=0.5, p2=3.0, p3=4.0, p4=math.log(5.0), p5=4, p6=0.25, p7=0.3, p8=7,
        p9=1e-3, p10=0.0))
    # defaults: explore_rate = T^(-1/2), exploit="ucb" -> full width
    pol = CQBEpsilon(tau=3).reset(2, 3, horizon=16)
    assert pol.params_[5] == 3 and pol.params_[6] == 0.25 and pol.params_[10] == 1.0
    # boundary explore rates are allowed
    assert CQBEpsilon(tau=3, explore_rate=0.0).reset(1, 1, 16).params_[6] == 0.0
    assert CQBEpsilon(tau=3, explore_rate=1.0).reset(1, 1, 16).params_[6] == 1.0


def test_parameter_boundaries_and_messages():
    ok = [CQBOpt(c_beta=0.0), CQBOpt(norm_bound=0.0), CQBOpt(refit_growth=0.0),
          CQBOpt(max_iter=1), CQBOpt(lam_reg=1e-12), CQBOpt(tol=1e-300),
          CQBOpt(kappa=1e-12), CQBOpt(delta=1e-300), CQBOpt(delta=1 - 1e-12)]
    for pol in ok:
        pol.reset(1, 1, horizon=2)
    bad = [
        (CQBOpt(lam_reg=0), "lam_reg", "in (0, inf)", "got 0."),
        (CQBOpt(refit_growth=-0.5), "refit_growth", "in [0, inf]", "got -0.5."),
        (CQBOpt(max_iter=0), "max_iter", "in [1, inf]", "got 0."),
        (CQBOpt(tol=0.0), "tol", "in (0, inf)", "got 0.0."),
        (CQBOpt(c_beta=-1.0), "c_beta", "in [0, inf]", "got -1.0."),
        (CQBOpt(kappa=0.0), "kappa", "in (0, inf)", "got 0.0."),
        (CQBOpt(norm_bound=-1.0), "norm_bound", "in [0, inf]", "got -1.0."),
        (CQBOpt(delta=0.0), "delta", "in (0, 1)", "got 0.0."),
        (CQBOpt(delta=1.0), "delta", "in (0, 1)", "got 1.0."),
        (CQBEpsilon(explore_rate=-0.1), "explore_rate", "in [0, 1]", "got -0.1."),
        (CQBEpsilon(explore_rate=1.5), "explore_rate", "in [0, 1]", "got 1.5."),
        (CQBEpsilon(exploit="thompson"),
         "exploit", "one of ['ucb', 'greedy']", "got 'thompson'."),
        (GreedyMLEPolicy(lam_reg=-1.0), "lam_reg", "in (0, inf)", "got -1.0."),
    ]
    for pol, name, rule, value in bad:
        # a parameter's constraint error starts with the class: matched are the argument,
        # the rule and the value
        raises(lambda: pol.reset(2, 2, horizon=10), ValueError, names=name,  # noqa: B023
               shows=[f"parameter {name} must be {rule}", value])
    raises(lambda: GreedyMLEPolicy(freeze="yes").reset(2, 2, 10), TypeError, names="freeze",
           shows=["must be a bool", "got str 'yes'."])
    raises(lambda: GreedyMLEPolicy(theta_init=np.zeros((3, 3))).reset(2, 2, 10), ValueError,
           names="theta_init", shows=["(2, 2)", "got (3, 3)."],
           match=r"^theta_init must have shape ")
    raises(lambda: GreedyMLEPolicy(theta_init=[[np.nan, 0.0], [0.0, 0.0]]).reset(2, 2, 10),
           ValueError, names="theta_init", match="^theta_init")
    raises(lambda: OraclePolicy(np.zeros((3, 2))).reset(2, 2, 10), ValueError,
           names=["OraclePolicy", "thetas"], shows=["(2, 2)", "got (3, 2)."],
           match=r"^OraclePolicy\.thetas must have shape .* to match the environment, got ")
    raises(lambda: OraclePolicy([[np.inf, 0.0], [0.0, 0.0]]).reset(2, 2, 10), ValueError,
           names="thetas", match="^thetas")


# ------------------------------------------------------------ exploration length
def test_exploration_length_closed_form():
    # ceil(c d log T / (sigma0^4 eps^2)), by hand
    assert CQBEpsilon().exploration_length(5, 5000) == math.ceil(45 * math.log(5000)) == 384
    pol = CQBEpsilon(c_tau=0.5, sigma0_sq=0.5, slack=0.25)
    # 0.5 * 3 * log(100) / (0.25 * 0.0625) = 442.09...
    assert pol.exploration_length(3, 100) == 443
    assert isinstance(pol.exploration_length(3, 100), int)
    assert CQBEpsilon(c_tau=0.0).exploration_length(3, 100) == 0
    assert CQBEpsilon().exploration_length(3, 1) == 0          # log 1 = 0
    # an explicit tau is returned as given; the constants are still checked (every
    # parameter meets its constraint whether or not this call reads it)
    assert CQBEpsilon(tau=0, c_tau=0.0).exploration_length(3, 100) == 0
    assert CQBEpsilon(tau=7, slack=0.9).exploration_length(3, 100) == 7
    raises(lambda: CQBEpsilon(tau=7, slack=2.0).exploration_length(3, 100), ValueError,
           names="slack", shows=["parameter slack must be in (0, 1)", "got 2.0."])
    # boundaries of the constants
    assert CQBEpsilon(sigma0_sq=1e-3, slack=0.999).exploration_length(1, 2) > 0
    bad = [
        (CQBEpsilon(tau=-1), "tau", "in [0, inf]", "got -1."),
        (CQBEpsilon(c_tau=-0.5), "c_tau", "in [0, inf]", "got -0.5."),
        (CQBEpsilon(sigma0_sq=0.0), "sigma0_sq", "in (0, inf)", "got 0.0."),
        (CQBEpsilon(slack=0.0), "slack", "in (0, 1)", "got 0.0."),
        (CQBEpsilon(slack=1.0), "slack", "in (0, 1)", "got 1.0."),
    ]
    for pol, name, rule, value in bad:
        raises(lambda: pol.exploration_length(3, 100), ValueError, names=name,  # noqa: B023
               shows=[f"parameter {name} must be {rule}", value])
    raises(lambda: CQBEpsilon().exploration_length(0, 100), ValueError, names="n_features",
           shows=["[1, inf]", "got 0."], match=r"^n_features must be in ")
    raises(lambda: CQBEpsilon().exploration_length(3, 0), ValueError, names="horizon",
           shows=["[1, inf]", "got 0."], match=r"^horizon must be in ")
    assert CQBEpsilon(tau=2).exploration_length(1, 1) == 2


def test_whole_horizon_exploration_warning_at_its_boundary():
    msg = ("CQBEpsilon: the pure-exploration phase (tau = 10) covers the whole horizon "
           "(10 rounds); the run never exploits. Lower c_tau or set tau.")
    with pytest.warns(UserWarning, match=_exact(msg)):
        CQBEpsilon(tau=10).reset(2, 3, horizon=10)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        CQBEpsilon(tau=9).reset(2, 3, horizon=10)
        # the warning uses the policy's dimension: tau(d = 1) < T <= tau(d = 5)
        pol = CQBEpsilon(c_tau=1.0, sigma0_sq=1.0, slack=0.5)
        # ceil(4 d log 90): 18 at d = 1, 90 at d = 5
        assert pol.exploration_length(1, 90) == 18 and pol.exploration_length(5, 90) == 90
        pol.reset(5, 1, horizon=90)
    with pytest.warns(UserWarning, match=re.escape("(tau = 90) covers the whole horizon (90 ")):
        CQBEpsilon(c_tau=1.0, sigma0_sq=1.0, slack=0.5).reset(1, 5, horizon=90)


# ------------------------------------------------------------ reset / select / update
def test_reset_state_and_seeded_uniforms():
    pol = RandomPolicy(random_state=3).reset(2, 3, horizon=5)
    assert (pol.n_servers_, pol.n_features_, pol.horizon_) == (2, 3, 5)
    np.testing.assert_array_equal(pol.policy_u_, np.random.default_rng(3).random((5, 2)))
    # an explicit stream overrides the policy's own seed
    pol.reset(2, 3, horizon=4, random_state=8)
    np.testing.assert_array_equal(pol.policy_u_, np.random.default_rng(8).random((4, 2)))
    assert not hasattr(pol, "estimator_")
    # learners: an estimator with the policy's settings and the initial estimate
    th = np.arange(6.0).reshape(2, 3)
    pol = GreedyMLEPolicy(lam_reg=2.0, refit_growth=0.5, max_iter=3, tol=1e-4,
                          theta_init=th).reset(2, 3, horizon=5)
    est = pol.estimator_
    assert est.get_params() == dict(lam_reg=2.0, refit_growth=0.5, max_iter=3, tol=1e-4)
    assert type(est.get_params()["max_iter"]) is int
    np.testing.assert_array_equal(est.theta_, th)
    np.testing.assert_array_equal(est.vinv_, np.repeat(np.eye(3)[None] / 2.0, 2, axis=0))
    np.testing.assert_array_equal(CQBOpt().reset(3, 1, 5).estimator_.theta_, np.zeros((3, 1)))
    # the smallest run
    one = CQBEpsilon(tau=0).reset(1, 1, horizon=1, random_state=0)
    assert one.policy_u_.shape == (1, 2) and one.estimator_.theta_.shape == (1, 1)
    for args, name, rule, value in [((0, 2, 5), "n_servers", "in [1, inf]", "got 0."),
                                    ((2, 0, 5), "n_features", "in [1, inf]", "got 0."),
                                    ((2, 2, 0), "horizon", "in [1, inf]", "got 0.")]:
        raises(lambda: CQBOpt().reset(*args), ValueError, names=name,  # noqa: B023
               shows=[rule, value], match=f"^{name} must be ")


def test_exploration_counter_restarts_at_reset():
    pol = CQBEpsilon(tau=5, explore_rate=0.0).reset(3, 1, horizon=10, random_state=0)
    for t in (1, 2):
        pol.select(np.ones((2, 1)), t)
    assert pol.n_explore_ == 2
    pol.reset(3, 1, horizon=10, random_state=0)
    assert pol.n_explore_ == 0
    assert pol.select(np.ones((2, 1)), 1) == (1, 0)


def test_select_checks_its_input():
    pol = CQBOpt()
    raises(lambda: pol.select(np.zeros((1, 2)), 1), RuntimeError,
           names=["reset", "n_servers", "n_features", "horizon", "CQBOpt"],
           match=r"^call reset\(n_servers, n_features, horizon\) before using this ")
    raises(lambda: pol.update(np.zeros(2), 0, True), RuntimeError, names=["reset", "update"],
           match=r"^call reset\(\.\.\.\) before update\(\)\.$")
    pol.reset(2, 2, horizon=5)
    for X in (np.zeros(2), np.zeros((1, 3)), np.zeros((1, 1, 2))):
        raises(lambda: pol.select(X, 1), ValueError, names="queue_X",  # noqa: B023
               shows=["(queue_length, 2)", f"got {X.shape}."], match=r"must have shape ")
    raises(lambda: pol.select(np.zeros((1, 2)), 0), ValueError, names="t",
           shows=["[1, 5]", "got 0."])
    raises(lambda: pol.select(np.zeros((1, 2)), 6), ValueError, names="t",
           shows=["[1, 5]", "got 6."])
    assert pol.select(np.zeros((0, 2)), 5) is None
    # nested lists of numbers (also given as strings) are read as floats; at theta = 0
    # the widest job (largest norm) wins, with the lowest server
    assert pol.select([["0.5", "1"], ["2", "0.25"]], 5) == (1, 0)
    assert pol.select([[1, 0]], 1)[0] == 0


def test_random_policy_reads_its_round_uniforms():
    pol = RandomPolicy().reset(3, 1, horizon=4, random_state=0)
    pol.policy_u_ = np.array([[0.5, 0.5], [1.0, 1.0], [0.0, 0.0], [0.26, 0.67]])
    X = np.zeros((4, 1))
    assert pol.select(X, 1) == (2, 1)
    assert pol.select(X, 2) == (3, 2)      # u = 1 stays inside the queue and the servers
    assert pol.select(X, 3) == (0, 0)
    assert pol.select(X, 4) == (1, 2)
    assert pol.select(X[:1], 2) == (0, 2)


def test_cqb_epsilon_exploration_rounds_by_hand():
    pol = CQBEpsilon(tau=3, explore_rate=0.3, exploit="greedy").reset(3, 1, horizon=8)
    pol.policy_u_ = np.array([[0.9, 0.0]] * 3 + [[0.29, 0.5], [0.3, 0.0], [0.1, 1.0],
                                                  [0.9, 0.0], [0.0, 0.34]])
    X = np.array([[0.1], [-0.2], [0.3], [0.4]])
    # rounds 1..tau: newest job, servers 0, 1, 2 in turn (t = tau included)
    assert [pol.select(X, t) for t in (1, 2, 3)] == [(3, 0), (3, 1), (3, 2)]
    assert pol.n_explore_ == 3
    # u0 < rate: newest job, server floor(u1 K) (capped at K - 1)
    assert pol.select(X, 4) == (3, 1)
    assert pol.n_explore_ == 4
    # u0 == rate: exploit (greedy at theta = 0: every rate 1/2, first pair)
    assert pol.select(X, 5) == (0, 0)
    assert pol.n_explore_ == 4
    assert pol.select(X, 6) == (3, 2)
    assert pol.select(X[:2], 8) == (1, 1)
    assert pol.n_explore_ == 6
    assert pol.select(X, 7) == (0, 0)


def _ucb_by_hand(est, X, c_beta, kappa, lam, S, log_inv_delta, scale=1.0):
    """mu(x theta_k) + scale beta_k ||x||_{V_k^-1} from the estimator's state."""
    d = X.shape[1]
    mu = 1.0 / (1.0 + np.exp(-(X @ est.theta_.T)))
    width = np.sqrt(np.einsum("qi,kij,qj->qk", X, est.vinv_, X))
    core = [math.sqrt(2 * log_inv_delta + d * math.log(1 + n / (d * lam))) for n in est.n_obs_]
    beta = c_beta * kappa * (np.array(core) + math.sqrt(lam) * S)
    return mu + scale * beta[None, :] * width


def _train(pol, rng, counts):
    for k, n in enumerate(counts):
        for _ in range(n):
            x = rng.uniform(-1, 1, pol.n_features_)
            pol.update(x, k, bool(rng.random() < 0.5))


def test_ucb_choice_is_the_argmax_of_the_hand_computed_score():
    rng = np.random.default_rng(0)
    pol = CQBOpt(lam_reg=0.5, c_beta=0.3, kappa=2.0, norm_bound=1.5, delta=0.05)
    pol.reset(3, 2, horizon=50)
    _train(pol, rng, [1, 7, 25])
    est = pol.estimator_
    blind = QueueBlindUCBPolicy(lam_reg=0.5, c_beta=0.3, kappa=2.0, norm_bound=1.5,
                                delta=0.05).reset(3, 2, horizon=50)
    blind.estimator_ = est
    greedy = CQBEpsilon(tau=0, explore_rate=0.0, exploit="greedy", lam_reg=0.5, c_beta=0.3,
                        kappa=2.0, norm_bound=1.5, delta=0.05).reset(3, 2, 50, random_state=0)
    greedy.estimator_ = est
    ucb = CQBEpsilon(tau=0, explore_rate=0.0, lam_reg=0.5, c_beta=0.3, kappa=2.0,
                     norm_bound=1.5, delta=0.05).reset(3, 2, 50, random_state=0)
    ucb.estimator_ = est
    n_diff = 0
    for t in range(1, 51):
        X = rng.uniform(-1, 1, size=(1 + t % 5, 2))
        s = _ucb_by_hand(est, X, 0.3, 2.0, 0.5, 1.5, math.log(20.0))
        want = divmod(int(np.argmax(s)), 3)
        assert pol.select(X, t) == want
        assert ucb.select(X, t) == want
        assert blind.select(X, t) == (0, int(np.argmax(s[0])))
        mu = 1.0 / (1.0 + np.exp(-(X @ est.theta_.T)))
        assert greedy.select(X, t) == divmod(int(np.argmax(mu)), 3)
        n_diff += divmod(int(np.argmax(mu)), 3) != want
    assert n_diff > 5      # the width matters on these queues


def test_zero_radius_of_unobserved_servers_keeps_the_others_widths():
    # S = 0 and T = 1 (log 1/delta = 0): beta_k = 0 exactly for a server with no data,
    # > 0 for the others; their widths still count
    rng = np.random.default_rng(1)
    pol = CQBOpt(c_beta=1.0, kappa=1.0, norm_bound=0.0).reset(3, 2, horizon=1)
    _train(pol, rng, [0, 4, 40])
    est = pol.estimator_
    assert est.n_obs_.tolist() == [0, 4, 40]
    n_diff = 0
    for _ in range(40):
        X = rng.uniform(-1, 1, size=(3, 2))
        s = _ucb_by_hand(est, X, 1.0, 1.0, 1.0, 0.0, 0.0)
        want = divmod(int(np.argmax(s)), 3)
        assert pol.select(X, 1) == want
        n_diff += want != divmod(int(np.argmax(est.mean(X))), 3)
    assert n_diff > 5


def test_update_feeds_the_estimator_unless_frozen():
    x = np.array([1.0, -0.5])
    pol = CQBOpt().reset(2, 2, horizon=5)
    assert pol.update(x, 1, True) is pol
    assert pol.estimator_.n_obs_.tolist() == [0, 1]
    assert pol.estimator_.theta_[1] @ x > 0     # a departure raises the estimated rate
    pol.update(x, 0, np.False_)
    assert pol.estimator_.n_obs_.tolist() == [1, 1]
    assert pol.estimator_.theta_[0] @ x < 0
    frozen = GreedyMLEPolicy(freeze=True).reset(2, 2, horizon=5)
    frozen.update(x, 1, True)
    assert frozen.estimator_.n_obs_.tolist() == [0, 0]
    learner = GreedyMLEPolicy().reset(2, 2, horizon=5)
    learner.update(x, 1, 1)
    np.testing.assert_array_equal(learner.estimator_.theta_, pol.estimator_.theta_ * [[0], [1]])
    oracle = OraclePolicy(np.eye(2)).reset(2, 2, horizon=5)
    assert oracle.update(x, 1, True) is oracle


def test_oracle_choice_by_hand():
    thetas = np.array([[2.0, -1.0], [0.5, 0.5], [-1.0, 3.0]])
    pol = OraclePolicy(thetas.tolist()).reset(3, 2, horizon=2)
    rng = np.random.default_rng(2)
    for _ in range(30):
        X = rng.uniform(-1, 1, size=(4, 2))
        assert pol.select(X, 2) == divmod(int(np.argmax(X @ thetas.T)), 3)


# ------------------------------------------------------------ against the compiled kernel
@pytest.mark.parametrize("make", [
    lambda th: OraclePolicy(th),
    lambda th: RandomPolicy(),
    lambda th: CQBEpsilon(tau=15, explore_rate=0.2),
    lambda th: CQBEpsilon(tau=10, explore_rate=0.1, exploit="greedy"),
    lambda th: CQBOpt(c_beta=0.5, norm_bound=0.0),
    lambda th: GreedyMLEPolicy(),
    lambda th: GreedyMLEPolicy(theta_init=th, freeze=True),
    lambda th: QueueBlindUCBPolicy(c_beta=0.2),
])
def test_numpy_select_matches_the_kernel(make):
    thetas = np.array([[1.5, -0.5], [-0.5, 1.0], [0.2, 0.2]])
    env = ContextualQueueEnv(thetas, 0.6, slack=0.05)
    rand = env.sample_randomness(120, random_state=4)
    a = run_policy(make(thetas), env, randomness=rand, random_state=5, engine="numba")
    b = run_policy(make(thetas), env, randomness=rand, random_state=5, engine="python")
    np.testing.assert_array_equal(a.queue_length, b.queue_length)
    np.testing.assert_array_equal(a.jobs, b.jobs)
    np.testing.assert_array_equal(a.servers, b.servers)
    assert a.n_explore == b.n_explore
    if a.theta is not None:
        np.testing.assert_allclose(a.theta, b.theta, rtol=1e-9, atol=1e-12)
        np.testing.assert_array_equal(a.n_obs, b.n_obs)
    assert b.queue_length.max() > 1        # the choice of job matters


def test_kernel_path_validates_the_parameters_itself():
    # run_policy / simulate hand _prepare's vector straight to the kernel (no estimator
    # validates it there): max_iter = 0 must be refused, not run with no Newton step
    env = ContextualQueueEnv(np.eye(2), 0.3)
    for pol in (CQBOpt(max_iter=0), GreedyMLEPolicy(max_iter=-1), CQBEpsilon(max_iter=0)):
        raises(lambda: run_policy(pol, env, horizon=5, random_state=0),  # noqa: B023
               ValueError, names="max_iter",
               shows=["parameter max_iter must be in [1, inf]", f"got {pol.max_iter}."])


def test_policies_without_an_estimator_check_the_sizes():
    for args, name, rule, value in [((0, 1, 5), "n_servers", "in [1, inf]", "got 0."),
                                    ((1, 0, 5), "n_features", "in [1, inf]", "got 0."),
                                    ((-1, 1, 5), "n_servers", "in [1, inf]", "got -1.")]:
        raises(lambda: RandomPolicy().reset(*args), ValueError, names=name,  # noqa: B023
               shows=[rule, value], match=f"^{name} must be ")


def test_unit_radius_still_adds_the_width():
    # c_beta = kappa = lam = S = 1, T = 1 (log 1/delta = 0), no data: beta_k = 1 exactly
    pol = CQBOpt(c_beta=1.0, kappa=1.0, norm_bound=1.0).reset(2, 2, horizon=1)
    X = np.array([[0.1, 0.0], [0.0, 0.9], [0.3, 0.3]])
    # theta = 0: every rate is 1/2, the widest job (largest norm) wins, lowest server
    assert pol.select(X, 1) == (1, 0)


def test_parameters_given_as_numeric_strings_are_read_as_floats():
    th = [["1.5", "-0.5"], ["0", "2"]]
    pol = OraclePolicy(th).reset(2, 2, horizon=2)
    assert pol.select(np.array([[1.0, 0.0], [0.0, 1.0]]), 1) == (1, 1)
    greedy = GreedyMLEPolicy(theta_init=th, freeze=True).reset(2, 2, horizon=2)
    np.testing.assert_array_equal(greedy.estimator_.theta_, [[1.5, -0.5], [0.0, 2.0]])


def test_kernel_path_refuses_a_non_finite_initial_estimate_given_as_strings():
    # simulate / run_policy read _prepare's theta0 directly (no estimator re-validates it)
    env = ContextualQueueEnv(np.eye(2), 0.3)
    raises(lambda: run_policy(GreedyMLEPolicy(theta_init=[["nan", "0"], ["0", "0"]]), env,
                              horizon=5, random_state=0),
           ValueError, names="theta_init", match="^theta_init")

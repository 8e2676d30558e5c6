"""The shared policy protocol: user policies run through the queueing runners."""

import numpy as np
import pytest

from statlearn.bandits import BanditPolicy, check_policy
from statlearn.bandits.queueing import (
    OraclePolicy,
    RandomPolicy,
    make_queueing_instance,
    run_policy,
    simulate,
)


class MyOracle:
    """Re-implements OraclePolicy in plain NumPy: largest true rate, oldest job, lowest server."""

    def __init__(self, thetas):
        self.thetas = np.asarray(thetas, dtype=float)

    def reset(self, n_servers, n_features, horizon, random_state=None):
        assert self.thetas.shape == (n_servers, n_features)
        return self

    def select(self, queue_X, t):
        if len(queue_X) == 0:
            return None
        rates = 1.0 / (1.0 + np.exp(-(queue_X @ self.thetas.T)))
        job, server = np.unravel_index(np.argmax(rates), rates.shape)
        return int(job), int(server)

    def update(self, x, server, departed):
        return self


class MyRandom:
    """Re-implements RandomPolicy: two uniforms per round from the run's generator."""

    def reset(self, n_servers, n_features, horizon, random_state=None):
        self.K = n_servers
        self.u = random_state.random((horizon, 2))
        return self

    def select(self, queue_X, t):
        Q = len(queue_X)
        if Q == 0:
            return None
        u = self.u[t - 1]
        return min(int(u[0] * Q), Q - 1), min(int(u[1] * self.K), self.K - 1)

    def update(self, x, server, departed):
        return self


@pytest.fixture(scope="module")
def env():
    return make_queueing_instance(random_state=3)


def test_protocol_recognises_policies(env):
    assert isinstance(MyOracle(env.thetas), BanditPolicy)
    assert isinstance(OraclePolicy(env.thetas), BanditPolicy)
    assert check_policy(MyRandom()).__class__ is MyRandom
    with pytest.raises(TypeError, match="policy must be a bandit policy.*lacks select, update"):
        check_policy(type("Half", (), {"reset": lambda self: self})())
    with pytest.raises(TypeError, match="class, not an instance"):
        check_policy(MyRandom)


@pytest.mark.parametrize("engine", [None, "python"])
def test_user_oracle_gives_the_builtin_queue_path(env, engine):
    rand = env.sample_randomness(600, random_state=5)
    ref = run_policy(OraclePolicy(env.thetas), env, randomness=rand, random_state=1)
    mine = run_policy(MyOracle(env.thetas), env, randomness=rand, random_state=1, engine=engine)
    np.testing.assert_array_equal(mine.queue_length, ref.queue_length)
    np.testing.assert_array_equal(mine.jobs, ref.jobs)
    np.testing.assert_array_equal(mine.servers, ref.servers)
    assert mine.theta is None and mine.n_explore == 0


def test_user_random_policy_matches_builtin_through_simulate(env):
    # same seeds -> the run's generator hands the user policy the same stream
    ref = simulate(RandomPolicy(), env, horizon=300, n_reps=6, random_state=4)
    mine = simulate(MyRandom(), env, horizon=300, n_reps=6, random_state=4)
    np.testing.assert_array_equal(mine.queue_length, ref.queue_length)
    np.testing.assert_array_equal(mine.oracle_queue_length, ref.oracle_queue_length)
    assert mine.policy == "MyRandom"


def test_user_policy_refuses_numba_and_bad_objects(env):
    with pytest.raises(ValueError, match="engine='numba' runs only the built-in"):
        run_policy(MyOracle(env.thetas), env, 10, engine="numba")
    with pytest.raises(ValueError, match="engine"):
        run_policy(MyOracle(env.thetas), env, 10, engine="fortran")
    with pytest.raises(TypeError, match="policy must be a bandit policy"):
        simulate("oracle", env, horizon=10, n_reps=2)


def test_user_policy_illegal_action_is_rejected(env):
    class Bad(MyOracle):
        def select(self, queue_X, t):
            return None if len(queue_X) == 0 else (len(queue_X), 0)

    with pytest.raises(ValueError, match="job_idx"):
        run_policy(Bad(env.thetas), env, 50, random_state=0)

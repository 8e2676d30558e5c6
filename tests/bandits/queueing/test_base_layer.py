"""The queueing objects on the shared base layer (constraints, random states, array-likes).

Each test here failed before the objects moved to :mod:`statlearn.base`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

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
    simulate,
)

THETAS = np.array([[1.5, -0.5], [-0.5, 1.0]])

CLASSES = [ContextualQueueEnv, CQBEpsilon, CQBOpt, GreedyMLEPolicy, OraclePolicy,
           QueueBlindUCBPolicy, RandomPolicy, LogisticUCBEstimator]


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
def test_constraints_cover_every_parameter_and_one_params_mixin(cls):
    import inspect

    from statlearn.base import ParamsMixin

    names = [p for p in inspect.signature(cls.__init__).parameters if p != "self"]
    assert set(cls._parameter_constraints) == set(names)
    assert issubclass(cls, ParamsMixin)


def test_no_private_params_mixin_left_in_the_area():
    import statlearn.bandits.queueing._base as base

    assert not hasattr(base, "ParamsMixin")
    assert base.UnstableQueueWarning.__module__ == "statlearn.bandits.queueing._base"


def test_run_policy_accepts_every_random_state_and_repeats_it():
    # a RandomState's stream cannot spawn, a 0-d array was not read as an int
    env = ContextualQueueEnv(THETAS, 0.4)
    for make in (lambda: np.random.RandomState(3), lambda: np.asarray(3)):
        a = run_policy(RandomPolicy(), env, 40, random_state=make())
        b = run_policy(RandomPolicy(), env, 40, random_state=make())
        np.testing.assert_array_equal(a.queue_length, b.queue_length)
        np.testing.assert_array_equal(a.servers, b.servers)
    ref = run_policy(RandomPolicy(), env, 40, random_state=3)
    np.testing.assert_array_equal(run_policy(RandomPolicy(), env, 40,
                                             random_state=np.asarray(3)).servers, ref.servers)


@pytest.mark.parametrize("make", [lambda: np.random.RandomState(5),
                                  lambda: np.random.default_rng(5),
                                  lambda: np.random.SeedSequence(5), lambda: np.asarray(5)],
                         ids=["RandomState", "Generator", "SeedSequence", "0-d"])
def test_simulate_accepts_seeded_generators(make):
    env = ContextualQueueEnv(THETAS, 0.4)
    a = simulate(RandomPolicy(), env, horizon=30, n_reps=3, random_state=make())
    b = simulate(RandomPolicy(), env, horizon=30, n_reps=3, random_state=make())
    np.testing.assert_array_equal(a.queue_length, b.queue_length)
    if isinstance(make(), np.ndarray):  # a 0-d seed is the int seed itself
        ref = simulate(RandomPolicy(), env, horizon=30, n_reps=3, random_state=5)
        np.testing.assert_array_equal(a.queue_length, ref.queue_length)


def test_policy_and_env_seeds_given_as_0d_arrays():
    pol = RandomPolicy(random_state=np.asarray(2)).reset(2, 2, horizon=5)
    ref = RandomPolicy(random_state=2).reset(2, 2, horizon=5)
    np.testing.assert_array_equal(pol.policy_u_, ref.policy_u_)
    env = ContextualQueueEnv(THETAS, 0.4, random_state=np.asarray(1)).reset(horizon=10)
    ref = ContextualQueueEnv(THETAS, 0.4, random_state=1).reset(horizon=10)
    np.testing.assert_array_equal(env._rand.arrivals, ref._rand.arrivals)


def test_checkpoints_of_any_numeric_dtype_and_pandas():
    env = ContextualQueueEnv(THETAS, 0.4)
    kw = dict(horizon=30, n_reps=2, random_state=0)
    ref = simulate(RandomPolicy(), env, checkpoints=[0, 10, 20], **kw)
    for ck in (np.array([0.0, 10.0, 20.0]), np.array([0, 10, 20], dtype=np.uint8),
               pd.Series([0, 10, 20], index=[7, 8, 9])):
        got = simulate(RandomPolicy(), env, checkpoints=ck, **kw)
        np.testing.assert_array_equal(got.checkpoints, ref.checkpoints)
        np.testing.assert_array_equal(got.queue_length, ref.queue_length)
    with pytest.raises(ValueError, match="checkpoints must not contain NaN"):
        simulate(RandomPolicy(), env, checkpoints=[0.0, np.nan], **kw)


def test_common_random_numbers_as_a_0d_bool():
    env = ContextualQueueEnv(THETAS, 0.4)
    a = simulate(RandomPolicy(), env, horizon=20, n_reps=2, random_state=0,
                 common_random_numbers=np.asarray(False))
    assert a.common_random_numbers is False


def test_parameter_errors_name_the_class_the_argument_and_the_value():
    with pytest.raises(TypeError, match=r"ContextualQueueEnv parameter context_sampler must be "
                                        r"None or a callable, got int 3\."):
        ContextualQueueEnv(THETAS, 0.4, context_sampler=3).reset(horizon=3)
    with pytest.raises(ValueError, match=r"CQBOpt parameter delta must be in \(0, 1\), got 5\.0\."
                                         r" delta is a fraction"):
        CQBOpt(delta=5.0).reset(2, 2, horizon=3)
    with pytest.raises(TypeError, match=r"GreedyMLEPolicy parameter freeze must be a bool"):
        GreedyMLEPolicy(freeze=1).reset(2, 2, horizon=3)
    with pytest.raises(ValueError, match=r"ContextualQueueEnv parameter random_state"):
        ContextualQueueEnv(THETAS, 0.4, random_state=-3).reset(horizon=3)


def test_radius_refuses_nan_constants():
    est = LogisticUCBEstimator().initialize(2, 2)
    assert np.all(np.isfinite(est.radius(c_beta=np.float64(1.0), kappa=np.asarray(2.0))))
    for name in ("c_beta", "kappa", "norm_bound"):
        with pytest.raises(ValueError, match=rf"{name} must not be NaN"):
            est.radius(**{name: np.nan})


@pytest.mark.parametrize("policy", [RandomPolicy(random_state=0), CQBOpt(),
                                    OraclePolicy(THETAS)], ids=lambda p: type(p).__name__)
def test_select_refuses_nan_in_the_queue_naming_it(policy):
    # the random policy served a NaN job silently; the learners blamed an argument "X"
    policy.reset(2, 2, horizon=5)
    with pytest.raises(ValueError, match=r"^queue_X must not contain NaN"):
        policy.select(np.array([[0.1, np.nan]]), 1)

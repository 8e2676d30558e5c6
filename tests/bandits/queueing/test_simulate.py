"""simulate(): results, coupling, reproducibility, scale-out and bad input."""

import math

import numpy as np
import pytest

from statlearn.bandits.queueing import (
    ContextualQueueEnv,
    CQBOpt,
    OraclePolicy,
    QueueSimulationResult,
    RandomPolicy,
    make_queueing_instance,
    run_policy,
    simulate,
)
from statlearn.utils import Summary


@pytest.fixture(scope="module")
def env():
    return make_queueing_instance(random_state=0)


def test_result_object(env):
    res = simulate(CQBOpt(), env, horizon=800, n_reps=30, random_state=0)
    assert isinstance(res, QueueSimulationResult)
    assert res.horizon == 800 and res.n_reps == 30
    assert res.queue_length.shape == res.oracle_queue_length.shape == (30, 501)
    assert res.checkpoints[0] == 0 and res.checkpoints[-1] == 800
    r = res.queue_length[:, -1] - res.oracle_queue_length[:, -1]
    assert res.regret == pytest.approx(r.mean())
    assert res.regret_se == pytest.approx(r.std(ddof=1) / math.sqrt(30))
    lo, hi = res.confidence_interval(0.9)
    assert lo == pytest.approx(res.regret - 1.6448536 * res.regret_se)
    assert hi == pytest.approx(res.regret + 1.6448536 * res.regret_se)
    np.testing.assert_allclose(res.regret_path()[-1], res.regret)
    summ = res.summary()
    assert isinstance(summ, Summary) and "R_T" in str(summ)
    ax = res.plot()
    assert ax.get_xlabel() == "round t" and len(ax.get_lines()) == 2
    with pytest.raises(ValueError, match="confidence_level"):
        res.confidence_interval(1.5)


def test_checkpoints_and_paths_match_single_runs(env):
    res = simulate(RandomPolicy(), env, horizon=300, n_reps=3, checkpoints=[10, 100],
                   random_state=5)
    np.testing.assert_array_equal(res.checkpoints, [10, 100, 300])
    # run r uses SeedSequence(5, spawn_key=(0, r)): recompute run 1 by hand
    rng = np.random.default_rng(np.random.SeedSequence(5, spawn_key=(0, 1)))
    env_rng, pol_rng, _ = rng.spawn(3)
    rand = env.sample_randomness(300, env_rng)
    run = run_policy(RandomPolicy(), env, randomness=rand, random_state=pol_rng)
    np.testing.assert_array_equal(res.queue_length[1], run.queue_length[[10, 100, 300]])


def test_reproducible_and_engine_independent(env):
    a = simulate(CQBOpt(), env, horizon=300, n_reps=4, random_state=9)
    b = simulate(CQBOpt(), env, horizon=300, n_reps=4, random_state=9)
    c = simulate(CQBOpt(), env, horizon=300, n_reps=4, random_state=9, engine="python")
    np.testing.assert_array_equal(a.queue_length, b.queue_length)
    np.testing.assert_array_equal(a.queue_length, c.queue_length)
    d = simulate(CQBOpt(), env, horizon=300, n_reps=4, random_state=10)
    assert not np.array_equal(a.queue_length, d.queue_length)


def test_parallel_backend_gives_the_same_table(env):
    a = simulate(CQBOpt(), env, horizon=400, n_reps=6, random_state=3)
    b = simulate(CQBOpt(), env, horizon=400, n_reps=6, random_state=3, n_jobs=2,
                 backend="threading")
    np.testing.assert_array_equal(a.queue_length, b.queue_length)
    np.testing.assert_array_equal(a.oracle_queue_length, b.oracle_queue_length)


def test_store_resumes(env, tmp_path):
    store = str(tmp_path / "q.sqlite")
    a = simulate(CQBOpt(), env, horizon=200, n_reps=3, random_state=1, store=store)
    b = simulate(CQBOpt(), env, horizon=200, n_reps=5, random_state=1, store=store)
    np.testing.assert_array_equal(a.queue_length, b.queue_length[:3])


def test_common_random_numbers_reduce_variance_not_bias(env):
    """Coupling keeps E[Q*(T)] and shrinks the spread of Q(T) - Q*(T)."""
    kw = dict(horizon=1000, n_reps=200, checkpoints=[1000], random_state=11)
    crn = simulate(CQBOpt(), env, common_random_numbers=True, **kw)
    ind = simulate(CQBOpt(), env, common_random_numbers=False, **kw)
    # identical learner runs; only the oracle's randomness differs
    np.testing.assert_array_equal(crn.queue_length, ind.queue_length)
    assert crn.regret_se < 0.7 * ind.regret_se
    # both oracle samples have the same law: means within 4.5 SE (false alarm < 1e-5)
    o1, o2 = crn.oracle_queue_length[:, -1], ind.oracle_queue_length[:, -1]
    se = math.sqrt(o1.var(ddof=1) / o1.size + o2.var(ddof=1) / o2.size)
    assert abs(o1.mean() - o2.mean()) < 4.5 * se


@pytest.mark.parametrize(
    "kwargs, exc, match",
    [
        ({"policy": "oracle"}, TypeError, "policy must be"),
        ({"env": object()}, TypeError, "env must be"),
        ({"horizon": 0}, ValueError, "horizon"),
        ({"horizon": 10.0}, TypeError, "horizon"),
        ({"n_reps": 0}, ValueError, "n_reps"),
        ({"common_random_numbers": "yes"}, TypeError, "common_random_numbers"),
        ({"engine": "cython"}, ValueError, "engine"),
        ({"checkpoints": [-1, 3]}, ValueError, "checkpoints"),
        ({"checkpoints": [0.5]}, ValueError, "checkpoints"),
        ({"checkpoints": [np.nan]}, ValueError, "checkpoints"),
        ({"checkpoints": ["3"]}, TypeError, "checkpoints"),
        ({"checkpoints": [20]}, ValueError, "checkpoints"),
        ({"random_state": "seed"}, TypeError, "random_state"),
        ({"random_state": -1}, ValueError, "random_state"),
        ({"policy": OraclePolicy(np.zeros((2, 5)))}, ValueError, "shape"),
    ],
)
def test_bad_input(env, kwargs, exc, match):
    args = {"policy": CQBOpt(), "env": env, "horizon": 10, "n_reps": 2}
    args.update(kwargs)
    with pytest.raises(exc, match=match):
        simulate(**args)


def test_run_policy_bad_input(env):
    with pytest.raises(ValueError, match="horizon or a QueueRandomness"):
        run_policy(CQBOpt(), env)
    with pytest.raises(TypeError, match="QueueRandomness"):
        run_policy(CQBOpt(), env, randomness=np.zeros(3))
    rand = env.sample_randomness(20, random_state=0)
    with pytest.raises(ValueError, match="does not match"):
        run_policy(CQBOpt(), env, horizon=30, randomness=rand)
    other = ContextualQueueEnv(np.zeros((2, 3)), 0.5)
    with pytest.raises(ValueError, match="feature dimension"):
        run_policy(CQBOpt(), other, randomness=rand)
    from statlearn.bandits.queueing import QueueRandomness

    bad = [
        (QueueRandomness(rand.arrivals, rand.features, rand.service_u[:5]), ValueError,
         "shapes"),
        (QueueRandomness(rand.arrivals.astype(int), rand.features, rand.service_u), TypeError,
         "boolean"),
        (QueueRandomness(rand.arrivals, rand.features, rand.service_u + 2), ValueError,
         "service_u"),
    ]
    for r, exc, match in bad:
        with pytest.raises(exc, match=match):
            run_policy(CQBOpt(), env, randomness=r)

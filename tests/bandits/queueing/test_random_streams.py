"""The random streams of the queueing simulation: the context sampler's law and path,
and reproducible ``simulate`` runs that equal their single runs.
"""

from __future__ import annotations

import numpy as np


def test_contexts_are_the_first_accepted_draws_of_the_uniform_stream():
    """The rejection sampler's law, from its definition: the arriving contexts are the
    first accepted candidates of the uniform stream (drawn after arrivals and service
    uniforms), accepted when max_k mu(x^T theta_k) >= lambda + eps. Checked exactly
    against a brute-force draw written here, so faster sampling changed neither the
    law nor the random-number path."""
    from statlearn.bandits.queueing import make_queueing_instance

    env = make_queueing_instance(random_state=0)
    lam, eps, T = env.arrival_rate, env.slack, 5000
    thetas = np.asarray(env.thetas)
    for seed in (0, 1, 2):
        rand = env.sample_randomness(T, random_state=seed)
        rng = np.random.default_rng(seed)
        arrivals = rng.random(T) < lam
        service = rng.random(T)
        cand = rng.uniform(-1.0, 1.0, size=(60 * T, thetas.shape[1]))
        best = (1.0 / (1.0 + np.exp(-(cand @ thetas.T)))).max(axis=1)
        accepted = cand[best >= lam + eps]
        n = int(arrivals.sum())
        np.testing.assert_array_equal(rand.arrivals, arrivals)
        np.testing.assert_array_equal(rand.service_u, service)
        np.testing.assert_array_equal(rand.features[arrivals], accepted[:n])
        assert np.all(rand.features[~arrivals] == 0)
        assert abs(rand.acceptance_rate - np.mean(best >= lam + eps)) < 0.02


def test_simulate_is_reproducible_and_equals_its_runs():
    from statlearn.bandits.queueing import CQBOpt, make_queueing_instance, run_policy, simulate

    env = make_queueing_instance(random_state=0)
    a = simulate(CQBOpt(), env, horizon=1500, n_reps=3, random_state=4)
    b = simulate(CQBOpt(), env, horizon=1500, n_reps=3, random_state=4)
    np.testing.assert_array_equal(a.queue_length, b.queue_length)
    np.testing.assert_array_equal(a.oracle_queue_length, b.oracle_queue_length)
    # run r uses SeedSequence(4, spawn_key=(0, r)) -> env, policy streams
    rng = np.random.default_rng(np.random.SeedSequence(4, spawn_key=(0, 1)))
    env_rng, pol_rng, _ = rng.spawn(3)
    rand = env.sample_randomness(1500, random_state=env_rng)
    run = run_policy(CQBOpt(), env, randomness=rand, random_state=pol_rng)
    assert a.queue_length[1, -1] == run.queue_length[-1]


def test_a_policy_seed_drives_its_draws_when_the_run_has_none():
    # run_policy(random_state=None) used to draw the policy's randomness from a fresh
    # stream, ignoring the policy's own seed: a seeded policy gave a different run each
    # time. Now the policy's seed is used (both engines), and a seed for the run wins
    from statlearn.bandits.queueing import (
        CQBEpsilon,
        RandomPolicy,
        make_queueing_instance,
        run_policy,
    )

    env = make_queueing_instance(random_state=0)
    rand = env.sample_randomness(400, random_state=1)
    for make in (RandomPolicy, CQBEpsilon):
        for engine in ("numba", "python"):
            a = run_policy(make(random_state=0), env, randomness=rand, engine=engine)
            b = run_policy(make(random_state=0), env, randomness=rand, engine=engine)
            c = run_policy(make(random_state=1), env, randomness=rand, engine=engine)
            np.testing.assert_array_equal(a.jobs, b.jobs)
            assert not np.array_equal(a.jobs, c.jobs)
            # the run's own seed overrides the policy's
            d = run_policy(make(random_state=0), env, randomness=rand, random_state=5,
                           engine=engine)
            e = run_policy(make(random_state=1), env, randomness=rand, random_state=5,
                           engine=engine)
            np.testing.assert_array_equal(d.jobs, e.jobs)

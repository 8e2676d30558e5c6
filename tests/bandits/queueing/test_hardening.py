"""The NumPy estimator warns when a Newton refit stops short, and uses the parameters
captured at ``initialize`` only."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

from statlearn.bandits.queueing import LogisticUCBEstimator


def _feed(est, n, seed=0):
    rng = np.random.default_rng(seed)
    for _ in range(n):
        x = rng.uniform(-1, 1, est.theta_.shape[1])
        est.update(x, 0, bool(rng.random() < 1 / (1 + np.exp(-x.sum()))))
    return est


def test_newton_refit_that_hits_max_iter_warns():
    est = LogisticUCBEstimator(max_iter=1, refit_growth=0.0).initialize(1, 3)
    with pytest.warns(ConvergenceWarning, match="max_iter=1"):
        _feed(est, 5)
    ok = LogisticUCBEstimator(refit_growth=0.0).initialize(1, 3)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        _feed(ok, 50)


def test_parameters_are_captured_at_initialize():
    a = _feed(LogisticUCBEstimator(lam_reg=1.0).initialize(2, 3), 60)
    b = _feed(LogisticUCBEstimator(lam_reg=1.0).initialize(2, 3), 30)
    r = a.radius(c_beta=1.0, delta=0.01)
    a.set_params(lam_reg=50.0, refit_growth=0.0, max_iter=1)
    np.testing.assert_array_equal(a.radius(c_beta=1.0, delta=0.01), r)
    b.set_params(lam_reg=50.0, max_iter=1)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        _feed(b, 30, seed=0)  # would warn (and refit with lam 50) if read live
    c = _feed(LogisticUCBEstimator(lam_reg=1.0).initialize(2, 3), 30)
    _feed(c, 30, seed=0)
    np.testing.assert_allclose(b.theta_, c.theta_, rtol=0, atol=0)


# ------------------------------------------------------------ fast context sampling
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


# ------------------------------------------------- unconverged refits on both engines
def _convergence_messages(fn):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = fn()
    return out, [str(w.message) for w in caught if w.category is ConvergenceWarning]


def test_both_engines_report_refits_that_stop_at_max_iter():
    """max_iter=1 with a refit at every observation cannot reach tol=1e-8: the Python
    engine warns at each refit; the compiled engine must warn too, once per server, with
    the number of refits and the last step the Python engine reported for that server.
    With the default max_iter neither engine warns."""
    import re

    from statlearn.bandits.queueing import CQBOpt, make_queueing_instance, run_policy, simulate

    env = make_queueing_instance(n_servers=2, n_features=3, random_state=0)
    rand = env.sample_randomness(300, random_state=1)

    def run(engine, **kw):
        return _convergence_messages(lambda: run_policy(
            CQBOpt(**kw), env, randomness=rand, random_state=2, engine=engine))

    slow, py_msgs = run("python", max_iter=1, refit_growth=0.0)
    fast, nb_msgs = run("numba", max_iter=1, refit_growth=0.0)
    np.testing.assert_array_equal(fast.queue_length, slow.queue_length)
    assert slow.n_unconverged == fast.n_unconverged == len(py_msgs) > 0
    assert len(nb_msgs) == len(np.unique(slow.servers[slow.servers >= 0]))
    pattern = re.compile(r"LogisticUCBEstimator: (the Newton refit|(\d+) Newton refits) of "
                         r"server (\d+) stopped after max_iter=1 iterations with a last step "
                         r"of (\S+) >= tol=1e-08; the estimate is not the regularised MLE "
                         r"\(increase max_iter\)\.")
    py = [pattern.fullmatch(m) for m in py_msgs]
    assert all(m is not None and m.group(1) == "the Newton refit" for m in py)
    for m in map(pattern.fullmatch, nb_msgs):
        assert m is not None
        k = m.group(3)
        mine = [p for p in py if p.group(3) == k]
        assert int(m.group(2)) == len(mine)
        # the last step of the latest refit: both engines print it with 3 significant
        # digits from exp's of different libraries (last bits differ), so the two printed
        # values may fall on either side of a rounding boundary: one unit in the third
        # digit, at most 1% apart
        assert float(m.group(4)) == pytest.approx(float(mine[-1].group(4)), rel=1.01e-2)
    for engine in ("python", "numba"):
        ok, msgs = run(engine)
        assert msgs == [] and ok.n_unconverged == 0
    # simulate (workers do not warn) reports them once on the driver, on either engine
    counts = []
    for engine in ("python", "numba"):
        _, msgs = _convergence_messages(lambda e=engine: simulate(
            CQBOpt(max_iter=1, refit_growth=0.0), env, horizon=150, n_reps=2,
            random_state=3, engine=e))
        assert len(msgs) == 1 and "of the 2 runs stopped after max_iter=1" in msgs[0]
        counts.append(msgs[0])
    assert counts[0] == counts[1]
    _, msgs = _convergence_messages(lambda: simulate(CQBOpt(), env, horizon=150, n_reps=2,
                                                     random_state=3))
    assert msgs == []

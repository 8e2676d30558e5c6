"""Newton refits of the UCB estimator: warnings when a refit stops short (on both engines),
and only the parameters captured at ``initialize`` are used.
"""

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

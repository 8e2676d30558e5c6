"""The Newton step of a request runs its BLAS calls on one thread, and restores the count.

BLAS workers that keep spinning after a multi-threaded call share the cores with the
parallel Numba gradient pass of the certificate (``statlearn.utils._numba.one_blas_thread``);
the timing is in ``benchmarks/bench_unlearning.py --requests``, these tests check the
mechanism: the limit is in place during the step, only there, and the answer is unchanged.
"""

from __future__ import annotations

import numpy as np
import pytest
from threadpoolctl import threadpool_info, threadpool_limits

from statlearn.unlearning import NewtonUnlearner, make_glm_data
from statlearn.utils._numba import NUMBA_ENABLED, one_blas_thread


def _blas_threads():
    return [i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"]


@pytest.fixture
def two_blas_threads():
    """BLAS on two threads for the test (the test session may start with one)."""
    with threadpool_limits(limits=2, user_api="blas"):
        if set(_blas_threads()) != {2}:
            pytest.skip("BLAS cannot be set to two threads here")
        yield


def test_one_blas_thread_limits_and_restores(two_blas_threads):
    with one_blas_thread():
        assert set(_blas_threads()) == {1}
    assert set(_blas_threads()) == {2}


@pytest.mark.skipif(not NUMBA_ENABLED, reason="the limit guards the parallel Numba pass")
def test_the_request_step_runs_blas_on_one_thread_and_restores_it(monkeypatch,
                                                                  two_blas_threads):
    X, y, _ = make_glm_data(200, 5, random_state=0)
    est = NewtonUnlearner(alpha=0.5, random_state=0).fit(X, y)
    ref = NewtonUnlearner(alpha=0.5, random_state=0).fit(X, y)
    seen = []
    mech = est._mechanism
    step = mech.step

    def spy(*args, **kwargs):
        seen.append(_blas_threads())
        return step(*args, **kwargs)

    monkeypatch.setattr(mech, "step", spy)
    est.unlearn([0, 1, 2])
    assert seen and set(seen[0]) == {1}
    assert set(_blas_threads()) == {2}
    # the same release as without the limit (the limit changes no arithmetic path
    # of these small products beyond rounding)
    monkeypatch.setattr("statlearn.unlearning._estimator.NUMBA_ENABLED", False)
    ref.unlearn([0, 1, 2])
    np.testing.assert_allclose(est.coef_, ref.coef_, rtol=1e-10, atol=1e-12)

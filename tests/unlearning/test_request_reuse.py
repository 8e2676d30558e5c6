"""What a removal request reuses: the kept gradient, the one-pass gradient, the stored factor.

A request's first gradient is the gradient kept for the current state (from
``fit``, or the previous request's certificate) minus the terms of the rows
removed now: the retained gradient is linear in the rows, so this is the
same value as a pass over the kept rows, at any point (no optimality
assumed). The certificate's gradient is one blocked pass over ``X``. These
tests compare both against the definitions (``_reference``), against the
estimator with the kept gradient switched off, and count the passes; the
triangular solves (LAPACK ``trtrs`` on either memory order of the factor) are
compared with dense solves.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from statlearn.unlearning import NewtonUnlearner, UnlearningWarning, _kernels, make_glm_data
from statlearn.unlearning._kernels import downdated_gradient, retained_gradient
from statlearn.unlearning._requests import Retained
from statlearn.utils import NUMBA_ENABLED, set_num_threads_ctx

from ._reference import grad, hess, penalty, solve


# ------------------------------------------------------------------ the kernels
@pytest.mark.parametrize("loss", ["squared", "logistic", "poisson"])
@pytest.mark.parametrize("order", ["C", "F"])
def test_one_pass_gradient_is_the_two_product_gradient(loss, order):
    # n = 1500 rows of p = 300: blocks of 436 rows, the last one partial
    X, y, _ = make_glm_data(1500, 300, loss=loss, random_state=2)
    X = np.asarray(X, order=order)
    rng = np.random.default_rng(0)
    beta = rng.standard_normal(300) * 0.5
    pen = penalty(300, 0.7, True)
    mask = np.ones(1500)
    mask[rng.choice(1500, 40, replace=False)] = 0.0
    shift = rng.standard_normal(300)
    keep = mask > 0
    ref = grad(beta, X[keep], y[keep], loss, pen)
    got = retained_gradient(X, y, beta, mask, loss, pen, np)
    np.testing.assert_allclose(got, ref, rtol=1e-10, atol=1e-12 * np.abs(ref).max())
    got = retained_gradient(X, y, beta, None, loss, pen, np, shift=shift)
    ref = grad(beta, X, y, loss, pen) + shift
    np.testing.assert_allclose(got, ref, rtol=1e-10, atol=1e-12 * np.abs(ref).max())


@pytest.mark.parametrize("path", ["rows", "blocks", "F-ordered"])
@pytest.mark.parametrize("removed", [0, 2, 7, 1499])
def test_a_removed_row_whose_derivative_overflows_adds_nothing(path, removed):
    # here exp(x_i^T beta) overflows for the removed row, and 0 * inf would turn the
    # whole gradient into NaN. The Numba pass takes eight rows per sweep (32 chunks of
    # 47 rows: five sweeps and seven rows left): the removed row inside a sweep (rows
    # 0, 2 and 7, its first, third and last slot) or in the rows left after the last
    # chunk's sweeps (row 1499); its NumPy twin works in blocks; F-ordered input takes
    # the two products
    X, y, _ = make_glm_data(1500, 30, loss="poisson", random_state=4)
    beta = np.full(30, 0.1)
    X = X.copy()
    X[removed] = 1e3  # x_i^T beta = 3000
    mask = np.ones(1500)
    mask[removed] = 0.0
    keep = mask > 0
    ref = grad(beta, X[keep], y[keep], "poisson", penalty(30, 0.0, False))
    with np.errstate(over="ignore"):
        if path == "blocks":
            got = _kernels._gradient_blocks(X, y, beta, mask, "poisson")
        else:
            Xp = np.asfortranarray(X) if path == "F-ordered" else X
            got = retained_gradient(Xp, y, beta, mask, "poisson", 0.0, np)
    assert np.all(np.isfinite(got))
    np.testing.assert_allclose(got, ref, rtol=1e-10, atol=1e-12 * np.abs(ref).max())


@pytest.mark.parametrize("loss", ["squared", "logistic", "poisson"])
def test_numpy_twin_of_the_row_pass_is_the_two_product_gradient(loss):
    # the blocked NumPy pass runs only where Numba is off: checked here directly
    X, y, _ = make_glm_data(1500, 300, loss=loss, random_state=2)
    rng = np.random.default_rng(3)
    beta = rng.standard_normal(300) * 0.5
    mask = np.ones(1500)
    mask[rng.choice(1500, 40, replace=False)] = 0.0
    for m in (mask, None):
        keep = np.ones(1500, bool) if m is None else m > 0
        ref = grad(beta, X[keep], y[keep], loss, penalty(300, 0.0, True))
        got = _kernels._gradient_blocks(X, y, beta, m, loss)
        np.testing.assert_allclose(got, ref, rtol=1e-10, atol=1e-12 * np.abs(ref).max())


@pytest.mark.skipif(not NUMBA_ENABLED, reason="the thread count of the Numba pass")
@pytest.mark.parametrize("n", [7, 1000, 4099])
def test_row_pass_does_not_depend_on_the_thread_count(n):
    # a fixed number of row chunks, summed in order: one thread and all threads add the
    # same numbers in the same order (one CPU, one build: the same bits); every row is
    # counted once whatever n mod the chunk count (n = 7 leaves most chunks empty)
    X, y, _ = make_glm_data(n, 13, loss="logistic", random_state=n)
    beta = np.linspace(-1.0, 1.0, 13)
    with set_num_threads_ctx(1):
        one = retained_gradient(X, y, beta, None, "logistic", 0.0, np)
    many = retained_gradient(X, y, beta, None, "logistic", 0.0, np)
    assert np.array_equal(one, many)
    ref = grad(beta, X, y, "logistic", penalty(13, 0.0, False))
    np.testing.assert_allclose(one, ref, rtol=1e-10, atol=1e-12 * np.abs(ref).max())


@pytest.mark.parametrize("loss", ["squared", "logistic", "poisson"])
def test_downdated_gradient_is_the_kept_gradient_at_any_point(loss):
    X, y, _ = make_glm_data(200, 8, loss=loss, random_state=4)
    beta = np.random.default_rng(1).standard_normal(8)  # far from any minimiser
    pen = penalty(8, 1.3, False)
    M = [5, 50, 51, 199]
    keep = np.setdiff1d(np.arange(200), M)
    got = downdated_gradient(grad(beta, X, y, loss, pen), X[M], y[M], beta, loss, np)
    ref = grad(beta, X[keep], y[keep], loss, pen)
    np.testing.assert_allclose(got, ref, rtol=1e-10, atol=1e-12 * np.abs(ref).max())
    # nothing removed: unchanged
    g = grad(beta, X, y, loss, pen)
    assert downdated_gradient(g, X[:0], y[:0], beta, loss, np) is g


# ------------------------------------------------------------------ requests against definitions
def _quiet_unlearn(est, M, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnlearningWarning)
        return est.unlearn(M, **kwargs)


@pytest.mark.parametrize("loss", ["logistic", "poisson"])
def test_sequential_requests_are_the_downdated_newton_steps(loss):
    # no intercept: each request's gradient is the previous certificate's, downdated
    X, y, _ = make_glm_data(150, 10, loss=loss, random_state=7)
    alpha = 0.6
    pen = penalty(10, alpha, False)
    theta = solve(X, y, loss, pen)
    est = NewtonUnlearner(loss=loss, alpha=alpha, fit_intercept=False, noise=None,
                          solver="newton").fit(X, y)
    beta, removed = theta, []
    for M in ([3, 40], [7], [90, 91, 120]):
        removed = removed + M
        keep = np.setdiff1d(np.arange(150), removed)
        # the stored Hessian is the fit point's, downdated by every removed row
        H = hess(theta, X[keep], y[keep], loss, pen)
        beta = beta - np.linalg.solve(H, grad(beta, X[keep], y[keep], loss, pen))
        _quiet_unlearn(est, M)
        rep = est.unlearn_report_
        np.testing.assert_allclose(est.coef_, beta, rtol=1e-9, atol=1e-12)
        g = grad(beta, X[keep], y[keep], loss, pen)
        assert rep.delta_cert == pytest.approx(np.linalg.norm(g) / alpha, rel=1e-6)
        assert (rep.hessian, rep.fallback, rep.certified) == ("stored", False, True)


def _without_kept_gradient(est, M, **kwargs):
    """The request with the kept gradient dropped: a pass over the kept rows instead."""
    est._state_grad = None
    return _quiet_unlearn(est, M, **kwargs)


@pytest.mark.parametrize("loss", ["squared", "logistic", "poisson"])
@pytest.mark.parametrize("intercept", [True, False])
@pytest.mark.parametrize("mechanism", ["newton", "guo"])
def test_reused_gradient_gives_the_outputs_of_the_full_pass(loss, intercept, mechanism):
    if mechanism == "guo" and loss == "poisson":
        pytest.skip("the Guo et al. baseline supports the logistic and squared losses")
    X, y, _ = make_glm_data(160, 12, loss=loss, random_state=11)
    kw = dict(loss=loss, alpha=0.8, fit_intercept=intercept, mechanism=mechanism,
              random_state=0)
    fast = NewtonUnlearner(**kw).fit(X, y)
    slow = NewtonUnlearner(**kw).fit(X, y)
    for M in ([1, 2], [30], [], [100, 101, 102, 103]):
        _quiet_unlearn(fast, M)
        _without_kept_gradient(slow, M)
        a, b = fast.unlearn_report_, slow.unlearn_report_
        np.testing.assert_allclose(fast.coef_, slow.coef_, rtol=1e-10, atol=1e-13)
        assert fast.intercept_ == pytest.approx(slow.intercept_, rel=1e-10, abs=1e-13)
        # squared loss: both are rounding (~1e-15) since its one step is exact
        assert a.delta_cert == pytest.approx(b.delta_cert, rel=1e-8, abs=1e-12)
        assert a.newton_residual_norm == pytest.approx(b.newton_residual_norm, rel=1e-8,
                                                       abs=1e-12)
        assert (a.certified, a.fallback, a.hessian) == (b.certified, b.fallback, b.hessian)


def test_reused_gradient_after_a_fallback_and_with_two_steps():
    X, y, _ = make_glm_data(140, 9, random_state=12)
    for kw in (dict(noise_scale=1e-12), dict(n_newton_steps=2)):
        fast = NewtonUnlearner(alpha=0.5, fit_intercept=False, noise=None, **kw).fit(X, y)
        slow = NewtonUnlearner(alpha=0.5, fit_intercept=False, noise=None, **kw).fit(X, y)
        for M in ([0, 1, 2], [50], [60, 61]):
            _quiet_unlearn(fast, M)
            _without_kept_gradient(slow, M)
            np.testing.assert_allclose(fast.coef_, slow.coef_, rtol=1e-10, atol=1e-13)
            a, b = fast.unlearn_report_, slow.unlearn_report_
            assert a.fallback == b.fallback
            # the Newton step before the refit: from the gradient at the refit's point
            assert a.newton_residual_norm == pytest.approx(b.newton_residual_norm, rel=1e-8)
        assert fast.unlearn_report_.fallback is ("noise_scale" in kw)


@pytest.mark.parametrize("loss", ["squared", "logistic", "poisson"])
@pytest.mark.parametrize("assume_optimal", [False, True])
def test_first_request_solves_no_right_hand_side_for_its_gradient(monkeypatch, loss,
                                                                   assume_optimal):
    # the first request after fit writes its gradient as g_base - U^T c (L^{-1} g_base
    # kept from fit, or 0 at an assumed optimum) and solves only U^T; rows given out of
    # order, so c must be placed at the rows' positions in U (sorted)
    from statlearn.unlearning import _linalg, _mechanisms

    X, y, _ = make_glm_data(200, 15, loss=loss, random_state=21)
    kw = dict(loss=loss, alpha=0.7, noise=None, assume_optimal=assume_optimal)
    fast = NewtonUnlearner(**kw).fit(X, y)
    slow = NewtonUnlearner(**kw).fit(X, y)
    widths = []
    real = _linalg.solve_lower

    def counted(L, B, xp, trans=False):
        if not trans and B.ndim == 2 and B.shape[0] == L.shape[0]:
            widths.append(B.shape[1])
        return real(L, B, xp, trans=trans)

    monkeypatch.setattr(_linalg, "solve_lower", counted)
    M = [150, 3, 77, 12]
    _quiet_unlearn(fast, M)
    assert widths == [len(M)]
    monkeypatch.setattr(_mechanisms, "_known_forward", lambda *args: None)
    _quiet_unlearn(slow, M)
    assert widths == [len(M), len(M) + 1]
    np.testing.assert_allclose(fast.coef_, slow.coef_, rtol=1e-10, atol=1e-13)
    a, b = fast.unlearn_report_, slow.unlearn_report_
    assert a.delta_cert == pytest.approx(b.delta_cert, rel=1e-8, abs=1e-12)
    assert (a.hessian, a.certified) == (b.hessian, b.certified) == ("stored", True)


def test_a_removed_row_of_negligible_weight_keeps_its_gradient_column():
    # sqrt(l'') below 1e-100 for a removed row (a logistic margin of ~500): its c_i =
    # l'_i / sqrt(l''_i) is not formed, and the request solves g itself
    from statlearn.unlearning._mechanisms import _known_forward

    X, y, _ = make_glm_data(100, 5, random_state=22)
    est = NewtonUnlearner(alpha=0.5, noise=None).fit(X, y)
    s = np.full((3, 1), 0.3)
    args = (est, est._state_grad[1], np.array([0.1, -0.2, 0.3]))
    rows = (np.array([9, 4, 30]), np.array([4, 9, 30]))
    t0, c = _known_forward(*args, s, *rows, np)
    np.testing.assert_allclose(c, np.array([-0.2, 0.1, 0.3]) / 0.3)
    assert t0 is est._state_linv[1]
    s[1, 0] = 1e-101
    assert _known_forward(*args, s, *rows, np) is None
    # a kept gradient of another point has no kept L^{-1} g_base
    assert _known_forward(est, est._state_grad[1].copy(), *args[2:], s, *rows, np) is None


# ------------------------------------------------------------------ the passes a request makes
@pytest.mark.parametrize("intercept,verify,passes", [
    (False, True, [1, 1, 1]),   # the certificate only; its gradient is the next request's
    (False, False, [0, 1, 1]),  # the fit's gradient; later states have none kept
    (True, True, [1, 2, 2]),    # the certificate is at the profiled intercept, not the state
])
def test_passes_over_the_data_per_request(monkeypatch, intercept, verify, passes):
    X, y, _ = make_glm_data(120, 6, random_state=3)
    est = NewtonUnlearner(alpha=0.5, fit_intercept=intercept, verify=verify,
                          random_state=0).fit(X, y)
    calls = []
    original = Retained.gradient

    def counted(self, beta):
        calls.append(1)
        return original(self, beta)

    monkeypatch.setattr(Retained, "gradient", counted)
    seen = []
    for M in ([4], [9], [20, 21]):
        before = len(calls)
        _quiet_unlearn(est, M)
        seen.append(len(calls) - before)
    assert seen == passes


def test_a_kept_gradient_of_another_point_is_not_used():
    X, y, _ = make_glm_data(120, 6, random_state=3)
    est = NewtonUnlearner(alpha=0.5, fit_intercept=False, noise=None).fit(X, y)
    ref = NewtonUnlearner(alpha=0.5, fit_intercept=False, noise=None).fit(X, y)
    # a gradient kept for an equal-valued copy of the state, holding garbage
    est._state_grad = (est._beta.copy(), np.full(6, 1e3))
    _quiet_unlearn(est, [5, 6])
    _without_kept_gradient(ref, [5, 6])
    np.testing.assert_allclose(est.coef_, ref.coef_, rtol=1e-10, atol=1e-13)


# ------------------------------------------------------------------ the triangular solves
@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("trans", [False, True])
@pytest.mark.parametrize("ncols", [None, 4])
def test_triangular_solve_in_either_memory_order(order, trans, ncols):
    from statlearn.unlearning._linalg import solve_lower

    rng = np.random.default_rng(5)
    L = np.tril(rng.standard_normal((30, 30))) + 6.0 * np.eye(30)
    B = rng.standard_normal(30) if ncols is None else rng.standard_normal((30, ncols))
    got = solve_lower(np.asarray(L, order=order), B, np, trans=trans)
    ref = np.linalg.solve(L.T if trans else L, B)
    assert got.shape == B.shape
    np.testing.assert_allclose(got, ref, rtol=1e-10, atol=1e-13)


def test_triangular_solve_with_a_zero_pivot_raises():
    from statlearn.unlearning._linalg import solve_lower

    L = np.tril(np.ones((4, 4)))
    L[2, 2] = 0.0
    with pytest.raises(np.linalg.LinAlgError, match="triangular solve"):
        solve_lower(L, np.ones(4), np)

"""Array-API linear algebra: triangular solves, Woodbury downdate, jitter retry."""

from __future__ import annotations

import numpy as np
import pytest

from statlearn.unlearning._glm import objective_gradient, objective_hessian
from statlearn.unlearning._linalg import (
    CholeskyError,
    cho_solve,
    cholesky_lower,
    factor_with_jitter,
    woodbury_downdate_solve,
)
from statlearn.utils import to_numpy


def _spd(p, seed):
    rng = np.random.default_rng(seed)
    A = rng.standard_normal((2 * p, p))
    return A.T @ A + 0.5 * np.eye(p), rng


@pytest.mark.parametrize("m", [0, 1, 7])
def test_woodbury_downdate_matches_dense_solve(xp, m):
    p = 12
    H, rng = _spd(p, m)
    U = 0.3 * rng.standard_normal((m, p))
    v = rng.standard_normal(p)
    L = cholesky_lower(xp.asarray(H), xp)
    got = woodbury_downdate_solve(L, xp.asarray(U), xp.asarray(v), xp)
    expected = np.linalg.solve(H - U.T @ U, v)
    np.testing.assert_allclose(to_numpy(got), expected, rtol=1e-10)
    np.testing.assert_allclose(to_numpy(cho_solve(L, xp.asarray(v), xp)),
                               np.linalg.solve(H, v), rtol=1e-10)


def test_woodbury_refuses_a_downdate_that_is_not_positive_definite(xp):
    H = np.eye(3)
    U = np.array([[2.0, 0.0, 0.0]])  # H - U^T U has eigenvalue -3
    L = cholesky_lower(xp.asarray(H), xp)
    with pytest.raises(CholeskyError):
        woodbury_downdate_solve(L, xp.asarray(U), xp.asarray(np.ones(3)), xp)


@pytest.mark.parametrize("m", [2, 5, 11])
@pytest.mark.parametrize("split", [False, True])
@pytest.mark.parametrize("p", [520, 523])
def test_woodbury_compiled_rest_matches_the_dense_solve(monkeypatch, m, split, p):
    # p >= 500: the threaded forward solve runs, and the rest of the solve is one compiled
    # call (woodbury_rest); it must be the same solution as the dense one, with t0 and c
    # (split) or with v itself among the right-hand sides. The solve with L^T takes eight
    # rows at a time: p = 523 leaves three rows after the last block of eight
    import array_api_compat.numpy as npx

    from statlearn.unlearning import _kernels
    from statlearn.unlearning._linalg import solve_lower
    from statlearn.utils import NUMBA_ENABLED

    H, rng = _spd(p, 40 + m)
    U = 0.1 * rng.standard_normal((m, p))  # ||U^T U|| about 6, lambda_min(H) about 90
    v0, c = rng.standard_normal(p), rng.standard_normal(m)
    v = v0 - U.T @ c
    L = cholesky_lower(H, npx)
    calls = []
    real = _kernels.woodbury_rest
    monkeypatch.setattr(_kernels, "woodbury_rest", lambda *a: calls.append(len(a)) or real(*a))
    if split:
        got = woodbury_downdate_solve(L, U, None, npx, split=(solve_lower(L, v0, npx), c))
    else:
        got = woodbury_downdate_solve(L, U, v, npx)
    assert calls == ([4 if split else 3] if NUMBA_ENABLED else [])
    expected = np.linalg.solve(H - U.T @ U, v)
    # rounding only (cond(H - U^T U) is about 30 here); a wrong sign of the correction or
    # a misread c moves the solution by its own size
    np.testing.assert_allclose(got, expected, rtol=1e-9, atol=1e-11)
    # a downdate that is not positive definite is refused by the compiled path as well:
    # u = 2 L e_0 gives u^T H^{-1} u = 4 > 1
    bad = U.copy()
    bad[0] = 2.0 * L[:, 0]
    with pytest.raises(CholeskyError):
        woodbury_downdate_solve(L, bad, v, npx)


@pytest.mark.parametrize("zero", [0, 2, 3, 4, 11, 12, 19])
def test_woodbury_rest_reports_a_zero_diagonal(zero):
    # p = 20: the solve with L^T takes rows 12-19 and 4-11 in blocks of eight, then rows
    # 3, 2, 1, 0 one at a time; a zero anywhere on the diagonal is reported, not divided by
    from statlearn.unlearning._kernels import woodbury_rest

    L = np.eye(20)
    L[zero, zero] = 0.0
    _, status = woodbury_rest(L, np.zeros((2, 20)), np.ones(20))
    assert status == 2
    _, status = woodbury_rest(np.eye(6), np.eye(2, 6), np.ones(6))  # I - W^T W singular
    assert status == 1


@pytest.mark.parametrize("p", [1, 7, 8, 9, 16, 23])
def test_woodbury_rest_solves_with_lt_at_every_block_boundary(p):
    # with W = 0 the rest is the solve L^T x = t0 alone: exact against the dense solve on
    # sizes below, at and around the block of eight rows
    from statlearn.unlearning._kernels import woodbury_rest

    rng = np.random.default_rng(p)
    A = rng.standard_normal((p, p))
    L = np.tril(A, -1) + np.diag(1.0 + rng.random(p))
    t0 = rng.standard_normal(p)
    x, status = woodbury_rest(np.ascontiguousarray(L), np.zeros((1, p)), t0)
    assert status == 0
    np.testing.assert_allclose(x, np.linalg.solve(L.T, t0), rtol=1e-10, atol=1e-12)


def test_jitter_retry_warns_and_factorises_semidefinite_matrix():
    import array_api_compat.numpy as npx

    v = np.array([1.0, 2.0, 3.0])
    H = np.outer(v, v)  # rank one: plain Cholesky fails
    with pytest.raises(CholeskyError):
        cholesky_lower(H, npx)
    with pytest.warns(RuntimeWarning, match="jitter"):
        L, jitter = factor_with_jitter(H, npx)
    assert jitter == pytest.approx(1e-12 * np.trace(H) / 3)
    np.testing.assert_allclose(L @ L.T, H + jitter * np.eye(3), atol=1e-12)


@pytest.mark.parametrize("loss", ["squared", "logistic", "poisson"])
def test_gradient_and_hessian_match_finite_differences(xp, loss):
    rng = np.random.default_rng(0)
    n, p, alpha = 30, 4, 0.7
    X = rng.standard_normal((n, p)) / np.sqrt(n)
    y = rng.poisson(1.0, n).astype(float) if loss != "logistic" else rng.integers(0, 2, n) * 1.0
    beta = rng.standard_normal(p)
    Xx, yx = xp.asarray(X), xp.asarray(y)
    g = to_numpy(objective_gradient(xp.asarray(beta), Xx, yx, loss, alpha, xp))
    H = to_numpy(objective_hessian(xp.asarray(beta), Xx, yx, loss, alpha, xp))
    import array_api_compat.numpy as npx

    from statlearn.unlearning._glm import objective

    h = 1e-6
    for j in range(p):
        e = np.zeros(p)
        e[j] = h
        fd = (objective(beta + e, X, y, loss, alpha, npx)
              - objective(beta - e, X, y, loss, alpha, npx)) / (2 * h)
        assert fd == pytest.approx(g[j], rel=1e-6, abs=1e-8)
        gp = objective_gradient(beta + e, X, y, loss, alpha, npx)
        gm = objective_gradient(beta - e, X, y, loss, alpha, npx)
        np.testing.assert_allclose((gp - gm) / (2 * h), H[:, j], rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("seed", [1501, 2316])
def test_newton_solver_reaches_its_tolerance_below_objective_resolution(seed):
    # With a summed objective of order 30, an Armijo test on objective values
    # cannot resolve steps below ~1e-8; the solver must still reach
    # ||grad|| <= tol * alpha (distance <= tol) by accepting gradient-reducing
    # full Newton steps (seed 2316 stopped 5e-8 away before that was handled).
    import array_api_compat.numpy as xp_np

    from statlearn.unlearning import make_glm_data
    from statlearn.unlearning._glm import newton_solve

    X, y, _ = make_glm_data(43, 1, loss="logistic", random_state=seed)
    beta, _, gnorm = newton_solve(X, y, "logistic", 0.5, xp_np, tol=1e-10)
    assert gnorm <= 1e-10 * 0.5
    g = to_numpy(objective_gradient(beta, X, y, "logistic", 0.5, xp_np))
    assert np.linalg.norm(g) <= 1e-10 * 0.5


# ------------------------------------------------- threaded forward solve (Numba)
@pytest.mark.parametrize("p", [1, 2, 7, 64, 501])
@pytest.mark.parametrize("k", [1, 2, 3, 5, 6, 7, 9, 10, 11, 13])
@pytest.mark.parametrize("n_threads", [1, 2, 3])
def test_forward_solve_rows_matches_lapack(p, k, n_threads):
    # every path of the kernel: odd/even p (last lone row), blocks of five and four and the
    # last blocks of three, two and one right-hand sides (k = 5, 9, 10 and 3, 6, 7 on one
    # thread; 10, 11 on two), shares of unequal size and more shares than right-hand sides
    from scipy.linalg import solve_triangular

    from statlearn.unlearning._kernels import forward_solve_rows

    H, rng = _spd(p, 100 * p + k)
    L = np.linalg.cholesky(H)
    L[np.triu_indices(p, 1)] = rng.standard_normal(p * (p - 1) // 2)  # never read
    L_low = np.tril(L)
    B = rng.standard_normal((p, k))
    B0 = B.copy()
    got = forward_solve_rows(L, B, n_threads)
    np.testing.assert_array_equal(B, B0)  # the right-hand sides are not overwritten
    expected = solve_triangular(L_low, B, lower=True)
    # rounding only: a planted error in any entry (a skipped row, a wrong share) moves
    # the residual far above this
    np.testing.assert_allclose(got, expected, rtol=1e-11, atol=1e-12)
    np.testing.assert_allclose(L_low @ got, B, rtol=1e-10, atol=1e-10)


def test_solve_lower_dispatches_the_threaded_forward_solve(monkeypatch):
    import array_api_compat.numpy as npx

    from statlearn.unlearning import _kernels, _linalg
    from statlearn.utils import NUMBA_ENABLED

    p = 600
    H, rng = _spd(p, 5)
    L = np.linalg.cholesky(H)
    B = rng.standard_normal((p, 11))
    calls = []
    real = _kernels.forward_solve_rows
    monkeypatch.setattr(_kernels, "forward_solve_rows",
                        lambda *a: calls.append(a[1].shape) or real(*a))
    got = _linalg.solve_lower(L, B, npx)
    assert calls == ([(p, 11)] if NUMBA_ENABLED else [])
    np.testing.assert_allclose(L @ got, B, rtol=1e-10, atol=1e-10)
    # one right-hand side, a transposed solve, or a small p stay with LAPACK
    calls.clear()
    _linalg.solve_lower(L, B[:, 0], npx)
    _linalg.solve_lower(L, B, npx, trans=True)
    _linalg.solve_lower(L[:100, :100], B[:100], npx)
    assert calls == []


def test_threaded_forward_solve_refuses_a_zero_diagonal():
    import array_api_compat.numpy as npx

    from statlearn.unlearning._linalg import solve_lower

    p = 600
    L = np.eye(p)
    L[300, 300] = 0.0
    with pytest.raises(np.linalg.LinAlgError, match="triangular solve failed"):
        solve_lower(L, np.ones((p, 3)), npx)
    # the kernel itself, on every share: a zero at the last row of an odd p, and in a share
    # that is not the first
    from statlearn.unlearning._kernels import forward_solve_rows

    for q, row, k, threads in ((601, 600, 3, 1), (600, 599, 7, 2), (600, 1, 10, 3)):
        Lz = np.eye(q)
        Lz[row, row] = 0.0
        with pytest.raises(np.linalg.LinAlgError, match="zero on the diagonal"):
            forward_solve_rows(Lz, np.ones((q, k)), threads)
    with pytest.raises(np.linalg.LinAlgError, match="triangular solve failed"):
        solve_lower(L, np.ones(p), npx)  # the LAPACK path (one right-hand side) too

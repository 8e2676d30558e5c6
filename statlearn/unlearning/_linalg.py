"""Dense linear algebra for the Newton unlearning step, written against the array API.

NumPy input uses SciPy's LAPACK triangular solves, CuPy input uses
``cupyx.scipy.linalg``, and any other array-API namespace falls back to
``xp.linalg.solve`` (correct, only slower). The Hessian is never inverted:
every solve goes through a Cholesky factor (the optional influence rows
``H^{-1} x_i`` are solves with it too).
"""

from __future__ import annotations

import warnings

import numpy as np
from array_api_compat import is_cupy_namespace, is_numpy_namespace
from scipy.linalg import lapack as _lapack

from ..utils import NUMBA_ENABLED
from ..utils import _numba as _nb
from ..utils._array_api import device

__all__ = [
    "CholeskyError",
    "cho_solve",
    "cholesky_lower",
    "factor_with_jitter",
    "solve_lower",
    "woodbury_downdate_apply",
    "woodbury_downdate_solve",
]


#: the double-precision triangular solve, looked up once (the lookup by dtype costs more
#: than the solve of a small system)
_dtrtrs = _lapack.dtrtrs


class CholeskyError(np.linalg.LinAlgError):
    """The matrix is not numerically positive definite."""


def cholesky_lower(H, xp):
    """Lower Cholesky factor of the symmetric matrix ``H`` (``H = L L^T``).

    Raises :class:`CholeskyError` when the factorisation fails or returns
    non-finite values (CuPy signals failure with NaNs instead of raising).
    """
    try:
        L = xp.linalg.cholesky(H)
    except np.linalg.LinAlgError as exc:
        raise CholeskyError(str(exc)) from exc
    if not bool(xp.all(xp.isfinite(L))):
        raise CholeskyError("Cholesky factor has non-finite entries.")
    return L


def factor_with_jitter(H, xp, name="Hessian"):
    """Cholesky factor of ``H``; on failure retry once with ``1e-12 * trace(H) / p`` added.

    Returns
    -------
    L : array
        Lower factor.
    jitter : float
        The diagonal shift used (0.0 when none was needed).
    """
    try:
        return cholesky_lower(H, xp), 0.0
    except CholeskyError:
        p = H.shape[0]
        jitter = 1e-12 * float(xp.sum(xp.linalg.diagonal(H))) / p
        if not jitter > 0:
            raise
        warnings.warn(
            f"Cholesky factorisation of the {name} failed; retrying with diagonal jitter "
            f"{jitter:.3g}. The verification step still checks the result.",
            RuntimeWarning,
            stacklevel=3,
        )
        eye = xp.eye(p, dtype=H.dtype, device=device(H))
        return cholesky_lower(H + jitter * eye, xp), jitter


#: the Numba forward solve (:func:`._kernels.forward_solve_rows`) runs for
#: ``p >= _THREADED_MIN_P`` and ``2 <= k <= _THREADED_MAX_K`` right-hand sides. Measured on
#: 2 cores with ``L`` out of cache against single-thread ``trtrs`` (the request's BLAS
#: setting), the solve alone is 1.3-2.9x faster from p = 200 to 4000 at k = 2 to 101 and
#: even at p = 100 (``benchmarks/bench_unlearning.py --solve``); in a whole request it saves
#: about 1 ms at p = 2000 (m = 10) and nothing measurable below p = 500, where the solve
#: is a small part of the request
_THREADED_MIN_P = 500
_THREADED_MAX_K = 64


def _threaded_forward(L, B):
    return (B.ndim == 2 and isinstance(B, np.ndarray) and B.dtype == np.float64
            and _threaded_factor(L, B.shape[1]))


def _threaded_factor(L, k):
    """Whether the threaded forward solve runs for ``L`` and ``k`` right-hand sides."""
    return (NUMBA_ENABLED and 2 <= k <= _THREADED_MAX_K and isinstance(L, np.ndarray)
            and L.shape[0] >= _THREADED_MIN_P and L.dtype == np.float64
            and L.flags.c_contiguous)


def solve_lower(L, B, xp, trans=False):
    """Solve ``L X = B`` (or ``L^T X = B`` when ``trans``) for lower-triangular ``L``."""
    if is_numpy_namespace(xp):
        if not trans and _threaded_forward(L, B):
            from ._kernels import forward_solve_rows

            # raises LinAlgError at a zero on the diagonal
            return forward_solve_rows(L, B, _nb._numba.get_num_threads())
        # LAPACK's trtrs directly (what scipy.linalg.solve_triangular calls, without its
        # per-call wrapper overhead); a C-ordered L is passed as the F-ordered upper L^T
        if L.dtype == np.float64 and B.dtype == np.float64:
            trtrs = _dtrtrs
        else:
            from scipy.linalg.lapack import get_lapack_funcs

            (trtrs,) = get_lapack_funcs(("trtrs",), (L, B))
        if L.flags.f_contiguous:
            x, info = trtrs(L, B, lower=1, trans=1 if trans else 0)
        else:
            x, info = trtrs(L.T, B, lower=0, trans=0 if trans else 1)
        if info != 0:
            raise np.linalg.LinAlgError(f"triangular solve failed (LAPACK info {info}).")
        return x
    if is_cupy_namespace(xp):  # pragma: no cover - needs a GPU
        from cupyx.scipy.linalg import solve_triangular

        return solve_triangular(L, B, lower=True, trans="T" if trans else "N")
    A = L.T if trans else L
    return xp.linalg.solve(A, B)


def cho_solve(L, B, xp):
    """Solve ``(L L^T) X = B`` by two triangular solves."""
    return solve_lower(L, solve_lower(L, B, xp), xp, trans=True)


def woodbury_downdate_solve(L, U, v, xp, *, split=None):
    """Solve ``(H - U^T U) x = v`` given the Cholesky factor ``L`` of ``H``.

    ``U`` is ``m x p`` (the removed rows scaled by ``sqrt(l'')``). With
    ``W = L^{-1} U^T`` we have ``H - U^T U = L (I - W W^T) L^T`` and
    ``(I - W W^T)^{-1} = I + W (I_m - W^T W)^{-1} W^T``, so only an ``m x m``
    positive definite system is factorised. No weight is ever inverted, so
    logistic weights close to zero are harmless. Cost ``O(p^2 m + m^3)``, and
    ``L`` is read twice: ``W`` and ``t = L^{-1} v`` come from one triangular
    solve with the ``m + 1`` right-hand sides ``[U^T, v]``, then one solve with
    ``L^T``.

    With ``split = (t0, c)``, ``v = v0 - U^T c`` where ``t0 = L^{-1} v0`` is
    already known (``v`` is then not read): ``t = t0 - W c`` follows from ``W``,
    so the triangular solve has only the ``m`` right-hand sides ``U^T``.

    On NumPy float64 data where the threaded forward solve runs
    (:func:`._kernels.forward_solve_rows`), the rest, from ``W`` to ``x``, is one
    compiled call (:func:`._kernels.woodbury_rest`); elsewhere it is the array
    operations below. The two agree up to rounding.

    Raises :class:`CholeskyError` if ``I_m - W^T W`` is not numerically
    positive definite (the caller then assembles the Hessian directly).

    Examples
    --------
    >>> import numpy as np
    >>> from statlearn.unlearning._linalg import solve_lower, woodbury_downdate_solve
    >>> rng = np.random.default_rng(0)
    >>> A = rng.standard_normal((30, 5)); H = A.T @ A + np.eye(5)
    >>> L, U = np.linalg.cholesky(H), 0.5 * A[:3]
    >>> v0, c = rng.standard_normal(5), rng.standard_normal(3)
    >>> x = woodbury_downdate_solve(L, U, v0 - U.T @ c, np)
    >>> bool(np.allclose((H - U.T @ U) @ x, v0 - U.T @ c))
    True
    >>> t0 = solve_lower(L, v0, np)
    >>> bool(np.allclose(woodbury_downdate_solve(L, U, None, np, split=(t0, c)), x))
    True
    """
    m = U.shape[0]
    if m == 0:
        return cho_solve(L, v, xp) if split is None else solve_lower(L, split[0], xp, trans=True)
    if (isinstance(U, np.ndarray) and U.dtype == np.float64
            and _threaded_factor(L, m if split is not None else m + 1)):
        # the threaded forward solve, then everything else in one compiled pass
        # (woodbury_rest): the small steps would otherwise cost more calls than work
        from ._kernels import forward_solve_rows, woodbury_rest

        threads = _nb._numba.get_num_threads()
        if split is not None:
            x, status = woodbury_rest(L, forward_solve_rows(L, U.T, threads).T, *split)
        else:
            rhs = np.concatenate([U.T, np.asarray(v, dtype=U.dtype)[:, None]], axis=1)
            solT = forward_solve_rows(L, rhs, threads).T
            x, status = woodbury_rest(L, solT[:m], solT[m])
        if status == 1:
            raise CholeskyError("I - W^T W is not numerically positive definite.")
        if status == 2:
            raise np.linalg.LinAlgError("triangular solve failed (zero on the diagonal).")
        return x
    if split is not None:
        W = solve_lower(L, U.T, xp)
        t = split[0] - W @ split[1]
    else:
        rhs = xp.concat([U.T, xp.expand_dims(v, axis=1)], axis=1)
        sol = solve_lower(L, rhs, xp)
        W, t = sol[:, :m], sol[:, m]
    C = xp.eye(m, dtype=W.dtype, device=device(W)) - W.T @ W
    Lc = cholesky_lower(C, xp)
    s = W @ cho_solve(Lc, W.T @ t, xp)
    return solve_lower(L, t + s, xp, trans=True)


def woodbury_downdate_apply(h, U, V, xp):
    """Solve ``(H - U^T U) x = v`` from ``h = H^{-1} v`` and ``V = U H^{-1}``.

    The stored-influence form of :func:`woodbury_downdate_solve`: with the
    rows of ``V`` (``m x p``, the influence directions ``H^{-1} u_i``) already
    known, ``(H - U^T U)^{-1} = H^{-1} + V^T (I_m - U V^T)^{-1} V``, so
    ``x = h + V^T (I_m - U V^T)^{-1} U h`` costs ``O(m^2 p + m^3)`` and reads no
    ``p x p`` matrix.

    Raises :class:`CholeskyError` if ``I_m - U V^T`` is not numerically
    positive definite (the caller then assembles the Hessian directly).

    Examples
    --------
    >>> import numpy as np
    >>> from statlearn.unlearning._linalg import woodbury_downdate_apply
    >>> rng = np.random.default_rng(0)
    >>> A = rng.standard_normal((30, 5)); H = A.T @ A + np.eye(5)
    >>> U, v = 0.5 * A[:3], rng.standard_normal(5)
    >>> Hinv = np.linalg.inv(H)
    >>> x = woodbury_downdate_apply(Hinv @ v, U, U @ Hinv, np)
    >>> bool(np.allclose((H - U.T @ U) @ x, v))
    True
    """
    m = U.shape[0]
    if m == 0:
        return h
    C = xp.eye(m, dtype=U.dtype, device=device(U)) - U @ V.T
    Lc = cholesky_lower(C, xp)
    return h + V.T @ cho_solve(Lc, U @ h, xp)

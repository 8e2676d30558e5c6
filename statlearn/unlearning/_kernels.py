"""Request-time kernels of the Newton unlearning step: one pass over the data at most.

The gradient of the retained objective (Pandey et al., 2025, Section 3, step 2,
and the verification gradient of the certificate) is
``X^T (m * l'(y | X beta)) + alpha beta (+ shift)`` with the 0/1 mask ``m`` of
the rows kept. Written as two matrix-vector products it reads ``X`` twice
from memory; :func:`retained_gradient` walks the rows in blocks that stay in
cache, so ``X`` is read once. :func:`downdated_gradient` gives the same
gradient after a request from the one before it at the same point, with
``O(m p)`` work: the retained gradient is linear in the mask, so removing
rows subtracts exactly their terms (no optimality of ``beta`` is assumed).

On C-ordered float64 NumPy data the pass is the Numba kernel
:func:`_gradient_rows`: each row's ``x_i^T beta``, its derivative and its
``l'_i x_i`` are taken while the row is in cache (eight rows per sweep of the
sum), rows with weight 0 add nothing (their derivative is not evaluated), and a
fixed number of row chunks (independent of the thread count,
so the sum is the same whatever the threads) is spread over the threads. Its
NumPy twin, :func:`_gradient_blocks`, runs when Numba is disabled.

The Woodbury downdate's forward solve ``L^{-1} [U^T, v]`` (``m + 1``
right-hand sides against the stored Cholesky factor) is
:func:`forward_solve_rows`: LAPACK's ``trtrs`` runs it on the one BLAS thread
the request allows, while this kernel gives each thread a share of the
right-hand sides and, for two rows of ``L`` at a time, takes the dot products
with up to five right-hand sides while those rows are in registers (blocks of
five, then four, the last one to three of a share in one block: ``L`` is read
once per block instead of once per right-hand side). Its
NumPy twin is the LAPACK solve itself (:func:`~._linalg.solve_lower`).
"""

from __future__ import annotations

import numpy as np

from ..utils import NUMBA_ENABLED, jit, prange
from ._losses import loss_derivatives

__all__ = ["downdated_gradient", "forward_solve_rows", "retained_gradient", "woodbury_rest"]

#: rows per block of the NumPy one-pass gradient: about 1 MB of ``X`` (kept in cache)
_BLOCK_BYTES = 1 << 20
#: row chunks of the Numba pass (a constant: the order of the sums does not depend on
#: the thread count)
_N_CHUNKS = 32
#: loss codes of the Numba pass
_LOSS_CODE = {"squared": 0, "logistic": 1, "poisson": 2}


def _first_derivative_inplace(z, y, loss):
    """``l'(y | z)`` written over ``z`` (NumPy): ``z - y``, ``sigmoid(z) - y``, ``e^z - y``."""
    if loss == "logistic":
        from scipy.special import expit

        expit(z, out=z)
    elif loss == "poisson":
        np.exp(z, out=z)
    z -= y


@jit(fastmath={"reassoc", "contract"}, inline="always")
def _weighted_derivative(z, y, w, loss_code):  # pragma: no cover
    """``w l'(y | z)``; 0 for a row of weight 0 (its derivative is never evaluated)."""
    if w == 0.0:
        return 0.0
    if loss_code == 1:
        if z >= 0.0:
            d = 1.0 / (1.0 + np.exp(-z))
        else:
            e = np.exp(z)
            d = e / (1.0 + e)
    elif loss_code == 2:
        d = np.exp(z)
    else:
        d = z
    return w * (d - y)


@jit(fastmath={"reassoc", "contract"}, inline="always")
def _row_dot(X, i, beta):  # pragma: no cover
    z = 0.0
    for j in range(X.shape[1]):
        z += X[i, j] * beta[j]
    return z


@jit(fastmath={"reassoc", "contract"}, inline="always")
def _row_derivative(z, y, mask, i, has_mask, loss_code):  # pragma: no cover
    """:func:`_weighted_derivative` of row ``i`` at ``z = x_i^T beta``."""
    return _weighted_derivative(z, y[i], mask[i] if has_mask else 1.0, loss_code)


@jit(parallel=True, cache=True, fastmath={"reassoc", "contract"})
def _gradient_rows(X, y, beta, mask, has_mask, loss_code, n_chunks):  # pragma: no cover
    """``X^T (mask * l'(y | X beta))`` in one pass over the rows of a C-ordered ``X``.

    Eight rows at a time: their eight dot products with ``beta`` in one sweep
    over the columns (eight independent sums, eight reads streaming side by
    side), then one sweep that adds the eight ``l'_i x_i`` to the chunk's sum
    while the rows are in cache, so the sum is loaded and stored once per
    eight rows instead of once per row (15-20 percent faster than four rows
    with dot products one after the other, with ``X`` out of cache, at
    n = 1e5, p = 200 and n = p = 2000). ``reassoc`` lets the sums use vector
    registers (they are reordered, not approximated); no flag that assumes
    finite values is set.
    """
    n, p = X.shape
    G = np.zeros((n_chunks, p))
    size = (n + n_chunks - 1) // n_chunks
    for c in prange(n_chunks):
        lo = c * size
        hi = min(n, lo + size)
        n_oct = max(0, hi - lo) // 8
        for q in range(n_oct):
            i = lo + 8 * q
            z0 = z1 = z2 = z3 = z4 = z5 = z6 = z7 = 0.0
            for j in range(p):
                b = beta[j]
                z0 += X[i, j] * b
                z1 += X[i + 1, j] * b
                z2 += X[i + 2, j] * b
                z3 += X[i + 3, j] * b
                z4 += X[i + 4, j] * b
                z5 += X[i + 5, j] * b
                z6 += X[i + 6, j] * b
                z7 += X[i + 7, j] * b
            d0 = _row_derivative(z0, y, mask, i, has_mask, loss_code)
            d1 = _row_derivative(z1, y, mask, i + 1, has_mask, loss_code)
            d2 = _row_derivative(z2, y, mask, i + 2, has_mask, loss_code)
            d3 = _row_derivative(z3, y, mask, i + 3, has_mask, loss_code)
            d4 = _row_derivative(z4, y, mask, i + 4, has_mask, loss_code)
            d5 = _row_derivative(z5, y, mask, i + 5, has_mask, loss_code)
            d6 = _row_derivative(z6, y, mask, i + 6, has_mask, loss_code)
            d7 = _row_derivative(z7, y, mask, i + 7, has_mask, loss_code)
            for j in range(p):
                G[c, j] += (((d0 * X[i, j] + d1 * X[i + 1, j])
                             + (d2 * X[i + 2, j] + d3 * X[i + 3, j]))
                            + ((d4 * X[i + 4, j] + d5 * X[i + 5, j])
                               + (d6 * X[i + 6, j] + d7 * X[i + 7, j])))
        for i in range(lo + 8 * n_oct, hi):
            w = mask[i] if has_mask else 1.0
            if w == 0.0:
                continue
            d = _weighted_derivative(_row_dot(X, i, beta), y[i], w, loss_code)
            for j in range(p):
                G[c, j] += d * X[i, j]
    g = np.zeros(p)
    for c in range(n_chunks):
        for j in range(p):
            g[j] += G[c, j]
    return g


def _gradient_blocks(X, y, beta, mask, loss):
    """NumPy twin of :func:`_gradient_rows`: blocks of rows that stay in cache."""
    n, p = X.shape
    rows = max(64, _BLOCK_BYTES // (8 * max(p, 1)))
    g = np.zeros(p)
    buf = np.empty(min(rows, n))
    for start in range(0, n, rows):
        Xb = X[start:start + rows]
        d1 = buf[:Xb.shape[0]]
        np.dot(Xb, beta, out=d1)
        _first_derivative_inplace(d1, y[start:start + rows], loss)
        if mask is not None:
            w = mask[start:start + rows]
            d1 *= w
            d1[w == 0] = 0.0  # a removed row adds nothing, even where l' overflowed
        g += d1 @ Xb
    return g


def retained_gradient(X, y, beta, mask, loss, pen, xp, shift=None):
    """Gradient ``X^T (mask * l'(y | X beta)) + pen * beta (+ shift)`` in one pass over ``X``.

    Parameters
    ----------
    X : array of shape (n, p)
        Design (intercept column included when fitted).
    y : array of shape (n,)
        Encoded targets.
    beta : array of shape (p,)
        Point of evaluation.
    mask : array of shape (n,) or None
        0/1 weights of the rows kept; ``None`` keeps every row.
    loss : {"squared", "logistic", "poisson"}
    pen : float or array of shape (p,)
        Penalty per coordinate (0 for an unpenalised intercept).
    xp : namespace
        Array namespace of ``X``.
    shift : array of shape (p,) or None
        Linear term of a perturbed objective.

    Returns
    -------
    array of shape (p,)

    Notes
    -----
    On C-ordered NumPy float64 input ``X`` is read once: by the Numba kernel
    row by row, or without Numba in blocks of about 1 MB (each block's
    ``X_b beta`` and ``X_b^T r_b`` use the block while it is in cache). Other
    input (F-ordered, CuPy, ...) uses the two products directly. All agree
    with the two-product form up to rounding (the order of the sums differs).

    Examples
    --------
    >>> import numpy as np
    >>> from statlearn.unlearning._kernels import retained_gradient
    >>> rng = np.random.default_rng(0)
    >>> X, y, beta = rng.standard_normal((50, 3)), rng.random(50) < 0.5, np.ones(3)
    >>> mask = np.ones(50); mask[:5] = 0.0
    >>> g = retained_gradient(X, y * 1.0, beta, mask, "logistic", 0.5, np)
    >>> z = X @ beta
    >>> ref = X.T @ (mask * (1 / (1 + np.exp(-z)) - y)) + 0.5 * beta
    >>> bool(np.allclose(g, ref, rtol=1e-12, atol=1e-12))
    True
    """
    if isinstance(X, np.ndarray) and X.dtype == np.float64 and X.ndim == 2 \
            and X.flags.c_contiguous:
        if NUMBA_ENABLED:
            has_mask = mask is not None
            g = _gradient_rows(X, np.asarray(y, dtype=np.float64),
                               np.ascontiguousarray(beta, dtype=np.float64),
                               mask if has_mask else y, has_mask, _LOSS_CODE[loss],
                               _N_CHUNKS)
        else:
            g = _gradient_blocks(X, y, beta, mask, loss)
    else:
        d1, _ = loss_derivatives(y, X @ beta, loss, xp)
        if mask is not None:
            # a removed row adds nothing, even where its l' overflowed (0 * inf is NaN)
            d1 = xp.where(mask != 0, d1 * mask, xp.zeros_like(d1))
        g = X.T @ d1
    g = g + pen * beta
    return g if shift is None else g + shift


def downdated_gradient(g_before, X_removed, y_removed, beta, loss, xp):
    """The retained gradient at ``beta`` after removing rows, from the one before.

    ``g_before`` is the gradient of the objective on the rows kept before the
    request (penalty and shift included), at the same ``beta``; the result
    subtracts ``X_M^T l'(y_M | X_M beta)`` of the ``m`` rows removed now, at
    cost ``O(m p)``. This is the linearity of the gradient in the rows, an
    identity for every ``beta`` (at an exact minimiser ``g_before = 0`` and it
    reduces to ``-X_M^T l'_M``, the ``assume_optimal`` gradient).

    Examples
    --------
    >>> import numpy as np
    >>> from statlearn.unlearning._kernels import downdated_gradient, retained_gradient
    >>> rng = np.random.default_rng(1)
    >>> X, y, beta = rng.standard_normal((40, 4)), rng.standard_normal(40), rng.random(4)
    >>> full = retained_gradient(X, y, beta, None, "squared", 1.0, np)
    >>> mask = np.ones(40); mask[[3, 7]] = 0.0
    >>> kept = retained_gradient(X, y, beta, mask, "squared", 1.0, np)
    >>> g = downdated_gradient(full, X[[3, 7]], y[[3, 7]], beta, "squared", np)
    >>> bool(np.allclose(g, kept, rtol=1e-12, atol=1e-12))
    True
    """
    if X_removed.shape[0] == 0:
        return g_before
    d1, _ = loss_derivatives(y_removed, X_removed @ beta, loss, xp)
    return g_before - X_removed.T @ d1


# ------------------------------------------------------------------ forward solve
_FM = {"reassoc", "contract"}


@jit(fastmath=_FM, inline="always")
def _two_rows_five(L, XT, i, c, d0, d1, l10):  # pragma: no cover
    """Rows ``i, i + 1`` of ``L X = B`` for the right-hand sides ``c .. c + 4``.

    Ten sums: seven loads per ten multiply-adds (four right-hand sides take six
    per eight), and enough independent sums to cover the multiply-add latency.
    """
    s00 = s01 = s02 = s03 = s04 = s10 = s11 = s12 = s13 = s14 = 0.0
    for j in range(i):
        a = L[i, j]
        b = L[i + 1, j]
        x0 = XT[c, j]
        s00 += a * x0
        s10 += b * x0
        x1 = XT[c + 1, j]
        s01 += a * x1
        s11 += b * x1
        x2 = XT[c + 2, j]
        s02 += a * x2
        s12 += b * x2
        x3 = XT[c + 3, j]
        s03 += a * x3
        s13 += b * x3
        x4 = XT[c + 4, j]
        s04 += a * x4
        s14 += b * x4
    y0 = (XT[c, i] - s00) * d0
    y1 = (XT[c + 1, i] - s01) * d0
    y2 = (XT[c + 2, i] - s02) * d0
    y3 = (XT[c + 3, i] - s03) * d0
    y4 = (XT[c + 4, i] - s04) * d0
    XT[c, i] = y0
    XT[c + 1, i] = y1
    XT[c + 2, i] = y2
    XT[c + 3, i] = y3
    XT[c + 4, i] = y4
    XT[c, i + 1] = (XT[c, i + 1] - s10 - l10 * y0) * d1
    XT[c + 1, i + 1] = (XT[c + 1, i + 1] - s11 - l10 * y1) * d1
    XT[c + 2, i + 1] = (XT[c + 2, i + 1] - s12 - l10 * y2) * d1
    XT[c + 3, i + 1] = (XT[c + 3, i + 1] - s13 - l10 * y3) * d1
    XT[c + 4, i + 1] = (XT[c + 4, i + 1] - s14 - l10 * y4) * d1


@jit(fastmath=_FM, inline="always")
def _two_rows_four(L, XT, i, c, d0, d1, l10):  # pragma: no cover
    """Rows ``i, i + 1`` of ``L X = B`` for the right-hand sides ``c .. c + 3``."""
    s00 = s01 = s02 = s03 = s10 = s11 = s12 = s13 = 0.0
    for j in range(i):
        a = L[i, j]
        b = L[i + 1, j]
        x0 = XT[c, j]
        x1 = XT[c + 1, j]
        x2 = XT[c + 2, j]
        x3 = XT[c + 3, j]
        s00 += a * x0
        s01 += a * x1
        s02 += a * x2
        s03 += a * x3
        s10 += b * x0
        s11 += b * x1
        s12 += b * x2
        s13 += b * x3
    y0 = (XT[c, i] - s00) * d0
    y1 = (XT[c + 1, i] - s01) * d0
    y2 = (XT[c + 2, i] - s02) * d0
    y3 = (XT[c + 3, i] - s03) * d0
    XT[c, i] = y0
    XT[c + 1, i] = y1
    XT[c + 2, i] = y2
    XT[c + 3, i] = y3
    XT[c, i + 1] = (XT[c, i + 1] - s10 - l10 * y0) * d1
    XT[c + 1, i + 1] = (XT[c + 1, i + 1] - s11 - l10 * y1) * d1
    XT[c + 2, i + 1] = (XT[c + 2, i + 1] - s12 - l10 * y2) * d1
    XT[c + 3, i + 1] = (XT[c + 3, i + 1] - s13 - l10 * y3) * d1


@jit(fastmath=_FM, inline="always")
def _two_rows_three(L, XT, i, c, d0, d1, l10):  # pragma: no cover
    """Rows ``i, i + 1`` of ``L X = B`` for the right-hand sides ``c .. c + 2``."""
    s00 = s01 = s02 = s10 = s11 = s12 = 0.0
    for j in range(i):
        a = L[i, j]
        b = L[i + 1, j]
        x0 = XT[c, j]
        x1 = XT[c + 1, j]
        x2 = XT[c + 2, j]
        s00 += a * x0
        s01 += a * x1
        s02 += a * x2
        s10 += b * x0
        s11 += b * x1
        s12 += b * x2
    y0 = (XT[c, i] - s00) * d0
    y1 = (XT[c + 1, i] - s01) * d0
    y2 = (XT[c + 2, i] - s02) * d0
    XT[c, i] = y0
    XT[c + 1, i] = y1
    XT[c + 2, i] = y2
    XT[c, i + 1] = (XT[c, i + 1] - s10 - l10 * y0) * d1
    XT[c + 1, i + 1] = (XT[c + 1, i + 1] - s11 - l10 * y1) * d1
    XT[c + 2, i + 1] = (XT[c + 2, i + 1] - s12 - l10 * y2) * d1


@jit(fastmath=_FM, inline="always")
def _two_rows_two(L, XT, i, c, d0, d1, l10):  # pragma: no cover
    """Rows ``i, i + 1`` of ``L X = B`` for the right-hand sides ``c, c + 1``."""
    s00 = s01 = s10 = s11 = 0.0
    for j in range(i):
        a = L[i, j]
        b = L[i + 1, j]
        x0 = XT[c, j]
        x1 = XT[c + 1, j]
        s00 += a * x0
        s01 += a * x1
        s10 += b * x0
        s11 += b * x1
    y0 = (XT[c, i] - s00) * d0
    y1 = (XT[c + 1, i] - s01) * d0
    XT[c, i] = y0
    XT[c + 1, i] = y1
    XT[c, i + 1] = (XT[c, i + 1] - s10 - l10 * y0) * d1
    XT[c + 1, i + 1] = (XT[c + 1, i + 1] - s11 - l10 * y1) * d1


@jit(fastmath=_FM, inline="always")
def _two_rows_one(L, XT, i, c, d0, d1, l10):  # pragma: no cover
    """Rows ``i, i + 1`` of ``L X = B`` for the right-hand side ``c``."""
    s0 = s1 = 0.0
    for j in range(i):
        x = XT[c, j]
        s0 += L[i, j] * x
        s1 += L[i + 1, j] * x
    y0 = (XT[c, i] - s0) * d0
    XT[c, i] = y0
    XT[c, i + 1] = (XT[c, i + 1] - s1 - l10 * y0) * d1


@jit(fastmath=_FM)
def _forward_share(L, XT, lo, hi):  # pragma: no cover
    """Solve ``L X = B`` in place for the right-hand sides ``lo .. hi - 1`` (rows of ``XT``).

    Returns False, at the first zero on the diagonal of ``L``, when there is one.
    """
    p = L.shape[0]
    i = 0
    while i + 1 < p:
        if L[i, i] == 0.0 or L[i + 1, i + 1] == 0.0:
            return False
        d0 = 1.0 / L[i, i]
        d1 = 1.0 / L[i + 1, i + 1]
        l10 = L[i + 1, i]
        # blocks of five right-hand sides while at least nine (or exactly five) are
        # left, then blocks of four, then the last one to three in one block: a share
        # of five (m = 10 on two threads) reads rows i, i + 1 of L once
        c = lo
        while c < hi:
            rest = hi - c
            if rest == 5 or rest >= 9:
                _two_rows_five(L, XT, i, c, d0, d1, l10)
                c += 5
            elif rest >= 4:
                _two_rows_four(L, XT, i, c, d0, d1, l10)
                c += 4
            elif rest == 3:
                _two_rows_three(L, XT, i, c, d0, d1, l10)
                c += 3
            elif rest == 2:
                _two_rows_two(L, XT, i, c, d0, d1, l10)
                c += 2
            else:
                _two_rows_one(L, XT, i, c, d0, d1, l10)
                c += 1
        i += 2
    if i < p:  # the last row of an odd p
        if L[i, i] == 0.0:
            return False
        d0 = 1.0 / L[i, i]
        for c in range(lo, hi):
            s = 0.0
            for j in range(i):
                s += L[i, j] * XT[c, j]
            XT[c, i] = (XT[c, i] - s) * d0
    return True


@jit(parallel=True, cache=True)
def _forward_solve_shares(L, XT, n_shares):  # pragma: no cover
    """False when a share met a zero on the diagonal of ``L`` (read there, not before)."""
    k = XT.shape[0]
    size = (k + n_shares - 1) // n_shares
    ok = np.ones(n_shares, dtype=np.bool_)
    for t in prange(n_shares):
        lo = t * size
        hi = min(k, lo + size)
        if lo < hi:
            ok[t] = _forward_share(L, XT, lo, hi)
    for t in range(n_shares):
        if not ok[t]:
            return False
    return True


def forward_solve_rows(L, B, n_threads):
    """``L^{-1} B`` for a C-ordered lower-triangular ``L`` and a few right-hand sides.

    Parameters
    ----------
    L : ndarray of shape (p, p)
        C-ordered float64 lower-triangular matrix with a nonzero diagonal
        (only the lower triangle is read).
    B : ndarray of shape (p, k)
        Right-hand sides (not modified).
    n_threads : int
        Shares the right-hand sides are split into, one per thread.

    Returns
    -------
    ndarray of shape (p, k)
        The solution (an F-ordered array), equal to LAPACK's up to rounding:
        each row's dot products are summed in a different order.

    Raises
    ------
    numpy.linalg.LinAlgError
        If the diagonal of ``L`` holds a zero (found as the solve reaches it, so
        the diagonal is not read beforehand, a strided pass over ``L``).

    Examples
    --------
    >>> import numpy as np
    >>> from scipy.linalg import solve_triangular
    >>> from statlearn.unlearning._kernels import forward_solve_rows
    >>> rng = np.random.default_rng(0)
    >>> A = rng.standard_normal((40, 40)); L = np.linalg.cholesky(A @ A.T + np.eye(40))
    >>> B = rng.standard_normal((40, 6))
    >>> X = forward_solve_rows(L, B, 2)
    >>> bool(np.allclose(X, solve_triangular(L, B, lower=True), rtol=1e-12, atol=1e-12))
    True
    """
    XT = np.array(B.T, dtype=np.float64, order="C", copy=True)
    if NUMBA_ENABLED:
        ok = _forward_solve_shares(L, XT, max(1, min(int(n_threads), XT.shape[0])))
    else:  # pragma: no cover - the dispatcher sends no work here without Numba
        ok = bool(np.all(np.diagonal(L)))
        for i in range(L.shape[0] if ok else 0):
            XT[:, i] = (XT[:, i] - XT[:, :i] @ L[i, :i]) / L[i, i]
    if not ok:
        raise np.linalg.LinAlgError("triangular solve failed (zero on the diagonal).")
    return XT.T


# ------------------------------------------------------- rest of the Woodbury solve
@jit(cache=True, fastmath=_FM)
def _woodbury_rest(L, WT, t0, c, has_c, x):  # pragma: no cover
    """Fill ``x`` with the rest of :func:`woodbury_rest`; returns its status code."""
    m, p = WT.shape
    for j in range(p):
        x[j] = t0[j]
    if has_c:
        for a in range(m):
            ca = c[a]
            for j in range(p):
                x[j] -= ca * WT[a, j]
    # C = I - W^T W, lower Cholesky factor in place
    C = np.empty((m, m))
    for a in range(m):
        for b in range(a + 1):
            s = 0.0
            for j in range(p):
                s += WT[a, j] * WT[b, j]
            C[a, b] = (1.0 if a == b else 0.0) - s
    for a in range(m):
        for b in range(a + 1):
            s = C[a, b]
            for q in range(b):
                s -= C[a, q] * C[b, q]
            if a == b:
                if not (s > 0.0 and s < np.inf):  # NaN fails too
                    return 1
                C[a, a] = np.sqrt(s)
            else:
                C[a, b] = s / C[b, b]
    # y = C^{-1} W^T t by the two triangular solves with the factor
    y = np.empty(m)
    for a in range(m):
        s = 0.0
        for j in range(p):
            s += WT[a, j] * x[j]
        for q in range(a):
            s -= C[a, q] * y[q]
        y[a] = s / C[a, a]
    for a in range(m - 1, -1, -1):
        s = y[a]
        for q in range(a + 1, m):
            s -= C[q, a] * y[q]
        y[a] = s / C[a, a]
    # z = t + W y, then L^T x = z
    for a in range(m):
        ya = y[a]
        for j in range(p):
            x[j] += ya * WT[a, j]
    return 0 if _back_solve_rows(L, x) else 2


@jit(fastmath=_FM, inline="always")
def _back_solve_rows(L, x):  # pragma: no cover
    """Solve ``L^T x = z`` in place (``x`` holds ``z``) for a C-ordered lower ``L``.

    From the last row of ``L`` up, eight rows at a time: the eight unknowns of
    the rows ``j - 7 .. j`` come from their own small triangle, then one sweep
    over the columns left of it subtracts their eight terms, so each entry of
    ``x`` is loaded and stored once per eight rows of ``L`` instead of once per
    row (each row is still read once, in order). Returns False at the first zero
    on the diagonal it reaches.
    """
    j = L.shape[0] - 1
    while j >= 7:
        lo = j - 7
        for k in range(8):
            r = j - k
            d = L[r, r]
            if d == 0.0:
                return False
            xr = x[r] / d
            x[r] = xr
            for ii in range(r - lo):
                x[lo + ii] -= xr * L[r, lo + ii]
        a0 = x[j]
        a1 = x[j - 1]
        a2 = x[j - 2]
        a3 = x[j - 3]
        a4 = x[j - 4]
        a5 = x[j - 5]
        a6 = x[j - 6]
        a7 = x[lo]
        for i in range(lo):
            x[i] -= (((a0 * L[j, i] + a1 * L[j - 1, i]) + (a2 * L[j - 2, i] + a3 * L[j - 3, i]))
                     + ((a4 * L[j - 4, i] + a5 * L[j - 5, i])
                        + (a6 * L[j - 6, i] + a7 * L[lo, i])))
        j -= 8
    while j >= 0:
        d = L[j, j]
        if d == 0.0:
            return False
        xj = x[j] / d
        x[j] = xj
        for i in range(j):
            x[i] -= xj * L[j, i]
        j -= 1
    return True


def woodbury_rest(L, WT, t0, c=None):
    """The Woodbury downdate solve after its forward solve, in one compiled pass.

    With ``W = L^{-1} U^T`` (given as its transpose ``WT``, ``m x p``, C-ordered),
    ``t = t0 - W c`` (or ``t0``), this returns
    ``x = L^{-T} (t + W (I_m - W^T W)^{-1} W^T t)``, the solution of
    ``(L L^T - U^T U) x = L t`` (:func:`~._linalg.woodbury_downdate_solve`): the
    ``m x m`` matrix, its Cholesky factor, the two small solves and the solve
    with ``L^T`` (one single-threaded pass over the rows of the C-ordered ``L``)
    without a call per step.

    Parameters
    ----------
    L : ndarray of shape (p, p)
        C-ordered float64 lower Cholesky factor.
    WT : ndarray of shape (m, p)
        C-ordered ``(L^{-1} U^T)^T``.
    t0 : ndarray of shape (p,)
    c : ndarray of shape (m,), optional

    Returns
    -------
    x : ndarray of shape (p,)
    status : int
        0, or 1 when ``I_m - W^T W`` is not numerically positive definite, or 2
        when the diagonal of ``L`` holds a zero (``x`` is then not the solution).

    Examples
    --------
    >>> import numpy as np
    >>> from statlearn.unlearning._kernels import woodbury_rest
    >>> rng = np.random.default_rng(0)
    >>> A = rng.standard_normal((40, 6)); H = A.T @ A + np.eye(6)
    >>> L, U, v = np.linalg.cholesky(H), 0.5 * A[:3], rng.standard_normal(6)
    >>> WT = np.linalg.solve(L, U.T).T.copy()
    >>> x, status = woodbury_rest(L, WT, np.linalg.solve(L, v))
    >>> status, bool(np.allclose((H - U.T @ U) @ x, v))
    (0, True)
    """
    x = np.empty(L.shape[0])
    has_c = c is not None
    status = _woodbury_rest(L, WT, np.ascontiguousarray(t0, dtype=np.float64),
                            np.ascontiguousarray(c if has_c else t0[:0], dtype=np.float64),
                            has_c, x)
    return x, int(status)

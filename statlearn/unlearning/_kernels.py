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
``l'_i x_i`` are taken while the row is in registers, rows with weight 0 are
skipped, and a fixed number of row chunks (independent of the thread count,
so the sum is the same whatever the threads) is spread over the threads. Its
NumPy twin, :func:`_gradient_blocks`, runs when Numba is disabled.
"""

from __future__ import annotations

import numpy as np

from ..utils import NUMBA_ENABLED, jit, prange
from ._glm import loss_derivatives

__all__ = ["downdated_gradient", "retained_gradient"]

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


@jit(parallel=True, cache=True, fastmath={"reassoc", "contract"})
def _gradient_rows(X, y, beta, mask, has_mask, loss_code, n_chunks):  # pragma: no cover
    """``X^T (mask * l'(y | X beta))`` in one pass over the rows of a C-ordered ``X``.

    ``reassoc`` lets the row dot products use vector registers (the sums are
    reordered, not approximated); no flag that assumes finite values is set.
    """
    n, p = X.shape
    G = np.zeros((n_chunks, p))
    size = (n + n_chunks - 1) // n_chunks
    for c in prange(n_chunks):
        for i in range(c * size, min(n, (c + 1) * size)):
            w = mask[i] if has_mask else 1.0
            if w == 0.0:
                continue
            z = 0.0
            for j in range(p):
                z += X[i, j] * beta[j]
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
            d = w * (d - y[i])
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
            d1 *= mask[start:start + rows]
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
        g = X.T @ (d1 if mask is None else d1 * mask)
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

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
"""

from __future__ import annotations

import numpy as np

from ._glm import loss_derivatives

__all__ = ["downdated_gradient", "retained_gradient"]

#: rows per block of the one-pass gradient: about 1 MB of ``X`` (kept in cache)
_BLOCK_BYTES = 1 << 20


def _first_derivative_inplace(z, y, loss):
    """``l'(y | z)`` written over ``z`` (NumPy): ``z - y``, ``sigmoid(z) - y``, ``e^z - y``."""
    if loss == "logistic":
        from scipy.special import expit

        expit(z, out=z)
    elif loss == "poisson":
        np.exp(z, out=z)
    z -= y


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
    On NumPy float64 input the rows are taken in blocks of about 1 MB: each
    block's ``X_b beta`` and ``X_b^T r_b`` use the block while it is in cache.
    Other namespaces (CuPy, ...) use the two products directly. Both agree
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

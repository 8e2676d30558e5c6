"""Conformal risk control (Angelopoulos, Bates, Fisch, Lei & Schuster, ICLR 2024)."""

from __future__ import annotations

import warnings

import numpy as np

from ...utils import check_alpha, check_array, check_real
from .._core._arrays import host
from ._result import RiskControlResult

__all__ = ["conformal_risk_control"]


def loss_matrix(losses, lambdas, name="losses", allow_nan=False):
    """``losses`` (an array, or a callable of one candidate) as an ``(n, m)`` matrix.

    Returns the matrix and the candidates as float arrays (the candidates
    default to ``0, 1, ..., m - 1``).
    """
    if callable(losses):
        if lambdas is None:
            raise ValueError(f"{name} is a callable: pass the candidates as lambdas.")
        lam = _lambdas(lambdas, None)
        cols = []
        for value in lam:
            col = np.asarray(host(losses(value)), dtype=np.float64)
            if col.ndim != 1:
                raise ValueError(f"{name}(lambda) must return the 1-D per-sample losses, got "
                                 f"shape {col.shape} at lambda = {value!r}.")
            cols.append(col)
        if len({c.shape for c in cols}) > 1:
            raise ValueError(f"{name}(lambda) must return as many losses for every lambda.")
        losses = np.column_stack(cols)
    L = check_array(host(losses), name, dtype=np.float64,
                    ensure_all_finite="allow-nan" if allow_nan else True)
    if np.isinf(L).any():
        raise ValueError(f"{name} must be finite, got inf.")
    lam = np.arange(L.shape[1], dtype=np.float64) if lambdas is None else \
        _lambdas(lambdas, L.shape[1])
    return L, lam


def _lambdas(lambdas, m):
    lam = check_array(host(lambdas), "lambdas", ensure_2d=False, dtype=np.float64,
                      ensure_all_finite=False, ensure_min_samples=1)
    if lam.ndim != 1:
        raise ValueError(f"lambdas must be 1-D, got shape {lam.shape}.")
    if np.isnan(lam).any():
        raise ValueError("lambdas must not contain NaN.")
    if m is not None and lam.size != m:
        raise ValueError(f"lambdas must have one value per column of losses ({m}), got "
                         f"{lam.size}.")
    return lam


def conformal_risk_control(losses, alpha, *, lambdas=None, bound=1.0):
    """Conformal risk control: the first candidate with ``(n R_n + B) / (n + 1) <= alpha``.

    For exchangeable calibration and test points and losses ``L_i(lambda)``
    non-increasing in ``lambda`` and bounded by ``B``, the choice

    ``lambda_hat = inf{lambda : n / (n + 1) R_n(lambda) + B / (n + 1) <= alpha}``

    controls the expected test loss, ``E[L_{n+1}(lambda_hat)] <= alpha``
    (Angelopoulos et al. 2024, Theorem 1), provided ``L(lambda_max) <= alpha``;
    for i.i.d. losses continuous in ``lambda`` it is also at least
    ``alpha - 2 B / (n + 1)`` (their Theorem 2). The candidates are the
    columns of ``losses``, read in their order (from the most to the least
    conservative); the condition is evaluated as
    ``sum_i L_i(lambda) + B <= alpha (n + 1)`` with a relative tolerance of
    ``1e-9`` for the rounding of ``alpha (n + 1)`` (as
    :func:`conformal_rank` rounds ``(n + 1)(1 - alpha)``), so that the
    miscoverage loss gives split conformal prediction exactly.

    Parameters
    ----------
    losses : array-like of shape (n, m), or callable
        ``losses[i, j] = L_i(lambda_j)``, each row non-increasing along the
        columns and at most ``bound``. A callable is called once per
        candidate, ``losses(lambda_j)``, and returns the ``n`` losses of that
        candidate (then ``lambdas`` is required).
    alpha : float
        Target risk level in (0, 1).
    lambdas : array-like of shape (m,), optional
        The candidates (labels of the columns; ``+inf`` allowed). Default
        ``0, 1, ..., m - 1``.
    bound : float, default=1.0
        ``B``, an upper bound of every loss.

    Returns
    -------
    RiskControlResult
        ``method="crc"``; when no candidate meets the condition, the last one
        (``lambda_max``) with a warning.

    Raises
    ------
    ValueError
        If a row of ``losses`` increases along the columns or exceeds ``bound``.

    References
    ----------
    Angelopoulos, Bates, Fisch, Lei & Schuster (2024), "Conformal Risk
    Control", ICLR, Section 2, Theorems 1 and 2.

    Examples
    --------
    The miscoverage loss gives the split-conformal quantile:

    >>> import numpy as np
    >>> from statlearn.conformal import conformal_risk_control, miscoverage_losses
    >>> scores = np.array([0.3, 0.1, 0.4, 0.2])
    >>> grid = np.append(np.sort(scores), np.inf)
    >>> res = conformal_risk_control(miscoverage_losses(scores, grid), alpha=0.4,
    ...                              lambdas=grid)
    >>> res.lambda_hat
    0.3
    """
    L, lam = loss_matrix(losses, lambdas)
    alpha = check_alpha(alpha)
    bound = check_real(bound, "bound", low=0.0, closed="neither")
    n, m = L.shape
    if n < 1 or m < 1:
        raise ValueError(f"losses must have at least one row and one column, got {L.shape}.")
    tol = 1e-12 * max(1.0, bound)
    if (L > bound + tol).any():
        i, j = np.argwhere(L > bound + tol)[0]
        raise ValueError(f"losses must be at most bound = {bound!r}, got {L[i, j]!r} at "
                         f"row {i}, column {j}.")
    rises = np.diff(L, axis=1) > tol
    if rises.any():
        i, j = np.argwhere(rises)[0]
        raise ValueError(f"losses must be non-increasing along the columns (the candidates "
                         f"from the most to the least conservative): row {i} rises from "
                         f"{L[i, j]!r} to {L[i, j + 1]!r} at column {j + 1}.")
    total = L.sum(axis=0)
    level = alpha * (n + 1)
    ok = total + bound <= level + 1e-9 * max(1.0, level)
    if ok.any():
        index = int(np.argmax(ok))
    else:
        index = m - 1
        warnings.warn(f"no candidate meets the CRC condition at alpha = {alpha} with n = {n} "
                      f"and B = {bound} (it needs (n R_n + B) / (n + 1) <= alpha); the last "
                      "candidate (lambda_max) is returned, and the guarantee holds only if "
                      "its loss is at most alpha.", UserWarning, stacklevel=2)
    nan = np.full(m, np.nan)
    return RiskControlResult(
        method="crc", lambdas=lam, index=index, lambda_hat=float(lam[index]),
        risk=total / n, n_samples=np.full(m, n, dtype=np.int64), alpha=alpha,
        delta=float("nan"), bound=bound, adjusted_risk=(total + bound) / (n + 1),
        pvalues=nan, selected=np.array([index], dtype=np.int64))

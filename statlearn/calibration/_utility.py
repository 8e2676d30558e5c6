"""Utilities affine in the outcome: validation, value function, best responses.

A utility is given by an ``(m, d)`` matrix ``U`` and an offset ``c`` of length
``m``: ``u(a, y) = U[a] . y + c[a]``. Everything here works on plain arrays.
"""

from __future__ import annotations

import numpy as np

from ..utils import check_array, check_real

__all__ = ["affine_utility", "best_response", "value_function"]

_TIE_TOL = 1e-9


def accuracy_utility(d):
    """Utility of guessing the label: ``u(a, y) = y_a`` (``d >= 2``), or for a scalar
    binary outcome ``u(1, y) = y``, ``u(0, y) = 1 - y``."""
    if d == 1:
        return np.array([[-1.0], [1.0]]), np.array([1.0, 0.0])
    return np.eye(d), np.zeros(d)


def _check_utility(utility_matrix, utility_offset, d=None):
    """Validate ``(U, c)`` and return float arrays of shapes ``(m, d)``, ``(m,)``.

    ``utility_matrix=None`` with a known ``d`` means the accuracy utility.
    """
    if utility_matrix is None and d is not None:
        if utility_offset is not None:
            raise ValueError("utility_offset must be None when utility_matrix is None "
                             "(the default accuracy utility).")
        return accuracy_utility(d)
    if utility_matrix is None:
        raise ValueError("utility_matrix must be an array of shape (n_actions, n_outcomes), "
                         "got None.")
    U = check_array(utility_matrix, "utility_matrix", ensure_2d=False, dtype=float)
    if U.ndim == 1:
        U = U[:, None]
    if U.ndim != 2:
        raise ValueError(f"utility_matrix must be 2-D (n_actions, n_outcomes), got shape "
                         f"{U.shape}.")
    if U.shape[0] < 2:
        raise ValueError(f"utility_matrix needs at least 2 actions (rows), got {U.shape[0]}.")
    if utility_offset is None:
        c = np.zeros(U.shape[0])
    else:
        c = check_array(utility_offset, "utility_offset", ensure_2d=False, dtype=float)
        if c.ndim != 1 or c.shape[0] != U.shape[0]:
            raise ValueError(f"utility_offset must be a 1-D array of length n_actions="
                             f"{U.shape[0]}, got shape {c.shape}.")
    return np.ascontiguousarray(U), np.ascontiguousarray(c)


def value_function(p, utility_matrix, utility_offset=None):
    """Value function ``val(p) = max_a (U[a] p + c[a])`` at each row of ``p``.

    Parameters
    ----------
    p : array-like of shape (n, d) or (n,)
        Beliefs about the outcome (a 1-D array means ``d = 1``).
    utility_matrix : array-like of shape (n_actions, d)
        Slopes ``U[a]`` of the utilities.
    utility_offset : array-like of shape (n_actions,), default=None
        Constants ``c[a]`` (zeros when ``None``).

    Returns
    -------
    numpy.ndarray of shape (n,)

    Examples
    --------
    >>> from statlearn.calibration import value_function
    >>> value_function([0.2, 0.8], [[0.0], [1.0]], [0.4, 0.0])
    array([0.4, 0.8])
    """
    U, c = _check_utility(utility_matrix, utility_offset)
    P = _as_2d(p, "p", U.shape[1])
    return (P @ U.T + c).max(axis=1)


def best_response(p, utility_matrix, utility_offset=None):
    """Plug-in action ``argmax_a (U[a] p + c[a])``, ties to the smallest index.

    Parameters
    ----------
    p : array-like of shape (n, d) or (n,)
        Beliefs (forecasts) about the outcome.
    utility_matrix : array-like of shape (n_actions, d)
        Slopes of the utilities.
    utility_offset : array-like of shape (n_actions,), default=None
        Constants of the utilities.

    Returns
    -------
    numpy.ndarray of int, shape (n,)

    Examples
    --------
    >>> from statlearn.calibration import best_response
    >>> best_response([0.2, 0.4, 0.8], [[0.0], [1.0]], [0.4, 0.0])
    array([0, 0, 1])
    """
    U, c = _check_utility(utility_matrix, utility_offset)
    P = _as_2d(p, "p", U.shape[1])
    return _best_response(P, U, c)


def _best_response(P, U, c):
    util = P @ U.T + c
    best = util.max(axis=1, keepdims=True)
    # smallest index among actions within a relative tolerance of the best
    tol = _TIE_TOL * (1.0 + np.abs(best))
    return np.argmax(util >= best - tol, axis=1)


def _as_2d(p, name, d):
    P = check_array(p, name, ensure_2d=False, dtype=float)
    if P.ndim == 1:
        P = P[:, None] if d == 1 else P[None, :]
    if P.ndim != 2 or P.shape[1] != d:
        raise ValueError(f"{name} must have {d} column(s) (one per outcome), got shape "
                         f"{P.shape}.")
    return P


def affine_utility(actions, *, alpha=1.0, cost_scale=1.0):
    """Utility ``u(a, y) = alpha * a * y - 0.5 * cost_scale * a**2`` for scalar ``y``.

    The capacity / investment utility of the paper's experiments: acting at
    level ``a`` earns ``alpha * a`` per unit of outcome and costs a convex
    ``C(a) = 0.5 * cost_scale * a**2``.

    Parameters
    ----------
    actions : array-like of shape (n_actions,)
        Action levels (for example capacity multipliers ``[0.8, 1.0, 1.2]``).
    alpha : float, default=1.0
        Revenue per unit of outcome, ``> 0``.
    cost_scale : float, default=1.0
        Scale of the quadratic cost, ``>= 0``.

    Returns
    -------
    utility_matrix : numpy.ndarray of shape (n_actions, 1)
    utility_offset : numpy.ndarray of shape (n_actions,)

    Examples
    --------
    >>> from statlearn.calibration import affine_utility
    >>> U, c = affine_utility([0.8, 1.0, 1.2], cost_scale=0.5)
    >>> U.ravel(), c
    (array([0.8, 1. , 1.2]), array([-0.16, -0.25, -0.36]))
    """
    a = check_array(actions, "actions", ensure_2d=False, dtype=float)
    if a.ndim != 1 or a.shape[0] < 2:
        raise ValueError(f"actions must be a 1-D array of at least 2 levels, got shape "
                         f"{a.shape}.")
    alpha = check_real(alpha, "alpha", low=0, closed="neither")
    cost_scale = check_real(cost_scale, "cost_scale", low=0)
    return alpha * a[:, None], -0.5 * cost_scale * a**2


def _envelope_1d(U, c, lo, hi):
    """Upper envelope of the lines ``U[a] p + c[a]`` on ``[lo, hi]`` (``d = 1``).

    Returns the envelope actions in order of increasing slope and the kinks
    between consecutive ones (strictly inside ``(lo, hi)``).
    """
    slopes, offs = U[:, 0], c
    if hi - lo <= 0:
        a = int(_best_response(np.array([[lo]]), U, c)[0])
        return np.array([a]), np.empty(0)
    actions, kinks = [], []
    p = lo
    a = int(_best_response(np.array([[p]]), U, c)[0])
    # the active action at lo with the largest slope among those tied at lo
    tied = np.flatnonzero(slopes * p + offs >= slopes[a] * p + offs[a] - _TIE_TOL)
    a = int(tied[np.argmax(slopes[tied] - 1e-12 * tied)])
    actions.append(a)
    while True:
        steeper = np.flatnonzero(slopes > slopes[a] + 1e-15)
        if steeper.size == 0:
            break
        cross = (offs[a] - offs[steeper]) / (slopes[steeper] - slopes[a])
        ok = cross > p - 1e-15
        if not np.any(ok):
            break
        cand, cross = steeper[ok], cross[ok]
        x = cross.min()
        if x >= hi - 1e-15:
            break
        at = cand[np.abs(cross - x) <= 1e-12 * (1 + abs(x))]
        nxt = int(at[np.argmax(slopes[at])])
        kinks.append(max(x, p))
        actions.append(nxt)
        a, p = nxt, max(x, p)
    return np.asarray(actions, dtype=int), np.asarray(kinks, dtype=float)

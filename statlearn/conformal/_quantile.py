"""The split-conformal quantile, shared by every conformal procedure."""

from __future__ import annotations

import math

import numpy as np

from ..utils import check_alpha, check_array, check_int

__all__ = ["conformal_rank", "conformal_quantile"]


def conformal_rank(n: int, alpha: float) -> int:
    """Rank ``k = ceil((n + 1)(1 - alpha))`` of the conformal quantile.

    ``(n + 1)(1 - alpha)`` is computed in floating point; when it lies within
    ``1e-9`` (relative) of an integer it is taken to be that integer, so that
    decimal levels such as ``alpha = 0.3`` with ``n = 9`` give ``k = 7`` and
    not ``8`` because of binary rounding.

    Parameters
    ----------
    n : int
        Number of calibration scores (>= 1).
    alpha : float
        Miscoverage level in (0, 1).

    Returns
    -------
    int
        ``k``; the conformal set is every label when ``k > n``.

    Examples
    --------
    >>> from statlearn.conformal import conformal_rank
    >>> conformal_rank(9, 0.3), conformal_rank(19, 0.05), conformal_rank(10, 0.01)
    (7, 19, 11)
    """
    n = check_int(n, "n", low=1)
    alpha = check_alpha(alpha)
    x = (n + 1) * (1.0 - alpha)
    nearest = round(x)
    if abs(x - nearest) <= 1e-9 * max(1.0, x):
        return int(nearest)
    return math.ceil(x)


def conformal_quantile(scores, alpha: float) -> float:
    """Split-conformal threshold: the ``k``-th smallest calibration score.

    With ``k = conformal_rank(n, alpha)``; ``+inf`` when ``k > n``. For
    exchangeable scores, a new score is ``<=`` this threshold with
    probability ``k / (n + 1) >= 1 - alpha`` (exactly ``k / (n + 1)`` when
    scores have no ties).

    Parameters
    ----------
    scores : array-like of shape (n,)
        Calibration nonconformity scores (finite or ``+inf``; no NaN).
    alpha : float
        Miscoverage level in (0, 1).

    Returns
    -------
    float

    Examples
    --------
    >>> from statlearn.conformal import conformal_quantile
    >>> conformal_quantile([0.3, 0.1, 0.2, 0.5], alpha=0.4)
    0.3
    >>> conformal_quantile([0.3, 0.1], alpha=0.1)
    inf
    """
    s = check_array(scores, "scores", ensure_2d=False, dtype=np.float64,
                    ensure_all_finite=False, ensure_min_samples=0)
    if s.ndim != 1:
        raise ValueError(f"scores must be 1-D, got shape {s.shape}.")
    if s.size == 0:
        raise ValueError("scores must hold at least one calibration score.")
    if np.isnan(s).any():
        raise ValueError("scores must not contain NaN.")
    if np.isneginf(s).any():
        raise ValueError("scores must not contain -inf.")
    k = conformal_rank(s.size, alpha)
    if k > s.size:
        return math.inf
    return float(np.partition(s, k - 1)[k - 1])

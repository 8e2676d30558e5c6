"""The split-conformal quantile and p-value, shared by every conformal procedure."""

from __future__ import annotations

import math

import numpy as np

from ...utils import check_alpha, check_array, check_int, get_namespace
from ...utils._array_api import is_numpy_namespace
from .. import _kernels
from ._arrays import host

__all__ = ["conformal_rank", "conformal_quantile", "conformal_pvalues"]


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
    if isinstance(scores, np.ndarray) and scores.dtype == np.float64:
        s = scores  # fast path for the common case; the checks below still run
    else:
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



def conformal_pvalues(test_scores, cal_scores, u=None):
    """Conformal p-values ``(#{s_i > s} + u (1 + #{s_i = s})) / (n + 1)``.

    The one definition of a conformal p-value in the package. Scores follow
    the nonconformity convention (larger means less conforming): the p-value
    of a test score ``s`` is the rank of ``s`` among the ``n`` calibration
    scores ``s_i`` and itself, counted from the top, with ties broken by
    ``u``. With ``u ~ Unif(0, 1)`` independent of the data and exchangeable
    scores it is exactly uniform; with ``u = 1`` (the default) it is the
    deterministic, conservative p-value with ``P(p <= t) <= t``. A p-value
    ``p`` relates to the conformal quantile by ``p > alpha`` iff
    ``s <= conformal_quantile(cal_scores, alpha)`` in the deterministic case,
    ties included. Conformal selection, whose scores grow with conformity,
    passes negated scores.

    Computed by one sort of the calibration scores and two binary searches
    per test score, ``O((n + m) log n)``; a parallel Numba kernel for NumPy
    input, array-API operations (CuPy, ...) otherwise.

    Parameters
    ----------
    test_scores : array of shape (m,) or (m, K)
        Scores of the test points (``+inf``/``-inf`` allowed, no NaN).
    cal_scores : array of shape (n,)
        Calibration scores (``+inf``/``-inf`` allowed, no NaN), ``n >= 1``.
    u : array or None, default=None
        Tie-breaking uniforms in ``[0, 1]``: the shape of ``test_scores``, or
        shape ``(m,)`` to share one uniform across a row. ``None`` means
        ``u = 1`` everywhere.

    Returns
    -------
    array of the shape of ``test_scores`` (the input's namespace), in ``(0, 1]``
    when ``u > 0``.

    Examples
    --------
    >>> import numpy as np
    >>> from statlearn.conformal import conformal_pvalues
    >>> cal = np.array([0.1, 0.2, 0.2, 0.5])
    >>> conformal_pvalues(np.array([0.2, 0.6, 0.0]), cal)
    array([0.8, 0.2, 1. ])
    >>> conformal_pvalues(np.array([0.2]), cal, u=np.array([0.5]))
    array([0.5])
    """
    test_scores, cal_scores, u = host(test_scores), host(cal_scores), host(u)
    xp = get_namespace(test_scores, cal_scores, u)
    s = xp.asarray(test_scores, dtype=xp.float64)
    c = xp.asarray(cal_scores, dtype=xp.float64)
    if c.ndim != 1:
        raise ValueError(f"cal_scores must be 1-D, got shape {tuple(c.shape)}.")
    if c.shape[0] == 0:
        raise ValueError("cal_scores must hold at least one calibration score.")
    if bool(xp.any(xp.isnan(c))):
        raise ValueError("cal_scores must not contain NaN.")
    if s.ndim not in (1, 2):
        raise ValueError(f"test_scores must be 1-D or 2-D, got shape {tuple(s.shape)}.")
    if bool(xp.any(xp.isnan(s))):
        raise ValueError("test_scores must not contain NaN.")
    if u is None:
        uu = xp.ones(s.shape, dtype=xp.float64)
    else:
        uu = xp.asarray(u, dtype=xp.float64)
        if tuple(uu.shape) == (s.shape[0],) and s.ndim == 2:
            uu = xp.broadcast_to(uu[:, None], s.shape)
        elif tuple(uu.shape) != tuple(s.shape):
            raise ValueError(
                f"u must have the shape of test_scores {tuple(s.shape)} or ({s.shape[0]},), "
                f"got {tuple(uu.shape)}."
            )
        if bool(xp.any(xp.isnan(uu))) or bool(xp.any(uu < 0)) or bool(xp.any(uu > 1)):
            raise ValueError("u must hold numbers in [0, 1].")
    if is_numpy_namespace(xp):
        cs = np.sort(c)  # unstable sort: faster than the namespace's stable one
        flat = np.ascontiguousarray(np.reshape(s, (-1,)))
        uflat = np.ascontiguousarray(np.reshape(uu, (-1,)))
        kernel = (_kernels.conformal_pvalues_kernel if flat.size >= _kernels.PARALLEL_MIN_SIZE
                  else _kernels.conformal_pvalues_kernel_serial)
        return np.reshape(kernel(np.ascontiguousarray(cs), flat, uflat), s.shape)
    return _conformal_pvalues_xp(xp.sort(c), s, uu, xp)



def _conformal_pvalues_xp(sorted_cal, test, u, xp):
    """Array-API reference of the p-value kernel (``sorted_cal`` ascending)."""
    n = sorted_cal.shape[0]
    flat = xp.reshape(test, (-1,))
    left = xp.astype(xp.searchsorted(sorted_cal, flat, side="left"), xp.float64)
    right = xp.astype(xp.searchsorted(sorted_cal, flat, side="right"), xp.float64)
    p = ((n - right) + xp.reshape(u, (-1,)) * (1.0 + right - left)) / (n + 1.0)
    return xp.reshape(p, test.shape)


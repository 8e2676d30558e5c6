"""The conditions of conformal selection and their region-monotone scores.

Every condition here is a *box*: an open interval ``(lower_t, upper_t)``
(either end may be infinite) for each task ``t`` it constrains. Its score
uses the signed depth of the prediction in the box,
``d(x) = min_t min(mu_t(x) - lower_t, upper_t - mu_t(x))``:
``V(x, y) = M - d(x)`` when ``y`` lies in the box and ``V = -d(x)`` otherwise,
and the test statistic is the null value ``-d(x)``. This is the conjunctive
score of Hao, Liao, Jing & Wei (2026), regionally monotone (every response
outside the box scores at most as much as one inside); for a half-line
``(c, inf)`` it is the clipped score of cfBH (Jin & Candes, 2023).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping

import numpy as np

from ...utils import check_real, get_namespace
from .._core._arrays import host

__all__ = ["region_scores"]


def _as_float(xp, a, name, ndim=None):
    try:
        out = xp.asarray(a, dtype=xp.float64)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must be an array of real numbers: {exc}") from exc
    if ndim is not None and out.ndim not in ndim:
        raise ValueError(f"{name} must have {' or '.join(map(str, ndim))} dimensions, "
                         f"got shape {tuple(out.shape)}.")
    if bool(xp.any(xp.isnan(out))):
        raise ValueError(f"{name} must not contain NaN.")
    return out


def _depth(xp, mu, lower, upper):
    """Signed depth ``min_t min(mu_t - lower_t, upper_t - mu_t)``, shape (n,)."""
    d = xp.minimum(mu - lower, upper - mu)
    return xp.min(d, axis=1)


def _inside(xp, y, lower, upper):
    return xp.all((y > lower) & (y < upper), axis=1)


def region_scores(mu, y=None, *, lower=-np.inf, upper=np.inf, M=None):
    """Region-monotone scores of one condition ``lower < y < upper``.

    With the signed depth ``d(x) = min(mu(x) - lower, upper - mu(x))`` of the
    prediction in the region (minimum over columns for several tasks):
    ``V(x, y) = M - d(x)`` if ``lower < y < upper`` (every column) and
    ``V(x, y) = -d(x)`` otherwise. Without ``y`` the test statistic, the null
    value ``-d(x)``, is returned. For ``upper = inf`` this is the clipped
    cfBH score (``M`` in place of ``M + c``); for ``lower = -inf`` its mirror.

    Parameters
    ----------
    mu : array of shape (n,) or (n, T)
        Predictions of the response(s).
    y : array of the shape of ``mu``, optional
        Observed responses (calibration); omit for test points.
    lower, upper : float or array broadcastable to ``mu``
        Open region ``(lower, upper)``; infinite ends allowed,
        ``lower < upper`` required. Per-unit values allowed.
    M : float or None, default=None
        Score offset of in-region units; ``None`` means ``+inf``.

    Returns
    -------
    array of shape (n,)

    Examples
    --------
    >>> import numpy as np
    >>> from statlearn.conformal import region_scores
    >>> mu = np.array([0.9, 1.5])
    >>> region_scores(mu, np.array([0.7, 1.1]), lower=0.0, upper=1.0, M=100.0)
    array([99.9,  0.5])
    >>> region_scores(mu, lower=0.0, upper=1.0)
    array([-0.1,  0.5])
    """
    mu, y, lower, upper = host(mu), host(y), host(lower), host(upper)
    xp = get_namespace(mu, y)
    mu_ = _as_float(xp, mu, "mu", ndim=(1, 2))
    if bool(xp.any(xp.isinf(mu_))):
        raise ValueError("mu must be finite.")
    mu2 = mu_[:, None] if mu_.ndim == 1 else mu_
    lo = _as_float(xp, lower, "lower")
    hi = _as_float(xp, upper, "upper")
    try:
        lo_b, hi_b = (xp.broadcast_to(lo[..., None] if (lo.ndim == 1 and mu_.ndim == 1) else lo,
                                      mu2.shape),
                      xp.broadcast_to(hi[..., None] if (hi.ndim == 1 and mu_.ndim == 1) else hi,
                                      mu2.shape))
    except ValueError as exc:
        raise ValueError(f"lower and upper must broadcast to mu's shape {tuple(mu_.shape)}: "
                         f"{exc}") from exc
    if bool(xp.any(lo_b >= hi_b)):
        raise ValueError("lower must be strictly below upper (degenerate region).")
    d = _depth(xp, mu2, lo_b, hi_b)
    if bool(xp.any(xp.isinf(d))):
        raise ValueError("the region must have at least one finite end.")
    if y is None:
        return -d
    y_ = _as_float(xp, y, "y", ndim=(mu_.ndim,))
    if tuple(y_.shape) != tuple(mu_.shape):
        raise ValueError(f"y must have the shape of mu {tuple(mu_.shape)}, got {tuple(y_.shape)}.")
    M_ = _check_M(M)
    inside = _inside(xp, y_[:, None] if y_.ndim == 1 else y_, lo_b, hi_b)
    return xp.where(inside, M_ - d, -d)


def _check_M(M):
    if M is None:
        return math.inf
    M = check_real(M, "M", low=0, closed="neither", allow_inf=True)
    return M


def _parse_conditions(conditions, n_tasks):
    """Lower/upper bounds of shape (K, T) from intervals or {task: interval} boxes."""
    if isinstance(conditions, Mapping) or (
        isinstance(conditions, tuple | list) and len(conditions) == 2
        and all(isinstance(c, numbers.Real) for c in conditions)
    ):
        conditions = [conditions]
    try:
        conds = list(conditions)
    except TypeError:
        raise TypeError("conditions must be a sequence of (lower, upper) intervals or of "
                        f"{{task: (lower, upper)}} mappings, got {conditions!r}.") from None
    if not conds:
        raise ValueError("conditions must hold at least one condition.")
    K = len(conds)
    lower = np.full((K, n_tasks), -np.inf)
    upper = np.full((K, n_tasks), np.inf)
    for k, cond in enumerate(conds):
        items = cond.items() if isinstance(cond, Mapping) else [(0, cond)]
        if isinstance(cond, Mapping) and not cond:
            raise ValueError(f"conditions[{k}] constrains no task.")
        for task, interval in items:
            if isinstance(task, bool) or not isinstance(task, numbers.Integral) \
                    or not 0 <= task < n_tasks:
                raise ValueError(f"conditions[{k}]: task must be an integer in "
                                 f"[0, {n_tasks - 1}], got {task!r}.")
            try:
                lo, hi = interval
            except (TypeError, ValueError):
                raise TypeError(f"conditions[{k}] must be a (lower, upper) pair, "
                                f"got {interval!r}.") from None
            lo = check_real(lo, f"conditions[{k}] lower end", allow_inf=True)
            hi = check_real(hi, f"conditions[{k}] upper end", allow_inf=True)
            if not lo < hi:
                raise ValueError(f"conditions[{k}] is degenerate: lower end {lo} must be "
                                 f"strictly below upper end {hi}.")
            if math.isinf(lo) and math.isinf(hi):
                raise ValueError(f"conditions[{k}] = ({lo}, {hi}) constrains nothing; give at "
                                 "least one finite end.")
            lower[k, task], upper[k, task] = lo, hi
    return lower, upper


def _intersect_boxes(lower, upper):
    lo = lower.max(axis=0, keepdims=True)
    hi = upper.min(axis=0, keepdims=True)
    if np.any(lo >= hi):
        raise ValueError("the conjunction of the conditions is empty (an upper end is at or "
                         "below a lower end).")
    return lo, hi


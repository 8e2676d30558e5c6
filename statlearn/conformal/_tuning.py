"""Choice of SOCOP's lambda on a tuning split: the Kneedle knee of the size curve."""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..utils import check_alpha, check_array, check_int, check_real

__all__ = ["DEFAULT_LAM_GRID", "LAM_GRID_MULTIPLIERS", "LambdaSelection", "kneedle",
           "scaled_lam_grid", "select_lambda"]

#: A fixed lambda grid suited to about ten classes (sets of a few labels). The
#: automatic choice does not use it: it scales its grid to the data, see
#: :func:`scaled_lam_grid`.
DEFAULT_LAM_GRID = (0.0, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0)

#: Values of ``lam * s_ref`` searched by :func:`scaled_lam_grid` (besides ``lam = 0``):
#: 17 points, geometric from 1e-3 to 10.
LAM_GRID_MULTIPLIERS = tuple(float(v) for v in np.geomspace(1e-3, 10.0, 17))


def kneedle(x, y, sensitivity=1.0):
    """Knee of a decreasing convex curve by the Kneedle rule (Satopaa et al., 2011).

    The points are sorted by ``x`` (for equal ``x`` the smallest ``y`` is
    kept), both coordinates are scaled to ``[0, 1]``, and the difference
    curve ``d = (1 - x_n) - y_n`` (height of the chord from the first to the
    last point above the curve) is formed. Each local maximum ``i`` of ``d``
    defines the threshold ``d_i - sensitivity * mean(diff(x_n))``; it is a
    knee when ``d`` falls below that threshold before the next local maximum.
    Of the knees, the one with the largest ``d`` is returned.

    Parameters
    ----------
    x, y : array-like of shape (m,)
        Curve points (``y`` decreasing in ``x`` and convex for a knee).
    sensitivity : float, default=1.0
        Kneedle's ``S``; larger values declare fewer knees.

    Returns
    -------
    int or None
        Index (into the original arrays) of the knee, or ``None`` when the
        curve has fewer than three distinct points, is flat, or has no knee.

    Examples
    --------
    >>> import numpy as np
    >>> from statlearn.conformal import kneedle
    >>> x = np.array([1.0, 1.2, 1.5, 2.0, 3.0, 5.0])
    >>> y = np.array([0.60, 0.40, 0.30, 0.25, 0.22, 0.20])
    >>> int(kneedle(x, y))
    3
    >>> kneedle([1.0, 2.0, 3.0], [3.0, 2.0, 1.0]) is None
    True
    """
    x = check_array(x, "x", ensure_2d=False, dtype=np.float64)
    y = check_array(y, "y", ensure_2d=False, dtype=np.float64)
    if x.ndim != 1 or y.shape != x.shape:
        raise ValueError(f"x and y must be 1-D of equal length, got {x.shape} and {y.shape}.")
    sensitivity = check_real(sensitivity, "sensitivity", low=0)
    # one point per distinct x (the lowest y), in increasing x
    order = np.lexsort((y, x))
    xs, ys, idx = x[order], y[order], order
    first = np.r_[True, np.diff(xs) > 0]
    xs, ys, idx = xs[first], ys[first], idx[first]
    if xs.size < 3 or np.ptp(ys) == 0:
        return None
    xn = (xs - xs[0]) / (xs[-1] - xs[0])
    yn = (ys - ys.min()) / np.ptp(ys)
    d = (1.0 - xn) - yn
    step = float(np.mean(np.diff(xn)))
    m = d.size
    local = [i for i in range(1, m - 1) if d[i] >= d[i - 1] and d[i] >= d[i + 1] and d[i] > 0]
    knees = []
    for pos, i in enumerate(local):
        stop = local[pos + 1] if pos + 1 < len(local) else m
        threshold = d[i] - sensitivity * step
        if np.any(d[i + 1:stop] < threshold):
            knees.append(i)
    if not knees:
        return None
    best = max(knees, key=lambda i: d[i])
    return int(idx[best])


@dataclass(frozen=True, slots=True)
class LambdaSelection:
    """Outcome of the lambda search on the tuning split.

    Attributes
    ----------
    lam : float
        Chosen lambda.
    method : {"knee", "fallback"}
        ``"knee"`` when Kneedle found a knee; ``"fallback"`` when the point
        nearest the origin of the normalised curve was used instead.
        ``"flat"`` when every lambda of the grid gives (nearly) the same sets;
        a warning says so.
    grid : ndarray
        The lambda grid.
    mean_size, non_singleton_rate : ndarray
        The curve on the tuning split (at level ``alpha``).
    reference_size : float
        Mean LAC set size on the tuning split that scaled the default grid
        (NaN when the grid was given).
    """

    lam: float
    method: str
    grid: np.ndarray
    mean_size: np.ndarray
    non_singleton_rate: np.ndarray
    reference_size: float = float("nan")

    def __repr__(self):
        i = int(np.flatnonzero(self.grid == self.lam)[0])
        return (f"LambdaSelection(lam={self.lam:.4g}, method={self.method!r}, "
                f"grid: {self.grid.size} values in [{self.grid.min():.3g}, "
                f"{self.grid.max():.3g}], mean_size={self.mean_size[i]:.4g}, "
                f"non_singleton_rate={self.non_singleton_rate[i]:.4g})")

    def to_frame(self):
        """The tuning curve as a DataFrame."""
        return pd.DataFrame({"lam": self.grid, "mean_size": self.mean_size,
                             "non_singleton_rate": self.non_singleton_rate,
                             "chosen": self.grid == self.lam})

    def plot(self, ax=None):
        """Mean size against P(size > k0) over the grid, chosen point marked.

        Returns
        -------
        matplotlib.axes.Axes
        """
        import matplotlib.pyplot as plt

        if ax is None:
            _, ax = plt.subplots(figsize=(5, 3.5))
        ax.plot(self.mean_size, self.non_singleton_rate, "o-", color="C0")
        for lam, xv, yv in zip(self.grid, self.mean_size, self.non_singleton_rate):
            ax.annotate(f"{lam:g}", (xv, yv), fontsize="x-small", textcoords="offset points",
                        xytext=(3, 3))
        pick = self.grid == self.lam
        ax.plot(self.mean_size[pick], self.non_singleton_rate[pick], "s", ms=10, mfc="none",
                color="C3", label=f"chosen lam = {self.lam:g} ({self.method})")
        ax.set_xlabel("mean set size")
        ax.set_ylabel("non-singleton rate")
        ax.legend(fontsize="small")
        return ax


def _fallback(x, y):
    xn = (x - x.min()) / (np.ptp(x) or 1.0)
    yn = (y - y.min()) / (np.ptp(y) or 1.0)
    dist = np.round(np.hypot(xn, yn), 12)
    # ties: the smaller mean size, then the larger lambda (the later grid point)
    order = np.lexsort((-np.arange(x.size), x, dist))
    return int(order[0])


def _tuning_sizes(proba, labels, alpha, lam, k0, mondrian, K):
    from ._classifier import thresholds_from_scores
    from ._scores import socop_scores, socop_sets

    s = socop_scores(proba, float(lam), k0, labels=labels)
    q = thresholds_from_scores(s, labels, alpha, K, mondrian)
    return socop_sets(proba, float(lam), q, k0).sum(axis=1)


def scaled_lam_grid(proba, labels, alpha, mondrian=False):
    """Lambda grid scaled to the typical set size of the data.

    SOCOP trades the penalty ``1`` of a non-singleton set against ``lam``
    per label, so lambda matters on the scale ``lam * |C| ~ 1``. The grid is
    ``0`` and ``m / s_ref`` for ``m`` in :data:`LAM_GRID_MULTIPLIERS`
    (``1e-3 .. 10``), where ``s_ref = max(1, mean LAC set size)`` with the LAC
    sets calibrated on ``(proba, labels)`` at level ``alpha``. A fixed grid
    made for ten classes collapses at a thousand classes (every value above
    ``0.005`` already gives the LAC sets); this one does not.

    Parameters
    ----------
    proba : array of shape (n, K)
        Tuning-split probabilities.
    labels : array of int, shape (n,)
        Tuning-split label indices.
    alpha : float
        Miscoverage level.
    mondrian : bool, default=False
        Class-conditional thresholds for the reference LAC sets.

    Returns
    -------
    grid : ndarray
        Increasing lambda values, starting at 0.
    s_ref : float
        The reference size.

    Examples
    --------
    >>> import numpy as np
    >>> from statlearn.conformal import scaled_lam_grid
    >>> rng = np.random.default_rng(0)
    >>> p = rng.dirichlet(np.ones(10) * 0.3, size=500)
    >>> y = np.array([rng.choice(10, p=row) for row in p])
    >>> grid, s_ref = scaled_lam_grid(p, y, alpha=0.1)
    >>> grid.size, float(grid[0]), bool(1 <= s_ref <= 10)
    (18, 0.0, True)
    """
    from ._classifier import thresholds_from_scores
    from ._scores import _check_labels, _check_proba, _lac

    alpha = check_alpha(alpha)
    proba, xp = _check_proba(proba)
    labels = _check_labels(labels, proba, xp)
    K = proba.shape[1]
    q = thresholds_from_scores(_lac(proba, labels, xp), labels, alpha, K, mondrian)
    size = float(np.mean(np.sum(_lac(proba, None, xp) <= q[None, :], axis=1)))
    s_ref = max(1.0, size)
    return np.r_[0.0, np.asarray(LAM_GRID_MULTIPLIERS) / s_ref], s_ref


def select_lambda(proba, labels, alpha, lam_grid=None, k0=1, mondrian=False, warn=True):
    """Choose SOCOP's lambda on a tuning split by the Kneedle knee.

    For every lambda of the grid the tuning split is calibrated on itself
    (the conformal threshold of its own scores at level ``alpha``) and the
    resulting sets give one point (mean size, ``P(size > k0)``). Kneedle
    picks the knee of this decreasing curve; if it finds none, the point
    nearest the origin of the min-max normalised curve is used (ties: the
    smaller mean size).

    An automatic choice must not hide a degenerate rule: a warning is issued
    when the curve is flat (every lambda gives the same sets), when it takes
    fewer than three distinct values (the grid does not resolve the scale
    where lambda acts, as a fixed ten-class grid at a thousand classes), and
    when ``lam = 0`` is chosen (sets are then the top label or the whole
    support).

    Parameters
    ----------
    proba : array of shape (n, K)
        Tuning-split probabilities (independent of the calibration split).
    labels : array of int, shape (n,)
        Tuning-split label indices.
    alpha : float
        Miscoverage level.
    lam_grid : sequence of float, optional
        Candidate values; default :func:`scaled_lam_grid` (scaled to the
        LAC set size of the data).
    k0 : int, default=1
        SOCOP's set-size cut-off.
    mondrian : bool, default=False
        Use class-conditional thresholds when tracing the curve.
    warn : bool, default=True
        Issue the warnings above.

    Returns
    -------
    LambdaSelection

    Examples
    --------
    >>> import numpy as np
    >>> from statlearn.conformal import select_lambda
    >>> rng = np.random.default_rng(0)
    >>> p = rng.dirichlet(np.ones(10) * 0.3, size=500)
    >>> y = np.array([rng.choice(10, p=row) for row in p])
    >>> sel = select_lambda(p, y, alpha=0.1)
    >>> bool(sel.lam > 0), sel.method
    (True, 'knee')
    """
    alpha = check_alpha(alpha)
    k0 = check_int(k0, "k0", low=0)
    labels = np.asarray(labels)
    if lam_grid is None:
        grid, s_ref = scaled_lam_grid(proba, labels, alpha, mondrian)
    else:
        grid, s_ref = np.asarray(lam_grid, dtype=float), float("nan")
        if grid.ndim != 1 or grid.size < 1 or not np.all(np.isfinite(grid)) or \
                np.any(grid < 0):
            raise ValueError("lam_grid must be a non-empty 1-D sequence of finite values >= 0.")
    n, K = np.shape(proba)
    sizes, non_single = [], []
    for lam in grid:
        sz = _tuning_sizes(proba, labels, alpha, lam, k0, mondrian, K)
        sizes.append(float(sz.mean()))
        non_single.append(float(np.mean(sz > k0)))
    sizes, non_single = np.array(sizes), np.array(non_single)
    flat = grid.size > 1 and np.ptp(sizes) <= 1e-3 * max(1.0, sizes.max()) and \
        np.ptp(non_single) < 1.0 / max(n, 1)
    n_distinct = np.unique(np.c_[np.round(sizes, 9), np.round(non_single, 9)], axis=0).shape[0]
    if flat:
        pick, method = int(grid.size - 1), "flat"
    else:
        knee = kneedle(sizes, non_single) if grid.size >= 3 else None
        if knee is None:
            pick, method = _fallback(sizes, non_single), "fallback"
        else:
            pick, method = knee, "knee"
    lam = float(grid[pick])
    hint = ("" if lam_grid is None else " The grid may miss the scale 1 / (typical set "
            "size) where lambda acts; the default lam_grid=None is scaled to the data.")
    if warn and flat:
        warnings.warn(f"SOCOP lambda search: the tuning curve is flat over the grid "
                      f"[{grid.min():.3g}, {grid.max():.3g}] (mean size {sizes[pick]:.4g}, "
                      f"P(size > {k0}) {non_single[pick]:.3g} for every value), so lambda "
                      f"makes no difference on these data; lam = {lam:.3g} was taken." + hint,
                      UserWarning, stacklevel=3)
    elif warn and grid.size >= 3 and n_distinct < 3:
        warnings.warn(f"SOCOP lambda search: the tuning curve takes only {n_distinct} "
                      f"distinct values over {grid.size} grid points, too few to locate a "
                      f"trade-off; lam = {lam:.3g} was taken (mean size {sizes[pick]:.4g}, "
                      f"P(size > {k0}) {non_single[pick]:.3g})." + hint, UserWarning,
                      stacklevel=3)
    elif warn and lam == 0.0:
        warnings.warn(f"SOCOP lambda search chose lam = 0: every set is the top label or "
                      f"the whole support (mean size {sizes[pick]:.4g}). Check the tuning "
                      "curve (lam_selection_.plot()) or pass a fixed lam.", UserWarning,
                      stacklevel=3)
    return LambdaSelection(lam=lam, method=method, grid=grid, mean_size=sizes,
                           non_singleton_rate=non_single, reference_size=s_ref)

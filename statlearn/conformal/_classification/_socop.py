"""SOCOP, Singleton-Optimized Conformal Prediction (Wang, Sun & Dobriban, 2025).

The score, its prediction sets and the choice of its weight ``lambda`` on a
tuning split, in one place:

* :func:`socop_scores` and :func:`socop_sets`: the score of a label is the
  smallest price ``eta`` at which it enters the minimiser of the per-instance
  Lagrangian ``1{|S| > k0} + lam |S| - eta * sum_{y in S} p_y`` of the
  paper's constrained problem (minimise ``P(|C(X)| > 1) + lam E|C(X)|``
  subject to coverage); the minimisers are top-j sets, nested in ``eta``, and
  are read off the lower convex hull of the points ``(Gamma_j, g_j)``. NumPy
  input runs the monotone-chain scan of that hull in
  :mod:`statlearn.conformal._kernels`; other array namespaces the vectorised
  two-chain form below.
* :func:`select_lambda`: the paper's choice of ``lambda``, the Kneedle knee
  of the (mean size, ``P(size > k0)``) curve over a grid, traced on a tuning
  split independent of the calibration points. The grid, its scaling to the
  data (:func:`scaled_lam_grid`), the tuning fraction and the fallbacks are our
  reconstruction: we could not find them in the paper.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ...utils import (
    asarray_like,
    check_alpha,
    check_array,
    check_int,
    check_real,
    get_namespace,
)
from ...utils._array_api import is_numpy_namespace
from .. import _kernels
from .._core._thresholds import thresholds_from_scores
from ._baselines import _lac
from ._label_order import _check_labels, _check_proba, _gather, _pick, _sort_desc, _to_label_order
from ._parallel import run_rows

__all__ = [
    "DEFAULT_LAM_GRID",
    "LAM_GRID_MULTIPLIERS",
    "LambdaSelection",
    "kneedle",
    "scaled_lam_grid",
    "select_lambda",
    "socop_scores",
    "socop_sets",
]


# --------------------------------------------------------------------------- the score
def _check_socop_params(lam, k0):
    lam = check_real(lam, "lam", low=0)
    k0 = check_int(k0, "k0", low=0)
    return lam, k0


def socop_scores(proba, lam, k0=1, labels=None):
    """SOCOP nonconformity scores (Wang, Sun & Dobriban, 2025).

    The score of label ``y`` is the smallest price ``eta >= 0`` at which ``y``
    enters the minimiser of ``1{|S| > k0} + lam |S| - eta * sum_{y in S} p_y``
    over label sets ``S``; the minimisers are top-j sets and nested in
    ``eta``, so conformal sets built from this score are top-j sets.

    Parameters
    ----------
    proba : array of shape (n, K)
        Predicted probabilities (rows sum to one).
    lam : float
        Weight of the set size against the non-singleton indicator
        (``lam >= 0``). ``lam -> inf`` gives the LAC sets; ``lam = 0`` gives
        sets that are either the top label or the whole support.
    k0 : int, default=1
        Sets larger than ``k0`` are penalised (``1``: singletons are the goal).
    labels : array of shape (n,), optional
        Label indices; if given, return only their scores.

    Returns
    -------
    array of shape (n, K) or (n,)
        Scores; labels of zero probability score ``+inf``.

    Notes
    -----
    For each row the labels are sorted by decreasing probability (stable,
    ties by lower index), the lower convex hull of the points
    ``(Gamma_j, g_j)``, ``Gamma_j`` the mass of the top ``j`` labels and
    ``g_j = 1{j > k0} + lam j``, is scanned once (monotone chain), and the
    labels ranked inside a hull edge share that edge's slope as their score.
    The cost is ``O(K)`` per row after an ``O(K log K)`` sort; the paper's
    ``O(K)`` counts the hull step given sorted probabilities. Differences of
    ``Gamma`` come from suffix sums so tiny positive probabilities keep finite
    scores. NumPy input runs a parallel Numba kernel over rows; other array
    namespaces use a vectorised form of the same hull (the left chain
    ``P_0..P_k0``, one bridge edge, then the right chain) in ``O(k0 K)`` per
    row.

    References
    ----------
    Wang, Sun & Dobriban (2025), "Singleton-Optimized Conformal Prediction",
    arXiv:2509.24095.

    Examples
    --------
    >>> from statlearn.conformal import socop_scores
    >>> socop_scores([[0.5, 0.3, 0.15, 0.05]], lam=0.1).round(3).tolist()
    [[0.2, 2.6, 2.6, 2.6]]
    >>> socop_scores([[0.7, 0.3, 0.0, 0.0]], lam=0.2, labels=[1]).round(3).tolist()
    [4.0]
    """
    proba, xp = _check_proba(proba)
    lam, k0 = _check_socop_params(lam, k0)
    if labels is not None:
        labels = _check_labels(labels, proba, xp)
    return _socop(proba, lam, k0, labels, xp)


def _socop(proba, lam, k0, labels, xp):
    if is_numpy_namespace(xp):
        p = np.ascontiguousarray(proba, dtype=np.float64)
        if labels is None:
            return run_rows("socop_scores", _kernels.socop_scores_kernel_serial,
                            _kernels.socop_scores_kernel, (p,), (lam, k0))
        return _socop_label_scores_np(p, np.ascontiguousarray(labels, dtype=np.int64), lam, k0)
    scores = socop_scores_reference(proba, lam, k0)
    return scores if labels is None else _pick(scores, labels, xp)


#: Rows sorted by NumPy per call of the label-score kernel (about 16 MB of scratch).
_SORT_BLOCK = 1 << 21


def _socop_label_scores_np(p, labels, lam, k0):
    """Label scores through the kernel, the rows sorted by NumPy block by block."""
    n, K = p.shape
    rows = max(1, _SORT_BLOCK // max(K, 1))
    def kernel(blk, lab):
        return run_rows("socop_label_scores", _kernels.socop_label_scores_kernel_serial,
                        _kernels.socop_label_scores_kernel, (blk, np.sort(blk, axis=1), lab),
                        (lam, k0))

    if n <= rows:
        return kernel(p, labels)
    out = np.empty(n)
    for lo in range(0, n, rows):
        out[lo:lo + rows] = kernel(p[lo:lo + rows], labels[lo:lo + rows])
    return out


def socop_scores_reference(proba, lam, k0=1):
    """Vectorised array-API SOCOP scores of every label (no validation).

    The hull of ``P_0..P_K`` is the left chain ``P_0..P_k0`` (convex: slopes
    ``lam / p_(j)``) up to a tangent vertex ``a``, one bridge edge to a vertex
    ``m > k0`` of the right chain ``P_{k0+1}..P_K`` (also convex), then the
    right chain. For each candidate ``a`` the bridge slope is the smallest
    slope from ``P_a`` to the right chain; ``a`` is the first candidate whose
    bridge is no steeper than the next left-chain edge.
    """
    # subnormal probabilities may overflow lam / p to +inf, as in the kernel
    with np.errstate(over="ignore", divide="ignore"):
        return _socop_reference(proba, lam, k0)


def _socop_reference(proba, lam, k0):
    xp = get_namespace(proba)
    n, K = proba.shape
    dt = proba.dtype
    order = _sort_desc(proba, xp)
    ps = _gather(proba, order, xp)
    # suffix[:, j] = sum of ps[:, j:], j = 0..K (accumulated from the smallest)
    rev = xp.flip(xp.cumulative_sum(xp.flip(ps, axis=1), axis=1), axis=1)
    suffix = xp.concat([rev, xp.zeros((n, 1), dtype=dt)], axis=1)
    j_all = xp.arange(K + 1, dtype=dt)
    g = xp.astype(j_all > k0, dt) + lam * j_all  # (K+1,)
    pos = ps > 0  # rank j+1 has positive probability
    inf = xp.asarray(xp.inf, dtype=dt)
    # edge slope into point j from j-1 within a chain: lam / p_(j)
    step = suffix[:, :-1] - suffix[:, 1:]  # == ps up to rounding
    chain = xp.where(pos, lam / xp.where(pos, step, xp.ones_like(step)), inf)  # (n, K)
    k_left = min(k0, K)
    a_star = xp.full((n,), K + 1, dtype=xp.int64)
    s_star = xp.full((n,), xp.inf, dtype=dt)
    m_star = xp.full((n,), K, dtype=xp.int64)
    found = xp.zeros((n,), dtype=xp.bool)
    if k0 + 1 <= K:
        m_idx = xp.arange(k0 + 1, K + 1, dtype=xp.int64)
        right_pos = pos[:, k0:]  # points m = k0+1..K
    for a in range(k_left + 1):
        if k0 + 1 <= K:
            den = suffix[:, a:a + 1] - suffix[:, k0 + 1:]
            num = g[k0 + 1:] - g[a]
            ok = right_pos & (den > 0)
            slopes = xp.where(ok, num[None, :] / xp.where(ok, den, xp.ones_like(den)), inf)
            s_a = xp.min(slopes, axis=1)
            # the last minimiser, as the monotone chain drops collinear middle points
            last = xp.argmin(xp.flip(slopes, axis=1), axis=1)
            m_a = xp.take(m_idx, (K - k0 - 1) - last)
        else:
            s_a = xp.full((n,), xp.inf, dtype=dt)
            m_a = xp.full((n,), K, dtype=xp.int64)
        next_edge = chain[:, a] if a < k_left else xp.full((n,), xp.inf, dtype=dt)
        if a >= 1:
            # P_a must itself be a positive-probability point of the left chain
            cond = (s_a <= next_edge) & pos[:, a - 1]
        else:
            cond = s_a <= next_edge
        take = cond & ~found
        a_star = xp.where(take, a, a_star)
        s_star = xp.where(take, s_a, s_star)
        m_star = xp.where(take, m_a, m_star)
        found = found | cond
    # support <= k0 and no candidate taken: every positive label is on the left chain
    support = xp.sum(xp.astype(pos, xp.int64), axis=1)
    a_star = xp.where(found, a_star, support)
    rank = xp.arange(1, K + 1, dtype=xp.int64)[None, :]
    on_left = rank <= a_star[:, None]
    on_bridge = (rank > a_star[:, None]) & (rank <= m_star[:, None])
    by_rank = xp.where(on_left, chain, xp.where(on_bridge, s_star[:, None], chain))
    by_rank = xp.where(pos, by_rank, inf)
    return _to_label_order(by_rank, order, xp)



# --------------------------------------------------------------------------- the sets
def socop_sets(proba, lam, threshold, k0=1):
    """SOCOP prediction sets ``{y : r(x, y) <= threshold}`` as a boolean mask.

    Parameters
    ----------
    proba : array of shape (n, K)
        Predicted probabilities (rows sum to one).
    lam : float
        SOCOP weight (``>= 0``), see :func:`socop_scores`.
    threshold : float or array of shape (K,)
        Conformal threshold ``q`` (``+inf`` allowed), or one per label
        (class-conditional calibration).
    k0 : int, default=1
        See :func:`socop_scores`.

    Returns
    -------
    array of bool, shape (n, K)

    Examples
    --------
    >>> from statlearn.conformal import socop_sets
    >>> socop_sets([[0.5, 0.3, 0.15, 0.05]], lam=0.1, threshold=1.0).tolist()
    [[True, False, False, False]]
    """
    proba, xp = _check_proba(proba)
    lam, k0 = _check_socop_params(lam, k0)
    K = proba.shape[1]
    if is_numpy_namespace(xp):
        q = np.asarray(threshold, dtype=np.float64)
        if q.ndim == 0:
            q = np.full(K, float(q))
        if q.shape != (K,) or np.isnan(q).any():
            raise ValueError(f"threshold must be a number or an array of shape ({K},) without "
                             "NaN.")
        return _socop_sets(proba, lam, k0, q, xp)
    if isinstance(threshold, (np.ndarray, np.generic)) or not hasattr(threshold, "shape"):
        # NumPy scalars and arrays have a shape too, but belong to another namespace
        q = asarray_like(np.asarray(threshold, dtype=np.float64), proba, dtype=proba.dtype)
    else:
        q = threshold
    if tuple(q.shape) not in ((), (K,)) or bool(xp.any(xp.isnan(q))):
        raise ValueError(f"threshold must be a number or an array of shape ({K},) without "
                         "NaN.")
    return _socop_sets(proba, lam, k0, q, xp)


def _socop_sets(proba, lam, k0, q, xp):
    if is_numpy_namespace(xp):
        p = np.ascontiguousarray(proba, dtype=np.float64)
        q = np.ascontiguousarray(q, dtype=np.float64)
        if q.size and np.all(q == q[0]) and k0 <= _kernels.FAST_SET_MAX_K0:
            if np.isposinf(q[0]):
                return np.ones(p.shape, dtype=bool)
            # one threshold: one pass per row, no sort (the hull scan only near ties)
            return run_rows("socop_sets_threshold", _kernels.socop_sets_threshold_kernel_serial,
                            _kernels.socop_sets_threshold_kernel, (p,),
                            (float(lam), int(k0), float(q[0])))
        return run_rows("socop_sets", _kernels.socop_sets_kernel_serial,
                        _kernels.socop_sets_kernel, (p,), (lam, k0, q))
    return socop_scores_reference(proba, lam, k0) <= q



# --------------------------------------------------------------------------- lambda
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


"""Metrics of prediction intervals and the result object that gathers them."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from ...utils import ConfidenceInterval, Summary, check_alpha, check_int, check_real, to_numpy

__all__ = [
    "PredictionIntervalResult",
    "coverage_by_bins",
    "evaluate_intervals",
    "interval_coverage",
    "mean_width",
]


def _check_intervals(intervals, name="intervals"):
    iv = to_numpy(intervals)
    if iv.ndim not in (2, 3) or iv.shape[1] != 2:
        raise ValueError(f"{name} must have shape (n, 2) or (n, 2, n_alphas) (lower, upper), "
                         f"got shape {iv.shape}.")
    if iv.shape[0] == 0:
        raise ValueError(f"{name} must hold at least one row.")
    iv = iv.astype(np.float64, copy=False)
    if np.isnan(iv).any():
        raise ValueError(f"{name} must not contain NaN.")
    return iv


def _check_response(y, n):
    y = to_numpy(y)
    if y.ndim != 1 or y.shape[0] != n:
        raise ValueError(f"y must have shape ({n},), got {y.shape}.")
    y = y.astype(np.float64, copy=False)
    if not np.all(np.isfinite(y)):
        raise ValueError("y must not contain NaN or infinite values.")
    return y


def _interval_hits(iv, y):
    yy = y[:, None] if iv.ndim == 3 else y
    return (iv[:, 0] <= yy) & (yy <= iv[:, 1])


def interval_coverage(intervals, y):
    """Fraction of responses inside their (closed) interval ``[lower, upper]``.

    Parameters
    ----------
    intervals : array of shape (n, 2) or (n, 2, n_alphas)
        Lower and upper bounds.
    y : array of shape (n,)
        True responses.

    Returns
    -------
    float, or ndarray of shape (n_alphas,) for 3-D ``intervals``

    Examples
    --------
    >>> import numpy as np
    >>> from statlearn.conformal import interval_coverage
    >>> interval_coverage(np.array([[0.0, 1.0], [0.0, 1.0]]), [0.5, 2.0])
    0.5
    """
    iv = _check_intervals(intervals)
    hits = _interval_hits(iv, _check_response(y, iv.shape[0]))
    cov = hits.mean(axis=0)
    return float(cov) if iv.ndim == 2 else cov


def mean_width(intervals):
    """Average width ``upper - lower`` (``inf`` if an interval is unbounded).

    Empty intervals (``lower > upper``, possible with CQR) count as width 0.

    Examples
    --------
    >>> import numpy as np
    >>> from statlearn.conformal import mean_width
    >>> mean_width(np.array([[0.0, 1.0], [1.0, 4.0]]))
    2.0
    """
    iv = _check_intervals(intervals)
    w = np.maximum(iv[:, 1] - iv[:, 0], 0.0).mean(axis=0)
    return float(w) if iv.ndim == 2 else w


def coverage_by_bins(covered, values, n_bins=10):
    """Coverage within quantile bins of ``values`` (conditional coverage).

    Works for sets and intervals alike: ``covered`` is the per-row hit
    indicator (``sets[i, y_i]`` or ``lower_i <= y_i <= upper_i``).

    Parameters
    ----------
    covered : array of bool, shape (n,) or (n, n_alphas)
        Whether each row is covered.
    values : array of shape (n,)
        Variable to bin by (a feature, the prediction, the interval width...).
    n_bins : int, default=10
        Number of bins with (about) equal counts; tied values stay together,
        so fewer bins may come back.

    Returns
    -------
    edges : ndarray of shape (n_bins_used + 1,)
    counts : ndarray of shape (n_bins_used,)
    coverage : ndarray of shape (n_bins_used,) or (n_bins_used, n_alphas)

    Examples
    --------
    >>> import numpy as np
    >>> from statlearn.conformal import coverage_by_bins
    >>> edges, counts, cov = coverage_by_bins([True, False, True, True], [1, 2, 3, 4], n_bins=2)
    >>> counts.tolist(), cov.tolist()
    ([2, 2], [0.5, 1.0])
    """
    c = to_numpy(covered)
    if c.dtype != np.bool_:
        raise TypeError(f"covered must be boolean, got dtype {c.dtype}.")
    if c.ndim not in (1, 2) or c.shape[0] == 0:
        raise ValueError(f"covered must have shape (n,) or (n, n_alphas), got {c.shape}.")
    v = _bin_values(values, c.shape[0], "values")
    n_bins = check_int(n_bins, "n_bins", low=1)
    edges = np.unique(np.quantile(v, np.linspace(0, 1, n_bins + 1)))
    if edges.size == 1:
        edges = np.array([edges[0], edges[0]])
    idx = np.clip(np.searchsorted(edges, v, side="right") - 1, 0, edges.size - 2)
    counts = np.bincount(idx, minlength=edges.size - 1)
    cf = c.astype(float)
    if cf.ndim == 1:
        hits = np.bincount(idx, weights=cf, minlength=edges.size - 1)
    else:
        hits = np.stack([np.bincount(idx, weights=cf[:, j], minlength=edges.size - 1)
                         for j in range(cf.shape[1])], axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        cov = hits / (counts if hits.ndim == 1 else counts[:, None])
    return edges, counts, cov


def _bin_values(values, n, name):
    """The variable of conditional coverage as finite float64 of shape (n,)."""
    try:
        v = to_numpy(values).astype(np.float64, copy=False)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must hold real numbers: {exc}") from exc
    if v.shape != (n,):
        raise ValueError(f"{name} must have shape ({n},), got {v.shape}.")
    if not np.all(np.isfinite(v)):
        raise ValueError(f"{name} must not contain NaN or infinite values.")
    return v


@dataclass(frozen=True, slots=True)
class PredictionIntervalResult:
    """Evaluation of prediction intervals against true responses.

    Every per-level field has one entry per level of ``alpha``.

    Attributes
    ----------
    alpha : ndarray of shape (n_alphas,)
        Nominal miscoverage levels.
    n : int
        Number of evaluated intervals.
    n_covered : ndarray of int, shape (n_alphas,)
        Number of intervals containing the response.
    coverage : ndarray of shape (n_alphas,)
        ``n_covered / n``.
    mean_width, median_width : ndarray of shape (n_alphas,)
        Width statistics (empty intervals count as 0; ``inf`` if unbounded).
    bin_edges : ndarray of shape (n_bins + 1,)
        Edges of the bins of the conditioning variable.
    bin_counts : ndarray of shape (n_bins,)
    bin_coverage : ndarray of shape (n_bins, n_alphas)
        Coverage within each bin.
    groups : ndarray or None
        Group labels (when groups were given).
    group_counts : ndarray or None
    group_coverage : ndarray of shape (n_groups, n_alphas) or None
    """

    alpha: np.ndarray
    n: int
    n_covered: np.ndarray
    coverage: np.ndarray
    mean_width: np.ndarray
    median_width: np.ndarray
    bin_edges: np.ndarray
    bin_counts: np.ndarray
    bin_coverage: np.ndarray
    groups: np.ndarray | None = None
    group_counts: np.ndarray | None = None
    group_coverage: np.ndarray | None = None

    def confidence_interval(self, confidence_level=0.95):
        """Clopper-Pearson intervals for the coverage at each level.

        The test points are treated as independent given the calibration
        data: an interval for the coverage conditional on calibration.

        Returns
        -------
        list of ConfidenceInterval
        """
        check_real(confidence_level, "confidence_level", low=0, high=1, closed="neither")
        out = []
        for k in self.n_covered:
            ci = stats.binomtest(int(k), self.n).proportion_ci(
                confidence_level=confidence_level, method="exact")
            out.append(ConfidenceInterval(float(ci.low), float(ci.high)))
        return out

    def __repr__(self):
        cov = ", ".join(f"{c:.4f}" for c in self.coverage)
        wid = ", ".join(f"{w:.4g}" for w in self.mean_width)
        return (f"PredictionIntervalResult(n={self.n}, alpha={self.alpha.tolist()}, "
                f"coverage=[{cov}], mean_width=[{wid}])")

    def to_frame(self):
        """Coverage by bin of the conditioning variable, one column per level."""
        df = pd.DataFrame({"bin low": self.bin_edges[:-1], "bin high": self.bin_edges[1:],
                           "count": self.bin_counts})
        for j, a in enumerate(self.alpha):
            df[f"coverage (alpha={a:g})"] = self.bin_coverage[:, j]
        return df

    def summary(self, confidence_level=0.95):
        """Coverage, width, and coverage by bin and by group.

        Parameters
        ----------
        confidence_level : float, default=0.95
            Level of the Clopper-Pearson intervals for the coverage.

        Returns
        -------
        statlearn.utils.Summary
        """
        cis = self.confidence_interval(confidence_level)
        head = pd.DataFrame({
            "alpha": self.alpha, "target 1 - alpha": 1 - self.alpha,
            "coverage": self.coverage, "CI low": [c.low for c in cis],
            "CI high": [c.high for c in cis], "mean width": self.mean_width,
            "median width": self.median_width,
        })
        tables = {"": head.round(4), "by bin": self.to_frame().round(4)}
        if self.groups is not None:
            g = pd.DataFrame({"group": self.groups, "count": self.group_counts})
            for j, a in enumerate(self.alpha):
                g[f"coverage (alpha={a:g})"] = self.group_coverage[:, j]
            tables["by group"] = g.round(4)
        notes = (f"n = {self.n}; {100 * confidence_level:g}% Clopper-Pearson intervals for "
                 "the coverage given the calibration data.",)
        return Summary("Prediction intervals", tables, notes)

    def plot(self, ax=None):
        """Coverage by bin against the target ``1 - alpha``, one line per level.

        Returns
        -------
        matplotlib.axes.Axes
        """
        import matplotlib.pyplot as plt

        if ax is None:
            _, ax = plt.subplots(figsize=(5.5, 3.5))
        mid = np.arange(self.bin_counts.size)
        for j, a in enumerate(self.alpha):
            line, = ax.plot(mid, self.bin_coverage[:, j], "o-",
                            label=f"alpha={a:g} (width {self.mean_width[j]:.3g})")
            ax.axhline(1 - a, color=line.get_color(), ls="--", lw=1)
        ax.set_xlabel("bin of the conditioning variable (quantiles)")
        ax.set_ylabel("coverage within bin")
        ax.set_ylim(-0.02, 1.02)
        ax.legend(fontsize="small")
        ax.set_title(f"interval coverage by bin (n = {self.n})", fontsize="medium")
        return ax


def evaluate_intervals(intervals, y, alpha, bins=None, n_bins=10, groups=None):
    """Compute coverage, width and conditional coverage of prediction intervals.

    Parameters
    ----------
    intervals : array of shape (n, 2) or (n, 2, n_alphas)
        Lower and upper bounds.
    y : array of shape (n,)
        True responses.
    alpha : float or sequence of float
        Nominal level(s), one per interval set.
    bins : array of shape (n,), optional
        Variable for conditional coverage (default: the interval midpoints
        of the first level, or ``y`` where they are infinite).
    n_bins : int, default=10
        Number of quantile bins.
    groups : array of shape (n,), optional
        Group labels; coverage is also reported per group.

    Returns
    -------
    PredictionIntervalResult

    Examples
    --------
    >>> import numpy as np
    >>> from statlearn.conformal import evaluate_intervals
    >>> iv = np.array([[0.0, 1.0], [0.0, 2.0], [1.0, 3.0], [2.0, 2.5]])
    >>> res = evaluate_intervals(iv, [0.5, 2.5, 2.0, 2.2], alpha=0.1, n_bins=2)
    >>> res.coverage.tolist(), res.mean_width.tolist(), res.bin_coverage[:, 0].tolist()
    ([0.75], [1.375], [0.5, 1.0])
    """
    iv = _check_intervals(intervals)
    if iv.ndim == 2:
        iv = iv[:, :, None]
    n, _, A = iv.shape
    y = _check_response(y, n)
    alphas = np.atleast_1d(np.asarray(alpha, dtype=np.float64))
    if alphas.ndim != 1 or alphas.size != A:
        raise ValueError(f"alpha must hold {A} level(s), one per interval set, got {alpha!r}.")
    for a in alphas:
        check_alpha(float(a))
    hits = _interval_hits(iv, y)
    width = np.maximum(iv[:, 1] - iv[:, 0], 0.0)
    if bins is None:
        mid = (iv[:, 0, 0] + iv[:, 1, 0]) / 2
        bins = np.where(np.isfinite(mid), mid, y)
    else:
        bins = _bin_values(bins, n, "bins")
    edges, counts, bcov = coverage_by_bins(hits, bins, n_bins)
    glab = gcount = gcov = None
    if groups is not None:
        g = to_numpy(groups)
        if g.shape != (n,):
            raise ValueError(f"groups must have shape ({n},), got {g.shape}.")
        if (g.dtype.kind == "f" and np.isnan(g).any()) or (g.dtype.kind == "O" and any(
                v is None or (isinstance(v, float) and np.isnan(v)) for v in g)):
            raise ValueError("groups must not contain NaN or None.")
        glab, gidx = np.unique(g, return_inverse=True)
        gcount = np.bincount(gidx, minlength=glab.size)
        gcov = np.stack([np.bincount(gidx, weights=hits[:, j].astype(float),
                                     minlength=glab.size) / gcount for j in range(A)], axis=1)
    return PredictionIntervalResult(
        alpha=alphas, n=int(n), n_covered=hits.sum(axis=0).astype(np.int64),
        coverage=hits.mean(axis=0), mean_width=width.mean(axis=0),
        median_width=np.median(width, axis=0), bin_edges=edges, bin_counts=counts,
        bin_coverage=bcov, groups=glab, group_counts=gcount, group_coverage=gcov)


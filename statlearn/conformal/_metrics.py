"""Metrics of prediction sets and the result object that gathers them."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from ..utils import (
    ConfidenceInterval,
    Summary,
    check_alpha,
    check_int,
    check_option,
    check_real,
    to_numpy,
)

__all__ = [
    "RAPS_SIZE_BINS",
    "PredictionIntervalResult",
    "PredictionSetResult",
    "class_conditional_coverage",
    "conformal_scorer",
    "coverage",
    "coverage_by_bins",
    "empty_rate",
    "evaluate_intervals",
    "evaluate_sets",
    "interval_coverage",
    "mean_width",
    "mean_set_size",
    "non_singleton_rate",
    "singleton_rate",
    "size_stratified_coverage_violation",
]


def _check_sets(sets, name="sets"):
    s = to_numpy(sets)
    if s.ndim != 2:
        raise ValueError(f"{name} must be a 2-D boolean mask of shape (n, K), got shape "
                         f"{s.shape}.")
    if s.dtype != np.bool_:
        raise TypeError(f"{name} must be a boolean mask, got dtype {s.dtype}.")
    if s.shape[0] == 0:
        raise ValueError(f"{name} must hold at least one row.")
    return s


def _check_y(y, n, K):
    y = to_numpy(y)
    if y.ndim != 1 or y.shape[0] != n:
        raise ValueError(f"y must have shape ({n},), got {y.shape}.")
    if y.dtype.kind not in "iu":
        raise TypeError(f"y must hold integer label indices (columns of sets), got dtype "
                        f"{y.dtype}; encode class names first, e.g. "
                        "np.searchsorted(clf.classes_, y).")
    if (y < 0).any() or (y >= K).any():
        raise ValueError(f"y must hold label indices in [0, {K - 1}] (columns of sets); encode "
                         "class names first, e.g. np.searchsorted(clf.classes_, y).")
    return y.astype(np.int64)


def _covered(sets, y):
    return sets[np.arange(sets.shape[0]), y]


def coverage(sets, y):
    """Fraction of rows whose set contains the true label.

    Parameters
    ----------
    sets : array of bool, shape (n, K)
        Prediction sets as masks over label indices.
    y : array of int, shape (n,)
        True label indices (columns of ``sets``).

    Returns
    -------
    float

    Examples
    --------
    >>> import numpy as np
    >>> from statlearn.conformal import coverage
    >>> coverage(np.array([[True, False], [True, True]]), [1, 1])
    0.5
    """
    s = _check_sets(sets)
    return float(np.mean(_covered(s, _check_y(y, *s.shape))))


def mean_set_size(sets):
    """Average number of labels per set.

    Examples
    --------
    >>> import numpy as np
    >>> from statlearn.conformal import mean_set_size
    >>> mean_set_size(np.array([[True, False], [True, True]]))
    1.5
    """
    return float(np.mean(_check_sets(sets).sum(axis=1)))


def singleton_rate(sets):
    """Fraction of sets with exactly one label.

    Examples
    --------
    >>> import numpy as np
    >>> from statlearn.conformal import singleton_rate
    >>> singleton_rate(np.array([[True, False], [True, True]]))
    0.5
    """
    return float(np.mean(_check_sets(sets).sum(axis=1) == 1))


def non_singleton_rate(sets, k0=1):
    """Fraction of sets with more than ``k0`` labels, ``P(|C| > k0)``.

    With ``k0 = 1`` this is ``P(size > 1)``, the quantity SOCOP lowers (it is
    ``1 - singleton rate - empty rate``).

    Examples
    --------
    >>> import numpy as np
    >>> from statlearn.conformal import non_singleton_rate
    >>> non_singleton_rate(np.array([[True, False], [True, True]]))
    0.5
    """
    k0 = check_int(k0, "k0", low=0)
    return float(np.mean(_check_sets(sets).sum(axis=1) > k0))


def empty_rate(sets):
    """Fraction of empty sets.

    Examples
    --------
    >>> import numpy as np
    >>> from statlearn.conformal import empty_rate
    >>> empty_rate(np.array([[False, False], [True, True]]))
    0.5
    """
    return float(np.mean(_check_sets(sets).sum(axis=1) == 0))


#: Size strata of Angelopoulos et al. (2021): 0-1, 2-3, 4-6, 7-10, 11-100, 101-1000, > 1000.
RAPS_SIZE_BINS = (0, 2, 4, 7, 11, 101, 1001, np.inf)


def _strata(sizes, size_bins):
    if isinstance(size_bins, str):
        check_option(size_bins, "size_bins", ["exact"])
        return sizes, [str(int(v)) for v in np.unique(sizes)], np.unique(sizes)
    edges = np.asarray(RAPS_SIZE_BINS if size_bins is None else size_bins, dtype=float)
    if edges.ndim != 1 or edges.size < 2 or np.any(np.diff(edges) <= 0):
        raise ValueError("size_bins must be an increasing sequence of at least two edges.")
    if sizes.min() < edges[0] or sizes.max() > edges[-1]:
        raise ValueError(f"size_bins must cover the set sizes {sizes.min()}..{sizes.max()}, "
                         f"got edges {edges[0]}..{edges[-1]}.")
    idx = np.clip(np.searchsorted(edges, sizes, side="right") - 1, 0, edges.size - 2)
    used = np.unique(idx)
    labels = [f"[{edges[i]:g}, {edges[i + 1]:g})" if i < edges.size - 2
              else f"[{edges[i]:g}, {edges[i + 1]:g}]" for i in used]
    return idx, labels, used


def size_stratified_coverage_violation(sets, y, alpha, size_bins=None):
    """SSCV: the largest gap between coverage within a size stratum and ``1 - alpha``.

    ``max_s |coverage among sets in stratum s - (1 - alpha)|`` over the strata
    that hold at least one set (Angelopoulos et al., 2021). The default strata
    are theirs: sizes 0-1, 2-3, 4-6, 7-10, 11-100, 101-1000 and above 1000
    (empty sets share the first stratum with singletons).

    Parameters
    ----------
    sets : array of bool, shape (n, K)
        Prediction sets.
    y : array of int, shape (n,)
        True label indices.
    alpha : float
        Nominal miscoverage level.
    size_bins : sequence of float or "exact", optional
        Edges of the size strata (left-closed, last bin closed); default
        :data:`RAPS_SIZE_BINS`. ``"exact"`` makes every observed size its own
        stratum.

    Returns
    -------
    float

    Examples
    --------
    >>> import numpy as np
    >>> from statlearn.conformal import size_stratified_coverage_violation
    >>> sets = np.array([[False, False], [True, False], [True, True], [True, True]])
    >>> size_stratified_coverage_violation(sets, [0, 0, 0, 1], alpha=0.1)
    0.4
    >>> size_stratified_coverage_violation(sets, [0, 0, 0, 1], alpha=0.1, size_bins="exact")
    0.9
    """
    s = _check_sets(sets)
    y = _check_y(y, *s.shape)
    alpha = check_alpha(alpha)
    cov = _covered(s, y)
    idx, _, used = _strata(s.sum(axis=1), size_bins)
    gaps = [abs(cov[idx == u].mean() - (1 - alpha)) for u in used]
    return float(round(max(gaps), 12))


def class_conditional_coverage(sets, y):
    """Coverage among the rows of each true class (NaN for absent classes).

    Returns
    -------
    ndarray of shape (K,)

    Examples
    --------
    >>> import numpy as np
    >>> from statlearn.conformal import class_conditional_coverage
    >>> sets = np.array([[True, False], [True, True], [True, False]])
    >>> class_conditional_coverage(sets, [0, 1, 1]).tolist()
    [1.0, 0.5]
    """
    s = _check_sets(sets)
    y = _check_y(y, *s.shape)
    cov = _covered(s, y).astype(float)
    K = s.shape[1]
    counts = np.bincount(y, minlength=K)
    hits = np.bincount(y, weights=cov, minlength=K)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(counts > 0, hits / np.maximum(counts, 1), np.nan)


@dataclass(frozen=True, slots=True)
class PredictionSetResult:
    """Evaluation of prediction sets against true labels.

    Attributes
    ----------
    alpha : float
        Nominal miscoverage level.
    n : int
        Number of evaluated sets.
    n_covered : int
        Number of sets containing the true label.
    coverage : float
        ``n_covered / n``.
    mean_size : float
        Average set size.
    singleton_rate, non_singleton_rate, empty_rate : float
        ``P(size = 1)``, ``P(size > 1)``, ``P(size = 0)``.
    sscv : float
        Size-stratified coverage violation over the strata ``size_bins``.
    size_counts : ndarray of shape (K + 1,)
        Number of sets of each size ``0..K``.
    coverage_by_size : ndarray of shape (K + 1,)
        Coverage among sets of each size (NaN where there are none).
    class_coverage : ndarray of shape (K,)
        Coverage among rows of each true class (NaN for absent classes).
    class_counts : ndarray of shape (K,)
        Number of rows of each true class.
    """

    alpha: float
    n: int
    n_covered: int
    coverage: float
    mean_size: float
    singleton_rate: float
    non_singleton_rate: float
    empty_rate: float
    sscv: float
    size_counts: np.ndarray
    coverage_by_size: np.ndarray
    class_coverage: np.ndarray
    class_counts: np.ndarray

    def confidence_interval(self, confidence_level=0.95):
        """Clopper-Pearson interval for the coverage probability.

        Treats the ``n`` test points as independent given the calibration
        data, so it is an interval for the coverage *conditional* on the
        calibration set.

        Returns
        -------
        ConfidenceInterval
        """
        check_real(confidence_level, "confidence_level", low=0, high=1, closed="neither")
        ci = stats.binomtest(self.n_covered, self.n).proportion_ci(
            confidence_level=confidence_level, method="exact")
        return ConfidenceInterval(float(ci.low), float(ci.high))

    def __repr__(self):
        K = self.class_counts.size
        return (f"PredictionSetResult(n={self.n}, K={K}, alpha={self.alpha:g}, "
                f"coverage={self.coverage:.4f}, mean_size={self.mean_size:.4g}, "
                f"singleton_rate={self.singleton_rate:.4f}, "
                f"non_singleton_rate={self.non_singleton_rate:.4f}, "
                f"empty_rate={self.empty_rate:.4f}, sscv={self.sscv:.4f})")

    def to_frame(self):
        """Set size distribution and coverage by size as a DataFrame."""
        sizes = np.arange(self.size_counts.size)
        keep = self.size_counts > 0
        return pd.DataFrame({"size": sizes[keep], "count": self.size_counts[keep],
                             "coverage": self.coverage_by_size[keep]})

    def summary(self, confidence_level=0.95):
        """Headline metrics and the coverage by set size.

        Parameters
        ----------
        confidence_level : float, default=0.95
            Level of the Clopper-Pearson interval for the coverage.

        Returns
        -------
        statlearn.utils.Summary
        """
        lo, hi = self.confidence_interval(confidence_level)
        head = pd.DataFrame({
            "value": [self.coverage, self.mean_size, self.singleton_rate,
                      self.non_singleton_rate, self.empty_rate, self.sscv],
        }, index=["coverage", "mean size", "P(size = 1)", "P(size > 1)", "P(size = 0)",
                  "SSCV"])
        notes = (f"n = {self.n}; target coverage 1 - alpha = {1 - self.alpha:.4g}; "
                 f"{100 * confidence_level:g}% Clopper-Pearson interval for coverage "
                 f"[{lo:.4f}, {hi:.4f}].",)
        return Summary("Prediction sets", {"": head.round(4), "by set size":
                                           self.to_frame().round(4)}, notes)

    def plot(self, ax=None):
        """Histogram of set sizes, with coverage by size on a second axis.

        Returns
        -------
        matplotlib.axes.Axes
            The histogram's axes (the coverage axes is ``ax.right_ax``).
        """
        import matplotlib.pyplot as plt

        if ax is None:
            _, ax = plt.subplots(figsize=(5.5, 3.5))
        df = self.to_frame()
        ax.bar(df["size"], df["count"] / self.n, color="C0", alpha=0.6, label="share of sets")
        ax.set_xlabel("set size")
        ax.set_ylabel("share of sets")
        right = ax.twinx()
        right.plot(df["size"], df["coverage"], "o-", color="C3", label="coverage")
        right.axhline(1 - self.alpha, color="C3", ls="--", lw=1)
        right.set_ylim(-0.02, 1.02)
        right.set_ylabel("coverage within size", color="C3")
        ax.set_title(f"coverage {self.coverage:.3f}, mean size {self.mean_size:.2f}, "
                     f"P(size>1) {self.non_singleton_rate:.3f}", fontsize="medium")
        ax.right_ax = right
        return ax


def evaluate_sets(sets, y, alpha, size_bins=None):
    """Compute every metric of prediction sets at once.

    Parameters
    ----------
    sets : array of bool, shape (n, K)
        Prediction sets as masks over label indices (NumPy or any array-API
        array; converted to NumPy).
    y : array of int, shape (n,)
        True label indices.
    alpha : float
        Nominal miscoverage level (used by SSCV and the report).
    size_bins : sequence of float or "exact", optional
        Strata of the SSCV, see :func:`size_stratified_coverage_violation`.

    Returns
    -------
    PredictionSetResult

    Examples
    --------
    >>> import numpy as np
    >>> from statlearn.conformal import evaluate_sets
    >>> sets = np.array([[True, False, False], [True, True, False], [False, False, True]])
    >>> res = evaluate_sets(sets, [0, 1, 1], alpha=0.1)
    >>> round(res.coverage, 3), res.mean_size, res.size_counts.tolist()
    (0.667, 1.333, [0, 2, 1, 0])
    """
    s = _check_sets(sets)
    n, K = s.shape
    y = _check_y(y, n, K)
    alpha = check_alpha(alpha)
    sizes = s.sum(axis=1)
    cov = _covered(s, y)
    size_counts = np.bincount(sizes, minlength=K + 1)
    hits = np.bincount(sizes, weights=cov.astype(float), minlength=K + 1)
    with np.errstate(invalid="ignore", divide="ignore"):
        by_size = np.where(size_counts > 0, hits / np.maximum(size_counts, 1), np.nan)
    return PredictionSetResult(
        alpha=alpha, n=int(n), n_covered=int(cov.sum()), coverage=float(cov.mean()),
        mean_size=float(sizes.mean()), singleton_rate=float(np.mean(sizes == 1)),
        non_singleton_rate=float(np.mean(sizes > 1)), empty_rate=float(np.mean(sizes == 0)),
        sscv=size_stratified_coverage_violation(s, y, alpha, size_bins),
        size_counts=size_counts, coverage_by_size=by_size,
        class_coverage=class_conditional_coverage(s, y),
        class_counts=np.bincount(y, minlength=K),
    )


_SCORER_METRICS = {
    "mean_size": -1.0,
    "non_singleton_rate": -1.0,
    "singleton_rate": 1.0,
    "empty_rate": -1.0,
    "sscv": -1.0,
    "coverage": 1.0,
    "coverage_gap": -1.0,
}


class _SetScorer:
    """Callable ``(estimator, X, y) -> float`` usable as ``scoring=`` in model selection."""

    def __init__(self, metric, sign):
        self.metric = metric
        self.sign = sign

    def __call__(self, estimator, X, y, sample_weight=None):
        if sample_weight is not None:
            raise ValueError("conformal_scorer does not support sample_weight.")
        res = estimator.evaluate(X, y)
        if self.metric == "coverage_gap":
            return self.sign * abs(res.coverage - (1.0 - res.alpha))
        return self.sign * getattr(res, self.metric)

    def __repr__(self):
        return f"conformal_scorer({self.metric!r})"


def conformal_scorer(metric="mean_size"):
    """A scorer for :class:`~sklearn.model_selection.GridSearchCV` on set metrics.

    The returned callable evaluates a fitted
    :class:`~statlearn.conformal.SplitConformalClassifier` on held-out data
    and returns a number where larger is better: the negated metric for
    ``"mean_size"``, ``"non_singleton_rate"``, ``"empty_rate"`` and ``"sscv"``,
    the metric itself for ``"singleton_rate"`` and ``"coverage"``, and minus
    ``|coverage - (1 - alpha_)|`` for ``"coverage_gap"``.

    The estimator's own ``score`` is the accuracy of its point prediction
    (scikit-learn's classifier convention); use these scorers to compare
    configurations by their sets. Every configuration covers at
    ``1 - alpha``, so compare set sizes at a fixed ``alpha`` (a larger
    ``alpha`` always gives smaller sets).

    Parameters
    ----------
    metric : {"mean_size", "non_singleton_rate", "singleton_rate", "empty_rate", "sscv", \
"coverage", "coverage_gap"}
        What to optimise.

    Returns
    -------
    callable

    Examples
    --------
    >>> from statlearn.conformal import conformal_scorer
    >>> conformal_scorer("non_singleton_rate")
    conformal_scorer('non_singleton_rate')
    """
    check_option(metric, "metric", list(_SCORER_METRICS))
    return _SetScorer(metric, _SCORER_METRICS[metric])


# ---------------------------------------------------------------------- intervals
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

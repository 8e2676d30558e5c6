"""Metrics of prediction sets and the result object that gathers them."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from ...utils import (
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
    "PredictionSetResult",
    "class_conditional_coverage",
    "conformal_scorer",
    "coverage",
    "empty_rate",
    "evaluate_sets",
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


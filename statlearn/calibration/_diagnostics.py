"""Calibration diagnostics: test moments E[h(V)(Y - V)], ECE, reliability diagrams."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..utils import (
    ConfidenceInterval,
    Summary,
    check_consistent_length,
    check_int,
    check_option,
    check_real,
    check_rng,
    normal_interval,
)
from ..utils._validation import _scalar
from ._rules import _forecasts
from ._testfns import bin_edges, check_tests, test_matrix
from ._utility import _check_utility

__all__ = [
    "CalibrationErrorResult",
    "ECEResult",
    "binwise_calibration_error",
    "calibration_error",
    "decision_calibration_error",
    "expected_calibration_error",
    "reliability_diagram",
    "self_orthogonality_violation",
]


@dataclass(frozen=True)
class CalibrationErrorResult:
    """Empirical calibration-test moments ``E[h_k(V)(Y_j - V_j)]`` with standard errors.

    A forecaster is ``H``-calibrated when every moment is zero.

    Attributes
    ----------
    tests : str
        Name of the test class.
    estimate : numpy.ndarray of shape (n_tests, n_outcomes)
        Sample means of ``h_k(v_i)(y_ij - v_ij)``.
    se : numpy.ndarray of shape (n_tests, n_outcomes)
        Their standard errors.
    n : int
        Number of labelled forecasts.

    Examples
    --------
    >>> from statlearn.calibration import calibration_error
    >>> res = calibration_error([0.2, 0.4, 0.9], [0.0, 1.0, 1.0], intercept=True)
    >>> res.estimate.shape, round(res.max_abs, 4)
    ((2, 1), 0.1667)
    """

    tests: str
    estimate: np.ndarray
    se: np.ndarray
    n: int

    def __repr__(self) -> str:
        return (f"CalibrationErrorResult(tests={self.tests!r}, max_abs={self.max_abs:.4g}, "
                f"n={self.n})")

    @property
    def max_abs(self) -> float:
        """Largest absolute moment (the sup-norm calibration error over ``H``)."""
        return float(np.max(np.abs(self.estimate))) if self.estimate.size else 0.0

    def confidence_interval(self, confidence_level: float = 0.95) -> ConfidenceInterval:
        """Entry-wise normal intervals for the moments (arrays of shape ``estimate.shape``)."""
        return normal_interval(self.estimate, self.se, confidence_level)

    def to_frame(self) -> pd.DataFrame:
        """One row per (test, outcome coordinate)."""
        k, d = self.estimate.shape
        lo, hi = self.confidence_interval()
        return pd.DataFrame({"test": np.repeat(np.arange(k), d),
                             "outcome": np.tile(np.arange(d), k),
                             "moment": self.estimate.ravel(), "se": self.se.ravel(),
                             "ci_low": lo.ravel(), "ci_high": hi.ravel()})

    def summary(self) -> Summary:
        """Table of moments with 95% intervals."""
        return Summary(f"Calibration moments E[h(V)(Y - V)] ({self.tests})",
                       {"": self.to_frame()},
                       (f"n = {self.n}; max |moment| = {self.max_abs:.4g}.",))

    def plot(self, ax=None):
        """Moments with 95% error bars; zero means the test is passed."""
        import matplotlib.pyplot as plt

        if ax is None:
            _, ax = plt.subplots(figsize=(6, 3))
        df = self.to_frame()
        x = np.arange(len(df))
        ax.errorbar(x, df["moment"], yerr=1.96 * df["se"], fmt="o", capsize=3)
        ax.axhline(0.0, color="k", lw=0.8)
        ax.set_xticks(x)
        ax.set_xticklabels([f"h{t},y{o}" for t, o in zip(df["test"], df["outcome"])],
                           fontsize="small", rotation=45)
        ax.set_ylabel("E[h(V)(Y - V)]")
        ax.set_title(f"calibration moments ({self.tests})")
        return ax


def _labelled(forecasts, y):
    V = _forecasts(forecasts, "forecasts")
    Y = np.asarray(y)
    if V.shape[1] >= 2 and Y.ndim == 1 and np.issubdtype(Y.dtype, np.integer):
        if Y.size and (Y.min() < 0 or Y.max() >= V.shape[1]):
            raise ValueError(f"y: class labels must be in 0..{V.shape[1] - 1}.")
        Y = np.eye(V.shape[1])[Y]
    Y = _forecasts(Y, "y")
    check_consistent_length(forecasts=V, y=Y)
    if Y.shape != V.shape:
        raise ValueError(f"y must have the shape of forecasts {V.shape} (or be class labels), "
                         f"got {Y.shape}.")
    if V.shape[0] < 2:
        raise ValueError("forecasts must contain at least 2 labelled points.")
    return V, Y


def calibration_error(forecasts, y, tests="self_orthogonal", *, intercept=False, bins=10,
                      utility_matrix=None, utility_offset=None):
    """Empirical moments ``mean_i h_k(v_i)(y_i - v_i)`` of a test class, with standard errors.

    Parameters
    ----------
    forecasts : array-like of shape (n, d) or (n,)
        Forecasts ``v_i``.
    y : array-like of shape (n, d) or (n,)
        Outcomes (one-hot rows or integer labels for multiclass).
    tests : str, callable or list of callables, default="self_orthogonal"
        Test class, as in :class:`MinimaxDecisionRule` (``"full"`` is refused:
        use :func:`expected_calibration_error`).
    intercept : bool, default=False
        Add the constant test ``h = 1`` (mean bias).
    bins : int or array-like, default=10
        Bins on ``[0, 1]`` for ``tests="binwise"``.
    utility_matrix, utility_offset : array-like, default=None
        Utility defining the decision regions for ``tests="decision"``.

    Returns
    -------
    CalibrationErrorResult

    Examples
    --------
    >>> from statlearn.calibration import calibration_error
    >>> res = calibration_error([0.2, 0.8], [0.0, 1.0])
    >>> res.estimate.ravel()  # (0.2 * -0.2 + 0.8 * 0.2) / 2
    array([0.06])
    """
    tests = check_tests(tests)
    if isinstance(tests, str) and tests == "full":
        raise ValueError("tests='full' has one test per distinct forecast; use "
                         "expected_calibration_error for full calibration.")
    V, Y = _labelled(forecasts, y)
    if isinstance(tests, str) and tests == "decision":
        if utility_matrix is None:
            raise ValueError("utility_matrix is required for tests='decision'.")
    U, c = _check_utility(utility_matrix, utility_offset, V.shape[1])
    if U.shape[1] != V.shape[1]:
        raise ValueError(f"utility_matrix has {U.shape[1]} outcome column(s), forecasts "
                         f"{V.shape[1]}.")
    edges = bin_edges(bins, 0.0, 1.0) if isinstance(tests, str) and tests == "binwise" else None
    Hm = test_matrix(tests, V, U, c, intercept=intercept, edges=edges)
    n = V.shape[0]
    terms = Hm[:, :, None] * (Y - V)[:, None, :]          # (n, k, d)
    est = terms.mean(axis=0)
    se = terms.std(axis=0, ddof=1) / np.sqrt(n)
    name = tests if isinstance(tests, str) else "custom"
    return CalibrationErrorResult(tests=name, estimate=est, se=se, n=n)


def self_orthogonality_violation(forecasts, y, *, intercept=False):
    """Self-orthogonality moments ``E[f(X)(Y - f(X))^T]`` (and mean bias with ``intercept``).

    A least-squares fit with a linear last layer makes them zero on its
    training data; on held-out data they measure how far that promise carries.

    Examples
    --------
    >>> from statlearn.calibration import self_orthogonality_violation
    >>> round(self_orthogonality_violation([0.5, 0.5], [0.0, 1.0]).max_abs, 6)
    0.0
    """
    return calibration_error(forecasts, y, "self_orthogonal", intercept=intercept)


def decision_calibration_error(forecasts, y, utility_matrix, utility_offset=None):
    """Decision-calibration moments ``E[1{a_BR(V) = a}(Y - V)]`` for each action.

    Zero moments mean the plug-in rule is minimax optimal for this utility.

    Examples
    --------
    >>> from statlearn.calibration import decision_calibration_error
    >>> res = decision_calibration_error([0.2, 0.3, 0.7, 0.9], [0.0, 0.5, 1.0, 0.6],
    ...                                  [[0.0], [1.0]], [0.4, 0.0])
    >>> res.estimate.ravel().round(3)
    array([0., 0.])
    """
    return calibration_error(forecasts, y, "decision", utility_matrix=utility_matrix,
                             utility_offset=utility_offset)


def binwise_calibration_error(forecasts, y, bins=10):
    """Bin-wise moments ``E[1{V in B_j}(Y - V)]`` for scalar forecasts.

    Examples
    --------
    >>> from statlearn.calibration import binwise_calibration_error
    >>> res = binwise_calibration_error([0.1, 0.2, 0.8], [0.0, 0.6, 1.0], bins=2)
    >>> res.estimate.ravel().round(3)
    array([0.1  , 0.067])
    """
    return calibration_error(forecasts, y, "binwise", bins=bins)


@dataclass(frozen=True)
class ECEResult:
    """Expected calibration error with a bootstrap interval and the reliability table.

    Attributes
    ----------
    estimate : float
        ``sum_b (n_b / n) |mean outcome_b - mean confidence_b|``.
    bootstrap : numpy.ndarray of shape (n_boot,)
        ECE of the bootstrap resamples.
    table : pandas.DataFrame
        Per bin: edges, count, mean confidence, mean outcome.
    kind : str
        ``"scalar"`` (``d = 1``) or ``"top-label"`` (``d >= 2``).
    n : int
        Number of points.

    Examples
    --------
    >>> from statlearn.calibration import expected_calibration_error
    >>> res = expected_calibration_error([0.2, 0.2, 0.8, 0.8], [0, 1, 1, 1], n_bins=2,
    ...                                  random_state=0)
    >>> res.table["count"].tolist()
    [2, 2]
    """

    estimate: float
    bootstrap: np.ndarray
    table: pd.DataFrame
    kind: str
    n: int

    def __repr__(self) -> str:
        return f"ECEResult(estimate={self.estimate:.4g}, kind={self.kind!r}, n={self.n})"

    def confidence_interval(self, confidence_level: float = 0.95) -> ConfidenceInterval:
        """Percentile bootstrap interval.

        The plug-in ECE is biased upwards (absolute values of noisy bin gaps),
        so the interval is for the binned population ECE at this sample size.
        """
        level = check_real(confidence_level, "confidence_level", low=0, high=1, closed="neither")
        a = (1 - level) / 2
        lo, hi = np.quantile(self.bootstrap, [a, 1 - a])
        return ConfidenceInterval(float(lo), float(hi))

    def summary(self) -> Summary:
        """ECE, its interval and the reliability table."""
        lo, hi = self.confidence_interval()
        return Summary(f"Expected calibration error ({self.kind})", {"": self.table},
                       (f"ECE = {self.estimate:.4f}, 95% bootstrap CI [{lo:.4f}, {hi:.4f}], "
                        f"n = {self.n}.",))

    def plot(self, ax=None):
        """Reliability diagram: mean outcome against mean confidence per bin."""
        import matplotlib.pyplot as plt

        if ax is None:
            _, ax = plt.subplots(figsize=(4, 4))
        t = self.table[self.table["count"] > 0]
        ax.plot([0, 1], [0, 1], color="0.6", ls="--", lw=1, label="calibrated")
        ax.plot(t["mean_confidence"], t["mean_outcome"], "o-", label="forecaster")
        widths = (t["right"] - t["left"]).to_numpy()
        ax.bar(t["left"], t["mean_outcome"], width=widths, align="edge", alpha=0.2,
               edgecolor="k", lw=0.5)
        ax.set_xlim(0, 1)
        ax.set_ylim(0, 1)
        ax.set_xlabel("mean forecast (confidence)")
        ax.set_ylabel("mean outcome")
        ax.set_title(f"reliability diagram, ECE = {self.estimate:.3f}")
        ax.legend(fontsize="small", loc="upper left")
        return ax


def _ece(conf, out, edges):
    b = np.clip(np.searchsorted(edges, conf, side="right") - 1, 0, len(edges) - 2)
    nb = len(edges) - 1
    cnt = np.bincount(b, minlength=nb)
    sc = np.bincount(b, weights=conf, minlength=nb)
    so = np.bincount(b, weights=out, minlength=nb)
    return float(np.abs(so - sc).sum() / conf.shape[0]), b, cnt, sc, so


def expected_calibration_error(forecasts, y, *, n_bins=10, strategy="uniform", n_boot=200,
                               random_state=None):
    """Binned expected calibration error with a bootstrap interval.

    For scalar forecasts (``d = 1``: probabilities of a binary event or a
    regression target in ``[0, 1]``) the confidence is the forecast and the
    outcome is ``y``. For ``d >= 2`` it is the top-label ECE: confidence
    ``max_j v_j``, outcome ``y_{argmax_j v_j}``.

    Parameters
    ----------
    forecasts : array-like of shape (n, d) or (n,)
        Forecasts in ``[0, 1]``.
    y : array-like of shape (n, d) or (n,)
        Outcomes in ``[0, 1]`` (one-hot rows or integer labels when ``d >= 2``).
    n_bins : int, default=10
        Number of bins.
    strategy : {"uniform", "quantile"}, default="uniform"
        Equal-width bins on ``[0, 1]`` or bins with equal counts.
    n_boot : int, default=200
        Bootstrap resamples for the interval.
    random_state : None, int or numpy.random.Generator, default=None
        Seed of the bootstrap.

    Returns
    -------
    ECEResult

    Examples
    --------
    >>> from statlearn.calibration import expected_calibration_error
    >>> res = expected_calibration_error([0.2, 0.2, 0.8, 0.8], [0, 1, 1, 1], n_bins=2,
    ...                                  random_state=0)
    >>> round(res.estimate, 3)  # (2 * |0.5 - 0.2| + 2 * |1 - 0.8|) / 4
    0.25
    """
    V, Y = _labelled(forecasts, y)
    n_bins = check_int(n_bins, "n_bins", low=1)
    check_option(strategy, "strategy", ["uniform", "quantile"])
    n_boot = check_int(n_boot, "n_boot", low=1)
    if np.any(V < 0) or np.any(V > 1):
        raise ValueError("forecasts must lie in [0, 1] for the ECE.")
    if np.any(Y < 0) or np.any(Y > 1):
        bad = Y[(Y < 0) | (Y > 1)]
        raise ValueError(f"y must lie in [0, 1] for the ECE (outcomes, one-hot rows or class "
                         f"labels); got {bad.size} value(s) outside it, e.g. "
                         f"{float(bad.flat[0])!r}.")
    if V.shape[1] == 1:
        conf, out, kind = V[:, 0], Y[:, 0], "scalar"
    else:
        top = np.argmax(V, axis=1)
        conf, out, kind = V[np.arange(len(V)), top], Y[np.arange(len(V)), top], "top-label"
    if strategy == "uniform":
        edges = np.linspace(0.0, 1.0, n_bins + 1)
    else:
        edges = np.quantile(conf, np.linspace(0, 1, n_bins + 1))
        edges[0], edges[-1] = 0.0, 1.0
        edges = np.unique(edges)
    est, _, cnt, sc, so = _ece(conf, out, edges)
    rng = check_rng(_scalar(random_state))  # a 0-d array is the seed it holds
    n = conf.shape[0]
    boot = np.empty(n_boot)
    for r in range(n_boot):
        idx = rng.integers(0, n, size=n)
        boot[r] = _ece(conf[idx], out[idx], edges)[0]
    with np.errstate(invalid="ignore", divide="ignore"):
        table = pd.DataFrame({"left": edges[:-1], "right": edges[1:], "count": cnt,
                              "mean_confidence": sc / cnt, "mean_outcome": so / cnt})
    return ECEResult(estimate=est, bootstrap=boot, table=table, kind=kind, n=n)


def reliability_diagram(forecasts, y, *, n_bins=10, strategy="uniform", ax=None):
    """Plot a reliability diagram (mean outcome against mean forecast per bin).

    Parameters
    ----------
    forecasts, y : array-like
        As in :func:`expected_calibration_error`.
    n_bins : int, default=10
        Number of bins.
    strategy : {"uniform", "quantile"}, default="uniform"
        Binning.
    ax : matplotlib.axes.Axes, default=None
        Where to draw.

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> import numpy as np
    >>> from statlearn.calibration import reliability_diagram
    >>> rng = np.random.default_rng(0)
    >>> v = rng.uniform(size=200)
    >>> ax = reliability_diagram(v, rng.binomial(1, v))
    >>> ax.get_xlabel()
    'mean forecast (confidence)'
    """
    res = expected_calibration_error(forecasts, y, n_bins=n_bins, strategy=strategy, n_boot=1,
                                     random_state=0)
    return res.plot(ax=ax)

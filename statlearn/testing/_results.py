"""The result of a guarantee check."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..utils import ConfidenceInterval, Summary
from ..utils._results import compact_repr

__all__ = ["GuaranteeCheck"]


@dataclass(frozen=True)
class GuaranteeCheck:
    """Outcome of a Monte Carlo guarantee check (:func:`check_coverage`, ...).

    The check fails a correct setup with probability at most
    ``false_alarm`` (under the stated model); ``detectable_deviation`` says how
    far the true value must be from ``expected`` for the run to notice it with
    80% probability.

    Attributes
    ----------
    guarantee : str
        What was checked, e.g. ``"coverage == 18/20"``.
    estimate : float
        Monte Carlo estimate (mean over all replications).
    expected : float
        The value the guarantee states (a bound when one-sided).
    acceptance_region : ConfidenceInterval
        Estimates accepted at ``false_alarm``; ``passed`` is
        ``low <= estimate <= high``.
    passed : bool
        The verdict.
    detectable_deviation : float
        Smallest shift of the true value away from ``expected`` (toward the
        guarded side) detected with probability 0.8 (normal approximation).
    n_reps : int
        Number of replications.
    false_alarm : float
        Probability of failing a correct setup.
    alternative : {"two-sided", "less", "greater"}
        Which deviations fail: ``"less"`` too small an estimate,
        ``"greater"`` too large.
    method : str
        The null distribution behind the region.
    values : ndarray of shape (n_reps,)
        Per-replication values (coverage fraction, FDP, distance ratio).

    Examples
    --------
    >>> import numpy as np
    >>> from statlearn.testing import check_regret_slope
    >>> res = check_regret_slope(lambda rng: np.arange(1, 101) * rng.uniform(0.5, 1.5),
    ...                          horizon=100, rate=0.5, n_reps=20, random_state=0)
    >>> type(res).__name__, res.passed, round(res.estimate, 2)
    ('GuaranteeCheck', False, 1.0)
    >>> print(res.summary().notes[0])
    regret slope <= 0.5: FAILED (greater, false-alarm rate 0.001; log-log ...).
    """

    guarantee: str
    estimate: float
    expected: float
    acceptance_region: ConfidenceInterval
    passed: bool
    detectable_deviation: float
    n_reps: int
    false_alarm: float
    alternative: str
    method: str
    values: np.ndarray

    __repr__ = compact_repr

    def __bool__(self) -> bool:
        return bool(self.passed)

    def summary(self) -> Summary:
        """The numbers of the check as a :class:`~statlearn.utils.Summary`.

        Returns
        -------
        Summary
        """
        lo, hi = self.acceptance_region
        table = pd.DataFrame({
            "estimate": [self.estimate], "expected": [self.expected],
            "region_low": [lo], "region_high": [hi], "passed": [self.passed],
            "detectable": [self.detectable_deviation], "n_reps": [self.n_reps],
        })
        verdict = "passed" if self.passed else "FAILED"
        notes = (f"{self.guarantee}: {verdict} ({self.alternative}, false-alarm rate "
                 f"{self.false_alarm:g}; {self.method}).",)
        return Summary(f"Guarantee check: {self.guarantee}", {"": table}, notes)

    def assert_passed(self) -> None:
        """Raise ``AssertionError`` with the numbers when the check failed.

        For use in a test suite: ``check_coverage(...).assert_passed()``.
        """
        if not self.passed:
            lo, hi = self.acceptance_region
            raise AssertionError(
                f"{self.guarantee}: estimate {self.estimate:.6g} is outside the acceptance "
                f"region [{lo:.6g}, {hi:.6g}] ({self.alternative}, false-alarm rate "
                f"{self.false_alarm:g}, {self.n_reps} replications; {self.method}).")

    def plot(self, ax=None):
        """Histogram of the per-replication values with the estimate and the region.

        Parameters
        ----------
        ax : matplotlib.axes.Axes, optional
            Axes to draw on; a new figure is made if ``None``.

        Returns
        -------
        matplotlib.axes.Axes
        """
        import matplotlib.pyplot as plt

        if ax is None:
            _, ax = plt.subplots(figsize=(5, 3.5))
        ax.hist(self.values, bins=min(30, max(5, self.values.size // 10)), color="0.75",
                label="replications")
        lo, hi = self.acceptance_region
        ax.axvspan(lo, hi, color="tab:green" if self.passed else "tab:red", alpha=0.2,
                   label="acceptance region (of the mean)")
        ax.axvline(self.expected, color="k", ls="--", label="expected")
        ax.axvline(self.estimate, color="tab:blue", label="estimate")
        ax.set_title(f"{self.guarantee}: {'passed' if self.passed else 'failed'}")
        ax.legend(fontsize="small")
        return ax

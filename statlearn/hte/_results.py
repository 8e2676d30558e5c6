"""Result objects of the relative-error evaluation."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy import special

from ..utils import ConfidenceInterval, Summary, check_real

__all__ = ["PairwiseComparison", "RelativeErrorResult"]


# scipy.special.ndtri / ndtr are what scipy.stats.norm.ppf / sf evaluate (the same
# values), without the distribution layer's argument handling (~0.1 ms a call)
def _ci(delta, se, level):
    z = special.ndtri(0.5 + level / 2)
    return ConfidenceInterval(float(delta - z * se), float(delta + z * se))


def decision_from_ci(ci):
    """``-1`` if the CI lies below 0 (first estimator better), ``+1`` above, else ``0``."""
    if ci.high < 0:
        return -1
    if ci.low > 0:
        return 1
    return 0


def two_sided_pvalue(delta, se):
    if se > 0:
        return float(2 * special.ndtr(-(abs(delta) / se)))
    return 1.0 if delta == 0 else 0.0


@dataclass(frozen=True)
class RelativeErrorResult:
    """Estimate of the relative error ``delta = MSE(tau1) - MSE(tau2)`` with inference.

    ``delta < 0`` means the first estimator is more accurate.

    Attributes
    ----------
    delta : float
        Point estimate ``mean(influence)``.
    se : float
        Standard error ``sqrt(mean((influence - delta)^2) / n)``.
    alpha : float
        Level of the default two-sided normal confidence interval (``1 - alpha``).
    pvalue : float
        Two-sided p-value of ``delta = 0``.
    decision : int
        ``-1`` (first estimator better: CI below 0), ``+1`` (second better)
        or ``0`` (no significant difference).
    n : int
        Number of units used.
    influence : ndarray of shape (n,)
        Per-unit contributions ``varphi_i``.
    names : tuple of str
        Labels of the two estimators.
    nuisance : str
        Nuisance protocol used (``"plugin"``, ``"balanced"`` or ``"given"``).
    n_clipped : int
        Number of propensities clipped.
    ess : float
        Effective sample size of the inverse-propensity weights,
        ``(sum W)^2 / sum W^2`` with ``W = A/e + (1-A)/(1-e)``.
    diagnostics : dict
        Extra numbers of the nuisance fit (condition numbers, (C1) residual).

    Examples
    --------
    >>> import numpy as np
    >>> from statlearn.hte import relative_error_from_nuisances
    >>> rng = np.random.default_rng(0)
    >>> n = 400
    >>> a = rng.integers(0, 2, n); y = rng.normal(size=n) + a
    >>> res = relative_error_from_nuisances(np.zeros(n), np.ones(n), a, y,
    ...                                     np.zeros(n), np.ones(n), np.full(n, 0.5))
    >>> res.decision
    1
    >>> ci = res.confidence_interval(0.9)
    >>> bool(ci.low < res.delta < ci.high)
    True
    """

    delta: float
    se: float
    alpha: float
    pvalue: float
    decision: int
    n: int
    influence: np.ndarray = field(repr=False)
    names: tuple = ("tau1", "tau2")
    nuisance: str = "given"
    n_clipped: int = 0
    ess: float = float("nan")
    diagnostics: dict = field(default_factory=dict, repr=False)

    def confidence_interval(self, confidence_level=None):
        """Normal interval ``delta +/- z se`` (default level ``1 - alpha``)."""
        level = 1 - self.alpha if confidence_level is None else check_real(
            confidence_level, "confidence_level", low=0, high=1, closed="neither")
        return _ci(self.delta, self.se, level)

    def summary(self):
        """Readable summary (estimate, se, CI, p-value, decision)."""
        ci = self.confidence_interval()
        verdict = {-1: f"{self.names[0]} more accurate", 1: f"{self.names[1]} more accurate",
                   0: "no significant difference"}[self.decision]
        table = pd.DataFrame({
            "delta": [self.delta], "se": [self.se], "ci_low": [ci.low], "ci_high": [ci.high],
            "pvalue": [self.pvalue], "decision": [verdict]})
        notes = (f"delta = MSE({self.names[0]}) - MSE({self.names[1]}); "
                 f"{100 * (1 - self.alpha):g}% normal CI; n = {self.n}; "
                 f"nuisance = {self.nuisance}; clipped propensities = {self.n_clipped}; "
                 f"IPW effective sample size = {self.ess:.1f}",)
        return Summary("Relative error", {"": table}, notes)

    def plot(self, ax=None):
        """Point estimate with its confidence interval against 0."""
        import matplotlib.pyplot as plt

        if ax is None:
            _, ax = plt.subplots(figsize=(5, 1.8))
        ci = self.confidence_interval()
        ax.errorbar([self.delta], [0], xerr=[[self.delta - ci.low], [ci.high - self.delta]],
                    fmt="o", capsize=5)
        ax.axvline(0, color="grey", lw=1, ls="--")
        ax.set_yticks([])
        ax.set_xlabel(f"delta = MSE({self.names[0]}) - MSE({self.names[1]})")
        return ax


@dataclass(frozen=True)
class PairwiseComparison:
    """All pairwise relative errors among K candidates, and a ranking.

    Attributes
    ----------
    table : pandas.DataFrame
        One row per unordered pair ``(first, second)``: ``delta``, ``se``,
        ``ci_low``, ``ci_high``, ``pvalue``, ``decision`` (``-1``: first
        better, ``+1``: second better, ``0``: undecided).
    ranking : pandas.DataFrame
        Candidates sorted by significant wins (then by the DR-loss relative
        to the best), with ``wins``, ``losses`` and ``rel_loss``.
    alpha : float
        Level of the intervals.
    n : int
        Number of units.

    Examples
    --------
    >>> from statlearn.datasets import make_hte_reference
    >>> from statlearn.hte import RelativeErrorEvaluator
    >>> d = make_hte_reference(2000, random_state=0)
    >>> comp = RelativeErrorEvaluator().compare(d.X, d.treatment, d.y, d.candidates)
    >>> comp.ranking.index[-1]
    'const'
    """

    table: pd.DataFrame
    ranking: pd.DataFrame
    alpha: float
    n: int

    def best_set(self, alpha=None):
        """Confidence set for the most accurate candidate(s): Holm over the pairwise tests.

        A candidate stays unless another is significantly more accurate in
        the one-sided relative-error test, with Holm's correction over all
        ``K (K - 1)`` ordered pairs; every most accurate candidate is in the
        set with probability at least ``1 - alpha`` (asymptotically).

        Parameters
        ----------
        alpha : float, optional
            Family-wise error level; the comparison's ``alpha`` by default.

        Returns
        -------
        BestCandidateSet
        """
        from ._best_set import best_set_from_table

        alpha = self.alpha if alpha is None else alpha
        return best_set_from_table(self.table, list(self.ranking.index), alpha,
                                   self.ranking["rel_loss"].to_dict())

    def summary(self):
        """Summary with the pairwise table and the ranking."""
        return Summary("Pairwise relative errors", {"pairs": self.table,
                                                    "ranking": self.ranking},
                       (f"{100 * (1 - self.alpha):g}% normal CIs; n = {self.n}",))

    def plot(self, ax=None):
        """Forest plot of the pairwise deltas with their intervals."""
        import matplotlib.pyplot as plt

        t = self.table
        if ax is None:
            _, ax = plt.subplots(figsize=(6, 0.4 * len(t) + 1.2))
        ypos = np.arange(len(t))[::-1]
        ax.errorbar(t["delta"], ypos, xerr=[t["delta"] - t["ci_low"], t["ci_high"] - t["delta"]],
                    fmt="o", capsize=4)
        ax.axvline(0, color="grey", lw=1, ls="--")
        ax.set_yticks(ypos)
        ax.set_yticklabels([f"{a} vs {b}" for a, b in zip(t["first"], t["second"], strict=True)])
        ax.set_xlabel("delta = MSE(first) - MSE(second)")
        return ax

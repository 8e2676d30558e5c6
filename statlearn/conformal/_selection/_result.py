"""The outcome of a conformal selection: selected units and pairs, p-values, FDP."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ...utils import Summary, to_numpy

__all__ = ["SelectionResult"]


@dataclass(frozen=True, repr=False, slots=True)
class SelectionResult:
    """Outcome of a conformal selection.

    Attributes
    ----------
    selected : ndarray of int, shape (n_selected,)
        Selected test units (sorted, 0-based).
    pairs : ndarray of int, shape (n_pairs, 2)
        Selected ``(unit, condition)`` pairs.
    pvalues : ndarray of shape (m, K)
        Conformal p-values of every (unit, condition) hypothesis (for the
        set-operation baselines, the largest of a condition's per-boundary
        p-values; for ``"ind"``, the p-values of the indicator, ``K = 1``).
    threshold : float
        BH cut ``q l* / N`` on the pooled p-values (``0.0`` if nothing was
        selected). For the set-operation baselines, the smallest cut used.
    q : float
        Target false discovery rate.
    method : str
        ``"cfbh"``, ``"mccs"`` or a baseline name.
    n_calibration : int
        Calibration size ``n``.
    fdp, pair_fdp, power : float
        When true test responses were given: unit-level false discovery
        proportion (selected units outside the target), pair-level FDP
        (selected pairs whose unit is outside that condition's region), and
        power (selected target units / target units); NaN otherwise.
    """

    selected: np.ndarray
    pairs: np.ndarray
    pvalues: np.ndarray
    threshold: float
    q: float
    method: str
    n_calibration: int
    fdp: float = math.nan
    pair_fdp: float = math.nan
    power: float = math.nan

    @property
    def n_selected(self) -> int:
        """Number of selected units."""
        return int(self.selected.size)

    @property
    def n_test(self) -> int:
        """Number of test units ``m``."""
        return int(self.pvalues.shape[0])

    @property
    def n_conditions(self) -> int:
        """Number of conditions ``K``."""
        return int(self.pvalues.shape[1])

    def __repr__(self) -> str:
        return (f"SelectionResult(method={self.method!r}, q={self.q:g}, "
                f"n_selected={self.n_selected}, n_pairs={len(self.pairs)}, "
                f"threshold={self.threshold:.4g}, n_test={self.n_test}, "
                f"n_conditions={self.n_conditions}, fdp={self.fdp:.4g}, power={self.power:.4g})")

    def summary(self) -> Summary:
        """Counts, the BH cut and (with true responses) FDP and power."""
        import pandas as pd

        table = pd.DataFrame({
            "method": [self.method], "q": [self.q], "n_calibration": [self.n_calibration],
            "n_test": [self.n_test], "n_conditions": [self.n_conditions],
            "selected units": [self.n_selected], "selected pairs": [len(self.pairs)],
            "BH threshold": [self.threshold], "FDP": [self.fdp], "pair FDP": [self.pair_fdp],
            "power": [self.power],
        }).T.rename(columns={0: "value"})
        notes = ("FDP, pair FDP and power are NaN unless true responses were given.",)
        return Summary("Conformal selection", {"": table}, notes)

    def plot(self, ax=None):
        """Sorted p-values against their rank, with the BH line ``q l / N``.

        Selected (unit, condition) hypotheses are drawn filled.

        Returns
        -------
        matplotlib.axes.Axes
        """
        import matplotlib.pyplot as plt

        if ax is None:
            _, ax = plt.subplots(figsize=(5, 3.5))
        p = np.sort(self.pvalues.ravel())
        N = p.size
        rank = np.arange(1, N + 1)
        n_sel = len(self.pairs)
        ax.plot(rank[n_sel:], p[n_sel:], ".", color="0.6", ms=3, label="not selected")
        if n_sel:
            ax.plot(rank[:n_sel], p[:n_sel], ".", color="C3", ms=4, label="selected")
        ax.plot(rank, self.q * rank / N, "-", color="C0", lw=1,
                label=f"BH line q l / N, q={self.q:g}")
        if self.threshold > 0:
            ax.axhline(self.threshold, color="C0", ls=":", lw=1)
        ax.set_xlabel("rank l")
        ax.set_ylabel("sorted p-value")
        ax.set_title(f"{self.method}: {self.n_selected} units selected")
        ax.legend(fontsize=8, loc="upper left")
        return ax


def _truth_metrics(in_cond, target, pairs_mask, unit_mask):
    """Unit FDP, pair FDP and power from truth (NumPy boolean arrays)."""
    n_sel = int(unit_mask.sum())
    fdp = float((unit_mask & ~target).sum() / max(1, n_sel))
    n_pairs = int(pairs_mask.sum())
    pair_fdp = float((pairs_mask & ~in_cond).sum() / max(1, n_pairs))
    power = float((unit_mask & target).sum() / max(1, int(target.sum())))
    return fdp, pair_fdp, power


def _result(method, pair_mask, pvalues, threshold, q, n, in_cond=None, target=None):
    pair_mask = np.asarray(to_numpy(pair_mask), dtype=bool)
    unit_mask = pair_mask.any(axis=1)
    pairs = np.argwhere(pair_mask).astype(np.int64)
    fdp = pair_fdp = power = math.nan
    if in_cond is not None:
        fdp, pair_fdp, power = _truth_metrics(in_cond, target, pair_mask, unit_mask)
    return SelectionResult(selected=np.flatnonzero(unit_mask), pairs=pairs,
                           pvalues=np.asarray(to_numpy(pvalues), dtype=np.float64),
                           threshold=float(threshold), q=q, method=method, n_calibration=n,
                           fdp=fdp, pair_fdp=pair_fdp, power=power)


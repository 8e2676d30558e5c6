"""The outcome of a risk-control calibration: the chosen parameter, risks, p-values."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ...utils import Summary

__all__ = ["RiskControlResult"]


@dataclass(frozen=True, repr=False, slots=True)
class RiskControlResult:
    """Outcome of conformal risk control (CRC) or learn-then-test (LTT).

    The candidate parameters are the columns of the loss matrix, in the
    order the procedure reads them (for CRC: from the most to the least
    conservative, so that the loss is non-increasing along it).

    Attributes
    ----------
    method : str
        ``"crc"`` or ``"ltt"``.
    lambdas : ndarray of shape (m,)
        The candidate parameters, in the order of the columns.
    index : int
        Column of the chosen parameter; ``-1`` when LTT certified none.
    lambda_hat : float
        ``lambdas[index]``; NaN when LTT certified none.
    risk : ndarray of shape (m,)
        Empirical risk of every candidate (mean loss over its counted samples).
    n_samples : ndarray of int, shape (m,)
        Number of losses behind each risk (fewer than ``n`` for a conditional
        risk such as precision, whose losses count only predicted positives).
    alpha : float
        Target risk level.
    delta : float
        LTT: the family-wise error rate; NaN for CRC.
    bound : float
        The bound ``B`` of the losses.
    adjusted_risk : ndarray of shape (m,)
        CRC: ``(n R_n(lambda) + B) / (n + 1)``, the quantity compared with
        ``alpha``; NaN for LTT.
    pvalues : ndarray of shape (m,)
        LTT: the p-value of ``H_j: R(lambda_j) > alpha``; NaN for CRC.
    selected : ndarray of int, shape (k,)
        LTT: the columns whose null was rejected (every one of them controls
        the risk with probability ``1 - delta``, jointly); CRC: ``[index]``.
    pvalue_method : str
        ``"hoeffding"``, ``"bentkus"`` or ``"hoeffding_bentkus"`` (LTT);
        ``""`` for CRC.
    fwer : str
        ``"bonferroni"``, ``"holm"`` or ``"fixed_sequence"`` (LTT); ``""`` for CRC.
    """

    method: str
    lambdas: np.ndarray
    index: int
    lambda_hat: float
    risk: np.ndarray
    n_samples: np.ndarray
    alpha: float
    delta: float
    bound: float
    adjusted_risk: np.ndarray
    pvalues: np.ndarray
    selected: np.ndarray
    pvalue_method: str = ""
    fwer: str = ""

    @property
    def n_lambdas(self) -> int:
        """Number of candidate parameters ``m``."""
        return int(self.lambdas.size)

    @property
    def risk_hat(self) -> float:
        """Empirical risk at the chosen parameter (NaN when none was chosen)."""
        return float(self.risk[self.index]) if self.index >= 0 else math.nan

    def __repr__(self) -> str:
        return (f"RiskControlResult(method={self.method!r}, alpha={self.alpha:g}, "
                f"delta={self.delta:g}, lambda_hat={self.lambda_hat:.4g}, "
                f"risk_hat={self.risk_hat:.4g}, n_selected={self.selected.size}, "
                f"n_lambdas={self.n_lambdas})")

    def summary(self) -> Summary:
        """The chosen parameter, its empirical risk and the procedure's settings.

        Returns
        -------
        Summary
        """
        import pandas as pd

        rows = {"method": self.method, "alpha": self.alpha, "lambda_hat": self.lambda_hat,
                "empirical risk at lambda_hat": self.risk_hat,
                "candidates": self.n_lambdas, "calibration losses (max)":
                int(self.n_samples.max()) if self.n_samples.size else 0}
        if self.method == "crc":
            rows["bound B"] = self.bound
            rows["adjusted risk at lambda_hat"] = float(self.adjusted_risk[self.index])
            note = ("CRC (Angelopoulos et al. 2024, Theorem 1): E[L(lambda_hat)] <= alpha "
                    "over calibration and test data.")
        else:
            rows.update({"delta": self.delta, "p-value": self.pvalue_method,
                         "FWER procedure": self.fwer, "certified candidates":
                         int(self.selected.size)})
            note = ("LTT (Angelopoulos et al. 2025, Theorem 1): with probability >= 1 - "
                    "delta every certified candidate has risk <= alpha.")
        table = pd.DataFrame({"value": list(rows.values())}, index=list(rows), dtype=object)
        return Summary("Risk control", {"": table}, (note,))

    def plot(self, ax=None):
        """Empirical risk of every candidate, the level ``alpha`` and the choice.

        CRC also draws the adjusted risk ``(n R_n + B) / (n + 1)``; LTT marks
        the certified candidates.

        Parameters
        ----------
        ax : matplotlib.axes.Axes, optional

        Returns
        -------
        matplotlib.axes.Axes
        """
        import matplotlib.pyplot as plt

        if ax is None:
            _, ax = plt.subplots(figsize=(5, 3.5))
        pos = np.arange(self.n_lambdas)
        ax.plot(pos, self.risk, "-", color="C0", lw=1.2, label="empirical risk")
        if self.method == "crc":
            ax.plot(pos, self.adjusted_risk, "--", color="C1", lw=1,
                    label="(n R + B) / (n + 1)")
        elif self.selected.size:
            ax.plot(self.selected, self.risk[self.selected], ".", color="C2", ms=4,
                    label="certified")
        ax.axhline(self.alpha, color="0.3", ls=":", lw=1, label=f"alpha = {self.alpha:g}")
        if self.index >= 0:
            ax.axvline(self.index, color="C3", lw=1,
                       label=f"lambda_hat = {self.lambda_hat:.3g}")
        ax.set_xlabel("candidate (column of the loss matrix)")
        ax.set_ylabel("risk")
        ax.set_title(f"{self.method.upper()}: risk against the candidates")
        ax.legend(fontsize=8)
        return ax

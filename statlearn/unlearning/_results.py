"""Result objects: the per-request unlearning report and error divergences."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import numpy as np
import pandas as pd

from ..utils import ConfidenceInterval, Summary, normal_interval
from ..utils._results import compact_repr

__all__ = ["DivergenceResult", "UnlearningReport"]


@dataclass(frozen=True)
class UnlearningReport:
    """Audit record of one unlearning request (for the data holder only).

    The fields ``delta_cert``, ``mu_effective``, ``newton_residual_norm``,
    ``certified`` and ``fallback`` depend on the removed data. The guarantee
    covers the released coefficients only: publishing this report next to the
    model would leak information about the removed points.

    Attributes
    ----------
    m : int
        Number of points removed by this request.
    n : int
        Number of training points before the request.
    mechanism : str
        ``"newton"``, ``"guo"`` or ``"sekhari"``.
    noise : str
        ``"gaussian"``, ``"laplace_l2"`` or ``"none"``.
    sigma : float
        Noise scale (per-coordinate standard deviation for Gaussian noise,
        ``r / epsilon`` for ``laplace_l2``; objective-perturbation scale for ``guo``).
    r : float
        Data-independent error radius the noise was calibrated to.
    epsilon : float
        Target privacy parameter.
    delta_cert : float
        Certified bound ``||grad L_{-M}(beta)|| / (alpha nu)`` on the distance of
        the pre-noise output to the exact retrain (after a fallback, of the
        refitted point); NaN when not computed.
    certified : bool
        ``delta_cert <= r`` or a fallback happened (``guo``: accumulated residual
        within budget or retrained; ``sekhari``: always, under its assumptions).
    fallback : bool
        Whether the exact solver replaced the Newton step.
    newton_residual_norm : float
        Gradient norm of the retained objective at the Newton output (before any fallback).
    mu_effective : float
        Realised GDP parameter ``delta_cert / sigma`` (``<= epsilon`` when certified
        without fallback, 0 after a fallback).
    n_newton_steps : int
        Newton steps taken.
    hessian : str
        ``"stored"`` (Woodbury downdate of the stored factor), ``"direct"`` or ``"none"``.
    seconds : float
        Wall time of the request.

    Examples
    --------
    >>> from statlearn.unlearning import NewtonUnlearner, make_glm_data
    >>> X, y, _ = make_glm_data(100, 50, random_state=0)
    >>> rep = NewtonUnlearner(random_state=0).fit(X, y).unlearn([0]).unlearn_report_
    >>> rep.m, rep.certified, bool(rep.mu_effective < rep.epsilon)
    (1, True, True)
    """

    m: int
    n: int
    mechanism: str
    noise: str
    sigma: float
    r: float
    epsilon: float
    delta_cert: float
    certified: bool
    fallback: bool
    newton_residual_norm: float
    mu_effective: float
    n_newton_steps: int
    hessian: str
    seconds: float

    def to_dict(self) -> dict:
        """The fields as a plain dict."""
        return asdict(self)

    def summary(self) -> Summary:
        """Readable table of the fields.

        Examples
        --------
        >>> from statlearn.unlearning import NewtonUnlearner, make_glm_data
        >>> X, y, _ = make_glm_data(60, 20, random_state=0)
        >>> est = NewtonUnlearner(random_state=0).fit(X, y).unlearn([3])
        >>> print(est.unlearn_report_.summary().title)
        Unlearning report
        """
        table = pd.DataFrame({"value": [str(v) for v in asdict(self).values()]},
                             index=list(asdict(self)))
        notes = ("Audit record: do not publish it with the model (it depends on the "
                 "removed data).",)
        return Summary("Unlearning report", {"": table}, notes)

    def plot(self, ax=None):
        """Plot the target trade-off ``G_epsilon`` and the realised ``G_mu_effective``.

        Any test of "unlearned" against "retrained" has type-II error on or
        above the curves; the realised one lies above the target when certified.

        Returns
        -------
        matplotlib.axes.Axes
        """
        import matplotlib.pyplot as plt

        from ._privacy import gaussian_tradeoff

        if ax is None:
            _, ax = plt.subplots(figsize=(4, 4))
        a = np.linspace(0, 1, 201)
        ax.plot(a, 1 - a, color="0.6", ls=":", label="perfect (retrain)")
        ax.plot(a, gaussian_tradeoff(a, self.epsilon), label=f"target G_eps, eps={self.epsilon:g}")
        mu = self.mu_effective
        if math.isfinite(mu):
            ax.plot(a, gaussian_tradeoff(a, mu), ls="--", label=f"realised G_mu, mu={mu:.3g}")
        ax.set_xlabel("type I error")
        ax.set_ylabel("type II error")
        ax.set_title(f"Unlearning m={self.m}: trade-off curves")
        ax.legend(fontsize="small")
        return ax


@dataclass(frozen=True)
class DivergenceResult:
    """Error divergence between a reference model and (noisy) unlearned models.

    Attributes
    ----------
    kind : str
        ``"GED"`` (fresh points) or ``"UED"`` (the removed points).
    estimate : float
        Mean of ``|l(y|x^T beta_ref) - l(y|x^T beta_tilde)|`` over points and draws.
    signed_estimate : float
        Same without the absolute value.
    se : float
        Standard error of ``estimate`` over evaluation points (data and
        reference fixed).
    n_points : int
        Evaluation points.
    n_draws : int
        Unlearned-coefficient draws (noise draws).
    per_point : ndarray of shape (n_points,)
        Per-point mean absolute divergence (over draws).

    Examples
    --------
    >>> import numpy as np
    >>> from statlearn.unlearning import ged
    >>> X0, y0 = np.eye(3), np.ones(3)
    >>> res = ged(np.zeros(3), np.ones(3), X0, y0, loss="squared")
    >>> res.kind, res.estimate, res.n_points
    ('GED', 0.5, 3)
    """

    kind: str
    estimate: float
    signed_estimate: float
    se: float
    n_points: int
    n_draws: int
    per_point: np.ndarray

    def confidence_interval(self, confidence_level: float = 0.95) -> ConfidenceInterval:
        """Normal interval for the divergence (over evaluation points).

        Examples
        --------
        >>> import numpy as np
        >>> from statlearn.unlearning import ged
        >>> rng = np.random.default_rng(0)
        >>> X0 = rng.normal(size=(500, 5)) / 5 ** 0.5
        >>> y0 = rng.integers(0, 2, 500).astype(float)
        >>> res = ged(np.zeros(5), np.full(5, 0.1), X0, y0, loss="logistic")
        >>> lo, hi = res.confidence_interval()
        >>> bool(lo <= res.estimate <= hi)
        True
        """
        if self.n_points < 2:
            return ConfidenceInterval(math.nan, math.nan)
        return normal_interval(self.estimate, self.se, confidence_level)

    __repr__ = compact_repr

    def summary(self, confidence_level: float = 0.95) -> Summary:
        """Summary table of the estimate and its interval at ``confidence_level``."""
        lo, hi = self.confidence_interval(confidence_level)
        table = pd.DataFrame({"estimate": [self.estimate], "signed": [self.signed_estimate],
                              "se": [self.se], "ci_low": [lo], "ci_high": [hi],
                              "n_points": [self.n_points], "n_draws": [self.n_draws]})
        return Summary(f"{self.kind} (error divergence)", {"": table})

    def plot(self, ax=None):
        """Histogram of the per-point divergences.

        Returns
        -------
        matplotlib.axes.Axes
        """
        import matplotlib.pyplot as plt

        if ax is None:
            _, ax = plt.subplots(figsize=(5, 3.5))
        ax.hist(self.per_point, bins=min(50, max(5, self.n_points // 10)), color="C0")
        ax.axvline(self.estimate, color="C3", label=f"{self.kind} = {self.estimate:.3g}")
        ax.set_xlabel("per-point |loss difference|")
        ax.set_ylabel("count")
        ax.legend(fontsize="small")
        return ax

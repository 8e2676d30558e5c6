"""statlearn: recent results in statistical learning, implemented and tested.

Install from the repository (``python -m pip install .``) or from a wheel
built by ``make dist``; the distribution is named ``statlearn-methods``
because ``statlearn`` on the package index is an unrelated project. The
import name is ``statlearn``.

Subpackages
-----------
conformal
    Conformal prediction sets (SOCOP, LAC, APS, RAPS, top-k, Mondrian),
    conformal regression intervals (split with absolute, normalised or CQR
    scores; jackknife+, CV+, minmax) and conformal selection with FDR
    control (cfBH, MCCS).
hte
    Relative-error evaluation of heterogeneous treatment effect (CATE)
    estimators, DR-/R-loss scorers and the aggregated HTE learner.
calibration
    Minimax decision rules for partially calibrated forecasts and
    calibration diagnostics.
bandits
    Contextual queueing bandits (``bandits.queueing``) and structural causal
    bandits with POMIS and counterfactual arms (``bandits.causal``).
cluster
    Sublinear spectral clustering oracle with a memory/time trade-off.
unlearning
    Certified machine unlearning by a Newton step plus Gaussian noise.
simulation
    Monte Carlo study runner (joblib / Dask), with resumable storage.
testing
    Guarantee checks for your own setups (coverage, FDR, unlearning, regret
    slope) with a stated false-alarm rate, Monte Carlo assertions and
    hypothesis strategies.
studies
    The papers' headline experiments, run by ``statlearn reproduce``.
datasets
    Synthetic data generators.
utils
    Validation, random state, array-backend and numba helpers.
"""

from ._version import __version__

__all__ = ["__version__"]

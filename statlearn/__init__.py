"""statlearn: recent results in statistical learning, implemented and tested.

Subpackages
-----------
conformal
    Conformal prediction sets (SOCOP, LAC, APS, RAPS) and conformal selection.
bandits
    Contextual queueing bandits and structural causal bandits.
cluster
    Sublinear spectral clustering oracles.
unlearning
    Certified machine unlearning by a Newton step plus Gaussian noise.
simulation
    Monte Carlo study runner (joblib / Dask), with resumable storage.
studies
    The papers' headline experiments, run by ``statlearn reproduce``.
datasets
    Synthetic data generators.
utils
    Validation, random state, array-backend and numba helpers.
"""

from ._version import __version__

__all__ = ["__version__"]

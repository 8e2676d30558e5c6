"""Conformal intervals for data that are not exchangeable (time series).

* :mod:`._aci`: adaptive conformal inference (Gibbs & Candes, 2021): the
  level update :func:`aci_update`, its deterministic long-run bound
  :func:`aci_miscoverage_bound`, and :func:`adaptive_conformal_inference`
  over a stream of scores;
* :mod:`._agaci`: aggregated ACI (Zaffran et al., 2022),
  :func:`aggregated_adaptive_conformal_inference`, ACI experts over a grid of
  step sizes aggregated online by Bernstein online aggregation;
* :mod:`._enbpi`: :class:`TimeSeriesRegressor` (EnbPI of Xu & Xie, 2021,
  with the ACI level as an option) and :func:`block_bootstrap_indices`.

It imports the shared core and the regression area's input checks only.
"""

from ._aci import ACIResult, aci_miscoverage_bound, aci_update, adaptive_conformal_inference
from ._agaci import AgACIResult, aggregated_adaptive_conformal_inference
from ._enbpi import TimeSeriesRegressor, block_bootstrap_indices

__all__ = [
    "ACIResult",
    "AgACIResult",
    "TimeSeriesRegressor",
    "aci_miscoverage_bound",
    "aci_update",
    "adaptive_conformal_inference",
    "aggregated_adaptive_conformal_inference",
    "block_bootstrap_indices",
]

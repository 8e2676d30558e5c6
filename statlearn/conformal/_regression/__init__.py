"""Conformal prediction intervals for regression.

* :mod:`._scores`: the absolute, normalised and CQR scores by name, with the
  facts the wrappers read (and the quantile parameter of a quantile regressor);
* :mod:`._inputs`: the checks the wrappers share (levels, responses,
  predictions);
* :mod:`._split`: :class:`SplitConformalRegressor` (split conformal, Mondrian
  by any grouping);
* :mod:`._cross`: :class:`CrossConformalRegressor` and
  :func:`cross_conformal_bounds` (jackknife+, CV+, minmax; Barber et al., 2021);
* :mod:`._bootstrap`: :class:`JackknifeAfterBootstrapRegressor` (J+aB; Kim,
  Xu & Barber, 2020);
* :mod:`._interval_metrics`: coverage, width and conditional coverage.
"""

from ._bootstrap import JackknifeAfterBootstrapRegressor
from ._cross import CrossConformalRegressor, cross_conformal_bounds
from ._interval_metrics import (
    PredictionIntervalResult,
    coverage_by_bins,
    evaluate_intervals,
    interval_coverage,
    mean_width,
)
from ._scores import quantile_parameter
from ._split import SplitConformalRegressor

__all__ = [
    "CrossConformalRegressor",
    "JackknifeAfterBootstrapRegressor",
    "PredictionIntervalResult",
    "SplitConformalRegressor",
    "coverage_by_bins",
    "cross_conformal_bounds",
    "evaluate_intervals",
    "interval_coverage",
    "mean_width",
    "quantile_parameter",
]

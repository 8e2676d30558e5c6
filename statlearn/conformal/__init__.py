"""Conformal prediction sets for classification and intervals for regression.

Split-conformal sets with the SOCOP score (Wang, Sun & Dobriban, 2025) and the
LAC, APS, RAPS and top-k baselines, class-conditional (Mondrian) calibration,
set metrics, and the conformal quantile and p-value they share; conformal
selection with FDR control (cfBH of Jin & Candes, 2023, and Multi-Condition
Conformal Selection of Hao et al., 2026); split-conformal regression
intervals (absolute, normalised and CQR scores, Mondrian by any grouping),
jackknife+, CV+ and jackknife-minmax intervals (Barber et al., 2021), with
their coverage and width metrics.
"""

from ._classifier import SplitConformalClassifier, smoothed_pvalues, thresholds_from_scores
from ._cross import CrossConformalRegressor, cross_conformal_bounds
from ._metrics import (
    RAPS_SIZE_BINS,
    PredictionIntervalResult,
    PredictionSetResult,
    class_conditional_coverage,
    conformal_scorer,
    coverage,
    coverage_by_bins,
    empty_rate,
    evaluate_intervals,
    evaluate_sets,
    interval_coverage,
    mean_set_size,
    mean_width,
    non_singleton_rate,
    singleton_rate,
    size_stratified_coverage_violation,
)
from ._quantile import conformal_pvalues, conformal_quantile, conformal_rank
from ._regression import SplitConformalRegressor
from ._scores import (
    aps_scores,
    label_ranks,
    lac_scores,
    raps_scores,
    socop_scores,
    socop_sets,
    topk_scores,
)
from ._selection import (
    SelectionResult,
    SmallCalibrationWarning,
    bh_select,
    cfbh,
    mccs,
    region_scores,
)
from ._selector import ConformalSelector, MultiConditionSelector
from ._tuning import (
    DEFAULT_LAM_GRID,
    LAM_GRID_MULTIPLIERS,
    LambdaSelection,
    kneedle,
    scaled_lam_grid,
    select_lambda,
)

__all__ = [
    "ConformalSelector",
    "CrossConformalRegressor",
    "DEFAULT_LAM_GRID",
    "LAM_GRID_MULTIPLIERS",
    "LambdaSelection",
    "MultiConditionSelector",
    "PredictionIntervalResult",
    "PredictionSetResult",
    "RAPS_SIZE_BINS",
    "SelectionResult",
    "SmallCalibrationWarning",
    "SplitConformalClassifier",
    "SplitConformalRegressor",
    "aps_scores",
    "bh_select",
    "cfbh",
    "class_conditional_coverage",
    "conformal_pvalues",
    "conformal_quantile",
    "conformal_rank",
    "conformal_scorer",
    "coverage",
    "coverage_by_bins",
    "cross_conformal_bounds",
    "empty_rate",
    "evaluate_intervals",
    "evaluate_sets",
    "interval_coverage",
    "kneedle",
    "label_ranks",
    "lac_scores",
    "mccs",
    "mean_set_size",
    "mean_width",
    "non_singleton_rate",
    "raps_scores",
    "region_scores",
    "scaled_lam_grid",
    "select_lambda",
    "singleton_rate",
    "size_stratified_coverage_violation",
    "smoothed_pvalues",
    "socop_scores",
    "socop_sets",
    "thresholds_from_scores",
    "topk_scores",
]

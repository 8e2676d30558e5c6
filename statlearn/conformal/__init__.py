"""Conformal prediction sets for classification and intervals for regression.

Split-conformal sets with the SOCOP score (Wang, Sun & Dobriban, 2025) and the
LAC, APS, RAPS and top-k baselines, cross-conformal (CV+) sets for the same
scores, class-conditional (Mondrian) calibration,
set metrics, and the conformal quantile and p-value they share; conformal
selection with FDR control (cfBH of Jin & Candes, 2023, and Multi-Condition
Conformal Selection of Hao et al., 2026); split-conformal regression
intervals (absolute, normalised and CQR scores, Mondrian by any grouping),
jackknife+, CV+ and jackknife-minmax intervals (Barber et al., 2021) and the
jackknife+-after-bootstrap (Kim, Xu & Barber, 2020), with
their coverage and width metrics; risk control beyond miscoverage: conformal
risk control (Angelopoulos et al., ICLR 2024) and learn-then-test with
Hoeffding, Bentkus and Hoeffding-Bentkus p-values and Bonferroni, Holm or
fixed-sequence family-wise error control (Angelopoulos et al., 2025), with
multi-label and binary risk controllers around a classifier; intervals for
time series that are not exchangeable: EnbPI (Xu & Xie, ICML 2021) and
adaptive conformal inference (Gibbs & Candes, NeurIPS 2021).

The code is cut by concept: a shared core (:mod:`._core`: quantile rank,
p-values, thresholds, array-likes) under three sub-areas that never import
each other, classification sets (:mod:`._classification`), regression
intervals (:mod:`._regression`), selection (:mod:`._selection`) and risk
control (:mod:`._risk`), and time series (:mod:`._timeseries`, which may
also use the regression area's input checks); the
Numba kernels are in :mod:`._kernels`. Every public name is re-exported here.
"""

from ._classification import (
    DEFAULT_LAM_GRID,
    LAM_GRID_MULTIPLIERS,
    RAPS_SIZE_BINS,
    CrossConformalClassifier,
    LambdaSelection,
    PredictionSetResult,
    SplitConformalClassifier,
    aps_scores,
    class_conditional_coverage,
    conformal_scorer,
    coverage,
    cv_plus_counts,
    empty_rate,
    evaluate_sets,
    kneedle,
    label_ranks,
    lac_scores,
    mean_set_size,
    non_singleton_rate,
    raps_scores,
    scaled_lam_grid,
    select_lambda,
    singleton_rate,
    size_stratified_coverage_violation,
    socop_scores,
    socop_sets,
    topk_scores,
)
from ._core import (
    conformal_pvalues,
    conformal_quantile,
    conformal_rank,
    smoothed_pvalues,
    thresholds_from_scores,
)
from ._regression import (
    CrossConformalRegressor,
    JackknifeAfterBootstrapRegressor,
    PredictionIntervalResult,
    SplitConformalRegressor,
    coverage_by_bins,
    cross_conformal_bounds,
    evaluate_intervals,
    interval_coverage,
    mean_width,
)
from ._risk import (
    BinaryRiskController,
    MultiLabelRiskController,
    RiskControlResult,
    bentkus_pvalue,
    binary_losses,
    conformal_risk_control,
    fwer_control,
    hoeffding_bentkus_pvalue,
    hoeffding_pvalue,
    learn_then_test,
    miscoverage_losses,
    multilabel_fnr_losses,
    multilabel_precision_losses,
)
from ._selection import (
    ConformalSelector,
    MultiConditionSelector,
    SelectionResult,
    SmallCalibrationWarning,
    bh_select,
    cfbh,
    mccs,
    region_scores,
)
from ._timeseries import (
    ACIResult,
    AgACIResult,
    TimeSeriesRegressor,
    aci_miscoverage_bound,
    aci_update,
    adaptive_conformal_inference,
    aggregated_adaptive_conformal_inference,
    block_bootstrap_indices,
)

__all__ = [
    "ACIResult",
    "AgACIResult",
    "BinaryRiskController",
    "ConformalSelector",
    "CrossConformalClassifier",
    "CrossConformalRegressor",
    "DEFAULT_LAM_GRID",
    "JackknifeAfterBootstrapRegressor",
    "LAM_GRID_MULTIPLIERS",
    "LambdaSelection",
    "MultiConditionSelector",
    "MultiLabelRiskController",
    "PredictionIntervalResult",
    "PredictionSetResult",
    "RAPS_SIZE_BINS",
    "RiskControlResult",
    "SelectionResult",
    "SmallCalibrationWarning",
    "SplitConformalClassifier",
    "SplitConformalRegressor",
    "TimeSeriesRegressor",
    "aci_miscoverage_bound",
    "aci_update",
    "adaptive_conformal_inference",
    "aggregated_adaptive_conformal_inference",
    "aps_scores",
    "bentkus_pvalue",
    "bh_select",
    "binary_losses",
    "block_bootstrap_indices",
    "cfbh",
    "class_conditional_coverage",
    "conformal_pvalues",
    "conformal_quantile",
    "conformal_rank",
    "conformal_risk_control",
    "conformal_scorer",
    "coverage",
    "coverage_by_bins",
    "cv_plus_counts",
    "cross_conformal_bounds",
    "empty_rate",
    "evaluate_intervals",
    "evaluate_sets",
    "fwer_control",
    "hoeffding_bentkus_pvalue",
    "hoeffding_pvalue",
    "interval_coverage",
    "kneedle",
    "label_ranks",
    "lac_scores",
    "learn_then_test",
    "mccs",
    "mean_set_size",
    "mean_width",
    "miscoverage_losses",
    "multilabel_fnr_losses",
    "multilabel_precision_losses",
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

"""Conformal prediction sets for classification.

* :mod:`._label_order`: the label order every score shares, and the checks of
  a probability matrix and of label indices;
* :mod:`._socop`: SOCOP (Wang, Sun & Dobriban, 2025): its score, its sets and
  the choice of its ``lambda`` on a tuning split;
* :mod:`._baselines`: the LAC, APS, RAPS and top-k scores and sets (and RAPS's
  tuning);
* :mod:`._registry`: the scores by name, with the facts the classifier reads;
* :mod:`._classifier`: :class:`SplitConformalClassifier`;
* :mod:`._cross`: :class:`CrossConformalClassifier` (CV+ sets) and :func:`cv_plus_counts`;
* :mod:`._set_metrics`: coverage, size and the other metrics of sets.
"""

from ._baselines import RAPS_LAM_GRID, aps_scores, lac_scores, raps_scores, topk_scores
from ._classifier import SplitConformalClassifier
from ._cross import CrossConformalClassifier, cv_plus_counts
from ._label_order import label_ranks
from ._set_metrics import (
    RAPS_SIZE_BINS,
    PredictionSetResult,
    class_conditional_coverage,
    conformal_scorer,
    coverage,
    empty_rate,
    evaluate_sets,
    mean_set_size,
    non_singleton_rate,
    singleton_rate,
    size_stratified_coverage_violation,
)
from ._socop import (
    DEFAULT_LAM_GRID,
    LAM_GRID_MULTIPLIERS,
    LambdaSelection,
    kneedle,
    scaled_lam_grid,
    select_lambda,
    socop_scores,
    socop_sets,
)

__all__ = [
    "CrossConformalClassifier",
    "DEFAULT_LAM_GRID",
    "LAM_GRID_MULTIPLIERS",
    "LambdaSelection",
    "PredictionSetResult",
    "RAPS_LAM_GRID",
    "RAPS_SIZE_BINS",
    "SplitConformalClassifier",
    "aps_scores",
    "class_conditional_coverage",
    "conformal_scorer",
    "coverage",
    "cv_plus_counts",
    "empty_rate",
    "evaluate_sets",
    "kneedle",
    "label_ranks",
    "lac_scores",
    "mean_set_size",
    "non_singleton_rate",
    "raps_scores",
    "scaled_lam_grid",
    "select_lambda",
    "singleton_rate",
    "size_stratified_coverage_violation",
    "socop_scores",
    "socop_sets",
    "topk_scores",
]

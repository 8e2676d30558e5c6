"""Relative-error evaluation of heterogeneous treatment effect (CATE) estimators.

The relative error ``delta = MSE(tau1) - MSE(tau2)`` of two CATE estimators
is estimated with the one-step (AIPW) estimator of Gao (2025), with a
standard error, confidence interval, p-value and decision, from plug-in
(cross-fitted) nuisances or from the balanced nuisance fit of Guo, Li, Tian
& Wu (2025). Also: pairwise comparison of many candidates, DR-/R-loss
scorers, a confidence set for the most accurate candidate, and a learner that
aggregates candidates by Q-aggregation of the cross-fitted DR-loss (the paper's
pairwise learner is kept as an option).
"""

from ._best_set import BestCandidateSet
from ._evaluator import RelativeErrorEvaluator, relative_error_from_nuisances
from ._learner import DRScorer, RelativeErrorHTE, RScorer
from ._results import PairwiseComparison, RelativeErrorResult
from ._scores import dr_loss, dr_pseudo_outcome, r_loss, relative_error_influence

__all__ = [
    "BestCandidateSet",
    "DRScorer",
    "RScorer",
    "RelativeErrorHTE",
    "PairwiseComparison",
    "RelativeErrorEvaluator",
    "RelativeErrorResult",
    "dr_loss",
    "dr_pseudo_outcome",
    "r_loss",
    "relative_error_from_nuisances",
    "relative_error_influence",
]

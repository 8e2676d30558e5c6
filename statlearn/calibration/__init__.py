"""Decisions from partially calibrated forecasts: minimax rules and calibration diagnostics.

Implements Kiyani, Hassani, Pappas and Roth (2025), "Robust decision making with
partially calibrated forecasts" (arXiv:2510.23471): the decision rule that
maximises the worst-case expected utility over every conditional mean that
passes the calibration tests the forecaster is known to satisfy, with the
plug-in ("trust the forecast") rule as the baseline. Also inductive Venn-Abers
calibration of a binary classifier (Vovk & Petej, 2014): the multi-probability
pair and the merged probability.
"""

from ._diagnostics import (
    CalibrationErrorResult,
    ECEResult,
    binwise_calibration_error,
    calibration_error,
    decision_calibration_error,
    expected_calibration_error,
    reliability_diagram,
    self_orthogonality_violation,
)
from ._evaluation import RuleEvaluation, evaluate_rules
from ._minimax import MinimaxDecisionRule, SquaredErrorDecisionRule
from ._rules import CalibrationWarning, TrustForecastRule
from ._utility import affine_utility, best_response, value_function
from ._venn_abers import VennAbersCalibrator, venn_abers

__all__ = [
    "CalibrationErrorResult",
    "ECEResult",
    "binwise_calibration_error",
    "calibration_error",
    "decision_calibration_error",
    "expected_calibration_error",
    "reliability_diagram",
    "self_orthogonality_violation",
    "CalibrationWarning",
    "MinimaxDecisionRule",
    "RuleEvaluation",
    "SquaredErrorDecisionRule",
    "TrustForecastRule",
    "VennAbersCalibrator",
    "affine_utility",
    "best_response",
    "evaluate_rules",
    "value_function",
    "venn_abers",
]

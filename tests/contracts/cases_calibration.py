"""Contract cases of statlearn.calibration: one valid call per public function and estimator."""

from __future__ import annotations

import numpy as np

from statlearn import calibration as Cal
from tests.contracts._framework import EstimatorCase, FunctionCase

N = 80
U, C0 = np.array([[0.0], [1.0]]), np.array([0.4, 0.0])


def _forecasts(n=N, seed=0):
    return np.random.default_rng(seed).uniform(0.05, 0.95, n)


def _outcomes(n=N, seed=1):
    return (np.random.default_rng(seed).random(n) < _forecasts(n)).astype(float)


FUNCTIONS = [
    FunctionCase(Cal.binwise_calibration_error, lambda: {"forecasts": _forecasts(),
                                                         "y": _outcomes(), "bins": 4},
                 paired=(("forecasts", "y"),)),
    FunctionCase(Cal.calibration_error, lambda: {"forecasts": _forecasts(), "y": _outcomes()},
                 paired=(("forecasts", "y"),)),
    FunctionCase(Cal.decision_calibration_error,
                 lambda: {"forecasts": _forecasts(), "y": _outcomes(), "utility_matrix": U.copy(),
                          "utility_offset": C0.copy()}, paired=(("forecasts", "y"),)),
    FunctionCase(Cal.expected_calibration_error,
                 lambda: {"forecasts": _forecasts(), "y": _outcomes(), "n_bins": 4, "n_boot": 20,
                          "random_state": 0}, paired=(("forecasts", "y"),)),
    FunctionCase(Cal.reliability_diagram, lambda: {"forecasts": _forecasts(), "y": _outcomes(),
                                                   "n_bins": 4}, paired=(("forecasts", "y"),)),
    FunctionCase(Cal.self_orthogonality_violation, lambda: {"forecasts": _forecasts(),
                                                            "y": _outcomes()},
                 paired=(("forecasts", "y"),)),
    FunctionCase(Cal.affine_utility, lambda: {"actions": np.array([0.8, 1.0, 1.2]),
                                              "cost_scale": 0.5}),
    FunctionCase(Cal.best_response, lambda: {"p": _forecasts(), "utility_matrix": U.copy(),
                                             "utility_offset": C0.copy()}),
    FunctionCase(Cal.value_function, lambda: {"p": _forecasts(), "utility_matrix": U.copy(),
                                              "utility_offset": C0.copy()}),
    FunctionCase(Cal.evaluate_rules,
                 lambda: {"rules": {"plug-in": Cal.TrustForecastRule(U, C0).fit(_forecasts()),
                                    "robust": Cal.MinimaxDecisionRule(U, C0).fit(_forecasts())},
                          "X": _forecasts(), "y": _outcomes()},
                 paired=(("X", "y"),)),
]


def _fit():
    return {"X": _forecasts()}


def _test():
    return {"X": _forecasts(20, 5)}


def _test_xy():
    return {"X": _forecasts(20, 5), "y": _outcomes(20, 6)}


ESTIMATORS = [
    EstimatorCase(lambda: Cal.TrustForecastRule(U.copy(), C0.copy()), _fit,
                  {"predict": _test, "predict_proba": _test, "expected_utility": _test_xy},
                  alternatives={"utility_offset": np.array([0.3, 0.0])}),
    EstimatorCase(lambda: Cal.MinimaxDecisionRule(U.copy(), C0.copy()), _fit,
                  {"predict": _test, "predict_proba": _test, "q_star": _test,
                   "worst_case_value": _test, "expected_utility": _test_xy}),
    EstimatorCase(lambda: Cal.SquaredErrorDecisionRule(U.copy(), C0.copy()), _fit,
                  {"predict": _test, "predict_proba": _test, "q_star": _test,
                   "worst_case_value": _test, "expected_utility": _test_xy}),
]

NOT_APPLICABLE = {}


# ----------------------------------------------------------------------- Venn-Abers
def _va_fit():
    from sklearn.datasets import make_classification

    X, y = make_classification(300, n_features=4, random_state=40)
    return {"X": X, "y": y}


def _va_test():
    # new points: a test score tied with a calibration score sits on a jump of the
    # isotonic fits, where an ulp of BLAS layout would move it off the tie
    return {"X": np.random.default_rng(41).normal(size=(25, 4))}


FUNCTIONS += [
    FunctionCase(Cal.venn_abers, lambda: {"cal_scores": _forecasts(), "cal_labels":
                                          _outcomes().astype(np.int64),
                                          "test_scores": _forecasts(20, 7)},
                 paired=(("cal_scores", "cal_labels"),)),
]
ESTIMATORS += [
    EstimatorCase(lambda: Cal.VennAbersCalibrator(random_state=0), _va_fit,
                  {"predict_proba": _va_test, "predict_p0p1": _va_test, "predict": _va_test}),
]

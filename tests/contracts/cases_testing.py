"""Contract cases of statlearn.testing: one valid call per public function."""

from __future__ import annotations

import numpy as np

from statlearn import testing as T
from tests.contracts._framework import FunctionCase
from tests.testing._planted import (
    CRCOnUniform,
    OracleScoreSelector,
    SplitAbs,
    crc_risk,
    make_unlearner,
    regression_data,
    selection_data,
    sqrt_regret,
    uniform_data,
    unlearning_data,
)


def _interval():
    return SplitAbs(0.1)


def _selector():
    return OracleScoreSelector(0.2)


FUNCTIONS = [
    FunctionCase(T.check_coverage, lambda: {"make_estimator": _interval,
                                            "make_data": regression_data, "alpha": 0.1,
                                            "n_reps": 20, "exact": True, "random_state": 0}),
    FunctionCase(T.check_fdr, lambda: {"make_selector": _selector,
                                       "make_data": selection_data, "alpha": 0.2,
                                       "n_reps": 20, "random_state": 0}),
    FunctionCase(T.check_risk, lambda: {"make_controller": lambda: CRCOnUniform(0.3),
                                        "make_data": uniform_data(9), "alpha": 0.3,
                                        "n_reps": 20, "risk": crc_risk, "random_state": 0}),
    FunctionCase(T.check_unlearning, lambda: {"make_unlearner": make_unlearner,
                                              "make_data": unlearning_data, "n_reps": 3,
                                              "random_state": 0}),
    FunctionCase(T.check_regret_slope, lambda: {"run": sqrt_regret, "horizon": 2000,
                                                "rate": 0.5, "n_reps": 10,
                                                "random_state": 0}),
    FunctionCase(T.mc_size, lambda: {"deviation": 0.05, "rate": 0.9, "false_alarm": 1e-3}),
    FunctionCase(T.binomial_acceptance_region,
                 lambda: {"n_trials": 500, "p": 0.9, "false_alarm": 1e-3},
                 unknown={"alternative": "sideways"}),
    FunctionCase(T.assert_binomial_rate, lambda: {"successes": 452, "n_trials": 500,
                                                  "p": 0.9}),
    FunctionCase(T.assert_normal_close, lambda: {"estimate": 1.01, "expected": 1.0,
                                                 "se": 0.01}),
    FunctionCase(T.assert_mean_close,
                 lambda: {"samples": np.random.default_rng(0).normal(size=200),
                          "expected": 0.0}),
    FunctionCase(T.suite_size, lambda: {"ci": 10, "full": 1000}),
]

_STRATEGY = ("returns a hypothesis search strategy, not a result of array inputs; "
             "tests/testing/test_strategies.py checks what it generates and its bad arguments")

NOT_APPLICABLE = {
    f"statlearn.testing.strategies.{name}": _STRATEGY
    for name in ("calibration_problems", "causal_diagrams", "clusterable_graphs",
                 "glm_problems", "probability_matrices", "score_vectors")
}

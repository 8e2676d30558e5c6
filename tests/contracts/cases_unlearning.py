"""Contract cases of statlearn.unlearning: one valid call per public function and estimator."""

from __future__ import annotations

import numpy as np

from statlearn import unlearning as Un
from tests.contracts._framework import EstimatorCase, FunctionCase


def _glm(n=120, p=5, seed=0):
    X, y, _ = Un.make_glm_data(n, p, random_state=seed)
    return X, y


def _coef(p=5, seed=1):
    return np.random.default_rng(seed).normal(scale=0.3, size=p)


FUNCTIONS = [
    # an infinite mu is a release without privacy: composing it is defined (mu = inf)
    FunctionCase(Un.compose_gdp, lambda: {"mus": np.array([0.6, 0.8])}, allow_inf=("mus",)),
    FunctionCase(Un.draw_noise, lambda: {"noise": "gaussian", "radius": 0.1, "epsilon": 0.5,
                                         "size": 20, "random_state": 0}),
    FunctionCase(Un.gaussian_tradeoff, lambda: {"alpha": np.array([0.05, 0.2]), "mu": 1.0}),
    FunctionCase(Un.gdp_to_dp_delta, lambda: {"mu": 1.0, "eps_prime": 1.0}),
    FunctionCase(Un.ged, lambda: {"coef_ref": _coef(), "coef_unlearned": _coef(seed=2),
                                  "X_test": _glm()[0], "y_test": _glm()[1],
                                  "loss": "logistic"}, paired=(("X_test", "y_test"),)),
    FunctionCase(Un.ued, lambda: {"coef_ref": _coef(), "coef_unlearned": _coef(seed=2),
                                  "X_removed": _glm(10)[0], "y_removed": _glm(10)[1],
                                  "loss": "logistic"}, paired=(("X_removed", "y_removed"),)),
    FunctionCase(Un.guo_noise_std, lambda: {"budget": 0.1, "epsilon": 1.0, "delta": 1e-4}),
    FunctionCase(Un.make_glm_data, lambda: {"n_samples": 50, "n_features": 4,
                                            "random_state": 0}),
    FunctionCase(Un.noise_radius, lambda: {"n_samples": 500, "n_removed": 1, "alpha": 0.5}),
    FunctionCase(Un.sekhari_noise_std, lambda: {"n_samples": 100, "n_removed": 1, "alpha": 1.0,
                                                "lipschitz": 1.0, "hessian_lipschitz": 0.1,
                                                "epsilon": 1.0, "delta": 1e-5}),
]


def _fit():
    X, y = _glm()
    return {"X": X, "y": y}


def _test():
    return {"X": _glm(20, seed=3)[0]}


def _scored():
    X, y = _glm(20, seed=3)
    return {"X": X, "y": y}


ESTIMATORS = [
    EstimatorCase(lambda: Un.NewtonUnlearner(alpha=0.5, epsilon=1.0, random_state=0), _fit,
                  {"predict": _test, "predict_proba": _test, "decision_function": _test,
                   "score": _scored,
                   "retrain_reference": lambda: {"indices": np.array([1, 6])},
                   "unlearn": lambda: {"indices": np.array([0, 5])}, "coef_": dict},
                  positions=("indices",)),
]

NOT_APPLICABLE = {}

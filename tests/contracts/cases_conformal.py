"""Contract cases of statlearn.conformal: one valid call per public function and estimator."""

from __future__ import annotations

import numpy as np

from statlearn import conformal as C
from tests.contracts._framework import EstimatorCase, FunctionCase

N, K = 40, 4


def _proba(n=N, k=K, seed=0):
    return np.random.default_rng(seed).dirichlet(np.ones(k), n)


def _labels(n=N, k=K, seed=1):
    return np.random.default_rng(seed).integers(0, k, n)


def _sets(n=N, k=K, seed=2):
    s = np.random.default_rng(seed).random((n, k)) < 0.4
    s[:, 0] |= ~s.any(axis=1)
    return s


def _reg(n=N, seed=3):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    return X, X @ np.array([1.0, -0.5, 0.2]) + 0.3 * rng.normal(size=n)


def _intervals(n=N, seed=4):
    rng = np.random.default_rng(seed)
    lo = rng.normal(size=n)
    return np.column_stack([lo, lo + rng.uniform(0.5, 2.0, n)])


def _scores(n=N, seed=5):
    return np.random.default_rng(seed).random(n)


FUNCTIONS = [
    FunctionCase(C.lac_scores, lambda: {"proba": _proba(), "labels": _labels()},
                 paired=(("proba", "labels"),)),
    FunctionCase(C.aps_scores, lambda: {"proba": _proba(), "labels": _labels(),
                                        "random_state": 0}, paired=(("proba", "labels"),)),
    FunctionCase(C.raps_scores, lambda: {"proba": _proba(), "labels": _labels(), "lam_reg": 0.1,
                                         "k_reg": 2, "random_state": 0},
                 paired=(("proba", "labels"),)),
    FunctionCase(C.topk_scores, lambda: {"proba": _proba(), "labels": _labels()},
                 paired=(("proba", "labels"),)),
    FunctionCase(C.socop_scores, lambda: {"proba": _proba(), "lam": 0.5, "labels": _labels()},
                 paired=(("proba", "labels"),)),
    FunctionCase(C.socop_sets, lambda: {"proba": _proba(), "lam": 0.5, "threshold": 0.3}),
    FunctionCase(C.label_ranks, lambda: {"proba": _proba(), "labels": _labels()},
                 paired=(("proba", "labels"),)),
    FunctionCase(C.conformal_quantile, lambda: {"scores": _scores(), "alpha": 0.1},
                 allow_inf=("scores",)),
    FunctionCase(C.conformal_rank, lambda: {"n": 40, "alpha": 0.1}),
    FunctionCase(C.conformal_pvalues, lambda: {"test_scores": _scores(10, 6),
                                               "cal_scores": _scores()},
                 allow_inf=("test_scores", "cal_scores")),
    FunctionCase(C.smoothed_pvalues, lambda: {"test_scores": _scores(10, 6),
                                              "cal_scores": _scores(),
                                              "u": np.random.default_rng(7).random(10)},
                 allow_inf=("test_scores", "cal_scores"), paired=(("test_scores", "u"),)),
    FunctionCase(C.thresholds_from_scores, lambda: {"scores": _scores(), "labels": _labels(),
                                                    "alpha": 0.2, "n_classes": K},
                 allow_inf=("scores",), paired=(("scores", "labels"),)),
    FunctionCase(C.bh_select, lambda: {"pvalues": _scores(20, 8) ** 2, "q": 0.2}),
    FunctionCase(C.cfbh, lambda: {"mu_cal": _reg(seed=9)[1], "y_cal": _reg(seed=10)[1],
                                  "mu_test": _reg(20, seed=11)[1], "q": 0.3,
                                  "random_state": 0},
                 allow_inf=("y_cal",), paired=(("mu_cal", "y_cal"),)),
    FunctionCase(C.mccs, lambda: {"mu_cal": _reg(seed=9)[1], "y_cal": _reg(seed=10)[1],
                                  "mu_test": _reg(20, seed=11)[1],
                                  "conditions": [(-np.inf, -0.5), (0.5, np.inf)], "q": 0.3,
                                  "random_state": 0},
                 allow_inf=("y_cal",), paired=(("mu_cal", "y_cal"),)),
    FunctionCase(C.region_scores, lambda: {"mu": _reg(seed=9)[1], "y": _reg(seed=10)[1],
                                           "lower": -0.5, "upper": 0.5},
                 allow_inf=("y",), paired=(("mu", "y"),)),
    FunctionCase(C.coverage, lambda: {"sets": _sets(), "y": _labels()}, paired=(("sets", "y"),)),
    FunctionCase(C.class_conditional_coverage, lambda: {"sets": _sets(), "y": _labels()},
                 paired=(("sets", "y"),)),
    FunctionCase(C.mean_set_size, lambda: {"sets": _sets()}),
    FunctionCase(C.singleton_rate, lambda: {"sets": _sets()}),
    FunctionCase(C.empty_rate, lambda: {"sets": _sets()}),
    FunctionCase(C.non_singleton_rate, lambda: {"sets": _sets(), "k0": 2}),
    FunctionCase(C.evaluate_sets, lambda: {"sets": _sets(), "y": _labels(), "alpha": 0.1},
                 paired=(("sets", "y"),)),
    FunctionCase(C.size_stratified_coverage_violation,
                 lambda: {"sets": _sets(), "y": _labels(), "alpha": 0.1},
                 paired=(("sets", "y"),)),
    FunctionCase(C.coverage_by_bins, lambda: {"covered": _scores() < 0.8, "values": _scores(
        N, 12), "n_bins": 4}, paired=(("covered", "values"),)),
    FunctionCase(C.interval_coverage, lambda: {"intervals": _intervals(), "y": _reg()[1]},
                 allow_inf=("intervals",), paired=(("intervals", "y"),)),
    FunctionCase(C.mean_width, lambda: {"intervals": _intervals()}, allow_inf=("intervals",)),
    FunctionCase(C.evaluate_intervals, lambda: {"intervals": _intervals(), "y": _reg()[1],
                                                "alpha": 0.1, "n_bins": 4},
                 allow_inf=("intervals",), paired=(("intervals", "y"),)),
    FunctionCase(C.cross_conformal_bounds,
                 lambda: {"fold_predictions": np.random.default_rng(13).normal(size=(4, 6)),
                          "fold_of": np.repeat(np.arange(4), 10),
                          "residuals": _scores(), "alpha": 0.2},
                 paired=(("residuals", "fold_of"),)),
    FunctionCase(C.cv_plus_counts,
                 lambda: {"fold_scores": np.random.default_rng(16).random((4, 6, K)),
                          "fold_of": np.repeat(np.arange(4), 10), "calib_scores": _scores()},
                 allow_inf=("fold_scores", "calib_scores"),
                 paired=(("calib_scores", "fold_of"),)),
    FunctionCase(C.kneedle, lambda: {"x": np.array([1.0, 1.2, 1.5, 2.0, 3.0, 5.0]),
                                     "y": np.array([0.6, 0.4, 0.3, 0.25, 0.22, 0.2])},
                 paired=(("x", "y"),)),
    FunctionCase(C.scaled_lam_grid, lambda: {"proba": _proba(), "labels": _labels(),
                                             "alpha": 0.2}, paired=(("proba", "labels"),)),
    FunctionCase(C.select_lambda, lambda: {"proba": _proba(200, seed=14),
                                           "labels": _labels(200, seed=15), "alpha": 0.2,
                                           "warn": False}, paired=(("proba", "labels"),)),
    FunctionCase(C.conformal_scorer, lambda: {"metric": "mean_size"}),
    FunctionCase(C.aci_update, lambda: {"alpha_t": np.array([0.1, 0.05]),
                                        "miscovered": np.array([True, False]),
                                        "alpha": 0.1, "gamma": 0.01}),
    FunctionCase(C.aci_miscoverage_bound, lambda: {"alpha": 0.1, "gamma": 0.01,
                                                   "n_steps": 100}),
    FunctionCase(C.adaptive_conformal_inference,
                 lambda: {"scores": _scores(), "calibration_scores": _scores(20, 16),
                          "alpha": 0.1, "gamma": 0.01},
                 allow_inf=("scores", "calibration_scores")),
    FunctionCase(C.aggregated_adaptive_conformal_inference,
                 lambda: {"residuals": np.random.default_rng(17).normal(size=40),
                          "calibration_residuals": np.random.default_rng(18).normal(size=20),
                          "alpha": 0.1, "gammas": np.array([0.01, 0.05])}),
    FunctionCase(C.block_bootstrap_indices, lambda: {"n_samples": 20, "n_resamplings": 3,
                                                     "block_length": 4, "random_state": 0}),
]


def _clf_data(n=300, seed=20):
    from statlearn.datasets import make_softmax_classification

    return make_softmax_classification(n, n_classes=4, n_features=3, random_state=seed)


def _clf_fit():
    X, y = _clf_data()
    return {"X": X, "y": y}


def _clf_test():
    return {"X": _clf_data(30, 21)[0]}


def _reg_fit():
    X, y = _reg(200, 22)
    return {"X": X, "y": y}


def _reg_test():
    return {"X": _reg(20, 23)[0]}


def _clf_scored():
    X, y = _clf_data(30, 21)
    return {"X": X, "y": y}


def _reg_scored():
    X, y = _reg(20, 23)
    return {"X": X, "y": y}


ESTIMATORS = [
    EstimatorCase(lambda: C.SplitConformalClassifier(conformity_score="lac", random_state=0),
                  _clf_fit, {"predict_set": _clf_test, "predict": _clf_test,
                             "predict_proba": _clf_test, "score": _clf_scored,
                             "evaluate": _clf_scored, "label_scores": _clf_test},
                  name="SplitConformalClassifier-lac"),
    EstimatorCase(lambda: C.SplitConformalClassifier(lam=0.5, random_state=0),
                  _clf_fit, {"predict_set": _clf_test, "label_scores": _clf_test},
                  name="SplitConformalClassifier-socop"),
    EstimatorCase(lambda: C.CrossConformalClassifier(cv=3, random_state=0),
                  _clf_fit, {"predict_set": _clf_test, "predict": _clf_test,
                             "predict_proba": _clf_test, "fold_label_scores": _clf_test,
                             "score": _clf_scored, "evaluate": _clf_scored},
                  name="CrossConformalClassifier-lac"),
    EstimatorCase(lambda: C.CrossConformalClassifier(conformity_score="aps", cv=3,
                                                     aggregation="mean", random_state=0),
                  _clf_fit, {"predict_set": _clf_test}, name="CrossConformalClassifier-aps"),
    EstimatorCase(lambda: C.JackknifeAfterBootstrapRegressor(random_state=0), _reg_fit,
                  {"predict_interval": _reg_test, "predict": _reg_test,
                   "oob_predictions": _reg_test, "score": _reg_scored,
                   "evaluate": _reg_scored}),
    EstimatorCase(lambda: C.SplitConformalRegressor(random_state=0), _reg_fit,
                  {"predict_interval": _reg_test, "predict": _reg_test, "score": _reg_scored,
                   "evaluate": _reg_scored}),
    EstimatorCase(lambda: C.CrossConformalRegressor(cv=3, random_state=0), _reg_fit,
                  {"predict_interval": _reg_test, "predict": _reg_test,
                   "fold_predictions": _reg_test, "score": _reg_scored,
                   "evaluate": _reg_scored}),
    EstimatorCase(lambda: C.TimeSeriesRegressor(random_state=0), _reg_fit,
                  {"predict_interval": _reg_test, "predict": _reg_test, "score": _reg_scored,
                   "predict_interval_online": _reg_scored, "update": _reg_scored},
                  changes_state=("predict_interval_online",)),
    EstimatorCase(lambda: C.TimeSeriesRegressor(method="aci", random_state=0), _reg_fit,
                  {"predict_interval": _reg_test, "predict": _reg_test},
                  name="TimeSeriesRegressor-aci"),
    EstimatorCase(lambda: C.TimeSeriesRegressor(method="agaci", gammas=[0.01, 0.05],
                                                random_state=0), _reg_fit,
                  {"predict_interval": _reg_test, "predict": _reg_test},
                  name="TimeSeriesRegressor-agaci"),
    EstimatorCase(lambda: C.ConformalSelector(q=0.3, random_state=0), _reg_fit,
                  {"select": _reg_test, "pvalues": _reg_test, "score": _reg_scored}),
    EstimatorCase(lambda: C.MultiConditionSelector(conditions=[(-np.inf, -0.5), (0.5, np.inf)],
                                                   q=0.3, random_state=0),
                  _reg_fit, {"select": _reg_test, "pvalues": _reg_test, "score": _reg_scored}),
]

NOT_APPLICABLE = {}


# ----------------------------------------------------------------------- risk control
def _ml(n=N, k=K, seed=30):
    rng = np.random.default_rng(seed)
    Y = (rng.random((n, k)) < 0.4).astype(np.int64)
    P = np.clip(0.5 * Y + 0.5 * rng.random((n, k)), 0.0, 1.0)
    return Y, P


def _crc_losses(n=N, seed=31):
    u = np.random.default_rng(seed).random(n)
    return np.maximum(u[:, None] - np.linspace(0, 1, 11)[None, :], 0.0)


def _ltt_losses(n=200, seed=32):
    rng = np.random.default_rng(seed)
    return (rng.random((n, 8)) < np.linspace(0.02, 0.4, 8)).astype(float)


RISK_FUNCTIONS = [
    FunctionCase(C.conformal_risk_control,
                 lambda: {"losses": _crc_losses(), "alpha": 0.2,
                          "lambdas": np.linspace(0, 1, 11)}, allow_inf=("lambdas",)),
    FunctionCase(C.learn_then_test, lambda: {"losses": _ltt_losses(), "alpha": 0.2,
                                             "delta": 0.1},
                 allow_nan=("losses",)),
    FunctionCase(C.hoeffding_pvalue, lambda: {"risk": np.linspace(0, 0.5, 6), "n": 50,
                                              "alpha": 0.2}),
    FunctionCase(C.bentkus_pvalue, lambda: {"risk": np.linspace(0, 0.5, 6), "n": 50,
                                            "alpha": 0.2}),
    FunctionCase(C.hoeffding_bentkus_pvalue, lambda: {"risk": np.linspace(0, 0.5, 6),
                                                      "n": np.arange(10, 70, 10),
                                                      "alpha": 0.2},
                 paired=(("risk", "n"),)),
    FunctionCase(C.fwer_control, lambda: {"pvalues": _scores(12, 33) ** 3, "delta": 0.1,
                                          "method": "holm"},
                 unknown={"method": "hochberg"}),
    FunctionCase(C.miscoverage_losses, lambda: {"scores": _scores(), "lambdas":
                                                np.linspace(0, 1, 5)},
                 allow_inf=("scores", "lambdas")),
    FunctionCase(C.multilabel_fnr_losses, lambda: {"Y": _ml()[0], "proba": _ml()[1],
                                                   "thresholds": np.linspace(0.9, 0.1, 5)},
                 paired=(("Y", "proba"),), allow_inf=("thresholds",)),
    FunctionCase(C.multilabel_precision_losses,
                 lambda: {"Y": _ml()[0], "proba": _ml()[1],
                          "thresholds": np.linspace(0.9, 0.1, 5)}, paired=(("Y", "proba"),),
                 allow_inf=("thresholds",)),
    FunctionCase(C.binary_losses, lambda: {"y": _ml()[0][:, 0], "proba": _ml()[1][:, 0],
                                           "thresholds": np.linspace(0.9, 0.1, 5)},
                 paired=(("y", "proba"),), unknown={"risk": "f1"},
                 allow_inf=("thresholds",)),
]
FUNCTIONS += RISK_FUNCTIONS


def _ml_fit():
    from sklearn.datasets import make_multilabel_classification

    X, Y = make_multilabel_classification(n_samples=300, n_features=5, n_classes=3,
                                          random_state=34)
    return {"X": X.astype(float), "y": Y}


def _ml_test():
    return {"X": _ml_fit()["X"][:20]}


def _bin_fit():
    from sklearn.datasets import make_classification

    X, y = make_classification(400, n_features=4, random_state=35)
    return {"X": X, "y": y}


def _bin_test():
    return {"X": _bin_fit()["X"][:25]}


ESTIMATORS += [
    EstimatorCase(lambda: C.MultiLabelRiskController(alpha=0.2, random_state=0), _ml_fit,
                  {"predict": _ml_test, "predict_proba": _ml_test},
                  name="MultiLabelRiskController-recall"),
    EstimatorCase(lambda: C.BinaryRiskController(alpha=0.2, delta=0.2, random_state=0),
                  _bin_fit, {"predict": _bin_test, "predict_proba": _bin_test}),
]

"""The ``calibration-decisions`` study: registration, one replication, the Table 1 pattern."""

from __future__ import annotations

import numpy as np
import pytest

from statlearn.calibration import (
    SquaredErrorDecisionRule,
    TrustForecastRule,
    affine_utility,
    evaluate_rules,
)
from statlearn.studies import StudyContext, get_study
from statlearn.studies.calibration_decisions import decision_replication, load_dataset


def test_study_is_registered():
    assert "2510.23471" in get_study("calibration-decisions").paper


def test_datasets_ship_and_are_rescaled():
    X, y = load_dataset("diabetes")
    assert X.shape == (442, 10) and y.min() == 0 and y.max() == 1
    Xs, ys = load_dataset("synthetic", 500, np.random.default_rng(0))
    assert Xs.shape == (500, 5) and ys.min() == 0 and ys.max() == 1
    with pytest.raises(ValueError, match="name must be one of"):
        load_dataset("bike")


def test_replication_outputs_are_reproducible():
    setting = {"dataset": "diabetes", "n": 0, "hidden": 8, "max_iter": 100}
    out = decision_replication(setting, np.random.default_rng(3))
    for col in ("i.i.d.", "robust-dual worst case", "plug-in-tailored worst case"):
        for rule in ("plug-in", "robust", "safe constant", "histogram recalibrated"):
            assert np.isfinite(out[f"{col}|{rule}"])
    assert out == decision_replication(setting, np.random.default_rng(3))


def test_table1_pattern_in_sample_is_exact():
    """Least squares with a linear head is self-orthogonal on its training data; with the
    rule fitted on the same forecasts that define the ambiguity set, robust >= plug-in
    under both adversaries (saddle point), and plug-in >= robust when q = v (the pattern of
    Kiyani et al.'s Table 1)."""
    rng = np.random.default_rng(11)
    X = rng.uniform(-1, 1, size=(400, 3))
    y = np.clip(0.5 + 0.3 * np.sin(3 * X[:, 0]) + 0.1 * X[:, 1]
                + 0.1 * rng.standard_normal(400), 0, 1)
    Z = np.column_stack([X, np.sin(3 * X[:, 0])])
    coef, *_ = np.linalg.lstsq(Z, y, rcond=None)         # no intercept: h(v) = v exactly
    v = np.clip(Z @ coef, 0, 1)
    U, c = affine_utility([0.6, 0.75, 0.9], cost_scale=float(y.mean()))
    plug = TrustForecastRule(U, c).fit(v)
    rob = SquaredErrorDecisionRule(U, c).fit(v)
    df = evaluate_rules({"plug-in": plug, "robust": rob}, v, y).to_frame()
    assert df.loc["robust", "robust dual"] >= df.loc["plug-in", "robust dual"] - 1e-9
    assert (df.loc["robust", "worst case for plug-in"]
            >= df.loc["plug-in", "worst case for plug-in"] - 1e-9)
    assert df.loc["robust", "robust dual"] == pytest.approx(rob.robust_value_, abs=1e-7)
    assert rob.expected_utility(v, v) <= plug.expected_utility(v, v) + 1e-12


@pytest.mark.slow
def test_quick_study_shows_the_pattern():
    rep = get_study("calibration-decisions").run(StudyContext(quick=True, n_jobs=1))
    t = rep.tables["table1"]
    diff = t[t["rule"] == "robust - plug-in"].set_index("dataset")
    assert (diff["robust-dual worst case"] > 0).all()
    assert (diff["plug-in-tailored worst case"] > 0).all()
    assert "Bike Sharing (paper)" in set(t["dataset"])

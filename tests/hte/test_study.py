"""The ``hte-evaluation`` study: replications and the report at tiny size."""

from __future__ import annotations

import numpy as np
import pytest

from statlearn.studies import StudyContext, StudyReport, get_study
from statlearn.studies import hte_evaluation as mod


class _Tiny(StudyContext):
    def size(self, quick, full):
        return 2


def test_inference_replication_outputs():
    out = mod.hte_inference_replication({"config": "plugin, e ok / mu ok", "n": 500},
                                        np.random.default_rng(0))
    for pair in ("P1", "P0"):
        assert out[f"{pair}|covered"] in (0.0, 1.0)
        assert out[f"{pair}|decision"] in (-1.0, 0.0, 1.0)
        assert out[f"{pair}|se"] > 0
    assert abs(out["P1|delta"] - 0.75) < 1.0


def test_inference_replication_rejects_unknown_config():
    with pytest.raises(ValueError, match="setting\\['config'\\] must be one of"):
        mod.hte_inference_replication({"config": "magic"}, np.random.default_rng(0))


def test_study_report(monkeypatch):
    monkeypatch.setattr(mod, "QUICK_CONFIGS", ("plugin, e ok / mu wrong",
                                               "balanced, linear, signed heads",
                                               "balanced, linear, augmented heads"))
    rep = get_study("hte-evaluation").run(_Tiny(quick=True))
    assert isinstance(rep, StudyReport)
    assert len(rep.tables["inference"]) == 3
    learner = rep.tables["learner"]
    assert set(learner["method"]) == {"T-learner", "X-learner", "DR-learner",
                                      "T-learner (all train)", "DR-learner (all train)",
                                      "Ours (q-aggregation)", "Ours (pairwise, linear)"}
    assert (learner["sqrt(PEHE)"] >= 0).all() and (learner["|ATE error|"] >= 0).all()
    assert "IHDP" in rep.text and "coverage_selection" in rep.figures
    assert set(rep.tables["best_set"]["design"]) == {"all equal", "two best"}
    assert rep.tables["best_set"]["coverage"].between(0, 1).all()
    agg = rep.tables["aggregation"]
    assert set(agg["candidates"]) == {"good+bad", "near-equal", "complementary"}
    assert set(agg["method"]) == {"Ours (q-aggregation)", "Ours (pairwise)"}
    assert "best-candidate set" in rep.text and "Q-aggregation" in rep.verdict


def test_aggregation_replication_and_table():
    out = mod.hte_aggregation_replication({"data": "ihdp-like", "candidates": "good+bad",
                                           "variants": "quick"}, np.random.default_rng(0))
    assert 0 < out["best candidate|mse"] < out["worst candidate|mse"]
    assert out["Ours (pairwise)|warned"] in (0.0, 1.0)
    import pandas as pd

    tab = pd.DataFrame([{"data": "ihdp-like", "candidates": "good+bad", **out}])
    ratio = mod.aggregation_table(tab).set_index("method").loc["Ours (q-aggregation)"]
    assert ratio["mean ratio"] == pytest.approx(out["Ours (q-aggregation)|mse"]
                                                / out["best candidate|mse"])
    with pytest.raises(ValueError, match="setting\\['data'\\] must be one of"):
        mod.hte_aggregation_replication({"data": "magic"}, np.random.default_rng(0))
    with pytest.raises(ValueError, match="setting\\['design'\\]"):
        mod.hte_best_set_replication({"design": "magic"}, np.random.default_rng(0))

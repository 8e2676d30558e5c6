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
    assert set(learner["method"]) == {"T-learner", "X-learner", "DR-learner", "Ours (linear)"}
    assert (learner["sqrt(PEHE)"] >= 0).all() and (learner["|ATE error|"] >= 0).all()
    assert "IHDP" in rep.text and "coverage_selection" in rep.figures

"""The ``conformal-selection`` study: replications and the report at tiny size."""

from __future__ import annotations

import numpy as np
import pytest

from statlearn.studies import StudyContext, StudyReport, get_study
from statlearn.studies.conformal_selection import METHODS, selection_replication


class _Tiny(StudyContext):
    def size(self, quick, full):
        return 2


def test_main_replication_outputs():
    out = selection_replication({"part": "main", "task": "disj(y<-1|y>1)"},
                                np.random.default_rng(0))
    for method in METHODS:
        assert 0 <= out[f"{method}|fdr"] <= 1
        assert 0 <= out[f"{method}|power"] <= 1
    # on this target MCCS selects more than the Bonferroni union
    assert out["MCCS|n_selected"] >= out["Int-B/Uni-B|n_selected"]


def test_k_replication_counts_against_truth():
    out = selection_replication({"part": "K", "K": 10}, np.random.default_rng(1))
    assert out["MCCS|n_selected"] > 50 and out["MCCS|power"] > 0.5


@pytest.mark.parametrize("setting, match", [
    ({"part": "other"}, "setting\\['part'\\] must be one of"),
    ({"part": "main", "task": "nope"}, "setting\\['task'\\] must be one of"),
])
def test_replication_rejects_bad_settings(setting, match):
    with pytest.raises(ValueError, match=match):
        selection_replication(setting, np.random.default_rng(0))


def test_study_report():
    rep = get_study("conformal-selection").run(_Tiny(quick=True))
    assert isinstance(rep, StudyReport)
    t = rep.tables["methods_q0.3"]
    assert len(t) == 3 * len(METHODS) and set(t["method"]) == set(METHODS)
    assert set(rep.tables["k_scaling"]["K"]) == {10, 20, 40}
    assert len(rep.tables["fdr_vs_q"]) == 4 * 6
    assert "0.9756" in rep.text and "Reading" in rep.text
    assert "fdr_power" in rep.figures

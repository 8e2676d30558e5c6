"""The ``conformal-risk-control`` study: replications and the report at small size."""

from __future__ import annotations

import numpy as np
import pytest

from statlearn.studies import StudyContext, StudyReport, get_study
from statlearn.studies.conformal_risk_control import TASKS, risk_control_replication


@pytest.mark.parametrize("task", list(TASKS))
def test_one_replication_per_task(task):
    alpha = TASKS[task][3][-1]
    out = risk_control_replication({"task": task, "alpha": alpha}, np.random.default_rng(0))
    assert set(out) == {"risk", "exceeds", "abstained", "threshold", "size"}
    if out["abstained"]:
        assert np.isnan(out["risk"]) and out["exceeds"] == 0.0
    else:
        assert 0.0 <= out["risk"] <= 1.0
        assert out["exceeds"] == float(out["risk"] > alpha)
        assert np.isfinite(out["threshold"]) and out["size"] >= 0


def test_the_same_seed_gives_the_same_replication():
    a = risk_control_replication({"task": "multilabel FNR", "alpha": 0.1},
                                 np.random.default_rng(3))
    b = risk_control_replication({"task": "multilabel FNR", "alpha": 0.1},
                                 np.random.default_rng(3))
    assert a == b


def test_unknown_task_is_refused_naming_it():
    from tests.helpers import raises

    raises(lambda: risk_control_replication({"task": "coverage", "alpha": 0.1},
                                            np.random.default_rng(0)),
           ValueError, names="setting['task']", shows="'coverage'")


class _Small(StudyContext):
    def size(self, quick, full):
        return 8


def test_study_report():
    rep = get_study("conformal-risk-control").run(_Small(quick=True, progress=False))
    assert isinstance(rep, StudyReport)
    table = rep.tables["risk"]
    assert len(table) == sum(len(levels) for *_, levels in TASKS.values())
    assert set(table["procedure"]) == {"CRC", "LTT"}
    # CRC's test FNR is close to its level on 8 splits of 2,000 test units
    crc = table[table["procedure"] == "CRC"]
    assert np.all(np.abs(crc["risk"] - crc["alpha"]) < 0.03)
    assert "risk_vs_target" in rep.figures
    assert rep.verdict.startswith(("reproduced", "not reproduced"))

"""The ``cross-conformal`` study: one replication per method, and the report at tiny size."""

from __future__ import annotations

import numpy as np
import pytest

from statlearn.studies import StudyContext, StudyReport, get_study
from statlearn.studies.cross_conformal import METHODS, cross_conformal_replication


class _Tiny(StudyContext):
    def size(self, quick, full):
        return 2


@pytest.mark.parametrize("method", METHODS)
def test_replication_outputs(method):
    out = cross_conformal_replication({"method": method, "score": "aps", "n": 60,
                                       "alpha": 0.1}, np.random.default_rng(0))
    assert 0.6 < out["coverage"] <= 1.0
    assert 1.0 <= out["mean_size"] <= 5.0
    assert 0.0 <= out["non_singleton"] <= 1.0


def test_replication_rejects_unknown_method():
    with pytest.raises(ValueError, match="setting\\['method'\\] must be one of"):
        cross_conformal_replication({"method": "jackknife", "score": "lac", "n": 60,
                                     "alpha": 0.1}, np.random.default_rng(0))


def test_study_report():
    rep = get_study("cross-conformal").run(_Tiny(quick=True))
    assert isinstance(rep, StudyReport)
    table = rep.tables["methods"]
    assert len(table) == len(METHODS) * 3 * 3
    assert set(table["method"]) == set(METHODS)
    assert rep.verdict.split(":")[0] in ("reproduced", "partly", "not reproduced")
    assert "1 - 2 alpha" in rep.text and "coverage_size" in rep.figures

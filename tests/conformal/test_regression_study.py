"""The ``conformal-regression`` study: one replication per data set and the report."""

from __future__ import annotations

import numpy as np
import pytest

from statlearn.studies import StudyContext, StudyReport, get_study
from statlearn.studies.conformal_regression import conformal_regression_replication


class _Tiny(StudyContext):
    def size(self, quick, full):
        return 1


def test_replication_outputs_and_mapie_agreement():
    out = conformal_regression_replication({"data": "diabetes"}, np.random.default_rng(0))
    for method in ("split", "CQR", "jackknife+", "CV+", "J+aB"):
        assert 0.5 < out[f"{method}|coverage"] <= 1
        assert out[f"{method}|width"] > 0
        assert out[f"{method}|worst_bin"] <= out[f"{method}|coverage"] + 1e-12
    pytest.importorskip("mapie")
    for method in ("split", "CQR", "CV+", "J+aB"):
        assert out[f"{method}|mapie_max_diff"] < 1e-9
        assert out[f"{method}|mapie_coverage"] == out[f"{method}|coverage"]


def test_replication_rejects_unknown_data():
    with pytest.raises(ValueError, match="setting\\['data'\\] must be one of"):
        conformal_regression_replication({"data": "housing"}, np.random.default_rng(0))


def test_study_report():
    rep = get_study("conformal-regression").run(_Tiny(quick=True))
    assert isinstance(rep, StudyReport)
    table = rep.tables["methods"]
    assert len(table) == 9  # 5 methods on diabetes, 4 on hetero
    assert "Romano" in rep.text and "hetero, CQR" in rep.text
    assert "coverage_width" in rep.figures

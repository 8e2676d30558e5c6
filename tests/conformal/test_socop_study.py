"""The ``socop`` study: one replication per data set, and the report at tiny size."""

from __future__ import annotations

import numpy as np
import pytest

from statlearn.studies import StudyContext, StudyReport, get_study
from statlearn.studies import socop as socop_module
from statlearn.studies.socop import METHODS, socop_replication


class _Tiny(StudyContext):
    def size(self, quick, full):
        return 1


@pytest.mark.parametrize("data", ["digits", "softmax-10"])
def test_replication_outputs(data):
    out = socop_replication({"data": data}, np.random.default_rng(0))
    for level in (0.95, 0.9):
        for method in METHODS:
            cov = out[f"{method}|{level}|coverage"]
            assert 0.8 < cov <= 1.0
            assert 0 <= out[f"{method}|{level}|nonsingleton"] <= 1
        assert out[f"SOCOP|{level}|lam"] >= 0
    # SOCOP's curve: lam = 0 has no more non-singletons than the largest lam
    assert out["curve|0.0|nonsingleton"] <= out["curve|5.0|nonsingleton"]
    assert out["curve|5.0|size"] <= out["curve|0.0|size"]


def test_replication_rejects_unknown_data():
    with pytest.raises(ValueError, match="setting\\['data'\\] must be one of"):
        socop_replication({"data": "imagenet"}, np.random.default_rng(0))


def test_study_report(monkeypatch):
    monkeypatch.setattr(socop_module, "DATASETS", ("digits", "softmax-10"))
    rep = get_study("socop").run(_Tiny(quick=True))
    assert isinstance(rep, StudyReport)
    table = rep.tables["methods"]
    assert len(table) == 2 * 2 * len(METHODS)
    assert set(table["method"]) == set(METHODS)
    assert "ResNet152-v2" in rep.text and "softmax-10" in rep.text
    assert set(rep.tables["lambda_curve"]["data"]) == {"digits", "softmax-10"}
    assert "size_vs_nonsingleton" in rep.figures

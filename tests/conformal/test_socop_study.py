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


def test_the_curve_calibrates_on_the_points_the_tuned_runs_calibrate_on(monkeypatch):
    # the fixed-lam curve once passed tune_fraction, which a fixed lam never reads, so
    # it calibrated on every point instead of the tuned runs' calibration share
    from statlearn.conformal import SplitConformalClassifier

    seen = []
    real_fit = SplitConformalClassifier.fit

    def fit(self, X, y):
        real_fit(self, X, y)
        seen.append((self.lam, self.n_calib_, self.calib_labels_.copy()))
        return self

    monkeypatch.setattr(SplitConformalClassifier, "fit", fit)
    socop_replication({"data": "digits"}, np.random.default_rng(0))
    tuned = [(n, labels) for lam, n, labels in seen if lam == "auto"]
    curve = [(n, labels) for lam, n, labels in seen if lam != "auto"]
    assert tuned and len(curve) == len(socop_module.DEFAULT_LAM_GRID)
    n_tuned, labels_tuned = tuned[0]
    assert n_tuned == 900 - 300
    for n, labels in curve:
        assert n == n_tuned
        np.testing.assert_array_equal(labels, labels_tuned)


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

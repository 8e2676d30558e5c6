"""The ``conformal-timeseries`` study on the statsmodels CO2 series: data, replication, report."""

from __future__ import annotations

import numpy as np

from statlearn.studies import StudyContext, StudyReport, get_study
from statlearn.studies.conformal_timeseries import (
    HORIZON,
    co2_forecasting_data,
    conformal_timeseries_replication,
)


class _Tiny(StudyContext):
    def size(self, quick, full):
        return 1


def test_data_is_interpolated_and_lagged():
    from statsmodels.datasets import co2

    raw = co2.load_pandas().data["co2"]
    X, y, dates, n_missing = co2_forecasting_data()
    assert n_missing == int(raw.isna().sum()) > 0
    assert np.isfinite(X).all() and np.isfinite(y).all()
    filled = raw.interpolate(method="time").to_numpy()
    # the first feature is the value HORIZON weeks before the response
    np.testing.assert_allclose(X[:, 0], filled[HORIZON + 52 - HORIZON:-HORIZON], rtol=1e-12)
    np.testing.assert_allclose(y, filled[HORIZON + 52:], rtol=1e-12)
    assert dates.shape == y.shape


def test_replication_split_loses_coverage_and_aci_holds_it():
    out = conformal_timeseries_replication({}, np.random.default_rng(0))
    T = co2_forecasting_data()[1].size - 800
    bound = (0.9 + 0.01) / (0.01 * T)     # ACI's deterministic long-run bound
    assert abs(out["ACI|coverage"] - 0.9) <= bound
    assert out["split|coverage"] < 0.8    # drift: calibrated once, it under-covers
    assert out["split|coverage_last_half"] < out["split|coverage"]
    assert 0.8 < out["AgACI|coverage"] <= 1.0
    for m in ("split", "EnbPI", "ACI", "AgACI"):
        assert out[f"{m}|width"] > 0
    assert out["split|infinite"] == 0 and out["EnbPI|infinite"] == 0


def test_study_report():
    rep = get_study("conformal-timeseries").run(_Tiny(quick=True))
    assert isinstance(rep, StudyReport)
    assert list(rep.tables["methods"]["method"]) == ["split", "EnbPI", "ACI", "AgACI"]
    assert "interpolation" in rep.text and "Gibbs" in rep.text
    assert "bands_coverage" in rep.figures

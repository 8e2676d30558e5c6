"""The split conformal quantile and the coverage study built on it."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from statlearn.conformal import conformal_quantile, conformal_rank
from statlearn.simulation import run_study
from statlearn.studies import StudyContext, get_study
from statlearn.studies.conformal_coverage import coverage_replication
from statlearn.testing import assert_binomial_rate, assert_normal_close, suite_size


@given(n=st.integers(1, 500), alpha=st.floats(1e-4, 1 - 1e-4))
def test_rank_is_smallest_integer_at_level(n, alpha):
    k = conformal_rank(n, alpha)
    # k/(n+1) >= 1 - alpha and (k-1)/(n+1) < 1 - alpha, up to rounding of decimals
    assert k / (n + 1) >= 1 - alpha - 1e-9
    assert (k - 1) / (n + 1) < 1 - alpha


@pytest.mark.parametrize("n,alpha,k", [(9, 0.3, 7), (19, 0.05, 19), (99, 0.1, 90),
                                       (4, 0.2, 4), (10, 0.01, 11), (1, 0.5, 1)])
def test_rank_decimal_levels(n, alpha, k):
    assert conformal_rank(n, alpha) == k


@given(
    scores=arrays(np.float64, st.integers(2, 60), unique=True,
                  elements=st.floats(-1e6, 1e6, allow_nan=False)),
    alpha=st.floats(0.01, 0.99),
)
def test_leave_one_out_covers_exactly_k(scores, alpha):
    # For n+1 distinct scores, letting each be the test point and calibrating on
    # the other n, exactly k = ceil((1-alpha)(n+1)) are covered (when k <= n).
    m = scores.size
    n = m - 1
    k = conformal_rank(n, alpha)
    covered = sum(
        scores[i] <= conformal_quantile(np.delete(scores, i), alpha) for i in range(m)
    )
    assert covered == (m if k > n else k)


def test_quantile_inf_and_bad_input():
    assert conformal_quantile([1.0, 2.0], 0.05) == math.inf
    assert conformal_quantile([3.0, 1.0, 2.0, np.inf], 0.5) == 3.0  # k = ceil(2.5) = 3
    with pytest.raises(ValueError, match="NaN"):
        conformal_quantile([1.0, np.nan], 0.1)
    with pytest.raises(ValueError, match="alpha"):
        conformal_quantile([1.0], 1.0)
    with pytest.raises(ValueError, match="1-D"):
        conformal_quantile(np.zeros((2, 2)), 0.1)
    with pytest.raises(ValueError, match="at least one"):
        conformal_quantile([], 0.1)


@pytest.mark.slow
@pytest.mark.parametrize("model", ["oracle", "ridge"])
def test_expected_coverage_is_k_over_n_plus_one(model):
    # Mean conditional coverage over R replications is within a normal bound of
    # k/(n+1). 6 settings x 2 models, false-alarm rate 1e-6 each (Bonferroni
    # 1.2e-5 for the test).
    grid = {"model": [model], "n": [15, 60], "alpha": [0.05, 0.1, 0.25]}
    R = suite_size(ci=300 if model == "ridge" else 2000, full=20000)
    res = run_study(coverage_replication, grid, n_reps=R, random_state=11, progress=False)
    summ = res.summary()
    for _, row in summ[summ["metric"] == "coverage"].iterrows():
        target = conformal_rank(int(row["n"]), row["alpha"]) / (row["n"] + 1)
        if model == "oracle":
            # conditional coverage ~ Beta(k, n+1-k): known standard error
            k, n = conformal_rank(int(row["n"]), row["alpha"]), int(row["n"])
            se = math.sqrt(k * (n + 1 - k) / ((n + 1) ** 2 * (n + 2)) / R)
        else:
            se = row["se"]
        assert_normal_close(row["mean"], target, se, false_alarm=1e-6,
                            label=f"{model} n={row['n']} alpha={row['alpha']}")
        assert row["mean"] >= 1 - row["alpha"] - 4.9 * se


def test_below_target_rate_matches_beta_law():
    # P(F(q) < 1 - alpha) where F(q) ~ Beta(k, n+1-k): exact binomial check.
    from scipy import stats

    n, alpha, R = 30, 0.1, 4000
    res = run_study(coverage_replication, {"model": ["oracle"], "n": [n], "alpha": [alpha]},
                    n_reps=R, random_state=5, progress=False)
    k = conformal_rank(n, alpha)
    p = stats.beta.cdf(1 - alpha, k, n + 1 - k)
    assert_binomial_rate(int(res.table["below_target"].sum()), R, p, false_alarm=1e-6)


def test_replication_rejects_unknown_model():
    with pytest.raises(ValueError, match="model"):
        coverage_replication({"model": "svm", "n": 5, "alpha": 0.1}, np.random.default_rng(0))


def test_study_report(monkeypatch):
    import statlearn.studies.conformal_coverage as mod

    monkeypatch.setattr(StudyContext, "size", lambda self, quick, full: 40)
    rep = get_study("conformal-coverage").run(StudyContext(quick=True))
    table = rep.tables["coverage"]
    assert len(table) == 30
    assert set(table["model"]) == {"oracle", "ridge"}
    assert (table["band_low"] <= table["k/(n+1)"]).all()
    assert (table["k/(n+1)"] <= table["band_high"]).all()
    assert "replications per setting" in rep.text
    assert rep.figures["coverage"].axes
    assert mod.coverage_study.__name__ == "coverage_study"

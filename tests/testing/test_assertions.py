"""The Monte Carlo assertion helpers must have the false-alarm rate they claim."""

import numpy as np
import pytest
from scipy import stats

from statlearn.testing import (
    assert_binomial_rate,
    assert_mean_close,
    assert_normal_close,
    binomial_acceptance_region,
    suite_size,
)


@pytest.mark.parametrize("alternative", ["two-sided", "less", "greater"])
def test_binomial_false_alarm_is_at_most_nominal(alternative):
    # Exact: probability mass outside the acceptance region under p.
    n, p, fa = 500, 0.9, 0.01
    lo, hi = binomial_acceptance_region(n, p, fa, alternative)
    outside = stats.binom.cdf(lo - 1, n, p) + stats.binom.sf(hi, n, p)
    assert outside <= fa
    # ... and not absurdly conservative: widening by one count on each guarded
    # side would exceed the nominal rate.
    guarded = {"two-sided": fa / 2, "less": fa, "greater": fa}[alternative]
    if alternative in ("two-sided", "less"):
        assert stats.binom.cdf(lo, n, p) > guarded
    if alternative in ("two-sided", "greater"):
        assert stats.binom.sf(hi - 1, n, p) > guarded


def test_binomial_power_against_wrong_rate():
    with pytest.raises(AssertionError, match="coverage"):
        assert_binomial_rate(850, 1000, 0.9, false_alarm=1e-3, label="coverage")
    assert_binomial_rate(850, 1000, 0.9, false_alarm=1e-3, alternative="greater")
    with pytest.raises(ValueError, match="false_alarm"):
        assert_binomial_rate(1, 2, 0.5, false_alarm=0.7)


def test_normal_helpers():
    assert_normal_close(0.0, 0.0, 0.0)
    with pytest.raises(AssertionError):
        assert_normal_close(1.0, 0.0, 0.1)
    assert_normal_close(1.0, 0.0, 0.1, alternative="less")
    x = np.random.default_rng(0).normal(0.3, 1.0, size=4000)
    with pytest.raises(AssertionError):
        assert_mean_close(x, 0.0)
    with pytest.raises(ValueError, match="30"):
        assert_mean_close(x[:5], 0.3)


def test_suite_size(monkeypatch):
    monkeypatch.setenv("STATLEARN_SLOW", "1")
    assert suite_size(10, 1000) == 1000
    monkeypatch.setenv("STATLEARN_SLOW", "0")
    assert suite_size(10, 1000) == 10

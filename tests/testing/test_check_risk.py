"""check_risk: false-alarm rate on correct controllers and power against planted defects.

The controllers are one-parameter problems with a known population risk, so
no test set adds noise: ``U ~ Unif(0, 1)`` and

* CRC: loss ``(U - lambda)_+`` (bounded by 1, non-increasing), risk
  ``(1 - lambda)^2 / 2``; the planted defect drops the ``B / (n + 1)`` term;
* LTT: loss ``1{U > lambda}``, risk ``1 - lambda``, fixed-sequence testing from
  the most conservative ``lambda`` with binomial Bentkus p-values; the planted
  defect takes the empirical-risk threshold and ignores ``delta``.

The false-alarm rate of the expectation check is measured at its least
favourable case (a two-point risk law with mean exactly alpha) and on CRC
itself. Measured (fixed seeds, written below): CRC at n = 9, alpha = 0.3 has
mean risk 0.23 (defect: 0.335); the LTT controller's P(risk > 0.2) is far
below 0.1, the defect's about 0.5.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from statlearn.testing import check_risk
from tests.helpers import raises
from tests.testing._planted import (
    BoundaryNull,
    CRCOnUniform,
    LTTOnUniform,
    crc_risk,
    ltt_risk,
    uniform_data,
)


def _failures(run, n_checks):
    return sum(not run(seed).passed for seed in range(n_checks))


def _tolerance(n_checks, rate):
    """Most failures of ``n_checks`` runs of a check failing with prob. <= rate (1e-6)."""
    return int(stats.binom.isf(1e-6, n_checks, rate))


def test_crc_check_false_alarm_rate_at_the_boundary_and_on_crc():
    def run(seed, make=BoundaryNull, n=1):
        return check_risk(make, uniform_data(n), alpha=0.3, bound=0.5, n_reps=100,
                          false_alarm=0.05, risk=crc_risk, random_state=seed)

    res = run(0)
    assert res.guarantee == "E[risk] <= 0.3" and res.values.shape == (100,)
    assert res.estimate == pytest.approx(res.values.mean())
    fails = _failures(run, 100)
    assert fails <= _tolerance(100, 0.05), fails  # measured 1 / 100 (Hoeffding's bound is
    # conservative even for this two-point law)
    crc = _failures(lambda s: run(s, lambda: CRCOnUniform(0.3), 9), 20)
    assert crc <= _tolerance(20, 0.05), crc  # mean risk 0.23: measured 0 / 20


def test_crc_check_power_against_a_dropped_bound_term():
    # mean risk 0.335 (correct CRC: 0.232); 2000 replications accept means up to 0.320
    defect = [check_risk(lambda: CRCOnUniform(0.3, True), uniform_data(9), alpha=0.3,
                         bound=0.5, n_reps=2000, risk=crc_risk, random_state=s)
              for s in range(5)]
    assert all(not d.passed for d in defect), [d.estimate for d in defect]
    assert all(d.acceptance_region.high < 0.325 for d in defect)


def test_ltt_check_false_alarm_rate_and_power():
    def run(seed, ignore=False):
        return check_risk(lambda: LTTOnUniform(0.2, 0.1, ignore), uniform_data(200),
                          alpha=0.2, delta=0.1, n_reps=50, false_alarm=0.05,
                          risk=ltt_risk, random_state=seed)

    res = run(0)
    assert res.guarantee == "P(risk > 0.2) <= 0.1" and res.expected == 0.1
    assert res.estimate == pytest.approx(np.mean(res.values > 0.2))
    fails = _failures(run, 40)
    assert fails <= _tolerance(40, 0.05), fails  # measured 0 / 40 (exceedance 0.02-0.06)
    # ignoring delta: the risk exceeds alpha about half the time
    assert _failures(lambda s: run(s, ignore=True), 5) == 5


def test_the_binomial_region_is_the_exact_tail():
    res = check_risk(lambda: LTTOnUniform(0.2, 0.1), uniform_data(200), alpha=0.2,
                     delta=0.1, n_reps=50, false_alarm=1e-3, risk=ltt_risk, random_state=0)
    high = round(res.acceptance_region.high * 50)
    assert stats.binom.sf(high, 50, 0.1) <= 1e-3 < stats.binom.sf(high - 1, 50, 0.1)


def test_bad_arguments_are_refused_naming_them():
    make = lambda: CRCOnUniform(0.3)  # noqa: E731
    raises(lambda: check_risk(make, uniform_data(9), alpha=0.3, n_reps=10, delta=1.5,
                              risk=crc_risk), ValueError, names="delta", shows="1.5")
    raises(lambda: check_risk(make, uniform_data(9), alpha=0.3, n_reps=10, bound=0.2,
                              risk=crc_risk), ValueError, names="alpha", shows="0.2")
    raises(lambda: check_risk(make, uniform_data(9), alpha=0.3, n_reps=10, risk="fnr"),
           TypeError, names="risk")
    raises(lambda: check_risk(make, uniform_data(9), alpha=0.3, n_reps=3,
                              risk=lambda c, X, y: 2.0), ValueError, shows="2.0")
    raises(lambda: check_risk(make, uniform_data(9), alpha=0.3, n_reps=3), TypeError,
           names="risk", shows="CRCOnUniform")

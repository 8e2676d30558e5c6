"""Acceptance regions behind the guarantee checks, and how many replications they need.

Two kinds of null distribution are used:

* the exact law of a total count of covered test points under split
  conformal with continuous scores: given the calibration set, each test
  point is covered independently with probability ``C ~ Beta(k, n + 1 - k)``,
  ``k = ceil((n + 1)(1 - alpha))``, so the count of one replication is
  beta-binomial and the total over replications is their convolution
  (computed exactly, by FFT);
* a bound for the mean of independent values in ``[0, 1]`` whose mean is on
  one side of a target (false discovery proportions, coverage fractions):
  Hoeffding's (1963, Theorem 1) relative-entropy bound
  ``P(mean >= t) <= exp(-R KL(t || mu))`` for ``t > mu`` (and its mirror),
  which holds whatever the distribution of the values in ``[0, 1]``.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import optimize, special, stats

from ..utils import check_int, check_real

__all__ = ["betabinom_sum_region", "bounded_mean_region", "conformal_rank", "mc_size"]


def _check_false_alarm(false_alarm, name="false_alarm"):
    return check_real(false_alarm, name, low=0, high=0.5, closed="neither")


def conformal_rank(n_calib: int, alpha: float) -> int:
    """The rank ``k = ceil((n + 1)(1 - alpha))`` of split conformal calibration.

    The threshold is the ``k``-th smallest of ``n`` calibration scores, and
    with continuous scores a new point is covered with probability exactly
    ``k / (n + 1)`` (``k > n`` means an infinite threshold, coverage 1).
    Derived here, not read from :mod:`statlearn.conformal`, so that a check
    never takes its expected value from the code it checks.
    """
    n = check_int(n_calib, "n_calib", low=1)
    a = check_real(alpha, "alpha", low=0, high=1, closed="neither")
    # exact rational arithmetic where alpha is a short decimal: (n + 1)(1 - alpha)
    # lands on an integer for n = 19, alpha = 0.1, which float rounding can miss
    from fractions import Fraction

    value = (n + 1) * (1 - Fraction(str(a)))
    return int(math.ceil(value))


def _betabinom_pmf(m: int, a: int, b: int) -> np.ndarray:
    return stats.betabinom.pmf(np.arange(m + 1), m, a, b)


def betabinom_sum_pmf(groups) -> np.ndarray:
    """Probability mass of a sum of independent beta-binomial counts.

    ``groups`` maps ``(m, a, b)`` to how many counts follow
    ``BetaBinomial(m, a, b)``; the result has length ``1 + sum m * count``.
    """
    total = sum(m * c for (m, _, _), c in groups.items())
    size = 1 + total
    fft_len = 1 << int(np.ceil(np.log2(max(size, 2))))
    spectrum = np.ones(fft_len // 2 + 1, dtype=complex)
    for (m, a, b), c in groups.items():
        spectrum *= np.fft.rfft(_betabinom_pmf(m, a, b), fft_len) ** c
    pmf = np.fft.irfft(spectrum, fft_len)[:size]
    pmf = np.clip(pmf, 0.0, None)
    return pmf / pmf.sum()


def betabinom_sum_region(groups, false_alarm: float, alternative: str = "two-sided"):
    """Counts ``(lo, hi, mean, sd)`` accepted for a sum of beta-binomial counts.

    The region follows :func:`scipy.stats.binom.ppf` / ``isf`` conventions:
    ``P(count < lo) <= tail`` and ``P(count > hi) <= tail``, with
    ``tail = false_alarm / 2`` two-sided.
    """
    false_alarm = _check_false_alarm(false_alarm)
    pmf = betabinom_sum_pmf(groups)
    support = np.arange(pmf.size)
    mean = float(support @ pmf)
    sd = float(np.sqrt(max((support - mean) ** 2 @ pmf, 0.0)))
    tail = false_alarm / 2 if alternative == "two-sided" else false_alarm
    cdf = np.cumsum(pmf)
    sf = 1.0 - cdf  # P(count > c)
    lo = 0 if alternative == "greater" else int(np.searchsorted(cdf, tail * (1 - 1e-12)))
    hi = pmf.size - 1 if alternative == "less" else int(np.argmax(sf <= tail * (1 + 1e-12)))
    return lo, hi, mean, sd


def _kl(t, mu):
    """Relative entropy KL(Bernoulli(t) || Bernoulli(mu))."""
    return float(special.rel_entr(t, mu) + special.rel_entr(1 - t, 1 - mu))


def bounded_mean_region(n_reps: int, mu: float, false_alarm: float, alternative: str):
    """Accepted means ``(lo, hi)`` of ``n_reps`` independent values in ``[0, 1]``.

    ``alternative="greater"`` guards against a mean above ``mu`` (the guarantee
    is ``E <= mu``), ``"less"`` against one below. The edge ``t`` solves
    ``n_reps * KL(t || mu) = log(1 / false_alarm)`` (Hoeffding, 1963, Theorem 1),
    so a mean beyond it has probability at most ``false_alarm`` whatever the
    distribution of the values, as long as their mean is on the guaranteed side
    of ``mu``.
    """
    n_reps = check_int(n_reps, "n_reps", low=1)
    false_alarm = _check_false_alarm(false_alarm)
    level = math.log(1 / false_alarm) / n_reps
    lo, hi = 0.0, 1.0
    if alternative == "greater" and mu < 1:
        if _kl(1.0, mu) > level:
            hi = optimize.brentq(lambda t: _kl(t, mu) - level, mu, 1.0, xtol=1e-14)
    elif alternative == "less" and mu > 0:
        if _kl(0.0, mu) > level:
            lo = optimize.brentq(lambda t: _kl(t, mu) - level, 0.0, mu, xtol=1e-14)
    return lo, hi


def mc_size(deviation: float, *, sd: float | None = None, rate: float | None = None,
            power: float = 0.8, false_alarm: float = 1e-3, two_sided: bool = False) -> int:
    """Replications a check needs to detect a shift of ``deviation`` with ``power``.

    Normal approximation: ``R = ceil(((z_tail + z_power) * sd / deviation) ** 2)``
    with ``z_tail`` the normal quantile of ``false_alarm`` (halved when
    ``two_sided``) and ``sd`` the standard deviation of one replication's
    statistic. Give ``sd``, or ``rate`` for a Bernoulli statistic
    (``sd = sqrt(rate (1 - rate))``, the largest a value in ``[0, 1]`` with
    that mean can have).

    Parameters
    ----------
    deviation : float
        Shift of the mean to detect (> 0), e.g. ``1 / (n + 1)`` for a conformal
        threshold off by one rank.
    sd : float, optional
        Standard deviation of one replication's value.
    rate : float, optional
        Mean of a Bernoulli replication, in (0, 1), when ``sd`` is not given.
    power : float, default=0.8
        Probability of detecting the shift, in (0, 1).
    false_alarm : float, default=1e-3
        Probability of failing a correct setup, in (0, 0.5).
    two_sided : bool, default=False
        Whether the check guards both sides (``check_coverage(exact=True)``).

    Returns
    -------
    int

    Notes
    -----
    :func:`check_fdr` and :func:`check_coverage` with ``exact=False`` use a
    distribution-free bound (wider than the normal tail), so they need more:
    read the ``detectable_deviation`` of a pilot run's result.

    Examples
    --------
    >>> from statlearn.testing import mc_size
    >>> mc_size(0.05, rate=0.9)  # one test point per replication, 0.9 vs 0.85
    557
    """
    d = check_real(deviation, "deviation", low=0, closed="neither")
    power = check_real(power, "power", low=0, high=1, closed="neither")
    false_alarm = _check_false_alarm(false_alarm)
    if not isinstance(two_sided, bool | np.bool_):
        raise TypeError(f"two_sided must be a bool, got {type(two_sided).__name__}.")
    if sd is None and rate is None:
        raise ValueError("give sd (of one replication) or rate (of a Bernoulli "
                         "replication); got sd=None and rate=None.")
    if sd is not None and rate is not None:
        raise ValueError(f"give sd or rate, not both; got sd={sd!r} and rate={rate!r}.")
    if sd is None:
        rate = check_real(rate, "rate", low=0, high=1, closed="neither")
        sd = math.sqrt(rate * (1 - rate))
    else:
        sd = check_real(sd, "sd", low=0, closed="neither")
    tail = false_alarm / 2 if two_sided else false_alarm
    z = stats.norm.isf(tail) + stats.norm.ppf(power)
    return int(math.ceil((z * sd / d) ** 2))


def detectable_deviation(sd_of_mean: float, edge_gap: float, power: float = 0.8) -> float:
    """Smallest shift of the mean detected with ``power`` (normal approximation).

    ``edge_gap`` is the distance from the expected value to the edge of the
    acceptance region; a shift ``d`` is detected with probability ``power``
    when the mean under the shift clears the edge by ``z_power`` standard
    deviations.
    """
    return float(edge_gap + stats.norm.ppf(power) * sd_of_mean)

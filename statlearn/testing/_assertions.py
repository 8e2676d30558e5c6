"""Monte Carlo assertions with an explicit false-alarm rate.

Each helper turns a statistical guarantee into a test that fails with
probability at most ``false_alarm`` when the code is right (under the stated
model), and whose message shows the numbers behind the decision.
"""

from __future__ import annotations

import numpy as np
from scipy import stats

__all__ = [
    "assert_binomial_rate",
    "assert_mean_close",
    "assert_normal_close",
    "binomial_acceptance_region",
    "suite_size",
]

_ALTERNATIVES = ("two-sided", "less", "greater")


def _check_false_alarm(false_alarm):
    if not 0 < false_alarm < 0.5:
        raise ValueError(f"false_alarm must be in (0, 0.5), got {false_alarm!r}.")


def binomial_acceptance_region(n_trials: int, p: float, false_alarm: float = 1e-6,
                               alternative: str = "two-sided") -> tuple[int, int]:
    """Counts ``[lo, hi]`` accepted for ``Binomial(n_trials, p)`` at level ``false_alarm``.

    ``alternative="less"`` only guards against too few successes (``hi=n``),
    ``"greater"`` only against too many (``lo=0``).

    Examples
    --------
    >>> from statlearn.testing import binomial_acceptance_region
    >>> binomial_acceptance_region(1000, 0.9, 1e-6)
    (851, 943)
    """
    _check_false_alarm(false_alarm)
    if alternative not in _ALTERNATIVES:
        raise ValueError(f"alternative must be one of {_ALTERNATIVES}, got {alternative!r}.")
    tail = false_alarm / 2 if alternative == "two-sided" else false_alarm
    lo = 0 if alternative == "greater" else int(stats.binom.ppf(tail, n_trials, p))
    hi = n_trials if alternative == "less" else int(stats.binom.isf(tail, n_trials, p))
    return lo, hi


def assert_binomial_rate(successes: int, n_trials: int, p: float, *, false_alarm: float = 1e-6,
                         alternative: str = "two-sided", label: str = "rate") -> None:
    """Assert that ``successes`` out of ``n_trials`` is consistent with rate ``p``.

    The check fails with probability at most ``false_alarm`` when the true
    rate is ``p`` (exact binomial quantiles; conservative because discrete).

    Parameters
    ----------
    successes, n_trials : int
        Observed count and number of independent trials.
    p : float
        Rate under the guarantee being tested.
    false_alarm : float, default=1e-6
        Probability of failing a correct implementation.
    alternative : {"two-sided", "less", "greater"}, default="two-sided"
        ``"less"`` fails only if the observed rate is too small (e.g. coverage
        at least ``1 - alpha``); ``"greater"`` only if too large (e.g. FDR at
        most ``q``).
    label : str
        Name printed in the failure message.

    Examples
    --------
    >>> from statlearn.testing import assert_binomial_rate
    >>> assert_binomial_rate(905, 1000, 0.9)
    >>> assert_binomial_rate(700, 1000, 0.9, label="coverage")
    Traceback (most recent call last):
    ...
    AssertionError: coverage: 700/1000 = 0.7 is outside the acceptance region [851, 943] ...
    """
    lo, hi = binomial_acceptance_region(n_trials, p, false_alarm, alternative)
    if not lo <= successes <= hi:
        raise AssertionError(
            f"{label}: {successes}/{n_trials} = {successes / n_trials:.4g} is outside the "
            f"acceptance region [{lo}, {hi}] for p = {p:.6g} "
            f"({alternative}, false-alarm rate {false_alarm:g})."
        )


def assert_normal_close(estimate: float, expected: float, se: float, *,
                        false_alarm: float = 1e-6, alternative: str = "two-sided",
                        label: str = "estimate") -> None:
    """Assert ``|estimate - expected| <= z * se`` with ``z`` set by ``false_alarm``.

    Use when ``estimate`` is approximately normal with known standard error.

    Examples
    --------
    >>> from statlearn.testing import assert_normal_close
    >>> assert_normal_close(1.02, 1.0, 0.01)
    """
    _check_false_alarm(false_alarm)
    if alternative not in _ALTERNATIVES:
        raise ValueError(f"alternative must be one of {_ALTERNATIVES}, got {alternative!r}.")
    if not np.isfinite(se) or se < 0:
        raise ValueError(f"se must be finite and non-negative, got {se!r}.")
    tail = false_alarm / 2 if alternative == "two-sided" else false_alarm
    z = stats.norm.isf(tail)
    diff = estimate - expected
    bad = (
        abs(diff) > z * se if alternative == "two-sided"
        else (diff < -z * se if alternative == "less" else diff > z * se)
    )
    if bad:
        raise AssertionError(
            f"{label}: {estimate:.6g} vs expected {expected:.6g}, difference {diff:.3g} "
            f"exceeds {z:.2f} x se = {z * se:.3g} "
            f"({alternative}, false-alarm rate {false_alarm:g})."
        )


def assert_mean_close(samples, expected: float, *, false_alarm: float = 1e-6,
                      alternative: str = "two-sided", label: str = "mean") -> None:
    """Assert that the mean of i.i.d. ``samples`` is consistent with ``expected``.

    Uses the CLT with the sample standard error; needs at least 30 samples.

    Examples
    --------
    >>> import numpy as np
    >>> from statlearn.testing import assert_mean_close
    >>> x = np.random.default_rng(0).normal(size=2000)
    >>> assert_mean_close(x, 0.0)
    """
    x = np.asarray(samples, dtype=float).ravel()
    if not np.isfinite(x).all():
        raise ValueError(f"samples must be finite, got {int((~np.isfinite(x)).sum())} NaN or "
                         "infinite values.")
    if x.size < 30:
        raise ValueError(f"samples needs at least 30 values for a CLT check, got {x.size}.")
    se = x.std(ddof=1) / np.sqrt(x.size)
    assert_normal_close(float(x.mean()), expected, float(se), false_alarm=false_alarm,
                        alternative=alternative, label=label)


def suite_size(ci: int, full: int) -> int:
    """Monte Carlo size for a test: ``full`` when ``STATLEARN_SLOW=1``, else ``ci``.

    Slow statistical checks run in the default suite at the reduced size
    ``ci`` (their tolerance is computed from the size actually used) and at
    ``full`` size when the environment variable ``STATLEARN_SLOW`` is set.

    Examples
    --------
    >>> from statlearn.testing import suite_size
    >>> suite_size(100, 10_000) in (100, 10_000)
    True
    """
    import os

    return full if os.environ.get("STATLEARN_SLOW", "0") not in ("", "0") else ci

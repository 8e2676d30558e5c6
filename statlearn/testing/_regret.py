"""``check_regret_slope``: the growth rate of a bandit policy's regret."""

from __future__ import annotations

import math

import numpy as np
from scipy import stats

from ..utils import ConfidenceInterval, check_int, check_real
from ._results import GuaranteeCheck
from ._runner import check_common, replicate

__all__ = ["check_regret_slope"]


def _regret_rep(run, checkpoints, rng):
    out = run(rng)
    path = getattr(out, "regret", out)
    path = np.asarray(path, dtype=float).ravel()
    if path.size < checkpoints[-1]:
        raise ValueError(f"run(rng) must return the cumulative regret of rounds 1..horizon "
                         f"(horizon={checkpoints[-1]}), got {path.size} values.")
    if not np.isfinite(path).all():
        raise ValueError("run(rng) returned a regret path with NaN or infinite values.")
    return {f"r{j}": float(path[t - 1]) for j, t in enumerate(checkpoints)}


def _slope(log_t, mean):
    x = log_t - log_t.mean()
    return float(x @ (np.log(mean) - np.log(mean).mean()) / (x @ x))


def check_regret_slope(run, *, horizon, rate, n_reps, start=0.1, n_points=8,
                       false_alarm=1e-3, random_state=None, n_jobs=None, backend=None,
                       progress=False) -> GuaranteeCheck:
    """Check that expected regret grows no faster than ``t ** rate``, by simulation.

    Each replication runs the policy once (``run(rng)``) and records its
    cumulative regret at ``n_points`` rounds spaced geometrically from
    ``start * horizon`` to ``horizon``. The statistic is the least-squares
    slope of the log of the mean regret against ``log t`` over those rounds
    (the log-log slope of the estimated expected regret curve); its standard
    error is the jackknife over replications. The check is one-sided: it fails
    when the slope exceeds ``rate`` by more than the normal quantile of
    ``false_alarm`` times the standard error.

    What is tested is the slope of the *expected* regret curve over the
    window, at this horizon: a policy whose rate holds only asymptotically can
    show a larger finite-horizon slope, and the false-alarm rate holds in the
    large-``n_reps`` (normal) limit. A logarithmic regret has slope about
    ``1 / log t`` at ``t``; a ``sqrt(T)`` rate is ``rate=0.5``; linear regret
    (a policy that never learns) has slope 1.

    Parameters
    ----------
    run : callable
        ``run(rng)`` plays the policy once for ``horizon`` rounds with the
        :class:`numpy.random.Generator` ``rng`` and returns its cumulative
        regret (an array of length ``horizon``, or an object with a
        ``regret`` array such as :class:`statlearn.bandits.causal.BanditRun`).
    horizon : int
        Number of rounds (>= 10).
    rate : float
        Stated growth exponent, in [0, 1].
    n_reps : int
        Number of replications (>= 2). For KL-UCB on two Bernoulli arms
        (means 0.4 and 0.6), 200 replications of 2000 rounds give a slope of
        about 0.41 with a standard error of about 0.011: the check passes
        against ``rate=0.5`` and a uniformly random policy (slope 1) fails.
    start : float, default=0.1
        First round of the window as a fraction of ``horizon``, in (0, 1).
    n_points : int, default=8
        Number of rounds in the window (>= 2).
    false_alarm : float, default=1e-3
        Probability (normal approximation) of failing a policy whose expected
        regret has slope ``rate`` over the window.
    random_state : None, int, Generator or RandomState, default=None
        Root of the replications' random streams.
    n_jobs : int, optional
        Parallel workers, as in :func:`statlearn.simulation.run_study`.
    backend : {"sequential", "loky", "threading", "dask"}, optional
        The study runner's backend.
    progress : bool, default=False
        Show a progress bar.

    Returns
    -------
    GuaranteeCheck
        ``estimate`` is the slope; ``values`` holds the jackknife
        pseudo-values of the slope (one per replication).

    Examples
    --------
    >>> from statlearn.bandits.causal import KLUCB, run_bandit
    >>> from statlearn.testing import check_regret_slope
    >>> res = check_regret_slope(
    ...     lambda rng: run_bandit(KLUCB(), [0.4, 0.6], 1000, random_state=rng),
    ...     horizon=1000, rate=0.5, n_reps=50, random_state=0)
    >>> res.passed, bool(res.estimate < 0.5)
    (True, True)
    """
    n_reps, false_alarm = check_common("run", run, run, n_reps, false_alarm, n_jobs, backend,
                                       progress)
    horizon = check_int(horizon, "horizon", low=10)
    rate = check_real(rate, "rate", low=0, high=1)
    start = check_real(start, "start", low=0, high=1, closed="neither")
    n_points = check_int(n_points, "n_points", low=2)
    first = max(1, int(round(start * horizon)))
    checkpoints = np.unique(np.round(np.geomspace(first, horizon, n_points)).astype(int))
    if checkpoints.size < 2:
        raise ValueError(f"start={start!r} and horizon={horizon} leave fewer than two "
                         "distinct rounds in the window; lower start.")
    checkpoints = tuple(int(t) for t in checkpoints)
    table = replicate(_regret_rep, n_reps, random_state, n_jobs, backend, progress,
                      "check_regret_slope", run=run, checkpoints=checkpoints)
    M = table[[f"r{j}" for j in range(len(checkpoints))]].to_numpy(dtype=float)
    mean = M.mean(axis=0)
    if np.any(mean <= 0):
        raise ValueError("the mean regret is not positive at every round of the window "
                         f"(rounds {list(checkpoints)}): a slope on the log scale is "
                         "undefined; start the window later.")
    log_t = np.log(np.asarray(checkpoints, dtype=float))
    slope = _slope(log_t, mean)
    loo = (M.sum(axis=0)[None, :] - M) / (n_reps - 1)
    if np.any(loo <= 0):
        raise ValueError("leaving one replication out makes the mean regret non-positive "
                         "somewhere in the window; use more replications or a later start.")
    loo_slopes = np.array([_slope(log_t, row) for row in loo])
    se = math.sqrt((n_reps - 1) / n_reps * float(((loo_slopes - loo_slopes.mean()) ** 2).sum()))
    z = stats.norm.isf(false_alarm)
    region = ConfidenceInterval(-math.inf, float(rate + z * se))
    pseudo = n_reps * slope - (n_reps - 1) * loo_slopes
    return GuaranteeCheck(
        guarantee=f"regret slope <= {rate:g}", estimate=slope, expected=rate,
        acceptance_region=region, passed=bool(slope <= region.high),
        detectable_deviation=float((z + stats.norm.ppf(0.8)) * se), n_reps=n_reps,
        false_alarm=false_alarm, alternative="greater",
        method="log-log least-squares slope of the mean regret, jackknife standard error "
               "(normal approximation)",
        values=pseudo)

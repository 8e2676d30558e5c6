"""``check_fdr``: the false discovery rate of a selector."""

from __future__ import annotations

import math

from ..utils import ConfidenceInterval
from ._bounds import bounded_mean_region
from ._bounds import detectable_deviation as _detectable
from ._results import GuaranteeCheck
from ._runner import call_maker, check_alpha_level, check_common, replicate, unpack_data

__all__ = ["check_fdr"]


def _default_fdp(selector, X_test, y_test):
    res = selector.select(X_test, y_true=y_test)
    fdp = getattr(res, "fdp", None)
    if fdp is None:
        raise TypeError(
            f"{type(selector).__name__}.select(X_test, y_true=y_test) returned "
            f"{type(res).__name__} without an fdp attribute; pass fdp=callable(selector, "
            "X_test, y_test) -> float.")
    return fdp


def _fdr_rep(make_selector, make_data, fdp, rng):
    X, y, X_test, y_test = unpack_data(make_data(rng))
    sel = call_maker(make_selector, rng)
    sel.fit(X, y)
    value = float(fdp(sel, X_test, y_test))
    if not 0.0 <= value <= 1.0 or math.isnan(value):
        raise ValueError(f"the false discovery proportion must be in [0, 1], got {value!r}.")
    return {"fdp": value}


def check_fdr(make_selector, make_data, *, alpha, n_reps, false_alarm=1e-3, fdp=None,
              random_state=None, n_jobs=None, backend=None, progress=False) -> GuaranteeCheck:
    """Check that a selector's false discovery rate is at most ``alpha``, by simulation.

    Each replication draws a data set, fits a fresh selector on its first part
    and records the false discovery proportion (FDP) of its selection among
    the test points (0 when nothing is selected). The FDR is the mean FDP;
    the check is one-sided and fails when the mean FDP over the replications
    is too large for an FDR of at most ``alpha``. FDPs lie in ``[0, 1]``, so
    the bound is Hoeffding's (1963, Theorem 1) relative-entropy inequality
    ``P(mean >= t) <= exp(-R KL(t || alpha))``: it holds whatever the
    distribution of the FDP (no normal approximation).

    Parameters
    ----------
    make_selector : callable
        ``make_selector(random_state)`` (or ``make_selector()``) returns an
        unfitted selector with ``fit(X, y)`` and, unless ``fdp`` is given,
        ``select(X_test, y_true=y_test)`` returning an object with an ``fdp``
        (as :class:`statlearn.conformal.ConformalSelector` does).
    make_data : callable
        ``make_data(rng)`` returns ``(X, y, X_test, y_test)``.
    alpha : float
        Target FDR, in (0, 1) (the selector's ``q``).
    n_reps : int
        Number of replications (>= 2). At ``alpha = 0.2`` and the default
        ``false_alarm``, 400 replications accept mean FDPs up to about 0.26;
        the ``detectable_deviation`` of the result says what a run can see.
    false_alarm : float, default=1e-3
        Probability of failing a selector whose FDR is at most ``alpha``.
    fdp : callable, optional
        ``fdp(selector, X_test, y_test)`` -> float in ``[0, 1]``.
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
        ``values`` holds the FDP of each replication.

    See Also
    --------
    check_coverage : coverage of conformal sets and intervals.

    References
    ----------
    Jin & Candes (2023), "Selection by prediction with conformal p-values",
    JMLR 24; Hoeffding (1963), "Probability inequalities for sums of bounded
    random variables", JASA 58.

    Examples
    --------
    >>> import numpy as np
    >>> from statlearn.conformal import ConformalSelector
    >>> from statlearn.testing import check_fdr
    >>> def make_data(rng):
    ...     X = rng.normal(size=(120, 1))
    ...     y = X[:, 0] + 0.5 * rng.normal(size=120)
    ...     return X[:80], y[:80], X[80:], y[80:]
    >>> res = check_fdr(lambda seed: ConformalSelector(threshold=0.5, q=0.2, random_state=seed),
    ...                 make_data, alpha=0.2, n_reps=40, random_state=0)
    >>> res.passed, res.alternative
    (True, 'greater')
    """
    n_reps, false_alarm = check_common("make_selector", make_selector, make_data, n_reps,
                                       false_alarm, n_jobs, backend, progress)
    alpha = check_alpha_level(alpha)
    if fdp is not None and not callable(fdp):
        raise TypeError(f"fdp must be callable or None, got {type(fdp).__name__}.")
    table = replicate(_fdr_rep, n_reps, random_state, n_jobs, backend, progress, "check_fdr",
                      make_selector=make_selector, make_data=make_data,
                      fdp=fdp or _default_fdp)
    values = table["fdp"].to_numpy(dtype=float)
    estimate = float(values.mean())
    region = ConfidenceInterval(*bounded_mean_region(n_reps, alpha, false_alarm, "greater"))
    sd = float(values.std(ddof=1)) / math.sqrt(n_reps)
    return GuaranteeCheck(
        guarantee=f"FDR <= {alpha:g}", estimate=estimate, expected=alpha,
        acceptance_region=region, passed=bool(estimate <= region.high),
        detectable_deviation=_detectable(sd, region.high - alpha), n_reps=n_reps,
        false_alarm=false_alarm, alternative="greater",
        method="Hoeffding (1963) relative-entropy bound for a mean of values in [0, 1]",
        values=values)

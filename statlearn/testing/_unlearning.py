"""``check_unlearning``: the released model's distance to retraining, against its certificate."""

from __future__ import annotations

import math

import numpy as np
from scipy import stats

from ..utils import ConfidenceInterval
from ._results import GuaranteeCheck
from ._runner import call_maker, check_common, replicate

__all__ = ["check_unlearning"]


def _unlearning_rep(make_unlearner, make_data, rng):
    data = make_data(rng)
    if not isinstance(data, tuple | list) or len(data) != 3:
        raise TypeError("make_data(rng) must return a tuple (X, y, indices), got "
                        f"{type(data).__name__}.")
    X, y, indices = data
    est = call_maker(make_unlearner, rng)
    est.fit(X, y)
    p = int(est.n_features_in_)
    reference = np.asarray(est.retrain_reference(indices), dtype=float)[:p]
    est.unlearn(indices)
    sigma, r = est.sigma_, est.r_
    if sigma is None or not sigma > 0:
        raise ValueError(f"check_unlearning needs a release with Gaussian noise; the "
                         f"unlearner reported sigma_={sigma!r} (noise=None?).")
    d = np.asarray(est.coef_, dtype=float) - reference
    return {"t": float(d @ d) / sigma**2, "lam": (float(r) / sigma) ** 2, "p": p}


def check_unlearning(make_unlearner, make_data, *, n_reps, false_alarm=1e-3,
                     random_state=None, n_jobs=None, backend=None,
                     progress=False) -> GuaranteeCheck:
    """Check a certified-unlearning release against its certificate, by simulation.

    Each replication fits a fresh unlearner (a
    :class:`~statlearn.unlearning.NewtonUnlearner` with Gaussian noise),
    computes the exact retrained model without the removed rows
    (``retrain_reference``), removes them (``unlearn``) and measures the
    released coefficients' distance to the retrained ones in units of the
    noise, ``T = ||coef - coef_retrained||^2 / sigma^2``. The certificate says
    the release is the retrained model plus ``N(0, sigma^2 I)`` noise plus a
    Newton error of norm at most ``r = sigma * epsilon``: ``T`` is then
    noncentral chi-square with ``p`` degrees of freedom and noncentrality at
    most ``(r / sigma)^2``. The sum over replications is noncentral
    chi-square too (degrees of freedom and noncentralities add), so the check
    is exact and two-sided: too small a sum means less noise than stated
    (the privacy is not there), too large a distance a Newton step farther
    from retraining than certified.

    Parameters
    ----------
    make_unlearner : callable
        ``make_unlearner(random_state)`` (or ``make_unlearner()``) returns an
        unfitted :class:`~statlearn.unlearning.NewtonUnlearner` (or an object
        with ``fit``, ``retrain_reference``, ``unlearn``, ``coef_``,
        ``n_features_in_``, ``sigma_`` and ``r_``) that adds Gaussian noise.
    make_data : callable
        ``make_data(rng)`` returns ``(X, y, indices)``: the training data and
        the positions of the rows to remove.
    n_reps : int
        Number of replications (>= 2). With 5 features, 100 replications
        detect noise at 70% of the stated level with power above 0.99 at
        ``false_alarm=1e-3``.
    false_alarm : float, default=1e-3
        Probability of failing a release that meets its certificate.
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
        ``values`` holds ``T / p`` of each replication (1 on average for a
        release exactly at the retrained model plus the stated noise).

    References
    ----------
    Pandey, Auddy, Zou, Maleki & Kulkarni (2025), "Gaussian certified
    unlearning in high dimensions: a hypothesis testing approach",
    arXiv:2510.13094.

    Examples
    --------
    >>> import numpy as np
    >>> from statlearn.testing import check_unlearning
    >>> from statlearn.unlearning import NewtonUnlearner
    >>> def make_data(rng):
    ...     X = rng.normal(size=(80, 4))
    ...     y = X @ np.array([1.0, -1.0, 0.5, 0.0]) + rng.normal(size=80)
    ...     return X, y, [0, 1]
    >>> res = check_unlearning(
    ...     lambda seed: NewtonUnlearner(loss="squared", fit_intercept=False, random_state=seed),
    ...     make_data, n_reps=30, random_state=0)
    >>> res.passed
    True
    """
    n_reps, false_alarm = check_common("make_unlearner", make_unlearner, make_data, n_reps,
                                       false_alarm, n_jobs, backend, progress)
    table = replicate(_unlearning_rep, n_reps, random_state, n_jobs, backend, progress,
                      "check_unlearning", make_unlearner=make_unlearner, make_data=make_data)
    t = table["t"].to_numpy(dtype=float)
    lam = table["lam"].to_numpy(dtype=float)
    p = table["p"].to_numpy(dtype=np.int64)
    df, nc = int(p.sum()), float(lam.sum())
    lo = stats.chi2.ppf(false_alarm / 2, df)
    hi = stats.ncx2.isf(false_alarm / 2, df, nc) if nc > 0 else stats.chi2.isf(false_alarm / 2,
                                                                                 df)
    region = ConfidenceInterval(float(lo / df), float(hi / df))
    estimate = float(t.sum() / df)
    sd = math.sqrt(2.0 / df)  # of the pooled T / p at the retrained model plus the noise
    z = stats.norm.ppf(0.8)
    detectable = max(1.0 - region.low, region.high - 1.0) + z * sd
    return GuaranteeCheck(
        guarantee="distance to retraining within the certificate",
        estimate=estimate, expected=1.0, acceptance_region=region,
        passed=bool(region.low <= estimate <= region.high),
        detectable_deviation=float(detectable), n_reps=n_reps, false_alarm=false_alarm,
        alternative="two-sided",
        method="exact chi-square / noncentral chi-square law of the summed squared distances",
        values=t / p)

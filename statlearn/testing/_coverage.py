"""``check_coverage``: the marginal coverage of conformal sets and intervals."""

from __future__ import annotations

import numpy as np

from ..utils import ConfidenceInterval
from ._bounds import betabinom_sum_region, bounded_mean_region, conformal_rank
from ._bounds import detectable_deviation as _detectable
from ._results import GuaranteeCheck
from ._runner import (
    call_maker,
    check_alpha_level,
    check_common,
    replicate,
    unpack_data,
)

__all__ = ["check_coverage", "default_covered"]


def default_covered(estimator, X_test, y_test) -> np.ndarray:
    """Whether each test label is in its set or interval (boolean array).

    Uses ``predict_interval`` (an ``(n, 2)`` array of bounds, closed) when the
    estimator has it, else ``predict_set`` (a boolean mask over ``classes_``).
    A label that is not among ``classes_`` is not covered.
    """
    y = np.asarray(y_test)
    if hasattr(estimator, "predict_interval"):
        bounds = np.asarray(estimator.predict_interval(X_test), dtype=float)
        if bounds.ndim != 2 or bounds.shape[1] != 2:
            raise ValueError("predict_interval must return an array of shape (n_test, 2) "
                             f"(one alpha), got shape {bounds.shape}.")
        y = y.astype(float)
        return (bounds[:, 0] <= y) & (y <= bounds[:, 1])
    if hasattr(estimator, "predict_set"):
        sets = np.asarray(estimator.predict_set(X_test), dtype=bool)
        classes = np.asarray(estimator.classes_)
        order = np.argsort(classes, kind="stable")
        pos = np.searchsorted(classes[order], y)
        pos = np.clip(pos, 0, classes.size - 1)
        known = classes[order][pos] == y
        col = order[pos]
        return known & sets[np.arange(y.size), col]
    raise TypeError(
        f"the estimator ({type(estimator).__name__}) has neither predict_interval nor "
        "predict_set; pass covered=callable(estimator, X_test, y_test).")


def _coverage_rep(make_estimator, make_data, covered, rng):
    X, y, X_test, y_test = unpack_data(make_data(rng))
    est = call_maker(make_estimator, rng)
    est.fit(X, y)
    hits = np.asarray(covered(est, X_test, y_test), dtype=bool).ravel()
    if hits.size == 0:
        raise ValueError("make_data returned no test points (X_test is empty).")
    n_calib = getattr(est, "n_calib_", None)
    return {"covered": int(hits.sum()), "n_test": int(hits.size),
            "n_calib": -1 if n_calib is None else int(n_calib)}


def check_coverage(make_estimator, make_data, *, alpha, n_reps, exact=False,
                   false_alarm=1e-3, covered=None, random_state=None, n_jobs=None,
                   backend=None, progress=False) -> GuaranteeCheck:
    """Check the marginal coverage of a conformal classifier or regressor by simulation.

    Each replication draws a data set, fits a fresh estimator on its first
    part and counts the test points whose label falls in their set
    (``predict_set``) or interval (``predict_interval``).

    * ``exact=False`` (any conformal method with a ``>= 1 - alpha``
      guarantee, ties allowed): one-sided; fails when the mean coverage
      fraction is too small for a true coverage of at least ``1 - alpha``, by
      Hoeffding's (1963, Theorem 1) relative-entropy bound for means of
      values in ``[0, 1]`` (distribution-free, so wider than a normal tail).
    * ``exact=True`` (split conformal with continuous scores, one threshold
      set by the ``n = n_calib_`` calibration points of the fitted estimator):
      two-sided around the exact coverage ``k / (n + 1)``,
      ``k = ceil((n + 1)(1 - alpha))``. Given the calibration set every test
      point is covered independently with probability
      ``C ~ Beta(k, n + 1 - k)``, so a replication's count is beta-binomial and
      the acceptance region comes from the exact law of the total count.
      This catches a threshold off by one rank (a shift of ``1 / (n + 1)``).

    Parameters
    ----------
    make_estimator : callable
        ``make_estimator(random_state)`` (or ``make_estimator()``) returns an
        unfitted estimator with ``fit(X, y)``; called once per replication
        with a fresh integer seed.
    make_data : callable
        ``make_data(rng)`` returns ``(X, y, X_test, y_test)`` drawn with the
        :class:`numpy.random.Generator` ``rng``; ``X, y`` are what ``fit``
        gets (train and calibration data), the test points are exchangeable
        with the calibration points.
    alpha : float
        Miscoverage level the estimator was built with, in (0, 1).
    n_reps : int
        Number of replications (>= 2). With ``exact=True``, ``n = 19``
        calibration points and 100 test points per replication, 200
        replications detect a threshold one rank off (0.90 vs 0.85) with
        power above 0.999 at ``false_alarm=1e-3``.
    exact : bool, default=False
        Check the exact coverage ``k / (n + 1)`` (two-sided) instead of the
        bound ``>= 1 - alpha``; needs ``n_calib_`` on the fitted estimator.
    false_alarm : float, default=1e-3
        Probability of failing a correct setup, in (0, 0.5).
    covered : callable, optional
        ``covered(estimator, X_test, y_test)`` -> boolean array; defaults to
        membership in ``predict_interval`` / ``predict_set``.
    random_state : None, int, Generator or RandomState, default=None
        Root of the replications' random streams (replication ``r`` uses the
        same stream for any ``n_jobs`` and backend).
    n_jobs : int, optional
        Parallel workers, as in :func:`statlearn.simulation.run_study`.
    backend : {"sequential", "loky", "threading", "dask"}, optional
        The study runner's backend; ``"dask"`` sends replications to the
        current Dask client. With process backends the two makers must be
        picklable (cloudpickle handles lambdas).
    progress : bool, default=False
        Show a progress bar.

    Returns
    -------
    GuaranteeCheck
        ``values`` holds the coverage fraction of each replication;
        ``estimate`` is the pooled coverage of all test points with
        ``exact=True`` and the mean of ``values`` (what the bound is about)
        otherwise; the two agree when every replication has as many test points.

    Raises
    ------
    ValueError
        With ``exact=True`` when the fitted estimator has no ``n_calib_``.

    See Also
    --------
    check_fdr : the same for conformal selection.
    mc_size : replications needed for a given deviation.

    References
    ----------
    Vovk, Gammerman & Shafer (2005), *Algorithmic Learning in a Random World*;
    Angelopoulos & Bates (2023), "Conformal prediction: a gentle
    introduction", Section 3.2 (the Beta law of the conditional coverage);
    Hoeffding (1963), "Probability inequalities for sums of bounded random
    variables", JASA 58.

    Examples
    --------
    >>> import numpy as np
    >>> from statlearn.conformal import SplitConformalRegressor
    >>> from statlearn.testing import check_coverage
    >>> def make_data(rng):
    ...     X = rng.normal(size=(60, 1))
    ...     y = X[:, 0] + rng.normal(size=60)
    ...     return X[:40], y[:40], X[40:], y[40:]
    >>> res = check_coverage(
    ...     lambda seed: SplitConformalRegressor(alpha=0.2, calib_size=0.5, random_state=seed),
    ...     make_data, alpha=0.2, n_reps=50, exact=True, random_state=0)
    >>> res.passed, res.expected  # 20 calibration points: k = 17, coverage 17/21
    (True, 0.8095...)
    """
    n_reps, false_alarm = check_common("make_estimator", make_estimator, make_data, n_reps,
                                       false_alarm, n_jobs, backend, progress)
    alpha = check_alpha_level(alpha)
    if not isinstance(exact, bool | np.bool_):
        raise TypeError(f"exact must be a bool, got {type(exact).__name__} {exact!r}.")
    if covered is not None and not callable(covered):
        raise TypeError(f"covered must be callable or None, got {type(covered).__name__}.")
    table = replicate(_coverage_rep, n_reps, random_state, n_jobs, backend, progress,
                      "check_coverage", make_estimator=make_estimator, make_data=make_data,
                      covered=covered or default_covered)
    hits = table["covered"].to_numpy(dtype=np.int64)
    sizes = table["n_test"].to_numpy(dtype=np.int64)
    n_cal = table["n_calib"].to_numpy(dtype=np.int64)
    total = int(sizes.sum())
    estimate = float(hits.sum() / total)
    values = hits / sizes
    if exact:
        if np.any(n_cal < 1):
            raise ValueError("exact=True needs the number of calibration points: the fitted "
                             "estimator has no n_calib_ attribute; set exact=False.")
        groups, ks = {}, []
        for m, n in zip(sizes.tolist(), n_cal.tolist()):
            k = conformal_rank(n, alpha)
            if k > n:
                raise ValueError(f"alpha={alpha!r} is below 1/(n_calib_ + 1) = 1/{n + 1}: the "
                                 "threshold is infinite and coverage is 1 whatever the "
                                 "estimator; use a larger calibration set or alpha.")
            ks.append((k, n))
            groups[(m, k, n + 1 - k)] = groups.get((m, k, n + 1 - k), 0) + 1
        lo, hi, _mean, sd = betabinom_sum_region(groups, false_alarm, "two-sided")
        expected = sum(m * k / (n + 1) for m, (k, n) in zip(sizes.tolist(), ks)) / total
        k0, n0 = ks[0]
        same = all(kn == ks[0] for kn in ks)
        guarantee = (f"coverage == {k0}/{n0 + 1}" if same
                     else f"coverage == mean of k/(n+1) = {expected:.4g}")
        region = ConfidenceInterval(lo / total, hi / total)
        detectable = _detectable(sd / total, expected - region.low)
        alternative, method = "two-sided", "exact law of the sum of beta-binomial counts"
    else:
        expected = 1 - alpha
        region = ConfidenceInterval(*bounded_mean_region(n_reps, expected, false_alarm,
                                                         "less"))
        # the test uses the mean of the per-replication fractions
        estimate_for_test = float(values.mean())
        sd = float(values.std(ddof=1)) / np.sqrt(n_reps)
        detectable = _detectable(sd, expected - region.low)
        alternative = "less"
        method = "Hoeffding (1963) relative-entropy bound for a mean of values in [0, 1]"
        guarantee = f"coverage >= 1 - alpha = {expected:.4g}"
        estimate = estimate_for_test
    passed = bool(region.low <= estimate <= region.high)
    return GuaranteeCheck(guarantee=guarantee, estimate=estimate, expected=float(expected),
                          acceptance_region=region, passed=passed,
                          detectable_deviation=float(detectable), n_reps=n_reps,
                          false_alarm=false_alarm, alternative=alternative, method=method,
                          values=values)

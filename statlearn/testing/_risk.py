"""``check_risk``: the risk of a risk controller (CRC in expectation, LTT in probability)."""

from __future__ import annotations

import math

import numpy as np
from scipy import stats

from ..utils import ConfidenceInterval, check_real
from ._bounds import bounded_mean_region
from ._bounds import detectable_deviation as _detectable
from ._results import GuaranteeCheck
from ._runner import call_maker, check_alpha_level, check_common, replicate, unpack_data

__all__ = ["check_risk"]


def _default_risk(controller, X_test, y_test):
    """Test risk of statlearn's controllers: the mean loss of their decisions."""
    from ..conformal import (
        BinaryRiskController,
        MultiLabelRiskController,
        binary_losses,
        multilabel_fnr_losses,
        multilabel_precision_losses,
    )

    if isinstance(controller, MultiLabelRiskController):
        t = controller.threshold_
        losses = (multilabel_fnr_losses if controller.risk == "recall" else
                  multilabel_precision_losses)
        return float(losses(y_test, controller.predict_proba(X_test), [t]).mean())
    if isinstance(controller, BinaryRiskController):
        t = controller.threshold_
        p = controller.predict_proba(X_test)[:, 1]
        y01 = (np.asarray(y_test) == controller.classes_[1]).astype(float)
        losses = binary_losses(y01, p, [t], risk=controller.risk)[:, 0]
        counted = np.isfinite(losses)
        # no counted unit (no positive prediction, or no positive): no error made
        return float(losses[counted].mean()) if counted.any() else 0.0
    raise TypeError(f"risk=None needs a statlearn MultiLabelRiskController or "
                    f"BinaryRiskController, got {type(controller).__name__}; pass "
                    "risk=callable(controller, X_test, y_test) -> float.")


def _risk_rep(make_controller, make_data, risk, bound, rng):
    X, y, X_test, y_test = unpack_data(make_data(rng))
    ctrl = call_maker(make_controller, rng)
    ctrl.fit(X, y)
    value = float(risk(ctrl, X_test, y_test))
    if math.isnan(value) or not 0.0 <= value <= bound:
        raise ValueError(f"the test risk must be in [0, bound = {bound:g}], got {value!r}.")
    return {"risk": value}


def check_risk(make_controller, make_data, *, alpha, n_reps, delta=None, bound=1.0,
               false_alarm=1e-3, risk=None, random_state=None, n_jobs=None, backend=None,
               progress=False) -> GuaranteeCheck:
    """Check a risk controller's guarantee by simulation: in expectation or in probability.

    Each replication draws a data set, fits a fresh controller on its first
    part (the calibration data) and records the risk of its decisions on the
    test part. Two guarantees:

    * ``delta=None`` (conformal risk control, Angelopoulos et al., ICLR 2024,
      Theorem 1): ``E[risk] <= alpha``. One-sided check of the mean test risk,
      with Hoeffding's (1963, Theorem 1) relative-entropy bound for values in
      ``[0, bound]``, whatever their distribution.
    * ``delta`` given (learn-then-test, Angelopoulos et al., arXiv:2110.01052,
      Theorem 1): ``P(risk > alpha) <= delta``. One-sided exact binomial check
      of the number of replications whose test risk exceeds ``alpha``.

    The test risk of one replication estimates the controller's risk with the
    noise of a finite test set. For ``delta=None`` that noise averages out (the
    mean test risk is unbiased). With ``delta`` it adds exceedances when the
    risk is close to ``alpha``, so a test set too small can fail a correct
    controller: use one whose risk estimate has a standard error well below the
    controller's margin to ``alpha``.

    Parameters
    ----------
    make_controller : callable
        ``make_controller(random_state)`` (or ``make_controller()``) returns an
        unfitted controller with ``fit(X, y)`` (for instance
        :class:`statlearn.conformal.MultiLabelRiskController` around a fitted
        model with ``prefit=True``).
    make_data : callable
        ``make_data(rng)`` returns ``(X_cal, y_cal, X_test, y_test)``.
    alpha : float
        Target risk, in (0, 1) (times ``bound``: the risk is at most ``alpha``).
    n_reps : int
        Number of replications (>= 2).
    delta : float in (0, 1), optional
        Learn-then-test's error probability; None checks the expectation.
    bound : float, default=1.0
        Largest value of the loss (``B``); risks outside ``[0, bound]`` raise.
    false_alarm : float, default=1e-3
        Probability of failing a controller whose guarantee holds.
    risk : callable, optional
        ``risk(controller, X_test, y_test)`` -> float. Default: the mean loss
        of a statlearn controller's decisions (its own ``risk``).
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
        ``values`` holds the test risk of each replication; with ``delta`` the
        estimate is the share of replications above ``alpha``.

    See Also
    --------
    check_fdr : the false discovery rate of a selector.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.linear_model import LogisticRegression
    >>> from sklearn.multioutput import MultiOutputClassifier
    >>> from statlearn.conformal import MultiLabelRiskController
    >>> from statlearn.testing import check_risk
    >>> rng = np.random.default_rng(0)
    >>> def draw(rng, n):
    ...     X = rng.normal(size=(n, 3))
    ...     Y = (X + rng.normal(size=(n, 3)) > 0).astype(int)
    ...     return X, Y
    >>> model = MultiOutputClassifier(LogisticRegression()).fit(*draw(rng, 500))
    >>> def make_data(rng):
    ...     X, Y = draw(rng, 300)
    ...     return X[:100], Y[:100], X[100:], Y[100:]
    >>> res = check_risk(lambda: MultiLabelRiskController(model, alpha=0.2, prefit=True),
    ...                  make_data, alpha=0.2, n_reps=30, random_state=0)
    >>> res.passed, res.alternative
    (True, 'greater')
    """
    n_reps, false_alarm = check_common("make_controller", make_controller, make_data, n_reps,
                                       false_alarm, n_jobs, backend, progress)
    alpha = check_alpha_level(alpha)
    bound = check_real(bound, "bound", low=0, closed="neither")
    if alpha > bound:
        raise ValueError(f"alpha must be at most bound = {bound:g}, got alpha = {alpha:g}.")
    if delta is not None:
        delta = check_alpha_level(delta, "delta")
    if risk is not None and not callable(risk):
        raise TypeError(f"risk must be callable or None, got {type(risk).__name__}.")
    table = replicate(_risk_rep, n_reps, random_state, n_jobs, backend, progress,
                      "check_risk", make_controller=make_controller, make_data=make_data,
                      risk=risk or _default_risk, bound=bound)
    values = table["risk"].to_numpy(dtype=float)
    if delta is None:
        estimate = float(values.mean())
        lo, hi = bounded_mean_region(n_reps, alpha / bound, false_alarm, "greater")
        region = ConfidenceInterval(lo * bound, hi * bound)
        sd = float(values.std(ddof=1)) / math.sqrt(n_reps)
        return GuaranteeCheck(
            guarantee=f"E[risk] <= {alpha:g}", estimate=estimate, expected=alpha,
            acceptance_region=region, passed=bool(estimate <= region.high),
            detectable_deviation=_detectable(sd, region.high - alpha), n_reps=n_reps,
            false_alarm=false_alarm, alternative="greater",
            method="Hoeffding (1963) relative-entropy bound for a mean of values in "
                   f"[0, {bound:g}]", values=values)
    exceed = values > alpha
    # the largest count with P(Bin(n, delta) >= count) > false_alarm is accepted
    high = int(stats.binom.isf(false_alarm, n_reps, delta))
    region = ConfidenceInterval(0.0, high / n_reps)
    estimate = float(exceed.mean())
    sd = math.sqrt(delta * (1 - delta) / n_reps)
    return GuaranteeCheck(
        guarantee=f"P(risk > {alpha:g}) <= {delta:g}", estimate=estimate, expected=delta,
        acceptance_region=region, passed=bool(exceed.sum() <= high),
        detectable_deviation=_detectable(sd, region.high - delta), n_reps=n_reps,
        false_alarm=false_alarm, alternative="greater",
        method="exact binomial tail of the count of replications with risk above alpha",
        values=values)

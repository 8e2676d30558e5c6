"""Conformal selection with false discovery rate control: cfBH and MCCS.

cfBH (Jin & Candes, 2023) selects the test units whose unobserved response
exceeds a threshold, ``Y > c``, by running Benjamini-Hochberg on conformal
p-values built from a monotone score. Multi-Condition Conformal Selection
(MCCS; Hao, Liao, Jing & Wei, 2026) extends it to a response that must lie in
a bounded interval (conjunctive condition, region-monotone score) or in a
union of intervals (disjunctive condition, one BH over every (unit,
condition) p-value), and to several responses at once (box-shaped regions
over several tasks).

Every condition here is a *box*: an open interval ``(lower_t, upper_t)``
(either end may be infinite) for each task ``t`` it constrains. Its score
uses the signed depth of the prediction in the box,
``d(x) = min_t min(mu_t(x) - lower_t, upper_t - mu_t(x))``:
``V(x, y) = M - d(x)`` when ``y`` lies in the box and ``V = -d(x)`` otherwise,
and the test statistic is the null value ``-d(x)``. For a half-line
``(c, inf)`` this is the clipped score of cfBH.
"""

from __future__ import annotations

import math
import numbers
import warnings
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from ..utils import (
    Summary,
    check_alpha,
    check_option,
    check_real,
    check_rng,
    get_namespace,
    to_numpy,
)
from ..utils._array_api import is_numpy_namespace
from ._arrays import host
from ._quantile import conformal_pvalues

__all__ = [
    "SelectionResult",
    "SmallCalibrationWarning",
    "bh_select",
    "cfbh",
    "mccs",
    "region_scores",
]

METHODS = ("mccs", "int", "uni", "int-b", "uni-b", "ind")


class SmallCalibrationWarning(UserWarning):
    """The calibration set is too small for some selections to be possible.

    With deterministic p-values the smallest p-value is ``1 / (n + 1)``, so
    selecting ``l`` of ``N`` hypotheses at level ``q`` needs
    ``n + 1 >= N / (q l)``.
    """


# ---------------------------------------------------------------------------
# Benjamini-Hochberg


def bh_select(pvalues, q):
    """Benjamini-Hochberg step-up selection at level ``q``.

    With ``N`` p-values sorted as ``p_(1) <= ... <= p_(N)``,
    ``l* = max{l : p_(l) <= q l / N}`` (0 if none) and the selected
    hypotheses are those with ``p <= q l* / N``, computed with one sort (the
    tests hold it equal to :func:`scipy.stats.false_discovery_control`,
    adjusted p-values ``<= q``, which argsorts and is several times slower
    on millions of p-values).

    Parameters
    ----------
    pvalues : array of any shape
        P-values in ``[0, 1]``.
    q : float
        Target false discovery rate in (0, 1).

    Returns
    -------
    selected : boolean array of the shape of ``pvalues``
    threshold : float
        The BH cut ``q l* / N`` (``0.0`` when nothing is selected).

    Examples
    --------
    >>> import numpy as np
    >>> from statlearn.conformal import bh_select
    >>> sel, cut = bh_select(np.array([0.01, 0.04, 0.03, 0.5]), q=0.1)
    >>> sel.tolist(), round(cut, 3)
    ([True, True, True, False], 0.075)
    """
    q = check_alpha(q, "q")
    pvalues = host(pvalues)
    xp = get_namespace(pvalues)
    p = xp.asarray(pvalues, dtype=xp.float64)
    if p.ndim == 0 or math.prod(p.shape) == 0:
        raise ValueError(f"pvalues must hold at least one p-value, got shape {tuple(p.shape)}.")
    if bool(xp.any(xp.isnan(p))) or bool(xp.any(p < 0)) or bool(xp.any(p > 1)):
        raise ValueError("pvalues must be numbers in [0, 1] (no NaN).")
    n_hyp = math.prod(p.shape)
    flat = xp.reshape(p, (-1,))
    # one (unstable, for NumPy) sort; scipy's false_discovery_control argsorts
    srt = np.sort(flat) if is_numpy_namespace(xp) else xp.sort(flat)
    crit = q * xp.arange(1, n_hyp + 1, dtype=xp.float64) / n_hyp
    ok = xp.nonzero(srt <= crit)[0]
    k = int(ok[-1]) + 1 if ok.shape[0] > 0 else 0
    selected = p <= q * k / n_hyp if k > 0 else xp.zeros(p.shape, dtype=xp.bool)
    return selected, (q * k / n_hyp if k > 0 else 0.0)


# ---------------------------------------------------------------------------
# Scores


def _as_float(xp, a, name, ndim=None):
    try:
        out = xp.asarray(a, dtype=xp.float64)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must be an array of real numbers: {exc}") from exc
    if ndim is not None and out.ndim not in ndim:
        raise ValueError(f"{name} must have {' or '.join(map(str, ndim))} dimensions, "
                         f"got shape {tuple(out.shape)}.")
    if bool(xp.any(xp.isnan(out))):
        raise ValueError(f"{name} must not contain NaN.")
    return out


def _depth(xp, mu, lower, upper):
    """Signed depth ``min_t min(mu_t - lower_t, upper_t - mu_t)``, shape (n,)."""
    d = xp.minimum(mu - lower, upper - mu)
    return xp.min(d, axis=1)


def _inside(xp, y, lower, upper):
    return xp.all((y > lower) & (y < upper), axis=1)


def region_scores(mu, y=None, *, lower=-np.inf, upper=np.inf, M=None):
    """Region-monotone scores of one condition ``lower < y < upper``.

    With the signed depth ``d(x) = min(mu(x) - lower, upper - mu(x))`` of the
    prediction in the region (minimum over columns for several tasks):
    ``V(x, y) = M - d(x)`` if ``lower < y < upper`` (every column) and
    ``V(x, y) = -d(x)`` otherwise. Without ``y`` the test statistic, the null
    value ``-d(x)``, is returned. For ``upper = inf`` this is the clipped
    cfBH score (``M`` in place of ``M + c``); for ``lower = -inf`` its mirror.

    Parameters
    ----------
    mu : array of shape (n,) or (n, T)
        Predictions of the response(s).
    y : array of the shape of ``mu``, optional
        Observed responses (calibration); omit for test points.
    lower, upper : float or array broadcastable to ``mu``
        Open region ``(lower, upper)``; infinite ends allowed,
        ``lower < upper`` required. Per-unit values allowed.
    M : float or None, default=None
        Score offset of in-region units; ``None`` means ``+inf``.

    Returns
    -------
    array of shape (n,)

    Examples
    --------
    >>> import numpy as np
    >>> from statlearn.conformal import region_scores
    >>> mu = np.array([0.9, 1.5])
    >>> region_scores(mu, np.array([0.7, 1.1]), lower=0.0, upper=1.0, M=100.0)
    array([99.9,  0.5])
    >>> region_scores(mu, lower=0.0, upper=1.0)
    array([-0.1,  0.5])
    """
    mu, y, lower, upper = host(mu), host(y), host(lower), host(upper)
    xp = get_namespace(mu, y)
    mu_ = _as_float(xp, mu, "mu", ndim=(1, 2))
    if bool(xp.any(xp.isinf(mu_))):
        raise ValueError("mu must be finite.")
    mu2 = mu_[:, None] if mu_.ndim == 1 else mu_
    lo = _as_float(xp, lower, "lower")
    hi = _as_float(xp, upper, "upper")
    try:
        lo_b, hi_b = (xp.broadcast_to(lo[..., None] if (lo.ndim == 1 and mu_.ndim == 1) else lo,
                                      mu2.shape),
                      xp.broadcast_to(hi[..., None] if (hi.ndim == 1 and mu_.ndim == 1) else hi,
                                      mu2.shape))
    except ValueError as exc:
        raise ValueError(f"lower and upper must broadcast to mu's shape {tuple(mu_.shape)}: "
                         f"{exc}") from exc
    if bool(xp.any(lo_b >= hi_b)):
        raise ValueError("lower must be strictly below upper (degenerate region).")
    d = _depth(xp, mu2, lo_b, hi_b)
    if bool(xp.any(xp.isinf(d))):
        raise ValueError("the region must have at least one finite end.")
    if y is None:
        return -d
    y_ = _as_float(xp, y, "y", ndim=(mu_.ndim,))
    if tuple(y_.shape) != tuple(mu_.shape):
        raise ValueError(f"y must have the shape of mu {tuple(mu_.shape)}, got {tuple(y_.shape)}.")
    M_ = _check_M(M)
    inside = _inside(xp, y_[:, None] if y_.ndim == 1 else y_, lo_b, hi_b)
    return xp.where(inside, M_ - d, -d)


def _check_M(M):
    if M is None:
        return math.inf
    M = check_real(M, "M", low=0, closed="neither", allow_inf=True)
    return M


# ---------------------------------------------------------------------------
# Conditions


def _parse_conditions(conditions, n_tasks):
    """Lower/upper bounds of shape (K, T) from intervals or {task: interval} boxes."""
    if isinstance(conditions, Mapping) or (
        isinstance(conditions, tuple | list) and len(conditions) == 2
        and all(isinstance(c, numbers.Real) for c in conditions)
    ):
        conditions = [conditions]
    try:
        conds = list(conditions)
    except TypeError:
        raise TypeError("conditions must be a sequence of (lower, upper) intervals or of "
                        f"{{task: (lower, upper)}} mappings, got {conditions!r}.") from None
    if not conds:
        raise ValueError("conditions must hold at least one condition.")
    K = len(conds)
    lower = np.full((K, n_tasks), -np.inf)
    upper = np.full((K, n_tasks), np.inf)
    for k, cond in enumerate(conds):
        items = cond.items() if isinstance(cond, Mapping) else [(0, cond)]
        if isinstance(cond, Mapping) and not cond:
            raise ValueError(f"conditions[{k}] constrains no task.")
        for task, interval in items:
            if isinstance(task, bool) or not isinstance(task, numbers.Integral) \
                    or not 0 <= task < n_tasks:
                raise ValueError(f"conditions[{k}]: task must be an integer in "
                                 f"[0, {n_tasks - 1}], got {task!r}.")
            try:
                lo, hi = interval
            except (TypeError, ValueError):
                raise TypeError(f"conditions[{k}] must be a (lower, upper) pair, "
                                f"got {interval!r}.") from None
            lo = check_real(lo, f"conditions[{k}] lower end", allow_inf=True)
            hi = check_real(hi, f"conditions[{k}] upper end", allow_inf=True)
            if not lo < hi:
                raise ValueError(f"conditions[{k}] is degenerate: lower end {lo} must be "
                                 f"strictly below upper end {hi}.")
            if math.isinf(lo) and math.isinf(hi):
                raise ValueError(f"conditions[{k}] = ({lo}, {hi}) constrains nothing; give at "
                                 "least one finite end.")
            lower[k, task], upper[k, task] = lo, hi
    return lower, upper


def _intersect_boxes(lower, upper):
    lo = lower.max(axis=0, keepdims=True)
    hi = upper.min(axis=0, keepdims=True)
    if np.any(lo >= hi):
        raise ValueError("the conjunction of the conditions is empty (an upper end is at or "
                         "below a lower end).")
    return lo, hi


# ---------------------------------------------------------------------------
# Result


@dataclass(frozen=True, repr=False, slots=True)
class SelectionResult:
    """Outcome of a conformal selection.

    Attributes
    ----------
    selected : ndarray of int, shape (n_selected,)
        Selected test units (sorted, 0-based).
    pairs : ndarray of int, shape (n_pairs, 2)
        Selected ``(unit, condition)`` pairs.
    pvalues : ndarray of shape (m, K)
        Conformal p-values of every (unit, condition) hypothesis (for the
        set-operation baselines, the largest of a condition's per-boundary
        p-values; for ``"ind"``, the p-values of the indicator, ``K = 1``).
    threshold : float
        BH cut ``q l* / N`` on the pooled p-values (``0.0`` if nothing was
        selected). For the set-operation baselines, the smallest cut used.
    q : float
        Target false discovery rate.
    method : str
        ``"cfbh"``, ``"mccs"`` or a baseline name.
    n_calibration : int
        Calibration size ``n``.
    fdp, pair_fdp, power : float
        When true test responses were given: unit-level false discovery
        proportion (selected units outside the target), pair-level FDP
        (selected pairs whose unit is outside that condition's region), and
        power (selected target units / target units); NaN otherwise.
    """

    selected: np.ndarray
    pairs: np.ndarray
    pvalues: np.ndarray
    threshold: float
    q: float
    method: str
    n_calibration: int
    fdp: float = math.nan
    pair_fdp: float = math.nan
    power: float = math.nan

    @property
    def n_selected(self) -> int:
        """Number of selected units."""
        return int(self.selected.size)

    @property
    def n_test(self) -> int:
        """Number of test units ``m``."""
        return int(self.pvalues.shape[0])

    @property
    def n_conditions(self) -> int:
        """Number of conditions ``K``."""
        return int(self.pvalues.shape[1])

    def __repr__(self) -> str:
        return (f"SelectionResult(method={self.method!r}, q={self.q:g}, "
                f"n_selected={self.n_selected}, n_pairs={len(self.pairs)}, "
                f"threshold={self.threshold:.4g}, n_test={self.n_test}, "
                f"n_conditions={self.n_conditions}, fdp={self.fdp:.4g}, power={self.power:.4g})")

    def summary(self) -> Summary:
        """Counts, the BH cut and (with true responses) FDP and power."""
        import pandas as pd

        table = pd.DataFrame({
            "method": [self.method], "q": [self.q], "n_calibration": [self.n_calibration],
            "n_test": [self.n_test], "n_conditions": [self.n_conditions],
            "selected units": [self.n_selected], "selected pairs": [len(self.pairs)],
            "BH threshold": [self.threshold], "FDP": [self.fdp], "pair FDP": [self.pair_fdp],
            "power": [self.power],
        }).T.rename(columns={0: "value"})
        notes = ("FDP, pair FDP and power are NaN unless true responses were given.",)
        return Summary("Conformal selection", {"": table}, notes)

    def plot(self, ax=None):
        """Sorted p-values against their rank, with the BH line ``q l / N``.

        Selected (unit, condition) hypotheses are drawn filled.

        Returns
        -------
        matplotlib.axes.Axes
        """
        import matplotlib.pyplot as plt

        if ax is None:
            _, ax = plt.subplots(figsize=(5, 3.5))
        p = np.sort(self.pvalues.ravel())
        N = p.size
        rank = np.arange(1, N + 1)
        n_sel = len(self.pairs)
        ax.plot(rank[n_sel:], p[n_sel:], ".", color="0.6", ms=3, label="not selected")
        if n_sel:
            ax.plot(rank[:n_sel], p[:n_sel], ".", color="C3", ms=4, label="selected")
        ax.plot(rank, self.q * rank / N, "-", color="C0", lw=1,
                label=f"BH line q l / N, q={self.q:g}")
        if self.threshold > 0:
            ax.axhline(self.threshold, color="C0", ls=":", lw=1)
        ax.set_xlabel("rank l")
        ax.set_ylabel("sorted p-value")
        ax.set_title(f"{self.method}: {self.n_selected} units selected")
        ax.legend(fontsize=8, loc="upper left")
        return ax


# ---------------------------------------------------------------------------
# Core


def _uniforms(rng, shape, randomize, xp, like):
    if not randomize:
        return None
    u = rng.random(shape)
    return u if is_numpy_namespace(xp) else xp.asarray(u, device=_device(like))


def _given_u(xp, u, shape):
    uu = _as_float(xp, host(u), "u")
    if tuple(uu.shape) != shape:
        raise ValueError(f"u must have shape {shape}, got {tuple(uu.shape)}.")
    if bool(xp.any(uu < 0)) or bool(xp.any(uu > 1)):
        raise ValueError("u must hold numbers in [0, 1].")
    return uu


def _device(a):
    import array_api_compat

    return array_api_compat.device(a)


def _warn_small(n, N, q, randomize):
    """Spec edge case: warn when the calibration set rules selections out.

    With deterministic p-values (``U = 1``) the smallest p-value is
    ``1 / (n + 1)``: nothing can be selected when ``n + 1 < 1 / q``, and a
    selection of fewer than ``N / (q (n + 1))`` hypotheses is impossible when
    ``n + 1 < N / q``. Randomised p-values can fall below ``1 / (n + 1)``, but
    only by the luck of ``U``, so the first warning is given for both and the
    second, which is common and harmless when many units qualify, only for
    deterministic p-values.
    """
    if n + 1 < 1.0 / q:
        warnings.warn(f"n + 1 = {n + 1} < 1/q = {1 / q:.4g}: with deterministic p-values no "
                      "selection is possible at this level (randomised ones select only by "
                      "the luck of the tie-breaking uniforms).", SmallCalibrationWarning,
                      stacklevel=3)
    elif n + 1 < N / q and not randomize:
        warnings.warn(f"n + 1 = {n + 1} < N/q = {N / q:.4g} (N = {N} hypotheses): with "
                      "deterministic p-values a selection of fewer than "
                      f"{math.ceil(N / (q * (n + 1)))} pairs is impossible; expect low power "
                      "when few units qualify.", SmallCalibrationWarning, stacklevel=3)


def _condition_pvalues(xp, mu_cal, y_cal, mu_test, lower, upper, M, u):
    """P-values of one box condition for every test unit, shape (m,)."""
    d_cal = _depth(xp, mu_cal, lower, upper)
    d_test = _depth(xp, mu_test, lower, upper)
    inside = _inside(xp, y_cal, lower, upper)
    # nonconformity = -V: d for null units, d - M for in-region units
    s_cal = xp.where(inside, d_cal - M, d_cal)
    return conformal_pvalues(d_test, s_cal, u)


def _prepare(mu_cal, y_cal, mu_test, y_test):
    mu_cal, y_cal, mu_test, y_test = map(host, (mu_cal, y_cal, mu_test, y_test))
    xp = get_namespace(mu_cal, y_cal, mu_test, y_test)
    mc = _as_float(xp, mu_cal, "mu_cal", ndim=(1, 2))
    yc = _as_float(xp, y_cal, "y_cal", ndim=(1, 2))
    mt = _as_float(xp, mu_test, "mu_test", ndim=(1, 2))
    for name, a in (("mu_cal", mc), ("mu_test", mt)):
        if bool(xp.any(xp.isinf(a))):
            raise ValueError(f"{name} must be finite.")
    if mc.ndim == 1:
        mc = mc[:, None]
    if yc.ndim == 1:
        yc = yc[:, None]
    if mt.ndim == 1:
        mt = mt[:, None]
    if mc.shape[0] == 0:
        raise ValueError("mu_cal must hold at least one calibration point.")
    if mt.shape[0] == 0:
        raise ValueError("mu_test must hold at least one test point.")
    if tuple(yc.shape) != tuple(mc.shape):
        raise ValueError(f"y_cal must have the shape of mu_cal {tuple(mc.shape)}, "
                         f"got {tuple(yc.shape)}.")
    if mt.shape[1] != mc.shape[1]:
        raise ValueError(f"mu_test must have {mc.shape[1]} column(s) like mu_cal, "
                         f"got {mt.shape[1]}.")
    yt = None
    if y_test is not None:
        yt = _as_float(xp, y_test, "y_test", ndim=(1, 2))
        if yt.ndim == 1:
            yt = yt[:, None]
        if tuple(yt.shape) != tuple(mt.shape):
            raise ValueError(f"y_test must have the shape of mu_test {tuple(mt.shape)}, "
                             f"got {tuple(yt.shape)}.")
    return xp, mc, yc, mt, yt


def _truth_metrics(in_cond, target, pairs_mask, unit_mask):
    """Unit FDP, pair FDP and power from truth (NumPy boolean arrays)."""
    n_sel = int(unit_mask.sum())
    fdp = float((unit_mask & ~target).sum() / max(1, n_sel))
    n_pairs = int(pairs_mask.sum())
    pair_fdp = float((pairs_mask & ~in_cond).sum() / max(1, n_pairs))
    power = float((unit_mask & target).sum() / max(1, int(target.sum())))
    return fdp, pair_fdp, power


def _result(method, pair_mask, pvalues, threshold, q, n, in_cond=None, target=None):
    pair_mask = np.asarray(to_numpy(pair_mask), dtype=bool)
    unit_mask = pair_mask.any(axis=1)
    pairs = np.argwhere(pair_mask).astype(np.int64)
    fdp = pair_fdp = power = math.nan
    if in_cond is not None:
        fdp, pair_fdp, power = _truth_metrics(in_cond, target, pair_mask, unit_mask)
    return SelectionResult(selected=np.flatnonzero(unit_mask), pairs=pairs,
                           pvalues=np.asarray(to_numpy(pvalues), dtype=np.float64),
                           threshold=float(threshold), q=q, method=method, n_calibration=n,
                           fdp=fdp, pair_fdp=pair_fdp, power=power)


def mccs(mu_cal, y_cal, mu_test, conditions, *, q=0.1, mode="disjunctive", method="mccs",
         randomize=True, M=None, y_test=None, ind_cal=None, ind_test=None, random_state=None,
         u=None):
    """Multi-Condition Conformal Selection with false discovery rate control.

    Selects test units whose unobserved response lies in a target region,
    given predictions ``mu`` from a model fitted on separate data. Each
    condition ``k`` is a box (an open interval per task it constrains) and
    gets region-monotone scores and conformal p-values ``p_j^k`` for every
    test unit ``j`` (null: ``Y_j`` outside box ``k``). ``mode="disjunctive"``
    (target = union of the boxes) pools all ``m K`` p-values in one BH at
    level ``q`` and selects the units with at least one selected pair;
    ``mode="conjunctive"`` intersects the boxes into one and runs BH on its
    ``m`` p-values. With exchangeable calibration and test data the FDR is at
    most ``q`` for any model, any ``n``, ``m``, and any ``M`` (pairs and
    units; see Notes).

    Parameters
    ----------
    mu_cal : array of shape (n,) or (n, T)
        Predictions for the calibration points (``T`` tasks).
    y_cal : array of the shape of ``mu_cal``
        Calibration responses.
    mu_test : array of shape (m,) or (m, T)
        Predictions for the test points.
    conditions : (lower, upper) or sequence of (lower, upper) or of {task: (lower, upper)}
        The regions. A pair is an interval of task 0; a mapping constrains
        several tasks at once (a box). Infinite ends allowed; ``lower < upper``.
    q : float, default=0.1
        Target FDR in (0, 1).
    mode : {"disjunctive", "conjunctive"}, default="disjunctive"
        Target = union (any condition) or intersection (all conditions).
    method : {"mccs", "int", "uni", "int-b", "uni-b", "ind"}, default="mccs"
        ``"mccs"``: the procedure above. Baselines, which do not control the
        FDR in general: ``"int"``/``"uni"`` run cfBH at level ``q`` separately
        for every finite end (``y > lower``, ``y < upper``) of every
        interval, intersect the selections within a box and unite them across
        boxes (Int for one bounded interval, Uni for a union of half-lines);
        ``"int-b"``/``"uni-b"`` do the same at level ``q / B`` for ``B`` finite
        ends (Bonferroni); ``"ind"`` runs cfBH with the clipped score on the
        binary response ``1{Y in target}`` with predictions ``ind_cal``,
        ``ind_test`` (e.g. a classifier's ``P(Y in target | x)``).
    randomize : bool, default=True
        Break ties with independent ``U ~ Unif(0, 1)`` per (unit, condition);
        ``False`` uses ``U = 1`` (conservative).
    M : float or None, default=None
        Score offset of in-region calibration units; ``None`` means ``+inf``.
    y_test : array of the shape of ``mu_test``, optional
        True test responses, to report FDP and power.
    ind_cal, ind_test : array of shape (n,), (m,), optional
        Predictions of ``1{Y in target}`` for ``method="ind"``.
    random_state : None, int, Generator or SeedSequence
        Source of the tie-breaking uniforms.
    u : array of shape (m, K), optional
        Tie-breaking uniforms to use instead of drawing them (``K`` conditions
        after ``mode`` is applied; one condition for ``"ind"``); overrides
        ``randomize`` and ``random_state``.

    Returns
    -------
    SelectionResult

    Notes
    -----
    ``pair_fdp`` counts a selected pair ``(j, k)`` as false when ``Y_j`` is
    outside box ``k``; ``fdp`` counts a selected unit as false when ``Y_j`` is
    outside the whole target. For disjoint boxes both are controlled.

    References
    ----------
    Q. Hao, W. Liao, B. Jing, H. Wei, "Multi-Condition Conformal Selection",
    ICLR 2026, arXiv:2510.08075.

    Examples
    --------
    >>> import numpy as np
    >>> from statlearn.conformal import mccs
    >>> rng = np.random.default_rng(0)
    >>> mu_cal, mu_test = rng.normal(size=1000), rng.normal(size=50)
    >>> y_cal = mu_cal + 0.1 * rng.normal(size=1000)
    >>> y_test = mu_test + 0.1 * rng.normal(size=50)
    >>> res = mccs(mu_cal, y_cal, mu_test, [(-np.inf, -1.0), (1.0, np.inf)], q=0.2,
    ...            y_test=y_test, random_state=1)
    >>> res.n_selected, round(res.fdp, 3), round(res.power, 3)  # one draw; E[FDP] <= q
    (19, 0.263, 1.0)
    """
    q = check_alpha(q, "q")
    check_option(mode, "mode", ["disjunctive", "conjunctive"])
    check_option(method, "method", list(METHODS))
    if not isinstance(randomize, bool | np.bool_):
        raise TypeError(f"randomize must be a bool, got {randomize!r}.")
    M_ = _check_M(M)
    gen = check_rng(random_state)
    xp, mc, yc, mt, yt = _prepare(mu_cal, y_cal, mu_test, y_test)
    n, T = mc.shape
    m = mt.shape[0]
    lower, upper = _parse_conditions(conditions, T)
    if mode == "conjunctive":
        lower, upper = _intersect_boxes(lower, upper)
    K = lower.shape[0]
    in_cond = target = None
    if yt is not None:
        yt_np = to_numpy(yt)
        in_cond = np.stack([((yt_np > lower[k]) & (yt_np < upper[k])).all(axis=1)
                            for k in range(K)], axis=1)
        target = in_cond.any(axis=1)

    def bounds(k):
        return xp.asarray(lower[k][None, :]), xp.asarray(upper[k][None, :])

    if method == "mccs":
        _warn_small(n, m * K, q, randomize and u is None)
        u = _uniforms(gen, (m, K), randomize, xp, mt) if u is None else _given_u(xp, u, (m, K))
        cols = []
        for k in range(K):
            lo, hi = bounds(k)
            cols.append(_condition_pvalues(xp, mc, yc, mt, lo, hi, M_,
                                           None if u is None else u[:, k]))
        p = xp.stack(cols, axis=1)
        sel, cut = bh_select(p, q)
        return _result(method, sel, p, cut, q, n, in_cond, target)

    if method == "ind":
        if ind_cal is None or ind_test is None:
            raise ValueError('method="ind" needs ind_cal and ind_test (predictions of '
                             "1{Y in target}).")
        yc_np = to_numpy(yc)
        z_cal = np.zeros(n, dtype=bool)
        for k in range(K):
            z_cal |= ((yc_np > lower[k]) & (yc_np < upper[k])).all(axis=1)
        res = cfbh(ind_cal, z_cal.astype(np.float64), ind_test, c_cal=0.5, c_test=0.5, q=q,
                   randomize=randomize, M=M, random_state=gen,
                   u=None if u is None else to_numpy(_given_u(xp, u, (m, 1)))[:, 0])
        mask = np.zeros((m, 1), dtype=bool)
        mask[res.selected, 0] = True
        p = res.pvalues
        in1 = None if target is None else target[:, None]
        out = _result(method, mask, p, res.threshold, q, n, in1, target)
        return out

    # set-operation baselines: one cfBH per finite end
    u_all = None if u is None else _given_u(xp, u, (m, K))
    ends = [(k, t, side) for k in range(K) for t in range(T) for side in (0, 1)
            if np.isfinite((lower, upper)[side][k, t])]
    level = q / len(ends) if method.endswith("-b") else q
    mask = np.ones((m, K), dtype=bool)
    p = np.zeros((m, K))
    cuts = []
    for k, t, side in ends:
        lo = np.full((1, T), -np.inf)
        hi = np.full((1, T), np.inf)
        if side == 0:
            lo[0, t] = lower[k, t]
        else:
            hi[0, t] = upper[k, t]
        uk = _uniforms(gen, (m,), randomize, xp, mt) if u_all is None else u_all[:, k]
        pe = _condition_pvalues(xp, mc, yc, mt, xp.asarray(lo), xp.asarray(hi), M_, uk)
        sel, cut = bh_select(pe, level)
        cuts.append(cut)
        mask[:, k] &= to_numpy(sel)
        p[:, k] = np.maximum(p[:, k], to_numpy(pe))
    positive = [c for c in cuts if c > 0]
    return _result(method, mask, p, min(positive) if positive else 0.0, q, n, in_cond, target)


def cfbh(mu_cal, y_cal, mu_test, *, c_cal=0.0, c_test=None, q=0.1, score="clip",
         randomize=True, M=None, y_test=None, random_state=None, u=None):
    """Conformal selection of units with ``Y > c`` (cfBH, Jin & Candes 2023).

    Calibration scores ``V_i = V(X_i, Y_i)`` from a monotone score, test
    statistics ``V_j = V(X_j, c_j)``, p-values
    ``p_j = (#{i : V_i < V_j} + U_j (1 + #{i : V_i = V_j})) / (n + 1)`` and
    Benjamini-Hochberg at level ``q``. With exchangeable calibration and test
    data the FDR ``E[#{selected j : Y_j <= c_j} / max(1, #selected)]`` is at
    most ``q``.

    Parameters
    ----------
    mu_cal, mu_test : array of shape (n,), (m,)
        Predictions ``mu(x)`` (or any monotone proxy) from a model fitted on
        separate data.
    y_cal : array of shape (n,)
        Calibration responses.
    c_cal, c_test : float or array of shape (n,), (m,)
        Thresholds (per unit allowed). ``c_test=None`` reuses a scalar
        ``c_cal``.
    q : float, default=0.1
        Target FDR in (0, 1).
    score : {"clip", "residual"}, default="clip"
        ``"clip"``: ``V = M 1{y > c} + c 1{y <= c} - mu`` (only null
        calibration units can count, hence more power); ``"residual"``:
        ``V = y - mu``.
    randomize : bool, default=True
        Random tie-breaking ``U_j ~ Unif(0, 1)``; ``False`` uses ``U = 1``.
    M : float or None, default=None
        Clip constant (``None`` = ``+inf``).
    y_test : array of shape (m,), optional
        True test responses, to report FDP and power.
    random_state : None, int, Generator or SeedSequence
        Source of the uniforms.
    u : array of shape (m,), optional
        Tie-breaking uniforms to use instead of drawing them; overrides
        ``randomize`` and ``random_state``.

    Returns
    -------
    SelectionResult
        With ``pvalues`` of shape (m, 1) and ``pairs`` ``(j, 0)``.

    References
    ----------
    Y. Jin, E. J. Candes, "Selection by prediction with conformal p-values",
    JMLR 24 (2023), arXiv:2210.01408.

    Examples
    --------
    >>> import numpy as np
    >>> from statlearn.conformal import cfbh
    >>> mu_cal = np.array([-1.2, -0.5, 0.3, 0.9, 1.5, -0.2, 0.6, 2.0, -0.8, 0.1])
    >>> y_cal = np.array([-1.0, -0.9, 0.5, 0.7, 1.1, 0.2, -0.3, 1.8, -1.5, -0.4])
    >>> mu_test = np.array([1.7, 0.05, -0.6, 0.65, 1.2])
    >>> import warnings; warnings.simplefilter("ignore")  # n is tiny here
    >>> res = cfbh(mu_cal, y_cal, mu_test, q=0.3, u=np.full(5, 0.5))
    >>> res.pvalues[:, 0] * 11
    array([0.5, 2.5, 3.5, 0.5, 0.5])
    >>> res.selected, round(res.threshold, 4)
    (array([0, 1, 3, 4]), 0.24)
    """
    q = check_alpha(q, "q")
    check_option(score, "score", ["clip", "residual"])
    if not isinstance(randomize, bool | np.bool_):
        raise TypeError(f"randomize must be a bool, got {randomize!r}.")
    M_ = _check_M(M)
    gen = check_rng(random_state)
    xp, mc, yc, mt, yt = _prepare(mu_cal, y_cal, mu_test, y_test)
    if mc.shape[1] != 1:
        raise ValueError(f"mu_cal must be 1-D (one response), got shape {tuple(mc.shape)}.")
    n, m = mc.shape[0], mt.shape[0]
    if c_test is None:
        if np.ndim(c_cal) != 0:
            raise ValueError("c_test is required when c_cal is per unit.")
        c_test = c_cal
    cc = _threshold(xp, c_cal, n, "c_cal")
    ct = _threshold(xp, c_test, m, "c_test")
    _warn_small(n, m, q, randomize and u is None)
    if score == "clip":
        # -V with V = M 1{y > c} + c 1{y <= c} - mu; the +c of in-region units is
        # absorbed in M (M = inf by default)
        s_cal = xp.where(yc[:, 0] > cc, mc[:, 0] - M_, mc[:, 0] - cc)
    else:
        s_cal = mc[:, 0] - yc[:, 0]
    s_test = mt[:, 0] - ct
    u = _uniforms(gen, (m,), randomize, xp, mt) if u is None else _given_u(xp, u, (m,))
    p = conformal_pvalues(s_test, s_cal, u)[:, None]
    sel, cut = bh_select(p, q)
    in_cond = target = None
    if yt is not None:
        in_cond = to_numpy(yt[:, 0] > ct)[:, None]
        target = in_cond[:, 0]
    return _result("cfbh", sel, p, cut, q, n, in_cond, target)


def _threshold(xp, c, size, name):
    cc = _as_float(xp, host(c), name, ndim=(0, 1))
    if cc.ndim == 1 and cc.shape[0] != size:
        raise ValueError(f"{name} must be a scalar or have length {size}, got {cc.shape[0]}.")
    if bool(xp.any(xp.isinf(cc))):
        raise ValueError(f"{name} must be finite.")
    return xp.broadcast_to(cc, (size,))

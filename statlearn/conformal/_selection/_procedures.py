"""Benjamini-Hochberg, cfBH and MCCS on arrays of predictions.

Each procedure turns calibration predictions and responses and test
predictions into conformal p-values (:func:`~statlearn.conformal.conformal_pvalues`
on negated monotone scores) and selects by Benjamini-Hochberg: cfBH
(Jin & Candes, 2023) one p-value per unit for ``Y > c``, MCCS (Hao, Liao,
Jing & Wei, 2026) one per (unit, condition) pair pooled in one global BH,
and the set-operation baselines of the MCCS paper (one cfBH per boundary).
"""

from __future__ import annotations

import math
import warnings

import numpy as np

from ...utils import (
    check_alpha,
    check_option,
    check_rng,
    get_namespace,
    to_numpy,
)
from ...utils._array_api import is_numpy_namespace
from .._core._arrays import host
from .._core._quantile import conformal_pvalues
from ._regions import _as_float, _check_M, _depth, _inside, _intersect_boxes, _parse_conditions
from ._result import _result

__all__ = ["CFBH_SCORES", "SmallCalibrationWarning", "bh_select", "cfbh", "mccs"]

#: ``method`` of :func:`mccs`: MCCS itself and the baselines of Hao et al. (2026)
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
# cfBH's monotone scores


def _clip_nonconformity(xp, mu, y, c, M):
    """``-V`` for the clipped score ``V = M 1{y > c} + c 1{y <= c} - mu``.

    The ``+c`` of in-region units is absorbed in ``M`` (``M = inf`` by default),
    so only null calibration units can count in a test unit's p-value.
    """
    return xp.where(y > c, mu - M, mu - c)


def _residual_nonconformity(xp, mu, y, c, M):
    """``-V`` for the residual score ``V = y - mu``."""
    return mu - y


#: cfBH's monotone scores by name (``score`` of :func:`cfbh`, ``conformity_score``
#: of :class:`~statlearn.conformal.ConformalSelector`): each gives the calibration
#: nonconformity ``-V(X_i, Y_i)`` from ``(xp, mu, y, c, M)``.
CFBH_SCORES = {"clip": _clip_nonconformity, "residual": _residual_nonconformity}


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
    """Warn when the calibration set rules selections out.

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
    if method != "ind" and (ind_cal is not None or ind_test is not None):
        raise ValueError(f'ind_cal and ind_test are read by method="ind" only, got method='
                         f'{method!r}: they would be ignored.')
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
    check_option(score, "score", list(CFBH_SCORES))
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
    s_cal = CFBH_SCORES[score](xp, mc[:, 0], yc[:, 0], cc, M_)
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


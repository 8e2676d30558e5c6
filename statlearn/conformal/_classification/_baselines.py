"""The scores SOCOP is compared with: LAC, APS, RAPS and top-k.

Each score function takes a probability matrix ``proba`` of shape ``(n, K)``
and returns the score of every label (shape ``(n, K)``) or, when ``labels``
is given, the score of one label per row (shape ``(n,)``). Larger scores mean
less conforming; labels are ordered as in :mod:`._label_order`. The APS/RAPS
sets (whose deterministic form is not ``{y : s(x, y) <= q}``) and RAPS's own
choice of ``lambda_R`` and ``k_reg`` on a tuning split live here too.
"""

from __future__ import annotations

import array_api_compat.numpy
import numpy as np

from ...utils import check_int, check_real
from ...utils._array_api import is_numpy_namespace
from .. import _kernels
from .._core._quantile import conformal_rank
from .._core._thresholds import thresholds_from_scores
from ._label_order import (
    _check_labels,
    _check_proba,
    _draw_u,
    _gather,
    _pick,
    _ranks,
    _sort_desc,
    _to_label_order,
    label_ranks,
)
from ._parallel import run_rows

__all__ = ["RAPS_LAM_GRID", "aps_scores", "lac_scores", "raps_scores", "topk_scores",
           "tune_raps"]

#: lambda_R values searched for RAPS when ``lam="auto"`` (Angelopoulos et al., 2021).
RAPS_LAM_GRID = (0.001, 0.01, 0.1, 0.2, 0.5)
_NP = array_api_compat.numpy


def lac_scores(proba, labels=None):
    """LAC ("least ambiguous set") score ``1 - p_y`` (Sadinle et al., 2019).

    Parameters
    ----------
    proba : array of shape (n, K)
        Predicted probabilities (rows sum to one).
    labels : array of shape (n,), optional
        Label indices; if given, return only their scores.

    Returns
    -------
    array of shape (n, K) or (n,)

    Notes
    -----
    The SOCOP paper writes this score as ``1 / p_y``; any strictly increasing
    transform of a score gives the same conformal sets.

    References
    ----------
    Sadinle, Lei & Wasserman (2019), "Least ambiguous set-valued classifiers
    with bounded error levels", JASA 114:223-234.

    Examples
    --------
    >>> from statlearn.conformal import lac_scores
    >>> lac_scores([[0.7, 0.2, 0.1]]).round(2).tolist()
    [[0.3, 0.8, 0.9]]
    """
    proba, xp = _check_proba(proba)
    if labels is not None:
        labels = _check_labels(labels, proba, xp)
    return _lac(proba, labels, xp)


def _lac(proba, labels, xp):
    return 1.0 - (proba if labels is None else _pick(proba, labels, xp))


def topk_scores(proba, labels=None):
    """Top-k score: the rank of the label (1 = most probable).

    Parameters
    ----------
    proba : array of shape (n, K)
        Predicted probabilities (rows sum to one).
    labels : array of shape (n,), optional
        Label indices; if given, return only their scores.

    Returns
    -------
    array of shape (n, K) or (n,)
        Ranks as floating point numbers.

    Examples
    --------
    >>> from statlearn.conformal import topk_scores
    >>> topk_scores([[0.2, 0.5, 0.3]]).tolist()
    [[3.0, 1.0, 2.0]]
    """
    proba, xp = _check_proba(proba)
    if labels is not None:
        labels = _check_labels(labels, proba, xp)
    return _topk(proba, labels, xp)


def _topk(proba, labels, xp):
    return xp.astype(_ranks(proba, labels, xp), proba.dtype)


def _aps_core(proba, labels, u, xp, need_rank=True):
    """Mass ranked strictly above each label, and ``u * p`` (or ``p``)."""
    if labels is not None:
        p_y = _pick(proba, labels, xp)
        idx = xp.arange(proba.shape[1], dtype=xp.int64)[None, :]
        above = (proba > p_y[:, None]) | ((proba == p_y[:, None]) & (idx < labels[:, None]))
        mass = xp.sum(xp.where(above, proba, xp.zeros_like(proba)), axis=1)
        rank = xp.sum(xp.astype(above, xp.int64), axis=1) + 1
        own = p_y if u is None else u * p_y
        return mass + own, rank
    order = _sort_desc(proba, xp)
    p_sorted = _gather(proba, order, xp)
    cum = xp.cumulative_sum(p_sorted, axis=1)
    if u is None:
        s_sorted = cum
    else:
        s_sorted = cum - p_sorted + u[:, None] * p_sorted
    s = _to_label_order(s_sorted, order, xp)
    if not need_rank:
        return s, None
    ranks = xp.broadcast_to(xp.arange(1, proba.shape[1] + 1, dtype=xp.int64), proba.shape)
    return s, _to_label_order(ranks, order, xp)


def _aps(proba, labels, u, xp):
    return _aps_core(proba, labels, u, xp, need_rank=False)[0]


def _raps(proba, labels, u, lam_reg, k_reg, xp):
    s, rank = _aps_core(proba, labels, u, xp)
    excess = xp.astype(rank - k_reg, proba.dtype)
    return s + lam_reg * xp.where(excess > 0, excess, xp.zeros_like(excess))


def _aps_sets(proba, u, q, lam_reg, k_reg, xp):
    """APS/RAPS prediction sets for thresholds ``q`` (one per label).

    NumPy input runs a Numba kernel (one sort per row, rows in parallel);
    other namespaces, and the tests' reference, use :func:`_aps_sets_reference`.
    """
    if is_numpy_namespace(xp):
        p = np.ascontiguousarray(proba, dtype=np.float64)
        qq = np.ascontiguousarray(q, dtype=np.float64)
        uu = np.zeros(p.shape[0]) if u is None else np.ascontiguousarray(u, dtype=np.float64)
        rest = (u is not None, float(lam_reg), int(k_reg))
        if qq.size and np.all(qq == qq[0]):
            # one threshold: the set is the top L labels, found without a full sort
            return run_rows("aps_sets_threshold", _kernels.aps_sets_threshold_kernel_serial,
                            _kernels.aps_sets_threshold_kernel, (p, uu), (*rest, float(qq[0])))
        return run_rows("aps_sets", _kernels.aps_sets_kernel_serial, _kernels.aps_sets_kernel,
                        (p, uu), (*rest, qq))
    return _aps_sets_reference(proba, u, q, lam_reg, k_reg, xp)


def _aps_sets_reference(proba, u, q, lam_reg, k_reg, xp):
    """Vectorised APS/RAPS sets (any array namespace).

    Randomised (``u`` given): ``{y : s(x, y, u) <= q_y}``. Deterministic
    (``u=None``, Romano et al. 2020, MAPIE's ``include_last_label=True``): the
    labels in decreasing probability up to and including the first whose
    cumulative score ``E_j = Gamma_j + lam_reg (j - k_reg)^+`` reaches the
    threshold, i.e. rank ``j`` is in the set iff ``E_{j-1} < q`` (``E_0 = -inf``);
    the set always holds the top label and contains ``{y : E(y) <= q_y}``.
    """
    n, K = proba.shape
    order = _sort_desc(proba, xp)
    ps = _gather(proba, order, xp)
    cum = xp.cumulative_sum(ps, axis=1)
    if is_numpy_namespace(xp):
        qs = np.asarray(q, dtype=np.float64)[order]
    else:
        qs = xp.reshape(xp.take(q, xp.reshape(order, (-1,))), (n, K))
    if lam_reg > 0:
        excess = xp.arange(1, K + 1, dtype=proba.dtype) - k_reg
        reg = lam_reg * xp.where(excess > 0, excess, xp.zeros_like(excess))[None, :]
    else:
        reg = None
    if u is None:
        e = cum if reg is None else cum + reg
        prev = xp.concat([xp.full((n, 1), -xp.inf, dtype=proba.dtype), e[:, :-1]], axis=1)
        inside = prev < qs
    else:
        s = cum - ps + u[:, None] * ps
        if reg is not None:
            s = s + reg
        inside = s <= qs
    return _to_label_order(inside, order, xp)


def aps_scores(proba, labels=None, *, randomized=True, u=None, random_state=None):
    """APS ("adaptive prediction sets") score of Romano, Sesia & Candes (2020).

    With labels sorted by decreasing probability, the score of ``y`` is the
    mass ranked strictly above ``y`` plus ``U * p_y`` (randomised, the default
    in the literature) or plus ``p_y`` (``randomized=False``: the cumulative
    mass up to and including ``y``).

    The deterministic score is calibrated as such, but its sets are not
    ``{y : s(x, y) <= q}``: following Romano et al. (2020), the set keeps the
    label at which the cumulative mass reaches ``q`` (MAPIE's
    ``include_last_label=True``). :class:`SplitConformalClassifier` builds
    the sets that way.

    Parameters
    ----------
    proba : array of shape (n, K)
        Predicted probabilities (rows sum to one).
    labels : array of shape (n,), optional
        Label indices; if given, return only their scores.
    randomized : bool, default=True
        Add ``U * p_y`` with ``U ~ Unif(0, 1)`` instead of ``p_y``.
    u : array of shape (n,), optional
        The uniforms, one per row (shared by all labels of a row so the sets
        stay top-j sets); drawn from ``random_state`` when omitted.
    random_state : None, int or numpy.random.Generator
        Source of ``u``.

    Returns
    -------
    array of shape (n, K) or (n,)

    References
    ----------
    Romano, Sesia & Candes (2020), "Classification with valid and adaptive
    coverage", NeurIPS.

    Examples
    --------
    >>> from statlearn.conformal import aps_scores
    >>> aps_scores([[0.2, 0.5, 0.3]], randomized=False).round(2).tolist()
    [[1.0, 0.5, 0.8]]
    >>> aps_scores([[0.2, 0.5, 0.3]], u=[0.5]).round(2).tolist()
    [[0.9, 0.25, 0.65]]
    """
    proba, xp = _check_proba(proba)
    if labels is not None:
        labels = _check_labels(labels, proba, xp)
    u = _draw_u(u, proba.shape[0], random_state, xp, proba) if randomized else None
    return _aps(proba, labels, u, xp)


def raps_scores(proba, labels=None, *, lam_reg=0.01, k_reg=1, randomized=True, u=None,
                random_state=None):
    """RAPS ("regularised APS") score of Angelopoulos et al. (2021).

    ``APS + lam_reg * max(0, rank(y) - k_reg)`` with 1-based ranks.

    Parameters
    ----------
    proba : array of shape (n, K)
        Predicted probabilities (rows sum to one).
    labels : array of shape (n,), optional
        Label indices; if given, return only their scores.
    lam_reg : float, default=0.01
        Penalty per rank beyond ``k_reg`` (``>= 0``).
    k_reg : int, default=1
        Number of top ranks left unpenalised (``>= 0``).
    randomized, u, random_state
        As in :func:`aps_scores`.

    Returns
    -------
    array of shape (n, K) or (n,)

    References
    ----------
    Angelopoulos, Bates, Malik & Jordan (2021), "Uncertainty sets for image
    classifiers using conformal prediction", ICLR.

    Examples
    --------
    >>> from statlearn.conformal import raps_scores
    >>> raps_scores([[0.2, 0.5, 0.3]], lam_reg=0.1, k_reg=1,
    ...             randomized=False).round(2).tolist()
    [[1.2, 0.5, 0.9]]
    """
    proba, xp = _check_proba(proba)
    lam_reg = check_real(lam_reg, "lam_reg", low=0)
    k_reg = check_int(k_reg, "k_reg", low=0)
    if labels is not None:
        labels = _check_labels(labels, proba, xp)
    u = _draw_u(u, proba.shape[0], random_state, xp, proba) if randomized else None
    return _raps(proba, labels, u, lam_reg, k_reg, xp)



def tune_raps(proba, labels, alpha, lam, k_reg, lam_grid, randomized, mondrian, rng):
    """RAPS's ``k_reg`` and ``lambda_R`` chosen on a tuning split (Angelopoulos et al. 2021).

    ``k_reg="auto"``: the conformal ``1 - alpha`` quantile of the ranks of the
    true labels (``K`` when there are too few points). ``lam="auto"``: the
    value of ``lam_grid`` (default :data:`RAPS_LAM_GRID`) whose sets,
    calibrated on the tuning split itself, have the smallest mean size (ties:
    the first). Each grid value draws two rows of uniforms from ``rng``, one
    for the calibration scores and one for the sets, whether or not the score
    is randomised, so the stream does not depend on ``randomized``.

    Parameters
    ----------
    proba : ndarray of shape (n, K)
        Tuning-split probabilities.
    labels : ndarray of int, shape (n,)
        Tuning-split label indices.
    alpha : float
        Miscoverage level.
    lam, k_reg : float or "auto", int or "auto"
        The estimator's parameters; a number is kept as it is.
    lam_grid : sequence of float or None
        Candidates for ``lam="auto"``.
    randomized : bool
        Randomised scores and sets (``U * p_y``).
    mondrian : bool
        Class-conditional thresholds.
    rng : numpy.random.Generator
        Source of the uniforms.

    Returns
    -------
    lam : float
    k_reg : int

    Examples
    --------
    >>> import numpy as np
    >>> from statlearn.conformal._classification._baselines import tune_raps
    >>> rng = np.random.default_rng(0)
    >>> p = rng.dirichlet(np.ones(5), size=200)
    >>> y = np.array([rng.choice(5, p=row) for row in p])
    >>> lam, k_reg = tune_raps(p, y, 0.1, "auto", "auto", None, True, False, rng)
    >>> lam in (0.001, 0.01, 0.1, 0.2, 0.5), 1 <= k_reg <= 5
    (True, True)
    """
    K = proba.shape[1]
    if isinstance(k_reg, str):
        ranks = label_ranks(proba, labels).astype(float)
        k = conformal_rank(ranks.size, alpha)
        k_reg = int(K if k > ranks.size else np.sort(ranks)[k - 1])
    else:
        k_reg = int(k_reg)
    if not isinstance(lam, str):
        return float(lam), k_reg
    grid = RAPS_LAM_GRID if lam_grid is None else tuple(lam_grid)
    best = None
    for lam in grid:
        u_cal, u_set = rng.random(labels.size), rng.random(labels.size)
        s = raps_scores(proba, labels, lam_reg=lam, k_reg=k_reg, randomized=randomized, u=u_cal)
        q = thresholds_from_scores(s, labels, alpha, K, mondrian)
        sets = _aps_sets(proba, u_set if randomized else None, q, lam, k_reg, _NP)
        size = float(np.mean(np.sum(sets, axis=1)))
        if best is None or size < best[0]:
            best = (size, float(lam))
    return best[1], k_reg

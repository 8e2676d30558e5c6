"""Nonconformity scores for classification: SOCOP, LAC, APS, RAPS and top-k.

Every score function takes a probability matrix ``proba`` of shape
``(n, K)`` and returns either the score of every label (shape ``(n, K)``) or,
when ``labels`` is given, the score of one label per row (shape ``(n,)``,
without forming the ``(n, K)`` score matrix). Larger scores mean less
conforming. Labels are ranked by decreasing probability with ties broken by
the lower label index (a stable sort), so results are deterministic.

NumPy input goes through Numba kernels where a loop is hot (SOCOP); any other
array-API input (CuPy, array-api-strict) takes the vectorised path and gives
output of its own namespace.
"""

from __future__ import annotations

import array_api_compat
import numpy as np

from ..utils import (
    asarray_like,
    check_int,
    check_probabilities,
    check_real,
    check_rng,
    get_namespace,
)
from ..utils._array_api import is_numpy_namespace
from . import _kernels
from ._arrays import host

__all__ = [
    "aps_scores",
    "label_ranks",
    "lac_scores",
    "raps_scores",
    "socop_scores",
    "socop_sets",
    "topk_scores",
]


# --------------------------------------------------------------------------- helpers
def _check_proba(proba, name="proba"):
    proba = check_probabilities(host(proba), name)
    xp = get_namespace(proba)
    if not xp.isdtype(proba.dtype, xp.float64) and is_numpy_namespace(xp):
        proba = xp.astype(proba, xp.float64)
    return proba, xp


_ENCODE = ("encode class names as column positions first, e.g. "
           "np.unique(y, return_inverse=True)[1] or np.searchsorted(clf.classes_, y)")


def _check_labels(labels, proba, xp):
    n, K = proba.shape
    if not hasattr(labels, "shape") or not array_api_compat.is_array_api_obj(labels):
        labels = np.asarray(labels)  # lists and pandas objects, read by position
        if labels.dtype.kind not in "iu" and labels.size:
            raise TypeError(f"labels must hold integer label indices, got dtype {labels.dtype}; "
                            f"{_ENCODE}.")
        labels = xp.asarray(labels.astype(np.int64)) if not is_numpy_namespace(xp) else labels
    if labels.ndim != 1 or labels.shape[0] != n:
        raise ValueError(f"labels must have shape ({n},), got {tuple(labels.shape)}.")
    if not xp.isdtype(labels.dtype, "integral"):
        raise TypeError(f"labels must hold integer label indices, got dtype {labels.dtype}.")
    if n and (bool(xp.any(labels < 0)) or bool(xp.any(labels >= K))):
        raise ValueError(f"labels must be label indices in [0, {K - 1}] (columns of proba); "
                         f"{_ENCODE}.")
    return xp.astype(labels, xp.int64)


def _sort_desc(proba, xp):
    """Order of labels by decreasing probability (ties: lower index first).

    NumPy: an unstable (introsort) argsort, redone stably only for the rows
    that hold tied probabilities; other namespaces: a stable argsort.
    """
    if is_numpy_namespace(xp):
        order = np.argsort(-proba, axis=1)
        ps = np.take_along_axis(proba, order, axis=1)
        tied = np.any(ps[:, 1:] == ps[:, :-1], axis=1)
        if tied.any():
            order[tied] = np.argsort(-proba[tied], axis=1, kind="stable")
        return order
    return xp.argsort(-proba, axis=1, stable=True)


def _to_label_order(by_rank, order, xp):
    """Undo the sort: ``out[i, order[i, j]] = by_rank[i, j]``."""
    if is_numpy_namespace(xp):
        out = np.empty(order.shape, dtype=by_rank.dtype)
        np.put_along_axis(out, order, by_rank, axis=1)
        return out
    return _gather(by_rank, xp.argsort(order, axis=1, stable=True), xp)


def _gather(values, index, xp):
    """``values[i, index[i, j]]`` row by row (``take_along_axis``)."""
    return xp.take_along_axis(values, index, axis=1)


def _pick(values, labels, xp):
    """``values[i, labels[i]]``."""
    return xp.take_along_axis(values, labels[:, None], axis=1)[:, 0]


def _draw_u(u, n, random_state, xp, like):
    if u is None:
        u = check_rng(random_state).random(n)
    u = host(u)
    if not hasattr(u, "shape"):
        u = np.asarray(u, dtype=np.float64)
    if u.ndim == 0:
        u = np.full(n, float(u)) if isinstance(u, np.ndarray) else xp.full(n, float(u))
    if tuple(u.shape) != (n,):
        raise ValueError(f"u must have shape ({n},), got {tuple(u.shape)}.")
    if isinstance(u, np.ndarray):
        bad = bool(np.isnan(u).any() or (u < 0).any() or (u > 1).any())
    else:
        uxp = get_namespace(u)
        bad = bool(uxp.any(uxp.isnan(u) | (u < 0) | (u > 1)))
    if bad:
        raise ValueError("u must hold values in [0, 1].")
    if isinstance(u, np.ndarray) and not is_numpy_namespace(xp):
        u = asarray_like(u, like, dtype=xp.float64)
    return u


def label_ranks(proba, labels=None):
    """1-based rank of each label when sorted by decreasing probability.

    Ties are broken by the lower label index, the convention of every score
    in this module.

    Parameters
    ----------
    proba : array of shape (n, K)
        Predicted probabilities (rows sum to one).
    labels : array of shape (n,), optional
        Label indices; if given, return only their ranks.

    Returns
    -------
    array of shape (n, K) or (n,)
        Integer ranks in ``1..K``.

    Examples
    --------
    >>> from statlearn.conformal import label_ranks
    >>> label_ranks([[0.2, 0.5, 0.3], [0.4, 0.2, 0.4]]).tolist()
    [[3, 1, 2], [1, 3, 2]]
    >>> label_ranks([[0.2, 0.5, 0.3]], labels=[2]).tolist()
    [2]
    """
    proba, xp = _check_proba(proba)
    if labels is not None:
        labels = _check_labels(labels, proba, xp)
    return _ranks(proba, labels, xp)


def _ranks(proba, labels, xp):
    if labels is not None:
        p_y = _pick(proba, labels, xp)[:, None]
        idx = xp.arange(proba.shape[1], dtype=xp.int64)[None, :]
        above = (proba > p_y) | ((proba == p_y) & (idx < labels[:, None]))
        return xp.sum(xp.astype(above, xp.int64), axis=1) + 1
    order = _sort_desc(proba, xp)
    ranks = xp.broadcast_to(xp.arange(1, proba.shape[1] + 1, dtype=xp.int64), proba.shape)
    return _to_label_order(ranks, order, xp)


# --------------------------------------------------------------------------- baselines
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
        if qq.size and np.all(qq == qq[0]):
            # one threshold: the set is the top L labels, found without a full sort
            kernel = (_kernels.aps_sets_threshold_kernel
                      if p.size >= _kernels.FAST_PARALLEL_MIN_SIZE
                      else _kernels.aps_sets_threshold_kernel_serial)
            return kernel(p, uu, u is not None, float(lam_reg), int(k_reg), float(qq[0]))
        kernel = (_kernels.aps_sets_kernel if p.size >= _kernels.PARALLEL_MIN_SIZE
                  else _kernels.aps_sets_kernel_serial)
        return kernel(p, uu, u is not None, float(lam_reg), int(k_reg), qq)
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


# --------------------------------------------------------------------------- SOCOP
def _check_socop_params(lam, k0):
    lam = check_real(lam, "lam", low=0)
    k0 = check_int(k0, "k0", low=0)
    return lam, k0


def socop_scores(proba, lam, k0=1, labels=None):
    """SOCOP nonconformity scores (Wang, Sun & Dobriban, 2025).

    The score of label ``y`` is the smallest price ``eta >= 0`` at which ``y``
    enters the minimiser of ``1{|S| > k0} + lam |S| - eta * sum_{y in S} p_y``
    over label sets ``S``; the minimisers are top-j sets and nested in
    ``eta``, so conformal sets built from this score are top-j sets.

    Parameters
    ----------
    proba : array of shape (n, K)
        Predicted probabilities (rows sum to one).
    lam : float
        Weight of the set size against the non-singleton indicator
        (``lam >= 0``). ``lam -> inf`` gives the LAC sets; ``lam = 0`` gives
        sets that are either the top label or the whole support.
    k0 : int, default=1
        Sets larger than ``k0`` are penalised (``1``: singletons are the goal).
    labels : array of shape (n,), optional
        Label indices; if given, return only their scores.

    Returns
    -------
    array of shape (n, K) or (n,)
        Scores; labels of zero probability score ``+inf``.

    Notes
    -----
    For each row the labels are sorted by decreasing probability (stable,
    ties by lower index), the lower convex hull of the points
    ``(Gamma_j, g_j)``, ``Gamma_j`` the mass of the top ``j`` labels and
    ``g_j = 1{j > k0} + lam j``, is scanned once (monotone chain), and the
    labels ranked inside a hull edge share that edge's slope as their score.
    The cost is ``O(K)`` per row after an ``O(K log K)`` sort; the paper's
    ``O(K)`` counts the hull step given sorted probabilities. Differences of
    ``Gamma`` come from suffix sums so tiny positive probabilities keep finite
    scores. NumPy input runs a parallel Numba kernel over rows; other array
    namespaces use a vectorised form of the same hull (the left chain
    ``P_0..P_k0``, one bridge edge, then the right chain) in ``O(k0 K)`` per
    row.

    References
    ----------
    Wang, Sun & Dobriban (2025), "Singleton-Optimized Conformal Prediction",
    arXiv:2509.24095.

    Examples
    --------
    >>> from statlearn.conformal import socop_scores
    >>> socop_scores([[0.5, 0.3, 0.15, 0.05]], lam=0.1).round(3).tolist()
    [[0.2, 2.6, 2.6, 2.6]]
    >>> socop_scores([[0.7, 0.3, 0.0, 0.0]], lam=0.2, labels=[1]).round(3).tolist()
    [4.0]
    """
    proba, xp = _check_proba(proba)
    lam, k0 = _check_socop_params(lam, k0)
    if labels is not None:
        labels = _check_labels(labels, proba, xp)
    return _socop(proba, lam, k0, labels, xp)


def _socop(proba, lam, k0, labels, xp):
    if is_numpy_namespace(xp):
        p = np.ascontiguousarray(proba, dtype=np.float64)
        big = p.size >= _kernels.PARALLEL_MIN_SIZE
        if labels is None:
            kernel = _kernels.socop_scores_kernel if big else _kernels.socop_scores_kernel_serial
            return kernel(p, lam, k0)
        kernel = (_kernels.socop_label_scores_kernel if big
                  else _kernels.socop_label_scores_kernel_serial)
        return kernel(p, np.ascontiguousarray(labels), lam, k0)
    scores = socop_scores_reference(proba, lam, k0)
    return scores if labels is None else _pick(scores, labels, xp)


def socop_scores_reference(proba, lam, k0=1):
    """Vectorised array-API SOCOP scores of every label (no validation).

    The hull of ``P_0..P_K`` is the left chain ``P_0..P_k0`` (convex: slopes
    ``lam / p_(j)``) up to a tangent vertex ``a``, one bridge edge to a vertex
    ``m > k0`` of the right chain ``P_{k0+1}..P_K`` (also convex), then the
    right chain. For each candidate ``a`` the bridge slope is the smallest
    slope from ``P_a`` to the right chain; ``a`` is the first candidate whose
    bridge is no steeper than the next left-chain edge.
    """
    # subnormal probabilities may overflow lam / p to +inf, as in the kernel
    with np.errstate(over="ignore", divide="ignore"):
        return _socop_reference(proba, lam, k0)


def _socop_reference(proba, lam, k0):
    xp = get_namespace(proba)
    n, K = proba.shape
    dt = proba.dtype
    order = _sort_desc(proba, xp)
    ps = _gather(proba, order, xp)
    # suffix[:, j] = sum of ps[:, j:], j = 0..K (accumulated from the smallest)
    rev = xp.flip(xp.cumulative_sum(xp.flip(ps, axis=1), axis=1), axis=1)
    suffix = xp.concat([rev, xp.zeros((n, 1), dtype=dt)], axis=1)
    j_all = xp.arange(K + 1, dtype=dt)
    g = xp.astype(j_all > k0, dt) + lam * j_all  # (K+1,)
    pos = ps > 0  # rank j+1 has positive probability
    inf = xp.asarray(xp.inf, dtype=dt)
    # edge slope into point j from j-1 within a chain: lam / p_(j)
    step = suffix[:, :-1] - suffix[:, 1:]  # == ps up to rounding
    chain = xp.where(pos, lam / xp.where(pos, step, xp.ones_like(step)), inf)  # (n, K)
    k_left = min(k0, K)
    a_star = xp.full((n,), K + 1, dtype=xp.int64)
    s_star = xp.full((n,), xp.inf, dtype=dt)
    m_star = xp.full((n,), K, dtype=xp.int64)
    found = xp.zeros((n,), dtype=xp.bool)
    if k0 + 1 <= K:
        m_idx = xp.arange(k0 + 1, K + 1, dtype=xp.int64)
        right_pos = pos[:, k0:]  # points m = k0+1..K
    for a in range(k_left + 1):
        if k0 + 1 <= K:
            den = suffix[:, a:a + 1] - suffix[:, k0 + 1:]
            num = g[k0 + 1:] - g[a]
            ok = right_pos & (den > 0)
            slopes = xp.where(ok, num[None, :] / xp.where(ok, den, xp.ones_like(den)), inf)
            s_a = xp.min(slopes, axis=1)
            # the last minimiser, as the monotone chain drops collinear middle points
            last = xp.argmin(xp.flip(slopes, axis=1), axis=1)
            m_a = xp.take(m_idx, (K - k0 - 1) - last)
        else:
            s_a = xp.full((n,), xp.inf, dtype=dt)
            m_a = xp.full((n,), K, dtype=xp.int64)
        next_edge = chain[:, a] if a < k_left else xp.full((n,), xp.inf, dtype=dt)
        if a >= 1:
            # P_a must itself be a positive-probability point of the left chain
            cond = (s_a <= next_edge) & pos[:, a - 1]
        else:
            cond = s_a <= next_edge
        take = cond & ~found
        a_star = xp.where(take, a, a_star)
        s_star = xp.where(take, s_a, s_star)
        m_star = xp.where(take, m_a, m_star)
        found = found | cond
    # support <= k0 and no candidate taken: every positive label is on the left chain
    support = xp.sum(xp.astype(pos, xp.int64), axis=1)
    a_star = xp.where(found, a_star, support)
    rank = xp.arange(1, K + 1, dtype=xp.int64)[None, :]
    on_left = rank <= a_star[:, None]
    on_bridge = (rank > a_star[:, None]) & (rank <= m_star[:, None])
    by_rank = xp.where(on_left, chain, xp.where(on_bridge, s_star[:, None], chain))
    by_rank = xp.where(pos, by_rank, inf)
    return _to_label_order(by_rank, order, xp)


def socop_sets(proba, lam, threshold, k0=1):
    """SOCOP prediction sets ``{y : r(x, y) <= threshold}`` as a boolean mask.

    Parameters
    ----------
    proba : array of shape (n, K)
        Predicted probabilities (rows sum to one).
    lam : float
        SOCOP weight (``>= 0``), see :func:`socop_scores`.
    threshold : float or array of shape (K,)
        Conformal threshold ``q`` (``+inf`` allowed), or one per label
        (class-conditional calibration).
    k0 : int, default=1
        See :func:`socop_scores`.

    Returns
    -------
    array of bool, shape (n, K)

    Examples
    --------
    >>> from statlearn.conformal import socop_sets
    >>> socop_sets([[0.5, 0.3, 0.15, 0.05]], lam=0.1, threshold=1.0).tolist()
    [[True, False, False, False]]
    """
    proba, xp = _check_proba(proba)
    lam, k0 = _check_socop_params(lam, k0)
    K = proba.shape[1]
    if is_numpy_namespace(xp):
        q = np.asarray(threshold, dtype=np.float64)
        if q.ndim == 0:
            q = np.full(K, float(q))
        if q.shape != (K,) or np.isnan(q).any():
            raise ValueError(f"threshold must be a number or an array of shape ({K},) without "
                             "NaN.")
        return _socop_sets(proba, lam, k0, q, xp)
    if isinstance(threshold, (np.ndarray, np.generic)) or not hasattr(threshold, "shape"):
        # NumPy scalars and arrays have a shape too, but belong to another namespace
        q = asarray_like(np.asarray(threshold, dtype=np.float64), proba, dtype=proba.dtype)
    else:
        q = threshold
    if tuple(q.shape) not in ((), (K,)) or bool(xp.any(xp.isnan(q))):
        raise ValueError(f"threshold must be a number or an array of shape ({K},) without "
                         "NaN.")
    return _socop_sets(proba, lam, k0, q, xp)


def _socop_sets(proba, lam, k0, q, xp):
    if is_numpy_namespace(xp):
        p = np.ascontiguousarray(proba, dtype=np.float64)
        q = np.ascontiguousarray(q, dtype=np.float64)
        big = p.size >= _kernels.PARALLEL_MIN_SIZE
        if q.size and np.all(q == q[0]) and k0 <= _kernels.FAST_SET_MAX_K0:
            if np.isposinf(q[0]):
                return np.ones(p.shape, dtype=bool)
            # one threshold: one pass per row, no sort (the hull scan only near ties)
            kernel = (_kernels.socop_sets_threshold_kernel
                      if p.size >= _kernels.FAST_PARALLEL_MIN_SIZE
                      else _kernels.socop_sets_threshold_kernel_serial)
            return kernel(p, float(lam), int(k0), float(q[0]))
        kernel = _kernels.socop_sets_kernel if big else _kernels.socop_sets_kernel_serial
        return kernel(p, lam, k0, q)
    return socop_scores_reference(proba, lam, k0) <= q

"""The label order every classification score shares, and the checks of its inputs.

Labels are ranked by decreasing probability with ties broken by the lower
label index (a stable sort), so every score and every set is deterministic.
This module holds that order (:func:`label_ranks` and its private helpers),
the checks of a probability matrix ``(n, K)`` and of label indices, and the
tie-breaking uniforms of the randomised scores.
"""

from __future__ import annotations

import array_api_compat
import numpy as np

from ...utils import asarray_like, check_probabilities, check_rng, get_namespace
from ...utils._array_api import is_numpy_namespace
from .._core._arrays import host

__all__ = ["label_ranks"]


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


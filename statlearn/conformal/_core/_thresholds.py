"""Conformal thresholds per label or group, and the smoothed p-value of the sets.

One conformal quantile for all labels (marginal calibration) or one per
label / group from its own calibration points (Mondrian calibration): the
classifier's per-label thresholds and the regressor's per-group ones both come
from :func:`thresholds_from_scores`.
"""

from __future__ import annotations

import numpy as np

from ...utils import check_alpha, check_array, check_int
from ._arrays import host
from ._quantile import conformal_pvalues, conformal_quantile, conformal_rank

__all__ = ["smoothed_pvalues", "thresholds_from_scores"]


def thresholds_from_scores(scores, labels, alpha, n_classes, mondrian=False):
    """Conformal thresholds, one per label: marginal (all equal) or per class.

    Parameters
    ----------
    scores : array of shape (n,)
        Calibration scores of the true labels (``+inf`` allowed).
    labels : array of int, shape (n,)
        True label indices of the calibration points.
    alpha : float
        Miscoverage level.
    n_classes : int
        Number of labels ``K``.
    mondrian : bool, default=False
        Class-conditional (Mondrian) thresholds: label ``y`` uses the
        calibration points of class ``y`` only (``+inf`` if there are none).

    Returns
    -------
    ndarray of shape (K,)

    Examples
    --------
    >>> from statlearn.conformal import thresholds_from_scores
    >>> thresholds_from_scores([0.1, 0.4, 0.2, 0.3], [0, 0, 1, 1], 0.4, 2).tolist()
    [0.3, 0.3]
    >>> thresholds_from_scores([0.1, 0.4, 0.2, 0.3], [0, 0, 1, 1], 0.4, 2,
    ...                        mondrian=True).tolist()
    [0.4, 0.3]
    >>> thresholds_from_scores([0.1, 0.4, 0.2, 0.3], [0, 0, 1, 1], 0.1, 3,
    ...                        mondrian=True).tolist()
    [inf, inf, inf]
    """
    alpha = check_alpha(alpha)
    n_classes = check_int(n_classes, "n_classes", low=1)
    if not isinstance(mondrian, bool | np.bool_):
        raise TypeError(f"mondrian must be True or False, got {mondrian!r}.")
    scores = check_array(host(scores), "scores", ensure_2d=False, dtype=np.float64,
                         ensure_all_finite=False, ensure_min_samples=0)
    if scores.ndim != 1:
        raise ValueError(f"scores must be 1-D, got shape {scores.shape}.")
    labels = np.asarray(host(labels))
    if labels.shape != scores.shape:
        raise ValueError(f"labels must have the shape of scores {scores.shape}, got "
                         f"{labels.shape}.")
    if labels.dtype.kind not in "iu":
        raise TypeError(f"labels must hold integer label indices, got dtype {labels.dtype}.")
    if labels.size and (labels.min() < 0 or labels.max() >= n_classes):
        raise ValueError(f"labels must be label indices in [0, {n_classes - 1}].")
    labels = labels.astype(np.int64, copy=False)
    if not mondrian:
        return np.full(n_classes, conformal_quantile(scores, alpha))
    if scores.size == 0:
        raise ValueError("scores must hold at least one calibration score.")
    if np.isnan(scores).any():
        raise ValueError("scores must not contain NaN.")
    if np.isneginf(scores).any():
        raise ValueError("scores must not contain -inf.")
    # sort by (label, score) once, then read each class's k-th smallest: O(n log n + K)
    order = np.lexsort((scores, labels))
    s_sorted = scores[order]
    counts = np.bincount(labels, minlength=n_classes)
    starts = np.concatenate(([0], np.cumsum(counts)[:-1]))
    q = np.full(n_classes, np.inf)
    for c in np.flatnonzero(counts):
        k = conformal_rank(int(counts[c]), alpha)
        if k <= counts[c]:
            q[c] = s_sorted[starts[c] + k - 1]
    return q



def smoothed_pvalues(test_scores, cal_scores, u):
    """Randomised conformal p-values ``(#{s_i > s} + U (1 + #{s_i = s})) / (n + 1)``.

    The package's one conformal p-value, :func:`conformal_pvalues`, with the
    uniforms required.

    Parameters
    ----------
    test_scores : ndarray of shape (m, K) or (m,)
        Scores of the candidate labels.
    cal_scores : ndarray of shape (n,)
        Calibration scores.
    u : ndarray of shape (m,)
        One uniform per test row (shared by its labels).

    Returns
    -------
    ndarray of the shape of ``test_scores``

    Examples
    --------
    >>> import numpy as np
    >>> from statlearn.conformal import smoothed_pvalues
    >>> smoothed_pvalues(np.array([0.2, 0.5]), np.array([0.1, 0.2, 0.3]), np.array([0.5, 0.5]))
    array([0.5  , 0.125])
    """
    return conformal_pvalues(test_scores, cal_scores, u)


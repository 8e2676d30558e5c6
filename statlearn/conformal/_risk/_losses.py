"""Loss matrices for risk control: one row per calibration point, one column per candidate.

Column ``j`` holds the losses ``L_i(lambda_j)`` of the prediction made with the
``j``-th candidate parameter. Conformal risk control reads the columns in
their order and needs each row non-increasing along it (the candidates run
from the most to the least conservative prediction); learn-then-test reads
each column on its own. ``NaN`` marks a loss that a conditional risk does not
count (precision counts only the predicted positives).
"""

from __future__ import annotations

import numpy as np

from ...utils import check_array
from .._core._arrays import host

__all__ = [
    "binary_losses",
    "miscoverage_losses",
    "multilabel_fnr_losses",
    "multilabel_precision_losses",
]


def _grid(values, name, allow_inf=False):
    g = check_array(host(values), name, ensure_2d=False, dtype=np.float64,
                    ensure_all_finite=not allow_inf,
                    ensure_min_samples=1)
    if g.ndim != 1:
        raise ValueError(f"{name} must be 1-D, got shape {g.shape}.")
    if np.isnan(g).any():
        raise ValueError(f"{name} must not contain NaN.")
    return g


def _indicator(Y, name):
    Y = np.asarray(host(Y))
    if Y.ndim != 2:
        raise ValueError(f"{name} must be a 2-D label indicator (n_samples, n_labels), "
                         f"got shape {Y.shape}.")
    if Y.dtype.kind == "f" and not np.isfinite(Y).all():
        raise ValueError(f"{name} must hold 0/1 label indicators, got NaN or inf.")
    if Y.dtype.kind not in "biuf" or not np.isin(Y, (0, 1)).all():
        raise ValueError(f"{name} must hold 0/1 label indicators, got values "
                         f"{np.unique(Y)[:5].tolist()}.")
    return Y.astype(bool)


def _label_proba(proba, n_labels, name="proba"):
    P = check_array(host(proba), name, dtype=np.float64)
    if P.shape[1] != n_labels:
        raise ValueError(f"{name} must have one column per label ({n_labels}), got "
                         f"{P.shape[1]}.")
    if (P < 0).any() or (P > 1).any():
        raise ValueError(f"{name} must hold probabilities in [0, 1].")
    return P


def _paired(n_a, n_b, a, b):
    if n_a != n_b:
        raise ValueError(f"{a} and {b} must have the same number of rows, got {a}: {n_a}, "
                         f"{b}: {n_b}.")


def miscoverage_losses(scores, lambdas):
    """Miscoverage ``L_i(lambda) = 1{s_i > lambda}`` of the sets ``{y : s(x, y) <= lambda}``.

    With ``lambdas`` increasing, each row is non-increasing, and conformal
    risk control with ``B = 1`` picks the ``ceil((n + 1)(1 - alpha))``-th
    smallest score when ``lambdas`` holds every calibration score (and
    ``+inf``): split conformal prediction (Angelopoulos et al. 2024, Section 2).

    Parameters
    ----------
    scores : array-like of shape (n,)
        Nonconformity scores of the true labels (``+inf`` allowed).
    lambdas : array-like of shape (m,)
        Candidate thresholds (``+inf`` allowed).

    Returns
    -------
    ndarray of shape (n, m), values 0.0 or 1.0

    Examples
    --------
    >>> from statlearn.conformal import miscoverage_losses
    >>> miscoverage_losses([0.2, 0.7], [0.0, 0.5, 1.0]).tolist()
    [[1.0, 0.0, 0.0], [1.0, 1.0, 0.0]]
    """
    s = _grid(scores, "scores", allow_inf=True)
    lam = _grid(lambdas, "lambdas", allow_inf=True)
    return (s[:, None] > lam[None, :]).astype(np.float64)


def _multilabel_sets(Y, proba, thresholds):
    Y = _indicator(Y, "Y")
    P = _label_proba(proba, Y.shape[1])
    _paired(Y.shape[0], P.shape[0], "Y", "proba")
    t = _grid(thresholds, "thresholds", allow_inf=True)
    return Y, P[:, :, None] >= t[None, None, :]  # (n, K, m)


def multilabel_fnr_losses(Y, proba, thresholds):
    """False negative rate of the multi-label sets ``{k : p_k(x) >= t}``.

    ``L_i(t) = 1 - |Y_i and C_t(X_i)| / |Y_i|`` (0 when ``X_i`` has no true
    label); in ``[0, 1]`` and non-increasing as ``t`` decreases, so pass the
    thresholds in decreasing order to conformal risk control (Angelopoulos et
    al. 2024, Section 3, the FNR example).

    Parameters
    ----------
    Y : array-like of shape (n, K)
        True label indicators (0/1).
    proba : array-like of shape (n, K)
        Probability of each label, in ``[0, 1]``.
    thresholds : array-like of shape (m,)
        Candidate thresholds; column ``j`` uses ``thresholds[j]`` (``+inf``:
        the empty set).

    Returns
    -------
    ndarray of shape (n, m)

    Examples
    --------
    >>> from statlearn.conformal import multilabel_fnr_losses
    >>> multilabel_fnr_losses([[1, 1, 0]], [[0.9, 0.4, 0.6]], [0.8, 0.5, 0.3]).tolist()
    [[0.5, 0.5, 0.0]]
    """
    Y, sets = _multilabel_sets(Y, proba, thresholds)
    n_true = Y.sum(axis=1)
    hit = (sets & Y[:, :, None]).sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        loss = 1.0 - hit / n_true[:, None]
    loss[n_true == 0] = 0.0
    return loss


def multilabel_precision_losses(Y, proba, thresholds):
    """One minus the precision of the multi-label sets ``{k : p_k(x) >= t}``.

    ``L_i(t) = 1 - |Y_i and C_t(X_i)| / |C_t(X_i)|``, and ``1`` for an empty
    set (as MAPIE's multi-label controller counts it). Not monotone in ``t``:
    control it by learn-then-test, not by CRC.

    Parameters
    ----------
    Y : array-like of shape (n, K)
        True label indicators (0/1).
    proba : array-like of shape (n, K)
        Probability of each label, in ``[0, 1]``.
    thresholds : array-like of shape (m,)
        Candidate thresholds.

    Returns
    -------
    ndarray of shape (n, m)

    Examples
    --------
    >>> from statlearn.conformal import multilabel_precision_losses
    >>> multilabel_precision_losses([[1, 0, 0]], [[0.9, 0.4, 0.6]], [0.95, 0.5, 0.3]).tolist()
    [[1.0, 0.5, 0.6666666666666667]]
    """
    Y, sets = _multilabel_sets(Y, proba, thresholds)
    size = sets.sum(axis=1)
    hit = (sets & Y[:, :, None]).sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        loss = 1.0 - hit / size
    loss[size == 0] = 1.0
    return loss


_BINARY = ("precision", "recall")


def binary_losses(y, proba, thresholds, risk="precision"):
    """Losses of the binary predictions ``1{p(x) >= t}``, NaN where not counted.

    ``risk="precision"``: ``L_i(t) = 1{y_i = 0}`` on the predicted positives
    (their mean is one minus the precision, a risk conditional on the
    prediction); ``risk="recall"``: ``L_i(t) = 1{p(x_i) < t}`` on the true
    positives (one minus the recall). The other entries are NaN and
    learn-then-test leaves them out (its p-values use the number of counted
    losses, as in MAPIE's binary controller).

    Parameters
    ----------
    y : array-like of shape (n,)
        True labels, 0 or 1.
    proba : array-like of shape (n,)
        Probability of the positive class, in ``[0, 1]``.
    thresholds : array-like of shape (m,)
        Candidate thresholds.
    risk : {"precision", "recall"}, default="precision"

    Returns
    -------
    ndarray of shape (n, m), values 0.0, 1.0 or NaN

    Examples
    --------
    >>> from statlearn.conformal import binary_losses
    >>> binary_losses([1, 0, 1], [0.9, 0.6, 0.2], [0.5], risk="precision").ravel().tolist()
    [0.0, 1.0, nan]
    >>> binary_losses([1, 0, 1], [0.9, 0.6, 0.2], [0.5], risk="recall").ravel().tolist()
    [0.0, nan, 1.0]
    """
    if not isinstance(risk, str) or risk not in _BINARY:
        raise ValueError(f"risk must be one of {list(_BINARY)}, got {risk!r}.")
    y = np.asarray(host(y))
    if y.ndim != 1:
        raise ValueError(f"y must be 1-D, got shape {y.shape}.")
    if y.dtype.kind == "f" and not np.isfinite(y).all():
        raise ValueError("y must hold labels 0 and 1, got NaN or inf.")
    if y.dtype.kind not in "biuf" or not np.isin(y, (0, 1)).all():
        raise ValueError(f"y must hold labels 0 and 1, got {np.unique(y)[:5].tolist()}.")
    p = check_array(host(proba), "proba", ensure_2d=False, dtype=np.float64)
    if p.ndim != 1:
        raise ValueError(f"proba must be 1-D (the positive class), got shape {p.shape}.")
    if (p < 0).any() or (p > 1).any():
        raise ValueError("proba must hold probabilities in [0, 1].")
    _paired(y.shape[0], p.shape[0], "y", "proba")
    t = _grid(thresholds, "thresholds", allow_inf=True)
    pos = y.astype(bool)[:, None]
    pred = p[:, None] >= t[None, :]
    if risk == "precision":
        return np.where(pred, (~pos).astype(np.float64), np.nan)
    return np.where(pos, (~pred).astype(np.float64), np.nan)


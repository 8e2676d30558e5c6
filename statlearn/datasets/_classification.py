"""Synthetic multi-class data with known class probabilities."""

from __future__ import annotations

import numpy as np

from ..utils import check_array, check_int, check_real, check_rng

__all__ = ["make_softmax_classification"]


def make_softmax_classification(n_samples=1000, n_classes=10, n_features=5, *, scale=2.0,
                                coef=None, return_proba=False, random_state=None):
    """Multinomial-logit data: ``X ~ N(0, I)``, ``P(Y = k | x) = softmax(scale * x W)_k``.

    Parameters
    ----------
    n_samples : int, default=1000
        Number of rows (``>= 1``).
    n_classes : int, default=10
        Number of classes ``K`` (``>= 2``).
    n_features : int, default=5
        Dimension of ``X`` (``>= 1``).
    scale : float, default=2.0
        Multiplier of the logits (``>= 0``); larger values give more
        confident, more separable classes.
    coef : array of shape (n_features, n_classes), optional
        The matrix ``W``. When omitted its entries are drawn i.i.d.
        ``N(0, 1)`` from ``random_state`` before ``X``; pass it to draw new
        samples from the same model.
    return_proba : bool, default=False
        Also return the true class probabilities.
    random_state : None, int or numpy.random.Generator
        Seed or generator.

    Returns
    -------
    X : ndarray of shape (n_samples, n_features)
    y : ndarray of shape (n_samples,)
        Integer labels in ``0..n_classes-1``.
    proba : ndarray of shape (n_samples, n_classes)
        True ``P(Y = k | X)``; only when ``return_proba=True``.

    Examples
    --------
    >>> from statlearn.datasets import make_softmax_classification
    >>> X, y, p = make_softmax_classification(200, n_classes=4, return_proba=True,
    ...                                       random_state=0)
    >>> X.shape, y.shape, p.shape
    ((200, 5), (200,), (200, 4))
    >>> bool(abs(p.sum(axis=1) - 1).max() < 1e-12), int(y.max()) <= 3
    (True, True)
    """
    n_samples = check_int(n_samples, "n_samples", low=1)
    n_classes = check_int(n_classes, "n_classes", low=2)
    n_features = check_int(n_features, "n_features", low=1)
    scale = check_real(scale, "scale", low=0)
    rng = check_rng(random_state)
    if coef is None:
        W = rng.standard_normal((n_features, n_classes))
    else:
        W = check_array(coef, "coef", dtype=np.float64)
        if W.shape != (n_features, n_classes):
            raise ValueError(f"coef must have shape (n_features, n_classes) = "
                             f"({n_features}, {n_classes}), got {W.shape}.")
    X = rng.standard_normal((n_samples, n_features))
    logits = scale * (X @ W)
    logits -= logits.max(axis=1, keepdims=True)
    proba = np.exp(logits)
    proba /= proba.sum(axis=1, keepdims=True)
    cdf = np.cumsum(proba, axis=1)
    u = rng.random(n_samples) * cdf[:, -1]
    y = np.minimum((cdf < u[:, None]).sum(axis=1), n_classes - 1).astype(np.int64)
    if return_proba:
        return X, y, proba
    return X, y

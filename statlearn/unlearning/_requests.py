"""Bookkeeping of a removal request: index validation and the retained rows."""

from __future__ import annotations

import numbers

import numpy as np

from ..utils import asarray_like, to_numpy
from ._glm import loss_derivatives

__all__ = ["Retained", "check_removal_indices"]


def check_removal_indices(indices, removed, name="indices"):
    """Validate row indices of a removal request against the rows already removed.

    Integers only (no booleans), 1-D, in ``[0, n)``, no repeats, none removed
    before. Nothing is deduplicated or dropped silently.
    """
    n = removed.shape[0]
    arr = np.asarray(to_numpy(indices) if not isinstance(indices, list | tuple | range)
                     else list(indices))
    if arr.ndim != 1:
        raise ValueError(f"{name} must be a 1-D sequence of row indices, got shape "
                         f"{arr.shape}.")
    if arr.size == 0:
        return np.zeros(0, dtype=np.intp)
    if arr.dtype == bool or not np.issubdtype(arr.dtype, np.integer):
        if not all(isinstance(v, numbers.Integral) and not isinstance(v, bool | np.bool_)
                   for v in arr.tolist()):
            raise TypeError(f"{name} must hold integers, got dtype {arr.dtype}.")
    arr = arr.astype(np.intp)
    if np.any(arr < 0) or np.any(arr >= n):
        bad = arr[(arr < 0) | (arr >= n)][:5].tolist()
        raise ValueError(f"{name} must lie in [0, {n - 1}] (rows seen by fit), got {bad}.")
    uniq, counts = np.unique(arr, return_counts=True)
    if np.any(counts > 1):
        raise ValueError(f"{name} must not repeat a row; duplicated: "
                         f"{uniq[counts > 1][:5].tolist()}.")
    already = arr[removed[arr]]
    if already.size:
        raise ValueError(f"{name} includes rows already removed by an earlier request: "
                         f"{already[:5].tolist()}.")
    return arr


class Retained:
    """The retained rows of a request: a 0/1 weight mask, with the copied rows made lazily.

    Gradients use the mask over all rows (``O(n p)``, no copy of ``X``); the rows
    themselves are gathered only when the Hessian is assembled directly or the
    exact solver runs.
    """

    def __init__(self, est, keep):
        self.est = est
        self.keep = keep
        self.n = int(keep.size)
        mask = np.zeros(est._X.shape[0])
        mask[keep] = 1.0
        self.mask = asarray_like(mask, est._X, dtype=est._X.dtype)
        self._rows = None

    @property
    def rows(self):
        if self._rows is None:
            self._rows = self.est._take(self.keep)
        return self._rows

    def gradient(self, beta):
        est = self.est
        xp = est._xp
        d1, _ = loss_derivatives(est._y, est._X @ beta, est.loss, xp)
        g = est._X.T @ (d1 * self.mask) + est._alpha * beta
        return g if est._shift is None else g + est._shift

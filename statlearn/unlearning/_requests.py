"""Bookkeeping of a removal request: index validation and the retained rows."""

from __future__ import annotations

import numbers

import numpy as np

from ..utils import asarray_like, to_numpy
from ._kernels import retained_gradient

__all__ = ["Retained", "check_removal_indices"]


def _is_pandas(obj):
    mod = type(obj).__module__ or ""
    return mod.startswith("pandas")


def check_removal_indices(indices, removed, name="indices"):
    """Validate row positions of a removal request against the rows already removed.

    Accepts integer positions (no booleans), 1-D, in ``[0, n)``, no repeats,
    none removed before, or a boolean mask of length ``n`` (rows to forget
    are ``True``). pandas objects are refused: their values are labels, not
    positions, and reading labels as positions would forget the wrong rows.
    Nothing is deduplicated or dropped silently.
    """
    n = removed.shape[0]
    if _is_pandas(indices):
        raise TypeError(
            f"{name} must be integer row positions or a boolean mask, got a pandas "
            f"{type(indices).__name__}: its values are labels, and labels are not positions "
            "(a model fitted on df.iloc[100:] has position 0 at label 100). Convert labels "
            "to positions of the data passed to fit, e.g. "
            "positions = df_fit.index.get_indexer(labels) (check that no entry is -1), or "
            "pass a boolean mask such as df_fit.index.isin(labels) as a NumPy array "
            "(mask.to_numpy() for a Series)."
        )
    arr = np.asarray(to_numpy(indices) if not isinstance(indices, list | tuple | range)
                     else list(indices))
    if arr.ndim != 1:
        raise ValueError(f"{name} must be a 1-D sequence of row indices, got shape "
                         f"{arr.shape}.")
    if arr.dtype == bool and arr.size:
        if arr.shape[0] != n:
            raise ValueError(f"{name} given as a boolean mask must have one entry per row "
                             f"seen by fit ({n}), got {arr.shape[0]}.")
        arr = np.flatnonzero(arr)
    if arr.size == 0:
        return np.zeros(0, dtype=np.intp)
    if arr.dtype == bool or not np.issubdtype(arr.dtype, np.integer):
        if not all(isinstance(v, numbers.Integral) and not isinstance(v, bool | np.bool_)
                   for v in arr.tolist()):
            raise TypeError(f"{name} must hold integer positions or be a boolean mask, got "
                            f"dtype {arr.dtype}.")
    arr = arr.astype(np.intp)
    # one sort gives the range (its ends) and the repeats (equal neighbours): a request
    # runs on caches that the data just evicted, so the checks are kept to a few calls
    srt = np.sort(arr)
    if srt[0] < 0 or srt[-1] >= n:
        bad = arr[(arr < 0) | (arr >= n)][:5].tolist()
        raise ValueError(f"{name} must lie in [0, {n - 1}] (rows seen by fit), got {bad}.")
    repeated = srt[1:] == srt[:-1]
    if repeated.any():
        raise ValueError(f"{name} must not repeat a row; duplicated: "
                         f"{np.unique(srt[1:][repeated])[:5].tolist()}.")
    hit = removed[arr]
    if hit.any():
        raise ValueError(f"{name} includes rows already removed by an earlier request: "
                         f"{arr[hit][:5].tolist()}.")
    return arr


class Retained:
    """The retained rows of a request: a 0/1 weight mask, with the copied rows made lazily.

    Gradients use the mask over all rows (one ``O(n p)`` pass, no copy of ``X``); the rows
    themselves are gathered only when the Hessian is assembled directly or the
    exact solver runs.
    """

    def __init__(self, est, keep):
        self.est = est
        self.keep = keep
        self.n = int(keep.size)
        mask = np.zeros(est._X.shape[0])
        mask[keep] = 1.0
        self.mask_host = mask
        self.mask = asarray_like(mask, est._X, dtype=est._X.dtype)
        self._rows = None

    @property
    def rows(self):
        if self._rows is None:
            self._rows = self.est._take(self.keep)
        return self._rows

    def gradient(self, beta):
        """Gradient of the retained objective at ``beta`` (one pass over ``X``)."""
        est = self.est
        return retained_gradient(est._X, est._y, beta, self.mask, est._cfg.loss, est._pen,
                                 est._xp, shift=est._shift)

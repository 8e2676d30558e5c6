"""The K-fold splits of the cross-conformal procedures (regression CV+ and classification CV+).

``cv`` is an int (shuffled K-fold, stratified for labels), ``"jackknife"``
(leave-one-out) or any splitter object; the test folds must partition the
samples, since every calibration point is scored by exactly one fold model.
"""

from __future__ import annotations

import numbers

import numpy as np
from sklearn.model_selection import KFold, LeaveOneOut, StratifiedKFold

from ...base import HasMethods
from ...utils._validation import _scalar

__all__ = []

SPLITTER = HasMethods(
    "split", description="a cross-validation splitter (an object with a split method)")


def cv_folds(cv, X, y, n, rng, stratified=False):
    """``(folds, fold_of)``: the ``(train, test)`` index pairs and each sample's test fold.

    Raises a ValueError naming ``cv`` when an int asks for more folds than samples,
    when it gives fewer than 2 folds, or when its test folds do not partition the
    ``n`` samples.
    """
    cv = _scalar(cv)
    if isinstance(cv, str) and cv == "jackknife":
        splitter = LeaveOneOut()
    elif isinstance(cv, numbers.Integral):
        cv = int(cv)
        if n < cv:
            raise ValueError(f"cv={cv} folds need at least {cv} samples, got "
                             f"n_samples = {n}.")
        kfold = StratifiedKFold if stratified else KFold
        splitter = kfold(cv, shuffle=True, random_state=int(rng.integers(2**31 - 1)))
    else:
        splitter = cv
    folds = [(np.asarray(tr), np.asarray(te)) for tr, te in splitter.split(X, y)]
    if len(folds) < 2:
        raise ValueError(f"cv must give at least 2 folds, got {len(folds)}.")
    fold_of = np.full(n, -1, dtype=np.int64)
    for k, (_, te) in enumerate(folds):
        if np.any(fold_of[te] >= 0):
            raise ValueError("cv must put every sample in exactly one test fold; "
                             "some appear in several.")
        fold_of[te] = k
    if np.any(fold_of < 0):
        raise ValueError("cv must put every sample in exactly one test fold; "
                         f"{int(np.sum(fold_of < 0))} appear in none.")
    return folds, fold_of

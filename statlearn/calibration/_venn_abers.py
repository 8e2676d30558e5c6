"""Inductive Venn-Abers calibration of a binary classifier (Vovk & Petej, 2014)."""

from __future__ import annotations

import numpy as np

try:  # SciPy >= 1.12: the compiled PAVA without scikit-learn's per-call validation
    from scipy.optimize import isotonic_regression as _scipy_isotonic
except ImportError:  # pragma: no cover - older SciPy
    _scipy_isotonic = None
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.isotonic import isotonic_regression as _sklearn_isotonic
from sklearn.linear_model import LogisticRegression
from sklearn.utils import _safe_indexing
from sklearn.utils.multiclass import check_classification_targets, type_of_target
from sklearn.utils.validation import check_is_fitted, column_or_1d, validate_data

from ..base import FitStateMixin, HasMethods, Real, TargetCheckedScoreMixin
from ..utils import check_array, check_rng
from ..utils._validation import user_frame

__all__ = ["VennAbersCalibrator", "venn_abers"]


def _scores(a, name):
    s = check_array(a, name, ensure_2d=False, dtype=np.float64, ensure_min_samples=1)
    if s.ndim != 1:
        raise ValueError(f"{name} must be 1-D, got shape {s.shape}.")
    return s


def _slot_values(c, w, ybar, label):
    """Isotonic fit of the pooled calibration data plus one point of ``label``, read at
    that point, for every slot of a test score: ``out[2j]`` when it lies strictly below
    ``c[j]`` (``out[2k]``: above all), ``out[2j + 1]`` when it equals ``c[j]``."""
    k = c.size
    out = np.empty(2 * k + 1)
    for slot in range(2 * k + 1):
        j, equal = divmod(slot, 2)
        if equal:  # pooled with the calibration points at c[j]
            y = ybar.copy()
            ww = w.copy()
            y[j] = (ybar[j] * w[j] + label) / (w[j] + 1.0)
            ww[j] = w[j] + 1.0
            at = j
        else:  # a new point between c[j - 1] and c[j]
            y = np.insert(ybar, j, float(label))
            ww = np.insert(w, j, 1.0)
            at = j
        if _scipy_isotonic is not None:
            out[slot] = _scipy_isotonic(y, weights=ww, increasing=True).x[at]
        else:  # pragma: no cover
            out[slot] = _sklearn_isotonic(y, sample_weight=ww, increasing=True)[at]
    return out


def venn_abers(cal_scores, cal_labels, test_scores):
    """Inductive Venn-Abers probabilities ``(p0, p1)`` of every test score.

    ``p_l(s)`` is the value at ``s`` of the isotonic regression (increasing) of
    the calibration labels on the calibration scores, with the test point
    added with label ``l`` (Vovk & Petej 2014, the inductive Venn-Abers
    predictor; ties in the scores are pooled). One of the two is the
    probability of a perfectly calibrated (Venn) predictor, so the pair is a
    multi-probability prediction with ``p0 <= p1``; the merged probability
    ``p1 / (1 - p0 + p1)`` is the one minimising the worst log loss of the two
    (Vovk & Petej 2014, Section 4).

    Computed slot by slot: the fit depends only on where a test score falls
    among the ``k`` distinct calibration scores, so ``2k + 1`` isotonic fits
    per label serve every test score.

    Parameters
    ----------
    cal_scores : array-like of shape (n,)
        Scores of the calibration points (any increasing transform of the
        classifier's confidence in class 1).
    cal_labels : array-like of shape (n,)
        Their labels, 0 or 1.
    test_scores : array-like of shape (m,)
        Scores to calibrate.

    Returns
    -------
    ndarray of shape (m, 2)
        Columns ``p0`` and ``p1``.

    References
    ----------
    Vovk & Petej (2014), "Venn-Abers predictors", UAI. Vovk, Petej & Fedorova
    (2015), "Large-scale probabilistic predictors with and without guarantees
    of validity", NeurIPS.

    Examples
    --------
    >>> from statlearn.calibration import venn_abers
    >>> venn_abers([0.1, 0.2, 0.3], [0, 1, 0], [0.25]).round(4).tolist()
    [[0.3333, 0.6667]]
    """
    s = _scores(cal_scores, "cal_scores")
    y = np.asarray(cal_labels)
    if y.ndim != 1:
        raise ValueError(f"cal_labels must be 1-D, got shape {y.shape}.")
    if y.dtype.kind == "f" and not np.isfinite(y).all():
        raise ValueError("cal_labels must hold labels 0 and 1, got NaN or inf.")
    if y.dtype.kind not in "biuf" or not np.isin(y, (0, 1)).all():
        raise ValueError(f"cal_labels must hold labels 0 and 1, got "
                         f"{np.unique(y)[:5].tolist()}.")
    if y.shape[0] != s.shape[0]:
        raise ValueError(f"cal_scores and cal_labels must have the same number of rows, got "
                         f"cal_scores: {s.shape[0]}, cal_labels: {y.shape[0]}.")
    t = _scores(test_scores, "test_scores")
    c, inv, w = np.unique(s, return_inverse=True, return_counts=True)
    ybar = np.bincount(inv, weights=y.astype(np.float64)) / w
    w = w.astype(np.float64)
    p0 = _slot_values(c, w, ybar, 0)
    p1 = _slot_values(c, w, ybar, 1)
    left = np.searchsorted(c, t, side="left")
    equal = (left < c.size) & (c[np.minimum(left, c.size - 1)] == t)
    slot = 2 * left + equal
    return np.column_stack([p0[slot], p1[slot]])


class VennAbersCalibrator(FitStateMixin, TargetCheckedScoreMixin, ClassifierMixin, BaseEstimator):
    """A binary classifier's probabilities calibrated by inductive Venn-Abers.

    ``fit`` trains a clone of ``estimator`` on part of the data (unless
    ``prefit``) and keeps the scores ``P(y = classes_[1] | x)`` and labels of
    the rest; :meth:`predict_p0p1` gives the Venn-Abers pair of every new
    point (:func:`venn_abers`) and :meth:`predict_proba` the merged probability
    ``p1 / (1 - p0 + p1)`` (Vovk & Petej, 2014).

    Parameters
    ----------
    estimator : binary classifier with ``predict_proba``, default=None
        ``LogisticRegression()`` when None.
    prefit : bool, default=False
        ``estimator`` is fitted; ``fit`` only calibrates on all of the data.
    calib_size : float, default=0.3
        Fraction of the data kept for calibration when ``prefit=False``.
    random_state : None, int, numpy.random.Generator or RandomState
        Drives the train/calibration split.

    Attributes
    ----------
    estimator_ : classifier
    classes_ : ndarray of shape (2,)
    calib_scores_ : ndarray of shape (n_cal,)
    calib_labels_ : ndarray of int, shape (n_cal,)
        1 for ``classes_[1]``.
    n_features_in_ : int

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from statlearn.calibration import VennAbersCalibrator
    >>> X, y = make_classification(600, random_state=0)
    >>> va = VennAbersCalibrator(random_state=0).fit(X[:400], y[:400])
    >>> pair = va.predict_p0p1(X[400:])
    >>> bool((pair[:, 0] <= pair[:, 1]).all()), va.predict_proba(X[400:]).shape
    (True, (200, 2))
    """

    _parameter_constraints = {
        "estimator": [None, HasMethods("predict_proba")],
        "prefit": ["boolean"],
        "calib_size": [Real(0, 1, closed="neither")],
        "random_state": ["random_state"],
    }

    def __init__(self, estimator=None, *, prefit=False, calib_size=0.3, random_state=None):
        self.estimator = estimator
        self.prefit = prefit
        self.calib_size = calib_size
        self.random_state = random_state

    def fit(self, X, y):
        """Fit the base model (unless ``prefit``) and keep the calibration scores.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
            Two classes.

        Returns
        -------
        self
        """
        if y is None:
            raise ValueError(f"{type(self).__name__} requires y to be passed, but the "
                             "target y is None.")
        X_in = X
        X = validate_data(self, X, reset=True, dtype=np.float64)
        # the model receives the user's DataFrame (its column names), not the checked array
        Xm = user_frame(X_in, X)
        y = column_or_1d(np.asarray(y), warn=True)
        if y.dtype.kind == "f" and not np.isfinite(y).all():
            raise ValueError("y must not contain NaN or inf.")
        check_classification_targets(y)
        if type_of_target(y, input_name="y") != "binary":
            raise ValueError("Only binary classification is supported: y must hold 2 "
                             f"classes, got {np.unique(y).tolist()[:5]}.")
        n = X.shape[0]
        if n != y.shape[0]:
            raise ValueError(f"X and y must have the same number of rows, got X: {n}, "
                             f"y: {y.shape[0]}.")
        if self.prefit:
            if self.estimator is None:
                raise ValueError("prefit=True needs a fitted estimator, got estimator=None.")
            check_is_fitted(self.estimator)
            self.estimator_ = self.estimator
            X_cal, y_cal = Xm, y
        else:
            if np.unique(y).size < 2 or n < 2:
                raise ValueError(f"y must hold 2 classes and 2 samples, got 1 class: "
                                 f"{np.unique(y).tolist()} (n_samples = {n}).")
            rng = check_rng(self.random_state)
            n_cal = min(n - 1, max(1, int(round(float(self.calib_size) * n))))
            perm = rng.permutation(n)
            train, cal = np.sort(perm[n_cal:]), np.sort(perm[:n_cal])
            est = clone(self.estimator if self.estimator is not None else LogisticRegression())
            self.estimator_ = est.fit(_safe_indexing(Xm, train), y[train])
            X_cal, y_cal = _safe_indexing(Xm, cal), y[cal]
        self.classes_ = np.asarray(self.estimator_.classes_)
        if self.classes_.size != 2:
            raise ValueError(f"the estimator must be binary, it has classes "
                             f"{self.classes_.tolist()[:5]}.")
        unknown = ~np.isin(y_cal, self.classes_)
        if unknown.any():
            raise ValueError(f"y contains labels unknown to the model: "
                             f"{np.unique(y_cal[unknown])[:5].tolist()}.")
        self.calib_scores_ = self._score(X_cal)
        self.calib_labels_ = (y_cal == self.classes_[1]).astype(np.int64)
        return self

    def _score(self, X):
        P = np.asarray(self.estimator_.predict_proba(X), dtype=np.float64)
        if P.ndim != 2 or P.shape[1] != 2 or not np.isfinite(P).all():
            raise ValueError("estimator.predict_proba(X) must give finite probabilities of "
                             "shape (n_samples, 2).")
        return P[:, 1]

    def predict_p0p1(self, X):
        """The Venn-Abers pair ``(p0, p1)`` of every row, shape (n_samples, 2)."""
        self._check_fitted()
        X_in = X
        X = validate_data(self, X, reset=False, dtype=np.float64)
        return venn_abers(self.calib_scores_, self.calib_labels_,
                          self._score(user_frame(X_in, X)))

    def predict_proba(self, X):
        """Merged probabilities ``p1 / (1 - p0 + p1)``, columns ordered as ``classes_``."""
        self._check_fitted()
        pair = self.predict_p0p1(X)
        p = pair[:, 1] / (1.0 - pair[:, 0] + pair[:, 1])
        return np.column_stack([1.0 - p, p])

    def predict(self, X):
        """The class of the larger merged probability (``classes_[0]`` on ties)."""
        self._check_fitted()
        return self.classes_[np.argmax(self.predict_proba(X), axis=1)]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags

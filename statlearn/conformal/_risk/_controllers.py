"""Risk controllers around a classifier: multi-label sets (recall by CRC, precision by
LTT) and binary decisions (precision or recall by LTT)."""

from __future__ import annotations

import dataclasses
import warnings

import numpy as np
from sklearn.base import BaseEstimator, clone
from sklearn.linear_model import LogisticRegression
from sklearn.multioutput import MultiOutputClassifier
from sklearn.utils import _safe_indexing
from sklearn.utils.multiclass import check_classification_targets, type_of_target
from sklearn.utils.validation import check_is_fitted, column_or_1d, validate_data

from ...base import FitStateMixin, HasMethods, Level, Options, Real
from ...utils import check_rng
from ...utils._validation import user_frame
from .._core._arrays import host, same_rows
from ._crc import conformal_risk_control
from ._losses import _indicator, multilabel_fnr_losses, multilabel_precision_losses
from ._ltt import FWER, learn_then_test, ltt_from_risks

__all__ = ["BinaryRiskController", "MultiLabelRiskController"]


def _thresholds(self, default):
    grid = default if self.thresholds is None else np.asarray(host(self.thresholds))
    if grid.ndim != 1 or grid.size < 1 or grid.dtype.kind not in "iuf" or \
            not np.all(np.isfinite(grid)):
        raise ValueError(f"{type(self).__name__} parameter thresholds must be a non-empty "
                         f"1-D sequence of finite numbers, got {self.thresholds!r}.")
    return np.unique(grid.astype(np.float64))  # sorted, each once


def _require_y(est, y):
    if y is None:
        raise ValueError(f"{type(est).__name__} requires y to be passed, but the target y "
                         "is None.")


class _RiskControllerBase(FitStateMixin, BaseEstimator):
    """Shared fit: the base model on one part (unless ``prefit``), calibration on the rest."""

    _parameter_constraints = {
        "estimator": [None, HasMethods("predict_proba")],
        "alpha": [Level()],
        "delta": [Level()],
        "thresholds": [None, "array-like"],  # values checked in fit
        "fwer": [Options(FWER)],
        "prefit": ["boolean"],
        "calib_size": [Real(0, 1, closed="neither")],
        "random_state": ["random_state"],
    }

    def _default_estimator(self):
        raise NotImplementedError  # pragma: no cover

    def _fit_split(self, X, y):
        n = X.shape[0]
        same_rows(n, y)
        if self.prefit:
            if self.estimator is None:
                raise ValueError("prefit=True needs a fitted estimator, got estimator=None.")
            check_is_fitted(self.estimator)
            self.estimator_ = self.estimator
            return X, y
        if n < 2:
            raise ValueError(f"fit needs at least 2 samples to split into training and "
                             f"calibration data, got n_samples = {n}.")
        rng = check_rng(self.random_state)
        n_cal = min(n - 1, max(1, int(round(float(self.calib_size) * n))))
        perm = rng.permutation(n)
        train, cal = np.sort(perm[n_cal:]), np.sort(perm[:n_cal])
        est = clone(self.estimator if self.estimator is not None else self._default_estimator())
        self.estimator_ = est.fit(_safe_indexing(X, train), _safe_indexing(y, train))
        return _safe_indexing(X, cal), _safe_indexing(y, cal)

    def _check_X(self, X, reset):
        """``X`` checked (finite floats, feature count and names), as the model receives it.

        A DataFrame reaches the model as the user's own frame, so that a model
        fitted on named columns refuses renamed or reordered ones instead of
        reading them by position.
        """
        return user_frame(X, validate_data(self, X, reset=reset, dtype=np.float64))


class MultiLabelRiskController(_RiskControllerBase):
    """Multi-label prediction sets ``{k : p_k(x) >= t}`` with a controlled recall or precision.

    ``fit`` trains a clone of ``estimator`` on part of the data (unless
    ``prefit``) and chooses the threshold ``t`` on the rest:

    * ``risk="recall"``: conformal risk control of the false negative rate,
      ``E[FNR] <= alpha`` (Angelopoulos et al. 2024, Theorem 1): the largest
      threshold of the grid whose sets meet the CRC condition;
    * ``risk="precision"``: learn-then-test with Hoeffding-Bentkus p-values
      of the per-point loss ``1 - precision`` (1 for an empty set):
      ``P(E[1 - precision] <= alpha) >= 1 - delta`` for every certified
      threshold (Angelopoulos et al. 2025, Theorem 1); the smallest certified
      threshold (the largest sets) is used.

    Parameters
    ----------
    estimator : multi-label classifier with ``predict_proba``, default=None
        ``predict_proba`` returns an ``(n, K)`` matrix of label probabilities,
        or a list of ``K`` arrays ``(n, 2)`` as
        :class:`~sklearn.multioutput.MultiOutputClassifier` does.
        Default ``MultiOutputClassifier(LogisticRegression())``.
    risk : {"recall", "precision"}, default="recall"
    alpha : float, default=0.1
        Level of the loss: ``1 - recall`` or ``1 - precision``.
    delta : float, default=0.1
        Family-wise error rate of LTT (``risk="precision"``); CRC ignores it.
    thresholds : array-like of float, optional
        Candidate thresholds (default ``0, 0.01, ..., 0.99``), read from the
        largest (smallest sets) to the smallest.
    fwer : {"bonferroni", "holm", "fixed_sequence"}, default="holm"
        Family-wise error procedure of LTT (fixed sequence: from the largest
        threshold down).
    prefit : bool, default=False
        ``estimator`` is already fitted; ``fit`` only calibrates on all of it.
    calib_size : float, default=0.3
        Fraction of the data kept for calibration when ``prefit=False``.
    random_state : None, int, numpy.random.Generator or RandomState
        Drives the train/calibration split.

    Attributes
    ----------
    estimator_ : estimator
        The fitted base model.
    threshold_ : float
        The chosen threshold (``+inf``, empty sets, when LTT certified none).
    result_ : RiskControlResult
        Candidates (the thresholds, largest first), risks, p-values, choice.
    n_labels_ : int
        Number of labels ``K``.
    n_calib_ : int
        Number of calibration points.
    n_features_in_ : int
        Number of features seen by ``fit``.

    References
    ----------
    Angelopoulos, Bates, Fisch, Lei & Schuster (2024), "Conformal Risk
    Control", ICLR. Angelopoulos, Bates, Candes, Jordan & Lei (2025), "Learn
    then test", Annals of Applied Statistics.

    Examples
    --------
    >>> from sklearn.datasets import make_multilabel_classification
    >>> from statlearn.conformal import MultiLabelRiskController, multilabel_fnr_losses
    >>> X, Y = make_multilabel_classification(n_samples=1200, n_classes=5,
    ...                                       random_state=0)
    >>> ctrl = MultiLabelRiskController(alpha=0.1, random_state=0).fit(X[:900], Y[:900])
    >>> sets = ctrl.predict(X[900:])
    >>> sets.shape, sets.dtype
    ((300, 5), dtype('bool'))
    >>> fnr = multilabel_fnr_losses(Y[900:], ctrl.predict_proba(X[900:]), [ctrl.threshold_])
    >>> ctrl.threshold_, bool(fnr.mean() < 0.15)
    (0.25, True)
    """

    _parameter_constraints = {**_RiskControllerBase._parameter_constraints,
                              "risk": [Options(("recall", "precision"))]}

    def __init__(self, estimator=None, *, risk="recall", alpha=0.1, delta=0.1,
                 thresholds=None, fwer="holm", prefit=False, calib_size=0.3,
                 random_state=None):
        self.estimator = estimator
        self.risk = risk
        self.alpha = alpha
        self.delta = delta
        self.thresholds = thresholds
        self.fwer = fwer
        self.prefit = prefit
        self.calib_size = calib_size
        self.random_state = random_state

    def _default_estimator(self):
        return MultiOutputClassifier(LogisticRegression())

    def fit(self, X, y):
        """Fit the base model (unless ``prefit``) and choose the threshold.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples, K)
            Label indicators (0/1).

        Returns
        -------
        self
        """
        grid = _thresholds(self, np.round(np.arange(0, 1, 0.01), 2))[::-1]
        _require_y(self, y)
        X = self._check_X(X, reset=True)
        Y = _indicator(y, "y").astype(np.int64)
        X_cal, Y_cal = self._fit_split(X, Y)
        P = self._proba(X_cal)
        if P.shape[1] != Y.shape[1]:
            raise ValueError(f"estimator.predict_proba gives {P.shape[1]} labels, y has "
                             f"{Y.shape[1]}.")
        self.n_labels_ = int(Y.shape[1])
        self.n_calib_ = int(Y_cal.shape[0])
        if self.risk == "recall":
            losses = multilabel_fnr_losses(Y_cal, P, grid)
            res = conformal_risk_control(losses, float(self.alpha), lambdas=grid)
            self.threshold_ = float(res.lambda_hat)
        else:
            losses = multilabel_precision_losses(Y_cal, P, grid)
            res = learn_then_test(losses, float(self.alpha), float(self.delta), lambdas=grid,
                                  fwer=self.fwer)
            self.threshold_ = float(res.lambda_hat) if res.index >= 0 else np.inf
            if res.index < 0:
                warnings.warn(f"no threshold is certified at alpha = {self.alpha}, delta = "
                              f"{self.delta}: the sets are empty.", UserWarning, stacklevel=3)
        self.result_ = res
        return self

    def _proba(self, X):
        P = self.estimator_.predict_proba(X)
        if isinstance(P, list):
            P = np.column_stack([np.asarray(p)[:, -1] for p in P])
        P = np.asarray(P, dtype=np.float64)
        if P.ndim != 2 or not np.isfinite(P).all() or (P < 0).any() or (P > 1).any():
            raise ValueError("estimator.predict_proba(X) must give label probabilities in "
                             "[0, 1], shape (n_samples, K).")
        return P

    def predict_proba(self, X):
        """Probability of every label from the base model, shape (n_samples, K)."""
        self._check_fitted()
        return self._proba(self._check_X(X, reset=False))

    def predict(self, X):
        """The controlled label sets as a boolean matrix (n_samples, K)."""
        self._check_fitted()
        return self._proba(self._check_X(X, reset=False)) >= self.threshold_

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        tags.target_tags.multi_output = True
        tags.target_tags.single_output = False
        return tags

    @classmethod
    def _statlearn_expected_failed_checks(cls):
        reason = "y must be a 2-D 0/1 label indicator matrix (multi-label sets)"
        return {name: reason for name in _MULTILABEL_CHECKS}


# scikit-learn's checks that fit on a 1-D y (this estimator needs a 2-D indicator matrix)
_MULTILABEL_CHECKS = (
    "check_dict_unchanged", "check_dont_overwrite_parameters", "check_dtype_object",
    "check_estimators_dtypes", "check_estimators_fit_returns_self",
    "check_estimators_overwrite_params", "check_f_contiguous_array_estimator",
    "check_fit2d_1feature", "check_fit2d_predict1d", "check_fit_score_takes_y",
    "check_methods_sample_order_invariance", "check_methods_subset_invariance",
    "check_n_features_in_after_fitting", "check_positive_only_tag_during_fit",
    "check_readonly_memmap_input",
)


class BinaryRiskController(_RiskControllerBase):
    """Binary decisions ``1{p(x) >= t}`` whose precision or recall is certified by LTT.

    ``fit`` trains a clone of ``estimator`` (unless ``prefit``), then on the
    calibration part tests ``H_t: R(t) > alpha`` for every threshold with the
    Hoeffding-Bentkus p-value of the 0/1 losses (exact binomial tail, no
    factor ``e``, over the counted losses: the predicted positives for
    precision, the true positives for recall), and a family-wise error
    procedure: with probability at least ``1 - delta`` every certified
    threshold has ``1 - precision <= alpha`` (or ``1 - recall <= alpha``)
    (Angelopoulos et al. 2025, Theorem 1). Among the certified thresholds the
    one with the best other metric (recall for precision control, precision
    for recall control) is used, ties broken by the largest risk, as in MAPIE.

    Parameters
    ----------
    estimator : binary classifier with ``predict_proba``, default=None
        ``LogisticRegression()`` when None.
    risk : {"precision", "recall"}, default="precision"
    alpha : float, default=0.1
        Level of ``1 - precision`` (or ``1 - recall``).
    delta : float, default=0.1
        Family-wise error rate.
    thresholds : array-like of float, optional
        Candidate thresholds on the positive-class probability (default
        ``0, 0.01, ..., 0.99``).
    fwer : {"bonferroni", "holm", "fixed_sequence"}, default="holm"
        Fixed sequence tests from the safe end: the largest threshold first
        for precision, the smallest first for recall.
    prefit : bool, default=False
    calib_size : float, default=0.3
    random_state : None, int, numpy.random.Generator or RandomState

    Attributes
    ----------
    estimator_ : classifier
    classes_ : ndarray of shape (2,)
        ``classes_[1]`` is the positive class.
    threshold_ : float
        Chosen threshold; when none is certified, ``+inf`` for precision (no
        positive predictions) and ``-inf`` for recall (all positive).
    result_ : RiskControlResult
    n_calib_ : int
    n_features_in_ : int

    References
    ----------
    Angelopoulos, Bates, Candes, Jordan & Lei (2025), "Learn then test",
    Annals of Applied Statistics, Theorem 1.

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from sklearn.pipeline import make_pipeline
    >>> from sklearn.preprocessing import StandardScaler
    >>> from sklearn.linear_model import LogisticRegression
    >>> from statlearn.conformal import BinaryRiskController
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> model = make_pipeline(StandardScaler(), LogisticRegression())
    >>> ctrl = BinaryRiskController(model, risk="precision", alpha=0.1, delta=0.1,
    ...                             calib_size=0.5, random_state=0).fit(X, y)
    >>> bool(0 <= ctrl.threshold_ < 1), ctrl.result_.method
    (True, 'ltt')
    """

    _parameter_constraints = {**_RiskControllerBase._parameter_constraints,
                              "risk": [Options(("precision", "recall"))]}

    def __init__(self, estimator=None, *, risk="precision", alpha=0.1, delta=0.1,
                 thresholds=None, fwer="holm", prefit=False, calib_size=0.3,
                 random_state=None):
        self.estimator = estimator
        self.risk = risk
        self.alpha = alpha
        self.delta = delta
        self.thresholds = thresholds
        self.fwer = fwer
        self.prefit = prefit
        self.calib_size = calib_size
        self.random_state = random_state

    def _default_estimator(self):
        return LogisticRegression()

    def fit(self, X, y):
        """Fit the base model (unless ``prefit``) and certify the thresholds.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
            Two classes; the larger (as sorted) is the positive one.

        Returns
        -------
        self
        """
        grid = _thresholds(self, np.round(np.linspace(0, 0.99, 100), 2))
        _require_y(self, y)
        X = self._check_X(X, reset=True)
        y = column_or_1d(host(y), warn=True)
        if y.dtype.kind == "f" and not np.isfinite(y).all():
            raise ValueError("y must not contain NaN or inf.")
        check_classification_targets(y)
        y_type = type_of_target(y, input_name="y")
        if y_type != "binary":
            raise ValueError(f"Only binary classification is supported: y must hold 2 "
                             f"classes. The type of the target is {y_type}, classes "
                             f"{np.unique(y).tolist()[:5]}.")
        classes = np.unique(y)
        if classes.size != 2 and not self.prefit:
            raise ValueError(f"y must hold 2 classes, got 1 class: {classes.tolist()}.")
        X_cal, y_cal = self._fit_split(X, y)
        self.classes_ = np.asarray(self.estimator_.classes_)
        if self.classes_.size != 2:
            raise ValueError(f"the estimator must be binary, it has classes "
                             f"{self.classes_.tolist()[:5]}.")
        unknown = ~np.isin(y_cal, self.classes_)
        if unknown.any():
            raise ValueError(f"y contains labels unknown to the model: "
                             f"{np.unique(y_cal[unknown])[:5].tolist()}.")
        y01 = (y_cal == self.classes_[1]).astype(np.int64)
        p = self._positive_proba(X_cal)
        # columns from the safe end: precision from the largest threshold down
        order = grid[::-1] if self.risk == "precision" else grid
        counts = _binary_counts(y01, p, order)
        bad, n_j = _binary_risk_counts(counts, self.risk)
        # the losses of binary_losses(y01, p, order, risk), counted by sorting
        res = ltt_from_risks(bad.astype(np.float64), n_j, order, float(self.alpha),
                             float(self.delta), "hoeffding_bentkus", self.fwer, None, True)
        self.n_calib_ = int(y01.size)
        if res.index < 0:
            self.threshold_ = np.inf if self.risk == "precision" else -np.inf
            warnings.warn(f"no threshold is certified at alpha = {self.alpha}, delta = "
                          f"{self.delta}; threshold_ = {self.threshold_} (the trivially "
                          "safe decision).", UserWarning, stacklevel=3)
        else:
            index = _best_certified(res, counts, order, self.risk)
            res = dataclasses.replace(res, index=index, lambda_hat=float(order[index]))
            self.threshold_ = float(order[index])
        self.result_ = res
        return self

    def _positive_proba(self, X):
        P = np.asarray(self.estimator_.predict_proba(X), dtype=np.float64)
        if P.ndim != 2 or P.shape[1] != 2 or not np.isfinite(P).all():
            raise ValueError("estimator.predict_proba(X) must give finite probabilities of "
                             "shape (n_samples, 2).")
        return P[:, 1]

    def predict_proba(self, X):
        """Class probabilities of the base model, columns ordered as ``classes_``."""
        self._check_fitted()
        return np.asarray(self.estimator_.predict_proba(self._check_X(X, reset=False)),
                          dtype=np.float64)

    def predict(self, X):
        """The controlled decision: ``classes_[1]`` where ``p(x) >= threshold_``."""
        self._check_fitted()
        p = self._positive_proba(self._check_X(X, reset=False))
        return self.classes_[(p >= self.threshold_).astype(np.int64)]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.estimator_type = "classifier"
        tags.target_tags.required = True
        if tags.classifier_tags is None:
            from sklearn.utils import ClassifierTags

            tags.classifier_tags = ClassifierTags()
        tags.classifier_tags.multi_class = False
        # the threshold trades accuracy for a certified precision or recall
        tags.classifier_tags.poor_score = True
        return tags

    @classmethod
    def _statlearn_expected_failed_checks(cls):
        return {"check_classifiers_train": "predict thresholds the positive-class "
                "probability at the certified threshold, not at 0.5, so it differs from "
                "the argmax of predict_proba by design"}


def _binary_counts(y01, p, thresholds):
    """Per threshold: predicted positives, true positives among them, and positives."""
    pos = y01.astype(bool)
    p_all, p_pos = np.sort(p), np.sort(p[pos])
    pred = p_all.size - np.searchsorted(p_all, thresholds, side="left")  # #{p >= t}
    tp = p_pos.size - np.searchsorted(p_pos, thresholds, side="left")
    return pred, tp, int(p_pos.size)


def _binary_risk_counts(counts, risk):
    """Counted losses and their number: ``sum`` and ``n`` of :func:`binary_losses`."""
    pred, tp, n_pos = counts
    if risk == "precision":  # false positives among the predicted positives
        return pred - tp, pred
    return n_pos - tp, np.full(pred.shape, n_pos)  # missed positives among the positives


def _best_certified(res, counts, thresholds, risk):
    """MAPIE's choice among certified thresholds: the best other metric, then the
    largest controlled risk; ties in threshold order (ascending)."""
    pred, tp, n_pos = counts
    sel = res.selected[np.argsort(thresholds[res.selected], kind="stable")]
    if risk == "precision":  # secondary: 1 - recall over the true positives
        second = 1.0 - tp[sel] / n_pos if n_pos else np.ones(sel.size)
    else:  # secondary: 1 - precision over the predicted positives (1 when none)
        n2 = pred[sel]
        second = np.where(n2 > 0, 1.0 - tp[sel] / np.maximum(n2, 1), 1.0)
    best = np.flatnonzero(second == second.min())
    return int(sel[best[np.argmax(res.risk[sel][best])]])

"""Split-conformal prediction sets around any scikit-learn classifier."""

from __future__ import annotations

import warnings

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.linear_model import LogisticRegression
from sklearn.utils import _safe_indexing, get_tags
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import _num_samples, check_is_fitted, column_or_1d, validate_data

from ...base import (
    Bool,
    FitStateMixin,
    HasMethods,
    Integral,
    Level,
    Options,
    Real,
    TargetCheckedScoreMixin,
    check_param_record,
    param_record,
)
from ...utils import check_probabilities, check_rng
from .._core._arrays import fit_inputs, float64_features, host, row_indexable, same_rows
from .._core._quantile import conformal_rank
from .._core._thresholds import smoothed_pvalues, thresholds_from_scores
from ._registry import SCORES
from ._set_metrics import evaluate_sets

__all__ = ["SplitConformalClassifier"]


class SplitConformalClassifier(FitStateMixin, TargetCheckedScoreMixin, ClassifierMixin,
                               BaseEstimator):
    """Split-conformal prediction sets (SOCOP, LAC, APS, RAPS, top-k) for any classifier.

    ``fit`` either fits a clone of ``estimator`` on part of the data and
    calibrates on the rest (``prefit=False``), or calibrates an already
    fitted ``estimator`` on all of it (``prefit=True``). When ``lam="auto"``
    (SOCOP, RAPS) a fraction ``tune_fraction`` of the calibration data is set
    aside to choose the score's parameters, independently of the points that
    set the threshold. For exchangeable data every set contains the true
    label with probability at least ``1 - alpha``.

    Parameters
    ----------
    estimator : classifier with ``predict_proba``, default=None
        The base model (``LogisticRegression()`` when None). It may be a
        :class:`~sklearn.pipeline.Pipeline`.
    conformity_score : {"socop", "lac", "aps", "raps", "topk"}, default="socop"
        Nonconformity score, see :mod:`statlearn.conformal.scores`. (Named so
        because ``score`` is scikit-learn's evaluation method.)
    alpha : float, default=0.1
        Miscoverage level in (0, 1).
    lam : float or "auto", default="auto"
        Regularisation weight of the score: SOCOP's ``lambda`` or RAPS's
        ``lambda_R``; refused (unless at its default) with the other scores.
        ``"auto"`` picks it on the
        tuning split: for SOCOP the Kneedle knee of the (mean size,
        P(size > k0)) curve over ``lam_grid`` (fallback: the point nearest the
        origin of the normalised curve; a warning when the curve is flat or
        too coarse, or when ``lam = 0`` is chosen, see :func:`select_lambda`);
        for RAPS the grid value with the smallest mean set size.
    lam_grid : sequence of float, optional
        Candidates for ``lam="auto"`` (refused otherwise). Defaults: SOCOP, a grid scaled to the
        data, ``0`` and ``m / s_ref`` for ``m`` geometric in ``[1e-3, 10]``
        with ``s_ref`` the mean LAC set size on the tuning split
        (:func:`scaled_lam_grid`), so that it suits ten or a thousand classes
        alike; RAPS ``(0.001, 0.01, 0.1, 0.2, 0.5)``.
    k0 : int, default=1
        SOCOP penalises sets larger than ``k0`` (1: singletons are the goal);
        refused (unless 1) with the other scores.
    k_reg : int or "auto", default="auto"
        RAPS: number of top ranks left unpenalised; ``"auto"`` uses the
        conformal ``1 - alpha`` quantile of the true labels' ranks on the
        tuning split. Refused (unless ``"auto"``) with the other scores.
    randomized_score : bool, default=True
        APS and RAPS add ``U * p_y`` (``U ~ Unif(0, 1)``) instead of ``p_y``
        (Romano et al., 2020). With ``False`` the calibration score is the
        cumulative mass up to and including the true label, and the set holds
        the most probable labels up to and including the first one whose
        cumulative score reaches the threshold (the label at which the mass
        crosses it is kept, as in MAPIE's ``include_last_label=True``), so
        deterministic APS/RAPS sets are never empty. Refused (unless True)
        with the other scores.
    prefit : bool, default=False
        ``estimator`` is already fitted; ``fit`` only calibrates.
    calib_size : float, default=0.3
        Fraction of the data ``fit`` keeps for calibration when
        ``prefit=False``.
    tune_fraction : float, default=0.2
        Fraction of the calibration data used to choose ``lam``/``k_reg``
        when they are ``"auto"`` (refused, unless 0.2, when nothing is chosen).
    mondrian : {None, "class"}, default=None
        ``"class"``: class-conditional (Mondrian) calibration, one threshold
        per label from the calibration points of that class; coverage then
        holds within every class.
    randomized : bool, default=False
        Use smoothed (randomised) conformal p-values,
        ``C(x) = {y : p(x, y) > alpha}``, so that coverage is exactly
        ``1 - alpha`` even with tied scores.
    allow_empty : bool, default=True
        Keep empty sets (faithful to the method). ``False`` adds the top
        label to an empty set, which can only raise coverage.
    random_state : None, int, numpy.random.Generator or RandomState
        Drives the train/calibration/tuning splits and the random draws of
        calibration (``U`` of APS/RAPS). ``fit`` also draws from it the seed
        of an independent stream for the draws at prediction time (``U`` of
        the test scores, smoothed p-values), so that test points never reuse
        the calibration uniforms; every prediction call restarts that stream,
        so the same fitted model gives the same sets for the same input.

    Attributes
    ----------
    estimator_ : classifier
        The fitted base model.
    alpha_ : float
        Miscoverage level used by calibration.
    conformity_score_ : str
        Score used by calibration.
    k0_ : int
        SOCOP's ``k0`` used by calibration.
    randomized_score_, randomized_, allow_empty_ : bool
        The options in force at calibration.
    mondrian_ : bool
        Whether the thresholds are class-conditional.
    classes_ : ndarray of shape (K,)
        Labels; columns of :meth:`predict_set` and :meth:`predict_proba`.
    threshold_ : ndarray of shape (K,)
        Conformal threshold of each label (all equal unless Mondrian).
    calib_scores_ : ndarray of shape (n_cal,)
        Scores of the true labels on the calibration points.
    calib_labels_ : ndarray of shape (n_cal,)
        Label indices of the calibration points.
    lam_ : float or None
        Score weight in use (SOCOP ``lambda`` or RAPS ``lambda_R``).
    k_reg_ : int or None
        RAPS ``k_reg`` in use.
    lam_selection_ : LambdaSelection or None
        SOCOP's tuning curve and choice when ``lam="auto"``.
    n_calib_ : int
        Number of calibration points.
    n_features_in_ : int
        Number of features seen by ``fit`` (when ``X`` has a shape).

    See Also
    --------
    socop_scores, evaluate_sets, conformal_scorer

    Notes
    -----
    Every output comes from the parameters of the last :meth:`fit` or
    :meth:`calibrate`: after ``set_params`` the outputs raise
    :class:`~statlearn.base.StaleFitError` until the model is fitted or
    recalibrated again (or the parameter is set back). :meth:`calibrate`
    applies new calibration parameters (``alpha``, ``conformity_score``,
    ``lam``, ``mondrian``, ...) to the fitted base model; a changed
    ``estimator``, ``prefit``, ``calib_size`` or ``random_state`` needs
    :meth:`fit` (with ``prefit=True`` it re-reads ``estimator``).

    ``score(X, y)`` is scikit-learn's accuracy of :meth:`predict` (the most
    probable label). To select a model or ``lam`` by the quality of its sets
    pass ``scoring=conformal_scorer("mean_size")`` (or
    ``"non_singleton_rate"`` for SOCOP's objective, ``"coverage_gap"`` to
    check calibration) to :class:`~sklearn.model_selection.GridSearchCV`;
    keep ``alpha`` fixed, since a larger ``alpha`` always gives smaller sets.
    A grid search reuses data for selection and calibration; for a strict
    finite-sample guarantee choose hyperparameters on data disjoint from the
    final calibration split.

    Deviations from the suggested API: ``prefit`` defaults to ``False`` so the
    estimator fits the scikit-learn mould (``fit(X, y)`` gives a usable
    model); the per-label scores are returned by :meth:`label_scores`
    (scikit-learn reserves ``score_samples`` for one score per sample), and
    the score is chosen by ``conformity_score`` because ``score`` is the
    evaluation method.

    References
    ----------
    Wang, Sun & Dobriban (2025), "Singleton-Optimized Conformal Prediction",
    arXiv:2509.24095. Vovk, Gammerman & Shafer (2005), *Algorithmic Learning
    in a Random World*.

    Examples
    --------
    The digits data are ordered by writer, so the split must be shuffled for
    the points to be exchangeable:

    >>> from sklearn.datasets import load_digits
    >>> from sklearn.model_selection import train_test_split
    >>> from statlearn.conformal import SplitConformalClassifier
    >>> X, y = load_digits(return_X_y=True)
    >>> X_fit, X_test, y_fit, y_test = train_test_split(X, y, test_size=0.3,
    ...                                                 shuffle=True, random_state=0)
    >>> clf = SplitConformalClassifier(alpha=0.1, random_state=0).fit(X_fit, y_fit)
    >>> sets = clf.predict_set(X_test)
    >>> sets.shape, sets.dtype
    ((540, 10), dtype('bool'))
    >>> res = clf.evaluate(X_test, y_test)
    >>> bool(res.coverage >= 0.87), bool(res.mean_size < 2)
    (True, True)
    """

    def __init__(self, estimator=None, *, conformity_score="socop", alpha=0.1, lam="auto",
                 lam_grid=None, k0=1, k_reg="auto", randomized_score=True, prefit=False,
                 calib_size=0.3, tune_fraction=0.2, mondrian=None, randomized=False,
                 allow_empty=True, random_state=None):
        self.estimator = estimator
        self.conformity_score = conformity_score
        self.alpha = alpha
        self.lam = lam
        self.lam_grid = lam_grid
        self.k0 = k0
        self.k_reg = k_reg
        self.randomized_score = randomized_score
        self.prefit = prefit
        self.calib_size = calib_size
        self.tune_fraction = tune_fraction
        self.mondrian = mondrian
        self.randomized = randomized
        self.allow_empty = allow_empty
        self.random_state = random_state

    # ------------------------------------------------------------------ validation
    _parameter_constraints = {
        "estimator": [None, HasMethods("predict_proba")],
        "conformity_score": [Options(tuple(SCORES))],
        "alpha": [Level()],
        "lam": [Options(["auto"]), Real(0, None)],
        "lam_grid": [None, "array-like"],  # its values are checked in fit
        "k0": [Integral(0, None)],
        "k_reg": [Options(["auto"]), Integral(0, None)],
        "randomized_score": [Bool()],
        "prefit": [Bool()],
        "calib_size": [Real(0, 1, closed="neither")],
        "tune_fraction": [Real(0, 1, closed="neither")],
        "mondrian": [None, Options(["class"])],
        "randomized": [Bool()],
        "allow_empty": [Bool()],
        "random_state": ["random_state"],
    }
    _fit_methods = ("fit", "calibrate")
    #: parameters that shape the base model: calibrate without fit must not change them
    _model_params = ("estimator", "prefit", "calib_size", "random_state")

    def _check_lam_grid(self):
        if self.lam_grid is not None:
            grid = np.asarray(host(self.lam_grid))
            if grid.ndim != 1 or grid.size < 1 or grid.dtype.kind not in "biuf" or \
                    not np.all(np.isfinite(grid)) or np.any(grid < 0):
                raise ValueError(f"{type(self).__name__} parameter lam_grid must be a "
                                 "non-empty 1-D sequence of finite values >= 0, got "
                                 f"{self.lam_grid!r}.")

    # ------------------------------------------------------------------ fitting
    def fit(self, X, y):
        """Fit the base model (unless ``prefit``) and calibrate.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features) or anything the
            base estimator accepts
            Features.
        y : array-like of shape (n_samples,)
            Labels.

        Returns
        -------
        self
        """
        self.__dict__.pop("_model_record_", None)  # a failed fit leaves no model to recalibrate
        self._check_lam_grid()
        SCORES[self.conformity_score].refuse_unread(self)
        X, y, n = fit_inputs(self, X, y, _check_labels_y)
        rng = check_rng(self.random_state)
        if self.prefit:
            self.estimator_ = self._prefit_estimator()
            self.classes_ = np.asarray(self.estimator_.classes_)
            self._model_record_ = param_record(self, self._model_params)
            return self._calibrate(X, y, rng)
        if n < 2:
            raise ValueError(f"fit needs at least 2 samples to split into training and "
                             f"calibration data, got n_samples = {n}.")
        self.classes_ = np.unique(y)
        if self.classes_.size < 2:
            raise ValueError("y must hold at least 2 classes, got 1 class: "
                             f"{self.classes_[0]!r}.")
        X = row_indexable(X)
        n_cal = min(n - 1, max(1, int(round(self.calib_size * n))))
        perm = rng.permutation(n)
        train, cal = np.sort(perm[n_cal:]), np.sort(perm[:n_cal])
        est = clone(self.estimator if self.estimator is not None else LogisticRegression())
        self.estimator_ = est.fit(_safe_indexing(X, train), y[train])
        self._model_record_ = param_record(self, self._model_params)
        return self._calibrate(_safe_indexing(X, cal), y[cal], rng)

    def _prefit_estimator(self):
        if self.estimator is None:
            raise ValueError("prefit=True needs a fitted estimator, got estimator=None.")
        check_is_fitted(self.estimator)
        return self.estimator

    def calibrate(self, X, y):
        """(Re)calibrate the fitted base model on new data.

        Uses the base model fitted by :meth:`fit`, or ``estimator`` itself
        when ``prefit=True`` (read again at every call). The calibration
        parameters in force now are applied; the parameters that shaped the
        fitted base model (``estimator``, ``prefit``, ``calib_size``,
        ``random_state``) must be those of the last :meth:`fit`, else it
        raises and asks for :meth:`fit`.

        Parameters
        ----------
        X : array-like
            Calibration features.
        y : array-like of shape (n_samples,)
            Calibration labels (all known to the base model).

        Returns
        -------
        self
        """
        self._check_lam_grid()
        if self.prefit:
            self.__dict__.pop("_model_record_", None)
            self.estimator_ = self._prefit_estimator()
            self.classes_ = np.asarray(self.estimator_.classes_)
            validate_data(self, X, skip_check_array=True)
            self._model_record_ = param_record(self, self._model_params)
        elif "_model_record_" not in self.__dict__:
            raise ValueError("calibrate needs a fitted model: call fit first or pass a "
                             "fitted estimator with prefit=True.")
        else:
            check_param_record(self, self._model_record_, "calibrate (it reuses the fitted model)")
        y = _check_labels_y(y)
        return self._calibrate(X, y, check_rng(self.random_state))

    def _label_index(self, y, name="y"):
        y = np.asarray(y)
        K = self.classes_.size
        if (y.dtype.kind in "iu" and self.classes_.dtype.kind in "iu" and K > 0
                and self.classes_[0] == 0 and self.classes_[-1] == K - 1
                and np.array_equal(self.classes_, np.arange(K))):
            # classes 0..K-1: a label is its own index (the search below gives the same)
            idx = y.astype(np.int64)
            if idx.size == 0 or (idx.min() >= 0 and idx.max() < K):  # exact below 2**63
                return idx
        sorter = np.argsort(self.classes_, kind="stable")  # classes_ of a prefit model
        pos = np.clip(np.searchsorted(self.classes_, y, sorter=sorter), 0,
                      self.classes_.size - 1)
        idx = sorter[pos]
        bad = self.classes_[idx] != y
        if np.any(bad):
            raise ValueError(f"{name} contains labels unknown to the model: "
                             f"{np.unique(y[bad])[:5].tolist()}; known labels are "
                             f"{self.classes_.tolist()[:20]}.")
        return idx.astype(np.int64)

    def _calibrate(self, X, y, rng):
        SCORES[self.conformity_score].refuse_unread(self)  # calibrate may follow set_params
        n = _num_samples(X)
        same_rows(n, y)
        if n < 1:
            raise ValueError("calibration needs at least one sample.")
        labels = self._label_index(y)
        proba = self._proba(X)
        K = self.classes_.size
        # what calibration uses is stored: predictions read only these attributes
        self.alpha_ = float(self.alpha)
        self.conformity_score_ = str(self.conformity_score)
        self.k0_ = int(self.k0)
        self.randomized_score_ = bool(self.randomized_score)
        self.randomized_ = bool(self.randomized)
        self.allow_empty_ = bool(self.allow_empty)
        self.mondrian_ = self.mondrian == "class"
        self.lam_, self.k_reg_, self.lam_selection_ = None, None, None
        cal = np.arange(n)
        score = SCORES[self.conformity_score_]
        if score.needs_tuning(self):
            if n < 2:
                raise ValueError("choosing lam/k_reg automatically needs at least 2 "
                                 "calibration samples; pass fixed values instead.")
            tune, cal = tuning_split(n, self.tune_fraction, rng)
            fitted = score.tune(self, proba[tune], labels[tune], rng, self.mondrian_)
        else:
            fitted = score.fixed_weights(self)
        for name, value in fitted.items():
            setattr(self, name, value)
        everyone = cal.size == n  # no tuning split: no copy of the matrix
        self.calib_labels_ = labels if everyone else labels[cal]
        self.calib_scores_ = self._scores(proba if everyone else proba[cal], rng,
                                          labels=self.calib_labels_)
        self.n_calib_ = int(cal.size)
        self.threshold_ = thresholds_from_scores(self.calib_scores_, self.calib_labels_,
                                                 self.alpha_, K, self.mondrian_)
        # seed of the stream of prediction-time draws, independent of the draws above
        self._predict_seed_ = int(rng.integers(0, 2**63 - 1))
        self._warn_small(self.mondrian_)
        return self

    def _warn_small(self, mondrian):
        if mondrian:
            counts = np.bincount(self.calib_labels_, minlength=self.classes_.size)
            small = [self.classes_[k] for k in range(self.classes_.size)
                     if conformal_rank(max(counts[k], 1), self.alpha_) > counts[k]]
            if small:
                warnings.warn(f"classes {small[:10]} have too few calibration points for "
                              f"alpha = {self.alpha_}; their threshold is +inf, so they are "
                              "in every set.", UserWarning, stacklevel=5)
        elif conformal_rank(self.n_calib_, self.alpha_) > self.n_calib_:
            warnings.warn(f"{self.n_calib_} calibration points are too few for alpha = "
                          f"{self.alpha_} (need n >= (1 - alpha) / alpha); the threshold is "
                          "+inf and every set is the full label set.", UserWarning,
                          stacklevel=5)

    # ------------------------------------------------------------------ scores
    def _proba(self, X):
        X = float64_features(X)
        P = np.asarray(self.estimator_.predict_proba(X), dtype=np.float64)
        est_classes = np.asarray(self.estimator_.classes_)
        if est_classes.shape[0] != self.classes_.shape[0] or \
                np.any(est_classes != self.classes_):
            full = np.zeros((P.shape[0], self.classes_.size))
            full[:, self._label_index(est_classes, "estimator classes")] = P
            P = full
        return check_probabilities(P, "estimator.predict_proba(X)")

    def _scores(self, proba, rng, labels=None, u=None):
        # ``proba`` is validated by ``_proba`` and ``labels`` by ``_label_index``
        score = SCORES[self.conformity_score_]
        if u is None and score.draws_u and self.randomized_score_:
            u = rng.random(proba.shape[0])
        return score.label_scores(proba, labels, u, self)

    def _predict_rng(self):
        """A fresh generator of the prediction-time stream fixed at calibration."""
        return np.random.default_rng(self._predict_seed_)

    def label_scores(self, X):
        """Nonconformity score of every label, shape (n_samples, K).

        The randomised APS/RAPS scores draw their ``U`` from the prediction
        stream, the same draws as :meth:`predict_set` on the same ``X``.

        Returns
        -------
        ndarray of shape (n_samples, K)
        """
        self._check_fitted()
        return self._scores(self._proba(X), self._predict_rng())

    def predict_proba(self, X):
        """Class probabilities of the base model, columns ordered as ``classes_``."""
        self._check_fitted()
        return self._proba(X)

    def predict(self, X):
        """Point prediction: the most probable label (ties: the first in ``classes_``)."""
        self._check_fitted()
        return self.classes_[np.argmax(self._proba(X), axis=1)]

    def predict_set(self, X):
        """Prediction sets as a boolean mask over ``classes_``.

        Parameters
        ----------
        X : array-like
            Features.

        Returns
        -------
        ndarray of bool, shape (n_samples, K)
            ``sets[i, k]`` is True when ``classes_[k]`` is in the set of row ``i``.
        """
        self._check_fitted()
        proba = self._proba(X)
        rng = self._predict_rng()
        score = SCORES[self.conformity_score_]
        if self.randomized_:
            sets = self._smoothed_sets(proba, rng)
        else:
            u = rng.random(proba.shape[0]) if score.draws_u and self.randomized_score_ else None
            sets = score.sets(proba, u, self.threshold_, self)
        if not self.allow_empty_:
            empty = ~sets.any(axis=1)
            if empty.any():
                sets[np.flatnonzero(empty), np.argmax(proba[empty], axis=1)] = True
        return sets

    def _smoothed_sets(self, proba, rng):
        scores = self._scores(proba, rng)
        u = rng.random(proba.shape[0])
        if not self.mondrian_:
            return smoothed_pvalues(scores, self.calib_scores_, u) > self.alpha_
        sets = np.ones(scores.shape, dtype=bool)
        for k in range(self.classes_.size):
            cal_k = self.calib_scores_[self.calib_labels_ == k]
            if cal_k.size:
                sets[:, k] = smoothed_pvalues(scores[:, k], cal_k, u) > self.alpha_
        return sets

    # ------------------------------------------------------------------ evaluation
    def evaluate(self, X, y, size_bins=None):
        """Metrics of the prediction sets on labelled data.

        Parameters
        ----------
        X : array-like
            Features.
        y : array-like of shape (n_samples,)
            True labels.
        size_bins : sequence of float or "exact", optional
            Strata of the size-stratified coverage violation, see
            :func:`size_stratified_coverage_violation`.

        Returns
        -------
        PredictionSetResult
        """
        self._check_fitted()
        y = _check_labels_y(y, targets=False)
        return evaluate_sets(self.predict_set(X), self._label_index(y), self.alpha_, size_bins)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        inner = self.estimator if self.estimator is not None else LogisticRegression()
        tags.input_tags = get_tags(inner).input_tags
        return tags

    @classmethod
    def _statlearn_test_instances(cls):
        return [cls(random_state=0),
                cls(conformity_score="aps", randomized_score=False, random_state=0)]


def tuning_split(n, tune_fraction, rng):
    """The tuning and calibration positions of ``n`` calibration points (sorted).

    ``round(tune_fraction * n)`` points (at least 1, at most ``n - 1``) drawn by
    one permutation from ``rng`` choose the ``"auto"`` weights; the rest set the
    threshold. This is the split :class:`SplitConformalClassifier` makes, first
    thing, with the generator of its ``random_state``.

    Examples
    --------
    >>> import numpy as np
    >>> from statlearn.conformal._classification._classifier import tuning_split
    >>> tune, cal = tuning_split(10, 0.2, np.random.default_rng(0))
    >>> tune.size, cal.size, sorted(np.concatenate([tune, cal]).tolist()) == list(range(10))
    (2, 8, True)
    """
    n_tune = min(n - 1, max(1, int(round(tune_fraction * n))))
    perm = rng.permutation(n)
    return np.sort(perm[:n_tune]), np.sort(perm[n_tune:])


def _check_labels_y(y, name="y", targets=True):
    """Class labels as a 1-D NumPy array (lists, pandas: by position), no missing values.

    ``targets``: also check that they are classification targets (for fitting).
    """
    y = column_or_1d(host(y), warn=True)
    if y.dtype.kind == "f" and np.isnan(y).any():
        raise ValueError(f"{name} must not contain NaN.")
    if y.dtype.kind == "O" and any(v is None or (isinstance(v, float) and np.isnan(v))
                                   for v in y):
        raise ValueError(f"{name} must not contain None or NaN.")
    # 1-D integer and boolean labels are always classification targets (binary or
    # multiclass), so the check, two full np.unique passes, is needed for other kinds only
    if targets and y.dtype.kind not in "biu":
        check_classification_targets(y)
    return y


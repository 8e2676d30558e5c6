"""Cross-conformal (CV+) prediction sets around any scikit-learn classifier."""

from __future__ import annotations

import numpy as np
from joblib import Parallel, delayed
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.linear_model import LogisticRegression
from sklearn.utils import _safe_indexing, get_tags

from ...base import (
    Bool,
    FitStateMixin,
    HasMethods,
    Integral,
    Level,
    Options,
    Real,
    TargetCheckedScoreMixin,
)
from ...utils import check_probabilities, check_rng
from .._core._arrays import fit_inputs, float64_features, host, row_indexable
from .._core._folds import SPLITTER, cv_folds
from .._core._quantile import conformal_rank
from .._core._thresholds import thresholds_from_scores
from ._classifier import _check_labels_y
from ._registry import SCORES
from ._set_metrics import evaluate_sets

__all__ = ["CrossConformalClassifier", "cv_plus_counts"]

_AGGREGATIONS = ("crossval", "mean")


def cv_plus_counts(fold_scores, fold_of, calib_scores):
    """CV+ comparison counts: ``#{i : s_i < s_{-k(i)}(x, y)}`` per test row and label.

    Parameters
    ----------
    fold_scores : array of shape (n_folds, m, K)
        Score of every label at ``m`` test points under each fold model
        (fitted without that fold).
    fold_of : array of int, shape (n,)
        Fold of each calibration (training) point, ``0..n_folds-1``.
    calib_scores : array of shape (n,)
        Out-of-fold score of each point's true label, ``s_i``.

    Returns
    -------
    ndarray of int64, shape (m, K)
        The count of calibration points whose score is strictly below the
        test score computed by the model that did not see them. The CV+ set
        (Romano, Sesia & Candes 2020, the CV+ construction; Barber et al.
        2021, Section 3) holds the labels whose count is ``< k``, with
        ``k = conformal_rank(n, alpha)``.

    Notes
    -----
    Each fold's scores are sorted once and every test score is located by a
    binary search (``side="left"``: strict comparison), so the cost is
    ``O(n log n + n_folds m K log n)`` instead of the ``O(n m K)`` of the
    direct count.

    Examples
    --------
    >>> import numpy as np
    >>> from statlearn.conformal import cv_plus_counts
    >>> S = np.array([[[0.1, 0.9]], [[0.3, 0.5]]])   # 2 folds, 1 test row, 2 labels
    >>> cv_plus_counts(S, [0, 0, 1, 1], [0.2, 0.4, 0.1, 0.6]).tolist()
    [[1, 3]]
    """
    S = np.asarray(host(fold_scores), dtype=np.float64)
    fold_of = np.asarray(host(fold_of))
    s = np.asarray(host(calib_scores), dtype=np.float64)
    if S.ndim != 3:
        raise ValueError(f"fold_scores must have shape (n_folds, m, K), got {S.shape}.")
    if s.ndim != 1 or fold_of.shape != s.shape or s.size == 0:
        raise ValueError("calib_scores and fold_of must be 1-D of the same, non-zero length, "
                         f"got {s.shape} and {fold_of.shape}.")
    if fold_of.dtype.kind not in "iu":
        raise TypeError(f"fold_of must hold integer fold indices, got dtype {fold_of.dtype}.")
    if fold_of.min() < 0 or fold_of.max() >= S.shape[0]:
        raise ValueError(f"fold_of must hold fold indices in [0, {S.shape[0] - 1}].")
    if np.isnan(S).any() or np.isnan(s).any():
        raise ValueError("fold_scores and calib_scores must not contain NaN.")
    counts = np.zeros(S.shape[1:], dtype=np.int64)
    for f in range(S.shape[0]):
        part = np.sort(s[fold_of == f])
        if part.size:
            counts += np.searchsorted(part, S[f], side="left")
    return counts



def _fit_fold(estimator, X, y, train, test):
    model = clone(estimator).fit(_safe_indexing(X, train), y[train])
    return model, np.asarray(model.predict_proba(_safe_indexing(X, test)), dtype=np.float64)


class CrossConformalClassifier(FitStateMixin, TargetCheckedScoreMixin, ClassifierMixin,
                               BaseEstimator):
    """Cross-conformal (CV+) prediction sets (LAC, APS, RAPS, top-k, SOCOP) for any classifier.

    ``fit`` fits one clone of ``estimator`` per fold of ``cv`` (in parallel
    with joblib), without that fold, and scores every training point's true
    label with the model that did not see it: ``s_i = s(x_i, y_i;
    pi_{-k(i)})``. Every point serves both for fitting and for calibration,
    so no data is set aside.

    With ``aggregation="crossval"`` (CV+, Romano, Sesia & Candes 2020; the
    classification form of Barber et al. 2021) the set at ``x`` holds the
    labels ``y`` with

        ``#{i : s_i < s(x, y; pi_{-k(i)})} < (1 - alpha)(n + 1)``,

    i.e. fewer than ``k = ceil((1 - alpha)(n + 1))`` calibration scores lie
    strictly below the test score computed by the same fold model (every
    label when ``k > n``). For exchangeable data and a model fitted
    symmetrically in its training points, the coverage is at least
    ``1 - 2 alpha - min{2 (1 - 1/K) / (n/K + 1), (1 - K/n) / (K + 1)}`` with
    ``K`` folds of size ``n / K`` (``1 - 2 alpha`` for leave-one-out); on
    ordinary data it is close to ``1 - alpha``.

    With ``aggregation="mean"`` (MAPIE's default) the fold models'
    probabilities are averaged at ``x`` and the split-conformal set of that
    average is taken with threshold the ``k``-th smallest ``s_i``. This is
    cheaper and gives similar sets, but it has no finite-sample guarantee.

    Parameters
    ----------
    estimator : classifier with ``predict_proba``, default=None
        The base model (``LogisticRegression()`` when None).
    conformity_score : {"lac", "aps", "raps", "topk", "socop"}, default="lac"
        Nonconformity score, see :mod:`statlearn.conformal.scores`.
    alpha : float, default=0.1
        Miscoverage level in (0, 1).
    cv : int, "jackknife" or cross-validation splitter, default=5
        ``int``: shuffled :class:`~sklearn.model_selection.StratifiedKFold`
        with that many folds (at least 2); ``"jackknife"``: leave-one-out;
        or any splitter whose test folds partition the data. Every fold's
        training part must hold every class.
    aggregation : {"crossval", "mean"}, default="crossval"
        How the fold models are combined at prediction time (see above).
    lam : float, default=0.1
        SOCOP's ``lambda`` or RAPS's ``lambda_R`` (fixed: no tuning split);
        refused (unless at its default) with the other scores, as are ``k0``,
        ``k_reg`` and ``randomized_score`` with the scores that do not read them.
    k0 : int, default=1
        SOCOP penalises sets larger than ``k0``.
    k_reg : int, default=1
        RAPS: number of top ranks left unpenalised.
    randomized_score : bool, default=True
        APS and RAPS add ``U * p_y`` (``U ~ Unif(0, 1)``, one per row) instead
        of ``p_y``. With ``False`` and ``aggregation="mean"`` the sets keep the
        label at which the cumulative score reaches the threshold, as in
        :class:`SplitConformalClassifier`; with ``aggregation="crossval"`` the
        count rule above is applied to the deterministic score.
    n_jobs : int or None, default=None
        Folds fitted in parallel (joblib semantics).
    random_state : None, int, numpy.random.Generator or RandomState
        Shuffles the folds when ``cv`` is an int and draws the calibration
        uniforms of APS/RAPS; ``fit`` also draws from it the seed of an
        independent stream for the test uniforms, restarted at every
        prediction call.

    Attributes
    ----------
    estimator_ : classifier
        The model fitted on all the data (:meth:`predict`, :meth:`predict_proba`).
    fold_estimators_ : list of classifier
        ``pi_{-k}``, one per fold.
    fold_of_ : ndarray of int, shape (n,)
        Fold of each training point.
    oof_proba_ : ndarray of shape (n, K)
        Out-of-fold probabilities ``pi_{-k(i)}(x_i)``.
    calib_scores_ : ndarray of shape (n,)
        Out-of-fold scores of the true labels.
    calib_labels_ : ndarray of int, shape (n,)
        Label indices of the training points.
    threshold_ : ndarray of shape (K,)
        The ``k``-th smallest calibration score (all labels equal), used by
        ``aggregation="mean"``.
    classes_ : ndarray of shape (K,)
        Labels; columns of :meth:`predict_set`.
    alpha_, conformity_score_, aggregation_, lam_, k_reg_, k0_, randomized_score_
        The parameters in force at fit.
    n_folds_, n_calib_ : int
        Number of folds and of calibration (training) points.
    n_features_in_ : int
        Number of features seen by ``fit`` (when ``X`` has a shape).

    See Also
    --------
    SplitConformalClassifier, cv_plus_counts, CrossConformalRegressor

    Notes
    -----
    SOCOP's split sets are ``{y : r(x, y) <= q}`` for its price score ``r``
    (a top-j set of one ranking); the CV+ rule is applied to that same score
    fold by fold, so a CV+ SOCOP set is a union of comparisons under several
    fold models and need not be a top-j set of any single one. With
    ``aggregation="mean"`` it is the top-j set of the averaged probabilities.

    Differences from MAPIE 1.x's ``CrossConformalClassifier``: MAPIE's
    ``"crossval"`` LAC rule keeps ``y`` when ``#{i : s(x, y; pi_{-k(i)}) <=
    s_i} >= alpha (n - 1)``, where CV+ asks for ``floor(alpha (n + 1))``: the
    two agree for many ``n`` (``n = 200``, ``alpha = 0.1``) and for others
    MAPIE asks for one point more (``n = 105``), so its sets are then smaller;
    statlearn uses the rule of the papers. MAPIE
    refuses RAPS with cross-validation and has no SOCOP; its APS calibration
    scores are always randomised; its top-k score is the 0-based position
    (statlearn's is the 1-based rank). Every output comes from the parameters
    of the last :meth:`fit`: after ``set_params`` (other than ``n_jobs``) the
    outputs raise :class:`~statlearn.base.StaleFitError` until the next fit.

    References
    ----------
    Romano, Sesia & Candes (2020), "Classification with valid and adaptive
    coverage", NeurIPS. Barber, Candes, Ramdas & Tibshirani (2021),
    "Predictive inference with the jackknife+", Annals of Statistics 49(1).
    Vovk (2015), "Cross-conformal predictors", Annals of Mathematics and
    Artificial Intelligence 74.

    Examples
    --------
    >>> from sklearn.datasets import load_digits
    >>> from sklearn.model_selection import train_test_split
    >>> from statlearn.conformal import CrossConformalClassifier
    >>> X, y = load_digits(return_X_y=True)
    >>> X_fit, X_test, y_fit, y_test = train_test_split(X / 16, y, train_size=600,
    ...                                                 shuffle=True, random_state=0)
    >>> clf = CrossConformalClassifier(cv=5, alpha=0.1, random_state=0).fit(X_fit, y_fit)
    >>> sets = clf.predict_set(X_test)
    >>> sets.shape, sets.dtype
    ((1197, 10), dtype('bool'))
    >>> res = clf.evaluate(X_test, y_test)
    >>> bool(res.coverage >= 0.85), bool(res.mean_size < 2)
    (True, True)
    """

    def __init__(self, estimator=None, *, conformity_score="lac", alpha=0.1, cv=5,
                 aggregation="crossval", lam=0.1, k0=1, k_reg=1, randomized_score=True,
                 n_jobs=None, random_state=None):
        self.estimator = estimator
        self.conformity_score = conformity_score
        self.alpha = alpha
        self.cv = cv
        self.aggregation = aggregation
        self.lam = lam
        self.k0 = k0
        self.k_reg = k_reg
        self.randomized_score = randomized_score
        self.n_jobs = n_jobs
        self.random_state = random_state

    _parameter_constraints = {
        "estimator": [None, HasMethods("predict_proba")],
        "conformity_score": [Options(tuple(SCORES))],
        "alpha": [Level()],
        "cv": [Integral(2, None), Options(["jackknife"]), SPLITTER],
        "aggregation": [Options(_AGGREGATIONS)],
        "lam": [Real(0, None)],
        "k0": [Integral(0, None)],
        "k_reg": [Integral(0, None)],
        "randomized_score": [Bool()],
        "n_jobs": [None, Integral()],
        "random_state": ["random_state"],
    }
    _output_free_params = ("n_jobs",)

    # ------------------------------------------------------------------ fitting
    def fit(self, X, y):
        """Fit the fold models and the full model; score the out-of-fold true labels.

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
        SCORES[self.conformity_score].refuse_unread(self)
        X, y, n = fit_inputs(self, X, y, _check_labels_y)
        if n < 2:
            raise ValueError(f"cross-conformal sets need at least 2 samples, got "
                             f"n_samples = {n}.")
        self.classes_ = np.unique(y)
        if self.classes_.size < 2:
            raise ValueError("y must hold at least 2 classes, got 1 class: "
                             f"{self.classes_[0]!r}.")
        labels = np.searchsorted(self.classes_, y).astype(np.int64)
        rng = check_rng(self.random_state)
        X = row_indexable(X)
        folds, fold_of = cv_folds(self.cv, X, y, n, rng, stratified=True)
        for k, (tr, _) in enumerate(folds):
            missing = np.setdiff1d(np.arange(self.classes_.size), labels[tr])
            if missing.size:
                raise ValueError(
                    f"cv fold {k}: its training part has no sample of classes "
                    f"{self.classes_[missing][:10].tolist()}, so its model cannot score "
                    "them; use fewer folds or a stratified splitter.")
        base = self.estimator if self.estimator is not None else LogisticRegression()
        out = Parallel(n_jobs=None if self.n_jobs is None else int(self.n_jobs))(
            delayed(_fit_fold)(base, X, y, tr, te) for tr, te in folds)
        self.fold_estimators_ = [model for model, _ in out]
        oof = np.empty((n, self.classes_.size))
        for (_, te), (model, proba) in zip(folds, out):
            oof[te] = self._align(model, proba)
        self.oof_proba_ = check_probabilities(oof, "estimator.predict_proba (out of fold)")
        self.fold_of_ = fold_of
        self.n_folds_ = len(folds)
        self.estimator_ = clone(base).fit(X, y)
        # what calibration uses is stored: predictions read only these attributes
        self.alpha_ = float(self.alpha)
        self.conformity_score_ = str(self.conformity_score)
        self.aggregation_ = str(self.aggregation)
        self.lam_ = float(self.lam)
        self.k_reg_ = int(self.k_reg)
        self.k0_ = int(self.k0)
        self.randomized_score_ = bool(self.randomized_score)
        score = SCORES[self.conformity_score_]
        u = rng.random(n) if score.draws_u and self.randomized_score_ else None
        self.calib_labels_ = labels
        self.calib_scores_ = np.asarray(score.label_scores(self.oof_proba_, labels, u, self),
                                        dtype=np.float64)
        self.n_calib_ = n
        self.threshold_ = thresholds_from_scores(self.calib_scores_, labels, self.alpha_,
                                                 self.classes_.size)
        self._predict_seed_ = int(rng.integers(0, 2**63 - 1))
        return self

    def _align(self, model, proba):
        """Columns of a fold model's probabilities in the order of ``classes_``."""
        cls = np.asarray(model.classes_)
        if cls.shape != self.classes_.shape or np.any(cls != self.classes_):
            raise ValueError("a fold model's classes_ differ from the labels of y: "
                             f"{cls.tolist()[:10]} vs {self.classes_.tolist()[:10]}.")
        if proba.shape[1] != self.classes_.size:
            raise ValueError(f"estimator.predict_proba must return {self.classes_.size} "
                             f"columns, got {proba.shape[1]}.")
        return proba

    # ------------------------------------------------------------------ prediction
    def _fold_proba(self, X):
        X = float64_features(X)
        return [check_probabilities(self._align(m, np.asarray(m.predict_proba(X),
                                                              dtype=np.float64)),
                                    "estimator.predict_proba(X)")
                for m in self.fold_estimators_]

    def _test_u(self, m):
        score = SCORES[self.conformity_score_]
        if score.draws_u and self.randomized_score_:
            return np.random.default_rng(self._predict_seed_).random(m)
        return None

    def fold_label_scores(self, X):
        """Score of every label under every fold model, shape (n_folds, n_samples, K).

        The randomised APS/RAPS scores use one ``U`` per row, shared by the
        labels and the folds, the draws of :meth:`predict_set` on the same ``X``.

        Returns
        -------
        ndarray of shape (n_folds, n_samples, K)
        """
        self._check_fitted()
        P = self._fold_proba(X)
        u = self._test_u(P[0].shape[0])
        score = SCORES[self.conformity_score_]
        return np.stack([np.asarray(score.label_scores(p, None, u, self), dtype=np.float64)
                         for p in P])

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
        score = SCORES[self.conformity_score_]
        if self.aggregation_ == "mean":
            P = self._fold_proba(X)
            mean = np.mean(np.stack(P), axis=0)
            return score.sets(mean, self._test_u(mean.shape[0]), self.threshold_, self)
        k = conformal_rank(self.n_calib_, self.alpha_)
        S = self.fold_label_scores(X)
        if k > self.n_calib_:
            return np.ones(S.shape[1:], dtype=bool)
        return cv_plus_counts(S, self.fold_of_, self.calib_scores_) < k

    def predict_proba(self, X):
        """Class probabilities of the model fitted on all the data, columns ``classes_``."""
        self._check_fitted()
        X = float64_features(X)
        return check_probabilities(
            self._align(self.estimator_, np.asarray(self.estimator_.predict_proba(X),
                                                    dtype=np.float64)),
            "estimator.predict_proba(X)")

    def predict(self, X):
        """Point prediction of the full model: the most probable label."""
        self._check_fitted()
        return self.classes_[np.argmax(self.predict_proba(X), axis=1)]

    def evaluate(self, X, y, size_bins=None):
        """Metrics of the prediction sets on labelled data.

        Parameters
        ----------
        X : array-like
            Features.
        y : array-like of shape (n_samples,)
            True labels (all seen by ``fit``).
        size_bins : sequence of float or "exact", optional
            Strata of the size-stratified coverage violation.

        Returns
        -------
        PredictionSetResult
        """
        self._check_fitted()
        y = _check_labels_y(y, targets=False)
        idx = np.searchsorted(self.classes_, y)
        bad = (idx >= self.classes_.size) | (self.classes_[np.minimum(idx, self.classes_.size - 1)]
                                             != y)
        if np.any(bad):
            raise ValueError(f"y contains labels unknown to the model: "
                             f"{np.unique(y[bad])[:5].tolist()}; known labels are "
                             f"{self.classes_.tolist()[:20]}.")
        return evaluate_sets(self.predict_set(X), idx.astype(np.int64), self.alpha_, size_bins)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        inner = self.estimator if self.estimator is not None else LogisticRegression()
        tags.input_tags = get_tags(inner).input_tags
        return tags

    @classmethod
    def _statlearn_test_instances(cls):
        return [cls(cv=3, random_state=0),
                cls(conformity_score="aps", cv=3, aggregation="mean", random_state=0),
                cls(conformity_score="socop", cv=3, random_state=0)]

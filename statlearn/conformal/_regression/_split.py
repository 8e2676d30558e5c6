"""Split-conformal prediction intervals around any scikit-learn regressor."""

from __future__ import annotations

import warnings

import numpy as np
from sklearn.base import BaseEstimator, RegressorMixin, clone
from sklearn.utils import _safe_indexing, get_tags
from sklearn.utils.validation import _num_samples, check_is_fitted, validate_data

from ...base import (
    Bool,
    FitStateMixin,
    HasMethods,
    Options,
    Real,
    TargetCheckedScoreMixin,
    check_param_record,
    param_record,
)
from ...utils import check_rng
from .._core._arrays import fit_inputs, float64_features, host, row_indexable, same_rows
from .._core._quantile import conformal_quantile, conformal_rank
from .._core._thresholds import thresholds_from_scores
from ._inputs import _check_alphas, _check_predictions, _check_target, _Levels
from ._interval_metrics import evaluate_intervals
from ._scores import SCORES, _fit_scale, _with_quantile, quantile_parameter

__all__ = ["SplitConformalRegressor"]


class SplitConformalRegressor(FitStateMixin, TargetCheckedScoreMixin, RegressorMixin,
                              BaseEstimator):
    """Split-conformal prediction intervals: absolute, normalised and CQR scores.

    ``fit`` either fits clones of ``estimator`` on part of the data and
    calibrates on the rest (``prefit=False``), or calibrates already fitted
    models on all of it (``prefit=True``). For exchangeable data the
    interval at level ``alpha`` contains the response with probability
    ``k / (n + 1) >= 1 - alpha``, ``k = ceil((n + 1)(1 - alpha))``, ``n``
    calibration points (exactly ``k / (n + 1)`` when the scores have no
    ties); Mondrian calibration gives this within every group.

    Scores (``y`` response, ``mu`` point prediction):

    * ``"absolute"``: ``|y - mu(x)|``; interval ``mu(x) -/+ q``.
    * ``"normalized"`` (locally weighted, Lei et al. 2018):
      ``|y - mu(x)| / sigma(x)``; interval ``mu(x) -/+ q sigma(x)``. With
      ``prefit=False`` the scale model ``scale_estimator`` is fitted on the
      training part to ``log |y - mu(x)|`` (the residuals of ``mu`` on the
      data it was fitted on; absolute residuals are floored at ``1e-6``
      times their mean) and ``sigma = exp`` of its prediction; a prefit scale
      model must predict ``sigma(x) > 0`` itself.
    * ``"cqr"`` (conformalised quantile regression, Romano, Patterson &
      Candes 2019): ``max(lo(x) - y, y - hi(x))`` with quantile regressors
      ``lo``, ``hi`` at levels ``alpha / 2`` and ``1 - alpha / 2``; interval
      ``[lo(x) - q, hi(x) + q]``. ``q`` may be negative (the quantile models
      over-cover), then the interval shrinks; it is empty (lower > upper)
      when ``q < -(hi - lo) / 2``, as in the paper.

    Parameters
    ----------
    estimator : regressor, or pair of fitted quantile regressors, default=None
        Point model (``"absolute"``, ``"normalized"``; ``LinearRegression()``
        when None) or quantile regressor (``"cqr"``; its quantile level is
        set per ``alpha``; ``QuantileRegressor(alpha=0)`` when None). With
        ``prefit=True`` and ``"cqr"`` pass ``(lower, upper)`` or
        ``(lower, upper, median)`` fitted models; they serve every ``alpha``.
    conformity_score : {"absolute", "normalized", "cqr"}, default="absolute"
        Nonconformity score.
    alpha : float or sequence of float, default=0.1
        Miscoverage level(s) in (0, 1). With a sequence,
        :meth:`predict_interval` returns one interval per level.
    scale_estimator : regressor, default=None
        Scale model of ``"normalized"`` (a clone of ``estimator`` when None);
        fitted when ``prefit=True``.
    prefit : bool, default=False
        The models are already fitted; ``fit`` only calibrates.
    calib_size : float, default=0.3
        Fraction of the data ``fit`` keeps for calibration when ``prefit=False``.
    mondrian : callable or None, default=None
        Group-conditional (Mondrian) calibration: ``mondrian(X)`` returns one
        group label per row and each group gets its own threshold from its
        own calibration points. Labels can also be passed directly as
        ``groups=`` to :meth:`fit` or :meth:`calibrate` (they take precedence
        over ``mondrian``); the test rows then need ``groups=`` in
        :meth:`predict_interval` and :meth:`evaluate` as well. The test groups
        always come from the same source as the calibration groups: when
        calibration used ``mondrian(X)``, so does prediction, and ``groups=``
        there that differ from ``mondrian(X)`` are refused.
    random_state : None, int, numpy.random.Generator or RandomState
        Drives the train/calibration split.

    Attributes
    ----------
    estimator_ : regressor
        Point model (CQR: the median model, or None when a prefit pair was given).
    quantile_estimators_ : list of (regressor, regressor) or None
        CQR's lower and upper models, one pair per level of ``alpha_``.
    scale_estimator_ : regressor or None
        Scale model of ``"normalized"``.
    alpha_ : ndarray of shape (n_alphas,)
        Levels used by calibration (predictions use them, not ``alpha``).
    conformity_score_ : str
        Score used by calibration.
    calib_scores_ : ndarray of shape (n_alphas, n_calib)
        Calibration scores (CQR: one row per level, since its models differ
        by level; other scores: the same row repeated).
    threshold_ : ndarray of shape (n_alphas,) or (n_groups, n_alphas)
        Conformal quantile ``q`` per level (and group with Mondrian).
    groups_ : ndarray or None
        Group labels seen at calibration (Mondrian), rows of ``threshold_``.
    groups_source_ : {"groups", "mondrian"} or None
        Where the calibration groups came from (``groups=`` or ``mondrian(X)``).
    calib_groups_ : ndarray of int or None
        Group index of each calibration point.
    n_calib_ : int
        Number of calibration points.
    n_features_in_ : int
        Number of features seen by ``fit`` (when ``X`` has a shape).

    See Also
    --------
    CrossConformalRegressor, evaluate_intervals, SplitConformalClassifier

    Notes
    -----
    The threshold is :func:`conformal_quantile`, the ``k``-th smallest
    calibration score with ``k = conformal_rank(n, alpha)``, shared with the
    classifier and the selection procedures; ``k > n`` gives ``q = +inf``
    (infinite intervals, with a warning). Every output comes from the
    parameters of the last :meth:`fit` or :meth:`calibrate`: after
    ``set_params`` the outputs raise :class:`~statlearn.base.StaleFitError`
    until the next one (or until the parameter is set back); :meth:`calibrate`
    applies new ``alpha`` (not for CQR's fitted quantile models) and
    ``mondrian`` values to the fitted models, while a new ``estimator``,
    ``scale_estimator``, ``conformity_score``, ``calib_size`` or
    ``random_state`` needs :meth:`fit` (with ``prefit=True`` the models are
    read again from the parameters). ``predict`` returns the point prediction, so
    ``score`` is scikit-learn's R^2 of the point model. Cloning a wrapper
    with ``prefit=True`` clones (unfits) the inner models; wrap them in
    :class:`sklearn.frozen.FrozenEstimator` to keep them fitted.

    References
    ----------
    Lei, G'Sell, Rinaldo, Tibshirani & Wasserman (2018), "Distribution-free
    predictive inference for regression", JASA. Romano, Patterson & Candes
    (2019), "Conformalized quantile regression", NeurIPS. Vovk, Gammerman &
    Shafer (2005), *Algorithmic Learning in a Random World*.

    Examples
    --------
    >>> import numpy as np
    >>> from statlearn.conformal import SplitConformalRegressor
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(-2, 2, size=(2000, 1))
    >>> y = X[:, 0] + rng.normal(scale=0.5, size=2000)
    >>> reg = SplitConformalRegressor(alpha=[0.1, 0.2], random_state=0).fit(X[:1000], y[:1000])
    >>> reg.predict_interval(X[1000:]).shape
    (1000, 2, 2)
    >>> res = reg.evaluate(X[1000:], y[1000:])
    >>> res.coverage.round(2).tolist()
    [0.9, 0.81]
    """

    def __init__(self, estimator=None, *, conformity_score="absolute", alpha=0.1,
                 scale_estimator=None, prefit=False, calib_size=0.3, mondrian=None,
                 random_state=None):
        self.estimator = estimator
        self.conformity_score = conformity_score
        self.alpha = alpha
        self.scale_estimator = scale_estimator
        self.prefit = prefit
        self.calib_size = calib_size
        self.mondrian = mondrian
        self.random_state = random_state

    # ------------------------------------------------------------------ validation
    _parameter_constraints = {
        # a regressor; with conformity_score="cqr" and prefit=True a (lower, upper[,
        # median]) tuple of fitted models, checked against the score in fit
        "estimator": [None, HasMethods("predict"), list, tuple],
        "conformity_score": [Options(tuple(SCORES))],
        "alpha": [_Levels()],
        "scale_estimator": [None, HasMethods("predict")],
        "prefit": [Bool()],
        "calib_size": [Real(0, 1, closed="neither")],
        "mondrian": [None, "callable"],
        "random_state": ["random_state"],
    }
    _fit_methods = ("fit", "calibrate")

    #: parameters that shape the fitted models: calibrate without fit must not change them
    _model_params = ("estimator", "conformity_score", "scale_estimator", "prefit",
                     "calib_size", "random_state")

    def _check_models(self):
        """The cross-parameter rules of ``estimator`` and ``conformity_score``."""
        est = self.estimator
        score = SCORES[self.conformity_score]
        if isinstance(est, list | tuple):
            if not (score.quantile_models and self.prefit):
                raise TypeError("estimator may be a (lower, upper[, median]) tuple of fitted "
                                "quantile regressors only with conformity_score='cqr' and "
                                f"prefit=True, got a {type(est).__name__}.")
            if len(est) not in (2, 3) or not all(callable(getattr(m, "predict", None))
                                                 for m in est):
                raise TypeError("estimator must be (lower, upper) or (lower, upper, median) "
                                f"fitted quantile regressors, got {est!r}.")
        elif score.quantile_models:
            if self.prefit:
                raise TypeError("conformity_score='cqr' with prefit=True needs estimator="
                                "(lower, upper) or (lower, upper, median) fitted quantile "
                                f"regressors, got {type(est).__name__}.")
            if est is not None:
                quantile_parameter(est)

    def _base(self):
        if self.estimator is not None:
            return self.estimator
        # the tags read this before the parameters are checked: a name that is no
        # score gets the point model, as "absolute" does
        name = self.conformity_score
        score = SCORES.get(name) if isinstance(name, str) else None
        return (score or SCORES["absolute"]).default_estimator()

    # ------------------------------------------------------------------ fitting
    def fit(self, X, y, groups=None):
        """Fit the models (unless ``prefit``) and calibrate.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features) or anything the
            base estimator accepts
            Features.
        y : array-like of shape (n_samples,)
            Responses.
        groups : array-like of shape (n_samples,), optional
            Mondrian group labels (default: ``mondrian(X)`` if set, else none).

        Returns
        -------
        self
        """
        self.__dict__.pop("_model_record_", None)  # a failed fit leaves no model to recalibrate
        self._check_models()
        X, y, n = fit_inputs(self, X, y, _check_target)
        groups, source = self._calibration_groups(X, groups, n)
        alphas, _ = _check_alphas(self.alpha)
        if self.prefit:  # no split: the seed (its type checked by validate_params) is unused
            self._set_prefit_models(alphas)
            self._record_models(alphas)
            return self._calibrate(X, y, groups, source)
        if n < 2:
            raise ValueError(f"fit needs at least 2 samples to split into training and "
                             f"calibration data, got n_samples = {n}.")
        X = row_indexable(X)
        n_cal = min(n - 1, max(1, int(round(self.calib_size * n))))
        perm = check_rng(self.random_state).permutation(n)
        train, cal = np.sort(perm[n_cal:]), np.sort(perm[:n_cal])
        X_tr, y_tr = _safe_indexing(X, train), y[train]
        base = self._base()
        score = SCORES[self.conformity_score]
        self.quantile_estimators_, self.scale_estimator_ = None, None
        if score.quantile_models:
            self.quantile_estimators_ = [
                (_with_quantile(base, a / 2).fit(X_tr, y_tr),
                 _with_quantile(base, 1 - a / 2).fit(X_tr, y_tr)) for a in alphas]
            self.estimator_ = _with_quantile(base, 0.5).fit(X_tr, y_tr)
        else:
            self.estimator_ = clone(base).fit(X_tr, y_tr)
            if score.scaled:
                mu = _check_predictions(self.estimator_.predict(X_tr), y_tr.size,
                                        "estimator.predict")
                scale = self.scale_estimator if self.scale_estimator is not None else base
                self.scale_estimator_ = _fit_scale(scale, X_tr, np.abs(y_tr - mu))
        self._record_models(alphas)
        return self._calibrate(_safe_indexing(X, cal), y[cal],
                               None if groups is None else groups[cal], source)

    def _record_models(self, alphas):
        """Record the parameters the fitted models were made with (see calibrate)."""
        self._model_record_ = param_record(self, self._model_params)
        self._model_alpha_ = alphas

    def _set_prefit_models(self, alphas):
        self.quantile_estimators_, self.scale_estimator_ = None, None
        score = SCORES[self.conformity_score]
        if score.quantile_models:
            models = tuple(self.estimator)
            for m in models:
                check_is_fitted(m)
            self.quantile_estimators_ = [(models[0], models[1])] * len(alphas)
            self.estimator_ = models[2] if len(models) == 3 else None
            return
        if self.estimator is None:
            raise ValueError("prefit=True needs a fitted estimator, got estimator=None.")
        check_is_fitted(self.estimator)
        self.estimator_ = self.estimator
        if score.scaled:
            if self.scale_estimator is None:
                raise ValueError("conformity_score='normalized' with prefit=True needs a "
                                 "fitted scale_estimator predicting sigma(x) > 0.")
            check_is_fitted(self.scale_estimator)
            self.scale_estimator_ = self.scale_estimator

    def calibrate(self, X, y, groups=None):
        """(Re)calibrate the fitted models on new data.

        Uses the models fitted by :meth:`fit`, or the fitted models given as
        parameters when ``prefit=True`` (read again at every call). ``alpha``
        and ``mondrian`` in force now are applied; the parameters that shaped
        the fitted models (``estimator``, ``conformity_score``,
        ``scale_estimator``, ``prefit``, ``calib_size``, ``random_state``,
        and ``alpha`` for CQR's quantile models) must be those of the last
        :meth:`fit`, else it raises and asks for :meth:`fit`.

        Parameters
        ----------
        X : array-like
            Calibration features.
        y : array-like of shape (n_samples,)
            Calibration responses.
        groups : array-like of shape (n_samples,), optional
            Mondrian group labels (default: ``mondrian(X)`` if set, else none).

        Returns
        -------
        self
        """
        self._check_models()
        X = float64_features(X)
        alphas = _check_alphas(self.alpha)[0]
        if self.prefit:
            self.__dict__.pop("_model_record_", None)
            self._set_prefit_models(alphas)
            validate_data(self, X, skip_check_array=True)
            self._record_models(alphas)
        elif "_model_record_" not in self.__dict__:
            raise ValueError("calibrate needs a fitted model: call fit first or pass a "
                             "fitted estimator with prefit=True.")
        else:
            check_param_record(self, self._model_record_, "calibrate (it reuses the fitted model)")
            if SCORES[self.conformity_score].quantile_models and alphas != self._model_alpha_:
                raise ValueError("CQR's quantile models were fitted for alpha = "
                                 f"{list(self._model_alpha_)}; refit to calibrate other "
                                 f"levels, got alpha = {list(alphas)}.")
        y = _check_target(y)
        n = _num_samples(X)
        same_rows(n, y)
        groups, source = self._calibration_groups(X, groups, n)
        return self._calibrate(X, y, groups, source)

    def _calibration_groups(self, X, groups, n):
        """Calibration group labels and their source ("groups", "mondrian" or None)."""
        if groups is not None:
            return self._check_groups(groups, n, "groups"), "groups"
        if self.mondrian is not None:
            return self._check_groups(self.mondrian(X), n, "mondrian(X)"), "mondrian"
        return None, None

    def _test_groups(self, X, groups, n, method):
        """Test group labels from the source the calibration groups came from."""
        if self.groups_source_ is None:
            if groups is not None:
                raise ValueError(
                    f"groups: this model was not calibrated per group, so {method} has no "
                    "use for them; pass groups= (or set mondrian) to fit or calibrate for "
                    "Mondrian intervals, or give groups to evaluate only to report coverage "
                    "per group.")
            return None
        if self.groups_source_ == "mondrian":
            g = self._check_groups(self.mondrian(X), n, "mondrian(X)")
            if groups is not None:
                given = self._check_groups(groups, n, "groups")
                if not np.array_equal(given, g):
                    bad = int(np.sum(given != g)) if given.shape == g.shape else n
                    raise ValueError(
                        "groups: this model was calibrated on the groups mondrian(X) gives, "
                        f"so {method} uses mondrian(X) for the test rows too; the groups "
                        f"given differ from it in {bad} of {n} rows (omit groups=, or "
                        "calibrate with groups= instead).")
            return g
        if groups is None:
            raise ValueError(
                "groups: this model was calibrated per group with groups= given to fit or "
                f"calibrate; pass groups= for the test rows of {method} too (mondrian(X) is "
                "not used in place of groups that were given).")
        return self._check_groups(groups, n, "groups")

    @staticmethod
    def _check_groups(groups, n, name="groups"):
        g = np.asarray(host(groups))
        if g.ndim != 1 or g.shape[0] != n:
            raise ValueError(f"{name} must have shape ({n},), got {g.shape}.")
        if g.dtype.kind == "f" and np.isnan(g).any():
            raise ValueError(f"{name} must not contain NaN.")
        if g.dtype.kind == "O" and any(v is None or (isinstance(v, float) and np.isnan(v))
                                       for v in g):
            raise ValueError(f"{name} must not contain None or NaN.")
        return g

    def _calibrate(self, X, y, groups, source):
        n = _num_samples(X)
        if n < 1:
            raise ValueError("calibration needs at least one sample.")
        alphas, scalar = _check_alphas(self.alpha)
        self.alpha_ = np.asarray(alphas, dtype=np.float64)
        self._scalar_alpha_ = scalar
        self.conformity_score_ = str(self.conformity_score)
        scores = self._scores(X, y)
        self.calib_scores_ = scores
        self.n_calib_ = int(n)
        self.groups_source_ = source
        if groups is None:
            self.groups_, self.calib_groups_ = None, None
            self.threshold_ = np.array([conformal_quantile(scores[j], a)
                                        for j, a in enumerate(alphas)])
            self._warn_small()
            return self
        self.groups_, idx = np.unique(groups, return_inverse=True)
        self.calib_groups_ = idx.astype(np.int64)
        G = self.groups_.size
        self.threshold_ = np.stack(
            [thresholds_from_scores(scores[j], self.calib_groups_, a, G, mondrian=True)
             for j, a in enumerate(alphas)], axis=1)
        self._warn_small()
        return self

    def _warn_small(self):
        if self.groups_ is None:
            counts, names = np.array([self.n_calib_]), ["all"]
        else:
            counts = np.bincount(self.calib_groups_, minlength=self.groups_.size)
            names = self.groups_.tolist()
        for a in self.alpha_:
            small = [names[g] for g in range(counts.size)
                     if conformal_rank(max(int(counts[g]), 1), a) > counts[g]]
            if small:
                what = ("the calibration set" if self.groups_ is None
                        else f"groups {small[:10]}")
                warnings.warn(f"{what} has too few calibration points for alpha = {a:g} "
                              "(need n >= (1 - alpha) / alpha); the threshold is +inf and the "
                              "interval is the whole line.", UserWarning, stacklevel=5)

    # ------------------------------------------------------------------ scores
    def _point(self, X):
        n = _num_samples(X)
        if self.estimator_ is None:  # prefit CQR pair without a median model
            lo, hi = self._quantiles(X, 0)
            return (lo + hi) / 2
        return _check_predictions(self.estimator_.predict(X), n, "estimator.predict")

    def _sigma(self, X):
        s = _check_predictions(self.scale_estimator_.predict(X), _num_samples(X),
                               "scale_estimator.predict")
        if np.any(s <= 0):
            raise ValueError("scale_estimator must predict sigma(x) > 0, got "
                             f"{int(np.sum(s <= 0))} values <= 0.")
        return s

    def _quantiles(self, X, j):
        n = _num_samples(X)
        lo_m, hi_m = self.quantile_estimators_[j]
        return (_check_predictions(lo_m.predict(X), n, "lower quantile model predict"),
                _check_predictions(hi_m.predict(X), n, "upper quantile model predict"))

    def _scores(self, X, y):
        """Calibration scores, shape (n_alphas, n): one row per level."""
        A = self.alpha_.size
        score = SCORES[self.conformity_score_]
        if score.quantile_models:
            rows = []
            for j in range(A):
                lo, hi = self._quantiles(X, j)
                rows.append(np.maximum(lo - y, y - hi))
            return np.stack(rows)
        r = np.abs(y - self._point(X))
        if score.scaled:
            r = r / self._sigma(X)
        return np.tile(r, (A, 1))

    # ------------------------------------------------------------------ prediction
    def predict(self, X):
        """Point prediction of the base model (CQR: the median model).

        Parameters
        ----------
        X : array-like
            Features.

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        self._check_fitted()
        return self._point(float64_features(X))

    def _row_thresholds(self, g, n):
        """Thresholds per test row, shape (n, n_alphas), from the test groups ``g``."""
        if self.groups_ is None:
            return np.broadcast_to(self.threshold_, (n, self.alpha_.size))
        pos = np.clip(np.searchsorted(self.groups_, g), 0, self.groups_.size - 1)
        bad = self.groups_[pos] != g
        if np.any(bad):
            raise ValueError(f"groups contains labels unseen at calibration: "
                             f"{np.unique(g[bad])[:5].tolist()}; known groups are "
                             f"{self.groups_.tolist()[:20]}.")
        return self.threshold_[pos]

    def predict_interval(self, X, groups=None):
        """Prediction intervals.

        Parameters
        ----------
        X : array-like
            Features.
        groups : array-like of shape (n_samples,), optional
            Mondrian group labels of the test rows: required when the model was
            calibrated with ``groups=``; when it was calibrated with
            ``mondrian(X)`` the test groups are computed the same way and
            groups that differ from them are refused; refused when the model
            was not calibrated per group.

        Returns
        -------
        ndarray of shape (n_samples, 2) or (n_samples, 2, n_alphas)
            Lower and upper bounds (``-inf``/``+inf`` when the threshold is
            infinite); the last axis follows ``alpha_`` when ``alpha`` was a
            sequence.
        """
        self._check_fitted()
        X = float64_features(X)
        n = _num_samples(X)
        q = self._row_thresholds(self._test_groups(X, groups, n, "predict_interval"), n)
        return self._intervals(X, q)

    def _intervals(self, X, q):
        n, A = q.shape
        out = np.empty((n, 2, A))
        score = SCORES[self.conformity_score_]
        if self.groups_ is None and not (score.quantile_models or score.scaled):
            # one threshold per level: 2 A long passes over the rows (a broadcast over
            # the small (2, A) axes runs NumPy's inner loop A times per row)
            mu = self._point(X)
            by_level = out.transpose(1, 2, 0)
            for j, t in enumerate(self.threshold_.tolist()):
                np.subtract(mu, t, out=by_level[0, j])
                np.add(mu, t, out=by_level[1, j])
        elif score.quantile_models:
            for j in range(A):
                lo, hi = self._quantiles(X, j)
                out[:, 0, j], out[:, 1, j] = lo - q[:, j], hi + q[:, j]
        else:
            mu = self._point(X)[:, None]
            half = q * self._sigma(X)[:, None] if score.scaled else q
            out[:, 0, :], out[:, 1, :] = mu - half, mu + half
        return out[:, :, 0] if self._scalar_alpha_ else out

    def evaluate(self, X, y, groups=None, bins=None, n_bins=10):
        """Coverage and width of the intervals on labelled data.

        Parameters
        ----------
        X : array-like
            Features.
        y : array-like of shape (n_samples,)
            True responses.
        groups : array-like, optional
            Group labels of the rows, reported as per-group coverage. When the
            model was calibrated per group they follow the rule of
            :meth:`predict_interval` (required after ``groups=``; after
            ``mondrian(X)`` its groups are used and others refused).
        bins : array-like of shape (n_samples,), optional
            Values by which conditional coverage is reported in ``n_bins``
            quantile bins (default: the point prediction).
        n_bins : int, default=10
            Number of quantile bins.

        Returns
        -------
        PredictionIntervalResult
        """
        self._check_fitted()
        X = float64_features(X)
        y = _check_target(y)
        n = _num_samples(X)
        if self.groups_source_ is None:
            g = None if groups is None else self._check_groups(groups, n, "groups")
        else:
            g = self._test_groups(X, groups, n, "evaluate")
        iv = self._intervals(X, self._row_thresholds(g, n))
        if iv.ndim == 2:
            iv = iv[:, :, None]
        if bins is None:
            bins = self._point(X)
        return evaluate_intervals(iv, y, self.alpha_, bins=bins, n_bins=n_bins, groups=g)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        inner = self.estimator
        if inner is None or isinstance(inner, list | tuple):
            inner = self._base() if not isinstance(inner, list | tuple) else inner[0]
        tags.input_tags = get_tags(inner).input_tags
        return tags

    @classmethod
    def _statlearn_test_instances(cls):
        from sklearn.ensemble import GradientBoostingRegressor

        return [cls(random_state=0),
                cls(conformity_score="normalized", alpha=[0.1, 0.3], random_state=0),
                cls(GradientBoostingRegressor(loss="quantile", n_estimators=10, random_state=0),
                    conformity_score="cqr", random_state=0)]


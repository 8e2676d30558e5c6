"""Estimators for conformal selection: :class:`ConformalSelector` (cfBH) and
:class:`MultiConditionSelector` (MCCS)."""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, clone
from sklearn.linear_model import LinearRegression
from sklearn.model_selection import train_test_split
from sklearn.utils.validation import check_is_fitted, validate_data

from ...base import FitStateMixin, HasMethods, Level, Options, Real
from ...utils import check_array, check_real, check_rng
from ...utils._validation import _scalar, user_frame
from .._core._arrays import host
from ._procedures import CFBH_SCORES, METHODS, cfbh, mccs
from ._regions import _parse_conditions

__all__ = ["ConformalSelector", "MultiConditionSelector"]


def _split_seed(random_state):
    """``random_state`` as scikit-learn's splitters take it (None, int or RandomState).

    A ``Generator`` or ``SeedSequence`` gives the seed of the split; an int or a
    RandomState is passed on as it is, so those splits are scikit-learn's own.
    """
    rs = _scalar(random_state)
    if isinstance(rs, np.random.Generator | np.random.SeedSequence):
        return int(check_rng(rs).integers(0, 2**32 - 1))
    return rs


class _SelectorBase(FitStateMixin, BaseEstimator):
    """Shared fit: train the model on one part, keep predictions on the other."""

    _parameter_constraints = {
        "estimator": [None, Options(["precomputed"]), HasMethods("fit", "predict")],
        "q": [Level()],
        "randomize": ["boolean"],
        "M": [None, Real(0, None, closed="neither", allow_inf=True)],
        "prefit": ["boolean"],
        "calib_size": [Real(0, 1, closed="neither")],
        "random_state": ["random_state"],
    }

    def _fit_split(self, X, y, extra=None):
        """Fit the model and return calibration (predictions, responses, extra)."""
        multi = np.ndim(y) == 2
        X_in = X
        X, y = validate_data(self, X, y, multi_output=multi, y_numeric=True,
                             dtype=np.float64)
        y = np.asarray(y, dtype=np.float64)
        if self.estimator == "precomputed":
            if X.shape[1] != (y.shape[1] if y.ndim == 2 else 1):
                raise ValueError('estimator="precomputed": X must hold one column of '
                                 "predictions per response column, got "
                                 f"{X.shape[1]} column(s).")
            self.estimator_ = None
            return X if y.ndim == 2 else X[:, 0], y, extra
        est = LinearRegression() if self.estimator is None else self.estimator
        # the model receives the user's DataFrame (its column names), not the checked array
        X = user_frame(X_in, X)
        if self.prefit:
            self.estimator_ = est
            check_is_fitted(est)
            return self._predict_mu(X), y, extra
        arrays = [X, y] + ([extra] if extra is not None else [])
        parts = train_test_split(*arrays, test_size=float(self.calib_size),
                                 random_state=_split_seed(self.random_state))
        X_tr, X_cal, y_tr, y_cal = parts[:4]
        extra_cal = parts[5] if extra is not None else None
        self.estimator_ = clone(est).fit(X_tr, y_tr)
        return self._predict_mu(X_cal), y_cal, extra_cal

    def _predict_mu(self, X):
        if self.estimator_ is None:
            return X if self.mu_cal_ndim_ == 2 else X[:, 0]
        mu = np.asarray(self.estimator_.predict(X), dtype=np.float64)
        return mu

    def _test_mu(self, X):
        self._check_fitted()
        X_in = X
        X = validate_data(self, X, reset=False, dtype=np.float64)
        mu = self._predict_mu(X if self.estimator_ is None else user_frame(X_in, X))
        if mu.ndim == 2 and self.mu_cal_.ndim == 1 and mu.shape[1] == 1:
            mu = mu[:, 0]
        return mu

    def _check_truth(self, y, mu, name):
        """True responses ``y`` of the test units whose predictions are ``mu``, or None.

        Checked here, where the argument has the user's name (the selection
        procedures call it ``y_test``): finite real values, one row per test unit.
        """
        if y is None:
            return None
        y = check_array(host(y), name, ensure_2d=False, dtype=np.float64)
        m = np.shape(mu)[0]
        if y.ndim not in (1, 2) or y.shape[0] != m:
            raise ValueError(f"{name} must have one entry (or row) per row of X ({m}), got "
                             f"shape {y.shape}.")
        return y

    def score(self, X, y):
        """Power of the selection on ``(X, y)``: the share of the units meeting the
        condition that are selected.

        The FDR is at most ``q`` whatever the model, so power is what tells
        models apart: ``GridSearchCV`` and ``cross_val_score`` choose by it.
        NaN when no unit of ``y`` meets the condition.

        Parameters
        ----------
        X : array-like of shape (m, n_features)
        y : array-like of shape (m,) or (m, T)
            True responses of the test units.

        Returns
        -------
        float

        Examples
        --------
        >>> import numpy as np
        >>> from statlearn.conformal import ConformalSelector
        >>> rng = np.random.default_rng(0)
        >>> X = rng.normal(size=(600, 2))
        >>> y = X[:, 0] + 0.2 * rng.normal(size=600)
        >>> sel = ConformalSelector(threshold=0.5, q=0.2, random_state=0).fit(X[:400], y[:400])
        >>> bool(0.5 < sel.score(X[400:], y[400:]) <= 1.0)
        True
        """
        return float(self._select(X, y, "y").power)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        return tags


class ConformalSelector(_SelectorBase):
    """Select test units with ``Y > c`` at false discovery rate ``q`` (cfBH).

    Wraps any scikit-learn regressor (or precomputed predictions): ``fit``
    trains the model on one part of the data (unless ``prefit``) and keeps
    the calibration scores of the other part; ``select`` computes conformal
    p-values for new points and runs Benjamini-Hochberg. With exchangeable
    calibration and test data the expected fraction of selected units with
    ``Y <= c`` is at most ``q``, whatever the model.

    Parameters
    ----------
    estimator : regressor, None or "precomputed", default=None
        The model of ``E[Y | x]`` (``LinearRegression()`` when None).
        ``"precomputed"``: ``X`` is a single column of predictions.
    threshold : float, default=0.0
        The ``c`` in ``Y > c`` (per-unit thresholds can be passed to ``fit``
        and ``select``).
    q : float, default=0.1
        Target FDR in (0, 1).
    conformity_score : {"clip", "residual"}, default="clip"
        Monotone score, see :func:`cfbh` (named so because ``score`` is
        scikit-learn's evaluation method).
    randomize : bool, default=True
        Random tie-breaking of the p-values.
    M : float or None, default=None
        Clip constant (``None`` = ``+inf``).
    prefit : bool, default=False
        ``estimator`` is already fitted; ``fit`` only calibrates (all data).
    calib_size : float, default=0.5
        Fraction of the data kept for calibration when fitting the model.
    random_state : None, int or Generator
        Seeds the train/calibration split and the tie-breaking uniforms.

    Attributes
    ----------
    estimator_ : regressor or None
        The fitted model (None when precomputed).
    mu_cal_, y_cal_, c_cal_ : ndarray of shape (n,)
        Calibration predictions, responses and thresholds.
    n_features_in_ : int
        Number of features seen by ``fit``.

    See Also
    --------
    cfbh : the same procedure on arrays of predictions.
    MultiConditionSelector : intervals and unions of intervals (MCCS).

    Notes
    -----
    There is no ``predict``: a selection depends on the whole batch of test
    points (through BH), not on each point alone.

    Examples
    --------
    >>> import numpy as np
    >>> from statlearn.conformal import ConformalSelector
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(1100, 3))
    >>> y = X @ np.array([1.0, -1.0, 0.5]) + 0.3 * rng.normal(size=1100)
    >>> sel = ConformalSelector(threshold=1.0, q=0.2, random_state=0).fit(X[:1000], y[:1000])
    >>> res = sel.select(X[1000:], y_true=y[1000:])
    >>> res.n_selected, round(res.fdp, 3), round(res.power, 3)  # one draw; E[FDP] <= q
    (41, 0.122, 1.0)
    """

    _parameter_constraints = {
        **_SelectorBase._parameter_constraints,
        "threshold": [Real()],
        "conformity_score": [Options(list(CFBH_SCORES))],
    }

    def __init__(self, estimator=None, threshold=0.0, q=0.1, conformity_score="clip",
                 randomize=True,
                 M=None, prefit=False, calib_size=0.5, random_state=None):
        self.estimator = estimator
        self.threshold = threshold
        self.q = q
        self.conformity_score = conformity_score
        self.randomize = randomize
        self.M = M
        self.prefit = prefit
        self.calib_size = calib_size
        self.random_state = random_state

    def fit(self, X, y, threshold=None):
        """Fit the model (unless prefit) and calibrate.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        threshold : array-like of shape (n_samples,), optional
            Per-unit thresholds (default: the ``threshold`` parameter).

        Returns
        -------
        self
        """
        if y is None:
            raise ValueError("ConformalSelector requires y to be passed, but the target y is None.")
        if np.ndim(y) != 1:
            raise ValueError(f"y must be 1-D, got shape {np.shape(y)}.")
        c = None
        if threshold is not None:
            c = np.asarray(host(threshold))
            if c.dtype.kind not in "biuf":
                raise TypeError(f"threshold must hold real numbers, got dtype {c.dtype}.")
            c = c.astype(np.float64)
            if c.shape != (np.shape(y)[0],) or not np.all(np.isfinite(c)):
                raise ValueError(f"threshold must be finite with shape ({np.shape(y)[0]},), "
                                 f"got shape {c.shape}.")
        self.mu_cal_ndim_ = 1
        mu, y_cal, c_cal = self._fit_split(X, y, c)
        self.mu_cal_ = np.asarray(mu, dtype=np.float64).reshape(-1)
        self.y_cal_ = y_cal
        self.per_unit_threshold_ = c_cal is not None
        self.c_cal_ = (np.full(self.mu_cal_.shape, float(self.threshold)) if c_cal is None
                       else c_cal)
        return self

    def _thresholds(self, threshold, m):
        """Calibration and test thresholds for ``select``, one rule for both.

        The p-values are valid only when calibration and test units are judged
        against the same threshold rule: a scalar given here is applied to the
        calibration units too; per-unit test thresholds need the per-unit
        calibration thresholds given to ``fit``.
        """
        if threshold is None:
            if self.per_unit_threshold_:
                raise ValueError(
                    "threshold: fit was given one threshold per calibration unit, so select "
                    "needs one per test unit (threshold=array of shape (m,)).")
            return self.c_cal_, float(self.threshold)
        if np.ndim(threshold) == 0:
            c = check_real(_scalar(threshold), "threshold")
            if self.per_unit_threshold_:
                raise ValueError(
                    "threshold: fit was given one threshold per calibration unit, so select "
                    f"needs one per test unit (an array of shape ({m},)), got the scalar {c!r}.")
            return np.full(self.c_cal_.shape, c), c
        if not self.per_unit_threshold_:
            raise ValueError(
                "threshold: per-unit test thresholds need per-unit calibration thresholds "
                "under the same rule; pass threshold= (one per row) to fit as well, or give "
                "one scalar here.")
        c = np.asarray(host(threshold))
        if c.dtype.kind not in "biuf":
            raise TypeError(f"threshold must hold real numbers, got dtype {c.dtype}.")
        c = c.astype(np.float64)
        if c.shape != (m,) or not np.all(np.isfinite(c)):
            raise ValueError(f"threshold must be finite with shape ({m},), got shape "
                             f"{c.shape}" + ("." if c.shape != (m,) else " with NaN or inf."))
        return self.c_cal_, c

    def select(self, X, threshold=None, y_true=None):
        """Select the test units predicted to have ``Y > c``.

        Parameters
        ----------
        X : array-like of shape (m, n_features)
        threshold : float or array-like of shape (m,), optional
            Test thresholds (default: the ``threshold`` parameter). A scalar is
            applied to the calibration units as well, so the p-values stay valid;
            an array needs the per-unit calibration thresholds given to ``fit``.
        y_true : array-like of shape (m,), optional
            True responses, to report FDP and power.

        Returns
        -------
        SelectionResult
        """
        return self._select(X, y_true, "y_true", threshold)

    def _select(self, X, y, y_name, threshold=None):
        mu = self._test_mu(X)
        y = self._check_truth(y, mu, y_name)
        c_cal, c = self._thresholds(threshold, np.shape(mu)[0])
        return cfbh(self.mu_cal_, self.y_cal_, mu, c_cal=c_cal, c_test=c, q=self.q,
                    score=self.conformity_score, randomize=self.randomize, M=self.M, y_test=y,
                    random_state=check_rng(self.random_state))

    def pvalues(self, X, threshold=None):
        """Conformal p-values of ``H_j: Y_j <= c_j``, shape (m,)."""
        return self.select(X, threshold).pvalues[:, 0]

    @classmethod
    def _statlearn_test_instances(cls):
        return [cls(random_state=0), cls(conformity_score="residual", q=0.3, random_state=0)]


class MultiConditionSelector(_SelectorBase):
    """Select test units whose response meets several conditions, at FDR ``q`` (MCCS).

    Conditions are open intervals ``(lower, upper)`` of the response (either
    end infinite), or boxes ``{task: (lower, upper)}`` over several response
    columns (multi-task). ``mode="disjunctive"`` targets the union of the
    conditions (global BH over every (unit, condition) p-value),
    ``"conjunctive"`` their intersection (one region-monotone score). With
    exchangeable calibration and test data the FDR is at most ``q``.

    Parameters
    ----------
    estimator : regressor, None or "precomputed", default=None
        Model of ``E[Y | x]`` (multi-output for several tasks);
        ``LinearRegression()`` when None. ``"precomputed"``: ``X`` holds one
        column of predictions per response column.
    conditions : sequence, default=((0.0, 1.0),)
        See :func:`mccs`.
    mode : {"disjunctive", "conjunctive"}, default="disjunctive"
    q : float, default=0.1
        Target FDR in (0, 1).
    method : {"mccs", "int", "uni", "int-b", "uni-b"}, default="mccs"
        MCCS or one of the set-operation baselines of :func:`mccs`.
    randomize : bool, default=True
    M : float or None, default=None
    prefit : bool, default=False
    calib_size : float, default=0.5
    random_state : None, int or Generator

    Attributes
    ----------
    estimator_ : regressor or None
    mu_cal_, y_cal_ : ndarray of shape (n,) or (n, T)
    n_features_in_ : int

    See Also
    --------
    mccs : the same procedure on arrays of predictions.

    Examples
    --------
    >>> import numpy as np
    >>> from statlearn.conformal import MultiConditionSelector
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(-2, 2, size=(1050, 2))
    >>> y = X[:, 0] + 0.1 * rng.normal(size=1050)
    >>> sel = MultiConditionSelector(conditions=[(-np.inf, -1.0), (1.0, np.inf)], q=0.2,
    ...                              random_state=0).fit(X[:1000], y[:1000])
    >>> res = sel.select(X[1000:], y_true=y[1000:])
    >>> res.n_selected, round(res.fdp, 3), round(res.power, 3)  # one draw; E[FDP] <= q
    (37, 0.162, 1.0)
    """

    _parameter_constraints = {
        **_SelectorBase._parameter_constraints,
        "conditions": ["no_validation"],  # parsed against the response columns in fit
        "mode": [Options(["disjunctive", "conjunctive"])],
        "method": [Options([m for m in METHODS if m != "ind"])],
    }

    def __init__(self, estimator=None, conditions=((0.0, 1.0),), mode="disjunctive", q=0.1,
                 method="mccs", randomize=True, M=None, prefit=False, calib_size=0.5,
                 random_state=None):
        self.estimator = estimator
        self.conditions = conditions
        self.mode = mode
        self.q = q
        self.method = method
        self.randomize = randomize
        self.M = M
        self.prefit = prefit
        self.calib_size = calib_size
        self.random_state = random_state

    def fit(self, X, y):
        """Fit the model (unless prefit) and calibrate.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,) or (n_samples, T)

        Returns
        -------
        self
        """
        if y is None:
            raise ValueError("MultiConditionSelector requires y to be passed, but the target y "
                             "is None.")
        T = np.shape(y)[1] if np.ndim(y) == 2 else 1
        _parse_conditions(self.conditions, T)
        self.mu_cal_ndim_ = np.ndim(y)
        mu, y_cal, _ = self._fit_split(X, y)
        self.mu_cal_ = np.asarray(mu, dtype=np.float64).reshape(np.shape(y_cal))
        self.y_cal_ = y_cal
        return self

    def select(self, X, y_true=None):
        """Select the test units predicted to meet the conditions.

        Parameters
        ----------
        X : array-like of shape (m, n_features)
        y_true : array-like of shape (m,) or (m, T), optional
            True responses, to report FDP and power.

        Returns
        -------
        SelectionResult
        """
        return self._select(X, y_true, "y_true")

    def _select(self, X, y, y_name):
        mu = self._test_mu(X)
        y = self._check_truth(y, mu, y_name)
        return mccs(self.mu_cal_, self.y_cal_, mu, self.conditions, q=self.q, mode=self.mode,
                    method=self.method, randomize=self.randomize, M=self.M, y_test=y,
                    random_state=check_rng(self.random_state))

    def pvalues(self, X):
        """Conformal p-values of every (unit, condition) null, shape (m, K)."""
        return self.select(X).pvalues

    @classmethod
    def _statlearn_test_instances(cls):
        return [cls(random_state=0), cls(conditions=[(-np.inf, -1.0), (1.0, np.inf)],
                                         method="uni", random_state=0)]

"""Jackknife+, CV+ and jackknife-minmax intervals (Barber et al., 2021)."""

from __future__ import annotations

import numpy as np
from joblib import Parallel, delayed
from sklearn.base import BaseEstimator, RegressorMixin, clone
from sklearn.linear_model import LinearRegression
from sklearn.utils import _safe_indexing
from sklearn.utils.validation import _num_samples

from ...base import FitStateMixin, HasMethods, Integral, Options, TargetCheckedScoreMixin
from ...utils import check_option, check_rng
from .._core._arrays import fit_inputs, float64_features, host, row_indexable
from .._core._folds import SPLITTER, cv_folds
from .._core._quantile import conformal_quantile, conformal_rank
from ._inputs import (
    _check_alphas,
    _check_predictions,
    _check_target,
    _Levels,
    _ResampledIntervalsEvaluation,
)

__all__ = ["CrossConformalRegressor", "cross_conformal_bounds"]

_METHODS = ("plus", "minmax")
#: Largest number of (test row, training point) values held at once by the "plus" bounds.
_CHUNK_VALUES = 2_000_000
#: "plus" bounds with at most this many folds may use the fold-wise search.
_FOLD_PATH_MAX_FOLDS = 64


def cross_conformal_bounds(fold_predictions, fold_of, residuals, alpha, method="plus"):
    """Jackknife+/CV+ or minmax bounds from out-of-fold residuals.

    Parameters
    ----------
    fold_predictions : array of shape (K, m)
        Prediction of each fold model (fitted without fold ``k``) at ``m``
        test points.
    fold_of : array of int, shape (n,)
        Fold of each training point (``0..K-1``).
    residuals : array of shape (n,)
        Out-of-fold absolute residuals ``R_i = |y_i - mu_{-k(i)}(x_i)|``.
    alpha : float
        Miscoverage level in (0, 1).
    method : {"plus", "minmax"}, default="plus"
        ``"plus"``: lower = the ``floor(alpha (n + 1))``-th smallest of
        ``mu_{-k(i)}(x) - R_i``, upper = the ``ceil((1 - alpha)(n + 1))``-th
        smallest of ``mu_{-k(i)}(x) + R_i`` (both ranks from
        :func:`conformal_rank`, ``-inf``/``+inf`` when it exceeds ``n``).
        ``"minmax"``: ``[min_k mu_{-k}(x) - q, max_k mu_{-k}(x) + q]`` with
        ``q = conformal_quantile(R, alpha)``.

    Returns
    -------
    ndarray of shape (m, 2)

    Examples
    --------
    >>> import numpy as np
    >>> from statlearn.conformal import cross_conformal_bounds
    >>> P = np.array([[0.0], [1.0]])           # two folds, one test point
    >>> fold_of = np.array([0, 0, 1, 1])
    >>> R = np.array([0.5, 1.0, 0.2, 2.0])
    >>> cross_conformal_bounds(P, fold_of, R, alpha=0.4)   # k = 3 of n = 4
    array([[-1. ,  1.2]])
    >>> cross_conformal_bounds(P, fold_of, R, alpha=0.4, method="minmax")
    array([[-1.,  2.]])
    """
    check_option(method, "method", _METHODS)
    P = _float_array(fold_predictions, "fold_predictions")
    fold_of = np.asarray(host(fold_of))
    R = _float_array(residuals, "residuals")
    if P.ndim != 2:
        raise ValueError(f"fold_predictions must have shape (K, m), got {P.shape}.")
    if not np.all(np.isfinite(P)):
        raise ValueError("fold_predictions must be finite (no NaN or inf).")
    if R.ndim != 1 or fold_of.shape != R.shape or R.size == 0:
        raise ValueError("residuals and fold_of must be 1-D of the same, non-zero length, got "
                         f"{R.shape} and {fold_of.shape}.")
    if fold_of.dtype.kind not in "iu":
        raise TypeError(f"fold_of must hold integer fold indices, got dtype {fold_of.dtype}.")
    if fold_of.min() < 0 or fold_of.max() >= P.shape[0]:
        raise ValueError(f"fold_of must hold fold indices in [0, {P.shape[0] - 1}].")
    if not np.all(np.isfinite(R)) or np.any(R < 0):
        raise ValueError("residuals must be finite and >= 0.")
    n, m = R.size, P.shape[1]
    out = np.empty((m, 2))
    if method == "minmax":
        q = conformal_quantile(R, alpha)
        out[:, 0] = P.min(axis=0) - q
        out[:, 1] = P.max(axis=0) + q
        return out
    k = conformal_rank(n, alpha)
    if k > n:
        out[:, 0], out[:, 1] = -np.inf, np.inf
        return out
    K = P.shape[0]
    if _use_fold_path(K, n, m):
        # few folds: k-th smallest of K sorted residual arrays, each shifted by
        # the fold model's prediction, by nested binary searches (no m x n matrix)
        parts = [np.sort(R[fold_of == f]) for f in range(K)]
        out[:, 1] = _kth_of_shifted(parts, P, k)
        out[:, 0] = -_kth_of_shifted(parts, -P, k)
        return out
    step = max(1, _CHUNK_VALUES // n)
    for start in range(0, m, step):
        mu = P[fold_of, start:start + step].T  # (chunk, n): mu_{-k(i)}(x)
        up = np.partition(mu + R, k - 1, axis=1)[:, k - 1]
        lo = -np.partition(R - mu, k - 1, axis=1)[:, k - 1]
        out[start:start + step, 0], out[start:start + step, 1] = lo, up
    return out


def _float_array(a, name):
    try:
        return np.asarray(host(a), dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must be an array of real numbers: {exc}") from exc


def _use_fold_path(K, n, m):
    """Whether the fold-wise search costs fewer operations than the dense values.

    Rough element-operation counts: dense ``m n``; fold-wise ``K^2 log2(n)^2``
    NumPy calls on ``m``-vectors, each worth about 500 elements of call overhead
    (measured: ~25 us per call against ~50 ns per dense element).
    """
    return K <= _FOLD_PATH_MAX_FOLDS and K * K * np.log2(n + 1) ** 2 * (m + 500) < m * n


def _count_le(part, c, t):
    """``#{i : c + part[i] <= t}`` per column, ``part`` sorted ascending.

    ``c + part[i]`` is nondecreasing in ``i`` in floating point as well, so the
    count is found by a binary search on the same rounded sums that a direct
    comparison would form.
    """
    lo = np.zeros(c.shape[0], dtype=np.int64)
    hi = np.full(c.shape[0], part.size, dtype=np.int64)
    while True:
        active = lo < hi
        if not active.any():
            return lo
        mid = (lo + hi) // 2
        midc = np.minimum(mid, part.size - 1)
        ok = (c + part[midc]) <= t
        lo = np.where(active & ok, mid + 1, lo)
        hi = np.where(active & ~ok, mid, hi)


def _kth_of_shifted(parts, C, k):
    """k-th smallest (1-based) of ``{C[f, j] + parts[f][i]}`` over all f, i, per column j."""
    m = C.shape[1]
    best = np.full(m, np.inf)

    def count(t):
        return sum(_count_le(part, C[g], t) for g, part in enumerate(parts) if part.size)

    for f, part in enumerate(parts):
        if not part.size:
            continue
        # smallest index whose value has at least k values <= it
        lo = np.zeros(m, dtype=np.int64)
        hi = np.full(m, part.size, dtype=np.int64)
        while True:
            active = lo < hi
            if not active.any():
                break
            mid = (lo + hi) // 2
            midc = np.minimum(mid, part.size - 1)
            ok = count(C[f] + part[midc]) >= k
            hi = np.where(active & ok, mid, hi)
            lo = np.where(active & ~ok, mid + 1, lo)
        found = lo < part.size
        cand = np.where(found, C[f] + part[np.minimum(lo, part.size - 1)], np.inf)
        best = np.minimum(best, cand)
    return best



def _fit_fold(estimator, X, y, train, test):
    model = clone(estimator).fit(_safe_indexing(X, train), y[train])
    pred = model.predict(_safe_indexing(X, test))
    return model, _check_predictions(pred, test.size, "estimator.predict")


class CrossConformalRegressor(_ResampledIntervalsEvaluation, FitStateMixin,
                              TargetCheckedScoreMixin, RegressorMixin, BaseEstimator):
    """Jackknife+, CV+ and jackknife/CV-minmax prediction intervals.

    ``fit`` fits one clone of ``estimator`` per fold of ``cv`` (in parallel
    with joblib), without that fold, and keeps the out-of-fold absolute
    residuals ``R_i = |y_i - mu_{-k(i)}(x_i)|``. Every training point serves
    both for fitting and for calibration, so no data is set aside.

    With ``method="plus"`` (jackknife+ for leave-one-out, CV+ for K folds)
    the interval at ``x`` is
    ``[q_lo{mu_{-k(i)}(x) - R_i}, q_hi{mu_{-k(i)}(x) + R_i}]``, the
    ``floor(alpha (n + 1))``-th and ``ceil((1 - alpha)(n + 1))``-th smallest
    of the ``n`` values. With ``method="minmax"`` it is
    ``[min_k mu_{-k}(x) - q, max_k mu_{-k}(x) + q]``, ``q`` the conformal
    quantile of the ``R_i``.

    Guarantees for exchangeable data and any model fitted symmetrically in
    its training points (Barber, Candes, Ramdas & Tibshirani, 2021):

    * jackknife+: coverage ``>= 1 - 2 alpha`` in the worst case; on ordinary
      data it is close to ``1 - alpha``;
    * CV+ with ``K`` folds of size ``n/K``: coverage ``>= 1 - 2 alpha -
      min{2 (1 - 1/K) / (n/K + 1), (1 - K/n) / (K + 1)}``;
    * jackknife-minmax and CV-minmax: coverage ``>= 1 - alpha``, at the price
      of wider intervals.

    Parameters
    ----------
    estimator : regressor, default=None
        Base model (``LinearRegression()`` when None).
    method : {"plus", "minmax"}, default="plus"
        Interval construction.
    cv : int, "jackknife" or cross-validation splitter, default=5
        ``int``: shuffled :class:`~sklearn.model_selection.KFold` with that
        many folds (CV+); ``"jackknife"``: leave-one-out (jackknife+); or any
        splitter whose test folds partition the data (each row in exactly
        one test fold).
    alpha : float or sequence of float, default=0.1
        Miscoverage level(s) in (0, 1).
    n_jobs : int or None, default=None
        Folds fitted in parallel (joblib semantics).
    random_state : None, int, numpy.random.Generator or RandomState
        Shuffles the folds when ``cv`` is an int.

    Attributes
    ----------
    estimator_ : regressor
        The model fitted on all the data (point predictions).
    fold_estimators_ : list of regressor
        ``mu_{-k}``, one per fold.
    fold_of_ : ndarray of int, shape (n,)
        Fold of each training point.
    residuals_ : ndarray of shape (n,)
        Out-of-fold absolute residuals.
    alpha_ : ndarray of shape (n_alphas,)
        Levels fixed at fit.
    method_ : str
        Method fixed at fit.
    n_folds_ : int
        Number of folds.
    n_features_in_ : int
        Number of features seen by ``fit`` (when ``X`` has a shape).

    See Also
    --------
    SplitConformalRegressor, cross_conformal_bounds

    Notes
    -----
    The ranks are :func:`conformal_rank`, shared with the split procedures;
    ``k > n`` gives infinite bounds. The lower bound's rank
    ``floor(alpha (n + 1))`` is computed as ``n + 1 - k``, so both bounds
    come from one rank rule. With few folds and many test rows (CV+ at large
    ``n``) the "plus" bounds are found by nested binary searches over the K
    sorted residual arrays, ``O(m K^2 log^2 n)``; otherwise (jackknife+, small
    problems) from the ``(rows, n)`` values in chunks, ``O(m n)``, whichever
    costs fewer operations. Both give the same order statistic of the same
    rounded sums. Every output comes from the parameters of the last
    :meth:`fit`: after ``set_params`` (other than ``n_jobs``) the outputs
    raise :class:`~statlearn.base.StaleFitError` until the next :meth:`fit`.

    References
    ----------
    Barber, Candes, Ramdas & Tibshirani (2021), "Predictive inference with
    the jackknife+", Annals of Statistics 49(1).

    Examples
    --------
    >>> import numpy as np
    >>> from statlearn.conformal import CrossConformalRegressor
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(400, 3))
    >>> y = X @ [1.0, -1.0, 0.5] + rng.normal(size=400)
    >>> reg = CrossConformalRegressor(cv=5, alpha=0.1, random_state=0).fit(X[:200], y[:200])
    >>> iv = reg.predict_interval(X[200:])
    >>> iv.shape, float(reg.evaluate(X[200:], y[200:]).coverage[0])
    ((200, 2), 0.955)
    """

    def __init__(self, estimator=None, *, method="plus", cv=5, alpha=0.1, n_jobs=None,
                 random_state=None):
        self.estimator = estimator
        self.method = method
        self.cv = cv
        self.alpha = alpha
        self.n_jobs = n_jobs
        self.random_state = random_state

    _parameter_constraints = {
        "estimator": [None, HasMethods("fit", "predict")],
        "method": [Options(_METHODS)],
        "cv": [Integral(2, None), Options(["jackknife"]), SPLITTER],
        "alpha": [_Levels()],
        "n_jobs": [None, Integral()],
        "random_state": ["random_state"],
    }
    _output_free_params = ("n_jobs",)

    def fit(self, X, y):
        """Fit the fold models and the full model; store the out-of-fold residuals.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Features.
        y : array-like of shape (n_samples,)
            Responses.

        Returns
        -------
        self
        """
        X, y, n = fit_inputs(self, X, y, _check_target)
        if n < 2:
            raise ValueError(f"cross-conformal intervals need at least 2 samples, got "
                             f"n_samples = {n}.")
        rng = check_rng(self.random_state)
        X = row_indexable(X)
        folds, fold_of = cv_folds(self.cv, X, y, n, rng)
        base = self.estimator if self.estimator is not None else LinearRegression()
        out = Parallel(n_jobs=None if self.n_jobs is None else int(self.n_jobs))(
            delayed(_fit_fold)(base, X, y, tr, te) for tr, te in folds)
        oof = np.empty(n)
        for (_, te), (_, pred) in zip(folds, out):
            oof[te] = pred
        self.fold_estimators_ = [model for model, _ in out]
        self.fold_of_ = fold_of
        self.residuals_ = np.abs(y - oof)
        self.n_folds_ = len(folds)
        self.estimator_ = clone(base).fit(X, y)
        alphas, scalar = _check_alphas(self.alpha)
        self.alpha_ = np.asarray(alphas, dtype=np.float64)
        self._scalar_alpha_ = scalar
        self.method_ = str(self.method)
        return self

    def predict(self, X):
        """Point prediction of the model fitted on all the data."""
        self._check_fitted()
        X = float64_features(X)
        return _check_predictions(self.estimator_.predict(X), _num_samples(X),
                                  "estimator.predict")

    def fold_predictions(self, X):
        """Predictions of the fold models, shape (n_folds, n_samples)."""
        self._check_fitted()
        X = float64_features(X)
        n = _num_samples(X)
        return np.stack([_check_predictions(m.predict(X), n, "estimator.predict")
                         for m in self.fold_estimators_])

    def predict_interval(self, X):
        """Prediction intervals.

        Parameters
        ----------
        X : array-like
            Features.

        Returns
        -------
        ndarray of shape (n_samples, 2) or (n_samples, 2, n_alphas)
            Lower and upper bounds; the last axis follows ``alpha_`` when
            ``alpha`` was a sequence.
        """
        self._check_fitted()
        P = self.fold_predictions(X)
        out = np.stack([cross_conformal_bounds(P, self.fold_of_, self.residuals_, a,
                                               self.method_) for a in self.alpha_], axis=2)
        return out[:, :, 0] if self._scalar_alpha_ else out

    @classmethod
    def _statlearn_test_instances(cls):
        return [cls(cv=3, random_state=0),
                cls(method="minmax", cv=3, alpha=[0.1, 0.3], random_state=0)]

"""Jackknife+-after-bootstrap intervals (Kim, Xu & Barber, 2020)."""

from __future__ import annotations

import numbers

import numpy as np
from joblib import Parallel, delayed
from sklearn.base import BaseEstimator, RegressorMixin, clone
from sklearn.linear_model import LinearRegression
from sklearn.utils import _safe_indexing
from sklearn.utils.validation import _num_samples

from ...base import Bool, FitStateMixin, HasMethods, Integral, Options, TargetCheckedScoreMixin
from ...utils import check_rng
from ...utils._validation import _scalar
from .._core._arrays import fit_inputs, float64_features, row_indexable
from ._cross import _METHODS, cross_conformal_bounds
from ._inputs import (
    _check_alphas,
    _check_predictions,
    _check_target,
    _Levels,
    _ResampledIntervalsEvaluation,
)

__all__ = ["JackknifeAfterBootstrapRegressor"]

_AGGREGATIONS = ("mean", "median")
#: Largest number of (out-of-bag pattern, test row) values aggregated at once.
_CHUNK_VALUES = 2_000_000


def _fit_bag(estimator, X, y, bag):
    return clone(estimator).fit(_safe_indexing(X, bag), y[bag])


def _aggregate(predictions, mask, aggregation):
    """``phi`` over the models each row of ``mask`` selects.

    ``predictions`` has shape (B, m), ``mask`` (K, B) bool with at least one
    True per row; returns (K, m): the mean or the median of the selected rows
    of ``predictions``, one row per row of ``mask``.
    """
    if aggregation == "mean":
        w = mask / mask.sum(axis=1, keepdims=True)
        return w @ predictions
    # median: rows with the same number c of selected models are batched; the two
    # middle order statistics of each (test point, row) come from one partition
    m = predictions.shape[1]
    PT = np.ascontiguousarray(predictions.T)
    out = np.empty((mask.shape[0], m))
    counts = mask.sum(axis=1)
    for c in np.unique(counts):
        rows = np.flatnonzero(counts == c)
        models = np.nonzero(mask[rows])[1].reshape(rows.size, c)
        lo, hi = (int(c) - 1) // 2, int(c) // 2
        step = max(1, _CHUNK_VALUES // (m * int(c)))
        for start in range(0, rows.size, step):
            V = np.partition(PT[:, models[start:start + step]], (lo, hi), axis=2)
            out[rows[start:start + step]] = ((V[:, :, lo] + V[:, :, hi]) / 2).T
    return out



class JackknifeAfterBootstrapRegressor(_ResampledIntervalsEvaluation, FitStateMixin,
                                       TargetCheckedScoreMixin, RegressorMixin, BaseEstimator):
    """Jackknife+-after-bootstrap (J+aB) prediction intervals.

    ``fit`` fits ``B`` clones of ``estimator`` on bootstrap samples
    ``S_1, ..., S_B`` of the ``n`` training points (in parallel with joblib)
    and nothing else (Kim, Xu & Barber, 2020, Algorithm 1). For each training
    point ``i`` the out-of-bag ensemble ``mu_{phi,-i}`` aggregates (mean or
    median, ``phi``) the models whose sample does not contain ``i``; its
    residual is ``R_i = |y_i - mu_{phi,-i}(x_i)|``. With ``method="plus"``
    the interval at ``x`` is the jackknife+ interval of these leave-``i``-out
    ensembles,
    ``[q_lo{mu_{phi,-i}(x) - R_i}, q_hi{mu_{phi,-i}(x) + R_i}]``, the
    ``floor(alpha (n + 1))``-th and ``ceil((1 - alpha)(n + 1))``-th smallest
    of the ``n`` values; with ``method="minmax"`` it is
    ``[min_i mu_{phi,-i}(x) - q, max_i mu_{phi,-i}(x) + q]``, ``q`` the
    conformal quantile of the ``R_i``. Both come from
    :func:`cross_conformal_bounds`, with one "fold" per distinct out-of-bag
    set.

    Guarantee (Theorem 1 of the paper): for i.i.d. data, any ``estimator``
    that treats its training points symmetrically and either aggregation,
    the "plus" interval covers a new response with probability at least
    ``1 - 2 alpha`` when the number of models is drawn as
    ``B ~ Binomial(B_tilde, (1 - 1/(n + 1))^m)`` (``draw_n_resamplings=True``
    with bootstrap samples of size ``m``; ``Binomial(B_tilde, 1 - m/(n + 1))``
    for subsamples without replacement). With a fixed ``B`` (the default) the
    paper reports coverage close to ``1 - alpha`` in practice. ``fit``
    raises when some training point is in every sample (it has no
    out-of-bag model), so the guarantee holds conditionally on that event
    not happening, at the cost of at most its probability (about
    ``n 0.632^B`` for bootstrap samples of size ``n``: about ``1e-5`` at
    ``n = 1e5`` with the default ``B = 50``). The "minmax" interval contains
    the "plus" one, so it inherits the guarantee.

    Parameters
    ----------
    estimator : regressor, default=None
        Base model (``LinearRegression()`` when None).
    resampling : int or resampler, default=50
        ``int``: the number of samples ``B`` (``B_tilde`` when
        ``draw_n_resamplings``), drawn from ``random_state``; or an object
        whose ``split(X, y)`` yields ``(in_bag, out_of_bag)`` index arrays,
        ``out_of_bag`` the training points missing from ``in_bag`` (for
        instance MAPIE's ``Subsample``), so that the same samples can be fed
        to several implementations.
    aggregation : {"mean", "median"}, default="mean"
        ``phi``, the aggregation of the models of an out-of-bag ensemble (and
        of all ``B`` models in :meth:`predict`).
    method : {"plus", "minmax"}, default="plus"
        Interval construction.
    sample_size : int or None, default=None
        Size ``m`` of each sample (``n`` when None); only with an int
        ``resampling``.
    replace : bool, default=True
        Bootstrap (with replacement) or subsampling (without, ``m < n``);
        only with an int ``resampling``.
    draw_n_resamplings : bool, default=False
        Draw the number of models ``B`` from the binomial law of Theorem 1
        (``resampling`` is then ``B_tilde``); only with an int
        ``resampling``.
    alpha : float or sequence of float, default=0.1
        Miscoverage level(s) in (0, 1).
    n_jobs : int or None, default=None
        Models fitted in parallel (joblib semantics).
    random_state : None, int, numpy.random.Generator or RandomState
        Draws the samples (and ``B`` when ``draw_n_resamplings``).

    Attributes
    ----------
    estimators_ : list of regressor
        ``mu_1, ..., mu_B``, one per sample.
    in_bag_ : ndarray of bool, shape (n, B)
        Whether training point ``i`` is in sample ``b``.
    n_resamplings_ : int
        Number ``B`` of models fitted.
    oob_predictions_ : ndarray of shape (n,)
        ``mu_{phi,-i}(x_i)``.
    residuals_ : ndarray of shape (n,)
        Out-of-bag absolute residuals ``R_i``.
    alpha_ : ndarray of shape (n_alphas,)
        Levels fixed at fit.
    method_ : str
        Method fixed at fit.
    n_features_in_ : int
        Number of features seen by ``fit`` (when ``X`` has a shape).

    See Also
    --------
    CrossConformalRegressor, cross_conformal_bounds

    Notes
    -----
    No model is fitted on all the data: :meth:`predict` is the aggregate of
    all ``B`` models (the bagged ensemble), which is why the paper calls the
    intervals free. Training points with the same out-of-bag set share one
    ensemble, so the bounds cost ``O(K m)`` aggregations for ``K <= n``
    distinct sets and ``m`` test rows, then the jackknife+ order statistics
    of :func:`cross_conformal_bounds`. Every output comes from the
    parameters of the last :meth:`fit`: after ``set_params`` (other than
    ``n_jobs``) the outputs raise :class:`~statlearn.base.StaleFitError`
    until the next :meth:`fit`.

    References
    ----------
    Kim, Xu & Barber (2020), "Predictive inference is free with the
    jackknife+-after-bootstrap", NeurIPS 33 (Algorithm 1, Theorem 1).

    Examples
    --------
    >>> import numpy as np
    >>> from statlearn.conformal import JackknifeAfterBootstrapRegressor
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(400, 3))
    >>> y = X @ [1.0, -1.0, 0.5] + rng.normal(size=400)
    >>> reg = JackknifeAfterBootstrapRegressor(resampling=20, random_state=0)
    >>> reg = reg.fit(X[:200], y[:200])
    >>> iv = reg.predict_interval(X[200:])
    >>> iv.shape, reg.n_resamplings_, float(reg.evaluate(X[200:], y[200:]).coverage[0])
    ((200, 2), 20, 0.95)
    """

    def __init__(self, estimator=None, *, resampling=50, aggregation="mean", method="plus",
                 sample_size=None, replace=True, draw_n_resamplings=False, alpha=0.1,
                 n_jobs=None, random_state=None):
        self.estimator = estimator
        self.resampling = resampling
        self.aggregation = aggregation
        self.method = method
        self.sample_size = sample_size
        self.replace = replace
        self.draw_n_resamplings = draw_n_resamplings
        self.alpha = alpha
        self.n_jobs = n_jobs
        self.random_state = random_state

    _parameter_constraints = {
        "estimator": [None, HasMethods("fit", "predict")],
        "resampling": [Integral(1, None), HasMethods("split", description=(
            "a resampler (an object with a split method yielding (in-bag, out-of-bag))"))],
        "aggregation": [Options(_AGGREGATIONS)],
        "method": [Options(_METHODS)],
        "sample_size": [None, Integral(1, None)],
        "replace": [Bool()],
        "draw_n_resamplings": [Bool()],
        "alpha": [_Levels()],
        "n_jobs": [None, Integral()],
        "random_state": ["random_state"],
    }
    _output_free_params = ("n_jobs",)

    def _bags(self, X, y, n):
        resampling = _scalar(self.resampling)
        if not isinstance(resampling, numbers.Integral):
            extra = [name for name, default in (("sample_size", None), ("replace", True),
                                                ("draw_n_resamplings", False))
                     if _scalar(getattr(self, name)) != default]
            if extra:
                raise ValueError(f"{', '.join(extra)} only apply when resampling is an int; "
                                 "with a resampler its split decides the samples.")
            return [self._check_bag(tr, te, n) for tr, te in resampling.split(X, y)]
        m = n if self.sample_size is None else int(_scalar(self.sample_size))
        replace = bool(_scalar(self.replace))
        if not replace and m >= n:
            raise ValueError(f"sample_size must be < n_samples = {n} when replace=False (a "
                             f"sample of all the points leaves none out of bag), got {m}.")
        rng = check_rng(self.random_state)
        B = int(resampling)
        if bool(_scalar(self.draw_n_resamplings)):
            p = (1.0 - 1.0 / (n + 1)) ** m if replace else 1.0 - m / (n + 1)
            B = int(rng.binomial(B, p))
        if replace:
            return [rng.integers(0, n, size=m) for _ in range(B)]
        return [rng.choice(n, size=m, replace=False) for _ in range(B)]

    @staticmethod
    def _check_bag(in_bag, out_of_bag, n):
        in_bag, out_of_bag = np.asarray(in_bag), np.asarray(out_of_bag)
        for name, idx in (("in-bag", in_bag), ("out-of-bag", out_of_bag)):
            if idx.ndim != 1 or (idx.size and idx.dtype.kind not in "iu"):
                raise TypeError(f"resampling.split must yield 1-D integer {name} indices, got "
                                f"shape {idx.shape} and dtype {idx.dtype}.")
            if idx.size and (idx.min() < 0 or idx.max() >= n):
                raise ValueError(f"resampling.split yielded {name} indices outside "
                                 f"[0, {n - 1}].")
        if in_bag.size == 0:
            raise ValueError("resampling.split yielded an empty in-bag sample.")
        missing = np.setdiff1d(np.arange(n), in_bag)
        if not np.array_equal(np.unique(out_of_bag), missing):
            raise ValueError("resampling.split must yield as out-of-bag indices exactly the "
                             "training points missing from the in-bag sample.")
        return in_bag.astype(np.int64, copy=False)

    def fit(self, X, y):
        """Fit the ``B`` bootstrap models; store the out-of-bag residuals.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Features.
        y : array-like of shape (n_samples,)
            Responses.

        Returns
        -------
        self

        Raises
        ------
        ValueError
            When some training point is in every sample (no out-of-bag
            model); a larger ``resampling`` makes it unlikely.
        """
        X, y, n = fit_inputs(self, X, y, _check_target)
        if n < 2:
            raise ValueError(f"jackknife+-after-bootstrap intervals need at least 2 samples, "
                             f"got n_samples = {n}.")
        X = row_indexable(X)
        bags = self._bags(X, y, n)
        B = len(bags)
        in_bag = np.zeros((n, B), dtype=bool)
        for b, bag in enumerate(bags):
            in_bag[bag, b] = True
        never_out = ~(~in_bag).any(axis=1)
        if never_out.any():
            raise ValueError(
                f"{int(never_out.sum())} training point(s) are in every one of the B = {B} "
                "samples, so they have no out-of-bag model; increase resampling.")
        base = self.estimator if self.estimator is not None else LinearRegression()
        models = Parallel(n_jobs=None if self.n_jobs is None else int(self.n_jobs))(
            delayed(_fit_bag)(base, X, y, bag) for bag in bags)
        # mu_b(x_i) for the out-of-bag pairs (i, b) only, NaN elsewhere
        P = np.full((n, B), np.nan)
        for b, model in enumerate(models):
            rows = np.flatnonzero(~in_bag[:, b])
            if rows.size:
                P[rows, b] = _check_predictions(model.predict(_safe_indexing(X, rows)),
                                                rows.size, "estimator.predict")
        if self.aggregation == "mean":
            oof = np.nansum(P, axis=1) / (~in_bag).sum(axis=1)
        else:
            oof = np.nanmedian(P, axis=1)
        patterns, pattern_of = np.unique(~in_bag, axis=0, return_inverse=True)
        self.estimators_ = list(models)
        self.in_bag_ = in_bag
        self.n_resamplings_ = B
        self.oob_predictions_ = oof
        self.residuals_ = np.abs(y - oof)
        self._patterns_ = patterns
        self._pattern_of_ = pattern_of.reshape(-1).astype(np.int64)
        alphas, scalar = _check_alphas(self.alpha)
        self.alpha_ = np.asarray(alphas, dtype=np.float64)
        self._scalar_alpha_ = scalar
        self.method_ = str(self.method)
        return self

    def _model_predictions(self, X):
        X = float64_features(X)
        m = _num_samples(X)
        return np.stack([_check_predictions(e.predict(X), m, "estimator.predict")
                         for e in self.estimators_])

    def predict(self, X):
        """Point prediction: the aggregate (``aggregation``) of all ``B`` models."""
        self._check_fitted()
        P = self._model_predictions(X)
        return P.mean(axis=0) if self.aggregation == "mean" else np.median(P, axis=0)

    def oob_predictions(self, X):
        """Out-of-bag ensembles at new points: ``mu_{phi,-i}(x)``.

        Parameters
        ----------
        X : array-like
            Features of ``m`` points.

        Returns
        -------
        ndarray of shape (n_train, m)
            Row ``i``: the aggregate of the models whose sample leaves out
            training point ``i``.
        """
        self._check_fitted()
        P = self._model_predictions(X)
        return _aggregate(P, self._patterns_, self.aggregation)[self._pattern_of_]

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
        P = self._model_predictions(X)
        m = P.shape[1]
        out = np.empty((m, 2, self.alpha_.size))
        step = max(1, _CHUNK_VALUES // self._patterns_.shape[0])
        for start in range(0, m, step):
            agg = _aggregate(P[:, start:start + step], self._patterns_, self.aggregation)
            for j, a in enumerate(self.alpha_):
                out[start:start + step, :, j] = cross_conformal_bounds(
                    agg, self._pattern_of_, self.residuals_, a, self.method_)
        return out[:, :, 0] if self._scalar_alpha_ else out

    @classmethod
    def _statlearn_test_instances(cls):
        return [cls(random_state=0),
                cls(aggregation="median", method="minmax", alpha=[0.1, 0.3], random_state=0)]

"""EnbPI (Xu & Xie, 2021) and adaptive conformal inference (ACI, AgACI) on its intervals."""

from __future__ import annotations

import numpy as np
from joblib import Parallel, delayed
from sklearn.base import BaseEstimator, RegressorMixin, clone
from sklearn.linear_model import LinearRegression
from sklearn.utils import _safe_indexing
from sklearn.utils.validation import _num_samples, validate_data

from ...base import (
    Bool,
    FitStateMixin,
    HasMethods,
    Integral,
    Level,
    Options,
    Real,
    TargetCheckedScoreMixin,
    _refuse_inactive_params,
)
from ...utils import check_rng
from .._core._arrays import fit_inputs, float64_features, row_indexable, same_rows
from .._regression._inputs import _check_predictions, _check_target, _WrappedModelTags
from ._aci import _step
from ._agaci import _AgACIState, _check_gammas, _default_limit, _interval

__all__ = ["TimeSeriesRegressor", "block_bootstrap_indices"]

_METHODS = ("enbpi", "aci", "agaci")
_AGGREGATIONS = ("mean", "median")
#: Largest number of (test row, training point, model) values held at once (median path).
_CHUNK_VALUES = 4_000_000


def block_bootstrap_indices(n_samples, n_resamplings, block_length=1, random_state=None):
    """Training indices of a non-overlapping block bootstrap of ``0..n-1``.

    The series is cut into ``ceil(n / L)`` consecutive blocks of length
    ``L = block_length`` (the last one shorter when ``L`` does not divide
    ``n``); each resample draws that many blocks with replacement (and more,
    one at a time, while the drawn blocks hold fewer than ``n`` indices),
    joins them in the order drawn and keeps the first ``n`` indices. ``L = 1`` is the
    ordinary bootstrap of Algorithm 1 of Xu & Xie (2021); longer blocks keep
    short-range dependence inside each resample.

    Parameters
    ----------
    n_samples : int
        Length ``n >= 2`` of the series.
    n_resamplings : int
        Number ``B >= 1`` of resamples.
    block_length : int, default=1
        ``L`` in ``[1, n]``.
    random_state : None, int, numpy.random.Generator or RandomState
        Source of the draws.

    Returns
    -------
    list of ndarray of int
        ``B`` arrays of ``n`` indices each.

    Examples
    --------
    >>> from statlearn.conformal import block_bootstrap_indices
    >>> [b.tolist() for b in block_bootstrap_indices(6, 2, block_length=3, random_state=0)]
    [[3, 4, 5, 3, 4, 5], [3, 4, 5, 0, 1, 2]]
    """
    from ...utils import check_int

    n = check_int(n_samples, "n_samples", low=2)
    B = check_int(n_resamplings, "n_resamplings", low=1)
    L = check_int(block_length, "block_length", low=1, high=n)
    rng = check_rng(random_state)
    n_blocks = -(-n // L)
    starts = np.arange(n_blocks) * L
    out = []
    for _ in range(B):
        drawn = list(rng.integers(0, n_blocks, size=n_blocks))
        while sum(min(L, n - starts[j]) for j in drawn) < n:  # a short last block was drawn
            drawn.append(rng.integers(0, n_blocks))
        idx = np.concatenate([np.arange(starts[j], min(starts[j] + L, n)) for j in drawn])
        out.append(idx[:n])
    return out


def _fit_one(estimator, X, y, train):
    return clone(estimator).fit(_safe_indexing(X, train), y[train])



class TimeSeriesRegressor(_WrappedModelTags, FitStateMixin, TargetCheckedScoreMixin, RegressorMixin,
                          BaseEstimator):
    """Prediction intervals for time series: EnbPI, and ACI on the EnbPI intervals.

    ``fit`` (Xu & Xie, 2021, Algorithm 1, its training steps) fits ``B`` clones of
    ``estimator`` on bootstrap resamples ``S_b`` of the training rows (in
    parallel with joblib). For each training point ``i`` the leave-one-out
    ensemble ``f_{-i}(x) = phi{f_b(x) : i not in S_b}`` aggregates only the
    models that did not see it (``phi`` is the mean or median), and its
    residual ``e_i = y_i - f_{-i}(x_i)`` enters the residual window. At a new
    point the centre is ``f(x) = phi{f_{-i}(x) : i = 1..n}`` and

    * ``symmetric=True`` (the paper's interval): ``f(x) +- q``, ``q`` the
      ``ceil((1 - alpha)(n + 1))``-th smallest ``|e_i|`` of the window;
    * ``symmetric=False``: ``[f(x) + e_(n + 1 - k), f(x) + e_(k)]``, the
      order statistics of the signed residuals with
      ``k = ceil((1 - alpha / 2)(n + 1))`` (equal tails).

    A rank above ``n`` gives infinite bounds. :meth:`update` (Algorithm 1,
    its update step) adds the residuals of newly observed points to the window
    and drops as many of the oldest, so the window keeps its length ``n`` and
    follows the series; the models are never refitted.

    With ``method="aci"`` the level used for the interval is the working
    level ``alpha_t`` of adaptive conformal inference (Gibbs & Candes, 2021):
    :meth:`update` takes the new points one at a time, records
    ``err_t = 1{y_t outside the interval at alpha_t}``, sets ``alpha_{t+1} =
    alpha_t + gamma (alpha - err_t)`` and then slides the window. A level
    ``<= 0`` gives the whole line, a level ``>= 1`` the empty set (returned
    as the bounds ``(+inf, -inf)``), so that, for every data sequence,
    ``|mean(err_1..T) - alpha| <= (max(alpha, 1 - alpha) + gamma) /
    (gamma T)`` after ``T`` updates (their Proposition 4.1).

    With ``method="agaci"`` (Zaffran et al., 2022, AgACI) one ACI expert
    runs per step size in ``gammas``, each with its own working level, and
    the interval is ``[sum_k w^l_k b^l_k, sum_k w^u_k b^u_k]``: the experts'
    lower and upper bounds averaged with the weights of two Bernstein online
    aggregations on the pinball loss at ``alpha / 2`` and ``1 - alpha / 2``
    (see :func:`aggregated_adaptive_conformal_inference`). An infinite expert
    bound enters the average as ``centre +- M``, ``M`` twice the largest
    absolute residual of the window left by :meth:`fit`. :meth:`update` moves
    every expert's level and both sets of weights row by row. Its guarantee
    is the aggregation's regret bound on the pinball loss against each
    expert, not a coverage rate.

    Guarantees: EnbPI's coverage is approximate, ``1 - alpha`` up to terms
    that vanish as ``n`` grows when the errors are stationary and strongly
    mixing and the ensemble estimates the regression function well (Xu & Xie,
    2021, their theory section); ACI's long-run bound above holds for any
    sequence; AgACI's regret bound too, for any bounded sequence.

    Parameters
    ----------
    estimator : regressor, default=None
        Base model (``LinearRegression()`` when None).
    method : {"enbpi", "aci", "agaci"}, default="enbpi"
        Fixed level ``alpha`` (EnbPI), the adaptive level of ACI, or the
        aggregation of ACI experts (AgACI).
    n_resamplings : int, default=30
        Number ``B`` of bootstrap models.
    block_length : int, default=1
        Block length of :func:`block_bootstrap_indices` (1: ordinary bootstrap).
    resampler : object, optional
        Instead of the block bootstrap, any object whose ``split(X)`` yields
        ``(train, out_of_bag)`` index pairs (one per model); only the
        training indices are read. When given, ``n_resamplings`` and
        ``block_length`` are not used.
    aggregation : {"mean", "median"}, default="mean"
        ``phi``, used at both levels of aggregation.
    symmetric : bool, default=True
        Symmetric interval from absolute residuals, or equal-tailed from
        signed residuals.
    alpha : float, default=0.1
        Target miscoverage level in (0, 1).
    gamma : float, default=0.005
        ACI step size, ``> 0`` (used with ``method="aci"``).
    gammas : array-like of float, default=None
        Step sizes ``> 0`` of the AgACI experts (used with ``method="agaci"``;
        None: the 29 positive values of the authors' grid, ``5e-6`` to ``0.09``).
    n_jobs : int or None, default=None
        Bootstrap models fitted in parallel (joblib semantics).
    random_state : None, int, numpy.random.Generator or RandomState
        Draws the bootstrap resamples (refused next to a ``resampler``, which
        draws its own).

    Attributes
    ----------
    estimators_ : list of regressor
        The ``B`` bootstrap models.
    train_indices_ : list of ndarray
        ``S_b``, the training rows of each model.
    oob_weights_ : ndarray of shape (n, B)
        Row ``i``: ``1 / |{b : i not in S_b}|`` on the models that did not see
        ``i``, 0 elsewhere.
    residuals_ : ndarray of shape (n,)
        Current window of signed residuals ``y - f_{-i}(x)``, oldest first.
    alpha_t_ : float
        Current working level (``alpha`` for EnbPI and AgACI).
    expert_alphas_ : ndarray of shape (K,)
        AgACI only: current working level of each expert.
    weights_path_ : list of ndarray of shape (K, 2)
        AgACI only: the lower and upper weights used for each updated row.
    bound_limit_ : float
        AgACI only: ``M``, which stands for an infinite expert bound.
    alpha_path_ : list of float
        Working level before each update row, then the current one.
    errors_ : list of bool
        Whether each updated row fell outside the interval it was given.
    n_features_in_ : int
        Number of features seen by ``fit`` (when ``X`` has a shape).

    See Also
    --------
    adaptive_conformal_inference, aggregated_adaptive_conformal_inference, aci_update,
    block_bootstrap_indices,
    CrossConformalRegressor

    Notes
    -----
    ``phi`` applied twice with ``"mean"`` is a weighted mean of the ``B``
    models, computed as one matrix product. Every output comes from the
    parameters of the last :meth:`fit` (:class:`~statlearn.base.StaleFitError`
    otherwise); :meth:`update` changes the residual window and, for ACI, the
    working level, never the models.

    References
    ----------
    Xu & Xie (2021), "Conformal prediction interval for dynamic time-series",
    ICML, PMLR 139, Algorithm 1 (EnbPI).
    Gibbs & Candes (2021), "Adaptive conformal inference under distribution
    shift", NeurIPS 34, eq. (2) and Proposition 4.1.
    Zaffran, Feron, Goude, Josse & Dieuleveut (2022), "Adaptive conformal
    predictions for time series", ICML, PMLR 162, the AgACI algorithm.

    Examples
    --------
    >>> import numpy as np
    >>> from statlearn.conformal import TimeSeriesRegressor
    >>> rng = np.random.default_rng(0)
    >>> t = np.arange(600.0)
    >>> X = np.column_stack([np.sin(t / 10), np.cos(t / 10)])
    >>> y = 2 * X[:, 0] + rng.normal(scale=0.3 + t / 600, size=600)   # growing noise
    >>> reg = TimeSeriesRegressor(n_resamplings=20, random_state=0).fit(X[:300], y[:300])
    >>> iv = reg.predict_interval_online(X[300:], y[300:])
    >>> iv.shape
    (300, 2)
    >>> aci = TimeSeriesRegressor(method="aci", gamma=0.02, n_resamplings=20,
    ...                           random_state=0).fit(X[:300], y[:300])
    >>> _ = aci.update(X[300:], y[300:])
    >>> bool(abs(np.mean(aci.errors_) - 0.1) <= (0.9 + 0.02) / (0.02 * 300))
    True
    >>> ag = TimeSeriesRegressor(method="agaci", gammas=[0.005, 0.02, 0.05], n_resamplings=20,
    ...                          random_state=0).fit(X[:300], y[:300])
    >>> _ = ag.update(X[300:], y[300:])
    >>> ag.expert_alphas_.shape, len(ag.weights_path_)
    ((3,), 300)
    """

    def __init__(self, estimator=None, *, method="enbpi", n_resamplings=30, block_length=1,
                 resampler=None, aggregation="mean", symmetric=True, alpha=0.1, gamma=0.005,
                 gammas=None, n_jobs=None, random_state=None):
        self.estimator = estimator
        self.method = method
        self.n_resamplings = n_resamplings
        self.block_length = block_length
        self.resampler = resampler
        self.aggregation = aggregation
        self.symmetric = symmetric
        self.alpha = alpha
        self.gamma = gamma
        self.gammas = gammas
        self.n_jobs = n_jobs
        self.random_state = random_state

    _parameter_constraints = {
        "estimator": [None, HasMethods("fit", "predict")],
        "method": [Options(_METHODS)],
        "n_resamplings": [Integral(1, None)],
        "block_length": [Integral(1, None)],
        "resampler": [None, HasMethods("split", description=(
            "an object whose split(X) yields (train, out-of-bag) index pairs"))],
        "aggregation": [Options(_AGGREGATIONS)],
        "symmetric": [Bool()],
        "alpha": [Level()],
        "gamma": [Real(0, None, closed="neither")],
        "gammas": [None, "array-like"],
        "n_jobs": [None, Integral()],
        "random_state": ["random_state"],
    }
    _output_free_params = ("n_jobs",)

    # ------------------------------------------------------------------ fit
    def fit(self, X, y):
        """Fit the bootstrap models and the leave-one-out residual window.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Features, rows in time order.
        y : array-like of shape (n_samples,)
            Responses.

        Returns
        -------
        self
        """
        # parameters the chosen method or resampling never reads must keep their defaults
        if self.method != "aci":
            _refuse_inactive_params(self, ("gamma",), f"with method={self.method!r} (the "
                                    "step size of method='aci'; 'agaci' takes gammas)")
        if self.method != "agaci":
            _refuse_inactive_params(self, ("gammas",), f"with method={self.method!r} (the "
                                    "grid of method='agaci')")
        if self.resampler is not None:
            _refuse_inactive_params(self, ("n_resamplings", "block_length", "random_state"),
                                    "with a resampler (its split gives the training sets; "
                                    "seed the resampler itself)")
        gammas = _check_gammas(self.gammas) if self.method == "agaci" else None
        X, y, n = fit_inputs(self, X, y, _check_target)
        if n < 2:
            raise ValueError(f"EnbPI needs at least 2 samples, got n_samples = {n}.")
        X = row_indexable(X)
        if self.resampler is None:
            if int(self.block_length) > n:
                raise ValueError(f"block_length must be in [1, n_samples = {n}], got "
                                 f"{self.block_length}.")
            train = block_bootstrap_indices(n, int(self.n_resamplings), int(self.block_length),
                                            check_rng(self.random_state))
        else:
            train = [np.asarray(tr, dtype=np.int64) for tr, _ in self.resampler.split(X)]
            if not train:
                raise ValueError("resampler.split(X) yielded no resample.")
            for tr in train:
                if tr.ndim != 1 or tr.size == 0 or tr.min() < 0 or tr.max() >= n:
                    raise ValueError("resampler must yield non-empty training indices in "
                                     f"[0, {n - 1}].")
        B = len(train)
        in_bag = np.zeros((n, B), dtype=bool)
        for b, tr in enumerate(train):
            in_bag[tr, b] = True
        n_oob = (~in_bag).sum(axis=1)
        if np.any(n_oob == 0):
            raise ValueError(
                f"{int(np.sum(n_oob == 0))} training points are in every bootstrap resample, "
                "so no model left them out; raise n_resamplings (or use a resampler that "
                "leaves every point out at least once).")
        base = self.estimator if self.estimator is not None else LinearRegression()
        self.estimators_ = Parallel(n_jobs=None if self.n_jobs is None else int(self.n_jobs))(
            delayed(_fit_one)(base, X, y, tr) for tr in train)
        self.train_indices_ = train
        self.oob_weights_ = np.where(in_bag, 0.0, 1.0 / n_oob[:, None])
        self._oob_mask_ = ~in_bag
        P = self._model_predictions(X)                       # (n, B)
        loo = self._loo(P, np.arange(n))                     # f_{-i}(x_i)
        self.residuals_ = y - loo
        self.alpha_t_ = float(self.alpha)
        self.alpha_path_ = [self.alpha_t_]
        self.errors_ = []
        if self.method == "agaci":
            self.bound_limit_ = _default_limit(
                self.residuals_, "method='agaci' sets M, which stands for an infinite bound, to")
            self._agaci_ = _AgACIState(self.alpha, gammas, self.symmetric, self.bound_limit_)
            self.expert_alphas_ = self._agaci_.levels.copy()
            self.weights_path_ = []
        return self

    # ------------------------------------------------------------ internals
    def _model_predictions(self, X):
        n = _num_samples(X)
        return np.column_stack([_check_predictions(m.predict(X), n, "estimator.predict")
                                for m in self.estimators_])

    def _loo(self, P, rows):
        """``f_{-i}(x_j)`` for training point ``rows[j]`` at prediction row ``j``."""
        if self.aggregation == "mean":
            return np.einsum("jb,jb->j", P, self.oob_weights_[rows])
        vals = np.where(self._oob_mask_[rows], P, np.nan)
        return np.nanmedian(vals, axis=1)

    def _centre(self, P):
        """``phi_i f_{-i}(x)`` at each row of the model predictions ``P`` (m, B)."""
        if self.aggregation == "mean":
            return P @ self.oob_weights_.mean(axis=0)
        m, B = P.shape
        n = self._oob_mask_.shape[0]
        out = np.empty(m)
        step = max(1, _CHUNK_VALUES // (n * B))
        for s in range(0, m, step):
            vals = np.where(self._oob_mask_[None, :, :], P[s:s + step, None, :], np.nan)
            out[s:s + step] = np.median(np.nanmedian(vals, axis=2), axis=1)
        return out

    def _check_X(self, X):
        X = float64_features(X)
        if getattr(X, "ndim", 2) == 1:
            raise ValueError("X must be 2-D, got a 1-D array: Reshape your data with "
                             "X.reshape(-1, 1) (one feature) or X.reshape(1, -1) (one row).")
        validate_data(self, X, skip_check_array=True, reset=False)
        return X

    def _bounds(self, centre, level, residuals):
        """Interval at the given working level around each centre, shape (m, 2)."""
        lo, hi = _interval(residuals, level, self.symmetric)
        return np.column_stack([centre + lo, centre + hi])

    # --------------------------------------------------------------- outputs
    def predict(self, X):
        """Ensemble point prediction ``phi_i f_{-i}(x)``, the centre of the intervals.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Features.

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        self._check_fitted()
        X = self._check_X(X)
        return self._centre(self._model_predictions(X))

    def predict_interval(self, X):
        """Intervals from the current residual window and working level.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Features.

        Returns
        -------
        ndarray of shape (n_samples, 2)
            Lower and upper bounds (``(+inf, -inf)`` for an empty ACI set).
        """
        self._check_fitted()
        centre = self.predict(X)
        if self.method == "agaci":
            b = self._agaci_.predict(self.residuals_)[-1]
            return np.column_stack([centre + b[0], centre + b[1]])
        return self._bounds(centre, self.alpha_t_, self.residuals_)

    def predict_interval_online(self, X, y, batch_size=1):
        """Intervals for a stretch of new points, updating after each batch.

        The rows are taken in order, ``batch_size`` at a time: each batch
        gets its intervals from the current state, then :meth:`update` is
        applied to it (Algorithm 1 of Xu & Xie with batch size ``s``). For
        ``method="aci"`` and ``"agaci"`` the levels (and AgACI's weights) move
        after every row, so ``batch_size`` must be 1.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Features, in time order.
        y : array-like of shape (n_samples,)
            Responses, revealed after each batch's intervals.
        batch_size : int, default=1
            ``s``, the number of rows between updates.

        Returns
        -------
        ndarray of shape (n_samples, 2)
        """
        from ...utils import check_int

        self._check_fitted()
        s = check_int(batch_size, "batch_size", low=1)
        if self.method in ("aci", "agaci") and s != 1:
            raise ValueError(f"batch_size must be 1 with method={self.method!r}, got {s}.")
        return self._online(X, y, s)

    def update(self, X, y):
        """Slide the residual window over newly observed points (and move ACI's level).

        EnbPI: the residuals ``y - f(x)`` of the new rows join the window and
        the same number of oldest residuals leave it (when more rows than the
        window length arrive, the window is the latest ``n`` of them). ACI:
        the rows are taken one at a time, each first scored against its
        interval at ``alpha_t`` (appended to ``errors_``), then the level is
        updated and the window slides. AgACI: likewise, row by row, with
        every expert's level and both sets of BOA weights.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Features of the new points, in time order.
        y : array-like of shape (n_samples,)
            Their responses.

        Returns
        -------
        self
        """
        self._check_fitted()
        self._online(X, y, 1 if self.method in ("aci", "agaci") else max(1, _num_samples(X)))
        return self

    def _online(self, X, y, s):
        X = self._check_X(X)
        y = _check_target(y)
        m = _num_samples(X)
        same_rows(m, y)
        centre = self._centre(self._model_predictions(X))
        n = self.residuals_.size
        buf = np.concatenate([self.residuals_, y - centre])
        out = np.empty((m, 2))
        level, alpha, gamma = self.alpha_t_, float(self.alpha), float(self.gamma)
        errors, path = [], []
        if self.method == "agaci":
            return self._online_agaci(buf, centre, y, n)
        for start in range(0, m, s):
            stop = min(start + s, m)
            window = buf[start:start + n]
            iv = self._bounds(centre[start:stop], level, window)
            out[start:stop] = iv
            miss = ~((iv[:, 0] <= y[start:stop]) & (y[start:stop] <= iv[:, 1]))
            errors.extend(bool(e) for e in miss)
            path.extend([level] * (stop - start))
            if self.method == "aci":
                level = _step(level, float(miss[0]), alpha, gamma)
        self.residuals_ = buf[-n:]
        self.alpha_t_ = float(level)
        self.alpha_path_ = self.alpha_path_[:-1] + path + [self.alpha_t_]
        self.errors_ = self.errors_ + errors
        return out

    def _online_agaci(self, buf, centre, y, n):
        m = centre.size
        out = np.empty((m, 2))
        weights, errors = [], []
        for t in range(m):
            rec = self._agaci_.step(buf[t:t + n], buf[n + t])
            out[t] = centre[t] + rec[4]
            weights.append(rec[2])
            errors.append(not bool(out[t, 0] <= y[t] <= out[t, 1]))
        self.residuals_ = buf[-n:]
        self.alpha_path_ = self.alpha_path_[:-1] + [self.alpha_t_] * m + [self.alpha_t_]
        self.errors_ = self.errors_ + errors
        self.weights_path_ = self.weights_path_ + weights
        self.expert_alphas_ = self._agaci_.levels.copy()
        return out

    @classmethod
    def _statlearn_test_instances(cls):
        return [cls(n_resamplings=15, random_state=0),
                cls(method="aci", aggregation="median", symmetric=False, n_resamplings=15,
                    block_length=2, random_state=0),
                cls(method="agaci", gammas=[0.01, 0.05], n_resamplings=15, random_state=0)]


"""The aggregated HTE learner (Q-aggregation; pairwise heads) and DR-/R-loss scorers."""

from __future__ import annotations

import functools
import itertools
import numbers
import warnings

import numpy as np
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.utils.validation import _check_feature_names

from ..base import (
    FitStateMixin,
    HasMethods,
    Integral,
    Options,
    Real,
    TargetCheckedScoreMixin,
    _freeze,
    _frozen_equal,
    _refuse_inactive_params,
)
from ..utils import check_array, check_rng
from ..utils._validation import _scalar, user_frame
from ._aggregation import loss_targets, q_aggregation_weights
from ._evaluator import (
    _CANDIDATE_PARAMS,
    _fit_signature_failures,
    candidate_predictions,
    validate_data,
)
from ._nuisance import (
    BalancedNuisance,
    Representation,
    fit_plugin,
    sklearn_seed,
    stratified_folds,
)
from ._scores import aipw, dr_loss, lean_vec, mean_square_diff, r_loss, r_loss_lean

__all__ = ["DRScorer", "RScorer", "RelativeErrorHTE"]


def _first_column(X):
    return np.asarray(X)[:, 0]


def _zeros(X):
    return np.zeros(np.asarray(X).shape[0])


class _Named:
    """A callable whose repr is its name, so test ids do not depend on memory addresses."""

    def __init__(self, fn):
        self.fn = fn

    def __call__(self, X):
        return self.fn(X)

    def __repr__(self):
        return self.fn.__name__


_METHODS = ("q-aggregation", "pairwise")
_LOSSES = ("dr", "r")
#: one-sided level of the held-out check of ``method="pairwise"``
_HOLDOUT_Z = 1.6448536269514722  # norm.ppf(0.95)


def _is_model(candidate):
    return hasattr(candidate, "effect") or hasattr(candidate, "predict") or callable(candidate)


class RelativeErrorHTE(FitStateMixin, TargetCheckedScoreMixin, RegressorMixin, BaseEstimator):
    """CATE learner that aggregates candidate CATE estimators by a cross-fitted loss.

    ``method="q-aggregation"`` (default) fits cross-fitted nuisances on the
    sample given to ``fit``, forms the DR pseudo-outcomes ``psi`` (or the
    R-loss targets), and predicts ``sum_k w_k tau_k(x)`` with the weights ``w``
    on the simplex that minimise the Q-aggregation criterion (Rigollet, 2012;
    Dai, Rigollet & Zhang, 2012; Lecue & Rigollet, 2014)

    ``Q(w) = (1 - nu) R(sum_k w_k tau_k) + nu sum_k w_k R(tau_k)``,

    with ``R`` the empirical DR-loss ``mean((psi - f)^2)`` (``loss="dr"``) or
    R-loss (``loss="r"``). Oracle inequality: with bounded pseudo-outcomes and
    candidates trained on other data, with probability ``1 - delta``,
    ``MSE(aggregate) <= min_k MSE(tau_k) + C (log K + log(1/delta)) / n + Rem``
    where ``Rem`` is the second-order (product) error of the nuisances that
    enters every DR-loss comparison (R-loss: the same for the MSE weighted by
    ``e (1 - e)``). In-sample, ``R(aggregate) <= min_k R(tau_k)`` always holds.
    ``nu = 0`` is convex stacking, ``nu = 1`` selects the candidate with the
    smallest loss.

    ``method="pairwise"`` is our reconstruction of the learner of Guo et al.
    (2025, section 5): for every unordered pair ``(k, l)`` of candidates the
    balanced nuisance fit of :class:`RelativeErrorEvaluator` (shared
    representation, balanced propensity head, closed-form signed outcome heads
    for the weight ``w = tau_k - tau_l``) gives ``mu1_kl - mu0_kl``, and the
    learner predicts their average. Measured behaviour: its signed heads are
    unstable, and with candidates of test MSE 0.25 to 1 its error was 4.7 to
    19.7 (see the user guide); ``fit`` therefore refits it on ``cross_fit``
    folds and warns when its held-out DR-loss is significantly (one-sided 5%)
    above the best candidate's.

    Parameters
    ----------
    candidates : list or dict of candidates
        At least two fitted CATE estimators (``effect``/``predict``) or
        callables of ``X``, trained on data *not* given to ``fit`` (they
        receive ``X`` as given: a DataFrame stays a DataFrame). With
        ``method="pairwise"`` arrays of predictions at the training ``X`` are
        accepted too (``predict`` never needs the candidates there).
    method : {"q-aggregation", "pairwise"}, default="q-aggregation"
    loss : {"dr", "r"}, default="dr"
        Loss aggregated by ``"q-aggregation"``: the DR-loss (its excess is the
        excess MSE) or the R-loss of Nie & Wager (excess MSE weighted by
        ``e (1 - e)``; no inverse propensities, so more robust in small samples
        with poor overlap, see the user guide).
    nu : float in [0, 1], default=0.5
        Q-aggregation mixing weight.
    propensity_model, outcome_model : estimator, default=None
        Nuisance models of the pseudo-outcomes (``"q-aggregation"`` and the
        held-out check of ``"pairwise"``): ``LogisticRegression()`` and
        ``LinearRegression()`` (per arm) by default.
    cross_fit : int, default=5
        Folds (stratified on the treatment) of the cross-fitted nuisances and
        of the held-out check of ``"pairwise"``.
    representation : {"linear", "quadratic", "mlp"} or transformer, default="linear"
        Shared feature map of ``"pairwise"`` (an intercept is added).
    lambda_1, lambda_2 : float, default=1.0, 0.1
        Cross-entropy and balance-penalty weights (``"pairwise"``).
    huber_c, huber_rho : float, default=1.0, 1.0
        Constants of the Huber balance penalty (``"pairwise"``).
    clip : float, default=0.01
        Propensity clipping (pseudo-outcomes and head weights).
    max_pairs : int or None, default=None
        ``"pairwise"``: use at most this many pairs, drawn at random.
    random_state : None, int, RandomState or Generator
        Seeds the folds, the representation and the pair subsample.

    Attributes
    ----------
    weights_ : ndarray of shape (K,)
        Aggregation weights (``"q-aggregation"``), in the order of the
        candidates.
    candidate_names_ : list of str
        Dict keys, or ``"0"``, ``"1"``, ... for a list.
    candidate_losses_ : ndarray of shape (K,)
        Cross-fitted loss of each candidate on the fitted sample.
    loss_ : float
        The same loss of the aggregate (never above ``candidate_losses_.min()``).
    mu0_, mu1_, propensity_ : ndarray of shape (n,)
        Cross-fitted nuisances (``"q-aggregation"``; propensity clipped).
    coef_ : ndarray of shape (m,)
        ``"pairwise"``: average of ``beta1 - beta0`` over the pairs.
    pair_coefs_ : ndarray of shape (n_pairs, m)
    pairs_ : list of tuple of int
    representation_ : fitted representation
    holdout_excess_, holdout_excess_se_ : float
        ``"pairwise"``: held-out DR-loss of the pairwise learner minus that of
        the best candidate, and its standard error.
    n_features_in_ : int

    Warns
    -----
    UserWarning
        ``"pairwise"``: when ``holdout_excess_ > 1.645 holdout_excess_se_``.

    Notes
    -----
    Give ``fit`` a sample the candidates were not trained on (for instance
    the second half of a training set whose first half trained them): on
    their own training data an overfitted candidate has a small loss and is
    over-weighted. ``fit`` takes ``(X, treatment, y)``; scikit-learn's
    generic checks that call ``fit(X, y)`` do not apply.

    Examples
    --------
    >>> import numpy as np
    >>> from statlearn.datasets import make_hte_reference
    >>> from statlearn.hte import RelativeErrorHTE
    >>> d = make_hte_reference(2000, random_state=0)
    >>> cands = {"const": lambda X: np.ones(len(X)), "half": lambda X: 1 + 0.5 * X[:, 0],
    ...          "noisy": lambda X: 1 + X[:, 0] + 0.5 * X[:, 2]}
    >>> est = RelativeErrorHTE(cands, random_state=0).fit(d.X, d.treatment, d.y)
    >>> est.predict(d.X[:3]).shape
    (3,)
    >>> bool(est.weights_[0] < 0.1)  # the constant candidate (MSE 1) gets little weight
    True
    """

    def __init__(self, candidates=None, method="q-aggregation", loss="dr", nu=0.5,
                 propensity_model=None, outcome_model=None, cross_fit=5,
                 representation="linear", lambda_1=1.0, lambda_2=0.1, huber_c=1.0,
                 huber_rho=1.0, clip=0.01, max_pairs=None, random_state=None):
        self.candidates = candidates
        self.method = method
        self.loss = loss
        self.nu = nu
        self.propensity_model = propensity_model
        self.outcome_model = outcome_model
        self.cross_fit = cross_fit
        self.representation = representation
        self.lambda_1 = lambda_1
        self.lambda_2 = lambda_2
        self.huber_c = huber_c
        self.huber_rho = huber_rho
        self.clip = clip
        self.max_pairs = max_pairs
        self.random_state = random_state

    _parameter_constraints = {
        **_CANDIDATE_PARAMS,
        "candidates": [list, tuple, dict],  # at least two, checked in fit
        "method": [Options(list(_METHODS))],
        "loss": [Options(list(_LOSSES))],
        "nu": [Real(0, 1)],
        "propensity_model": [None, HasMethods("fit", "predict_proba")],
        "outcome_model": [None, HasMethods("fit", "predict")],
        "cross_fit": [Integral(2)],
        "max_pairs": [None, Integral(1)],
    }

    @classmethod
    def _statlearn_test_instances(cls):
        return [cls(candidates=[_Named(_first_column), _Named(_zeros)])]

    @classmethod
    def _statlearn_expected_failed_checks(cls):
        out = _fit_signature_failures()
        for name in ("check_regressors_train", "check_regressor_data_not_an_array",
                     "check_regressors_no_decision_function", "check_supervised_y_2d",
                     "check_regressors_int", "check_supervised_y_no_nan",
                     "check_regressor_multioutput", "check_regressors_train(readonly_memmap=True)",
                     "check_regressors_train(readonly_memmap=True,X_dtype=float32)",
                     "check_requires_y_none",
                     "check_sample_weight_equivalence_on_dense_data",
                     "check_fit_non_negative"):
            out[name] = out["check_fit_idempotent"]
        return out

    def _check_params(self):
        cands = self.candidates
        names = [str(k) for k in cands] if isinstance(cands, dict) else \
            [str(i) for i in range(len(cands))]
        if isinstance(cands, dict):
            cands = list(cands.values())
        if len(cands) < 2:
            raise ValueError("candidates must be a list or dict of at least two candidates, "
                             f"got {len(cands)}.")
        return list(cands), names

    def _nuisance_models(self):
        from sklearn.linear_model import LinearRegression, LogisticRegression

        ps = self.propensity_model if self.propensity_model is not None else LogisticRegression()
        om = self.outcome_model if self.outcome_model is not None else LinearRegression()
        return ps, om

    def _targets(self, X, a, y, seed, kind):
        mu0, mu1, e_raw = fit_plugin(X, a, y, *self._nuisance_models(), int(self.cross_fit),
                                     seed)
        clip = float(self.clip)
        e = np.clip(e_raw, clip, 1 - clip)
        v, z = loss_targets(kind, a, y, mu0, mu1, e)
        return v, z, (mu0, mu1, e)

    def fit(self, X, treatment, y):
        """Aggregate the candidates on ``(X, treatment, y)`` (held out from their training).

        Parameters
        ----------
        X : array-like of shape (n, p)
        treatment : array-like of shape (n,)
            Binary treatment (0/1).
        y : array-like of shape (n,)

        Returns
        -------
        self : RelativeErrorHTE
        """
        cands, names = self._check_params()
        if self.method == "pairwise":
            _refuse_inactive_params(self, ("loss", "nu"), "with method='pairwise' (they shape "
                                    "the q-aggregation only)")
        else:
            _refuse_inactive_params(
                self, ("representation", "lambda_1", "lambda_2", "huber_c", "huber_rho",
                       "max_pairs"),
                f"with method={self.method!r} (they shape the pairwise heads only)")
        if self.method == "q-aggregation":
            for i, c in enumerate(cands):
                if not _is_model(c) and not isinstance(c, str | bytes | numbers.Number) \
                        and c is not None:
                    raise TypeError(
                        f"candidates[{i}] is an array of predictions; method='q-aggregation' "
                        "predicts sum_k w_k tau_k(X) at new X, so every candidate must be a "
                        "fitted model (effect/predict) or a callable of X (or use "
                        "method='pairwise', which accepts arrays at the training X).")
        X_in = X
        X, a, y = validate_data(X, treatment, y, stacklevel=4)
        _check_feature_names(self, X_in, reset=True)
        self.n_features_in_ = X.shape[1]
        self.candidate_names_ = names
        Xu = user_frame(X_in, X)
        T = np.column_stack([candidate_predictions(c, X, f"candidates[{i}]", Xu)
                             for i, c in enumerate(cands)])
        if self.method == "pairwise":
            return self._fit_pairwise(X, a, y, T)
        seed = sklearn_seed(self.random_state)
        v, z, (mu0, mu1, e) = self._targets(X, a, y, seed, self.loss)
        w, risks = q_aggregation_weights(T, v, z, float(self.nu))
        self.weights_ = w
        self.candidate_losses_ = risks
        self.loss_ = float(np.mean(v * (z - T @ w) ** 2))
        self.mu0_, self.mu1_, self.propensity_ = mu0, mu1, e
        return self

    # ---------------------------------------------------------------- pairwise
    def _pair_coef(self, X, a, y, T, pairs, rep, lam, seed):
        coefs = []
        for k, l in pairs:
            model = BalancedNuisance(self.representation, lam, float(self.huber_c),
                                     float(self.huber_rho), float(self.clip), "signed",
                                     seed).fit(X, a, y, T[:, k] - T[:, l], rep=rep)
            coefs.append(model.beta1_ - model.beta0_)
        return np.asarray(coefs)

    def _fit_pairwise(self, X, a, y, T):
        lam = float(self.lambda_2) / float(self.lambda_1)
        pairs = [p for p in itertools.combinations(range(T.shape[1]), 2)
                 if not np.array_equal(T[:, p[0]], T[:, p[1]])]
        if not pairs:
            raise ValueError("all candidates give identical predictions: no pair to learn from.")
        rs = _scalar(self.random_state)
        if isinstance(rs, numbers.Integral):  # NumPy ints seed as the int they hold
            rs = int(rs)
        if self.max_pairs is not None and len(pairs) > self.max_pairs:
            rng = check_rng(rs + 1 if isinstance(rs, int) else rs)
            idx = np.sort(rng.choice(len(pairs), int(self.max_pairs), replace=False))
            pairs = [pairs[i] for i in idx]
        seed = sklearn_seed(rs)
        rep = Representation(self.representation, seed).fit(X, a, y)
        self.representation_ = rep
        self.pairs_ = pairs
        self.pair_coefs_ = self._pair_coef(X, a, y, T, pairs, rep, lam, seed)
        self.coef_ = self.pair_coefs_.mean(0)
        self._holdout_check(X, a, y, T, pairs, lam, seed)
        return self

    def _holdout_check(self, X, a, y, T, pairs, lam, seed):
        """Held-out DR-loss of the pairwise learner against the best candidate's; warn."""
        _, psi, _ = self._targets(X, a, y, seed, "dr")
        pred = np.empty(a.size)
        for train, test in stratified_folds(a, int(self.cross_fit), seed):
            Tt = T[train]
            keep = [p for p in pairs if not np.array_equal(Tt[:, p[0]], Tt[:, p[1]])]
            rep = Representation(self.representation, seed).fit(X[train], a[train], y[train])
            coef = self._pair_coef(X[train], a[train], y[train], Tt, keep or pairs, rep, lam,
                                   seed).mean(0)
            pred[test] = rep.transform(X[test]) @ coef
        L = (T - psi[:, None]) ** 2
        best = int(np.argmin(L.mean(0)))
        diff = (pred - psi) ** 2 - L[:, best]
        self.candidate_losses_ = L.mean(0)
        self.loss_ = float(np.mean((pred - psi) ** 2))
        self.holdout_excess_ = float(diff.mean())
        self.holdout_excess_se_ = float(diff.std() / np.sqrt(diff.size))
        if self.holdout_excess_ > _HOLDOUT_Z * self.holdout_excess_se_:
            warnings.warn(
                "the pairwise learner is less accurate than its best candidate "
                f"(candidates[{best}], {self.candidate_names_[best]!r}) on held-out folds: "
                f"cross-fitted DR-loss {self.loss_:.4g} against {L[:, best].mean():.4g}, an "
                f"excess MSE of {self.holdout_excess_:.4g} (se {self.holdout_excess_se_:.3g}); "
                "its signed balanced heads are unstable here. Use method='q-aggregation' "
                "(the default) or the best candidate.", UserWarning, stacklevel=5)

    # ---------------------------------------------------------------- outputs
    def predict(self, X):
        """Predicted CATE at ``X``, shape (n,).

        ``"q-aggregation"``: ``sum_k w_k tau_k(X)`` (candidates with weight 0
        are not called); ``"pairwise"``: the averaged head contrast.
        """
        self._check_fitted()
        X_in = X
        # columns renamed or reordered since fit are refused (the heads and the
        # representation read X by position)
        _check_feature_names(self, X_in, reset=False)
        X = check_array(X, "X", dtype=np.float64)
        if X.shape[1] != self.n_features_in_:
            raise ValueError(f"X has {X.shape[1]} features, but the model was fitted with "
                             f"{self.n_features_in_}.")
        if self.method == "pairwise":
            return self.representation_.transform(X) @ self.coef_
        cands, _ = self._check_params()
        Xu = user_frame(X_in, X)
        out = np.zeros(X.shape[0])
        for i, (c, w) in enumerate(zip(cands, self.weights_, strict=True)):
            if w > 0:
                out += w * candidate_predictions(c, X, f"candidates[{i}]", Xu)
        return out

    effect = predict


@functools.cache
def _recorded_names(cls):
    """The parameters a fit of ``cls`` records (``get_params(deep=False)`` less free ones)."""
    free = set(cls._output_free_params)
    return tuple(n for n in cls._get_param_names() if n not in free)


def _params_as_recorded(obj, recorded):
    """True when the base layer's stale-fit check would pass, read without ``get_params``.

    Only for parameters that are not estimators (no nested ``name__sub`` entries);
    False sends the caller to the full check, which also writes the error.
    """
    names = _recorded_names(type(obj))
    if len(recorded) != len(names):
        return False
    for name in names:
        value = getattr(obj, name)
        if hasattr(value, "get_params") and not isinstance(value, type):
            return False
        frozen = recorded.get(name)
        if frozen is None or not _frozen_equal(frozen, _freeze(value)):
            return False
    return True


class _ScorerBase(FitStateMixin, BaseEstimator):
    """Shared nuisance fit and scoring of the DR- and R-loss scorers."""

    _parameter_constraints = {
        "propensity_model": [None, HasMethods("fit", "predict_proba")],
        "outcome_model": [None, HasMethods("fit", "predict")],
        "cross_fit": [None, Integral(2)],
        "clip": [Real(0, 0.5, closed="neither")],
        "random_state": ["random_state"],
    }

    def __init__(self, propensity_model=None, outcome_model=None, cross_fit=5, clip=0.01,
                 random_state=None):
        self.propensity_model = propensity_model
        self.outcome_model = outcome_model
        self.cross_fit = cross_fit
        self.clip = clip
        self.random_state = random_state

    @classmethod
    def _statlearn_expected_failed_checks(cls):
        return _fit_signature_failures()

    def _models(self):
        from sklearn.linear_model import LinearRegression, LogisticRegression

        ps = self.propensity_model if self.propensity_model is not None else LogisticRegression()
        om = self.outcome_model if self.outcome_model is not None else LinearRegression()
        return ps, om

    def _fit_common(self, X, treatment, y):
        X_in = X
        X, a, y = validate_data(X, treatment, y, stacklevel=5)  # _fit_common, fit, wrapper
        _check_feature_names(self, X_in, reset=True)
        ps, om = self._models()
        mu0, mu1, e = fit_plugin(X, a, y, ps, om, self.cross_fit,
                                 sklearn_seed(self.random_state))
        self.n_features_in_ = X.shape[1]
        self.X_, self.treatment_, self.y_ = X, a, y
        self._X_user = user_frame(X_in, X)
        self.mu0_, self.mu1_ = mu0, mu1
        clip = float(self.clip)
        self.propensity_ = np.clip(e, clip, 1 - clip)
        return X, a, y

    def _check_fitted(self, method=None):
        # the base layer's check; its get_params costs more than a loss at n = 1e5
        recorded = self.__dict__.get("_fit_params_")
        if recorded is None or not _params_as_recorded(self, recorded):
            super()._check_fitted(method)

    def _preds(self, candidate):
        return candidate_predictions(candidate, self.X_, "candidate", self._X_user)

    def _lean_preds(self, candidate):
        """Predictions given as a plain 1-D numeric array of the right length, not scanned
        (a loss that is not finite sends the caller to :meth:`_preds`), else None."""
        t = lean_vec(candidate)
        return t if t is not None and t.size == self.X_.shape[0] else None

    def score(self, candidate):
        """Minus the loss of ``candidate`` (higher is better), as scikit-learn scores are.

        Parameters
        ----------
        candidate : array-like of shape (n,), fitted estimator or callable
            Predictions at the fitted ``X``, or a CATE model / function of ``X``
            (it receives ``X`` as given to ``fit``).

        Returns
        -------
        float
        """
        self._check_fitted()
        return -self._loss(candidate)

    def best(self, candidates):
        """Name (dict key) or index of the candidate with the smallest loss."""
        self._check_fitted()
        items = candidates.items() if isinstance(candidates, dict) else enumerate(candidates)
        losses = {k: self._loss(c) for k, c in items}
        return min(losses, key=losses.get)

    def __call__(self, estimator, X, y=None):
        """Scorer signature ``scorer(estimator, X, y)``; ``X`` must be the fitted sample."""
        self._check_fitted("scoring")
        X = check_array(X, "X", dtype=np.float64)
        if X.shape != self.X_.shape or not np.array_equal(X, self.X_):
            raise ValueError("X must be the sample the scorer was fitted on.")
        return self.score(estimator)


class DRScorer(_ScorerBase):
    """DR-loss ``mean((psi - tau_hat)^2)`` with cross-fitted AIPW pseudo-outcomes.

    Differences of DR-losses are the relative-error estimates of
    :class:`RelativeErrorEvaluator` (with the same nuisances). For
    ``GridSearchCV``-style selection of a DR-learner, use
    ``pseudo_outcomes_`` as the target with ``scoring="neg_mean_squared_error"``.

    Parameters
    ----------
    propensity_model, outcome_model : estimator, default=None
        ``LogisticRegression()`` and ``LinearRegression()`` (per arm) by default.
    cross_fit : int or None, default=5
        Number of folds (stratified on the treatment); None fits the
        nuisances on the whole sample.
    clip : float, default=0.01
        Propensities are clipped to ``[clip, 1 - clip]``.
    random_state : None, int, RandomState or Generator
        Seeds the fold split.

    Attributes
    ----------
    pseudo_outcomes_ : ndarray of shape (n,)
        AIPW pseudo-outcomes at the fitted units.
    mu0_, mu1_, propensity_ : ndarray of shape (n,)
        Cross-fitted nuisances (propensity clipped).
    n_features_in_ : int

    Notes
    -----
    ``fit`` takes ``(X, treatment, y)``; :meth:`loss`, :meth:`score` and
    :meth:`best` take candidates (predictions at the fitted ``X``, CATE
    models or functions), and calling the scorer as ``scorer(estimator, X)``
    gives :meth:`score` on the fitted sample. Changing a parameter after
    ``fit`` makes every score raise :class:`~statlearn.base.StaleFitError`.

    Examples
    --------
    >>> from statlearn.datasets import make_hte_reference
    >>> from statlearn.hte import DRScorer
    >>> d = make_hte_reference(2000, random_state=0)
    >>> sc = DRScorer(random_state=0).fit(d.X, d.treatment, d.y)
    >>> sc.best(d.candidates) in ("half", "noisy")
    True
    """

    def fit(self, X, treatment, y):
        """Fit the nuisances and store the pseudo-outcomes ``pseudo_outcomes_``.

        Parameters
        ----------
        X : array-like of shape (n, p)
        treatment : array-like of shape (n,)
            Binary treatment (0/1).
        y : array-like of shape (n,)

        Returns
        -------
        self : DRScorer
        """
        X, a, y = self._fit_common(X, treatment, y)
        self.pseudo_outcomes_ = aipw(a, y, self.mu0_, self.mu1_, self.propensity_)
        return self

    def loss(self, candidate):
        """DR-loss of a candidate (predictions at the fitted X, estimator or callable)."""
        self._check_fitted()
        return self._loss(candidate)

    def _loss(self, candidate):
        t = self._lean_preds(candidate)
        if t is not None:
            with np.errstate(all="ignore"):  # warnings, if any, come from the full path
                value = mean_square_diff(self.pseudo_outcomes_, t)
            if np.isfinite(value):  # then t is finite too
                return value
        return dr_loss(self._preds(candidate), self.pseudo_outcomes_)


class RScorer(_ScorerBase):
    """R-loss ``mean(((Y - m) - (A - e) tau_hat)^2)`` (Nie & Wager), cross-fitted nuisances.

    ``m = e mu1 + (1 - e) mu0`` from the per-arm outcome fits. Differences
    of R-losses estimate an MSE difference weighted by ``e (1 - e)``, not
    the relative error.

    Parameters
    ----------
    propensity_model, outcome_model : estimator, default=None
        ``LogisticRegression()`` and ``LinearRegression()`` (per arm) by default.
    cross_fit : int or None, default=5
        Number of folds (stratified on the treatment); None fits the
        nuisances on the whole sample.
    clip : float, default=0.01
        Propensities are clipped to ``[clip, 1 - clip]``.
    random_state : None, int, RandomState or Generator
        Seeds the fold split.

    Attributes
    ----------
    m_ : ndarray of shape (n,)
        ``E[Y | X]`` at the fitted units.
    mu0_, mu1_, propensity_ : ndarray of shape (n,)
        Cross-fitted nuisances (propensity clipped).
    n_features_in_ : int

    Examples
    --------
    >>> from statlearn.datasets import make_hte_reference
    >>> from statlearn.hte import RScorer
    >>> d = make_hte_reference(2000, random_state=0)
    >>> sc = RScorer(random_state=0).fit(d.X, d.treatment, d.y)
    >>> sc.loss(d.candidates["const"]) > sc.loss(d.candidates["half"])
    True
    """

    def fit(self, X, treatment, y):
        """Fit the nuisances (``m_``, ``propensity_``).

        Parameters
        ----------
        X : array-like of shape (n, p)
        treatment : array-like of shape (n,)
            Binary treatment (0/1).
        y : array-like of shape (n,)

        Returns
        -------
        self : RScorer
        """
        self._fit_common(X, treatment, y)
        e = self.propensity_
        self.m_ = e * self.mu1_ + (1 - e) * self.mu0_
        # the candidate-free parts of the R-loss, formed once
        self._resid, self._a_minus_e = self.y_ - self.m_, self.treatment_ - e
        return self

    def loss(self, candidate):
        """R-loss of a candidate (predictions at the fitted X, estimator or callable)."""
        self._check_fitted()
        return self._loss(candidate)

    def _loss(self, candidate):
        t = self._lean_preds(candidate)
        if t is not None:
            # A - e is nonzero (e is clipped inside (0, 1)): a finite loss means a finite t
            with np.errstate(all="ignore"):
                value = r_loss_lean(self._resid, self._a_minus_e, t)
            if np.isfinite(value):
                return value
        return r_loss(self._preds(candidate), self.treatment_, self.y_, self.m_, self.propensity_)




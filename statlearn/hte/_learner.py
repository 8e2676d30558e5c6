"""The aggregated HTE learner of Guo et al. (2025) and DR-/R-loss scorers."""

from __future__ import annotations

import itertools
import numbers

import numpy as np
from sklearn.base import BaseEstimator, RegressorMixin

from ..base import FitStateMixin, HasMethods, Integral, Real
from ..utils import check_array, check_rng
from ..utils._validation import _scalar
from ._evaluator import (
    _CANDIDATE_PARAMS,
    _fit_signature_failures,
    candidate_predictions,
    user_X,
    validate_data,
)
from ._nuisance import BalancedNuisance, Representation, fit_plugin, sklearn_seed
from ._scores import aipw, dr_loss, r_loss

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


class RelativeErrorHTE(FitStateMixin, RegressorMixin, BaseEstimator):
    """CATE learner that averages the balanced outcome-head contrasts over candidate pairs.

    For every unordered pair ``(k, l)`` of candidate CATE estimators the
    balanced nuisance fit of :class:`RelativeErrorEvaluator` (shared
    representation, balanced propensity head, closed-form signed outcome
    heads for the weight ``w = tau_k - tau_l``) gives
    ``tau_check_kl(x) = mu1_kl(x) - mu0_kl(x)``; the learner predicts their
    average ``tau_tilde(x) = mean_{k<l} tau_check_kl(x)`` (Guo et al., 2025,
    section 5). The representation is fitted once and shared by all pairs.
    Pairs with identical predictions carry no information and are skipped.

    Parameters
    ----------
    candidates : list or dict of candidates
        At least two fitted CATE estimators (``effect``/``predict``) or
        callables of ``X`` (they receive ``X`` as given to ``fit``: a DataFrame
        stays a DataFrame); arrays of predictions at the training ``X`` are
        accepted too (``predict`` never needs the candidates).
    representation : {"linear", "quadratic", "mlp"} or transformer, default="linear"
        Shared feature map (an intercept is added).
    lambda_1, lambda_2 : float, default=1.0, 0.1
        Cross-entropy and balance-penalty weights.
    huber_c, huber_rho : float, default=1.0, 1.0
        Constants of the Huber balance penalty.
    clip : float, default=0.01
        Propensity clipping used in the head weights.
    max_pairs : int or None, default=None
        Use at most this many pairs, drawn at random (cost grows as ``K^2``).
    random_state : None, int, RandomState or Generator
        Seeds the representation and the pair subsample.

    Attributes
    ----------
    coef_ : ndarray of shape (m,)
        Average of ``beta1 - beta0`` over the pairs, on the representation.
    pair_coefs_ : ndarray of shape (n_pairs, m)
    pairs_ : list of tuple of int
    representation_ : fitted representation
    n_features_in_ : int

    Notes
    -----
    ``fit`` takes ``(X, treatment, y)``; scikit-learn's generic checks that
    call ``fit(X, y)`` do not apply.

    Examples
    --------
    >>> from statlearn.datasets import make_hte_reference
    >>> from statlearn.hte import RelativeErrorHTE
    >>> d = make_hte_reference(2000, random_state=0)
    >>> est = RelativeErrorHTE(list(d.candidates.values())).fit(d.X, d.treatment, d.y)
    >>> est.predict(d.X[:3]).shape
    (3,)
    """

    def __init__(self, candidates=None, representation="linear", lambda_1=1.0, lambda_2=0.1,
                 huber_c=1.0, huber_rho=1.0, clip=0.01, max_pairs=None, random_state=None):
        self.candidates = candidates
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
        if isinstance(cands, dict):
            cands = list(cands.values())
        if len(cands) < 2:
            raise ValueError("candidates must be a list or dict of at least two candidates, "
                             f"got {len(cands)}.")
        return float(self.lambda_2) / float(self.lambda_1), list(cands)

    def fit(self, X, treatment, y):
        """Fit the shared representation and the balanced heads of every pair.

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
        lam, cands = self._check_params()
        X_in = X
        X, a, y = validate_data(X, treatment, y, stacklevel=4)
        self.n_features_in_ = X.shape[1]
        Xu = user_X(X_in, X)
        T = np.column_stack([candidate_predictions(c, X, f"candidates[{i}]", Xu)
                             for i, c in enumerate(cands)])
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
        coefs = []
        for k, l in pairs:
            model = BalancedNuisance(self.representation, lam, float(self.huber_c),
                                     float(self.huber_rho), float(self.clip), "signed",
                                     seed).fit(X, a, y, T[:, k] - T[:, l], rep=rep)
            coefs.append(model.beta1_ - model.beta0_)
        self.representation_ = rep
        self.pairs_ = pairs
        self.pair_coefs_ = np.asarray(coefs)
        self.coef_ = self.pair_coefs_.mean(0)
        return self

    def predict(self, X):
        """Predicted CATE ``tau_tilde(X)``, shape (n,)."""
        self._check_fitted()
        X = check_array(X, "X", dtype=np.float64)
        if X.shape[1] != self.n_features_in_:
            raise ValueError(f"X has {X.shape[1]} features, but the model was fitted with "
                             f"{self.n_features_in_}.")
        return self.representation_.transform(X) @ self.coef_

    effect = predict


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
        ps, om = self._models()
        mu0, mu1, e = fit_plugin(X, a, y, ps, om, self.cross_fit,
                                 sklearn_seed(self.random_state))
        self.n_features_in_ = X.shape[1]
        self.X_, self.treatment_, self.y_ = X, a, y
        self._X_user = user_X(X_in, X)
        self.mu0_, self.mu1_ = mu0, mu1
        clip = float(self.clip)
        self.propensity_ = np.clip(e, clip, 1 - clip)
        return X, a, y

    def _preds(self, candidate):
        return candidate_predictions(candidate, self.X_, "candidate", self._X_user)

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
        return -self.loss(candidate)

    def best(self, candidates):
        """Name (dict key) or index of the candidate with the smallest loss."""
        self._check_fitted()
        items = candidates.items() if isinstance(candidates, dict) else enumerate(candidates)
        losses = {k: self.loss(c) for k, c in items}
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
        return self

    def loss(self, candidate):
        """R-loss of a candidate (predictions at the fitted X, estimator or callable)."""
        self._check_fitted()
        return r_loss(self._preds(candidate), self.treatment_, self.y_, self.m_, self.propensity_)




"""Relative-error evaluation of two (or K) CATE estimators.

References
----------
Z. Gao, "Trustworthy assessment of heterogeneous treatment effect estimator
via analysis of relative error", AISTATS 2025.
J. Guo, H. Li, Y. Tian, P. Wu, "A relative error-based evaluation framework of
heterogeneous treatment effect estimators", arXiv:2510.16419 (ICLR 2026).
"""

from __future__ import annotations

import itertools
import numbers
import re
import warnings

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator
from sklearn.linear_model import LinearRegression, LogisticRegression
from sklearn.utils.validation import _check_feature_names

from ..base import (
    FitStateMixin,
    HasMethods,
    Integral,
    Level,
    Options,
    Real,
    _refuse_inactive_params,
)
from ..utils import check_alpha, check_array
from ..utils._validation import user_frame
from ._nuisance import fit_balanced, fit_plugin, sklearn_seed
from ._results import PairwiseComparison, RelativeErrorResult, decision_from_ci, two_sided_pvalue
from ._scores import (
    aipw,
    aipw_lean,
    check_propensity,
    check_treatment,
    dr_pseudo_outcome,
    influence_lean,
    lean_nuisances,
    lean_vec,
)

__all__ = ["RelativeErrorEvaluator", "relative_error_from_nuisances"]

_NUISANCE = ("plugin", "balanced")
_REPRESENTATIONS = ("linear", "quadratic", "mlp")
_HEADS = ("signed", "augmented")


def _result(varphi, alpha, names, nuisance, n_clipped=0, ess=float("nan"), diagnostics=None,
            total=None):
    # total: np.add.reduce(varphi) when the caller has it (the same bits as varphi.mean())
    n = varphi.size
    delta = float((np.add.reduce(varphi) if total is None else total) / n)
    r = np.subtract(varphi, delta)
    np.multiply(r, r, out=r)
    se = float(np.sqrt(np.add.reduce(r) / n / n))
    from ._results import _ci

    ci = _ci(delta, se, 1 - alpha)
    return RelativeErrorResult(
        delta=delta, se=se, alpha=alpha, pvalue=two_sided_pvalue(delta, se),
        decision=decision_from_ci(ci), n=n, influence=varphi, names=tuple(names),
        nuisance=nuisance, n_clipped=int(n_clipped), ess=float(ess),
        diagnostics=dict(diagnostics or {}))


def relative_error_from_nuisances(tau1, tau2, treatment, y, mu0, mu1, propensity, *,
                                  alpha=0.10, names=("tau1", "tau2")):
    """Relative error of two CATE predictions from given nuisance values (Gao's estimator).

    ``delta_hat = mean(varphi)`` with ``varphi = t1^2 - t2^2 - 2 (t1 - t2) psi``
    and ``psi`` the AIPW pseudo-outcome; standard error
    ``sqrt(mean((varphi - delta_hat)^2) / n)``; normal (not t) intervals.
    Use it with oracle nuisances or with nuisances fitted elsewhere; nothing
    is clipped here.

    Parameters
    ----------
    tau1, tau2 : array-like of shape (n,)
        Predictions of the two estimators at the units.
    treatment : array-like of shape (n,)
        Binary treatment (0/1).
    y : array-like of shape (n,)
        Outcomes.
    mu0, mu1 : array-like of shape (n,)
        Outcome regressions at the units.
    propensity : array-like of shape (n,)
        Propensity at the units, strictly inside (0, 1).
    alpha : float, default=0.10
        The interval has level ``1 - alpha``.
    names : tuple of two str
        Labels for the summary.

    Returns
    -------
    RelativeErrorResult

    Examples
    --------
    >>> import numpy as np
    >>> from statlearn.hte import relative_error_from_nuisances
    >>> t = np.array([0.0, 1.0, 2.0])
    >>> r = relative_error_from_nuisances(t, t, [0, 1, 1], [0.0, 1.0, 2.0], t, t, [0.5] * 3)
    >>> r.delta, r.se, r.decision
    (0.0, 0.0, 0)
    """
    alpha = check_alpha(alpha)
    lean = lean_nuisances(treatment, y, mu0, mu1, propensity)
    t1, t2 = lean_vec(tau1), lean_vec(tau2)
    if lean is not None and t1 is not None and t2 is not None and (
            t1.size == t2.size == lean[0].size):
        res = _lean_relative_error(t1, t2, *lean, alpha, names)
        if res is not None:
            return res
    psi = dr_pseudo_outcome(treatment, y, mu0, mu1, propensity)
    t1 = check_array(tau1, "tau1", ensure_2d=False, dtype=np.float64)
    t2 = check_array(tau2, "tau2", ensure_2d=False, dtype=np.float64)
    if t1.shape != psi.shape or t2.shape != psi.shape:
        raise ValueError(f"tau1 and tau2 must have shape {psi.shape}, got {t1.shape} and "
                         f"{t2.shape}.")
    varphi = (t1 - t2) * (t1 + t2 - 2.0 * psi)
    e = check_propensity(propensity)
    a = check_treatment(treatment)
    W = a / e + (1 - a) / (1 - e)
    return _result(varphi, alpha, names, "given", 0, W.sum() ** 2 / np.sum(W**2))


def _lean_relative_error(t1, t2, a, y, mu0, mu1, e, alpha, names):
    """:func:`relative_error_from_nuisances` on lean-checked arrays, or None when a value
    is not finite (then the full checks run and name the argument).

    The same operations in the same order as the full path, with fewer temporaries.
    """
    ca, ce = 1 - a, 1 - e
    with np.errstate(all="ignore"):  # warnings, if any, come from the full path
        varphi = influence_lean(t1, t2, aipw_lean(a, y, mu0, mu1, e, ca, ce))
        total = np.add.reduce(varphi)
    if not np.isfinite(total):  # finite only when every input is (module docstring of _scores)
        return None
    W = a / e
    ca /= ce
    W += ca
    s1 = W.sum()
    np.multiply(W, W, out=W)
    return _result(varphi, alpha, names, "given", 0, s1**2 / np.add.reduce(W), total=total)


def candidate_predictions(candidate, X, name, X_user=None):
    """Predictions of a fitted CATE estimator (``effect``/``predict``), callable or array.

    Models and callables receive ``X_user`` (the user's own object, see
    :func:`~statlearn.utils._validation.user_frame`) when given, else ``X``;
    ``X`` fixes the number of rows.
    """
    X_in = X if X_user is None else X_user
    if hasattr(candidate, "effect") or hasattr(candidate, "predict") or callable(candidate):
        method = (candidate.effect if hasattr(candidate, "effect") else
                  candidate.predict if hasattr(candidate, "predict") else candidate)
        try:
            out = method(X_in)
        except Exception as exc:
            if not isinstance(X_in, pd.DataFrame):
                raise
            raise ValueError(
                f"{name} failed on X, which it receives as the DataFrame that was given "
                f"({type(exc).__name__}: {exc}); a candidate written for arrays needs "
                "X.to_numpy() instead of the DataFrame.") from exc
    elif isinstance(candidate, str | bytes | numbers.Number) or candidate is None:
        raise TypeError(f"{name} must be predictions (array of shape (n,)), a fitted estimator "
                        f"with effect/predict, or a callable; got {type(candidate).__name__}.")
    else:
        out = candidate
    out = np.asarray(out)
    if out.ndim == 2 and out.shape[1] == 1:
        out = out[:, 0]
    out = check_array(out, name, ensure_2d=False, dtype=np.float64)
    if out.ndim != 1 or out.shape[0] != X.shape[0]:
        raise ValueError(f"{name} must give one prediction per row of X ({X.shape[0]}), got "
                         f"shape {out.shape}.")
    return out


def validate_data(X, treatment, y, stacklevel=3):
    """Validate ``(X, treatment, y)``; warn on tiny samples, raise on constant treatment.

    ``stacklevel`` of the warning: 3 points at the caller of the function calling
    this one; a ``fit`` (inside the base layer's wrapper) needs one more.
    """
    X = check_array(X, "X", dtype=np.float64)
    a = check_treatment(treatment)
    y = check_array(y, "y", ensure_2d=False, dtype=np.float64)
    if y.ndim != 1:
        raise ValueError(f"y must be one-dimensional, got shape {y.shape}.")
    if not (X.shape[0] == a.size == y.size):
        raise ValueError(f"X, treatment and y must have the same number of rows, got "
                         f"{X.shape[0]}, {a.size} and {y.size}.")
    n1 = int(a.sum())
    n0 = a.size - n1
    if n1 == 0 or n0 == 0:
        raise ValueError("treatment is constant (all units in one arm); the relative error is "
                         "not identified without both treated and control units.")
    if min(n0, n1) < 2:
        raise ValueError(f"treatment needs at least 2 units per arm, got {n1} treated and "
                         f"{n0} control.")
    if a.size < 50 or min(n0, n1) < 10:
        warnings.warn(f"tiny sample: n = {a.size}, {n1} treated, {n0} control (recommended "
                      "n >= 50 and >= 10 per arm); the normal interval may be unreliable.",
                      UserWarning, stacklevel=stacklevel)
    return X, a, y


_CANDIDATE_PARAMS = {
    "representation": [Options(list(_REPRESENTATIONS)), HasMethods("fit", "transform")],
    "lambda_1": [Real(0, None, closed="neither")],
    "lambda_2": [Real(0)],
    "huber_c": [Real(0, None, closed="neither")],
    "huber_rho": [Real(0, None, closed="neither")],
    "clip": [Real(0, 0.5, closed="neither")],
    "random_state": ["random_state"],
}


class RelativeErrorEvaluator(FitStateMixin, BaseEstimator):
    """Compare two CATE estimators by their relative error, with a confidence interval.

    Estimates ``delta = E[(tau1(X) - tau(X))^2] - E[(tau2(X) - tau(X))^2]``
    on an evaluation sample that was not used to train the candidates, with
    the one-step (AIPW) estimator of Gao (2025), its standard error, a normal
    interval, a p-value and a decision. ``delta < 0`` means ``tau1`` is more
    accurate.

    Two nuisance protocols:

    - ``nuisance="plugin"`` (Gao, 2025): ``propensity_model`` (classifier) and
      ``outcome_model`` (regressor, fitted per arm) are any scikit-learn
      estimators; use ``cross_fit=K`` with flexible models. Valid intervals
      need both nuisances consistent (product rate ``o(n^{-1/2})``); the point
      estimate is doubly robust.
    - ``nuisance="balanced"`` (Guo et al., 2025, reconstructed): a
      representation ``Phi(x)`` (``representation``) shared by a logistic
      propensity head fitted by cross-entropy plus ``lambda_2 / lambda_1``
      times a Huber balance penalty (constants ``huber_c``, ``huber_rho``),
      and linear outcome heads that solve the signed weighted normal
      equations (condition (C1), our reconstruction of the robustness
      conditions of Guo et al., Eq. 4: ``sum_i w_i Phi_i {A_i (1 - e_i)/e_i
      (Y_i - mu1_i) + (1 - A_i) e_i/(1 - e_i) (Y_i - mu0_i)} = 0``) in
      closed form (``heads="signed"``, the
      paper's loss) or a positive-weight least squares on ``[Phi, w Phi]``
      whose normal equations contain (C1) (``heads="augmented"``).
      Fitted on the full evaluation sample by default (the paper's choice).
      In our simulations the signed heads give heavier tails and lower
      coverage than the plug-in baseline; see the user guide.

    Parameters
    ----------
    nuisance : {"plugin", "balanced"}, default="plugin"
    representation : {"linear", "quadratic", "mlp"} or transformer, default="linear"
        Feature map for ``nuisance="balanced"``: standardised ``X``, all
        degree-2 monomials, the last hidden layer of a small MLP fitted to
        ``(Y, A, A Y)``, or any scikit-learn transformer (cloned, fitted on X).
        An intercept is always added.
    propensity_model : classifier, default=None
        For ``"plugin"``; default ``LogisticRegression()``.
    outcome_model : regressor, default=None
        For ``"plugin"``, fitted on each arm; default ``LinearRegression()``.
    lambda_1, lambda_2 : float, default=1.0, 0.1
        Weights of the cross-entropy and balance losses (``"balanced"``).
    huber_c, huber_rho : float, default=1.0, 1.0
        Constants of the Huber form of the soft balance constraint.
    heads : {"signed", "augmented"}, default="signed"
        Outcome-head solver for ``"balanced"``.
    cross_fit : int or None, default=None
        Number of folds (stratified on the treatment) for cross-fitting; None
        fits the nuisances on the whole evaluation sample.
    clip : float, default=0.01
        Propensities are clipped to ``[clip, 1 - clip]`` (counted in
        ``n_clipped_``; a warning is issued above 1%).
    trim : float or None, default=None
        Drop units whose fitted propensity is outside ``[trim, 1 - trim]``;
        this changes the estimand to the overlap population.
    alpha : float, default=0.10
        Intervals have level ``1 - alpha`` (the paper reports 90%).
    n_jobs : int or None, default=None
        joblib workers for the cross-fitting folds of the plug-in nuisances
        (results do not depend on it).
    random_state : None, int, RandomState or Generator
        Seeds fold splits and the MLP representation (a Generator gives one
        integer seed per call of ``fit`` or ``compare``).

    Attributes
    ----------
    result_ : RelativeErrorResult
    delta_, se_, pvalue_ : float
    conf_int_ : ConfidenceInterval
    decision_ : int
        ``-1`` tau1 better, ``+1`` tau2 better, ``0`` undecided.
    influence_ : ndarray of shape (n_used,)
    mu0_, mu1_, propensity_ : ndarray of shape (n,)
        Nuisance values at the units (propensity clipped).
    n_clipped_ : int
    nuisance_models_ : list
        Fitted balanced nuisance models (one per fold; empty for ``"plugin"``).
    n_features_in_ : int

    Notes
    -----
    ``fit`` takes ``(X, treatment, y, tau1, tau2)`` rather than ``(X, y)``,
    so scikit-learn's generic estimator checks that call ``fit(X, y)`` do
    not apply; ``get_params``/``set_params``/``clone``/pickling do.

    Examples
    --------
    >>> from statlearn.datasets import make_hte_reference
    >>> from statlearn.hte import RelativeErrorEvaluator
    >>> d = make_hte_reference(2000, random_state=0)
    >>> ev = RelativeErrorEvaluator().fit(d.X, d.treatment, d.y,
    ...                                   tau1=d.candidates["const"], tau2=d.candidates["noisy"])
    >>> ev.decision_  # the true delta is +0.75: the second candidate is better
    1
    >>> round(ev.delta_, 1)
    0.7
    """

    def __init__(self, nuisance="plugin", representation="linear", propensity_model=None,
                 outcome_model=None, lambda_1=1.0, lambda_2=0.1, huber_c=1.0, huber_rho=1.0,
                 heads="signed", cross_fit=None, clip=0.01, trim=None, alpha=0.10,
                 n_jobs=None, random_state=None):
        self.nuisance = nuisance
        self.representation = representation
        self.propensity_model = propensity_model
        self.outcome_model = outcome_model
        self.lambda_1 = lambda_1
        self.lambda_2 = lambda_2
        self.huber_c = huber_c
        self.huber_rho = huber_rho
        self.heads = heads
        self.cross_fit = cross_fit
        self.clip = clip
        self.trim = trim
        self.alpha = alpha
        self.n_jobs = n_jobs
        self.random_state = random_state

    _parameter_constraints = {
        **_CANDIDATE_PARAMS,
        "nuisance": [Options(list(_NUISANCE))],
        "propensity_model": [None, HasMethods("fit", "predict_proba")],
        "outcome_model": [None, HasMethods("fit", "predict")],
        "heads": [Options(list(_HEADS))],
        "cross_fit": [None, Integral(2)],
        "trim": [None, Real(0, 0.5, closed="neither")],
        "alpha": [Level()],
        "n_jobs": [None, Integral()],
    }
    _output_free_params = ("n_jobs",)

    @classmethod
    def _statlearn_test_instances(cls):
        return [cls()]

    @classmethod
    def _statlearn_expected_failed_checks(cls):
        return _fit_signature_failures()

    # ------------------------------------------------------------ params
    def _lam(self):
        """The balance weight ``lambda_2 / lambda_1`` (parameters already validated)."""
        return float(self.lambda_2) / float(self.lambda_1)

    def _balanced_params(self, lam, seed):
        return {"representation": self.representation, "lam": lam, "c": float(self.huber_c),
                "rho": float(self.huber_rho), "clip": float(self.clip), "heads": self.heads,
                "random_state": seed}

    def _plugin_nuisances(self, X, a, y, seed):
        ps = self.propensity_model if self.propensity_model is not None else LogisticRegression()
        om = self.outcome_model if self.outcome_model is not None else LinearRegression()
        return fit_plugin(X, a, y, ps, om, self.cross_fit, seed, self.n_jobs)

    def _finish(self, t1, t2, a, y, mu0, mu1, e_raw, names, diagnostics, stacklevel=4):
        clip = float(self.clip)
        keep = np.ones(a.size, dtype=bool)
        if self.trim is not None:
            keep = (e_raw >= self.trim) & (e_raw <= 1 - self.trim)
            if keep.sum() < 2 or a[keep].min() == a[keep].max():
                raise ValueError(f"trim={self.trim} leaves too few units in one arm.")
        e = np.clip(e_raw, clip, 1 - clip)
        n_clipped = int(np.sum((e_raw < clip) | (e_raw > 1 - clip)))
        if n_clipped > 0.01 * a.size:
            warnings.warn(f"{n_clipped} of {a.size} propensities ({100 * n_clipped / a.size:.1f}%)"
                          f" were clipped to [{clip}, {1 - clip}]: overlap is poor.",
                          UserWarning, stacklevel=stacklevel)
        a_, y_, e_ = a[keep], y[keep], e[keep]
        psi = aipw(a_, y_, mu0[keep], mu1[keep], e_)
        w = t1[keep] - t2[keep]
        varphi = w * (t1[keep] + t2[keep] - 2.0 * psi)
        W = a_ / e_ + (1 - a_) / (1 - e_)
        diagnostics = dict(diagnostics, n_trimmed=int((~keep).sum()))
        res = _result(varphi, float(self.alpha), names, self.nuisance, n_clipped,
                      W.sum() ** 2 / np.sum(W**2), diagnostics)
        return res, e

    def _evaluate(self, X, a, y, t1, t2, names, seed, plugin_cache=None, stacklevel=4):
        # stacklevel 4: _evaluate, fit, the base layer's fit wrapper, the user
        lam = self._lam()
        if np.array_equal(t1, t2):  # w == 0: delta = se = 0 exactly, nothing to fit
            res = _result(np.zeros(a.size), float(self.alpha), names, self.nuisance,
                          diagnostics={"identical": True})
            return res, None, []
        if self.nuisance == "plugin":
            mu0, mu1, e_raw = plugin_cache if plugin_cache is not None else \
                self._plugin_nuisances(X, a, y, seed)
            diagnostics, models = {}, []
        else:
            mu0, mu1, e_raw, models = fit_balanced(X, a, y, t1 - t2,
                                                   self._balanced_params(lam, seed),
                                                   self.cross_fit, seed)
            diagnostics = {"condition_number": max(m.cond_ for m in models),
                           "n_features_phi": models[0].m_}
            if diagnostics["condition_number"] > 1e10:
                warnings.warn(
                    "the signed weighted Gram matrix of the outcome heads is near-singular "
                    f"(condition number {diagnostics['condition_number']:.3g}); the heads are a "
                    "least-squares solution and the estimate may be unstable.",
                    UserWarning, stacklevel=stacklevel)
        res, e = self._finish(t1, t2, a, y, mu0, mu1, e_raw, names, diagnostics,
                              stacklevel=stacklevel + 1)
        return res, (mu0, mu1, e), models

    # ------------------------------------------------------------- API
    def _refuse_inactive(self):
        """The parameters of the other kind of nuisance must keep their defaults."""
        if self.nuisance == "plugin":
            _refuse_inactive_params(
                self, ("representation", "lambda_1", "lambda_2", "huber_c", "huber_rho",
                       "heads"), "with nuisance='plugin' (they shape the balanced fit only)")
        else:
            _refuse_inactive_params(self, ("propensity_model", "outcome_model"),
                                    f"with nuisance={self.nuisance!r} (they are the "
                                    "plug-in nuisance models)")

    def fit(self, X, treatment, y, tau1=None, tau2=None):
        """Estimate the relative error of ``tau1`` versus ``tau2`` on ``(X, treatment, y)``.

        Parameters
        ----------
        X : array-like of shape (n, p)
            Covariates of the evaluation sample.
        treatment : array-like of shape (n,)
            Binary treatment (0/1).
        y : array-like of shape (n,)
            Outcomes.
        tau1, tau2 : array-like of shape (n,), fitted estimator or callable
            The two candidates: predictions at ``X``, an object with
            ``effect(X)`` or ``predict(X)`` (trained on other data), or a
            function of ``X``. Models and functions receive ``X`` as given
            (a DataFrame stays a DataFrame).

        Returns
        -------
        self : RelativeErrorEvaluator
        """
        if tau1 is None or tau2 is None:
            raise TypeError("fit needs both candidates: tau1 and tau2.")
        self._refuse_inactive()
        X_in = X
        X, a, y = validate_data(X, treatment, y, stacklevel=4)
        _check_feature_names(self, X_in, reset=True)
        self.n_features_in_ = X.shape[1]
        Xu = user_frame(X_in, X)
        t1 = candidate_predictions(tau1, X, "tau1", Xu)
        t2 = candidate_predictions(tau2, X, "tau2", Xu)
        res, nuis, models = self._evaluate(X, a, y, t1, t2, ("tau1", "tau2"),
                                           sklearn_seed(self.random_state))
        self.nuisance_models_ = models
        self.result_ = res
        self.delta_, self.se_, self.pvalue_ = res.delta, res.se, res.pvalue
        self.conf_int_ = res.confidence_interval()
        self.decision_ = res.decision
        self.influence_ = res.influence
        self.n_clipped_ = res.n_clipped
        if nuis is not None:
            self.mu0_, self.mu1_, self.propensity_ = nuis
        return self

    def compare(self, X, treatment, y, candidates):
        """Pairwise relative errors of K candidates and a ranking by significant wins.

        With ``nuisance="plugin"`` the nuisances are fitted once and shared by
        all pairs (so the pairwise deltas are exactly additive); with
        ``"balanced"`` they are refitted for each pair, as in the paper.

        ``compare`` is self-contained: it fits its own nuisances on the sample
        it is given, with the current parameters (validated here), and needs
        no earlier ``fit``; it leaves the fitted state of ``fit`` untouched.

        Parameters
        ----------
        X, treatment, y : array-like
            Evaluation sample.
        candidates : dict of str to candidate
            At least two candidates (predictions, fitted estimators or
            callables; models and callables receive ``X`` as given).

        Returns
        -------
        PairwiseComparison

        Warns
        -----
        UserWarning, ConvergenceWarning
            With ``nuisance="balanced"``, each distinct warning of the pairwise
            fits (poor overlap, a near-singular head, no convergence) once,
            naming the first pair it came from.
        """
        self._validate_params()
        self._refuse_inactive()
        if not isinstance(candidates, dict) or len(candidates) < 2:
            raise ValueError("candidates must be a dict with at least two named candidates.")
        X_in = X
        X, a, y = validate_data(X, treatment, y)
        Xu = user_frame(X_in, X)
        seed = sklearn_seed(self.random_state)
        names = [str(k) for k in candidates]
        T = np.column_stack([candidate_predictions(c, X, f"candidates[{k!r}]", Xu)
                             for k, c in candidates.items()])
        rows = []
        if self.nuisance == "plugin":
            mu0, mu1, e_raw = self._plugin_nuisances(X, a, y, seed)
            rows = pairwise_table(T, a, y, mu0, mu1, e_raw, float(self.clip),
                                  None if self.trim is None else float(self.trim),
                                  float(self.alpha), names)
        else:
            seen = {}
            for i, j in itertools.combinations(range(len(names)), 2):
                with warnings.catch_warnings(record=True) as caught:
                    warnings.simplefilter("always")
                    res, _, _ = self._evaluate(X, a, y, T[:, i], T[:, j],
                                               (names[i], names[j]), seed)
                for w in caught:  # one report per kind of warning, not one per pair
                    key = (w.category, re.sub(r"\d[\d.e+-]*", "#", str(w.message)))
                    seen.setdefault(key, (names[i], names[j], str(w.message)))
                ci = res.confidence_interval()
                rows.append((names[i], names[j], res.delta, res.se, ci.low, ci.high, res.pvalue,
                             res.decision))
            rows = pd.DataFrame(rows, columns=["first", "second", "delta", "se", "ci_low",
                                               "ci_high", "pvalue", "decision"])
            for (category, _), (first, second, message) in seen.items():
                warnings.warn(f"pair {first!r} vs {second!r} (and possibly others): "
                              f"{message}", category, stacklevel=2)
        return PairwiseComparison(rows, ranking_from_table(rows, names), float(self.alpha),
                                  int(a.size))

    def best_set(self, X, treatment, y, candidates):
        """Confidence set for the most accurate of K candidates (:meth:`compare`, then Holm).

        Equivalent to ``self.compare(X, treatment, y, candidates).best_set()``:
        the candidates that no other is significantly more accurate than, at
        family-wise level ``alpha`` (Holm over the ``K (K - 1)`` one-sided
        pairwise tests). Self-contained, like :meth:`compare`.

        Parameters
        ----------
        X, treatment, y : array-like
            Evaluation sample (not used to train the candidates).
        candidates : dict of str to candidate
            At least two named candidates.

        Returns
        -------
        BestCandidateSet

        Examples
        --------
        >>> from statlearn.datasets import make_hte_reference
        >>> from statlearn.hte import RelativeErrorEvaluator
        >>> d = make_hte_reference(2000, random_state=0)
        >>> best = RelativeErrorEvaluator(cross_fit=5, random_state=0).best_set(
        ...     d.X, d.treatment, d.y, d.candidates)
        >>> sorted(best.members)
        ['half', 'noisy']
        """
        return self.compare(X, treatment, y, candidates).best_set()


def pairwise_table(T, a, y, mu0, mu1, e_raw, clip, trim, alpha, names):
    """All pairs from shared nuisances in O(n K^2) via the covariance of the DR-losses."""
    keep = np.ones(a.size, dtype=bool)
    if trim is not None:
        keep = (e_raw >= trim) & (e_raw <= 1 - trim)
    n_clipped = int(np.sum((e_raw < clip) | (e_raw > 1 - clip)))
    if n_clipped > 0.01 * a.size:
        warnings.warn(f"{n_clipped} of {a.size} propensities were clipped to "
                      f"[{clip}, {1 - clip}]: overlap is poor.", UserWarning, stacklevel=3)
    e = np.clip(e_raw, clip, 1 - clip)[keep]
    a, y, mu0, mu1, T = a[keep], y[keep], mu0[keep], mu1[keep], T[keep]
    psi = aipw(a, y, mu0, mu1, e)
    L = (T - psi[:, None]) ** 2
    n = L.shape[0]
    m = L.mean(0)
    C = (L - m).T @ (L - m) / n
    i, j = np.triu_indices(len(names), 1)
    delta = m[i] - m[j]
    var = np.maximum(C[i, i] + C[j, j] - 2 * C[i, j], 0.0)
    se = np.sqrt(var / n)
    from scipy import stats

    z = stats.norm.ppf(1 - alpha / 2)
    low, high = delta - z * se, delta + z * se
    with np.errstate(divide="ignore", invalid="ignore"):
        pval = np.where(se > 0, 2 * stats.norm.sf(np.abs(delta) / se),
                        np.where(delta == 0, 1.0, 0.0))
    dec = np.where(high < 0, -1, np.where(low > 0, 1, 0))
    # identical candidates: exactly zero (checked only where delta is exactly 0)
    for k in np.flatnonzero(delta == 0):
        if np.array_equal(T[:, i[k]], T[:, j[k]]):
            se[k], low[k], high[k], pval[k], dec[k] = 0.0, 0.0, 0.0, 1.0, 0
    return pd.DataFrame({"first": np.asarray(names)[i], "second": np.asarray(names)[j],
                         "delta": delta, "se": se, "ci_low": low, "ci_high": high,
                         "pvalue": pval, "decision": dec.astype(int)})


def ranking_from_table(table, names):
    """Rank candidates by significant wins, then fewer losses, then mean relative loss."""
    wins = dict.fromkeys(names, 0)
    losses = dict.fromkeys(names, 0)
    score = dict.fromkeys(names, 0.0)  # sum over pairs of (MSE(self) - MSE(other))
    for r in table.itertuples(index=False):
        if r.decision == -1:
            wins[r.first] += 1
            losses[r.second] += 1
        elif r.decision == 1:
            wins[r.second] += 1
            losses[r.first] += 1
        score[r.first] += r.delta
        score[r.second] -= r.delta
    rank = pd.DataFrame({"wins": wins, "losses": losses, "rel_loss": score})
    rank["rel_loss"] /= max(len(names) - 1, 1)
    return rank.sort_values(["wins", "losses", "rel_loss"], ascending=[False, True, True])


def _fit_signature_failures():
    """Generic scikit-learn checks that call ``fit(X, y)``; not applicable to ``(X, A, Y)``."""
    reason = ("fit takes (X, treatment, y, ...) with a binary treatment, not the (X, y) "
              "signature the generic checks use")
    names = (
        "check_complex_data check_dict_unchanged check_dont_overwrite_parameters "
        "check_dtype_object check_estimator_sparse_array check_estimator_sparse_matrix "
        "check_estimator_sparse_tag check_estimators_dtypes check_estimators_empty_data_messages "
        "check_estimators_fit_returns_self check_estimators_nan_inf "
        "check_estimators_overwrite_params check_estimators_pickle "
        "check_estimators_pickle(readonly_memmap=True) check_f_contiguous_array_estimator "
        "check_fit1d check_fit2d_1feature check_fit2d_1sample check_fit2d_predict1d "
        "check_fit_check_is_fitted check_fit_idempotent check_fit_score_takes_y "
        "check_methods_sample_order_invariance check_methods_subset_invariance "
        "check_n_features_in check_n_features_in_after_fitting check_pipeline_consistency "
        "check_positive_only_tag_during_fit check_readonly_memmap_input"
    ).split()
    return dict.fromkeys(names, reason)

"""Nuisance fits for the relative-error estimator.

Two protocols:

* ``plugin`` (Gao, 2025): any scikit-learn classifier for the propensity and
  any regressor for the outcome, one per arm, optionally cross-fitted.
* ``balanced`` (Guo et al., 2025, reconstructed): a representation
  ``Phi(x)`` shared by three linear heads; the propensity head minimises
  cross-entropy plus a Huber balance penalty, the outcome heads solve the
  signed weighted normal equations in closed form.
"""

from __future__ import annotations

import numbers
import warnings

import numpy as np
from scipy.optimize import minimize
from scipy.special import expit
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import StratifiedKFold

from ..utils import check_int
from ..utils._validation import _scalar

__all__: list[str] = []

COND_WARN = 1e10


def sklearn_seed(random_state):
    """``random_state`` in a form scikit-learn accepts (folds, the MLP).

    None, ints (NumPy ints too) and ``RandomState`` pass through unchanged, so an
    int seeds exactly as before; a ``Generator`` or ``SeedSequence`` gives one
    integer seed drawn from it (a Generator advances, as a RandomState would). A 0-d
    array is the number it holds.
    """
    random_state = _scalar(random_state)
    if isinstance(random_state, numbers.Integral) and not isinstance(random_state, bool):
        return int(random_state)
    if isinstance(random_state, np.random.Generator):
        return int(random_state.integers(2**31 - 1))
    if isinstance(random_state, np.random.SeedSequence):
        return int(random_state.generate_state(1)[0] % (2**31 - 1))
    return random_state


# ----------------------------------------------------------------- folds
def stratified_folds(a, n_folds, random_state):
    """``(train, test)`` index pairs, stratified on the treatment."""
    n_folds = check_int(n_folds, "cross_fit", low=2)  # NumPy and 0-d integers as ints
    n1 = int(a.sum())
    n0 = a.size - n1
    if min(n0, n1) < 2 * n_folds:
        raise ValueError(
            f"cross_fit={n_folds} needs at least 2 treated and 2 control units per training "
            f"fold; got {n1} treated and {n0} control units in all."
        )
    skf = StratifiedKFold(n_splits=n_folds, shuffle=True, random_state=random_state)
    return list(skf.split(np.zeros((a.size, 1)), a.astype(int)))


# ----------------------------------------------------------------- plug-in
def _predict_proba1(model, X):
    if hasattr(model, "predict_proba"):
        proba = np.asarray(model.predict_proba(X))
        classes = list(getattr(model, "classes_", [0, 1]))
        return proba[:, classes.index(1)]
    raise TypeError("propensity_model must provide predict_proba.")


def _fit_plugin_once(X_tr, a_tr, y_tr, X_te, propensity_model, outcome_model):
    ps = clone(propensity_model).fit(X_tr, a_tr.astype(int))
    e = _predict_proba1(ps, X_te)
    t1, t0 = a_tr == 1, a_tr == 0
    m1 = clone(outcome_model).fit(X_tr[t1], y_tr[t1])
    m0 = clone(outcome_model).fit(X_tr[t0], y_tr[t0])
    return (np.asarray(m0.predict(X_te), dtype=float).reshape(-1),
            np.asarray(m1.predict(X_te), dtype=float).reshape(-1),
            np.asarray(e, dtype=float).reshape(-1))


def fit_plugin(X, a, y, propensity_model, outcome_model, cross_fit, random_state, n_jobs=None):
    """Plug-in nuisances at every unit; cross-fitted (folds in parallel) when ``cross_fit``."""
    if cross_fit is None:
        return _fit_plugin_once(X, a, y, X, propensity_model, outcome_model)
    from sklearn.utils.parallel import Parallel, delayed

    folds = stratified_folds(a, cross_fit, random_state)
    fits = Parallel(n_jobs=n_jobs)(
        delayed(_fit_plugin_once)(X[train], a[train], y[train], X[test], propensity_model,
                                  outcome_model) for train, test in folds)
    mu0, mu1, e = np.empty(a.size), np.empty(a.size), np.empty(a.size)
    for (_, test), (m0, m1, ee) in zip(folds, fits, strict=True):
        mu0[test], mu1[test], e[test] = m0, m1, ee
    return mu0, mu1, e


# ---------------------------------------------------------- representation
class Representation:
    """Fitted feature map ``x -> (1, standardised features)``."""

    def __init__(self, kind, random_state=None, hidden=(64, 8), max_iter=300):
        self.kind = kind
        self.random_state = random_state
        self.hidden = hidden
        self.max_iter = max_iter

    def _raw(self, X):
        if self.kind == "linear":
            return X
        if self.kind == "quadratic":
            return self.poly_.transform(X)
        if self.kind == "mlp":
            h = (X - self.xm_) / self.xs_
            for W, b in zip(self.mlp_.coefs_[:-1], self.mlp_.intercepts_[:-1], strict=True):
                h = np.maximum(h @ W + b, 0.0)
            return h
        return np.asarray(self.transformer_.transform(X), dtype=float)

    def fit(self, X, a, y):
        if self.kind == "quadratic":
            from sklearn.preprocessing import PolynomialFeatures

            self.poly_ = PolynomialFeatures(2, include_bias=False).fit(X)
        elif self.kind == "mlp":
            from sklearn.neural_network import MLPRegressor

            self.xm_, self.xs_ = X.mean(0), X.std(0)
            self.xs_[self.xs_ == 0] = 1.0
            target = np.column_stack([y, a, a * y])
            target = (target - target.mean(0)) / np.where(target.std(0) > 0, target.std(0), 1)
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always", ConvergenceWarning)
                self.mlp_ = MLPRegressor(hidden_layer_sizes=self.hidden, max_iter=self.max_iter,
                                         alpha=1e-4, random_state=self.random_state)
                self.mlp_.fit((X - self.xm_) / self.xs_, target)
            for w in caught:
                if issubclass(w.category, ConvergenceWarning):
                    warnings.warn(
                        f"the MLP representation stopped after max_iter={self.max_iter} "
                        "iterations without converging; its last hidden layer is used as "
                        "the feature map all the same.", ConvergenceWarning, stacklevel=2)
                else:
                    warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
        elif self.kind != "linear":
            self.transformer_ = clone(self.kind).fit(X)
        raw = self._raw(X)
        sd = raw.std(0)
        self.keep_ = sd > 1e-12 * max(1.0, float(np.abs(raw).max(initial=0.0)))
        self.mean_ = raw.mean(0)[self.keep_]
        self.scale_ = sd[self.keep_]
        return self

    def transform(self, X):
        raw = self._raw(X)[:, self.keep_]
        return np.column_stack([np.ones(X.shape[0]), (raw - self.mean_) / self.scale_])


# ------------------------------------------------------ balanced propensity
def huber(x, c, rho):
    """Per-coordinate Huber function of the slack formulation (value, derivative)."""
    x = np.asarray(x, dtype=float)
    k = c / (2.0 * rho)
    small = np.abs(x) <= k
    val = np.where(small, rho * x**2, c * np.abs(x) - c**2 / (4.0 * rho))
    der = np.where(small, 2.0 * rho * x, c * np.sign(x))
    return val, der


def _ce(gamma, Phi, a):
    z = Phi @ gamma
    val = float(np.mean(np.logaddexp(0.0, z) - a * z))
    grad = Phi.T @ (expit(z) - a) / a.size
    return val, grad


def _objective(gamma, Phi, a, w, lam, c, rho):
    val, grad = _ce(gamma, Phi, a)
    if lam == 0:
        return val, grad
    z = np.clip(Phi @ gamma, -500, 500)
    n = a.size
    g1 = Phi.T @ (w * (a * (1.0 + np.exp(-z)) - 1.0)) / n
    g0 = Phi.T @ (w * ((1.0 - a) * (1.0 + np.exp(z)) - 1.0)) / n
    h1, d1 = huber(g1, c, rho)
    h0, d0 = huber(g0, c, rho)
    # symmetric Jacobians: dg1 = -Phi^T diag(w a (1-e)/e) Phi / n,
    # dg0 = Phi^T diag(w (1-a) e/(1-e)) Phi / n
    j1 = -(Phi * (w * a * np.exp(-z))[:, None]).T @ Phi / n
    j0 = (Phi * (w * (1.0 - a) * np.exp(z))[:, None]).T @ Phi / n
    val += lam * float(h1.sum() + h0.sum())
    grad = grad + lam * (j1 @ d1 + j0 @ d0)
    return val, grad


def _warn_unconverged(res, what, max_iter):
    """A ConvergenceWarning when L-BFGS stopped short of a stationary point."""
    grad = float(np.max(np.abs(res.jac))) if np.size(res.jac) else 0.0
    if res.status == 1 or (res.status != 0 and grad > 1e-5):
        warnings.warn(
            f"the {what} did not converge (L-BFGS stopped after {res.nit} of at most "
            f"{max_iter} iterations, largest gradient entry {grad:.3g}: {res.message}); "
            "perfectly separated arms make the logistic fit diverge. Propensities far from "
            "(0, 1) are clipped; check overlap.", ConvergenceWarning, stacklevel=4)


def fit_logistic_mle(Phi, a, max_iter=500):
    """Unpenalised logistic regression on ``Phi`` (which contains the intercept)."""
    res = minimize(_ce, np.zeros(Phi.shape[1]), args=(Phi, a), jac=True, method="L-BFGS-B",
                   options={"maxiter": max_iter, "gtol": 1e-10})
    _warn_unconverged(res, "logistic propensity head", max_iter)
    return res.x


def fit_balanced_propensity(Phi, a, w, lam, c, rho, max_iter=500):
    """Minimise ``L_ce + lam * L_const`` from the logistic MLE (L-BFGS)."""
    gamma_mle = fit_logistic_mle(Phi, a, max_iter)
    if lam == 0 or not np.any(w):
        return gamma_mle, gamma_mle
    res = minimize(_objective, gamma_mle, args=(Phi, a, w, lam, c, rho), jac=True,
                   method="L-BFGS-B", options={"maxiter": max_iter, "gtol": 1e-10})
    _warn_unconverged(res, "balanced propensity head", max_iter)
    gamma = res.x
    # never return a point worse than the start (L-BFGS may stop early on a non-convex objective)
    if _objective(gamma, Phi, a, w, lam, c, rho)[0] > _objective(gamma_mle, Phi, a, w, lam, c,
                                                                  rho)[0]:
        gamma = gamma_mle
    return gamma, gamma_mle


# ------------------------------------------------------------ outcome heads
def _solve(G, b):
    cond = float(np.linalg.cond(G)) if G.size else 0.0
    beta = np.linalg.lstsq(G, b, rcond=None)[0]
    return beta, cond


def fit_signed_heads(Phi, a, y, w, e):
    """Closed-form solutions of the two halves of the sample condition (C1).

    Treated: ``Phi_T^T W1 (Y_T - Phi_T beta1) = 0`` with ``W1 = w (1 - e) / e``;
    control: ``Phi_C^T W0 (Y_C - Phi_C beta0) = 0`` with ``W0 = w e / (1 - e)``.
    The weights carry the sign of ``w`` so the systems are estimating
    equations, solved with an SVD least-squares solver (no ridge).
    """
    w1 = a * w * (1.0 - e) / e
    w0 = (1.0 - a) * w * e / (1.0 - e)
    G1 = (Phi * w1[:, None]).T @ Phi
    G0 = (Phi * w0[:, None]).T @ Phi
    beta1, c1 = _solve(G1, Phi.T @ (w1 * y))
    beta0, c0 = _solve(G0, Phi.T @ (w0 * y))
    return beta0, beta1, max(c0, c1)


def c1_residual(Phi, a, y, w, e, mu0, mu1):
    """Relative size of the sample (C1) moments (both halves), in [0, inf)."""
    t1 = Phi * (a * w * (1.0 - e) / e * (y - mu1))[:, None]
    t0 = Phi * ((1.0 - a) * w * e / (1.0 - e) * (y - mu0))[:, None]
    scale = max(float(np.abs(t1).sum(0).max()), float(np.abs(t0).sum(0).max()), 1e-300)
    return max(float(np.abs(t1.sum(0)).max()), float(np.abs(t0.sum(0)).max())) / scale


def fit_augmented_heads(Phi, a, y, w, e):
    """Positive-weight least squares on ``[Phi, w Phi]`` whose stationarity contains (C1).

    Weights ``(1 - e)/e`` (treated) and ``e/(1 - e)`` (control) are positive,
    so this is a proper convex least-squares problem; the normal equations of
    the ``w Phi`` block are exactly the two halves of (C1).
    """
    D = np.hstack([Phi, w[:, None] * Phi])
    out = []
    cond = 0.0
    for arm, wt in ((0, e / (1.0 - e)), (1, (1.0 - e) / e)):
        m = a == arm
        s = np.sqrt(wt[m])
        coef, _, _, sv = np.linalg.lstsq(D[m] * s[:, None], y[m] * s, rcond=None)
        # [Phi, w Phi] is often rank deficient (w is itself in the span of Phi); the
        # minimum-norm solution still solves the normal equations, so report the
        # condition number over the numerically non-zero singular values
        sv = sv[sv > sv[0] * max(D.shape) * np.finfo(float).eps]
        cond = max(cond, float(sv[0] / sv[-1]) ** 2)
        out.append(coef)
    return out[0], out[1], cond


class BalancedNuisance:
    """Representation + balanced propensity + closed-form heads for one weight vector ``w``."""

    def __init__(self, representation="linear", lam=0.1, c=1.0, rho=1.0, clip=0.01,
                 heads="signed", random_state=None):
        self.representation = representation
        self.lam = lam
        self.c = c
        self.rho = rho
        self.clip = clip
        self.heads = heads
        self.random_state = random_state

    def fit(self, X, a, y, w, rep=None):
        self.rep_ = rep if rep is not None else Representation(
            self.representation, self.random_state).fit(X, a, y)
        Phi = self.rep_.transform(X)
        self.gamma_, self.gamma_mle_ = fit_balanced_propensity(Phi, a, w, self.lam, self.c,
                                                                self.rho)
        e = np.clip(expit(Phi @ self.gamma_), self.clip, 1 - self.clip)
        if self.heads == "signed":
            self.beta0_, self.beta1_, self.cond_ = fit_signed_heads(Phi, a, y, w, e)
        else:
            self.beta0_, self.beta1_, self.cond_ = fit_augmented_heads(Phi, a, y, w, e)
        self.m_ = Phi.shape[1]
        return self

    def predict(self, X, w):
        """``mu0, mu1, e_raw`` (unclipped propensity) at ``X`` with weights ``w`` there."""
        Phi = self.rep_.transform(X)
        e = expit(Phi @ self.gamma_)
        if self.heads == "signed":
            return Phi @ self.beta0_, Phi @ self.beta1_, e
        D = np.hstack([Phi, w[:, None] * Phi])
        return D @ self.beta0_, D @ self.beta1_, e


def fit_balanced(X, a, y, w, params, cross_fit, random_state):
    """Balanced nuisances at every unit (cross-fitted when asked) and the fitted models."""
    if cross_fit is None:
        model = BalancedNuisance(**params).fit(X, a, y, w)
        mu0, mu1, e = model.predict(X, w)
        return mu0, mu1, e, [model]
    mu0, mu1, e = np.empty(a.size), np.empty(a.size), np.empty(a.size)
    models = []
    for train, test in stratified_folds(a, cross_fit, random_state):
        model = BalancedNuisance(**params).fit(X[train], a[train], y[train], w[train])
        mu0[test], mu1[test], e[test] = model.predict(X[test], w[test])
        models.append(model)
    return mu0, mu1, e, models

"""Regularised generalised linear models with a sum of losses, in array-API form.

The objective is ``L(beta) = sum_i l(y_i | x_i^T beta) + alpha * ||beta||^2 / 2``
with a SUM (not a mean) of per-example losses, as in Pandey et al. (2025);
the losses and their derivatives are in :mod:`._losses`.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from ..utils import check_int, check_option, check_rng, to_numpy
from ..utils._array_api import device
from ..utils._validation import _scalar
from ._linalg import CholeskyError, cho_solve, factor_with_jitter
from ._losses import LOSSES, loss_derivatives, loss_value  # re-exported: defined there

__all__ = [
    "LOSSES",
    "SOLVERS",
    "glm_solve",
    "loss_derivatives",
    "loss_value",
    "make_glm_data",
    "newton_solve",
    "objective",
    "objective_gradient",
    "objective_hessian",
]

def objective(beta, X, y, loss, alpha, xp, shift=None):
    """``sum_i l(y_i | x_i^T beta) + alpha ||beta||^2 / 2`` (+ ``shift^T beta`` if given)."""
    val = xp.sum(loss_value(y, X @ beta, loss, xp)) + 0.5 * xp.sum(alpha * beta * beta)
    if shift is not None:
        val = val + xp.sum(shift * beta)
    return float(val)


def objective_gradient(beta, X, y, loss, alpha, xp, shift=None):
    """Gradient ``X^T l'(y | X beta) + alpha beta`` (+ ``shift``)."""
    d1, _ = loss_derivatives(y, X @ beta, loss, xp)
    g = X.T @ d1 + alpha * beta
    return g if shift is None else g + shift


def _weighted_gram(X, w, xp):
    """``X^T diag(w) X`` for weights ``w >= 0``.

    On NumPy float arrays through the symmetric rank-k product of BLAS
    (``?syrk`` on ``sqrt(w) X``: half the multiplications of a general product,
    the upper triangle mirrored); elsewhere as a matrix product.
    """
    if isinstance(X, np.ndarray) and X.dtype in (np.float64, np.float32) and X.ndim == 2:
        from scipy.linalg import blas

        n, p = X.shape
        syrk = blas.dsyrk if X.dtype == np.float64 else blas.ssyrk
        root = np.sqrt(w).astype(X.dtype, copy=False)
        U = np.zeros((p, p), dtype=X.dtype, order="F")
        rows = max(256, (1 << 20) // max(p, 1))  # blocks of about 8 MB: no n x p copy
        for start in range(0, n, rows):
            A = root[start:start + rows, None] * X[start:start + rows]
            # A is C-ordered, so A.T is an F-ordered p x rows matrix: U += A^T A (upper)
            U = syrk(1.0, A.T, beta=1.0, c=U, trans=0, lower=0, overwrite_c=1)
        return np.triu(U) + np.triu(U, 1).T
    return X.T @ (xp.expand_dims(w, axis=1) * X)


def objective_hessian(beta, X, y, loss, alpha, xp):
    """Hessian ``X^T diag(l'') X + diag(alpha)`` assembled on the input's device.

    ``alpha`` is a scalar or a vector of per-coordinate penalties (0 for an
    unpenalised intercept); the product with the identity broadcasts to the
    diagonal matrix either way. Every loss here is convex (``l'' >= 0``), so the
    Gram part is a symmetric rank-k product (see :func:`_weighted_gram`).
    """
    _, d2 = loss_derivatives(y, X @ beta, loss, xp)
    p = X.shape[1]
    H = _weighted_gram(X, d2, xp)
    return H + xp.eye(p, dtype=X.dtype, device=device(X)) * alpha


def penalty_strength(alpha):
    """The strong-convexity constant used in tolerances: the largest penalty entry.

    ``alpha`` is a scalar, or a vector whose zero entries mark unpenalised
    coordinates (the intercept); the coefficients all share one strength.
    """
    if isinstance(alpha, int | float | np.floating | np.integer):
        return float(alpha)
    return float(np.max(np.asarray(to_numpy(alpha), dtype=float)))


def _norm(v, xp):
    return float(xp.linalg.vector_norm(v))


def _solve_spd_or_pinv(H, g, xp, allow_singular):
    if allow_singular:
        return xp.linalg.pinv(H) @ g
    L, _ = factor_with_jitter(H, xp)
    return cho_solve(L, g, xp)


def newton_solve(X, y, loss, alpha, xp, beta0=None, tol=1e-10, max_iter=100, shift=None,
                 allow_singular=False):
    """Minimise the regularised objective by damped Newton steps with Cholesky solves.

    Stops when ``||grad|| <= tol * alpha`` (so that, by ``alpha``-strong
    convexity, the distance to the minimiser is at most ``tol``), or when a
    step no longer changes ``beta`` in floating point. Backtracking (Armijo)
    keeps every step a descent step, which matters for the Poisson loss.
    ``alpha`` may be a vector of per-coordinate penalties (an unpenalised
    intercept has 0); the tolerance then uses its largest entry.

    Warns with :class:`~sklearn.exceptions.ConvergenceWarning` whenever it
    returns a point whose gradient norm is above ``tol * alpha``: after
    ``max_iter`` iterations, and when no step makes progress in floating
    point any more.

    Returns
    -------
    beta : array of shape (p,)
    n_iter : int
    grad_norm : float
        Norm of the gradient at the returned point.
    """
    p = X.shape[1]
    dev = device(X)
    beta = xp.zeros(p, dtype=X.dtype, device=dev) if beta0 is None else beta0
    if X.shape[0] == 0:
        # only the penalty remains; its minimiser is -shift / alpha (0 without a shift)
        beta = xp.zeros(p, dtype=X.dtype, device=dev) if shift is None else -shift / alpha
        return beta, 0, 0.0
    a_scalar = penalty_strength(alpha)
    target = tol * a_scalar if a_scalar > 0 else 0.0
    f = objective(beta, X, y, loss, alpha, xp, shift)
    gnorm = math.inf
    for it in range(1, max_iter + 1):
        g = objective_gradient(beta, X, y, loss, alpha, xp, shift)
        gnorm = _norm(g, xp)
        if gnorm <= target:
            return beta, it - 1, gnorm
        H = objective_hessian(beta, X, y, loss, alpha, xp)
        try:
            step = _solve_spd_or_pinv(H, g, xp, allow_singular)
        except CholeskyError:  # pragma: no cover - H is alpha-strongly convex
            step = xp.linalg.pinv(H) @ g
        slope = float(xp.sum(g * step))
        t = 1.0
        by_gradient = False
        while True:
            cand = beta - t * step
            f_new = objective(cand, X, y, loss, alpha, xp, shift)
            if f_new <= f - 1e-4 * t * slope or t < 1e-12:
                break
            if t == 1.0 and abs(f_new - f) <= 64 * np.finfo(float).eps * max(1.0, abs(f)):
                # Near the minimiser the objective no longer resolves the decrease
                # (it is quadratic in the distance); accept the full Newton step
                # when it reduces the gradient, which is still resolved.
                g_new = objective_gradient(cand, X, y, loss, alpha, xp, shift)
                if _norm(g_new, xp) < gnorm:
                    by_gradient = True
                    break
            t *= 0.5
        progress = by_gradient or f_new <= f
        if not progress or _norm(cand - beta, xp) <= 1e-15 * (1.0 + _norm(beta, xp)):
            # no more progress possible in floating point
            if progress:
                beta = cand
            g = objective_gradient(beta, X, y, loss, alpha, xp, shift)
            gnorm = _norm(g, xp)
            if gnorm > target and a_scalar > 0:
                warnings.warn(
                    f"Newton solver stopped after {it} iteration(s): no step makes progress "
                    f"in floating point, with gradient norm {gnorm:.3g} > tol * alpha = "
                    f"{target:.3g}; the result is not within tol of the minimiser "
                    "(rescale the data or loosen tol).",
                    ConvergenceWarning, stacklevel=2)
            return beta, it, gnorm
        beta, f = cand, f_new
    g = objective_gradient(beta, X, y, loss, alpha, xp, shift)
    gnorm = _norm(g, xp)
    if gnorm > target:
        warnings.warn(
            f"Newton solver stopped after max_iter={max_iter} iterations with gradient norm "
            f"{gnorm:.3g} > {target:.3g}; increase max_iter.",
            ConvergenceWarning,
            stacklevel=2,
        )
    return beta, max_iter, gnorm


#: pairs kept by the limited-memory quasi-Newton solver
_LBFGS_MEMORY = 10
#: its iteration cap (the Newton finish has its own, ``max_iter``)
_LBFGS_MAX_ITER = 1000


def _value_and_gradient(beta, X, y, loss, alpha, shift):
    z = X @ beta
    d1, _ = loss_derivatives(y, z, loss, np)
    val = float(np.sum(loss_value(y, z, loss, np)) + 0.5 * np.sum(alpha * beta * beta))
    g = X.T @ d1 + alpha * beta
    if shift is not None:
        val += float(np.sum(shift * beta))
        g = g + shift
    return val, g


def _two_loop(g, pairs):
    """``-H_k g`` for the L-BFGS inverse-Hessian approximation of the stored pairs."""
    q = g.copy()
    coef = []
    for s, y, rho in reversed(pairs):
        a = rho * float(s @ q)
        q -= a * y
        coef.append(a)
    s, y, _ = pairs[-1]
    q *= float(s @ y) / float(y @ y)
    for (s, y, rho), a in zip(pairs, reversed(coef)):
        q += (a - rho * float(y @ q)) * s
    return -q


def glm_solve(X, y, loss, alpha, xp, beta0=None, tol=1e-10, max_iter=100, shift=None,
              allow_singular=False, return_factor=False):
    """Minimise the regularised objective to ``||grad|| <= tol * alpha`` (as :func:`newton_solve`).

    On NumPy input it runs a limited-memory quasi-Newton method (L-BFGS, Nocedal
    1980; Nocedal & Wright 2006, Algorithm 7.5) with a backtracking line search:
    each iteration costs one pass of ``X @ beta`` and one of ``X^T r``, where a
    Newton iteration assembles a ``p x p`` Hessian (``n p^2``) and factorises it.
    As in :func:`newton_solve`, near the minimiser where the objective no longer
    resolves the decrease, a full step is accepted when it reduces the gradient
    norm, which is still resolved. Once the gradient meets the rule, one Newton
    step with the Hessian there polishes the result to Newton's precision (kept
    only if it reduces the gradient); that Hessian's factor is returned with
    ``return_factor`` (the one a fit stores: it is the Hessian at a point within
    ``tol`` of the result). When the quasi-Newton iterations stop making progress
    before the rule is met, damped Newton steps (at most ``max_iter``, with
    :func:`newton_solve`'s warnings) finish from where they stopped. Array-API
    input, a singular problem (``allow_singular``) or no penalty go to
    :func:`newton_solve` directly.

    Returns
    -------
    beta : array of shape (p,)
    n_iter : int
        Quasi-Newton plus Newton iterations.
    grad_norm : float
    factor : array of shape (p, p) or None
        Only with ``return_factor``: the lower Cholesky factor of the Hessian the
        polishing step used (None when Newton steps finished instead).
    """
    a_scalar = penalty_strength(alpha)
    if (not isinstance(X, np.ndarray) or allow_singular or not a_scalar > 0
            or X.shape[0] == 0):
        out = newton_solve(X, y, loss, alpha, xp, beta0=beta0, tol=tol, max_iter=max_iter,
                           shift=shift, allow_singular=allow_singular)
        return (*out, None) if return_factor else out
    target = tol * a_scalar
    beta = np.zeros(X.shape[1], dtype=X.dtype) if beta0 is None else np.asarray(beta0).copy()
    f, g = _value_and_gradient(beta, X, y, loss, alpha, shift)
    gnorm = float(np.linalg.norm(g))
    pairs = []
    eps = np.finfo(float).eps
    it = 0
    with np.errstate(over="ignore", invalid="ignore"):
        while gnorm > target and it < _LBFGS_MAX_ITER:
            it += 1
            d = _two_loop(g, pairs) if pairs else -g / max(gnorm, 1.0)
            slope = float(g @ d)
            if not slope < 0:  # lost descent (rounding): restart from the gradient
                pairs.clear()
                d, slope = -g / max(gnorm, 1.0), -gnorm * gnorm / max(gnorm, 1.0)
            t, accepted = 1.0, False
            while t >= 1e-12:
                cand = beta + t * d
                f_new, g_new = _value_and_gradient(cand, X, y, loss, alpha, shift)
                if np.isfinite(f_new) and f_new <= f + 1e-4 * t * slope:
                    accepted = True
                    break
                if (np.isfinite(f_new) and abs(f_new - f) <= 64 * eps * max(1.0, abs(f))
                        and float(np.linalg.norm(g_new)) < gnorm):
                    accepted = True  # the decrease is below rounding; the gradient is not
                    break
                t *= 0.5
            if not accepted:
                break
            step, dg = cand - beta, g_new - g
            sy = float(step @ dg)
            if sy > 0:  # always, for a strongly convex objective, unless rounding hides it
                pairs.append((step, dg, 1.0 / sy))
                if len(pairs) > _LBFGS_MEMORY:
                    pairs.pop(0)
            beta, f, g = cand, f_new, g_new
            gnorm = float(np.linalg.norm(g))
            if float(np.linalg.norm(step)) <= 1e-15 * (1.0 + float(np.linalg.norm(beta))):
                break
    if gnorm > target:
        out = newton_solve(X, y, loss, alpha, xp, beta0=beta, tol=tol, max_iter=max_iter,
                           shift=shift)
        beta, n_newton, gnorm = out
        return (beta, it + n_newton, gnorm, None) if return_factor else (beta, it + n_newton,
                                                                           gnorm)
    # one Newton step with the Hessian here: Newton's precision for one Hessian
    L, _ = factor_with_jitter(objective_hessian(beta, X, y, loss, alpha, np), np)
    cand = beta - cho_solve(L, g, np)
    _, g_new = _value_and_gradient(cand, X, y, loss, alpha, shift)
    g_norm_new = float(np.linalg.norm(g_new))
    if g_norm_new <= gnorm:
        beta, gnorm, it = cand, g_norm_new, it + 1
    return (beta, it, gnorm, L) if return_factor else (beta, it, gnorm)


#: the exact solvers by name (``NewtonUnlearner(solver=...)``)
SOLVERS = {"quasi-newton": glm_solve, "newton": newton_solve}


def make_glm_data(n_samples, n_features, loss="logistic", *, n_scale=None, random_state=None):
    """Draw the high-dimensional GLM design of Pandey et al. (2025).

    Features ``x_i ~ N(0, I_p / n)`` (so ``||x_i|| ~ sqrt(p / n)``), true
    coefficients ``beta* ~ N(0, I_p)`` (so ``x_i^T beta* = O(1)``), and
    responses ``y_i ~ Bernoulli(sigmoid(x_i^T beta*))`` (logistic),
    ``Poisson(exp(x_i^T beta*))`` (poisson) or ``x_i^T beta* + N(0, 1)`` (squared).
    The rates of the unlearning theory only hold under this scaling.

    Parameters
    ----------
    n_samples, n_features : int
        ``n`` and ``p`` (>= 1).
    loss : {"logistic", "squared", "poisson"}, default="logistic"
        Response model.
    n_scale : int, optional
        Features are ``N(0, I_p / n_scale)``; default ``n_samples``. Set it to the
        training size when drawing training and test rows together.
    random_state : None, int or numpy.random.Generator
        Seed.

    Returns
    -------
    X : ndarray of shape (n_samples, n_features)
    y : ndarray of shape (n_samples,)
    beta : ndarray of shape (n_features,)
        The true coefficients.

    Examples
    --------
    >>> from statlearn.unlearning import make_glm_data
    >>> X, y, beta = make_glm_data(200, 100, random_state=0)
    >>> X.shape, sorted(set(y.tolist()))
    ((200, 100), [0.0, 1.0])
    >>> bool(abs((X ** 2).sum(axis=1).mean() - 0.5) < 0.05)
    True

    Training rows and fresh test rows from the same model:

    >>> X, y, beta = make_glm_data(200 + 1000, 100, n_scale=200, random_state=0)
    >>> X_train, X_test = X[:200], X[200:]
    """
    n = check_int(n_samples, "n_samples", low=1)
    p = check_int(n_features, "n_features", low=1)
    check_option(loss, "loss", LOSSES)
    scale_n = n if n_scale is None else check_int(n_scale, "n_scale", low=1)
    rng = check_rng(_scalar(random_state))  # a 0-d array is the seed it holds
    X = rng.standard_normal((n, p)) / np.sqrt(scale_n)
    beta = rng.standard_normal(p)
    z = X @ beta
    if loss == "logistic":
        y = (rng.random(n) < 1.0 / (1.0 + np.exp(-z))).astype(float)
    elif loss == "poisson":
        y = rng.poisson(np.exp(z)).astype(float)
    else:
        y = z + rng.standard_normal(n)
    return X, y, beta

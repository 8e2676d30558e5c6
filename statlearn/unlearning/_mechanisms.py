"""The removal mechanisms behind :class:`NewtonUnlearner`: one class per mechanism.

Each mechanism says which parameter combinations it accepts, what it keeps
from ``fit`` (an objective perturbation, a residual budget), how it moves the
noise-free state when rows are removed (its *step*), which noise it releases,
and how its releases compose. The estimator holds the data and the fitted
state; it creates the mechanism named by its ``mechanism`` parameter at
``fit`` and hands every request to it.

* :class:`NewtonMechanism` (``"newton"``): Pandey et al. (2025), one Newton
  step on the retained objective, a verified error bound with an exact refit
  when it exceeds the radius ``r``, and Gaussian noise ``N(0, (r/epsilon)^2 I)``;
  releases compose by the GDP rule.
* :class:`GuoMechanism` (``"guo"``): Guo et al. (2020), objective perturbation
  at fit, a Newton removal step, an accumulated data-dependent residual bound
  and a retrain when it exceeds the budget.
* :class:`SekhariMechanism` (``"sekhari"``): Sekhari et al. (2021), the
  stored-Hessian step with ``(epsilon, delta)`` Gaussian output noise
  calibrated on a-priori Lipschitz constants.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from ..base import _refuse_inactive_params
from ..utils import asarray_like, to_numpy
from ..utils._array_api import device, is_numpy_namespace
from ._glm import loss_derivatives, objective_hessian
from ._linalg import (
    CholeskyError,
    cho_solve,
    factor_with_jitter,
    woodbury_downdate_apply,
    woodbury_downdate_solve,
)
from ._privacy import compose_gdp, draw_noise, guo_noise_std, noise_radius, sekhari_noise_std
from ._warnings import UnlearningWarning

__all__ = [
    "MECHANISMS",
    "GuoMechanism",
    "Mechanism",
    "NewtonMechanism",
    "SekhariMechanism",
    "request_radius",
]

# sup |l'''| (Hessian-Lipschitz constant per unit ||x||^3) and sup |l'| where finite
_THIRD_DERIVATIVE_BOUND = {"squared": 0.0, "logistic": 1.0 / (6.0 * math.sqrt(3.0))}


def request_radius(cfg, alpha, n, m):
    """Data-independent radius ``r`` of a request removing ``m`` of ``n`` rows.

    ``r = C1 sqrt(C2 m^3 / (2 alpha nu n))`` of Pandey et al. (2025), Theorem 2
    (``nu = 1``), with ``C1 = C2 = 1`` when ``verify`` and ``max(1, ln n)``
    otherwise unless given (``polylog_c1``, ``polylog_c2``); a float
    ``noise_scale`` is ``r`` itself; ``alpha = 0`` has no finite radius.

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> from statlearn.unlearning._mechanisms import request_radius
    >>> cfg = SimpleNamespace(noise_scale="paper", verify=True, polylog_c1=None,
    ...                       polylog_c2=None)
    >>> request_radius(cfg, 0.5, 100, 1)
    0.1
    """
    if not isinstance(cfg.noise_scale, str):
        return float(cfg.noise_scale)
    if alpha == 0:
        return math.inf
    default = 1.0 if cfg.verify else max(1.0, math.log(n))
    c1 = default if cfg.polylog_c1 is None else float(cfg.polylog_c1)
    c2 = default if cfg.polylog_c2 is None else float(cfg.polylog_c2)
    return noise_radius(n, m, alpha, c1=c1, c2=c2)


def _take_rows(A, positions, xp):
    """Rows ``positions`` (host integers) of the array ``A`` of namespace ``xp``."""
    return xp.take(A, asarray_like(positions.astype(np.int64), A, dtype=xp.int64), axis=0)


#: below this ``sqrt(l'')`` a removed row's ``L^{-1} x_i`` is not recovered from ``W``
#: (its column ``L^{-1} sqrt(l''_i) x_i`` would be near the floating-point underflow)
_MIN_SQRT_WEIGHT = 1e-100


def _known_forward(est, g_base, d1, s, removed_now, removed_all, xp):
    """``(L^{-1} g_base, c)`` with ``g = g_base - U^T c``, or ``None`` (solve ``g`` itself).

    The request's gradient is ``g_base - X_m^T l'_m`` and the rows removed now are
    rows of ``U = sqrt(l'') X_removed``, so ``g = g_base - U^T c`` with
    ``c_i = l'_i / sqrt(l''_i)`` on those rows and 0 on rows removed before. When
    ``L^{-1} g_base`` is known (kept from ``fit`` for its gradient, or 0 at an
    assumed optimum), the forward solve then needs no right-hand side for ``g``.
    NumPy only; ``None`` as well when a removed row's weight is too small to
    divide by.
    """
    if d1 is None or not is_numpy_namespace(xp) or removed_now.size == 0:
        return None
    if g_base is None:
        t0 = np.zeros(est._X.shape[1], dtype=est._X.dtype)
    else:
        cached = getattr(est, "_state_linv", None)
        if cached is None or cached[0] is not g_base:
            return None
        t0 = cached[1]
    pos = np.searchsorted(removed_all, removed_now)
    s_now = s[pos, 0]
    if not np.all(s_now >= _MIN_SQRT_WEIGHT):
        return None
    c = np.zeros(removed_all.size, dtype=s.dtype)
    c[pos] = d1 / s_now
    return t0, c


def _outcome(beta, delta_cert, certified, fallback, residual, steps, hessian):
    return beta, {"delta_cert": delta_cert, "certified": certified, "fallback": fallback,
                  "residual": residual, "steps": steps, "hessian": hessian}


class Mechanism:
    """What the mechanisms share: the Newton direction and the certified error bound.

    A mechanism is created at ``fit`` from the estimator's parameters
    (``cfg``) and holds the fit-time state its requests need. The estimator
    calls, in this order: :meth:`check_params` (class level, before anything
    is computed), :meth:`check_design` and :meth:`prepare` at ``fit``, then
    :meth:`step` and :meth:`noise` at each request.

    Examples
    --------
    >>> from statlearn.unlearning._mechanisms import MECHANISMS
    >>> list(MECHANISMS)
    ['newton', 'guo', 'sekhari']
    >>> MECHANISMS["newton"].frees_intercept, MECHANISMS["guo"].frees_intercept
    (True, False)
    """

    name = ""
    #: the intercept may stay unpenalised (the certificate profiles it out)
    frees_intercept = False
    #: ``retrain_reference`` may warm-start from the current noise-free state
    warm_starts_reference = True
    #: ``retrain_reference(add_noise=True)`` can draw this mechanism's noise
    has_reference_noise = False

    def __init__(self, cfg):
        self.cfg = cfg
        #: linear term ``shift^T beta`` of a perturbed objective (``None``: none)
        self.shift = None

    # ------------------------------------------------------------ validation
    @classmethod
    def check_params(cls, params):
        """Refuse parameter combinations the mechanism does not support."""

    def check_design(self, X):
        """Refuse a design matrix (intercept column included) the mechanism cannot cover."""

    # ------------------------------------------------------------------ fit
    def prepare(self, est):
        """Fit-time state, set before the exact fit (which sees :attr:`shift`)."""

    # ------------------------------------------------------------- requests
    def step(self, est, removed_now, removed_all, ret, r, rng):
        """Noise-free state after the request, and what the report records about it.

        ``n_newton_steps`` Newton steps on the retained objective from the
        current noise-free state; removing every row gives the penalty's
        minimiser 0. :meth:`_verify` then bounds the error of the result.
        """
        xp = est._xp
        alpha = est._alpha
        p = est._X.shape[1]
        if ret.n == 0:
            # everything removed: L_{-M} = alpha ||beta||^2 / 2, minimiser 0
            beta = xp.zeros(p, dtype=est._X.dtype, device=device(est._X))
            return _outcome(beta, 0.0, alpha > 0, False, 0.0, 0, "none")
        beta = est._beta
        n_steps = int(self.cfg.n_newton_steps)
        hessian = "direct"
        for step in range(n_steps):
            direction, kind = self.newton_direction(est, beta, step, ret, removed_now,
                                                    removed_all)
            if step == 0:
                hessian = kind
            beta = beta - direction
        return self._verify(est, beta, ret, r, n_steps, hessian)

    def _verify(self, est, beta, ret, r, n_steps, hessian):
        """Certified bound of the step's output, and the output to release."""
        return self._unverified(est, beta, ret, n_steps, hessian, certified=False)

    def _unverified(self, est, beta, ret, n_steps, hessian, certified):
        """No fallback: ``delta_cert`` is only reported (computed when ``verify``)."""
        alpha = est._alpha
        delta_cert = residual = math.nan
        if self.cfg.verify and alpha > 0:
            delta_cert, residual = self.certificate(est, beta, ret)
        if alpha == 0:
            warnings.warn("alpha=0: the objective is not strongly convex; no certificate "
                          "is available.", UnlearningWarning, stacklevel=5)
        certified = certified and alpha > 0
        return _outcome(beta, delta_cert, certified, False, residual, n_steps, hessian)

    def noise(self, est, n_before, m, r, rng, size):
        """``(sigma, noise name, draw or None)`` released with the request."""
        raise NotImplementedError

    @staticmethod
    def gdp_mu(report):
        """GDP parameter of one release for the composed ledger; NaN: no GDP guarantee."""
        return math.nan

    @classmethod
    def ledger(cls, history):
        """Composed GDP parameter ``sqrt(sum mu_k^2)`` of the releases in ``history``.

        Empty requests released without noise are skipped; a release without a
        GDP guarantee makes the whole sequence NaN (Dong, Roth and Su composition).
        """
        mus = []
        for rep in history:
            if rep.noise == "none" and rep.m == 0:
                continue
            mu = cls.gdp_mu(rep)
            if math.isnan(mu):
                return math.nan
            mus.append(mu)
        return compose_gdp(mus)

    # ------------------------------------------------------- shared pieces
    def newton_direction(self, est, beta, step, ret, removed_now, removed_all):
        """``H^{-1} g`` for the retained objective, and which Hessian gave it.

        The first step of a request downdates the stored Cholesky factor of the
        full Hessian by Woodbury (``"stored"``) when there is one, or applies
        the downdate to the stored influence rows ``H^{-1} x_i``
        (``"influence"``, ``store_influence=True``: no ``p x p`` solve);
        otherwise, or when the downdate is not numerically positive definite,
        the retained Hessian is assembled at ``beta`` (``"direct"``). The first
        step's gradient is the one kept at ``beta`` for the rows kept before the
        request (``est._state_grad``, from ``fit`` or the previous certificate)
        minus the terms of the rows removed now (``O(m p)``, the same value as a
        pass over the kept rows); without it, a pass over the kept rows.
        """
        xp = est._xp
        cfg = self.cfg
        state = getattr(est, "_state_grad", None) if step == 0 else None
        # g = g_base - X_m^T l'_m: the kept gradient before the request minus the rows
        # removed now (g_base = 0 at an assumed optimum), or one pass over the kept rows
        g_base, X_m, d1 = None, None, None
        use_stored = (est.hessian_cholesky_ is not None and step == 0)
        # the rows removed by every request so far (U's rows), gathered once: when they
        # are the rows removed now (the first request), X_m is a permutation of them,
        # and at the fit point their l' and l'' come from one evaluation
        X_r = y_r = z_r = pos = None
        if use_stored:
            X_r, y_r = est._take(removed_all)
            z_r = X_r @ est._beta_fit
        if cfg.assume_optimal and step == 0 or state is not None and state[0] is beta:
            if not cfg.assume_optimal:
                g_base = state[1]
            if X_r is not None and removed_now.size == removed_all.size:
                pos = asarray_like(np.searchsorted(removed_all, removed_now).astype(np.int64),
                                   X_r, dtype=xp.int64)
                X_m, y_m = xp.take(X_r, pos, axis=0), xp.take(y_r, pos, axis=0)
            else:
                X_m, y_m = est._take(removed_now)
            at_fit = beta is est._beta_fit and pos is not None
            d1, d2_r = loss_derivatives(y_r if at_fit else y_m, z_r if at_fit else X_m @ beta,
                                        cfg.loss, xp)
            if at_fit:
                d1 = xp.take(d1, pos, axis=0)
            g = -(X_m.T @ d1) if g_base is None else g_base - X_m.T @ d1
        else:
            g = g_base = ret.gradient(beta)
            at_fit = False
        if use_stored:
            if not at_fit:
                _, d2_r = loss_derivatives(y_r, z_r, cfg.loss, xp)
            s = xp.expand_dims(xp.sqrt(d2_r), axis=1)
            U = s * X_r
            Z = getattr(est, "influence_", None)
            try:
                if Z is None:
                    split = _known_forward(est, g_base, d1, s, removed_now, removed_all, xp)
                    return (woodbury_downdate_solve(est.hessian_cholesky_, U, g, xp, split=split),
                            "stored")
                # by linearity H^{-1} g = H^{-1} g_base - (H^{-1} X_m^T) l'_m: the first part
                # solved once (kept from fit at the fit point), the second from the rows of Z
                h = 0.0
                if g_base is not None:
                    cached = getattr(est, "_state_hinv", None)
                    h = (cached[1] if cached is not None and cached[0] is g_base
                         else cho_solve(est.hessian_cholesky_, g_base, xp))
                if d1 is not None:
                    h = h - _take_rows(Z, removed_now, xp).T @ d1
                V = s * _take_rows(Z, removed_all, xp)
                return woodbury_downdate_apply(h, U, V, xp), "influence"
            except CholeskyError:
                warnings.warn("Woodbury downdate was not numerically positive definite; "
                              "assembling the retained Hessian directly.", RuntimeWarning,
                              stacklevel=3)
        X_keep, y_keep = ret.rows
        H = objective_hessian(beta, X_keep, y_keep, cfg.loss, est._pen, xp)
        if est._alpha == 0:
            return xp.linalg.pinv(H) @ g, "direct"
        L, _ = factor_with_jitter(H, xp, name="retained Hessian")
        return cho_solve(L, g, xp), "direct"

    def certificate(self, est, theta, ret, return_gradient=False):
        """Certified bound on the coefficient error and the gradient norm it comes from.

        Returns ``(||grad P_{-M}(coef)|| / alpha, ||grad P_{-M}(coef)||)``, and
        with ``return_gradient`` also the gradient of ``L_{-M}`` at ``theta``
        (``None`` with a free intercept, whose gradient is taken elsewhere).
        ``P_{-M}`` is the retained objective with the unpenalised intercept
        minimised out: partial minimisation keeps convexity, so ``P_{-M}`` is
        ``alpha``-strongly convex in the coefficients that carry the noise.
        Without a free intercept it is ``L_{-M}`` itself.
        """
        xp = est._xp
        full = None
        if est._free_intercept:
            g = ret.gradient(est._with_profiled_intercept(theta, ret.mask_host))[:-1]
        else:
            g = full = ret.gradient(theta)
        residual = float(xp.linalg.vector_norm(g))
        if return_gradient:
            return residual / est._alpha, residual, full
        return residual / est._alpha, residual


class NewtonMechanism(Mechanism):
    """One verified Newton step plus Gaussian noise (Pandey et al., 2025).

    The step's output is released with noise ``N(0, sigma^2 I)``,
    ``sigma = r / epsilon``, once the certified bound
    ``||grad P_{-M}|| / alpha`` is at most the radius ``r``; otherwise the
    exact solver on the retained rows replaces it (fallback). Releases
    compose by the GDP rule.

    Examples
    --------
    >>> from statlearn.unlearning import NewtonUnlearner, make_glm_data
    >>> X, y, _ = make_glm_data(100, 20, random_state=0)
    >>> est = NewtonUnlearner(random_state=0).fit(X, y).unlearn([3])
    >>> type(est._mechanism).__name__, est.unlearn_report_.noise
    ('NewtonMechanism', 'gaussian')
    """

    name = "newton"
    frees_intercept = True
    has_reference_noise = True

    @classmethod
    def check_params(cls, params):
        # the baselines' parameters: accepted and never read here
        _refuse_inactive_params(params, ("delta", "feature_bound"),
                                "with mechanism='newton' (Gaussian noise under GDP needs no "
                                "delta, and the certificate no a-priori row bound)")

    def _verify(self, est, beta, ret, r, n_steps, hessian):
        alpha = est._alpha
        if not self.cfg.verify or alpha == 0:
            return self._unverified(est, beta, ret, n_steps, hessian, certified=False)
        delta_cert, residual, grad = self.certificate(est, beta, ret, return_gradient=True)
        fallback = False
        certified = delta_cert <= r
        if not certified:
            X_keep, y_keep = ret.rows
            with warnings.catch_warnings():
                # the outcome is checked (and reported) right below
                warnings.simplefilter("ignore", ConvergenceWarning)
                beta, _, _ = est._solve(X_keep, y_keep, self.cfg.loss, est._pen, est._xp,
                                        beta0=beta, tol=self.cfg.tol,
                                        max_iter=self.cfg.max_iter)
            delta_cert, _, grad = self.certificate(est, beta, ret, return_gradient=True)
            fallback = True
            # the released law is the retrained one when the refit reached its tolerance
            certified = delta_cert <= max(r, self.cfg.tol)
        out = _outcome(beta, delta_cert, bool(certified), fallback, residual, n_steps,
                       hessian)
        if grad is not None:
            # the next request starts from this state: its gradient needs no new pass
            out[1]["state_gradient"] = (beta, grad)
        return out

    def noise(self, est, n_before, m, r, rng, size):
        cfg = self.cfg
        if cfg.noise is not None and math.isfinite(r):
            b = draw_noise(cfg.noise, r, cfg.epsilon, size, random_state=rng)
            return r / cfg.epsilon, cfg.noise, b
        return 0.0, "none", None

    def reference_draws(self, est, beta, removed, r, n_draws, rng):
        """Draws of the retrained reference mechanism ``beta_hat_{-M} + b`` (host arrays).

        The noise goes on the coefficients; a free intercept is refitted on the
        rows kept (``~removed``) for each draw, as :meth:`NewtonUnlearner.unlearn`
        does for its release.
        """
        cfg = self.cfg
        p_noise = beta.shape[0] - 1 if est._free_intercept else beta.shape[0]
        b = draw_noise(cfg.noise, r, cfg.epsilon, p_noise, n_draws=n_draws, random_state=rng)
        if not est._free_intercept:
            return beta + b
        keep = (~removed).astype(float)
        draws = np.atleast_2d(b)
        out = np.empty((draws.shape[0], beta.shape[0]))
        for k, bk in enumerate(draws):
            out[k] = to_numpy(est._with_profiled_intercept(
                asarray_like(beta + np.append(bk, 0.0), est._X), keep))
        return out[0] if n_draws is None else out

    @staticmethod
    def gdp_mu(report):
        if report.noise == "laplace_l2":
            return math.nan
        return report.epsilon if report.noise == "gaussian" else math.inf


class _BaselineMechanism(Mechanism):
    """The comparison baselines: bounded loss derivatives and Gaussian noise only."""

    @classmethod
    def check_params(cls, params):
        if params.loss == "poisson":
            raise ValueError(
                f"mechanism={params.mechanism!r} needs bounded loss derivatives and supports "
                "loss in ['logistic', 'squared'], got loss='poisson'."
            )
        if params.noise == "laplace_l2":
            raise ValueError(
                f"mechanism={params.mechanism!r} uses Gaussian noise; noise must be "
                "'gaussian' or None."
            )


class GuoMechanism(_BaselineMechanism):
    """Objective perturbation, Newton removal and a residual budget (Guo et al., 2020).

    ``fit`` minimises the objective plus ``shift^T beta`` with
    ``shift ~ N(0, sigma^2 I)``; each request takes one Newton step and adds
    the data-dependent residual bound ``gamma ||X|| ||H^-1 D|| ||X H^-1 D||``
    (``gamma = 1/4`` for the logistic loss, 0 for the squared loss) to the
    accumulated one. Past the budget ``alpha * r(m=1)`` (or ``noise_scale``
    when a float) the model is retrained with a fresh perturbation.

    Examples
    --------
    >>> from statlearn.unlearning import NewtonUnlearner, make_glm_data
    >>> X, y, _ = make_glm_data(100, 20, random_state=0)
    >>> est = NewtonUnlearner(mechanism="guo", random_state=0).fit(X, y).unlearn([3])
    >>> est.unlearn_report_.noise
    'gaussian-objective'
    """

    name = "guo"
    warm_starts_reference = False

    @classmethod
    def check_params(cls, params):
        _refuse_inactive_params(params, ("n_newton_steps", "feature_bound"),
                                "with mechanism='guo' (one Newton step per request, and a "
                                "residual bound computed from the data)")
        super().check_params(params)

    def budget(self, alpha, n):
        """Residual budget: ``alpha * r(n, m=1)``, or ``noise_scale`` when a float."""
        if isinstance(self.cfg.noise_scale, str):
            return alpha * noise_radius(n, 1, alpha)
        return float(self.cfg.noise_scale)

    def prepare(self, est):
        n, p = est._X.shape
        self.sigma = guo_noise_std(self.budget(est._alpha, n), self.cfg.epsilon, self.cfg.delta)
        self.shift = asarray_like(self.sigma * est._rng.standard_normal(p), est._X)
        self.residual = 0.0

    def step(self, est, removed_now, removed_all, ret, r, rng):
        xp = est._xp
        alpha = est._alpha
        p = est._X.shape[1]
        n_keep = ret.n
        budget = self.budget(alpha, est.removed_.shape[0])
        if n_keep == 0:
            beta = -self.shift / alpha
            return _outcome(beta, 0.0, True, False, 0.0, 0, "none")
        beta = est._beta
        direction, kind = self.newton_direction(est, beta, 0, ret, removed_now, removed_all)
        beta = beta - direction
        X_keep, y_keep = ret.rows
        # data-dependent residual bound of Guo et al.: gamma ||X|| ||H^-1 D|| ||X H^-1 D||
        gamma = 0.25 if self.cfg.loss == "logistic" else 0.0
        if gamma > 0:
            xnorm = float(xp.linalg.matrix_norm(X_keep, ord=2))
            bound = gamma * xnorm * float(xp.linalg.vector_norm(direction)) * float(
                xp.linalg.vector_norm(X_keep @ direction))
        else:
            bound = 0.0
        self.residual += bound
        residual = float(xp.linalg.vector_norm(ret.gradient(beta)))
        fallback = False
        if self.residual > budget:
            # retrain from scratch with a fresh objective perturbation
            self.shift = asarray_like(self.sigma * rng.standard_normal(p), est._X)
            beta, _, _ = est._solve(X_keep, y_keep, self.cfg.loss, alpha, xp,
                                    tol=self.cfg.tol, max_iter=self.cfg.max_iter,
                                    shift=self.shift)
            self.residual = 0.0
            fallback = True
        return _outcome(beta, residual / alpha, True, fallback, residual, 1, kind)

    def noise(self, est, n_before, m, r, rng, size):
        # the noise is the objective perturbation drawn at fit (or at the last retrain)
        return self.sigma, "gaussian-objective", None


class SekhariMechanism(_BaselineMechanism):
    """Stored-Hessian Newton step with ``(epsilon, delta)`` output noise (Sekhari et al., 2021).

    The noise scale uses the Lipschitz constants ``L = R`` and
    ``M = R^3 sup |l'''|`` of the loss class, from the a-priori row bound
    ``R = feature_bound`` (never from the data); ``fit`` refuses rows whose
    norm exceeds ``R``.

    Examples
    --------
    >>> from statlearn.unlearning import NewtonUnlearner, make_glm_data
    >>> X, y, _ = make_glm_data(100, 20, random_state=0)
    >>> est = NewtonUnlearner(mechanism="sekhari", feature_bound=10.0, random_state=0)
    >>> est.fit(X, y).unlearn([3]).unlearn_report_.certified
    True
    """

    name = "sekhari"

    @classmethod
    def check_params(cls, params):
        if params.feature_bound is None:
            raise ValueError(
                "mechanism='sekhari' needs feature_bound, an a-priori bound on the norm of "
                "every design row: its noise scale depends on the loss's Lipschitz constants, "
                "which must not be computed from the data.")
        super().check_params(params)

    def check_design(self, X):
        norms = np.linalg.norm(to_numpy(X), axis=1)
        if np.max(norms) > float(self.cfg.feature_bound):
            raise ValueError(
                f"feature_bound={self.cfg.feature_bound!r} is smaller than the largest "
                f"design-row norm {np.max(norms):.4g} (intercept column included): the "
                "Sekhari et al. noise would not cover these rows. Pass a larger a-priori "
                "bound or normalise the rows.")

    def _verify(self, est, beta, ret, r, n_steps, hessian):
        # certified under its assumptions (strong convexity, the a-priori bounds)
        return self._unverified(est, beta, ret, n_steps, hessian, certified=True)

    def noise(self, est, n_before, m, r, rng, size):
        # Lipschitz constants of the loss class from the a-priori row bound R (never
        # from the data): |dl/dz| <= 1 gives L = R; a bound c3 on the third
        # derivative gives M = c3 R^3
        cfg = self.cfg
        R = float(cfg.feature_bound)
        sigma = sekhari_noise_std(n_before, max(m, 1), est._alpha, R,
                                  _THIRD_DERIVATIVE_BOUND[cfg.loss] * R**3,
                                  cfg.epsilon, cfg.delta)
        if cfg.noise is not None and sigma > 0:
            b = draw_noise("gaussian", sigma, 1.0, size, random_state=rng)
            return sigma, "gaussian", b
        return sigma, "none", None


#: the mechanisms by the name the ``mechanism`` parameter takes
MECHANISMS = {cls.name: cls for cls in (NewtonMechanism, GuoMechanism, SekhariMechanism)}

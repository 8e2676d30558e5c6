"""NewtonUnlearner: certified removal from regularised GLMs by one Newton step + noise."""

from __future__ import annotations

import hashlib
import math
import time
import warnings
from types import SimpleNamespace

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils._tags import ClassifierTags, RegressorTags
from sklearn.utils.metaestimators import available_if
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import validate_data

from ..base import FitStateMixin, Integral, Level, Options, Real
from ..utils import (
    asarray_like,
    check_rng,
    get_namespace,
    to_numpy,
)
from ..utils._array_api import is_numpy_namespace
from ..utils._validation import _scalar
from ._glm import LOSSES, loss_derivatives, newton_solve, objective_hessian
from ._linalg import CholeskyError, cho_solve, factor_with_jitter, woodbury_downdate_solve
from ._privacy import (
    NOISES,
    compose_gdp,
    draw_noise,
    guo_noise_std,
    noise_radius,
    sekhari_noise_std,
)
from ._requests import Retained, check_removal_indices
from ._results import UnlearningReport

__all__ = ["NewtonUnlearner", "UnlearningWarning"]

MECHANISMS = ("newton", "guo", "sekhari")
# sup |l'''| (Hessian-Lipschitz constant per unit ||x||^3) and sup |l'| where finite
_THIRD_DERIVATIVE_BOUND = {"squared": 0.0, "logistic": 1.0 / (6.0 * math.sqrt(3.0))}


class UnlearningWarning(UserWarning):
    """Unlearning ran outside the regime covered by the theory.

    Raised for requests with ``m > n^(1/4)`` (the GED bound no longer vanishes)
    and for ``alpha = 0`` with ``allow_singular=True`` (no certificate).

    Examples
    --------
    >>> import warnings
    >>> from statlearn.unlearning import NewtonUnlearner, UnlearningWarning, make_glm_data
    >>> X, y, _ = make_glm_data(16, 4, random_state=0)
    >>> with warnings.catch_warnings(record=True) as w:
    ...     warnings.simplefilter("always")
    ...     _ = NewtonUnlearner(random_state=0).fit(X, y).unlearn([0, 1, 2])
    >>> any(issubclass(x.category, UnlearningWarning) for x in w)
    True
    """


def _expit(z):
    e = np.exp(-np.abs(z))
    return np.where(z >= 0, 1.0 / (1.0 + e), e / (1.0 + e))


def _device(x):
    import array_api_compat

    return array_api_compat.device(x)


def _namespace_of(X):
    """Array-API namespace of ``X``; anything that is not an array-API array goes to NumPy."""
    import array_api_compat
    import array_api_compat.numpy as np_xp

    if array_api_compat.is_array_api_obj(X) and not isinstance(X, np.ndarray):
        return get_namespace(X)
    return np_xp


class NewtonUnlearner(FitStateMixin, BaseEstimator):
    """Regularised GLM that can forget training points: one Newton step + Gaussian noise.

    ``fit`` computes the exact minimiser of
    ``L(beta) = sum_i l(y_i | x_i^T beta) + alpha ||beta||^2 / 2``
    (a SUM of losses). ``unlearn(M)`` releases
    ``beta_tilde = beta_hat - H_{-M}^{-1} grad L_{-M}(beta_hat) + b``, one Newton
    step on the retained objective followed by noise ``b ~ N(0, sigma^2 I)``,
    ``sigma = r / epsilon``, with the data-independent radius
    ``r = C1 sqrt(C2 m^3 / (2 alpha nu n))`` of Pandey et al. (2025). A
    verification step bounds the Newton error by strong convexity; when the
    bound exceeds ``r`` the exact solver replaces the step (fallback), so the
    released model is ``epsilon``-Gaussian certifiable for the realised data.

    Parameters
    ----------
    loss : {"logistic", "squared", "poisson"}, default="logistic"
        GLM loss. ``"logistic"`` makes a binary classifier (``predict_proba``);
        the others are regressors (``predict`` returns ``x^T beta`` and
        ``exp(x^T beta)`` respectively).
    alpha : float, default=1.0
        Ridge strength ``lambda > 0`` (0 only with ``allow_singular=True``).
    penalty : {"l2"}, default="l2"
        Penalty ``r(beta) = ||beta||^2 / 2`` (strong-convexity constant ``nu = 1``).
    epsilon : float, default=0.75
        Target Gaussian-certifiability parameter (``mu`` of ``mu``-GDP).
    noise : {"gaussian", "laplace_l2"} or None, default="gaussian"
        Noise added at unlearning; ``"laplace_l2"`` (density
        ``exp(-epsilon ||b|| / r)``) is the epsilon-certifiability baseline of
        Zou et al. (2025), for comparisons; ``None`` adds none (no privacy).
    noise_scale : "paper" or float, default="paper"
        ``"paper"``: ``r = C1 sqrt(C2 m^3 / (2 alpha nu n))``; a float gives ``r``.
    polylog_c1, polylog_c2 : float or None, default=None
        ``C1``, ``C2``. ``None`` means 1 when ``verify=True`` and ``max(1, ln n)``
        when ``verify=False``.
    verify : bool, default=True
        Compute ``delta_cert = ||grad L_{-M}(beta^(1))|| / (alpha nu)`` and fall back
        to the exact solver when ``delta_cert > r``.
    n_newton_steps : int, default=1
        Newton steps per request (2 gives the Zou et al. two-step variant).
    mechanism : {"newton", "guo", "sekhari"}, default="newton"
        ``"guo"``: Guo et al. (2020) objective perturbation at fit, Newton removal,
        accumulated data-dependent residual bound, retrain when the budget
        ``alpha * r(m=1)`` (or ``noise_scale`` when a float) is exceeded.
        ``"sekhari"``: Sekhari et al. (2021) stored-Hessian step with
        ``(epsilon, delta)`` output noise. Both are for comparisons and support
        the logistic and squared losses.
    feature_bound : float or None, default=None
        A-priori bound ``R`` on the norm of every design row (including the
        intercept column when the intercept is fitted), needed by
        ``mechanism="sekhari"`` only: its noise uses the Lipschitz constants
        ``L = R`` and ``M = R^3 sup |d^3 l / dz^3|`` of the loss class, which
        must not be read off the data (noise calibrated on the data would
        leak it). ``fit`` refuses rows whose norm exceeds ``R``.
    delta : float, default=1e-5
        ``delta`` of the ``(epsilon, delta)`` baselines.
    store_hessian : bool, default=True
        Keep the Cholesky factor of the full Hessian at ``beta_hat``; the
        first Newton step of each request then uses a Woodbury downdate
        (``O(p^2 m + m^3)``) instead of assembling ``H_{-M}`` (``O(n p^2 + p^3)``).
        After earlier requests the stored Hessian is the one at the fit point
        (a quasi-Newton step, still verified).
    assume_optimal : bool, default=False
        Use only the removed points for the gradient (valid when the current
        point is the exact minimiser); the default uses the full retained gradient.
    add_noise_on_empty : bool, default=True
        An empty request still releases ``beta + b`` with the noise of a
        one-point request; ``False`` makes it a no-op.
    allow_singular : bool, default=False
        Accept ``alpha = 0`` with pseudo-inverse solves; nothing is certified then.
    fit_intercept : bool, default=True
        Fit an unpenalised intercept, as scikit-learn's ``Ridge`` and
        ``LogisticRegression`` do, so the same data give the same model. The
        objective stays ``alpha``-strongly convex in the coefficients once the
        intercept is profiled out, which is what the certificate uses; the
        noise is added to the coefficients only, and the released intercept is
        the exact minimiser over the intercept given the released
        coefficients on the rows still kept (a post-processing that the
        retrained reference applies in the same way, so the guarantee covers
        it). The baselines ``mechanism="guo"`` and ``"sekhari"`` penalise the
        intercept like a coefficient (their guarantees need strong convexity
        in every coordinate). Use ``False`` for the paper's setting (no
        intercept).
    tol : float, default=1e-10
        Exact-solver tolerance: stop when ``||grad L|| <= tol * alpha``, so the
        distance to the minimiser is at most ``tol``.
    max_iter : int, default=100
        Newton iterations of the exact solver.
    random_state : None, int, numpy.random.Generator or RandomState, default=None
        Seed of the noise stream (read at ``fit``); a request may bring its own
        stream instead (``unlearn(random_state=...)``).

    Attributes
    ----------
    coef_ : array of shape (n_features,)
        Released coefficients (after the last request, including its noise).
    intercept_ : float
        Released intercept (0.0 when ``fit_intercept=False``).
    loss_ : str
        Loss used at ``fit``. Predictions and removal requests use the
        parameters of ``fit``; after ``set_params`` every output and request
        raises :class:`~statlearn.base.StaleFitError` until the next ``fit``
        (or until the parameter is set back).
    classes_ : ndarray of shape (2,)
        Class labels (logistic loss only).
    n_features_in_ : int
        Number of features seen at ``fit``.
    n_iter_ : int
        Newton iterations of the exact fit.
    hessian_cholesky_ : array of shape (p, p) or None
        Lower Cholesky factor of the full Hessian at the fit point.
    removed_ : ndarray of bool of shape (n_samples,)
        Which training rows have been removed so far.
    unlearn_report_ : UnlearningReport or None
        Report of the last request (audit only, never publish it).
    history_ : list of UnlearningReport
        Reports of all requests.
    sigma_, r_, delta_cert_, mu_effective_ : float or None
        Shortcuts to the fields of ``unlearn_report_`` (``None`` before any request).
    mu_spent_ : float
        Composed GDP parameter ``sqrt(sum_k epsilon_k^2)`` of the released
        sequence (Dong, Roth and Su composition; an extension beyond the paper's
        single-batch theorem). ``inf`` when releases had no noise, NaN for the
        non-Gaussian-certifiable options (``laplace_l2``, ``guo``, ``sekhari``).

    Notes
    -----
    **Parameter mapping.** scikit-learn's ``Ridge(alpha=a)`` minimises
    ``||y - X w - b||^2 + a ||w||^2``, i.e. twice our objective with
    ``alpha = a``: same minimiser (the intercept ``b`` is unpenalised in both).
    ``LogisticRegression(C=c)`` minimises ``c sum logloss + ||w||^2 / 2``: our
    ``alpha = 1 / c``. The defaults agree (``alpha = 1``, intercept on).

    **Preprocessing.** Only this estimator forgets. A scaler or encoder fitted
    before it (for example ``StandardScaler`` in a ``Pipeline``) keeps the
    statistics of the forgotten rows; fit such steps on data that will never
    be removed, or refit the whole pipeline instead of unlearning.

    **Decisions where the source leaves room.** The polylog factors ``C1(n)``,
    ``C2(n)`` of Theorem 2 are not given; with the verification on, ``C1 = C2 = 1``
    is safe because a too-small ``r`` only triggers an exact refit, and growing
    polylogs would swamp the model with noise at moderate ``n``. Without
    verification we use ``max(1, ln n)`` each and the guarantee holds with
    probability ``1 - phi_n`` only. ``n`` in ``r`` is the number of training points
    before the request. A request with ``m = 0`` (when ``add_noise_on_empty``)
    is calibrated as ``m = 1``, since ``r(m=0) = 0`` would release the model
    without noise. After a fallback the released law is exactly the retrained
    one. Sequential requests compose by the GDP rule; each starts from the
    previous noise-free state and is verified against the exact retrain on all
    points still kept.

    The realised quantities in :class:`UnlearningReport` depend on the removed
    data and are for auditing only.

    References
    ----------
    .. [1] A. Pandey, A. Auddy, H. Zou, A. Maleki, S. Kulkarni. "Gaussian
       certified unlearning in high dimensions: a hypothesis testing approach."
       ICLR 2026, arXiv:2510.13094.
    .. [2] H. Zou, A. Auddy, et al. "Certified data removal under
       high-dimensional settings." arXiv:2505.07640, 2025.
    .. [3] C. Guo et al. "Certified data removal from machine learning models."
       ICML 2020.
    .. [4] A. Sekhari et al. "Remember what you want to forget." NeurIPS 2021.

    Examples
    --------
    >>> from statlearn.unlearning import NewtonUnlearner, make_glm_data
    >>> X, y, _ = make_glm_data(300, 150, random_state=0)
    >>> est = NewtonUnlearner(alpha=0.5, epsilon=0.75, random_state=0).fit(X, y)
    >>> est = est.unlearn([0, 1])
    >>> rep = est.unlearn_report_
    >>> rep.m, rep.certified, rep.fallback
    (2, True, False)
    >>> bool(rep.delta_cert <= rep.r)
    True
    >>> est.predict(X[:3]).shape
    (3,)
    """

    def __init__(self, loss="logistic", alpha=1.0, penalty="l2", epsilon=0.75,
                 noise="gaussian", noise_scale="paper", polylog_c1=None, polylog_c2=None,
                 verify=True, n_newton_steps=1, mechanism="newton", delta=1e-5,
                 store_hessian=True, assume_optimal=False, add_noise_on_empty=True,
                 allow_singular=False, fit_intercept=True, tol=1e-10, max_iter=100,
                 feature_bound=None, random_state=None):
        self.loss = loss
        self.alpha = alpha
        self.penalty = penalty
        self.epsilon = epsilon
        self.noise = noise
        self.noise_scale = noise_scale
        self.polylog_c1 = polylog_c1
        self.polylog_c2 = polylog_c2
        self.verify = verify
        self.n_newton_steps = n_newton_steps
        self.mechanism = mechanism
        self.delta = delta
        self.store_hessian = store_hessian
        self.assume_optimal = assume_optimal
        self.add_noise_on_empty = add_noise_on_empty
        self.allow_singular = allow_singular
        self.fit_intercept = fit_intercept
        self.tol = tol
        self.max_iter = max_iter
        self.feature_bound = feature_bound
        self.random_state = random_state

    _parameter_constraints = {
        "loss": [Options(list(LOSSES))],
        "alpha": [Real(0)],  # 0 only with allow_singular, checked in fit
        "penalty": [Options(["l2"])],
        "epsilon": [Real(0, None, closed="neither")],
        "noise": [Options([*NOISES, None])],
        "noise_scale": [Options(["paper"]), Real(0)],
        "polylog_c1": [None, Real(0, None, closed="neither")],
        "polylog_c2": [None, Real(0, None, closed="neither")],
        "verify": ["boolean"],
        "n_newton_steps": [Integral(1)],
        "mechanism": [Options(list(MECHANISMS))],
        "delta": [Level()],
        "store_hessian": ["boolean"],
        "assume_optimal": ["boolean"],
        "add_noise_on_empty": ["boolean"],
        "allow_singular": ["boolean"],
        "fit_intercept": ["boolean"],
        "tol": [Real(0, None, closed="neither")],
        "max_iter": [Integral(1)],
        "feature_bound": [None, Real(0, None, closed="neither")],
        "random_state": ["random_state"],
    }

    @classmethod
    def _statlearn_test_instances(cls):
        return [cls(random_state=0), cls(loss="squared", random_state=0),
                cls(loss="poisson", random_state=0),
                cls(loss="squared", fit_intercept=False, random_state=0)]

    # ------------------------------------------------------------------ tags
    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        tags.array_api_support = True
        if self.loss == "logistic":
            tags.estimator_type = "classifier"
            tags.classifier_tags = ClassifierTags(multi_class=False)
        else:
            tags.estimator_type = "regressor"
            tags.regressor_tags = RegressorTags()
            tags.target_tags.positive_only = self.loss == "poisson"
        return tags

    # ------------------------------------------------------------ validation
    def _check_params(self):
        """Checks across parameters (each one alone is checked by its constraint)."""
        alpha = float(self.alpha)
        if alpha == 0 and not self.allow_singular:
            raise ValueError(
                "alpha must be > 0: the certificate needs an alpha-strongly convex objective "
                "(pass allow_singular=True to accept alpha=0 without any certificate)."
            )
        if self.feature_bound is None and self.mechanism == "sekhari":
            raise ValueError(
                "mechanism='sekhari' needs feature_bound, an a-priori bound on the norm of "
                "every design row: its noise scale depends on the loss's Lipschitz constants, "
                "which must not be computed from the data.")
        if self.mechanism != "newton" and self.loss == "poisson":
            raise ValueError(
                f"mechanism={self.mechanism!r} needs bounded loss derivatives and supports "
                "loss in ['logistic', 'squared'], got loss='poisson'."
            )
        if self.mechanism != "newton" and self.noise == "laplace_l2":
            raise ValueError(
                f"mechanism={self.mechanism!r} uses Gaussian noise; noise must be "
                "'gaussian' or None."
            )
        return alpha

    # -------------------------------------------------------------------- fit
    def fit(self, X, y):
        """Fit the exact regularised GLM and prepare for unlearning.

        Parameters
        ----------
        X : array of shape (n_samples, n_features)
            Training features (NumPy, or any array-API array such as CuPy).
        y : array of shape (n_samples,)
            Targets: two classes for ``"logistic"``, reals for ``"squared"``,
            non-negative counts for ``"poisson"``.

        Returns
        -------
        self : NewtonUnlearner
        """
        alpha = self._check_params()
        self._cfg = SimpleNamespace(**self.get_params(deep=False))
        self.loss_ = self._cfg.loss
        xp = _namespace_of(X)
        if is_numpy_namespace(xp):
            y_numeric = self._cfg.loss != "logistic"
            X, y = validate_data(self, X, y, dtype=np.float64, y_numeric=y_numeric)
            X = np.asarray(X, dtype=np.float64)
            y_host = np.asarray(y)
        else:
            X = self._validate_xp(X, xp, reset=True)
            y_host = to_numpy(y)
            if y_host.ndim != 1 or y_host.shape[0] != X.shape[0]:
                raise ValueError(f"y must be 1-D with {X.shape[0]} entries, got shape "
                                 f"{y_host.shape}.")
        if self._cfg.loss == "logistic":
            check_classification_targets(y_host)
            classes = np.unique(y_host)
            if classes.size != 2:
                raise ValueError(
                    f"Only binary classification is supported: loss='logistic' needs exactly 2 "
                    f"classes in y, got {classes.size} "
                    f"class(es): {classes.tolist()[:5]}."
                )
            self.classes_ = classes
            y01 = (y_host == classes[1]).astype(np.float64)
        else:
            y01 = np.asarray(y_host, dtype=np.float64)
            if not np.all(np.isfinite(y01)):
                raise ValueError("y must be finite.")
            if self._cfg.loss == "poisson" and np.any(y01 < 0):
                raise ValueError("loss='poisson' needs non-negative y.")
        if self._cfg.fit_intercept:
            ones = xp.ones((X.shape[0], 1), dtype=X.dtype, device=_device(X))
            X = xp.concat([X, ones], axis=1)
        if self._cfg.mechanism == "sekhari":
            norms = np.linalg.norm(to_numpy(X), axis=1)
            if np.max(norms) > float(self._cfg.feature_bound):
                raise ValueError(
                    f"feature_bound={self._cfg.feature_bound!r} is smaller than the largest "
                    f"design-row norm {np.max(norms):.4g} (intercept column included): the "
                    "Sekhari et al. noise would not cover these rows. Pass a larger a-priori "
                    "bound or normalise the rows.")
        self._X = X
        self._y = asarray_like(y01, X, dtype=X.dtype)
        self._alpha = alpha
        # unpenalised intercept (Newton mechanism): per-coordinate penalty, 0 for the intercept
        self._free_intercept = bool(self._cfg.fit_intercept and self._cfg.mechanism == "newton")
        if self._free_intercept:
            pen = np.full(X.shape[1], alpha)
            pen[-1] = 0.0
            self._pen = asarray_like(pen, X, dtype=X.dtype)
        else:
            self._pen = alpha
        self._rng = check_rng(_scalar(self._cfg.random_state))
        n, p = X.shape
        self._shift = None
        if self._cfg.mechanism == "guo":
            self._guo_sigma = guo_noise_std(self._guo_budget(n), self._cfg.epsilon, self._cfg.delta)
            self._shift = asarray_like(self._guo_sigma * self._rng.standard_normal(p), X)
            self._guo_residual = 0.0
        beta, self.n_iter_, _ = newton_solve(
            X, self._y, self._cfg.loss, self._pen, xp, tol=self._cfg.tol,
            max_iter=self._cfg.max_iter, shift=self._shift,
            allow_singular=self._cfg.allow_singular)
        self._beta_fit = beta
        self._beta = beta
        self.hessian_cholesky_ = None
        if self._cfg.store_hessian and alpha > 0:
            H = objective_hessian(beta, X, self._y, self._cfg.loss, self._pen, xp)
            self.hessian_cholesky_, _ = factor_with_jitter(H, xp)
        self.removed_ = np.zeros(n, dtype=bool)
        self.unlearn_report_ = None
        self.history_ = []
        self._noise_streams = set()
        self.mu_spent_ = 0.0
        self._release(beta)
        return self

    def _validate_xp(self, X, xp, reset):
        if X.ndim != 2:
            raise ValueError(f"X must be 2-D, got {X.ndim} dimension(s).")
        if X.shape[0] < 1 or X.shape[1] < 1:
            raise ValueError(f"X must have at least one row and column, got {X.shape}.")
        X = xp.astype(X, xp.float64)
        if not bool(xp.all(xp.isfinite(X))):
            raise ValueError("X must not contain NaN or infinity.")
        if reset:
            self.n_features_in_ = int(X.shape[1])
        elif X.shape[1] != self.n_features_in_:
            raise ValueError(f"X has {X.shape[1]} features, but {type(self).__name__} is "
                             f"expecting {self.n_features_in_} features as input.")
        return X

    def _guo_budget(self, n):
        if isinstance(self._cfg.noise_scale, str):
            return self._alpha * noise_radius(n, 1, self._alpha)
        return float(self._cfg.noise_scale)

    @property
    def _xp(self):
        return get_namespace(self._X)

    def _intercept_for(self, coef, weights):
        """Exact minimiser over the intercept of the retained loss, coefficients fixed.

        ``weights`` is the 0/1 host mask of retained rows. Closed forms for the
        squared and Poisson losses; a bracketed root search for the logistic
        one. Raises when no minimiser exists (one class left, or only zero counts).
        """
        from scipy.optimize import brentq

        w = np.asarray(weights, dtype=float)
        keep = w > 0
        if not keep.any():
            return 0.0
        z = to_numpy(self._X[:, :-1] @ coef)[keep]
        y = to_numpy(self._y)[keep]
        loss = self._cfg.loss
        if loss == "squared":
            return float(np.mean(y - z))
        sy = float(y.sum())
        if loss == "poisson":
            if sy <= 0:
                raise ValueError("the rows still kept have only zero counts: the unpenalised "
                                 "intercept has no minimiser (use fit_intercept=False).")
            zmax = float(z.max())
            return float(math.log(sy) - zmax - math.log(np.exp(z - zmax).sum()))
        n_keep = int(keep.sum())
        if sy <= 0 or sy >= n_keep:
            raise ValueError("the rows still kept hold a single class: the unpenalised "
                             "intercept has no minimiser (use fit_intercept=False).")
        target = math.log(sy / (n_keep - sy))

        def excess(b):
            return float(np.sum(_expit(z + b))) - sy

        lo, hi = target - float(z.max()) - 1.0, target - float(z.min()) + 1.0
        return float(brentq(excess, lo, hi, xtol=1e-15, rtol=4 * np.finfo(float).eps,
                            maxiter=500))

    def _with_profiled_intercept(self, theta, weights):
        """``theta`` with its intercept replaced by the exact one for its coefficients."""
        if not self._free_intercept:
            return theta
        b0 = self._intercept_for(theta[:-1], weights)
        out = np.array(to_numpy(theta), dtype=np.float64, copy=True)
        out[-1] = b0
        return asarray_like(out, self._X, dtype=self._X.dtype)

    def _certificate(self, theta, ret):
        """Certified bound on the coefficient error and the gradient norm it comes from.

        Returns ``(||grad P_{-M}(coef)|| / alpha, ||grad P_{-M}(coef)||)``.
        ``P_{-M}`` is the retained objective with the unpenalised intercept
        minimised out: partial minimisation keeps convexity, so ``P_{-M}`` is
        ``alpha``-strongly convex in the coefficients that carry the noise.
        Without a free intercept it is ``L_{-M}`` itself.
        """
        xp = self._xp
        if self._free_intercept:
            g = ret.gradient(self._with_profiled_intercept(theta, ret.mask_host))[:-1]
        else:
            g = ret.gradient(theta)
        residual = float(xp.linalg.vector_norm(g))
        return residual / self._alpha, residual

    def _release(self, theta):
        if self._cfg.fit_intercept:
            self.coef_ = theta[:-1]
            self.intercept_ = float(theta[-1])
        else:
            self.coef_ = theta
            self.intercept_ = 0.0
        self._theta_released = theta

    # ------------------------------------------------------------ prediction
    def _check_X(self, X):
        self._check_fitted()
        xp = _namespace_of(X)
        if is_numpy_namespace(xp):
            return validate_data(self, X, dtype=np.float64, reset=False)
        return self._validate_xp(X, xp, reset=False)

    def _is_logistic(self):
        return self._cfg.loss == "logistic"

    @available_if(_is_logistic)
    def decision_function(self, X):
        """Linear predictor ``X @ coef_ + intercept_`` of the released model.

        Parameters
        ----------
        X : array of shape (n_samples, n_features)

        Returns
        -------
        array of shape (n_samples,)
        """
        self._check_fitted()
        return self._linear_predictor(X)

    def _linear_predictor(self, X):
        X = self._check_X(X)
        return X @ self.coef_ + self.intercept_

    def predict(self, X):
        """Class labels (logistic), ``x^T beta`` (squared) or ``exp(x^T beta)`` (poisson).

        Parameters
        ----------
        X : array of shape (n_samples, n_features)

        Returns
        -------
        array of shape (n_samples,)
        """
        self._check_fitted()
        z = self._linear_predictor(X)
        if self.loss_ == "logistic":
            labels = to_numpy(z) > 0
            return self.classes_[labels.astype(int)]
        if self._cfg.loss == "poisson":
            return get_namespace(z).exp(z)
        return z

    @available_if(_is_logistic)
    def predict_proba(self, X):
        """Class probabilities of the released logistic model.

        Parameters
        ----------
        X : array of shape (n_samples, n_features)

        Returns
        -------
        array of shape (n_samples, 2)
        """
        self._check_fitted()
        z = self._linear_predictor(X)
        xp = get_namespace(z)
        p1 = 1.0 / (1.0 + xp.exp(-z))
        return xp.stack([1.0 - p1, p1], axis=1)

    def score(self, X, y):
        """Accuracy (logistic) or the coefficient of determination R^2 (other losses).

        Parameters
        ----------
        X : array of shape (n_samples, n_features)
        y : array of shape (n_samples,)

        Returns
        -------
        float
        """
        from sklearn.metrics import accuracy_score, r2_score

        self._check_fitted()
        pred = to_numpy(self.predict(X))
        y = to_numpy(y)
        if self._cfg.loss == "logistic":
            return float(accuracy_score(y, pred))
        return float(r2_score(y, pred))

    # ------------------------------------------------------------- unlearning
    def _check_indices(self, indices, name="indices"):
        return check_removal_indices(indices, self.removed_, name)

    def _take(self, rows):
        xp = self._xp
        idx = asarray_like(rows.astype(np.int64), self._X, dtype=xp.int64)
        return xp.take(self._X, idx, axis=0), xp.take(self._y, idx, axis=0)

    def _radius(self, n, m):
        if not isinstance(self._cfg.noise_scale, str):
            return float(self._cfg.noise_scale)
        if self._alpha == 0:
            return math.inf
        default = 1.0 if self._cfg.verify else max(1.0, math.log(n))
        c1 = default if self._cfg.polylog_c1 is None else float(self._cfg.polylog_c1)
        c2 = default if self._cfg.polylog_c2 is None else float(self._cfg.polylog_c2)
        return noise_radius(n, m, self._alpha, c1=c1, c2=c2)

    def _newton_direction(self, beta, step, ret, removed_now, removed_all):
        xp = self._xp
        if self._cfg.assume_optimal and step == 0:
            X_m, y_m = self._take(removed_now)
            d1, _ = loss_derivatives(y_m, X_m @ beta, self._cfg.loss, xp)
            g = -(X_m.T @ d1)
        else:
            g = ret.gradient(beta)
        use_stored = (self.hessian_cholesky_ is not None and step == 0)
        if use_stored:
            X_r, y_r = self._take(removed_all)
            _, d2 = loss_derivatives(y_r, X_r @ self._beta_fit, self._cfg.loss, xp)
            U = xp.expand_dims(xp.sqrt(d2), axis=1) * X_r
            try:
                return woodbury_downdate_solve(self.hessian_cholesky_, U, g, xp), "stored"
            except CholeskyError:
                warnings.warn("Woodbury downdate was not numerically positive definite; "
                              "assembling the retained Hessian directly.", RuntimeWarning,
                              stacklevel=3)
        X_keep, y_keep = ret.rows
        H = objective_hessian(beta, X_keep, y_keep, self._cfg.loss, self._pen, xp)
        if self._alpha == 0:
            return xp.linalg.pinv(H) @ g, "direct"
        L, _ = factor_with_jitter(H, xp, name="retained Hessian")
        return cho_solve(L, g, xp), "direct"

    def unlearn(self, indices, *, random_state=None):
        """Remove training rows ``indices``: Newton step, verification, noise.

        Parameters
        ----------
        indices : array-like of int or bool
            Positions (0-based) of the rows of the ``X`` passed to ``fit`` to
            forget, or a boolean mask with one entry per row. Positions must
            be unique, in range, and not removed by an earlier request; the
            request may be empty. pandas ``Index``/``Series`` objects are
            refused: they hold labels, not positions. Convert labels with
            ``X_fit.index.get_indexer(labels)`` (check for ``-1``) or pass the
            mask ``X_fit.index.isin(labels)``.
        random_state : None, int, numpy.random.Generator or RandomState, optional
            Noise stream for this request only; default continues the stream
            seeded at ``fit``. A request whose noise would repeat the noise of an
            earlier request of this estimator (the same seed given twice, or the
            seed of ``fit``) is refused: the difference of the two releases would
            hold no noise at all, and the composed ``mu_spent_`` would be wrong.

        Returns
        -------
        self : NewtonUnlearner
            With ``coef_`` / ``intercept_`` released, ``unlearn_report_`` filled and
            the request appended to ``history_``.

        Raises
        ------
        ValueError
            For invalid ``indices`` or a repeated noise stream; nothing is
            released and the model is left unchanged.
        """
        self._check_fitted()
        t0 = time.perf_counter()
        idx = self._check_indices(indices)
        m = int(idx.size)
        n_before = int((~self.removed_).sum())
        if m == 0 and not self._cfg.add_noise_on_empty:
            self.unlearn_report_ = UnlearningReport(
                m=0, n=n_before, mechanism=self._cfg.mechanism, noise="none", sigma=0.0, r=0.0,
                epsilon=float(self._cfg.epsilon), delta_cert=0.0, certified=True, fallback=False,
                newton_residual_norm=math.nan, mu_effective=0.0, n_newton_steps=0,
                hessian="none", seconds=time.perf_counter() - t0)
            self.history_.append(self.unlearn_report_)
            return self
        if m > n_before ** 0.25:
            warnings.warn(
                f"removing m={m} > n^(1/4)={n_before ** 0.25:.2f} points: outside the regime "
                "where the theory gives a vanishing generalisation error divergence; the noise "
                "grows like m^(3/2).", UnlearningWarning, stacklevel=2)
        rng = self._rng if random_state is None else check_rng(_scalar(random_state))
        removed = self.removed_.copy()
        removed[idx] = True
        keep = np.flatnonzero(~removed)
        removed_all = np.flatnonzero(removed)
        ret = Retained(self, keep)
        n_total, p = self._X.shape
        alpha = self._alpha
        r = self._radius(n_before, max(m, 1))
        if self._cfg.mechanism == "guo":
            beta, info = self._unlearn_guo(idx, removed_all, ret, rng)
        else:
            beta, info = self._unlearn_newton(idx, removed_all, ret, r)
        # noise (drawn on the host from the seeded stream, then moved to the device); the
        # state the stream starts from identifies the draws (up to their scale)
        stream = hashlib.sha1(repr(rng.bit_generator.state).encode()).hexdigest()
        sigma, noise_name, b = 0.0, "none", None
        p_noise = p - 1 if self._free_intercept else p
        if self._cfg.mechanism == "sekhari":
            # Lipschitz constants of the loss class from the a-priori row bound R (never
            # from the data): |dl/dz| <= 1 gives L = R; a bound c3 on the third
            # derivative gives M = c3 R^3
            R = float(self._cfg.feature_bound)
            sigma = sekhari_noise_std(n_before, max(m, 1), alpha, R,
                                      _THIRD_DERIVATIVE_BOUND[self._cfg.loss] * R**3,
                                      self._cfg.epsilon, self._cfg.delta)
            if self._cfg.noise is not None and sigma > 0:
                b = draw_noise("gaussian", sigma, 1.0, p_noise, random_state=rng)
                noise_name = "gaussian"
        elif self._cfg.mechanism == "guo":
            sigma, noise_name = self._guo_sigma, "gaussian-objective"
        elif self._cfg.noise is not None and math.isfinite(r):
            b = draw_noise(self._cfg.noise, r, self._cfg.epsilon, p_noise, random_state=rng)
            sigma, noise_name = r / self._cfg.epsilon, self._cfg.noise
        if b is not None and stream in self.__dict__.setdefault("_noise_streams", set()):
            raise ValueError(
                "random_state: the noise of this request repeats the noise of an earlier "
                "request of this estimator (the same seed given twice, or the seed given to "
                "fit?): the draws are the same up to their scale, so a combination of the two "
                "releases holds no noise and reveals the removed rows. Pass a fresh seed, a "
                "Generator, or random_state=None to continue the stream seeded at fit; "
                "nothing was released.")
        if b is None:
            released = beta
        else:
            if self._free_intercept:
                b = np.append(b, 0.0)
            released = beta + asarray_like(b, beta)
        released = self._with_profiled_intercept(released, ret.mask_host)
        self._beta = beta
        self.removed_ = removed
        self._release(released)
        delta_cert = info["delta_cert"]
        if not info["certified"] and info["fallback"]:
            warnings.warn(
                f"the exact refit after the failed verification stopped at a certified "
                f"distance {delta_cert:.3g} above both the radius r={r:.3g} and tol="
                f"{self._cfg.tol:g}: this release is NOT certified (increase max_iter).",
                UnlearningWarning, stacklevel=2)
        if sigma > 0:
            mu_eff = 0.0 if info["fallback"] and info["certified"] else delta_cert / sigma
        else:
            mu_eff = 0.0 if delta_cert == 0 else math.inf
        report = UnlearningReport(
            m=m, n=n_before, mechanism=self._cfg.mechanism, noise=noise_name, sigma=float(sigma),
            r=float(r), epsilon=float(self._cfg.epsilon), delta_cert=float(delta_cert),
            certified=bool(info["certified"]), fallback=bool(info["fallback"]),
            newton_residual_norm=float(info["residual"]), mu_effective=float(mu_eff),
            n_newton_steps=info["steps"], hessian=info["hessian"],
            seconds=time.perf_counter() - t0)
        self.unlearn_report_ = report
        self.history_.append(report)
        if b is not None:
            self._noise_streams.add(stream)
        self.mu_spent_ = self._ledger()
        return self

    def _last_report_field(self, name):
        self._check_fitted()
        rep = self.unlearn_report_
        return None if rep is None else getattr(rep, name)

    @property
    def sigma_(self):
        """Noise scale of the last request (``None`` before any request)."""
        return self._last_report_field("sigma")

    @property
    def r_(self):
        """Error radius of the last request (``None`` before any request)."""
        return self._last_report_field("r")

    @property
    def delta_cert_(self):
        """Certified error bound of the last request (audit only)."""
        return self._last_report_field("delta_cert")

    @property
    def mu_effective_(self):
        """Realised GDP parameter ``delta_cert_ / sigma_`` of the last request (audit only)."""
        return self._last_report_field("mu_effective")

    def _ledger(self):
        mus = []
        for rep in self.history_:
            if rep.noise == "none" and rep.m == 0:
                continue
            if rep.mechanism != "newton" or rep.noise == "laplace_l2":
                return math.nan
            mus.append(rep.epsilon if rep.noise == "gaussian" else math.inf)
        return compose_gdp(mus)

    def _unlearn_newton(self, idx, removed_all, ret, r):
        xp = self._xp
        alpha = self._alpha
        p = self._X.shape[1]
        if ret.n == 0:
            # everything removed: L_{-M} = alpha ||beta||^2 / 2, minimiser 0
            beta = xp.zeros(p, dtype=self._X.dtype, device=_device(self._X))
            return beta, {"delta_cert": 0.0, "certified": alpha > 0, "fallback": False,
                          "residual": 0.0, "steps": 0, "hessian": "none"}
        beta = self._beta
        n_steps = int(self._cfg.n_newton_steps)
        hessian = "direct"
        for step in range(n_steps):
            direction, kind = self._newton_direction(beta, step, ret, idx, removed_all)
            if step == 0:
                hessian = kind
            beta = beta - direction
        if self._cfg.mechanism == "sekhari" or not self._cfg.verify or alpha == 0:
            delta_cert = residual = math.nan
            if self._cfg.verify and alpha > 0:
                delta_cert, residual = self._certificate(beta, ret)
            if alpha == 0:
                warnings.warn("alpha=0: the objective is not strongly convex; no certificate "
                              "is available.", UnlearningWarning, stacklevel=3)
            certified = self._cfg.mechanism == "sekhari" and alpha > 0
            return beta, {"delta_cert": delta_cert, "certified": certified, "fallback": False,
                          "residual": residual, "steps": n_steps, "hessian": hessian}
        delta_cert, residual = self._certificate(beta, ret)
        fallback = False
        certified = delta_cert <= r
        if not certified:
            X_keep, y_keep = ret.rows
            with warnings.catch_warnings():
                # the outcome is checked (and reported) right below
                warnings.simplefilter("ignore", ConvergenceWarning)
                beta, _, _ = newton_solve(X_keep, y_keep, self._cfg.loss, self._pen, xp,
                                          beta0=beta, tol=self._cfg.tol,
                                          max_iter=self._cfg.max_iter)
            delta_cert, _ = self._certificate(beta, ret)
            fallback = True
            # the released law is the retrained one when the refit reached its tolerance
            certified = delta_cert <= max(r, self._cfg.tol)
        return beta, {"delta_cert": delta_cert, "certified": bool(certified),
                      "fallback": fallback, "residual": residual, "steps": n_steps,
                      "hessian": hessian}

    def _unlearn_guo(self, idx, removed_all, ret, rng):
        xp = self._xp
        alpha = self._alpha
        p = self._X.shape[1]
        n_keep = ret.n
        budget = self._guo_budget(self.removed_.shape[0])
        if n_keep == 0:
            beta = -self._shift / alpha
            return beta, {"delta_cert": 0.0, "certified": True, "fallback": False,
                          "residual": 0.0, "steps": 0, "hessian": "none"}
        beta = self._beta
        direction, kind = self._newton_direction(beta, 0, ret, idx, removed_all)
        beta = beta - direction
        X_keep, y_keep = ret.rows
        # data-dependent residual bound of Guo et al.: gamma ||X|| ||H^-1 D|| ||X H^-1 D||
        gamma = 0.25 if self._cfg.loss == "logistic" else 0.0
        if gamma > 0:
            xnorm = float(xp.linalg.matrix_norm(X_keep, ord=2))
            bound = gamma * xnorm * float(xp.linalg.vector_norm(direction)) * float(
                xp.linalg.vector_norm(X_keep @ direction))
        else:
            bound = 0.0
        self._guo_residual += bound
        residual = float(xp.linalg.vector_norm(ret.gradient(beta)))
        fallback = False
        if self._guo_residual > budget:
            # retrain from scratch with a fresh objective perturbation
            self._shift = asarray_like(self._guo_sigma * rng.standard_normal(p), self._X)
            beta, _, _ = newton_solve(X_keep, y_keep, self._cfg.loss, alpha, xp,
                                      tol=self._cfg.tol,
                                      max_iter=self._cfg.max_iter, shift=self._shift)
            self._guo_residual = 0.0
            fallback = True
        return beta, {"delta_cert": residual / alpha, "certified": True, "fallback": fallback,
                      "residual": residual, "steps": 1, "hessian": kind}

    def retrain_reference(self, indices=(), *, add_noise=False, n_draws=None,
                          random_state=None):
        """Exact minimiser of the retained objective after also removing ``indices``.

        The state of the estimator is not changed. With ``add_noise=True`` the
        output is the retrained reference mechanism ``beta_hat_{-M} + b`` with
        the same noise law that ``unlearn(indices)`` would use.

        Parameters
        ----------
        indices : sequence of int, default=()
            Rows to remove in addition to those already removed.
        add_noise : bool, default=False
            Add the mechanism's noise.
        n_draws : int, optional
            Number of noise draws (only with ``add_noise``); returns one row per draw.
        random_state : None, int, numpy.random.Generator or RandomState
            Noise stream of the reference draws (independent of the release
            stream; nothing is released).

        Returns
        -------
        ndarray of shape (n_params,) or (n_draws, n_params)
            ``n_params = n_features_in_`` (+ 1 with ``fit_intercept``, intercept last).

        Examples
        --------
        >>> import numpy as np
        >>> from statlearn.unlearning import NewtonUnlearner, make_glm_data
        >>> X, y, _ = make_glm_data(100, 30, loss="squared", random_state=1)
        >>> est = NewtonUnlearner(loss="squared", noise=None).fit(X, y)
        >>> ref = est.retrain_reference([5, 7])
        >>> est = est.unlearn([5, 7])
        >>> bool(np.allclose(est.coef_, ref[:-1], rtol=1e-10, atol=1e-12))
        True
        >>> bool(np.isclose(est.intercept_, ref[-1], rtol=1e-10))
        True
        """
        self._check_fitted()
        idx = self._check_indices(indices)
        if not isinstance(add_noise, bool | np.bool_):
            raise TypeError(f"add_noise must be a bool, got {add_noise!r}.")
        removed = self.removed_.copy()
        removed[idx] = True
        X_keep, y_keep = self._take(np.flatnonzero(~removed))
        # warm start from the current noise-free state (same minimiser, fewer iterations)
        beta, _, _ = newton_solve(X_keep, y_keep, self._cfg.loss, self._pen, self._xp,
                                  beta0=self._beta if self._cfg.mechanism != "guo" else None,
                                  tol=self._cfg.tol, max_iter=self._cfg.max_iter,
                                  allow_singular=self._cfg.allow_singular)
        beta = to_numpy(beta)
        if not add_noise:
            if n_draws is not None:
                raise ValueError("n_draws needs add_noise=True.")
            return beta
        if self._cfg.noise is None or self._cfg.mechanism != "newton":
            raise ValueError("add_noise=True needs mechanism='newton' and a noise family, got "
                             f"mechanism={self._cfg.mechanism!r}, noise={self._cfg.noise!r}.")
        n_before = int((~self.removed_).sum())
        r = self._radius(n_before, max(int(idx.size), 1))
        p_noise = beta.shape[0] - 1 if self._free_intercept else beta.shape[0]
        b = draw_noise(self._cfg.noise, r, self._cfg.epsilon, p_noise, n_draws=n_draws,
                       random_state=check_rng(_scalar(random_state)))
        if not self._free_intercept:
            return beta + b
        # noise on the coefficients; the intercept is refitted on the kept rows
        keep = (~removed).astype(float)
        draws = np.atleast_2d(b)
        out = np.empty((draws.shape[0], beta.shape[0]))
        for k, bk in enumerate(draws):
            out[k] = to_numpy(self._with_profiled_intercept(
                asarray_like(beta + np.append(bk, 0.0), self._X), keep))
        return out[0] if n_draws is None else out

"""NewtonUnlearner: certified removal from regularised GLMs by one Newton step + noise."""

from __future__ import annotations

import contextlib
import hashlib
import math
import time
import warnings
from types import SimpleNamespace

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.utils._tags import ClassifierTags, RegressorTags
from sklearn.utils.validation import validate_data

from ..base import FitStateMixin, Integral, Level, Options, Real
from ..utils import asarray_like, check_rng, get_namespace, to_numpy
from ..utils._array_api import device, input_namespace, is_numpy_namespace
from ..utils._numba import NUMBA_ENABLED, one_blas_thread
from ..utils._validation import _scalar
from ._glm import LOSSES, SOLVERS, glm_solve, newton_solve, objective_hessian
from ._inputs import check_xp_design, glm_targets, host_targets
from ._intercept import with_profiled_intercept
from ._kernels import retained_gradient
from ._linalg import cho_solve, factor_with_jitter, solve_lower
from ._mechanisms import MECHANISMS, request_radius
from ._prediction import ReleasedModelPredictions
from ._privacy import NOISES
from ._requests import Retained, check_removal_indices
from ._results import UnlearningReport
from ._warnings import UnlearningWarning

__all__ = ["NewtonUnlearner", "UnlearningWarning"]


class NewtonUnlearner(ReleasedModelPredictions, FitStateMixin, BaseEstimator):
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
    store_influence : bool, default=False
        Also keep the influence rows ``H^{-1} x_i`` of every training row
        (``influence_``, an ``n x p`` array: as much memory again as ``X``,
        and ``O(n p^2)`` more work at ``fit``). A request's Woodbury step then
        reads only the rows of the removed points, ``O(m^2 p + m^3)`` with no
        ``p x p`` triangular solve, so the verification's gradient pass is
        the only ``O(n p)`` work left. Worth it when many requests follow one
        fit and ``p`` is large; needs ``store_hessian=True``.
    assume_optimal : bool, default=False
        Use only the removed points for the gradient (valid when the current
        point is the exact minimiser); the default uses the full retained
        gradient, exactly: the one kept from ``fit`` (or from the previous
        request's certificate) minus the removed rows' terms, ``O(m p)``.
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
        Newton iterations of the exact solver (after the quasi-Newton start,
        with ``solver="quasi-newton"``).
    solver : {"quasi-newton", "newton"}, default="quasi-newton"
        How the exact fits (``fit``, refits, ``retrain_reference``) reach
        ``||grad L|| <= tol * alpha``: ``"quasi-newton"`` runs L-BFGS (one pass
        over the data per iteration) and finishes with damped Newton steps only
        where L-BFGS stops short (typically none), so that the one Hessian
        formed is the stored one at the fit; ``"newton"`` takes damped Newton
        steps from zero (a Hessian and a factorisation per step). Both stop by
        the same rule, so their results agree to ``2 tol``.
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
    influence_ : array of shape (n_samples, p) or None
        ``X H^{-1}`` (row ``i`` is ``H^{-1} x_i``, intercept column included
        when fitted) with ``H`` the factored Hessian, when
        ``store_influence=True``; ``None`` otherwise.
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
                 store_hessian=True, store_influence=False, assume_optimal=False,
                 add_noise_on_empty=True,
                 allow_singular=False, fit_intercept=True, tol=1e-10, max_iter=100,
                 solver="quasi-newton", feature_bound=None, random_state=None):
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
        self.store_influence = store_influence
        self.assume_optimal = assume_optimal
        self.add_noise_on_empty = add_noise_on_empty
        self.allow_singular = allow_singular
        self.fit_intercept = fit_intercept
        self.tol = tol
        self.max_iter = max_iter
        self.solver = solver
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
        "store_influence": ["boolean"],
        "assume_optimal": ["boolean"],
        "add_noise_on_empty": ["boolean"],
        "allow_singular": ["boolean"],
        "fit_intercept": ["boolean"],
        "tol": [Real(0, None, closed="neither")],
        "max_iter": [Integral(1)],
        "solver": [Options(list(SOLVERS))],
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
    def _solve(self, *args, **kwargs):
        """The exact solver chosen by ``solver`` (fit, refits, retrain reference)."""
        return SOLVERS[self._cfg.solver](*args, **kwargs)

    def _check_params(self):
        """Checks across parameters (each one alone is checked by its constraint)."""
        alpha = float(self.alpha)
        if alpha == 0 and not self.allow_singular:
            raise ValueError(
                "alpha must be > 0: the certificate needs an alpha-strongly convex objective "
                "(pass allow_singular=True to accept alpha=0 without any certificate)."
            )
        if self.store_influence and not self.store_hessian:
            raise ValueError("store_influence=True needs store_hessian=True: the influence "
                             "rows are solves with the stored Hessian factor.")
        MECHANISMS[self.mechanism].check_params(self)
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
        mechanism = MECHANISMS[self._cfg.mechanism](self._cfg)
        self.loss_ = self._cfg.loss
        xp = input_namespace(X)
        if is_numpy_namespace(xp):
            y_numeric = self._cfg.loss != "logistic"
            X, y = validate_data(self, X, y, dtype=np.float64, y_numeric=y_numeric)
            X = np.asarray(X, dtype=np.float64)
            y_host = np.asarray(y)
        else:
            X = self._validate_xp(X, xp, reset=True)
            y_host = host_targets(y, X.shape[0])
        y01, classes = glm_targets(y_host, self._cfg.loss)
        if classes is not None:
            self.classes_ = classes
        if self._cfg.fit_intercept:
            ones = xp.ones((X.shape[0], 1), dtype=X.dtype, device=device(X))
            X = xp.concat([X, ones], axis=1)
        mechanism.check_design(X)
        self._mechanism = mechanism
        self._X = X
        self._y = asarray_like(y01, X, dtype=X.dtype)
        self._alpha = alpha
        # unpenalised intercept (Newton mechanism): per-coordinate penalty, 0 for the intercept
        self._free_intercept = bool(self._cfg.fit_intercept and mechanism.frees_intercept)
        if self._free_intercept:
            pen = np.full(X.shape[1], alpha)
            pen[-1] = 0.0
            self._pen = asarray_like(pen, X, dtype=X.dtype)
        else:
            self._pen = alpha
        self._rng = check_rng(_scalar(self._cfg.random_state))
        n = X.shape[0]
        mechanism.prepare(self)
        factor = None
        if self._cfg.solver == "quasi-newton":
            beta, self.n_iter_, _, factor = glm_solve(
                X, self._y, self._cfg.loss, self._pen, xp, tol=self._cfg.tol,
                max_iter=self._cfg.max_iter, shift=self._shift,
                allow_singular=self._cfg.allow_singular, return_factor=True)
        else:
            beta, self.n_iter_, _ = newton_solve(
                X, self._y, self._cfg.loss, self._pen, xp, tol=self._cfg.tol,
                max_iter=self._cfg.max_iter, shift=self._shift,
                allow_singular=self._cfg.allow_singular)
        self._beta_fit = beta
        self._beta = beta
        # gradient of the objective at the noise-free state on the rows kept, with the
        # point it belongs to: requests downdate it instead of passing over the data
        self._state_grad = (beta, retained_gradient(X, self._y, beta, None, self._cfg.loss,
                                                    self._pen, xp, shift=self._shift))
        self.hessian_cholesky_ = None
        if self._cfg.store_hessian and alpha > 0:
            if factor is None:
                H = objective_hessian(beta, X, self._y, self._cfg.loss, self._pen, xp)
                factor, _ = factor_with_jitter(H, xp)
            # with the quasi-Newton solver: the factor of its polishing step, at a point
            # within tol of the fit (the Hessian changes by O(tol) there)
            self.hessian_cholesky_ = factor
        self.influence_ = None
        self._state_linv = None
        if self.hessian_cholesky_ is not None and not self._cfg.store_influence:
            # L^{-1} of the kept gradient at the fit point: the first request's forward
            # solve needs no right-hand side for its gradient (one solve here, p^2 / 2)
            self._state_linv = (self._state_grad[1],
                                solve_lower(self.hessian_cholesky_, self._state_grad[1], xp))
        if self._cfg.store_influence and self.hessian_cholesky_ is not None:
            L = self.hessian_cholesky_
            self.influence_ = cho_solve(L, X.T, xp).T
            # H^{-1} of the kept gradient at the fit point: the first request needs no solve
            self._state_hinv = (self._state_grad[1], cho_solve(L, self._state_grad[1], xp))
        self.removed_ = np.zeros(n, dtype=bool)
        self.unlearn_report_ = None
        self.history_ = []
        self._noise_streams = set()
        self.mu_spent_ = 0.0
        self._release(beta)
        return self

    def _validate_xp(self, X, xp, reset):
        X = check_xp_design(X, xp, None if reset else self.n_features_in_, type(self).__name__)
        if reset:
            self.n_features_in_ = int(X.shape[1])
        return X

    @property
    def _xp(self):
        return get_namespace(self._X)

    @property
    def _shift(self):
        """Linear term of the fitted objective (Guo et al.'s perturbation; ``None``: none)."""
        return self._mechanism.shift

    def _with_profiled_intercept(self, theta, weights):
        """``theta`` with its intercept replaced by the exact one for its coefficients.

        ``weights`` is the 0/1 host mask of retained rows; without a free
        intercept ``theta`` is returned as it is.
        """
        if not self._free_intercept:
            return theta
        return with_profiled_intercept(theta, self._X, self._y, weights, self._cfg.loss)

    def _release(self, theta):
        if self._cfg.fit_intercept:
            self.coef_ = theta[:-1]
            self.intercept_ = float(theta[-1])
        else:
            self.coef_ = theta
            self.intercept_ = 0.0
        self._theta_released = theta

    # ------------------------------------------------------------- unlearning
    def _check_indices(self, indices, name="indices"):
        return check_removal_indices(indices, self.removed_, name)

    def _take(self, rows):
        xp = self._xp
        idx = asarray_like(rows.astype(np.int64), self._X, dtype=xp.int64)
        return xp.take(self._X, idx, axis=0), xp.take(self._y, idx, axis=0)

    def _radius(self, n, m):
        return request_radius(self._cfg, self._alpha, n, m)

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
        p = self._X.shape[1]
        r = self._radius(n_before, max(m, 1))
        # the Newton step's small BLAS calls on one thread: spinning BLAS workers would
        # otherwise share the cores with the parallel gradient pass that follows (about
        # twice its time on 2 cores at n = 1e5, p = 200)
        numba_pass = NUMBA_ENABLED and is_numpy_namespace(self._xp)
        with one_blas_thread() if numba_pass else contextlib.nullcontext():
            beta, info = self._mechanism.step(self, idx, removed_all, ret, r, rng)
        # noise (drawn on the host from the seeded stream, then moved to the device); the
        # state the stream starts from identifies the draws (up to their scale)
        stream = hashlib.sha1(repr(rng.bit_generator.state).encode()).hexdigest()
        p_noise = p - 1 if self._free_intercept else p
        sigma, noise_name, b = self._mechanism.noise(self, n_before, m, r, rng, p_noise)
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
        self._state_grad = info.get("state_gradient")
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
        self.mu_spent_ = self._mechanism.ledger(self.history_)
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
        beta, _, _ = self._solve(X_keep, y_keep, self._cfg.loss, self._pen, self._xp,
                                  beta0=self._beta if self._mechanism.warm_starts_reference
                                  else None,
                                  tol=self._cfg.tol, max_iter=self._cfg.max_iter,
                                  allow_singular=self._cfg.allow_singular)
        beta = to_numpy(beta)
        if not add_noise:
            if n_draws is not None:
                raise ValueError("n_draws needs add_noise=True.")
            return beta
        if self._cfg.noise is None or not self._mechanism.has_reference_noise:
            raise ValueError("add_noise=True needs mechanism='newton' and a noise family, got "
                             f"mechanism={self._cfg.mechanism!r}, noise={self._cfg.noise!r}.")
        n_before = int((~self.removed_).sum())
        r = self._radius(n_before, max(int(idx.size), 1))
        return self._mechanism.reference_draws(self, beta, removed, r, n_draws,
                                               check_rng(_scalar(random_state)))

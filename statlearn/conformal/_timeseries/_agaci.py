"""Aggregated adaptive conformal inference (AgACI, Zaffran et al., 2022).

ACI run with several step sizes ``gamma_k`` (the experts), their lower and
upper bounds aggregated online, side by side, by Bernstein online
aggregation (BOA, Wintenberger, 2017) on the pinball loss at the levels
``alpha / 2`` (lower) and ``1 - alpha / 2`` (upper).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ...utils import check_alpha, check_int, check_real
from .._core._arrays import host
from ._aci import _check_scores, _order_stat, _rank

__all__ = ["AgACIResult", "aggregated_adaptive_conformal_inference"]

#: Step sizes of the experts in the authors' experiments (their grid without ``gamma = 0``).
PAPER_GAMMAS = (5e-6, 5e-5, 1e-4, 2e-4, 3e-4, 4e-4, 5e-4, 6e-4, 7e-4, 8e-4, 9e-4,
                1e-3, 2e-3, 3e-3, 4e-3, 5e-3, 6e-3, 7e-3, 8e-3, 9e-3,
                0.01, 0.02, 0.03, 0.04, 0.05, 0.06, 0.07, 0.08, 0.09)


def _check_gammas(gammas):
    """1-D array of step sizes, each finite and ``> 0`` (the paper's grid when None)."""
    if gammas is None:
        return np.asarray(PAPER_GAMMAS, dtype=np.float64)
    g = np.asarray(host(gammas))
    if g.dtype.kind not in "iuf":
        raise TypeError(f"gammas must hold real step sizes, got {gammas!r}.")
    g = g.astype(np.float64)
    if g.ndim != 1 or g.size == 0:
        raise ValueError(f"gammas must be a non-empty 1-D sequence, got shape {g.shape}.")
    if not np.all(np.isfinite(g)) or np.any(g <= 0):
        raise ValueError(f"gammas must hold finite step sizes > 0, got {g.tolist()!r}.")
    return g


def _interval(residuals, level, symmetric):
    """Interval ``(lo, hi)`` for the next residual at a working level (ACI's conventions).

    Level ``>= 1``: the empty set ``(+inf, -inf)``; level ``<= 0``: the
    whole line. Symmetric: ``+-`` the ``ceil((1 - level)(n + 1))``-th smallest
    ``|e_i|``; else the order statistics ``e_(n + 1 - k)``, ``e_(k)`` of the
    signed residuals, ``k = ceil((1 - level / 2)(n + 1))``.
    """
    if level >= 1.0:
        return np.inf, -np.inf
    if level <= 0.0:
        return -np.inf, np.inf
    n = residuals.size
    if symmetric:
        q = _order_stat(np.abs(residuals), _rank(n, level))
        return -q, q
    k = _rank(n, level / 2)
    hi = _order_stat(residuals, k)
    lo = _order_stat(residuals, n + 1 - k) if k <= n else -np.inf
    return lo, hi


class _BOA:
    """Bernstein online aggregation of ``K`` experts for one bound (gradient trick).

    With ``r_{t,k} = g_t (b_t - x_{t,k})``, ``g_t`` the pinball subgradient
    at the aggregate ``b_t``, the weights are ``p_{t,k} ∝ pi_k eta_{t,k}
    exp(eta_{t,k} R_{t-1,k})`` with ``R_{t,k} = sum_{s<=t} (r_{s,k} -
    eta_{s,k} r_{s,k}^2)`` (Wintenberger, 2017, BOA with one learning rate
    per expert), ``pi`` uniform and ``eta_{t,k} = min(1 / (2 E_t),
    sqrt(log K / V_{t-1,k}))``, ``V`` the sum of past ``r^2`` and ``E_t =
    max(tau, 1 - tau) * max_{s<=t} (max_k x_{s,k} - min_k x_{s,k})``, a bound
    on ``|r_{t,k}|`` known before ``y_t`` is revealed.
    """

    __slots__ = ("E", "R", "V", "tau")

    def __init__(self, n_experts, tau):
        self.tau = float(tau)
        self.R = np.zeros(n_experts)
        self.V = np.zeros(n_experts)
        self.E = 0.0

    def weights(self, experts):
        """``(p, eta, E)`` for the expert values ``experts`` (K,), state unchanged."""
        K = experts.size
        spread = float(experts.max() - experts.min())
        E = max(self.E, max(self.tau, 1.0 - self.tau) * spread)
        with np.errstate(divide="ignore", over="ignore"):
            cap = np.float64(1.0) / (2.0 * E)
        if K == 1 or not math.isfinite(cap):  # one expert, or all agreed so far (to the
            return np.full(K, 1.0 / K), np.full(K, np.inf), E  # last bit): nothing to learn
        with np.errstate(divide="ignore"):
            rate = np.sqrt(math.log(K) / self.V)
        eta = np.minimum(cap, rate)
        z = np.log(eta) + eta * self.R
        p = np.exp(z - z.max())
        return p / p.sum(), eta, E

    def aggregate(self, experts, p):
        """``sum_k p_k x_k`` (kept inside ``[min x, max x]`` against rounding)."""
        lo, hi = experts.min(), experts.max()
        if lo == hi:
            return float(lo)
        return float(min(max(p @ experts, lo), hi))

    def update(self, experts, y, b, eta, E):
        """Add the step's regrets once ``y`` is revealed (``b`` the aggregate)."""
        if not np.all(np.isfinite(eta)):
            return
        g = (1.0 if y < b else 0.0) - self.tau
        r = g * (b - experts)
        self.R += r - eta * r * r
        self.V += r * r
        self.E = E


def _replace_infinite(x, limit):
    """``+-inf`` to ``+-limit`` (the sign kept), finite values unchanged."""
    return np.where(np.isposinf(x), limit, np.where(np.isneginf(x), -limit, x))


class _AgACIState:
    """Expert levels and the two aggregators, moved one residual at a time."""

    __slots__ = ("alpha", "boa", "gammas", "levels", "limit", "symmetric")

    def __init__(self, alpha, gammas, symmetric, limit, alpha_init=None):
        self.alpha, self.gammas = float(alpha), gammas
        self.symmetric, self.limit = bool(symmetric), float(limit)
        self.levels = np.full(gammas.size, self.alpha if alpha_init is None else alpha_init)
        self.boa = (_BOA(gammas.size, self.alpha / 2), _BOA(gammas.size, 1 - self.alpha / 2))

    def experts(self, window):
        """Raw expert bounds, shape (K, 2)."""
        return np.array([_interval(window, a, self.symmetric) for a in self.levels])

    def predict(self, window):
        """``(raw, replaced, weights (K, 2), rates (K, 2), E (2,), bound (2,))``."""
        raw = self.experts(window)
        rep = _replace_infinite(raw, self.limit)
        w, eta, E, out = np.empty_like(rep), np.empty_like(rep), np.empty(2), np.empty(2)
        for j, boa in enumerate(self.boa):
            w[:, j], eta[:, j], E[j] = boa.weights(rep[:, j])
            out[j] = boa.aggregate(rep[:, j], w[:, j])
        return raw, rep, w, eta, E, out

    def step(self, window, residual):
        """Interval for ``residual`` from ``window``, then every update; returns the record."""
        raw, rep, w, eta, E, out = self.predict(window)
        miss = (residual < raw[:, 0]) | (residual > raw[:, 1])
        for j, boa in enumerate(self.boa):
            boa.update(rep[:, j], residual, out[j], eta[:, j], E[j])
        levels = self.levels.copy()
        self.levels = self.levels + self.gammas * (self.alpha - miss)
        return levels, rep, w, eta, out, miss


def _default_limit(calibration, what="bound_limit cannot default to"):
    """``M = 2 max |e_i|`` over the calibration residuals (must be > 0)."""
    m = 2.0 * float(np.max(np.abs(calibration)))
    if not m > 0:
        raise ValueError(f"{what} twice the largest absolute calibration residual, which is "
                         "0; pass bound_limit > 0." if what.startswith("bound_limit") else
                         f"{what} twice the largest absolute residual, which is 0.")
    return m


def _pinball(y, b, tau):
    u = y - b
    return np.maximum(tau * u, (tau - 1.0) * u)


@dataclass(frozen=True, slots=True)
class AgACIResult:
    """Run of aggregated adaptive conformal inference over a stream of residuals.

    Attributes
    ----------
    alpha : float
        Target miscoverage level.
    gammas : ndarray of shape (K,)
        Step sizes of the experts.
    bound_limit : float
        ``M``: an infinite expert bound ``+-inf`` enters the aggregation as ``+-M``.
    alphas : ndarray of shape (T + 1, K)
        Working level of each expert before each step, then after the last.
    expert_bounds : ndarray of shape (T, K, 2)
        Lower and upper bound of each expert (infinite ones replaced by ``+-M``).
    weights : ndarray of shape (T, K, 2)
        BOA weights over the experts at each step, for the lower (``[..., 0]``)
        and the upper (``[..., 1]``) bound; each row sums to one.
    learning_rates : ndarray of shape (T, K, 2)
        ``eta_{t,k}`` of each aggregator (``inf`` at the steps where the
        experts had all agreed so far, where nothing is learned).
    bounds : ndarray of shape (T, 2)
        Aggregated interval ``sum_k w_{t,k} b_{t,k}`` for the residual at each step.
    residuals : ndarray of shape (T,)
        The residuals the intervals were built for.
    errors : ndarray of bool, shape (T,)
        The residual fell outside the aggregated interval.
    expert_errors : ndarray of bool, shape (T, K)
        The residual fell outside each expert's own interval (its ACI ``err_t``).
    miscoverage : float
        ``mean(errors)``.
    """

    alpha: float
    gammas: np.ndarray
    bound_limit: float
    alphas: np.ndarray
    expert_bounds: np.ndarray
    weights: np.ndarray
    learning_rates: np.ndarray
    bounds: np.ndarray
    residuals: np.ndarray
    errors: np.ndarray
    expert_errors: np.ndarray
    miscoverage: float

    def running_coverage(self):
        """Running coverage ``1 - mean(err_1..t)`` of the aggregated interval, ``t = 1..T``."""
        return 1.0 - np.cumsum(self.errors) / np.arange(1, self.errors.size + 1)

    def pinball_regret(self):
        """Cumulative pinball loss of the aggregate minus that of each expert, shape (K, 2).

        Column 0: the lower bounds at level ``alpha / 2``; column 1: the upper
        bounds at level ``1 - alpha / 2``.
        """
        out = np.empty((self.gammas.size, 2))
        for j, tau in enumerate((self.alpha / 2, 1 - self.alpha / 2)):
            agg = _pinball(self.residuals, self.bounds[:, j], tau).sum()
            out[:, j] = agg - _pinball(self.residuals[:, None], self.expert_bounds[:, :, j],
                                       tau).sum(axis=0)
        return out

    def __repr__(self):
        return (f"AgACIResult(alpha={self.alpha:g}, K={self.gammas.size}, "
                f"T={self.errors.size}, miscoverage={self.miscoverage:.4f})")


def aggregated_adaptive_conformal_inference(residuals, calibration_residuals, alpha=0.1,
                                            gammas=None, *, symmetric=True, window=None,
                                            alpha_init=None, bound_limit=None):
    """Aggregated adaptive conformal inference (AgACI) over a stream of residuals.

    Zaffran et al. (2022), their AgACI algorithm (online aggregation of ACI). Expert
    ``k`` runs adaptive conformal inference with step ``gamma_k``
    (:func:`adaptive_conformal_inference`): at step ``t`` its interval for the
    residual ``e_t = y_t - f(x_t)`` comes from the current calibration
    window at its own working level ``alpha_{t,k}`` (symmetric: ``+-`` the
    ``ceil((1 - alpha_{t,k})(n + 1))``-th smallest absolute residual;
    otherwise equal-tailed order statistics of the signed residuals), and
    ``alpha_{t+1,k} = alpha_{t,k} + gamma_k (alpha - err_{t,k})`` with its own
    miss ``err_{t,k}``. Infinite expert bounds (levels ``<= 0`` or ranks above
    the window) enter the aggregation as ``+-M`` (``bound_limit``). The lower
    bounds are then aggregated by Bernstein online aggregation (BOA,
    Wintenberger, 2017, one learning rate per expert, with the gradient
    trick) on the pinball loss at level ``alpha / 2``, the upper bounds by a
    second BOA at level ``1 - alpha / 2``; the interval is ``[sum_k w^l_{t,k}
    b^l_{t,k}, sum_k w^u_{t,k} b^u_{t,k}]``. Then ``e_t`` joins the window
    (the oldest leaves it when ``window`` is set).

    What is guaranteed is the aggregation's regret, not a coverage rate: for
    every bounded sequence and every expert ``k``, with ``r_{t,k} =
    g_t (b_t - b_{t,k})`` (``g_t`` the pinball subgradient at the aggregate
    ``b_t``), ``sum_t r_{t,k} <= sum_t eta_{t,k} r_{t,k}^2 + log((1 + S_T) K)
    / eta_{T,k}``, ``S_T = K^{-1} sum_{t >= 2} sum_j (1 - eta_{t,j} /
    eta_{t-1,j}) <= T - 1``; by convexity this bounds the cumulative pinball
    loss of the aggregate minus that of expert ``k``
    (:meth:`AgACIResult.pinball_regret`). It is of order ``sqrt(T log K)``.

    Parameters
    ----------
    residuals : array-like of shape (T,)
        Signed residuals ``e_1, ..., e_T`` in time order (finite).
    calibration_residuals : array-like of shape (n,)
        Initial calibration residuals (``n >= 1``, finite).
    alpha : float, default=0.1
        Target miscoverage level in (0, 1).
    gammas : array-like of float, optional
        Step sizes ``gamma_k > 0`` of the experts (default: the
        29 positive values of the authors' grid, ``5e-6`` to ``0.09``).
    symmetric : bool, default=True
        Symmetric expert intervals from absolute residuals, or equal-tailed
        from signed residuals.
    window : int, optional
        Keep only the latest ``window`` residuals for calibration (default: all).
    alpha_init : float, optional
        Initial level of every expert, in ``[0, 1]`` (default ``alpha``).
    bound_limit : float, optional
        ``M > 0`` standing for an infinite bound in the aggregation (default:
        twice the largest absolute calibration residual).

    Returns
    -------
    AgACIResult

    See Also
    --------
    adaptive_conformal_inference, TimeSeriesRegressor

    References
    ----------
    Zaffran, Feron, Goude, Josse & Dieuleveut (2022), "Adaptive conformal
    predictions for time series", ICML, PMLR 162, the AgACI algorithm.
    Wintenberger (2017), "Optimal learning with Bernstein online aggregation",
    Machine Learning 106.
    Gibbs & Candes (2021), "Adaptive conformal inference under distribution
    shift", NeurIPS 34, eq. (2).

    Examples
    --------
    >>> import numpy as np
    >>> from statlearn.conformal import aggregated_adaptive_conformal_inference
    >>> rng = np.random.default_rng(0)
    >>> e = rng.normal(size=1200) * np.linspace(1, 3, 1200)      # drifting scale
    >>> res = aggregated_adaptive_conformal_inference(e[200:], e[:200], alpha=0.1,
    ...                                               gammas=[0.001, 0.01, 0.05], window=200)
    >>> res.weights.shape, bool(np.allclose(res.weights.sum(axis=1), 1))
    ((1000, 3, 2), True)
    >>> 0.8 < 1 - res.miscoverage < 0.95
    True
    """
    alpha = check_alpha(alpha)
    g = _check_gammas(gammas)
    e = _check_scores(residuals, "residuals")
    cal = _check_scores(calibration_residuals, "calibration_residuals")
    for name, v in (("residuals", e), ("calibration_residuals", cal)):
        if not np.all(np.isfinite(v)):
            raise ValueError(f"{name} must be finite.")
    if not isinstance(symmetric, (bool, np.bool_)):
        raise TypeError(f"symmetric must be a bool, got {symmetric!r}.")
    if window is not None:
        window = check_int(window, "window", low=1)
    a0 = None if alpha_init is None else check_real(alpha_init, "alpha_init", low=0, high=1)
    buf0 = cal if window is None else cal[-window:]
    M = (_default_limit(buf0) if bound_limit is None
         else check_real(bound_limit, "bound_limit", low=0, closed="neither"))
    if not math.isfinite(M):
        raise ValueError(f"bound_limit must be finite, got {bound_limit!r}.")
    state = _AgACIState(alpha, g, symmetric, M, a0)
    T, K = e.size, g.size
    alphas, experts = np.empty((T + 1, K)), np.empty((T, K, 2))
    weights, rates = np.empty((T, K, 2)), np.empty((T, K, 2))
    bounds, expert_errors = np.empty((T, 2)), np.empty((T, K), dtype=bool)
    store = np.concatenate([buf0, e])
    start, stop = 0, buf0.size
    for t in range(T):
        (alphas[t], experts[t], weights[t], rates[t], bounds[t],
         expert_errors[t]) = state.step(store[start:stop], e[t])
        stop += 1
        if window is not None and stop - start > window:
            start += 1
    alphas[T] = state.levels
    errors = (e < bounds[:, 0]) | (e > bounds[:, 1])
    return AgACIResult(alpha=alpha, gammas=g, bound_limit=M, alphas=alphas,
                       expert_bounds=experts, weights=weights, learning_rates=rates,
                       bounds=bounds, residuals=e, errors=errors,
                       expert_errors=expert_errors, miscoverage=float(errors.mean()))

"""Scheduling policies: oracle, random, CQB-eps, CQB-Opt and two baselines.

Every policy has plain constructor arguments (``get_params``/``set_params``)
and a step-by-step interface, ``reset(n_servers, n_features, horizon)``, then
``select(queue_X, t)`` and ``update(x, k, departed)`` each round, written in
NumPy. :func:`simulate` runs the same decision rules in one Numba kernel;
tests check that both give identical queue paths.
"""

from __future__ import annotations

import math
import warnings
from abc import ABC, abstractmethod

import numpy as np

from statlearn.base import Integral, Level, Options, ParamsMixin, Real, validate_params
from statlearn.utils import check_array, check_int, check_rng
from statlearn.utils._validation import _scalar

from . import _kernels as _k
from ._estimator import LogisticUCBEstimator, _rowdot, confidence_radius_np, sigmoid_np

__all__ = [
    "CQBEpsilon",
    "CQBOpt",
    "GreedyMLEPolicy",
    "OraclePolicy",
    "QueueBlindUCBPolicy",
    "RandomPolicy",
]


class _QueuePolicy(ParamsMixin, ABC):
    """Shared machinery: kernel parameters, per-run uniforms, the select/update loop."""

    _code = -1
    _learns = False
    _parameter_constraints: dict = {}

    # -- what the kernel needs -------------------------------------------
    @abstractmethod
    def _prepare(self, n_servers, n_features, horizon):
        """Validate and return ``(code, params, theta0)`` for the kernel (no warnings)."""

    @abstractmethod
    def _select(self, queue_X, t):
        """The decision for a non-empty queue."""

    def _warn(self, n_features, horizon):
        """Warnings about the configuration (overridden where there are any)."""

    # -- step-by-step interface -------------------------------------------
    def reset(self, n_servers, n_features, horizon, random_state=None):
        """Prepare a run of ``horizon`` rounds, ``n_servers`` servers, ``n_features`` features.

        Parameters
        ----------
        n_servers, n_features, horizon : int
        random_state : None, int or numpy.random.Generator, optional
            Stream for the policy's own randomness; defaults to the policy's
            ``random_state`` (if it has one).

        Returns
        -------
        self
        """
        K = check_int(n_servers, "n_servers", low=1)
        d = check_int(n_features, "n_features", low=1)
        T = check_int(horizon, "horizon", low=1)
        code, params, theta0 = self._prepare(K, d, T)
        self._warn(d, T)
        if random_state is None:
            random_state = getattr(self, "random_state", None)
        rng = check_rng(_scalar(random_state))
        self.n_servers_, self.n_features_, self.horizon_ = K, d, T
        self.params_ = params
        self.policy_u_ = draw_policy_uniforms(rng, T)
        self.n_explore_ = 0
        if self._learns:
            self.estimator_ = LogisticUCBEstimator(
                lam_reg=params[0], refit_growth=params[7], max_iter=int(params[8]),
                tol=params[9]).initialize(K, d, theta0)
        return self

    def _check_select(self, queue_X, t):
        if not hasattr(self, "policy_u_"):
            raise RuntimeError(
                f"call reset(n_servers, n_features, horizon) before using this "
                f"{type(self).__name__}."
            )
        queue_X = np.asarray(queue_X, dtype=float)
        if queue_X.ndim != 2 or queue_X.shape[1] != self.n_features_:
            raise ValueError(
                f"queue_X must have shape (queue_length, {self.n_features_}), got "
                f"{queue_X.shape}."
            )
        if not np.all(np.isfinite(queue_X)):
            raise ValueError("queue_X must not contain NaN or infinite values.")
        t = check_int(t, "t", low=1, high=self.horizon_)
        return queue_X, t

    def select(self, queue_X, t):
        """Choose the (job index, server) pair to serve in round ``t`` (1-based).

        Parameters
        ----------
        queue_X : array-like of shape (queue_length, n_features)
            Waiting jobs, oldest first.
        t : int
            Round number, ``1 <= t <= horizon``.

        Returns
        -------
        tuple of (int, int) or None
            ``None`` when the queue is empty.
        """
        queue_X, t = self._check_select(queue_X, t)
        if queue_X.shape[0] == 0:
            return None
        return self._select(queue_X, t)

    def update(self, x, k, departed):
        """Record the outcome of serving job ``x`` with server ``k``.

        Returns
        -------
        self
        """
        if not hasattr(self, "policy_u_"):
            raise RuntimeError("call reset(...) before update().")
        if self._learns and self.params_[11] == 0.0:
            self.estimator_.update(x, k, bool(departed))
        return self

    def _ucb_select(self, queue_X, scale=1.0, fifo=False):
        est = self.estimator_
        p = self.params_
        d = self.n_features_
        rows = queue_X[:1] if fifo else queue_X
        betas = np.array([scale * confidence_radius_np(int(n), d, p[0], p[1], p[2], p[3], p[4])
                          for n in est.n_obs_])
        mu = sigmoid_np(_rowdot(rows, est.theta_))
        if np.all(betas == 0.0):
            scores = mu
        else:
            scores = mu + betas[None, :] * est.width(rows)
        flat = int(np.argmax(scores))
        return flat // scores.shape[1], flat % scores.shape[1]


def draw_policy_uniforms(rng, horizon):
    """The uniforms a policy may use in each round, shape ``(horizon, 2)``."""
    return rng.random((horizon, 2))


#: constraints of the estimator settings every learning policy shares
_ESTIMATOR_CONSTRAINTS = {
    "lam_reg": [Real(0, None, closed="neither")],
    "refit_growth": [Real(0, None)],
    "max_iter": [Integral(1)],
    "tol": [Real(0, None, closed="neither")],
}
#: constraints of the confidence radius (CQB-Opt, CQB-eps, the FIFO baseline)
_UCB_CONSTRAINTS = {
    **_ESTIMATOR_CONSTRAINTS,
    "c_beta": [Real(0, None)],
    "kappa": [Real(0, None, closed="neither")],
    "norm_bound": [None, Real(0, None)],
    "delta": [None, Level()],
}


def _base_params(lam_reg, refit_growth, max_iter, tol):
    """Kernel parameter vector of the estimator settings (already validated)."""
    p = np.zeros(_k.N_PARAMS)
    p[0] = float(_scalar(lam_reg))
    p[7] = float(_scalar(refit_growth))
    p[8] = int(_scalar(max_iter))
    p[9] = float(_scalar(tol))
    p[10] = 1.0
    return p


def _ucb_params(self, d, T):
    p = _base_params(self.lam_reg, self.refit_growth, self.max_iter, self.tol)
    p[1] = float(_scalar(self.c_beta))
    p[2] = float(_scalar(self.kappa))
    p[3] = math.sqrt(d) if self.norm_bound is None else float(_scalar(self.norm_bound))
    delta = 1.0 / T if self.delta is None else float(_scalar(self.delta))
    p[4] = math.log(1.0 / delta) if delta < 1.0 else 0.0
    return p


_UCB_DOC = """
    lam_reg : float, default=1.0
        Ridge penalty of the per-server logistic MLE.
    c_beta : float, default=0.01
        Multiplier of the confidence radius
        ``beta_k = c_beta kappa (sqrt(2 log(1/delta) + d log(1 + n_k/(d lam))) + sqrt(lam) S)``.
        ``c_beta = 1`` is the theory-sized width, which on the paper's
        instance keeps the bonus above 1 for thousands of rounds; see Notes.
    kappa : float, default=10.0
        Logistic curvature constant ``kappa`` (10 in the paper's experiments).
    norm_bound : float, optional
        Bound ``S`` on ``||theta_k||``; ``sqrt(d)`` when ``None``.
    delta : float, optional
        Confidence level of the radius; ``1 / horizon`` when ``None``.
    refit_growth : float, default=0.1
        Exact Newton refit when a server's count grows by this factor; online
        Newton steps in between (see :class:`LogisticUCBEstimator`).
    max_iter : int, default=20
        Newton iterations per refit.
    tol : float, default=1e-8
        Newton stopping tolerance (largest absolute step).
"""


class OraclePolicy(_QueuePolicy):
    """The benchmark ``pi*``: serve the pair with the largest true departure probability.

    Knows every ``theta*_k`` and picks ``argmax_{x in queue, k} mu(x^T
    theta*_k)``, oldest job first and then lowest server index on ties.

    Parameters
    ----------
    thetas : array-like of shape (n_servers, n_features)
        True server parameters.

    Examples
    --------
    >>> import numpy as np
    >>> from statlearn.bandits.queueing import OraclePolicy
    >>> pol = OraclePolicy(np.array([[1.0, 0.0], [0.0, 1.0]])).reset(2, 2, horizon=10)
    >>> pol.select(np.array([[0.2, 0.1], [0.0, 0.9]]), t=1)
    (1, 1)
    """

    _code = _k.ORACLE
    _parameter_constraints = {"thetas": ["array-like"]}  # shape checked in reset

    def __init__(self, thetas):
        self.thetas = thetas

    def _prepare(self, n_servers, n_features, horizon):
        validate_params(self)
        th = check_array(self.thetas, "thetas", dtype=np.float64)
        if th.shape != (n_servers, n_features):
            raise ValueError(
                f"OraclePolicy.thetas must have shape {(n_servers, n_features)} to match the "
                f"environment, got {th.shape}."
            )
        self._thetas = th
        return self._code, np.zeros(_k.N_PARAMS), np.zeros((n_servers, n_features))

    def _select(self, queue_X, t):
        rates = sigmoid_np(_rowdot(queue_X, self._thetas))
        flat = int(np.argmax(rates))
        return flat // rates.shape[1], flat % rates.shape[1]


class RandomPolicy(_QueuePolicy):
    """Serve a uniformly random waiting job with a uniformly random server.

    Parameters
    ----------
    random_state : None, int or numpy.random.Generator
        Seed of the policy's choices (overridden per run by :func:`simulate`).

    Examples
    --------
    >>> import numpy as np
    >>> from statlearn.bandits.queueing import RandomPolicy
    >>> pol = RandomPolicy(random_state=0).reset(3, 2, horizon=5)
    >>> job, server = pol.select(np.zeros((4, 2)), t=1)
    >>> 0 <= job < 4 and 0 <= server < 3
    True
    """

    _code = _k.RANDOM
    _parameter_constraints = {"random_state": ["random_state"]}

    def __init__(self, random_state=None):
        self.random_state = random_state

    def _prepare(self, n_servers, n_features, horizon):
        validate_params(self)
        return self._code, np.zeros(_k.N_PARAMS), np.zeros((n_servers, n_features))

    def _select(self, queue_X, t):
        u = self.policy_u_[t - 1]
        Q, K = queue_X.shape[0], self.n_servers_
        return min(int(u[0] * Q), Q - 1), min(int(u[1] * K), K - 1)


class CQBEpsilon(_QueuePolicy):
    """CQB-eps: pure exploration, then epsilon-exploration around a logistic UCB rule.

    For stochastic contexts (Bae, Kang & Lee, 2026, Algorithm CQB-eps):

    1. rounds ``t <= tau``: serve the newest waiting job with the servers in
       round-robin order;
    2. rounds ``t > tau``: with probability ``explore_rate`` serve the newest
       job with a uniformly random server, otherwise the pair maximising
       ``UCB(x, k) = mu(x^T theta_hat_k) + beta_k ||x||_{V_k^{-1}}`` over the
       whole queue (``exploit="greedy"`` drops the width).

    Every served pair updates that server's logistic estimator.

    Parameters
    ----------
    tau : int, optional
        Length of the pure-exploration phase. When ``None`` it is
        ``ceil(c_tau d log T / (sigma0_sq^2 slack^2))``.
    c_tau : float, default=0.01
        Constant of the exploration length (see Notes for why not 1).
    sigma0_sq : float, default=1/3
        Lower bound on ``lambda_min(E[x x^T])`` (1/3 for contexts uniform on
        ``[-1, 1]^d``; use :meth:`ContextualQueueEnv.context_min_eigenvalue`
        under slack rejection).
    slack : float, default=0.1
        Traffic slack ``epsilon`` assumed by the schedule.
    explore_rate : float, optional
        Exploration probability after ``tau``; ``horizon^{-1/2}`` when ``None``.
    exploit : {"ucb", "greedy"}, default="ucb"
        Exploitation rule after ``tau``.
    %(ucb)s
    random_state : None, int or numpy.random.Generator
        Seed of the exploration coins (overridden per run by :func:`simulate`).

    Notes
    -----
    A literal ``c_tau = 1`` gives ``tau = 4500 log T`` on the paper's
    instance (``d = 5``, ``slack = 0.1``, ``sigma0_sq = 1/3``), i.e. about
    38,300 rounds at ``T = 5000``: the run never leaves pure exploration and
    the drop towards the oracle never appears (the paper's constant is hidden
    in the O-tilde of its Theorem 5.5). The default ``c_tau = 0.01`` gives
    ``tau = 45 log T`` (384 rounds at ``T = 5000``, 470 at ``T = 32000``), a small share of the
    horizon that still gives every server about 75 samples before
    exploitation starts. A ``UserWarning`` is raised whenever ``tau >= T``.

    Departures from a literal reading, our reconstructions of Bae, Kang and
    Lee (2026), Sec. 5: the job served while exploring is the newest one (only
    fresh arrivals are i.i.d.), the round-robin counter advances over service
    rounds only (so every server gets the same number of exploration
    samples), and the estimator refits exactly on a geometric schedule (see
    ``refit_growth``).

    References
    ----------
    S. Bae, G. Kang and D. Lee, "Queue Length Regret Bounds for Contextual
    Queueing Bandits", ICLR 2026, arXiv:2601.19300.

    Examples
    --------
    >>> from statlearn.bandits.queueing import CQBEpsilon, make_queueing_instance, simulate
    >>> env = make_queueing_instance(random_state=0)
    >>> res = simulate(CQBEpsilon(), env, horizon=2000, n_reps=4, random_state=0)
    >>> res.queue_length.shape
    (4, 501)
    """

    _code = _k.CQB_EPS
    _learns = True
    _parameter_constraints = {
        "tau": [None, Integral(0)],
        "c_tau": [Real(0, None)],
        "sigma0_sq": [Real(0, None, closed="neither")],
        "slack": [Real(0, 1, closed="neither")],
        "explore_rate": [None, Real(0, 1)],
        "exploit": [Options(["ucb", "greedy"])],
        **_UCB_CONSTRAINTS,
        "random_state": ["random_state"],
    }

    def __init__(self, tau=None, c_tau=0.01, sigma0_sq=1 / 3, slack=0.1, explore_rate=None,
                 exploit="ucb", lam_reg=1.0, c_beta=0.01, kappa=10.0, norm_bound=None,
                 delta=None, refit_growth=0.1, max_iter=20, tol=1e-8, random_state=None):
        self.tau = tau
        self.c_tau = c_tau
        self.sigma0_sq = sigma0_sq
        self.slack = slack
        self.explore_rate = explore_rate
        self.exploit = exploit
        self.lam_reg = lam_reg
        self.c_beta = c_beta
        self.kappa = kappa
        self.norm_bound = norm_bound
        self.delta = delta
        self.refit_growth = refit_growth
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state

    def exploration_length(self, n_features, horizon):
        """The pure-exploration length ``tau`` used for this dimension and horizon.

        Examples
        --------
        >>> from statlearn.bandits.queueing import CQBEpsilon
        >>> CQBEpsilon().exploration_length(5, 5000)
        384
        >>> CQBEpsilon(c_tau=1.0).exploration_length(5, 5000) > 5000
        True
        """
        validate_params(self)
        d = check_int(n_features, "n_features", low=1)
        T = check_int(horizon, "horizon", low=1)
        if self.tau is not None:
            return int(_scalar(self.tau))
        c = float(_scalar(self.c_tau))
        s2 = float(_scalar(self.sigma0_sq))
        eps = float(_scalar(self.slack))
        return int(math.ceil(c * d * math.log(T) / (s2 ** 2 * eps ** 2)))

    def _prepare(self, n_servers, n_features, horizon):
        tau = self.exploration_length(n_features, horizon)  # validates the parameters
        p = _ucb_params(self, n_features, horizon)
        p[5] = tau
        p[6] = (horizon ** -0.5 if self.explore_rate is None
                else float(_scalar(self.explore_rate)))
        p[10] = 1.0 if self.exploit == "ucb" else 0.0
        return self._code, p, None

    def _warn(self, n_features, horizon):
        tau = self.exploration_length(n_features, horizon)
        if tau >= horizon:
            warnings.warn(
                f"CQBEpsilon: the pure-exploration phase (tau = {tau}) covers the whole "
                f"horizon ({horizon} rounds); the run never exploits. Lower c_tau or set tau.",
                UserWarning, stacklevel=3,
            )

    def _select(self, queue_X, t):
        p = self.params_
        u = self.policy_u_[t - 1]
        Q, K = queue_X.shape[0], self.n_servers_
        if t <= p[5]:
            k = self.n_explore_ % K
        elif u[0] < p[6]:
            k = min(int(u[1] * K), K - 1)
        else:
            return self._ucb_select(queue_X, scale=p[10])
        self.n_explore_ += 1
        return Q - 1, k


CQBEpsilon.__doc__ = CQBEpsilon.__doc__ % {"ucb": _UCB_DOC.strip()}


class CQBOpt(_QueuePolicy):
    """CQB-Opt: serve the pair with the largest logistic UCB, with no forced exploration.

    For adversarial contexts (Bae, Kang & Lee, 2026): every round with a
    non-empty queue serves ``argmax_{x in queue, k} mu(x^T theta_hat_k) +
    beta_k ||x||_{V_k^{-1}}`` (oldest job, then lowest server, on ties) and
    updates server ``k``'s estimator. Cost ``O(Q(t) K d^2)`` per round.

    Parameters
    ----------
    %(ucb)s

    Notes
    -----
    Guarantee (Thm 6.3 of the paper): ``R_T = O(d^2 log^2 T / eps^1.5 + d log T
    / eps^2)`` under the slack assumption, for any context sequence.

    Examples
    --------
    >>> from statlearn.bandits.queueing import CQBOpt, make_queueing_instance, simulate
    >>> env = make_queueing_instance(random_state=0)
    >>> res = simulate(CQBOpt(), env, horizon=1000, n_reps=4, random_state=0)
    >>> res.regret_runs.shape
    (4,)
    """

    _code = _k.UCB
    _learns = True
    _parameter_constraints = dict(_UCB_CONSTRAINTS)

    def __init__(self, lam_reg=1.0, c_beta=0.01, kappa=10.0, norm_bound=None, delta=None,
                 refit_growth=0.1, max_iter=20, tol=1e-8):
        self.lam_reg = lam_reg
        self.c_beta = c_beta
        self.kappa = kappa
        self.norm_bound = norm_bound
        self.delta = delta
        self.refit_growth = refit_growth
        self.max_iter = max_iter
        self.tol = tol

    def _prepare(self, n_servers, n_features, horizon):
        validate_params(self)
        return self._code, _ucb_params(self, n_features, horizon), None

    def _select(self, queue_X, t):
        return self._ucb_select(queue_X)


CQBOpt.__doc__ = CQBOpt.__doc__ % {"ucb": _UCB_DOC.strip()}


class QueueBlindUCBPolicy(CQBOpt):
    """Baseline: serve the oldest job (FIFO) with the server of largest logistic UCB.

    A standard contextual logistic-UCB bandit that ignores which jobs are
    waiting: it schedules first-come-first-served and only learns the
    server assignment. It shows what choosing the job adds.

    Parameters
    ----------
    %(ucb)s

    Examples
    --------
    >>> import numpy as np
    >>> from statlearn.bandits.queueing import QueueBlindUCBPolicy
    >>> pol = QueueBlindUCBPolicy().reset(2, 2, horizon=10)
    >>> pol.select(np.array([[0.1, 0.2], [0.9, 0.9]]), t=1)[0]
    0
    """

    _code = _k.FIFO_UCB

    def _select(self, queue_X, t):
        return self._ucb_select(queue_X, fifo=True)


QueueBlindUCBPolicy.__doc__ = QueueBlindUCBPolicy.__doc__ % {"ucb": _UCB_DOC.strip()}


class GreedyMLEPolicy(_QueuePolicy):
    """Baseline: serve the pair with the largest estimated rate ``mu(x^T theta_hat_k)``.

    The certainty-equivalent rule (CQB-Opt with ``beta = 0``): no optimism and
    no forced exploration, so it can lock onto a server that looked good
    early.

    Parameters
    ----------
    lam_reg : float, default=1.0
        Ridge penalty of the logistic MLE.
    refit_growth : float, default=0.1
        See :class:`LogisticUCBEstimator`.
    max_iter : int, default=20
        Newton iterations per refit.
    tol : float, default=1e-8
        Newton tolerance.
    theta_init : array-like of shape (n_servers, n_features), optional
        Starting estimate (zeros by default).
    freeze : bool, default=False
        Never update the estimator. With ``theta_init`` equal to the true
        parameters this is the oracle itself, which the tests use to check
        the common-random-numbers coupling.

    Examples
    --------
    >>> from statlearn.bandits.queueing import GreedyMLEPolicy, make_queueing_instance, simulate
    >>> env = make_queueing_instance(random_state=0)
    >>> res = simulate(GreedyMLEPolicy(theta_init=env.thetas, freeze=True), env,
    ...                horizon=500, n_reps=3, random_state=0)
    >>> float(abs(res.regret_runs).max())
    0.0
    """

    _code = _k.UCB
    _learns = True
    _parameter_constraints = {
        **_ESTIMATOR_CONSTRAINTS,
        "theta_init": [None, "array-like"],  # shape checked in reset
        "freeze": ["boolean"],
    }

    def __init__(self, lam_reg=1.0, refit_growth=0.1, max_iter=20, tol=1e-8, theta_init=None,
                 freeze=False):
        self.lam_reg = lam_reg
        self.refit_growth = refit_growth
        self.max_iter = max_iter
        self.tol = tol
        self.theta_init = theta_init
        self.freeze = freeze

    def _prepare(self, n_servers, n_features, horizon):
        validate_params(self)
        p = _base_params(self.lam_reg, self.refit_growth, self.max_iter, self.tol)
        p[11] = float(_scalar(self.freeze))
        theta0 = None
        if self.theta_init is not None:
            theta0 = check_array(self.theta_init, "theta_init", dtype=np.float64)
            if theta0.shape != (n_servers, n_features):
                raise ValueError(
                    f"theta_init must have shape {(n_servers, n_features)}, got {theta0.shape}."
                )
        return self._code, p, theta0

    def _select(self, queue_X, t):
        return self._ucb_select(queue_X)

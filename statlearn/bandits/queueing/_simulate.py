"""Single runs and Monte Carlo simulation of queueing policies against the oracle."""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd
from sklearn.exceptions import ConvergenceWarning

from statlearn.simulation import run_study
from statlearn.utils import (
    ConfidenceInterval,
    Summary,
    check_int,
    check_option,
    check_rng,
    normal_interval,
)
from statlearn.utils._results import compact_repr
from statlearn.utils._validation import _scalar

from .._protocol import _integer_rounds, _spawn, _study_seed, check_policy
from . import _kernels as _k
from ._env import ContextualQueueEnv, QueueRandomness
from ._estimator import refit_warning_message
from ._policies import OraclePolicy, _QueuePolicy, draw_policy_uniforms

__all__ = ["QueueRun", "QueueSimulationResult", "run_policy", "simulate"]

ENGINES = ("numba", "python")


@dataclass(frozen=True, eq=False)
class QueueRun:
    """One trajectory of a policy.

    Attributes
    ----------
    queue_length : ndarray of shape (horizon + 1,)
        ``queue_length[t]`` is the number of waiting jobs after ``t`` rounds
        (``queue_length[0] = 0``).
    jobs, servers : ndarray of shape (horizon,)
        Served job index (into the queue, oldest first) and server per round;
        ``-1`` when the queue was empty.
    departed : ndarray of shape (horizon,), bool
        Whether the served job left.
    theta : ndarray of shape (n_servers, n_features) or None
        Final estimates of a learning policy.
    n_obs : ndarray of shape (n_servers,) or None
        Observations per server of a learning policy.
    n_explore : int
        Exploration rounds (CQB-eps), else 0.
    n_unconverged : int
        Exact Newton refits of the estimator that stopped at ``max_iter``
        without reaching ``tol`` (each server's are reported by a
        ``ConvergenceWarning``), else 0.

    Examples
    --------
    >>> from statlearn.bandits.queueing import RandomPolicy, make_queueing_instance, run_policy
    >>> run = run_policy(RandomPolicy(), make_queueing_instance(random_state=0), 100,
    ...                  random_state=1)
    >>> run.queue_length.shape, run.jobs.shape
    ((101,), (100,))
    """

    queue_length: np.ndarray
    jobs: np.ndarray
    servers: np.ndarray
    departed: np.ndarray
    theta: np.ndarray | None = None
    n_obs: np.ndarray | None = None
    n_explore: int = 0
    n_unconverged: int = 0

    __repr__ = compact_repr


def _check_policy_env(policy, env, engine):
    """Validate the pair and resolve ``engine`` (``None``: compiled for built-in policies)."""
    check_policy(policy)
    if not isinstance(env, ContextualQueueEnv):
        raise TypeError(f"env must be a ContextualQueueEnv, got {type(env).__name__}.")
    builtin = isinstance(policy, _QueuePolicy)
    if engine is None:
        return "numba" if builtin else "python"
    check_option(engine, "engine", ENGINES)
    if engine == "numba" and not builtin:
        raise ValueError(
            f"engine='numba' runs only the built-in queueing policies; a user policy "
            f"({type(policy).__name__}) runs with engine='python' (or engine=None)."
        )
    return engine


def _run_numba(policy, thetas, rand, policy_u, prepared=None, warn=True):
    K, d = thetas.shape
    T = rand.horizon
    code, params, theta0 = prepared or policy._prepare(K, d, T)
    lam = params[0] if params[0] > 0 else 1.0
    theta = np.zeros((K, d)) if theta0 is None else np.array(theta0, dtype=float)
    vinv = np.repeat(np.eye(d)[None] / lam, K, axis=0)
    hinv = vinv.copy()
    n_obs = np.zeros(K, dtype=np.int64)
    n_refit = np.zeros(K, dtype=np.int64)
    cap = T if policy._learns else 1
    Xs = np.zeros((K, cap, d))
    ys = np.zeros((K, cap))
    q_path = np.zeros(T + 1, dtype=np.int64)
    jobs = np.zeros(T, dtype=np.int64)
    servers = np.zeros(T, dtype=np.int64)
    departed = np.zeros(T, dtype=np.bool_)
    unconverged = np.zeros(K, dtype=np.int64)
    last_step = np.zeros(K)
    n_explore = _k.run_queue_kernel(
        int(code), params, rand.arrivals, np.ascontiguousarray(rand.features, dtype=float),
        rand.service_u, policy_u, np.ascontiguousarray(thetas), theta, vinv, hinv, n_obs,
        n_refit, Xs, ys, q_path, jobs, servers, departed, unconverged, last_step)
    if warn:
        # the Python estimator warns at each refit that stops short; the compiled loop
        # cannot, so it reports them per server once the run is over, in the same words
        for k in np.flatnonzero(unconverged):
            warnings.warn(refit_warning_message(int(k), int(params[8]), float(last_step[k]),
                                                float(params[9]), int(unconverged[k])),
                          ConvergenceWarning, stacklevel=3)
    learns = policy._learns
    return QueueRun(q_path, jobs, servers, departed, theta if learns else None,
                    n_obs if learns else None, int(n_explore), int(unconverged.sum()))


def _run_python(policy, env, rand, policy_rng):
    T = rand.horizon
    K, d = env.n_servers, env.n_features
    env.reset(randomness=rand)
    policy.reset(K, d, T, random_state=policy_rng)
    q_path = np.zeros(T + 1, dtype=np.int64)
    jobs = np.full(T, -1, dtype=np.int64)
    servers = np.full(T, -1, dtype=np.int64)
    departed = np.zeros(T, dtype=np.bool_)
    for t in range(1, T + 1):
        qx = env.queue_features
        action = policy.select(qx, t)
        dep, _ = env.step(action)
        if action is not None:
            policy.update(qx[action[0]], action[1], dep)
            jobs[t - 1], servers[t - 1] = action
            departed[t - 1] = dep
        q_path[t] = env.queue_length
    est = getattr(policy, "estimator_", None) if isinstance(policy, _QueuePolicy) else None
    return QueueRun(q_path, jobs, servers, departed,
                    None if est is None else est.theta_.copy(),
                    None if est is None else est.n_obs_.copy(),
                    int(getattr(policy, "n_explore_", 0)),
                    0 if est is None else int(est.n_unconverged_.sum()))


def run_policy(policy, env, horizon=None, *, randomness=None, random_state=None,
               engine=None):
    """Run ``policy`` once on ``env``.

    Parameters
    ----------
    policy : built-in queueing policy or any object following the policy protocol
        One of OraclePolicy, RandomPolicy, CQBEpsilon, CQBOpt, GreedyMLEPolicy,
        QueueBlindUCBPolicy, or a user policy. A user policy needs
        ``reset(n_servers, n_features, horizon, random_state)``,
        ``select(queue_X, t)`` returning ``(job_idx, server)`` or ``None``, and
        ``update(x, server, departed)``; see
        :class:`statlearn.bandits.BanditPolicy`. It runs on the Python engine.
    env : ContextualQueueEnv
    horizon : int, optional
        Number of rounds (taken from ``randomness`` when given).
    randomness : QueueRandomness, optional
        Pre-drawn environment randomness; share it between two policies to
        couple them by common random numbers.
    random_state : None, int or numpy.random.Generator
        Seeds the environment (when ``randomness`` is not given) and the
        policy's own randomness. With ``None``, a policy constructed with its
        own ``random_state`` draws from that seed, on both engines.
    engine : {"numba", "python"} or None, default=None
        ``"numba"`` runs the compiled loop (built-in policies only);
        ``"python"`` steps :meth:`ContextualQueueEnv.step` and the policy's
        ``select``/``update`` (the NumPy reference; identical results, much
        slower). ``None`` picks ``"numba"`` for built-in policies and
        ``"python"`` for user policies.

    Returns
    -------
    QueueRun

    Warns
    -----
    ConvergenceWarning
        When an exact Newton refit of the estimator stops at ``max_iter``
        without reaching ``tol``: at each such refit on the Python engine,
        once per server after the run on the compiled engine (with their
        number and the last step of the latest one).

    Examples
    --------
    >>> from statlearn.bandits.queueing import (CQBOpt, OraclePolicy, make_queueing_instance,
    ...                                         run_policy)
    >>> env = make_queueing_instance(random_state=0)
    >>> rand = env.sample_randomness(300, random_state=1)
    >>> a = run_policy(CQBOpt(), env, randomness=rand, random_state=2)
    >>> b = run_policy(CQBOpt(), env, randomness=rand, random_state=2, engine="python")
    >>> bool((a.queue_length == b.queue_length).all())
    True
    """
    engine = _check_policy_env(policy, env, engine)
    rng = check_rng(_scalar(random_state))
    env_rng, pol_rng = _spawn(rng, 2)
    if random_state is None and getattr(policy, "random_state", None) is not None:
        # without a seed for the run, the policy's own seed drives its draws (it was
        # ignored: a seeded policy gave a different run each time)
        pol_rng = check_rng(_scalar(policy.random_state))
    if randomness is None:
        if horizon is None:
            raise ValueError("run_policy needs a horizon or a QueueRandomness.")
        randomness = env.sample_randomness(check_int(horizon, "horizon", low=1), env_rng)
    elif not isinstance(randomness, QueueRandomness):
        raise TypeError(f"randomness must be a QueueRandomness, got {type(randomness).__name__}.")
    elif horizon is not None and check_int(horizon, "horizon", low=1) != randomness.horizon:
        raise ValueError(
            f"horizon = {horizon} does not match the randomness ({randomness.horizon} rounds)."
        )
    thetas = env._validate()
    _check_randomness(randomness, thetas.shape[1])
    if engine == "python":
        return _run_python(policy, env, randomness, pol_rng)
    policy_u = draw_policy_uniforms(pol_rng, randomness.horizon)
    return _run_numba(policy, thetas, randomness, policy_u)


def _check_randomness(rand, d):
    T = rand.arrivals.shape[0] if np.ndim(rand.arrivals) == 1 else -1
    if (T < 1 or np.shape(rand.service_u) != (T,) or np.ndim(rand.features) != 2
            or rand.features.shape[0] != T):
        raise ValueError(
            "randomness must hold arrivals (T,), features (T, n_features) and service_u (T,) "
            f"with T >= 1; got shapes {np.shape(rand.arrivals)}, {np.shape(rand.features)}, "
            f"{np.shape(rand.service_u)}."
        )
    if rand.features.shape[1] != d:
        raise ValueError("randomness was drawn for another feature dimension.")
    if np.asarray(rand.arrivals).dtype != np.bool_:
        raise TypeError("randomness.arrivals must be a boolean array.")
    u = np.asarray(rand.service_u, dtype=float)
    if not (np.all(np.isfinite(rand.features)) and np.all((u >= 0) & (u <= 1))):
        raise ValueError("randomness: features must be finite and service_u in [0, 1].")


def _replication(setting, rng):
    """One Monte Carlo run of ``setting['policy']`` and the oracle (for :func:`run_study`)."""
    policy, env = setting["policy"], setting["env"]
    T, ck = setting["horizon"], np.asarray(setting["checkpoints"])
    thetas = np.asarray(env.thetas, dtype=float)
    env_rng, pol_rng, alt_rng = rng.spawn(3)
    rand = env._draw(thetas, T, env_rng)
    if setting["engine"] == "python":
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            run = run_policy(policy, env, randomness=rand, random_state=pol_rng,
                             engine="python")
    else:
        # the same streams as run_policy(..., random_state=pol_rng), without re-validation
        policy_u = draw_policy_uniforms(pol_rng.spawn(2)[1], T)
        run = _run_numba(policy, thetas, rand, policy_u, setting["prepared"], warn=False)
    orand = rand if setting["crn"] else env._draw(thetas, T, alt_rng)
    oracle = OraclePolicy(thetas)
    orun = _run_numba(oracle, thetas, orand, np.zeros((T, 2)),
                      (_k.ORACLE, np.zeros(_k.N_PARAMS), None))
    out = {"acceptance_rate": rand.acceptance_rate, "n_explore": run.n_explore,
           "n_unconverged": run.n_unconverged}
    q, o = run.queue_length[ck], orun.queue_length[ck]
    for i, t in enumerate(ck):
        out[f"q{t}"] = int(q[i])
        out[f"o{t}"] = int(o[i])
    return out


def _checkpoints(checkpoints, T):
    if checkpoints is None:
        return np.unique(np.round(np.linspace(0, T, min(T, 500) + 1)).astype(np.int64))
    ck = _integer_rounds(checkpoints, "checkpoints")
    if ck.min() < 0 or ck.max() > T:
        raise ValueError(f"checkpoints must lie in [0, horizon] = [0, {T}].")
    return np.unique(np.append(ck, T)).astype(np.int64)


def simulate(policy, env, horizon, n_reps=100, *, common_random_numbers=True, checkpoints=None,
             engine=None, random_state=0, n_jobs=None, backend=None, progress=False,
             store=None):
    """Monte Carlo queue lengths of ``policy`` and of the oracle, and the queue-length regret.

    Each run draws the environment's randomness once and, with common random
    numbers, feeds the same arrivals, features and service uniforms to the
    policy and to the oracle ``pi*``. The terminal regret of a run is
    ``Q(T) - Q*(T)`` (queue lengths after ``T`` rounds), and
    ``R_T = E[Q(T)] - E[Q*(T)]`` is estimated by their mean with a normal CI.

    Runs go through :func:`statlearn.simulation.run_study`, so they are
    reproducible for any ``n_jobs``/``backend`` (Dask included) and can be
    resumed from a ``store``.

    Parameters
    ----------
    policy : built-in queueing policy or any object following the policy protocol
        See :func:`run_policy`; user policies run on the Python engine.
    env : ContextualQueueEnv
    horizon : int
        Rounds per run ``T``.
    n_reps : int, default=100
        Independent runs.
    common_random_numbers : bool, default=True
        Couple the oracle to the policy; ``False`` gives the oracle its own
        randomness (a noisier estimate of the same ``R_T``).
    checkpoints : sequence of int, optional
        Rounds at which queue lengths are recorded (``T`` is always added).
        Default: ``min(T, 500) + 1`` evenly spaced rounds from 0 to ``T``.
    engine : {"numba", "python"} or None, default=None
        Compiled loop or the NumPy step-by-step reference; ``None`` picks the
        compiled loop for built-in policies and the Python loop for user
        policies (see :func:`run_policy`).
    random_state : None, int, SeedSequence, Generator or RandomState, default=0
        Root seed; run ``r`` uses ``SeedSequence(random_state, spawn_key=(0, r))``.
        A ``SeedSequence``, ``Generator`` or ``RandomState`` gives the root seed
        by one draw (the same seeded object gives the same runs).
    n_jobs, backend, progress, store
        Passed to :func:`~statlearn.simulation.run_study`.

    Returns
    -------
    QueueSimulationResult

    Warns
    -----
    UnstableQueueWarning
        When the arrival rate is not below any context's best service rate.
    ConvergenceWarning
        When exact Newton refits of a built-in learning policy stopped at
        ``max_iter`` without reaching ``tol`` (once, with their number, on
        either engine).

    Examples
    --------
    >>> from statlearn.bandits.queueing import (CQBOpt, RandomPolicy, make_queueing_instance,
    ...                                         simulate)
    >>> env = make_queueing_instance(random_state=0)
    >>> opt = simulate(CQBOpt(), env, horizon=2000, n_reps=10, random_state=0)
    >>> rnd = simulate(RandomPolicy(), env, horizon=2000, n_reps=10, random_state=0)
    >>> bool(opt.regret < rnd.regret)
    True
    """
    engine = _check_policy_env(policy, env, engine)
    T = check_int(horizon, "horizon", low=1)
    n_reps = check_int(n_reps, "n_reps", low=1)
    common_random_numbers = _scalar(common_random_numbers)
    if not isinstance(common_random_numbers, bool | np.bool_):
        raise TypeError(
            f"common_random_numbers must be a bool, got {type(common_random_numbers).__name__}."
        )
    random_state = _study_seed(random_state)
    ck = _checkpoints(checkpoints, T)
    env._check_horizon(T)  # validates the environment (and a context sequence's length)
    prepared = None
    if isinstance(policy, _QueuePolicy):
        prepared = policy._prepare(env.n_servers, env.n_features, T)
    env.check_stability()
    if isinstance(policy, _QueuePolicy):
        policy._warn(env.n_features, T)
    setting = {"policy": policy, "env": env, "horizon": T, "checkpoints": tuple(int(c) for c in ck),
               "crn": bool(common_random_numbers), "engine": engine, "prepared": prepared}
    res = run_study(_replication, [setting], n_reps=n_reps, random_state=random_state,
                    n_jobs=n_jobs, backend=backend, progress=progress, store=store,
                    name=f"queueing-{type(policy).__name__}")
    table = res.table.sort_values("rep")
    if prepared is not None and "n_unconverged" in table and table["n_unconverged"].sum() > 0:
        short = table["n_unconverged"].to_numpy(dtype=np.int64)
        warnings.warn(
            f"LogisticUCBEstimator: {int(short.sum())} Newton refits in "
            f"{int((short > 0).sum())} of the {n_reps} runs stopped after "
            f"max_iter={int(prepared[1][8])} iterations without reaching "
            f"tol={float(prepared[1][9]):g}; the estimates are not the regularised MLE "
            "(increase max_iter).", ConvergenceWarning, stacklevel=2)
    q = table[[f"q{t}" for t in ck]].to_numpy(dtype=np.int64)
    o = table[[f"o{t}" for t in ck]].to_numpy(dtype=np.int64)
    return QueueSimulationResult(
        policy=type(policy).__name__, checkpoints=ck, queue_length=q, oracle_queue_length=o,
        n_explore=table["n_explore"].to_numpy(dtype=np.int64),
        acceptance_rate=float(table["acceptance_rate"].mean()),
        common_random_numbers=bool(common_random_numbers))


@dataclass(frozen=True, eq=False)
class QueueSimulationResult:
    """Queue-length paths of a policy and the oracle over Monte Carlo runs.

    Attributes
    ----------
    policy : str
        Policy class name.
    checkpoints : ndarray of shape (n_checkpoints,)
        Rounds ``t`` at which queue lengths were recorded (last = horizon).
    queue_length : ndarray of shape (n_reps, n_checkpoints)
        The policy's queue length after ``checkpoints[j]`` rounds.
    oracle_queue_length : ndarray of shape (n_reps, n_checkpoints)
        The oracle's, on common random numbers when requested.
    n_explore : ndarray of shape (n_reps,)
        Exploration rounds per run (CQB-eps).
    acceptance_rate : float
        Mean acceptance rate of the slack rejection step.
    common_random_numbers : bool
        Whether the oracle shared the policy's randomness.

    Examples
    --------
    >>> from statlearn.bandits.queueing import CQBOpt, make_queueing_instance, simulate
    >>> res = simulate(CQBOpt(), make_queueing_instance(random_state=0), horizon=500,
    ...                n_reps=20, random_state=0)
    >>> lo, hi = res.confidence_interval()
    >>> bool(lo <= res.regret <= hi)
    True
    """

    policy: str
    checkpoints: np.ndarray
    queue_length: np.ndarray
    oracle_queue_length: np.ndarray
    n_explore: np.ndarray
    acceptance_rate: float
    common_random_numbers: bool

    __repr__ = compact_repr

    @property
    def horizon(self) -> int:
        """Rounds per run ``T``."""
        return int(self.checkpoints[-1])

    @property
    def n_reps(self) -> int:
        """Number of runs."""
        return int(self.queue_length.shape[0])

    @property
    def regret_runs(self) -> np.ndarray:
        """Per-run terminal differences ``Q(T) - Q*(T)``."""
        return (self.queue_length[:, -1] - self.oracle_queue_length[:, -1]).astype(float)

    @property
    def regret(self) -> float:
        """Estimated queue-length regret ``R_T = E[Q(T)] - E[Q*(T)]``."""
        return float(self.regret_runs.mean())

    @property
    def regret_se(self) -> float:
        """Standard error of :attr:`regret` (``nan`` with a single run)."""
        r = self.regret_runs
        return float(r.std(ddof=1) / math.sqrt(r.size)) if r.size > 1 else math.nan

    def regret_path(self) -> np.ndarray:
        """Mean ``Q(t) - Q*(t)`` at every checkpoint."""
        return (self.queue_length - self.oracle_queue_length).mean(axis=0)

    def mean_queue_length(self, oracle=False) -> np.ndarray:
        """Mean queue length at every checkpoint (the oracle's when ``oracle=True``)."""
        q = self.oracle_queue_length if oracle else self.queue_length
        return q.mean(axis=0)

    def confidence_interval(self, confidence_level=0.95) -> ConfidenceInterval:
        """Normal confidence interval for ``R_T`` over the runs."""
        return normal_interval(self.regret, self.regret_se, confidence_level)

    def summary(self, confidence_level=0.95) -> Summary:
        """Terminal queue lengths and regret with its confidence interval."""
        lo, hi = self.confidence_interval(confidence_level)
        table = pd.DataFrame({
            "policy": [self.policy], "T": [self.horizon], "n_reps": [self.n_reps],
            "E[Q(T)]": [self.queue_length[:, -1].mean()],
            "E[Q*(T)]": [self.oracle_queue_length[:, -1].mean()],
            "R_T": [self.regret], "se": [self.regret_se],
            f"ci{int(round(100 * confidence_level))}_low": [lo],
            f"ci{int(round(100 * confidence_level))}_high": [hi],
        })
        notes = (f"common random numbers: {self.common_random_numbers}; "
                 f"context acceptance rate {self.acceptance_rate:.3g}",)
        return Summary(f"Queue-length regret of {self.policy}", {"": table}, notes)

    def plot(self, ax=None, oracle=True):
        """Mean queue length against ``t`` (with the oracle's), 95% pointwise bands.

        Returns
        -------
        matplotlib.axes.Axes
        """
        import matplotlib.pyplot as plt

        if ax is None:
            _, ax = plt.subplots(figsize=(6, 3.5))
        series = [(self.policy, self.queue_length)]
        if oracle:
            series.append(("oracle", self.oracle_queue_length))
        for label, q in series:
            m = q.mean(axis=0)
            se = q.std(axis=0, ddof=1) / math.sqrt(q.shape[0]) if q.shape[0] > 1 else 0 * m
            line, = ax.plot(self.checkpoints, m, label=label)
            ax.fill_between(self.checkpoints, m - 1.96 * se, m + 1.96 * se,
                            color=line.get_color(), alpha=0.2, linewidth=0)
        ax.set_xlabel("round t")
        ax.set_ylabel("mean queue length Q(t)")
        ax.legend(fontsize="small")
        return ax

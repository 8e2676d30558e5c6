"""Causal bandit instances, single runs and Monte Carlo regret studies."""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from statlearn.base import Real, validate_params
from statlearn.simulation import run_study
from statlearn.utils import Summary, check_int, check_option, check_rng, normal_interval
from statlearn.utils._validation import _scalar

from .._protocol import _integer_rounds, _spawn, _study_seed, check_policy
from . import _kernels as _k
from ._agents import _ArmPolicy
from ._graph import _ImmutableParams
from ._scm import Arm, DiscreteSCM, check_binary_reward

__all__ = ["BanditRun", "BanditSimulationResult", "CausalBandit", "run_bandit",
           "simulate_bandit"]

ENGINES = ("numba", "python")


class CausalBandit(_ImmutableParams):
    """A Bernoulli bandit whose arms are interventions or counterfactual arms on an SCM.

    The arm means are computed exactly, once, by enumerating the SCM's
    exogenous variables. Pulling arm ``a`` draws a fresh unit ``u`` and
    returns the binary reward, which is a Bernoulli(``means[a]``) draw; the
    runners sample it as ``1{V_t < means[a]}`` with one uniform ``V_t`` per
    round (the same law).

    Parameters
    ----------
    scm : DiscreteSCM
    reward : str
        Binary reward node.
    arms : sequence of Arm
        The arms the agent may play (see :func:`arm_set`).
    optimum : float, optional
        Best mean over the whole arm space, against which regret is
        measured. Defaults to the best of ``arms``; pass the optimum of the
        full space to see the regret of a pruned set that misses it.

    Attributes
    ----------
    means : ndarray of shape (n_arms,)
        Exact ``E[Y]`` of each arm.

    Notes
    -----
    The instance is immutable: its arguments are checked and its arm means
    computed once, at construction. ``get_params`` and
    :func:`sklearn.base.clone` work; ``set_params`` raises ``TypeError`` (build
    a new instance instead), so the means can never go stale.

    Examples
    --------
    >>> from statlearn.bandits.causal import CausalBandit, arm_set, example_graph, make_xor_scm
    >>> g, y = example_graph("IV")
    >>> scm = make_xor_scm(g, {"Z": 0.5, "X": 0.1, "Y": 0.1})
    >>> bandit = CausalBandit(scm, y, arm_set(scm, y, "POMIS"))
    >>> bandit.means.round(3).tolist()
    [0.18, 0.82, 0.5, 0.5]
    """

    _parameter_constraints = {
        "scm": [DiscreteSCM],
        "reward": [str],  # a binary node of the SCM, checked below
        "arms": [Iterable],  # each an Arm valid for the SCM, checked below
        "optimum": [None, Real(0, 1)],
    }

    def __init__(self, scm, reward, arms, optimum=None):
        # the arguments as given, for the parameter check (replaced by their normal form)
        self.scm, self.reward, self.arms, self.optimum = scm, reward, arms, optimum
        validate_params(self)
        check_binary_reward(scm, reward)
        arms = list(arms)
        if not arms:
            raise ValueError("arms must hold at least one Arm.")
        for a in arms:
            if not isinstance(a, Arm):
                raise TypeError(f"arms must be Arm objects, got {type(a).__name__}.")
        self.scm = scm
        self.reward = reward
        self.arms = arms
        self.means = scm.arm_means(reward, arms)
        best = float(self.means.max())
        if optimum is None:
            optimum = best
        optimum = float(_scalar(optimum))
        if not optimum >= best - 1e-12:
            raise ValueError(f"optimum = {optimum} is below the best arm mean {best}.")
        self.optimum = optimum

    @property
    def n_arms(self) -> int:
        """Number of arms."""
        return len(self.arms)

    def __repr__(self):
        return (f"CausalBandit(reward={self.reward!r}, n_arms={self.n_arms}, "
                f"best={self.means.max():.4g}, optimum={self.optimum:.4g})")


def _as_bandit(bandit):
    """``(means, optimum)`` from a CausalBandit or a vector of means in [0, 1]."""
    if isinstance(bandit, CausalBandit):
        return np.asarray(bandit.means, dtype=float), bandit.optimum
    if isinstance(bandit, str):
        raise TypeError("bandit must be a CausalBandit or a vector of arm means.")
    try:
        mu = np.array(bandit, dtype=float)  # a copy, read by value (never by a pandas index)
    except (TypeError, ValueError) as err:
        raise TypeError("bandit must be a CausalBandit or a vector of arm means.") from err
    if mu.ndim != 1 or mu.size < 1:
        raise ValueError(f"bandit means must be a non-empty 1-D vector, got shape {mu.shape}.")
    if not np.all(np.isfinite(mu)):
        raise ValueError("bandit means must not contain NaN or infinite values.")
    if mu.min() < 0 or mu.max() > 1:
        raise ValueError("bandit means must lie in [0, 1] (Bernoulli rewards).")
    return mu, float(mu.max())


def _resolve_engine(policy, engine):
    check_policy(policy)
    builtin = isinstance(policy, _ArmPolicy)
    if engine is None:
        return "numba" if builtin else "python"
    check_option(engine, "engine", ENGINES)
    if engine == "numba" and not builtin:
        raise ValueError(
            f"engine='numba' runs only the built-in policies (KLUCB, ThompsonSampling); a user "
            f"policy ({type(policy).__name__}) runs with engine='python' (or engine=None).")
    return engine


@dataclass(frozen=True, eq=False)
class BanditRun:
    """One run: the arms pulled, the rewards and the cumulative pseudo-regret.

    Attributes
    ----------
    arms : ndarray of shape (horizon,)
    rewards : ndarray of shape (horizon,)
    regret : ndarray of shape (horizon,)
        ``regret[t-1] = sum_{s <= t} (optimum - means[a_s])``.

    Examples
    --------
    >>> from statlearn.bandits.causal import KLUCB, run_bandit
    >>> run = run_bandit(KLUCB(), [0.4, 0.6], horizon=100, random_state=0)
    >>> run.regret.shape
    (100,)
    """

    arms: np.ndarray
    rewards: np.ndarray
    regret: np.ndarray


def _play(policy, mu, optimum, horizon, rng, engine):
    env_rng, pol_rng = _spawn(rng, 2)
    reward_u = env_rng.random(horizon)
    arms = np.zeros(horizon, dtype=np.int64)
    rewards = np.zeros(horizon)
    if engine == "numba":
        c, pa, pb = policy._params()
        state = _k.seed_state(pol_rng)
        _k.run_bandit_kernel(policy._code, mu, reward_u, state, c, pa, pb, arms, rewards)
    else:
        K = mu.size
        policy.reset(K, horizon, random_state=pol_rng)
        for t in range(1, horizon + 1):
            a = policy.select(t)
            if isinstance(a, bool) or not isinstance(a, numbers.Integral) or not 0 <= a < K:
                raise ValueError(f"policy.select({t}) must return an arm index in "
                                 f"[0, {K - 1}], got {a!r}.")
            r = 1.0 if reward_u[t - 1] < mu[a] else 0.0
            policy.update(int(a), int(r))
            arms[t - 1] = a
            rewards[t - 1] = r
    regret = np.cumsum(optimum - mu[arms])
    return BanditRun(arms, rewards, regret)


def run_bandit(policy, bandit, horizon, *, random_state=None, engine=None):
    """Run ``policy`` once on ``bandit`` for ``horizon`` rounds.

    Parameters
    ----------
    policy : KLUCB, ThompsonSampling, or any object following the policy protocol
        A user policy needs ``reset(n_arms, horizon, random_state)``,
        ``select(t)`` returning an arm index and ``update(arm, reward)``
        (see :class:`statlearn.bandits.BanditPolicy`).
    bandit : CausalBandit or array-like of float
        The instance, or just its arm means (Bernoulli rewards).
    horizon : int
    random_state : None, int or numpy.random.Generator
        Seeds the rewards and the policy's stream (spawned apart).
    engine : {"numba", "python"} or None
        ``None`` compiles built-in policies and steps user policies in Python.
        Both engines give identical runs for the built-in policies.

    Returns
    -------
    BanditRun

    Examples
    --------
    >>> from statlearn.bandits.causal import ThompsonSampling, run_bandit
    >>> a = run_bandit(ThompsonSampling(), [0.3, 0.7], 300, random_state=4)
    >>> b = run_bandit(ThompsonSampling(), [0.3, 0.7], 300, random_state=4, engine="python")
    >>> bool((a.arms == b.arms).all())
    True
    """
    engine = _resolve_engine(policy, engine)
    mu, optimum = _as_bandit(bandit)
    horizon = check_int(horizon, "horizon", low=1)
    return _play(policy, mu, optimum, horizon, check_rng(_scalar(random_state)), engine)


def _replication(setting, rng):
    run = _play(setting["policy"], setting["mu"], setting["optimum"], setting["horizon"], rng,
                setting["engine"])
    best = setting["mu"] >= setting["optimum"] - 1e-12
    out = {}
    for t in setting["checkpoints"]:
        out[f"r{t}"] = float(run.regret[t - 1])
        out[f"o{t}"] = int(best[run.arms[t - 1]])
    return out


def _checkpoints(checkpoints, T):
    if checkpoints is None:
        ck = np.unique(np.round(np.geomspace(1, T, min(T, 60))).astype(np.int64))
        return np.unique(np.append(ck, T))
    ck = _integer_rounds(checkpoints, "checkpoints")
    if ck.min() < 1 or ck.max() > T:
        raise ValueError(f"checkpoints must lie in [1, horizon] = [1, {T}].")
    return np.unique(np.append(ck, T)).astype(np.int64)


def simulate_bandit(policy, bandit, horizon, n_reps=100, *, checkpoints=None, random_state=0,
                    engine=None, n_jobs=None, backend=None, progress=False, store=None,
                    label=None):
    """Monte Carlo cumulative regret of ``policy`` on ``bandit``.

    Runs go through :func:`statlearn.simulation.run_study`: run ``r`` uses
    ``SeedSequence(random_state, spawn_key=(0, r))``, so results do not
    depend on ``n_jobs`` or the backend (Dask included) and can resume from
    a ``store``.

    Parameters
    ----------
    policy : KLUCB, ThompsonSampling, or a policy-protocol object
    bandit : CausalBandit or array-like of float
    horizon : int
    n_reps : int, default=100
    checkpoints : sequence of int, optional
        Rounds at which regret is recorded (``horizon`` is always added);
        default about 60 log-spaced rounds.
    random_state : None, int, SeedSequence, Generator or RandomState, default=0
        Root seed; a ``SeedSequence``, ``Generator`` or ``RandomState`` gives it
        by one draw (the same seeded object gives the same runs).
    engine : {"numba", "python"} or None
    n_jobs, backend, progress, store
        Passed to :func:`~statlearn.simulation.run_study`.
    label : str, optional
        Name shown in summaries (default: the policy's class name).

    Returns
    -------
    BanditSimulationResult

    Examples
    --------
    >>> from statlearn.bandits.causal import KLUCB, simulate_bandit
    >>> res = simulate_bandit(KLUCB(), [0.3, 0.5, 0.7], horizon=1000, n_reps=20)
    >>> res.regret.shape[0], bool(res.mean_regret()[-1] < 40)
    (20, True)
    """
    engine = _resolve_engine(policy, engine)
    mu, optimum = _as_bandit(bandit)
    T = check_int(horizon, "horizon", low=1)
    n_reps = check_int(n_reps, "n_reps", low=1)
    random_state = _study_seed(random_state)
    if isinstance(policy, _ArmPolicy):
        policy._validate()
    ck = _checkpoints(checkpoints, T)
    label = label or type(policy).__name__
    setting = {"policy": policy, "mu": mu, "optimum": optimum, "horizon": T,
               "checkpoints": tuple(int(c) for c in ck), "engine": engine}
    res = run_study(_replication, [setting], n_reps=n_reps, random_state=random_state,
                    n_jobs=n_jobs, backend=backend, progress=progress, store=store,
                    name=f"causal-bandit-{label}")
    table = res.table.sort_values("rep")
    return BanditSimulationResult(
        policy=label, checkpoints=ck,
        regret=table[[f"r{t}" for t in ck]].to_numpy(dtype=float),
        optimal=table[[f"o{t}" for t in ck]].to_numpy(dtype=float),
        means=mu.copy(), optimum=optimum)


@dataclass(frozen=True, eq=False)
class BanditSimulationResult:
    """Cumulative regret paths of one policy over Monte Carlo runs.

    Attributes
    ----------
    policy : str
    checkpoints : ndarray of shape (n_checkpoints,)
        Rounds ``t`` at which regret was recorded (last = horizon).
    regret : ndarray of shape (n_reps, n_checkpoints)
        Cumulative pseudo-regret ``sum_{s <= t} (optimum - mu_{a_s})``.
    optimal : ndarray of shape (n_reps, n_checkpoints)
        Whether the arm pulled at round ``t`` was optimal (1) or not (0).
    means : ndarray of shape (n_arms,)
    optimum : float

    Examples
    --------
    >>> from statlearn.bandits.causal import ThompsonSampling, simulate_bandit
    >>> res = simulate_bandit(ThompsonSampling(), [0.4, 0.6], horizon=500, n_reps=10)
    >>> lo, hi = res.confidence_interval()
    >>> bool(lo <= res.mean_regret()[-1] <= hi)
    True
    """

    policy: str
    checkpoints: np.ndarray
    regret: np.ndarray
    optimal: np.ndarray
    means: np.ndarray
    optimum: float

    @property
    def horizon(self) -> int:
        """Rounds per run."""
        return int(self.checkpoints[-1])

    @property
    def n_reps(self) -> int:
        """Number of runs."""
        return int(self.regret.shape[0])

    def mean_regret(self) -> np.ndarray:
        """Mean cumulative regret at each checkpoint."""
        return self.regret.mean(axis=0)

    def regret_se(self) -> np.ndarray:
        """Standard error of :meth:`mean_regret` (``nan`` with one run)."""
        if self.n_reps < 2:
            return np.full(self.checkpoints.size, math.nan)
        return self.regret.std(axis=0, ddof=1) / math.sqrt(self.n_reps)

    def optimal_rate(self) -> np.ndarray:
        """Fraction of runs pulling an optimal arm at each checkpoint."""
        return self.optimal.mean(axis=0)

    def confidence_interval(self, confidence_level=0.95):
        """Normal confidence interval for the expected regret at the horizon."""
        return normal_interval(float(self.mean_regret()[-1]), float(self.regret_se()[-1]),
                               confidence_level)

    def log_slope(self, start=None):
        """Least-squares slope of mean regret against ``log t`` over ``t >= start``.

        ``start`` defaults to ``horizon / 10``. Logarithmic regret gives a
        constant slope; linear regret a slope that grows with the horizon.
        """
        start = self.horizon / 10 if start is None else start
        keep = self.checkpoints >= start
        if keep.sum() < 2:
            raise ValueError("log_slope needs at least two checkpoints after start.")
        x = np.log(self.checkpoints[keep])
        return float(np.polyfit(x, self.mean_regret()[keep], 1)[0])

    def summary(self, confidence_level=0.95) -> Summary:
        """Regret at the horizon with its confidence interval, and the optimal-arm rate."""
        lo, hi = self.confidence_interval(confidence_level)
        lvl = int(round(100 * confidence_level))
        table = pd.DataFrame({
            "policy": [self.policy], "arms": [self.means.size], "T": [self.horizon],
            "n_reps": [self.n_reps], "regret": [self.mean_regret()[-1]],
            "se": [self.regret_se()[-1]], f"ci{lvl}_low": [lo], f"ci{lvl}_high": [hi],
            "P(optimal arm at T)": [self.optimal_rate()[-1]],
        })
        gap = self.optimum - self.means.max()
        notes = (f"best arm mean {self.means.max():.4g}; optimum of the arm space "
                 f"{self.optimum:.4g}" + (f" (the arm set misses it by {gap:.3g})"
                                          if gap > 1e-12 else ""),)
        return Summary(f"Cumulative regret of {self.policy}", {"": table}, notes)

    def plot(self, ax=None, label=None):
        """Mean cumulative regret against ``t`` with a 95% pointwise band.

        Returns
        -------
        matplotlib.axes.Axes
        """
        import matplotlib.pyplot as plt

        if ax is None:
            _, ax = plt.subplots(figsize=(5, 3.5))
        m = self.mean_regret()
        se = np.nan_to_num(self.regret_se())
        line, = ax.plot(self.checkpoints, m, label=label or self.policy)
        ax.fill_between(self.checkpoints, m - 1.96 * se, m + 1.96 * se, color=line.get_color(),
                        alpha=0.2, linewidth=0)
        ax.set_xlabel("round t")
        ax.set_ylabel("cumulative regret")
        ax.legend(fontsize="small")
        return ax

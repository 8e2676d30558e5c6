"""Structural causal bandits: POMIS vs MIS vs all subsets, and counterfactual arms.

Two papers' headline experiments on the tasks of
:func:`statlearn.bandits.causal.make_task`:

* Lee & Bareinboim (NeurIPS 2018): on the XYZWST, Markovian and IV tasks,
  Thompson sampling and KL-UCB play the arms of four strategies (POMIS, MIS,
  every subset, all variables at once); cumulative regret and the
  probability of pulling an optimal arm. Expected: POMIS < MIS < all
  subsets, all-at-once linearly suboptimal on XYZWST.
* Counterfactual structural causal bandits (ICLR 2026): on a task whose
  best counterfactual arm beats every intervention, CTF-POMIS vs CTF-MIS vs
  the interventional POMIS arms. Expected: linear regret for the
  intervention-only agent (slope = the gap), logarithmic for ctf-SCB; and
  the same model with the confounder switched off, where the optimum is an
  intervention and the smaller POMIS arm set should learn faster.

Regret is measured against the best arm of the whole space (interventions
for the SCB tasks, interventions and counterfactual arms for the last one),
so a strategy whose arm set misses the optimum shows linear regret.
"""

from __future__ import annotations

import functools

import numpy as np
import pandas as pd

from ..bandits.causal import (
    KLUCB,
    CausalBandit,
    ThompsonSampling,
    arm_set,
    best_mean,
    make_task,
)
from ..bandits.causal._bandit import _play
from ._registry import StudyContext, StudyReport, make_verdict, register_study

__all__ = ["causal_bandit_replication", "causal_bandits_study"]

SCB_STRATEGIES = ("POMIS", "MIS", "all-subsets", "all-at-once")
CTF_STRATEGIES = ("CTF-POMIS", "CTF-MIS", "POMIS")
SOLVERS = {"TS": ThompsonSampling, "KL-UCB": KLUCB}
# cumulative regret reported for CTF-POMIS on the paper's (unpublished) Task 1 and 2
PAPER_CTF = {("Task 1", "TS"): (66.69, "38.9% of CTF-MIS"),
             ("Task 1", "KL-UCB"): (148.19, "39.0% of CTF-MIS"),
             ("Task 2", "TS"): (387.01, "57.46% of the comparator"),
             ("Task 2", "KL-UCB"): (831.24, "70.17% of the comparator")}


@functools.lru_cache(maxsize=64)
def _bandit(task, instance, strategy):
    scm, y = make_task(task, random_state=instance)
    space = "counterfactual" if task.startswith("counterfactual") else "interventional"
    return CausalBandit(scm, y, arm_set(scm, y, strategy), optimum=best_mean(scm, y, space))


def _checkpoints(T, n_points):
    ck = np.unique(np.round(np.geomspace(10, T, n_points)).astype(np.int64))
    return np.unique(np.concatenate([ck, [T // 4, T // 2, T]]))


def causal_bandit_replication(setting, rng):
    """One run of a solver on a task's arm set.

    Parameters
    ----------
    setting : dict
        ``task`` (see :func:`~statlearn.bandits.causal.make_task`),
        ``instance`` (seed of the task's exogenous probabilities),
        ``strategy`` (see :func:`~statlearn.bandits.causal.arm_set`),
        ``solver`` (``"TS"`` or ``"KL-UCB"``), ``T`` and ``n_points``.
    rng : numpy.random.Generator

    Returns
    -------
    dict
        ``r{t}`` cumulative regret and ``o{t}`` optimal-arm indicator at
        log-spaced rounds ``t``, and ``n_arms``.

    Examples
    --------
    >>> import numpy as np
    >>> from statlearn.studies.causal_bandits import causal_bandit_replication
    >>> out = causal_bandit_replication({"task": "IV", "instance": 0, "strategy": "POMIS",
    ...                                  "solver": "TS", "T": 200, "n_points": 5},
    ...                                 np.random.default_rng(0))
    >>> out["n_arms"], "r200" in out
    (4, True)
    """
    bandit = _bandit(setting["task"], int(setting["instance"]), setting["strategy"])
    if setting["solver"] not in SOLVERS:
        raise ValueError(f"solver must be one of {sorted(SOLVERS)}, got {setting['solver']!r}.")
    T = int(setting["T"])
    run = _play(SOLVERS[setting["solver"]](), bandit.means, bandit.optimum, T, rng, "numba")
    best = bandit.means >= bandit.optimum - 1e-12
    out = {"n_arms": bandit.n_arms}
    for t in _checkpoints(T, int(setting["n_points"])):
        out[f"r{t}"] = float(run.regret[t - 1])
        out[f"o{t}"] = int(best[run.arms[t - 1]])
    return out


def _summaries(res, T, n_points):
    ck = _checkpoints(T, n_points)
    rows, paths = [], {}
    table = res.table
    for (task, strategy, solver), g in table.groupby(["task", "strategy", "solver"], sort=False):
        r = g[[f"r{t}" for t in ck]].to_numpy(float)
        o = g[[f"o{t}" for t in ck]].to_numpy(float)
        n = r.shape[0]
        m = r.mean(axis=0)
        se = r.std(axis=0, ddof=1) / np.sqrt(n)
        q, h = list(ck).index(T // 4), list(ck).index(T // 2)
        d1, d2 = r[:, h] - r[:, q], r[:, -1] - r[:, h]
        keep = ck >= T / 10
        log_slope = float(np.polyfit(np.log(ck[keep]), m[keep], 1)[0])
        ratio = float(d2.mean() / d1.mean()) if d1.mean() > 0 else float("nan")
        per_round = d2.mean() / (T - T // 2)
        bandit = _bandit(task, int(g["instance"].iloc[0]), strategy)
        misses = bandit.optimum - bandit.means.max()
        if misses > 1e-12:
            growth = "linear"            # the arm set misses the optimum
        elif per_round < 0.01 or ratio < 1.5:
            growth = "logarithmic"
        else:
            growth = "still exploring"
        rows.append({"task": task, "strategy": strategy, "solver": solver,
                     "arms": int(g["n_arms"].iloc[0]), "T": T, "runs": n,
                     "regret": m[-1], "se": se[-1],
                     "slope per log t": log_slope,
                     "regret per round, last half": per_round,
                     "increment ratio": ratio, "gap of the arm set": misses,
                     "growth": growth,
                     "P(optimal at T)": o[:, -1].mean()})
        paths[(task, strategy, solver)] = (ck, m, se, o.mean(axis=0))
    return pd.DataFrame(rows), paths


@register_study("causal-bandits", title="Structural causal bandits: where to intervene, "
                "and when to intervene counterfactually",
                paper="Lee & Bareinboim (NeurIPS 2018); Counterfactual Structural Causal "
                      "Bandits (ICLR 2026)")
def causal_bandits_study(ctx: StudyContext) -> StudyReport:
    """Cumulative regret of POMIS / MIS / all-subsets / all-at-once and of ctf-SCB.

    Examples
    --------
    Run it with ``get_study("causal-bandits").run(StudyContext(quick=True))``
    or ``statlearn reproduce causal-bandits --quick``.

    >>> from statlearn.studies import get_study
    >>> get_study("causal-bandits").name
    'causal-bandits'
    """
    import matplotlib.pyplot as plt

    reps = ctx.size(quick=20, full=300)
    horizons = {"XYZWST": ctx.size(4000, 10_000), "Markovian": ctx.size(4000, 10_000),
                "IV": ctx.size(2000, 5000), "counterfactual": ctx.size(4000, 10_000),
                "counterfactual-inside": ctx.size(4000, 10_000)}
    n_points = 25
    tables, all_paths = [], {}
    for task, T in horizons.items():
        strategies = CTF_STRATEGIES if task.startswith("counterfactual") else SCB_STRATEGIES
        grid = {"task": [task], "instance": [0], "strategy": list(strategies),
                "solver": list(SOLVERS), "T": [T], "n_points": [n_points]}
        res = ctx.run(causal_bandit_replication, grid, reps, name=f"causal-bandits-{task}")
        tab, paths = _summaries(res, T, n_points)
        tables.append(tab)
        all_paths.update(paths)
    table = pd.concat(tables, ignore_index=True)

    fig, axes = plt.subplots(2, 5, figsize=(20, 7))
    for j, (task, T) in enumerate(horizons.items()):
        strategies = CTF_STRATEGIES if task.startswith("counterfactual") else SCB_STRATEGIES
        for i, strategy in enumerate(strategies):
            for solver, ls in (("TS", "-"), ("KL-UCB", "--")):
                ck, m, se, opt = all_paths[(task, strategy, solver)]
                axes[0, j].plot(ck, m, ls=ls, color=f"C{i}", label=f"{strategy}, {solver}")
                axes[0, j].fill_between(ck, m - 2 * se, m + 2 * se, color=f"C{i}", alpha=0.15,
                                        linewidth=0)
                axes[1, j].plot(ck, opt, ls=ls, color=f"C{i}")
        axes[0, j].set_title(f"{task} (T = {T})")
        axes[0, j].set_xscale("log")
        axes[1, j].set_xscale("log")
        axes[1, j].set_xlabel("round t")
        axes[0, j].legend(fontsize="x-small")
    axes[0, 0].set_ylabel("cumulative regret")
    axes[1, 0].set_ylabel("P(optimal arm)")
    fig.tight_layout()

    def get(task, strategy, solver, col="regret"):
        row = table[(table.task == task) & (table.strategy == strategy)
                    & (table.solver == solver)]
        value = row[col].iloc[0]
        return value if isinstance(value, str) else float(value)

    def adverb(task, strategy, solver):
        return {"linear": "linearly", "logarithmic": "logarithmically",
                "still exploring": "(still exploring)"}[get(task, strategy, solver, "growth")]

    ctf, inside = "counterfactual", "counterfactual-inside"
    scm, y = make_task(ctf, random_state=0)
    gap = best_mean(scm, y, "counterfactual") - best_mean(scm, y)
    lines = [
        f"{reps} runs per cell, one instance per task (exogenous probabilities drawn with "
        "seed 0 in the ranges of the reference code); regret against the best arm of the whole "
        "space. 'increment ratio' = (R(T) - R(T/2)) / (R(T/2) - R(T/4)): about 1 for "
        "logarithmic growth, 2 for linear growth. 'growth' is 'linear' when the arm set misses "
        "the optimum (its per-round regret then tends to that gap), 'logarithmic' when the "
        "last-half regret per round is below 0.01 or the increment ratio below 1.5, and "
        "'still exploring' otherwise.",
        "",
        "**SCB (Lee & Bareinboim 2018).** The paper shows plots, not tables; its claim is "
        "POMIS < MIS < brute force, with all-at-once linearly suboptimal on XYZW-type graphs. "
        f"Ours on XYZWST at T = {horizons['XYZWST']}: TS regret POMIS "
        f"{get('XYZWST', 'POMIS', 'TS'):.1f}, MIS {get('XYZWST', 'MIS', 'TS'):.1f}, all "
        f"subsets {get('XYZWST', 'all-subsets', 'TS'):.1f}, all-at-once "
        f"{get('XYZWST', 'all-at-once', 'TS'):.1f} (growth "
        f"{get('XYZWST', 'all-at-once', 'TS', 'growth')}); KL-UCB POMIS "
        f"{get('XYZWST', 'POMIS', 'KL-UCB'):.1f}, MIS {get('XYZWST', 'MIS', 'KL-UCB'):.1f}, "
        f"all subsets {get('XYZWST', 'all-subsets', 'KL-UCB'):.1f}. IV: TS POMIS "
        f"{get('IV', 'POMIS', 'TS'):.1f} vs all subsets {get('IV', 'all-subsets', 'TS'):.1f}. "
        f"Markovian: TS POMIS {get('Markovian', 'POMIS', 'TS'):.1f} vs MIS "
        f"{get('Markovian', 'MIS', 'TS'):.1f}.",
        "",
        "**ctf-SCB (ICLR 2026).** The paper reports CTF-POMIS cumulative regret on Task 1 "
        "(TS 66.69, 38.9% of CTF-MIS; KL-UCB 148.19, 39.0%) and Task 2 (TS 387.01, KL-UCB "
        "831.24), and linear regret for POMIS when the optimum lies outside L<=2. Its task "
        "graphs and parameters are not available, so those numbers are not reproduced; our "
        f"counterfactual task has gap Delta_(L<=2) = {gap:.3f} between the best counterfactual "
        f"arm and the best intervention. At T = {horizons[ctf]}: TS CTF-POMIS "
        f"{get(ctf, 'CTF-POMIS', 'TS'):.1f} "
        f"({100 * get(ctf, 'CTF-POMIS', 'TS') / get(ctf, 'CTF-MIS', 'TS'):.1f}% of CTF-MIS "
        f"{get(ctf, 'CTF-MIS', 'TS'):.1f}), KL-UCB CTF-POMIS "
        f"{get(ctf, 'CTF-POMIS', 'KL-UCB'):.1f} "
        f"({100 * get(ctf, 'CTF-POMIS', 'KL-UCB') / get(ctf, 'CTF-MIS', 'KL-UCB'):.1f}% of "
        f"CTF-MIS); intervention-only POMIS (TS) {get(ctf, 'POMIS', 'TS'):.1f}, growing "
        f"{adverb(ctf, 'POMIS', 'TS')} at "
        f"{get(ctf, 'POMIS', 'TS', 'regret per round, last half'):.3f} per round (the gap is "
        f"{gap:.3f}), while CTF-POMIS grows {adverb(ctf, 'CTF-POMIS', 'TS')} (KL-UCB: "
        f"{adverb(ctf, 'CTF-POMIS', 'KL-UCB')}). When the optimum lies inside the "
        "interventional arms (task 'counterfactual-inside', confounder switched off) the paper "
        "expects POMIS to converge faster, having fewer arms: TS POMIS "
        f"{get(inside, 'POMIS', 'TS'):.1f} ({int(get(inside, 'POMIS', 'TS', 'arms'))} arms) vs "
        f"CTF-POMIS {get(inside, 'CTF-POMIS', 'TS'):.1f} "
        f"({int(get(inside, 'CTF-POMIS', 'TS', 'arms'))} arms); KL-UCB "
        f"{get(inside, 'POMIS', 'KL-UCB'):.1f} vs {get(inside, 'CTF-POMIS', 'KL-UCB'):.1f} "
        f"(standard errors {get(inside, 'POMIS', 'TS', 'se'):.1f}, "
        f"{get(inside, 'CTF-POMIS', 'TS', 'se'):.1f}, {get(inside, 'POMIS', 'KL-UCB', 'se'):.1f}, "
        f"{get(inside, 'CTF-POMIS', 'KL-UCB', 'se'):.1f}). Both sets hold two optimal arms here "
        "(do(W = w, X = 1 - w) and the cuts feeding W and Y different values of X), so the "
        "two extra counterfactual arms cost little.",
    ]
    scb_ok = (get("XYZWST", "POMIS", "TS") < get("XYZWST", "MIS", "TS")
              < get("XYZWST", "all-subsets", "TS")
              and get("XYZWST", "all-at-once", "TS", "growth") == "linear")
    ctf_ok = (get(ctf, "CTF-POMIS", "TS") < get(ctf, "CTF-MIS", "TS")
              and get(ctf, "POMIS", "TS", "growth") == "linear")
    verdict = make_verdict(
        "partly" if scb_ok else "not reproduced",
        f"SCB: the order POMIS < MIS < all subsets with all-at-once linear "
        f"{'holds' if scb_ok else 'does not hold'} on XYZWST; ctf-SCB: CTF-POMIS "
        f"{'beats' if ctf_ok else 'does not beat'} CTF-MIS while intervention-only POMIS has "
        "linear regret, but the paper's task graphs are not available, so its regret numbers "
        "(TS 66.69 on Task 1, ...) are not recomputed.")
    text = "\n".join(lines)
    return StudyReport(name="causal-bandits", title="Structural causal bandits: where to "
                       "intervene, and when to intervene counterfactually",
                       tables={"regret": table}, figures={"regret": fig}, text=text,
                       verdict=verdict)

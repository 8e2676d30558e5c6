"""Structural causal bandits: where to intervene, and when to intervene counterfactually.

Arms are interventions ``do(X = x)`` (Lee & Bareinboim, 2018) or
counterfactual arms that feed chosen values into some mechanisms' inputs
while the others see the unit's own values (counterfactual structural
causal bandits, ICLR 2026). The causal diagram prunes the arm space to the
possibly-optimal minimal sets (POMIS / CTF-POMIS) before a standard bandit
solver (KL-UCB, Thompson sampling) plays them.
"""

from ._agents import KLUCB, ThompsonSampling
from ._arms import STRATEGIES, arm_set, cut_arms, intervention_arms
from ._bandit import (
    BanditRun,
    BanditSimulationResult,
    CausalBandit,
    run_bandit,
    simulate_bandit,
)
from ._graph import EXAMPLE_GRAPHS, CausalDiagram, example_graph
from ._scm import Arm, DiscreteSCM, make_random_scm, make_xor_scm
from ._sets import (
    check_reward,
    ctf_mis,
    ctf_pomis,
    ctf_pomis_bruteforce,
    is_ctf_pomis,
    is_minimal_intervention_set,
    is_pomis,
    is_realizable,
    minimal_intervention_sets,
    minimal_intervention_sets_bruteforce,
    minimize_cut,
    pomis,
    pomis_bruteforce,
    realizability_conflict,
)
from ._tasks import TASKS, best_mean, make_task

__all__ = [
    "EXAMPLE_GRAPHS",
    "STRATEGIES",
    "TASKS",
    "KLUCB",
    "Arm",
    "BanditRun",
    "BanditSimulationResult",
    "CausalBandit",
    "CausalDiagram",
    "DiscreteSCM",
    "arm_set",
    "best_mean",
    "check_reward",
    "ctf_mis",
    "ctf_pomis",
    "ctf_pomis_bruteforce",
    "cut_arms",
    "example_graph",
    "intervention_arms",
    "is_ctf_pomis",
    "is_minimal_intervention_set",
    "is_pomis",
    "is_realizable",
    "make_random_scm",
    "make_task",
    "make_xor_scm",
    "minimal_intervention_sets",
    "minimal_intervention_sets_bruteforce",
    "minimize_cut",
    "pomis",
    "pomis_bruteforce",
    "realizability_conflict",
    "run_bandit",
    "simulate_bandit",
    "ThompsonSampling",
]

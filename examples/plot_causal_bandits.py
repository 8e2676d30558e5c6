"""
=======================================================
Structural causal bandits: where (and how) to intervene
=======================================================

A causal bandit's arms are interventions ``do(X = x)`` on a structural
causal model; the reward is a variable ``Y``. Knowing only the causal
diagram, the possibly-optimal minimal intervention sets (POMIS, Lee &
Bareinboim 2018) discard every arm that cannot be optimal in *any* model
compatible with the diagram. Counterfactual arms go one step further: they
feed different values of one variable to different mechanisms (one child
sees ``x``, another ``x'``), which can beat every intervention when the
reward is confounded.
"""

# %%
# A diagram and its arm sets
# --------------------------
# The diagram XYZWST has two latent confounders (``X <-> W``, ``Z <-> Y``).
import os

import matplotlib.pyplot as plt

from statlearn.bandits.causal import (
    KLUCB,
    CausalBandit,
    ThompsonSampling,
    arm_set,
    best_mean,
    ctf_pomis,
    example_graph,
    make_task,
    minimal_intervention_sets,
    pomis,
    simulate_bandit,
)

g, y = example_graph("XYZWST")
print(g)
print("POMIS:", [sorted(s) for s in pomis(g, y)])
print("number of MIS:", len(minimal_intervention_sets(g, y)))

# %%
# An SCM for the diagram (XOR mechanisms, probabilities as in the reference
# code) gives every arm an exact mean, computed by enumerating the
# exogenous variables. Pruning keeps the optimum.
scm, y = make_task("XYZWST", random_state=0)
for strategy in ("POMIS", "MIS", "all-subsets", "all-at-once"):
    arms = arm_set(scm, y, strategy)
    print(f"{strategy:12s} {len(arms):4d} arms, best mean "
          f"{scm.arm_means(y, arms).max():.3f}")

# %%
# Regret of Thompson sampling on each arm set
# -------------------------------------------
fast = os.environ.get("STATLEARN_FAST") == "1"
T, n_reps = (1500, 5) if fast else (10_000, 100)
opt = best_mean(scm, y)
fig, axes = plt.subplots(1, 2, figsize=(10, 3.5))
for strategy in ("POMIS", "MIS", "all-subsets", "all-at-once"):
    bandit = CausalBandit(scm, y, arm_set(scm, y, strategy), optimum=opt)
    res = simulate_bandit(ThompsonSampling(), bandit, T, n_reps=n_reps, random_state=0)
    res.plot(ax=axes[0], label=strategy)
axes[0].set_title("XYZWST, Thompson sampling")

# %%
# Counterfactual arms
# -------------------
# On ``X -> W -> Y``, ``X -> Y``, ``W <-> Y`` with ``Y = W xor U xor X xor N_Y``
# and ``W = X xor U``, every intervention has mean at most 0.5, while feeding
# ``W`` and ``Y`` *different* values of ``X`` cancels the confounder ``U``.
scm, y = make_task("counterfactual", random_state=0)
print("CTF-POMIS cuts:", [sorted(c) for c in ctf_pomis(scm.graph, y)])
opt = best_mean(scm, y, "counterfactual")
for strategy in ("CTF-POMIS", "POMIS"):
    bandit = CausalBandit(scm, y, arm_set(scm, y, strategy), optimum=opt)
    res = simulate_bandit(KLUCB(), bandit, T, n_reps=n_reps, random_state=0)
    res.plot(ax=axes[1], label=f"{strategy} (best arm {bandit.means.max():.2f})")
axes[1].set_title(f"counterfactual task, KL-UCB (optimum {opt:.2f})")
fig.tight_layout()
plt.show()

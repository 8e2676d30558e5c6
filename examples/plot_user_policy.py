"""
===========================================
Running your own policy through the runners
===========================================

Every bandit runner in :mod:`statlearn.bandits` drives its policies through
one protocol: ``reset`` once per run, then ``select`` and ``update`` each
round (see :class:`statlearn.bandits.BanditPolicy`). There is nothing to
inherit: any object with these three methods runs through the same
simulators as the built-in policies, on the step-by-step Python engine,
with the same seeding (so results do not depend on ``n_jobs`` or the
backend).
"""

# %%
# A causal bandit policy: epsilon-greedy
# --------------------------------------
# ``reset(n_arms, horizon, random_state)`` receives the run's own
# :class:`numpy.random.Generator`; ``select(t)`` returns an arm index and
# ``update(arm, reward)`` records a 0/1 reward.
import os

import matplotlib.pyplot as plt
import numpy as np

from statlearn.bandits.causal import (
    KLUCB,
    CausalBandit,
    arm_set,
    make_task,
    simulate_bandit,
)
from statlearn.bandits.queueing import OraclePolicy, make_queueing_instance, run_policy


class EpsilonGreedy:
    def __init__(self, epsilon=0.1):
        self.epsilon = epsilon

    def reset(self, n_arms, horizon, random_state=None):
        self.rng = random_state
        self.counts = np.zeros(n_arms)
        self.sums = np.zeros(n_arms)
        return self

    def select(self, t):
        if t <= self.counts.size:
            return t - 1
        if self.rng.random() < self.epsilon:
            return int(self.rng.integers(self.counts.size))
        return int(np.argmax(self.sums / self.counts))

    def update(self, arm, reward):
        self.counts[arm] += 1
        self.sums[arm] += reward
        return self


fast = os.environ.get("STATLEARN_FAST") == "1"
T, n_reps = (1000, 5) if fast else (5000, 50)
scm, y = make_task("XYZWST", random_state=0)
bandit = CausalBandit(scm, y, arm_set(scm, y, "POMIS"))
fig, axes = plt.subplots(1, 2, figsize=(10, 3.5))
for policy in (EpsilonGreedy(0.1), KLUCB()):
    res = simulate_bandit(policy, bandit, T, n_reps=n_reps, random_state=0)
    print(res.summary())
    res.plot(ax=axes[0])
axes[0].set_title("POMIS arms of XYZWST")

# %%
# A queueing policy
# -----------------
# For queueing bandits the same three methods take the queue:
# ``reset(n_servers, n_features, horizon, random_state)``,
# ``select(queue_X, t)`` returning ``(job_idx, server)`` (or ``None`` when the
# queue is empty) and ``update(x, server, departed)``. This one re-implements
# the oracle; on the same randomness it reproduces the built-in oracle's queue
# path exactly.


class MyOracle:
    def __init__(self, thetas):
        self.thetas = np.asarray(thetas)

    def reset(self, n_servers, n_features, horizon, random_state=None):
        return self

    def select(self, queue_X, t):
        if len(queue_X) == 0:
            return None
        rates = 1 / (1 + np.exp(-queue_X @ self.thetas.T))
        job, server = np.unravel_index(np.argmax(rates), rates.shape)
        return int(job), int(server)

    def update(self, x, server, departed):
        return self


env = make_queueing_instance(random_state=0)
rand = env.sample_randomness(T, random_state=1)
mine = run_policy(MyOracle(env.thetas), env, randomness=rand)
builtin = run_policy(OraclePolicy(env.thetas), env, randomness=rand)
print("identical queue paths:", bool((mine.queue_length == builtin.queue_length).all()))
axes[1].plot(mine.queue_length, label="user oracle")
axes[1].plot(builtin.queue_length, "--", label="built-in oracle")
axes[1].set_xlabel("round t")
axes[1].set_ylabel("queue length")
axes[1].legend()
fig.tight_layout()
plt.show()

"""
Scheduling jobs while learning service rates: CQB-eps and CQB-Opt
=================================================================

One queue, five servers, jobs with five features; a job served by server
``k`` leaves with probability ``mu(x^T theta_k)`` (logistic). The learner does
not know ``theta_k`` and is compared with the oracle that does, on common
random numbers: the gap ``E[Q(T)] - E[Q*(T)]`` is the queue-length regret.
This example runs the paper's instance (arrival rate 0.7, slack 0.1) for the
random policy, CQB-eps and CQB-Opt.
"""

# %%
import os

import matplotlib.pyplot as plt

from statlearn.bandits.queueing import (
    CQBEpsilon,
    CQBOpt,
    RandomPolicy,
    make_queueing_instance,
    simulate,
)

n_reps = 10 if os.environ.get("STATLEARN_FAST") == "1" else 50
env = make_queueing_instance(n_servers=5, n_features=5, arrival_rate=0.7, slack=0.1,
                             random_state=0)
results = {
    name: simulate(policy, env, horizon=4000, n_reps=n_reps, random_state=0)
    for name, policy in [("random", RandomPolicy()), ("CQB-eps", CQBEpsilon()),
                         ("CQB-Opt", CQBOpt())]
}
for name, res in results.items():
    lo, hi = res.confidence_interval()
    print(f"{name:8s} R_T = {res.regret:8.2f}  95% CI [{lo:.2f}, {hi:.2f}]")

# %%
# The random policy serves at an average rate below the arrival rate, so its
# queue grows linearly. CQB-eps explores for ``tau`` rounds (its queue grows
# meanwhile) and then drains to the oracle's level; CQB-Opt tracks the
# oracle from the start.
fig, ax = plt.subplots(figsize=(7, 4))
for name, res in results.items():
    ax.plot(res.checkpoints, res.mean_queue_length(), label=name)
ax.plot(res.checkpoints, res.mean_queue_length(oracle=True), "k--", label="oracle")
ax.set_yscale("symlog", linthresh=10)
ax.set_xlabel("round t")
ax.set_ylabel("mean queue length")
ax.legend()
plt.show()

# %%
# The exploration length of CQB-eps is ``ceil(c_tau d log T / (sigma_0^4 eps^2))``;
# the default ``c_tau = 0.01`` leaves exploration after a few hundred rounds,
# where ``c_tau = 1`` would explore for the whole run.
print(CQBEpsilon().exploration_length(5, 4000), CQBEpsilon(c_tau=1).exploration_length(5, 4000))

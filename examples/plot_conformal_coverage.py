"""
Finite-sample coverage of split conformal prediction
====================================================

Split conformal prediction with ``n`` calibration scores covers a new point
with probability exactly ``k/(n+1)``, ``k = ceil((n+1)(1-alpha))``. This
example runs the replication function of the ``conformal-coverage`` study
through :func:`statlearn.simulation.run_study` and plots the empirical coverage
against the band ``[1-alpha, 1-alpha+1/(n+1))``.
"""

# %%
import os

import matplotlib.pyplot as plt
import numpy as np

from statlearn.conformal import conformal_rank
from statlearn.simulation import run_study
from statlearn.studies.conformal_coverage import coverage_replication

n_reps = 200 if os.environ.get("STATLEARN_FAST") == "1" else 2000
ns = [10, 20, 50, 100, 200]
res = run_study(coverage_replication, {"model": ["oracle"], "n": ns, "alpha": [0.1]},
                n_reps=n_reps, random_state=0, progress=False)
summary = res.summary()
print(summary[summary["metric"] == "coverage"][["n", "mean", "se"]])

# %%
# The mean coverage sits on ``k/(n+1)`` (black) inside the band (shaded).
ax = res.plot("coverage", x="n")
band_hi = [1 - 0.1 + 1 / (n + 1) for n in ns]
ax.fill_between(ns, 0.9, band_hi, alpha=0.2, label="[1-alpha, 1-alpha+1/(n+1))")
ax.plot(ns, [conformal_rank(n, 0.1) / (n + 1) for n in ns], "k--", label="k/(n+1)")
ax.set_xscale("log")
ax.legend()
plt.show()

# %%
# Coverage given one calibration set varies around that mean: it is
# Beta(k, n+1-k) distributed, so it falls below ``1 - alpha`` often for small n.
fig, ax = plt.subplots()
for n in (10, 200):
    x = res.table.loc[res.table["n"] == n, "coverage"]
    ax.hist(x, bins=30, alpha=0.5, density=True, label=f"n = {n}")
ax.axvline(0.9, color="k", ls=":")
ax.set_xlabel("coverage given the calibration set")
ax.legend()
print("P(conditional coverage < 0.9):",
      np.round(res.table.groupby("n")["below_target"].mean().to_numpy(), 2))
plt.show()

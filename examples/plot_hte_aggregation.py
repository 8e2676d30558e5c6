"""
================================================================
Aggregating CATE estimators, and which of them are the best ones
================================================================

Given several fitted CATE estimators, :class:`~statlearn.hte.RelativeErrorHTE`
combines them by Q-aggregation of the cross-fitted DR-loss: its test error is
at most the best candidate's plus a term that vanishes with ``n``, and smaller
when the candidates err independently. On the same held-out sample,
:meth:`~statlearn.hte.RelativeErrorEvaluator.best_set` says which candidates
are not significantly worse than any other. The data come from the IHDP-like
design of :mod:`statlearn.datasets`, where the true effect is known.
"""

# %%
# Candidates on one half, aggregation on the other
# ------------------------------------------------
# The candidates must not be trained on the sample the learner aggregates on:
# an overfitted candidate would look good there. We train a boosting T-learner,
# a 1-nearest-neighbour T-learner (deliberately bad) and two boosting
# T-learners on disjoint halves of the first part.
import os
import warnings

import matplotlib.pyplot as plt
import numpy as np
from sklearn.base import clone
from sklearn.ensemble import GradientBoostingRegressor
from sklearn.neighbors import KNeighborsRegressor

from statlearn.datasets import make_hte_ihdp_like
from statlearn.hte import RelativeErrorEvaluator, RelativeErrorHTE

FAST = os.environ.get("STATLEARN_FAST", "0") == "1"
d = make_hte_ihdp_like(747 if FAST else 3000, random_state=0)
rng = np.random.default_rng(0)
fit_idx, agg_idx, test_idx = np.split(rng.permutation(d.y.size),
                                      [int(0.35 * d.y.size), int(0.7 * d.y.size)])


class TLearner:
    """``tau(x) = mu1(x) - mu0(x)`` with one regression per arm."""

    def __init__(self, model, idx):
        a, X, y = d.treatment[idx], d.X[idx], d.y[idx]
        self.m1 = clone(model).fit(X[a == 1], y[a == 1])
        self.m0 = clone(model).fit(X[a == 0], y[a == 0])

    def predict(self, X):
        return self.m1.predict(X) - self.m0.predict(X)


gb = GradientBoostingRegressor(max_depth=3, random_state=0)
half1, half2 = np.array_split(fit_idx, 2)
candidates = {"boosting": TLearner(gb, fit_idx), "1-NN": TLearner(KNeighborsRegressor(1), fit_idx),
              "boosting, half 1": TLearner(gb, half1), "boosting, half 2": TLearner(gb, half2)}

# %%
# The learner
# -----------
# ``fit`` receives the aggregation sample only. The weights sit on the simplex;
# the bad candidate gets (almost) none.
est = RelativeErrorHTE(candidates, random_state=0).fit(d.X[agg_idx], d.treatment[agg_idx],
                                                       d.y[agg_idx])
print({k: round(float(w), 3) for k, w in zip(est.candidate_names_, est.weights_, strict=True)})
tau = d.tau[test_idx]
mse = {k: float(np.mean((c.predict(d.X[test_idx]) - tau) ** 2)) for k, c in candidates.items()}
mse["Q-aggregation"] = float(np.mean((est.predict(d.X[test_idx]) - tau) ** 2))

# %%
# The paper's pairwise learner, kept as ``method="pairwise"``, warns at fit time
# when its held-out DR-loss exceeds the best candidate's, as it does here.
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    pairwise = RelativeErrorHTE(candidates, method="pairwise", random_state=0).fit(
        d.X[agg_idx], d.treatment[agg_idx], d.y[agg_idx])
print([str(w.message)[:80] for w in caught if "less accurate" in str(w.message)])
mse["pairwise"] = float(np.mean((pairwise.predict(d.X[test_idx]) - tau) ** 2))
print({k: round(v, 2) for k, v in mse.items()})

fig, ax = plt.subplots(figsize=(6, 2.8))
names = list(mse)
ax.barh(names, [np.sqrt(mse[k]) for k in names], color=["C0"] * 4 + ["C2", "C3"])
ax.set_xscale("log")
ax.set_xlabel("test sqrt(PEHE) (log scale)")
fig.tight_layout()

# %%
# Which candidates are the best ones?
# -----------------------------------
# On the aggregation sample, Holm's procedure over the one-sided pairwise
# relative-error tests keeps the candidates that no other beats significantly;
# every most accurate candidate is in the 90% set with probability >= 0.9.
best = RelativeErrorEvaluator(cross_fit=5, random_state=0).best_set(
    d.X[agg_idx], d.treatment[agg_idx], d.y[agg_idx], candidates)
print(best.summary())
plt.show()

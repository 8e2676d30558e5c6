"""
===================================================
Verifying a conformal guarantee on your own wrapper
===================================================

You wrote a conformal wrapper around your own model. Does it keep its
coverage promise? :func:`~statlearn.testing.check_coverage` answers by
simulation, with a stated chance of a false alarm (``1e-3``) and a stated
power. We check a library estimator, a hand-written split-conformal interval,
and the same interval with its threshold one rank too low: the first two
pass, the defect fails.
"""

# %%
# A hand-written split-conformal interval
# ---------------------------------------
# With ``n`` calibration scores the threshold is the ``k``-th smallest,
# ``k = ceil((n + 1)(1 - alpha))``; with continuous scores a new point is then
# covered with probability exactly ``k / (n + 1)``. ``rank_offset=-1`` plants
# the classic off-by-one bug.
import math

import matplotlib.pyplot as plt
import numpy as np
from sklearn.linear_model import LinearRegression

from statlearn.conformal import SplitConformalRegressor
from statlearn.testing import check_coverage


class MySplitConformal:
    """Split conformal interval around a linear model fitted on the first half."""

    def __init__(self, alpha=0.1, rank_offset=0):
        self.alpha, self.rank_offset = alpha, rank_offset

    def fit(self, X, y):
        half = len(y) // 2
        self.model_ = LinearRegression().fit(X[:half], y[:half])
        scores = np.sort(np.abs(y[half:] - self.model_.predict(X[half:])))
        n = scores.size
        k = math.ceil((n + 1) * (1 - self.alpha) - 1e-9) + self.rank_offset
        self.q_ = scores[k - 1] if k <= n else np.inf
        self.n_calib_ = n  # lets the check state the exact coverage k / (n + 1)
        return self

    def predict_interval(self, X):
        mu = self.model_.predict(X)
        return np.column_stack([mu - self.q_, mu + self.q_])


def make_data(rng):
    """38 points to fit (19 train, 19 calibration) and 100 test points."""
    X = rng.normal(size=(138, 2))
    y = X @ np.array([1.0, -0.5]) + rng.standard_t(5, size=138)
    return X[:38], y[:38], X[38:], y[38:]


# %%
# Three checks
# ------------
# ``exact=True``: two-sided around ``k / (n + 1) = 18 / 20``; 200 replications
# of 100 test points detect a shift of about 0.02.
results = {
    "SplitConformalRegressor": check_coverage(
        lambda seed: SplitConformalRegressor(LinearRegression(), alpha=0.1, calib_size=0.5,
                                             random_state=seed),
        make_data, alpha=0.1, n_reps=200, exact=True, random_state=0),
    "my wrapper": check_coverage(lambda seed: MySplitConformal(0.1), make_data, alpha=0.1,
                                 n_reps=200, exact=True, random_state=0),
    "my wrapper, one rank off": check_coverage(
        lambda seed: MySplitConformal(0.1, rank_offset=-1), make_data, alpha=0.1,
        n_reps=200, exact=True, random_state=0),
}
for name, res in results.items():
    lo, hi = res.acceptance_region
    print(f"{name:26s} coverage {res.estimate:.3f}  region [{lo:.3f}, {hi:.3f}]  "
          f"{'passed' if res.passed else 'FAILED'}")

# %%
# The replications behind each verdict
# -------------------------------------
fig, axes = plt.subplots(1, 3, figsize=(12, 3.5), sharex=True)
for ax, (name, res) in zip(axes, results.items()):
    res.plot(ax=ax)
    ax.set_title(f"{name}: {'passed' if res.passed else 'failed'}", fontsize="small")
    ax.set_xlabel("coverage of a replication")
fig.tight_layout()
plt.show()

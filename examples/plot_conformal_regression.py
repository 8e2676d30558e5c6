"""
==============================================================
Prediction intervals: split, CQR, Mondrian, jackknife+ and CV+
==============================================================

Any regression model becomes an interval predictor with coverage at least
``1 - alpha`` for exchangeable data. This example builds the intervals of
:class:`~statlearn.conformal.SplitConformalRegressor` (absolute, normalised
and CQR scores, Mondrian by a group) and
:class:`~statlearn.conformal.CrossConformalRegressor` (CV+) on
heteroscedastic data, where the noise grows with ``x``, and compares their
coverage within bins of ``x``.
"""

# %%
# Data: noise that grows ten-fold across x
# ----------------------------------------
import os

import matplotlib.pyplot as plt
import numpy as np
from sklearn.ensemble import GradientBoostingRegressor

from statlearn.conformal import CrossConformalRegressor, SplitConformalRegressor

FAST = os.environ.get("STATLEARN_FAST", "0") == "1"
rng = np.random.default_rng(0)
n = 1500 if FAST else 4000
X = rng.uniform(0, 5, size=(n, 1))
y = 2 * np.sin(X[:, 0]) + (0.1 + 0.6 * X[:, 0]) * rng.normal(size=n)
X_fit, y_fit, X_test, y_test = X[: n // 2], y[: n // 2], X[n // 2:], y[n // 2:]
trees = 50 if FAST else 150
gbr = dict(n_estimators=trees, max_depth=2, random_state=0)

# %%
# Four interval methods at 1 - alpha = 0.9
# ----------------------------------------
# ``fit`` trains on 70% of ``X_fit`` and calibrates on the rest; CV+ uses
# every point for both.
models = {
    "split (absolute)": SplitConformalRegressor(GradientBoostingRegressor(**gbr),
                                                random_state=0),
    "split (normalised)": SplitConformalRegressor(GradientBoostingRegressor(**gbr),
                                                  conformity_score="normalized",
                                                  random_state=0),
    "CQR": SplitConformalRegressor(GradientBoostingRegressor(loss="quantile", **gbr),
                                   conformity_score="cqr", random_state=0),
    "CV+ (5 folds)": CrossConformalRegressor(GradientBoostingRegressor(**gbr), cv=5,
                                             random_state=0),
}
results = {}
for name, model in models.items():
    model.fit(X_fit, y_fit)
    results[name] = model.evaluate(X_test, y_test, bins=X_test[:, 0], n_bins=5)
    res = results[name]
    print(f"{name:20s} coverage {res.coverage[0]:.3f}  mean width {res.mean_width[0]:.2f}  "
          f"worst bin {res.bin_coverage[:, 0].min():.3f}")

# %%
# Intervals along x
# -----------------
order = np.argsort(X_test[:, 0])
fig, axes = plt.subplots(1, 2, figsize=(11, 4), sharey=True)
for ax, name in zip(axes, ["split (absolute)", "CQR"]):
    iv = models[name].predict_interval(X_test)[order]
    ax.scatter(X_test[:, 0], y_test, s=3, color="0.6")
    ax.fill_between(X_test[order, 0], iv[:, 0], iv[:, 1], alpha=0.35, color="C0")
    ax.set_title(f"{name}: coverage {results[name].coverage[0]:.3f}")
    ax.set_xlabel("x")
axes[0].set_ylabel("y")
fig.tight_layout()

# %%
# Coverage within bins of x
# -------------------------
# The split interval has one width everywhere: it over-covers where the noise
# is small and under-covers where it is large. CQR and the normalised score
# follow the noise.
fig, ax = plt.subplots(figsize=(6, 3.8))
for name, res in results.items():
    ax.plot(np.arange(res.bin_counts.size), res.bin_coverage[:, 0], "o-", label=name)
ax.axhline(0.9, color="k", ls="--", lw=1)
ax.set_xlabel("quintile bin of x")
ax.set_ylabel("coverage within bin")
ax.legend(fontsize="small")
fig.tight_layout()

# %%
# Mondrian calibration by a group
# -------------------------------
# With a grouping, each group gets its own threshold and its own coverage
# guarantee. Here the groups are "x < 2.5" and "x >= 2.5".
def half(X):
    return np.where(np.asarray(X)[:, 0] < 2.5, "low x", "high x")


mondrian = SplitConformalRegressor(GradientBoostingRegressor(**gbr), alpha=[0.1, 0.2],
                                   mondrian=half, random_state=0).fit(X_fit, y_fit)
res = mondrian.evaluate(X_test, y_test, groups=half(X_test))
print(res.summary())
res.plot()
plt.show()

"""
============================================================
Intervals for a drifting time series: EnbPI, ACI and AgACI
============================================================

Split conformal intervals are valid when the data are exchangeable. A time
series whose errors drift breaks that: an interval calibrated once on the
past covers less and less. This example forecasts the Mauna Loa CO2 record
(shipped with statsmodels) 26 weeks ahead and compares, week by week,

* split conformal, calibrated once on the training years;
* EnbPI (:class:`~statlearn.conformal.TimeSeriesRegressor`), a bootstrap
  ensemble whose window of leave-one-out residuals slides as new weeks
  arrive;
* ACI (``method="aci"``), which also moves its working level
  ``alpha_t`` after every hit or miss;
* AgACI (``method="agaci"``), which runs ACI over a grid of step sizes and
  averages their bounds with online-learned weights.

The figure shows the bands over the last two years and the running coverage
against the target 0.9.
"""

# %%
# Data: 26-week-ahead forecasts from lags, gaps interpolated
# -----------------------------------------------------------
# The record has 59 missing weeks; the study's loader fills them by linear
# interpolation in time and builds the lagged features.
import os

import matplotlib.pyplot as plt
import numpy as np
from sklearn.linear_model import LinearRegression

from statlearn.conformal import (
    SplitConformalRegressor,
    TimeSeriesRegressor,
    aci_miscoverage_bound,
)
from statlearn.studies.conformal_timeseries import co2_forecasting_data

FAST = os.environ.get("STATLEARN_FAST", "0") == "1"
X, y, dates, n_missing = co2_forecasting_data()
n_train = 800
X_tr, y_tr, X_te, y_te = X[:n_train], y[:n_train], X[n_train:], y[n_train:]
print(f"{n_missing} weeks interpolated; {n_train} training weeks, {y_te.size} test weeks")

# %%
# Four interval methods at 1 - alpha = 0.9
# ----------------------------------------
# ``predict_interval_online`` gives each week its interval from the current
# state and then reveals the response (EnbPI's sliding update; for ACI also
# the level update).
B = 15 if FAST else 30
n_fit = 2 * n_train // 3
mu = LinearRegression().fit(X_tr[:n_fit], y_tr[:n_fit])
split = SplitConformalRegressor(mu, alpha=0.1, prefit=True).fit(X_tr[n_fit:], y_tr[n_fit:])
enbpi = TimeSeriesRegressor(LinearRegression(), n_resamplings=B, block_length=52,
                            random_state=0).fit(X_tr, y_tr)
aci = TimeSeriesRegressor(LinearRegression(), method="aci", gamma=0.01, n_resamplings=B,
                          block_length=52, random_state=0).fit(X_tr, y_tr)
agaci = TimeSeriesRegressor(LinearRegression(), method="agaci", n_resamplings=B,
                            block_length=52, random_state=0).fit(X_tr, y_tr)
intervals = {"split": split.predict_interval(X_te),
             "EnbPI": enbpi.predict_interval_online(X_te, y_te),
             "ACI": aci.predict_interval_online(X_te, y_te),
             "AgACI": agaci.predict_interval_online(X_te, y_te)}
for name, iv in intervals.items():
    hit = (iv[:, 0] <= y_te) & (y_te <= iv[:, 1])
    w = iv[:, 1] - iv[:, 0]
    print(f"{name:6s} coverage {hit.mean():.3f}  mean width {np.mean(w[np.isfinite(w)]):.2f}")

# %%
# ACI's guarantee holds for this (and every) sequence
# ---------------------------------------------------
T = len(aci.errors_)
gap = abs(np.mean(aci.errors_) - 0.1)
print(f"|miscoverage - alpha| = {gap:.4f} <= {aci_miscoverage_bound(0.1, 0.01, T):.4f}")

# %%
# Bands over time and running coverage
# ------------------------------------
fig, (top, bottom) = plt.subplots(2, 1, figsize=(8, 6.5))
last = slice(y_te.size - 104, None)
d = dates[n_train:]
top.fill_between(d[last], *intervals["ACI"][last].T, color="C2", alpha=0.3, label="ACI")
for name, colour in (("split", "C0"), ("EnbPI", "C1")):
    top.plot(d[last], intervals[name][last, 0], color=colour, lw=1, label=name)
    top.plot(d[last], intervals[name][last, 1], color=colour, lw=1)
top.plot(d[last], y_te[last], "k.", ms=3, label="observed")
top.set_ylabel("CO2 (ppm)")
top.legend(fontsize="small", ncol=4)
for name, colour in (("split", "C0"), ("EnbPI", "C1"), ("ACI", "C2"), ("AgACI", "C3")):
    iv = intervals[name]
    hit = (iv[:, 0] <= y_te) & (y_te <= iv[:, 1])
    bottom.plot(d, np.cumsum(hit) / np.arange(1, hit.size + 1), color=colour, label=name)
bottom.axhline(0.9, color="k", ls="--", lw=1, label="target")
bottom.set_ylabel("running coverage")
bottom.set_ylim(0.4, 1.02)
bottom.legend(fontsize="small", ncol=4, loc="lower left")
fig.tight_layout()
plt.show()

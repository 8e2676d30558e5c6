"""
Robust decisions from partially calibrated forecasts
====================================================

A regressor trained with squared error and a linear last layer is
*self-orthogonal*: ``E[f(X)(Y - f(X))] = 0``. That is much weaker than full
calibration, so acting as if its forecasts were the truth (the plug-in rule)
can be exposed. :class:`~statlearn.calibration.MinimaxDecisionRule` maximises
the worst-case expected utility over every conditional mean that keeps the
self-orthogonality moment at zero, mixing actions where the adversarial
belief sits on a tie. Here the target is scikit-learn's diabetes progression
score rescaled to ``[0, 1]``, the action is a capacity level
``a in {0.8, 1.0, 1.2}`` with utility ``a y - 0.5 c0 a^2``.
"""

# %%
import os
import warnings

import matplotlib.pyplot as plt
import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.neural_network import MLPRegressor
from sklearn.preprocessing import StandardScaler

from statlearn.calibration import (
    SquaredErrorDecisionRule,
    TrustForecastRule,
    affine_utility,
    evaluate_rules,
    expected_calibration_error,
    self_orthogonality_violation,
)
from statlearn.studies.calibration_decisions import load_dataset

fast = os.environ.get("STATLEARN_FAST") == "1"
rng = np.random.default_rng(0)
X, y = load_dataset("diabetes")
tr, ca, te = np.split(rng.permutation(len(y)), [len(y) // 2, 3 * len(y) // 4])
scaler = StandardScaler().fit(X[tr])
mlp = MLPRegressor(hidden_layer_sizes=(32,), max_iter=200 if fast else 1000, tol=1e-6,
                   random_state=0)
with warnings.catch_warnings():
    warnings.simplefilter("ignore", ConvergenceWarning)
    mlp.fit(scaler.transform(X[tr]), y[tr])
v_cal = np.clip(mlp.predict(scaler.transform(X[ca])), 0, 1)
v_test = np.clip(mlp.predict(scaler.transform(X[te])), 0, 1)
print(self_orthogonality_violation(v_cal, y[ca]).summary())

# %%
# The robust rule needs only the calibration forecasts. It best-responds to the
# adversarial belief q*(v), which tilts every forecast by lambda * v.
U, c = affine_utility([0.8, 1.0, 1.2], cost_scale=float(y[tr].mean()))
plug = TrustForecastRule(U, c).fit(v_cal)
robust = SquaredErrorDecisionRule(U, c).fit(v_cal)
print(f"robust value {robust.robust_value_:.4f}, lambda {robust.lambda_[0, 0]:.3f}")

grid = np.linspace(0, 1, 201)
fig, axes = plt.subplots(1, 2, figsize=(10, 3.5))
levels = np.array([0.8, 1.0, 1.2])
axes[0].plot(grid, plug.predict_proba(grid) @ levels, label="plug-in")
axes[0].plot(grid, robust.predict_proba(grid) @ levels, label="robust (expected level)")
axes[0].set_xlabel("forecast v")
axes[0].set_ylabel("capacity level")
axes[0].legend()
axes[1].plot(grid, robust.q_star(grid)[:, 0], label="adversarial belief q*(v)")
axes[1].plot(grid, grid, "k--", lw=0.8, label="q = v")
axes[1].set_xlabel("forecast v")
axes[1].legend()
fig.tight_layout()

# %%
# Test split: i.i.d. utility, and utility when the conditional mean is the
# robust rule's q* or the one that is worst for the plug-in rule.
ev = evaluate_rules({"plug-in": plug, "robust": robust}, v_test, y[te])
print(ev.summary())
ev.plot()

# %%
# The forecaster is far from fully calibrated; its reliability diagram:
expected_calibration_error(v_test, y[te], n_bins=8, random_state=0).plot()
plt.show()

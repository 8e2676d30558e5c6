"""
=============================================
Controlling recall and precision of a model
=============================================

Conformal prediction bounds the miscoverage of a set. Conformal risk control
(CRC) bounds the expected value of any monotone loss, here the false negative
rate of multi-label sets; learn-then-test (LTT) certifies, with probability
``1 - delta``, every threshold whose risk is below the level, here one minus
the precision of a binary classifier.

This example uses :class:`~statlearn.conformal.MultiLabelRiskController` and
:class:`~statlearn.conformal.BinaryRiskController` on scikit-learn's data, and
repeats each over random calibration/test splits to show the risk against its
target.
"""

# %%
# Multi-label sets with a bounded false negative rate (CRC)
# ---------------------------------------------------------
import os
import warnings

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_breast_cancer, make_multilabel_classification
from sklearn.linear_model import LogisticRegression
from sklearn.multioutput import MultiOutputClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from statlearn.conformal import (
    BinaryRiskController,
    MultiLabelRiskController,
    binary_losses,
    multilabel_fnr_losses,
)

FAST = os.environ.get("STATLEARN_FAST", "0") == "1"
N_SPLITS = 10 if FAST else 100

X, Y = make_multilabel_classification(n_samples=3000, n_classes=6, n_labels=2,
                                      allow_unlabeled=False, random_state=0)
model = MultiOutputClassifier(LogisticRegression(max_iter=500)).fit(X[:1000], Y[:1000])
P = np.column_stack([p[:, 1] for p in model.predict_proba(X[1000:])])
Y_rest = Y[1000:]

alpha = 0.1
fnr = []
rng = np.random.default_rng(0)
for _ in range(N_SPLITS):
    perm = rng.permutation(len(Y_rest))
    cal, test = perm[:500], perm[500:]
    ctrl = MultiLabelRiskController(model, alpha=alpha, prefit=True).fit(
        X[1000:][cal], Y_rest[cal])
    fnr.append(multilabel_fnr_losses(Y_rest[test], P[test], [ctrl.threshold_]).mean())
print(f"CRC: mean test FNR {np.mean(fnr):.3f} (target {alpha}) over {N_SPLITS} splits")
print(ctrl.result_.summary())

# %%
# Binary decisions with certified precision (LTT)
# -----------------------------------------------
Xb, yb = load_breast_cancer(return_X_y=True)
perm = np.random.default_rng(1).permutation(yb.size)
Xb, yb = Xb[perm], yb[perm]
clf = make_pipeline(StandardScaler(), LogisticRegression()).fit(Xb[:200], yb[:200])
p_rest, y_rest = clf.predict_proba(Xb[200:])[:, 1], yb[200:]

alpha_b, delta = 0.1, 0.1
precision_miss, none_certified = [], 0
for _ in range(N_SPLITS):
    perm = rng.permutation(y_rest.size)
    cal, test = perm[:200], perm[200:]
    with warnings.catch_warnings():  # counted below: splits where nothing is certified
        warnings.simplefilter("ignore")
        bctrl = BinaryRiskController(clf, risk="precision", alpha=alpha_b, delta=delta,
                                     prefit=True).fit(Xb[200:][cal], y_rest[cal])
    none_certified += bctrl.result_.index < 0
    losses = binary_losses(y_rest[test], p_rest[test], [bctrl.threshold_], risk="precision")
    # no positive prediction (nothing certified): no false positive either
    precision_miss.append(np.nanmean(losses) if np.isfinite(losses).any() else 0.0)
exceed = np.mean(np.asarray(precision_miss) > alpha_b)
print(f"LTT: 1 - precision above {alpha_b} in {exceed:.2f} of the splits "
      f"(allowed: {delta}, up to test-set noise); nothing certified (no positive "
      f"predictions) in {none_certified} of {N_SPLITS}")

# %%
# The two calibrations
# --------------------
# Left: the empirical false negative rate of each threshold (largest first) and
# CRC's adjusted risk; the chosen threshold is the first where it drops under
# ``alpha``. Right: LTT's empirical ``1 - precision`` with the certified
# thresholds marked.
fig, axes = plt.subplots(1, 2, figsize=(10, 3.8))
ctrl.result_.plot(ax=axes[0])
bctrl.result_.plot(ax=axes[1])
fig.tight_layout()
plt.show()

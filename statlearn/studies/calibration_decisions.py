"""Robust versus plug-in decisions from a squared-error regressor (Kiyani et al. 2025, Table 1).

Setting of the paper's experiment: a two-layer MLP with a linear output head
is trained with squared error on a training split, so its forecasts are
approximately self-orthogonal (``E[f(X)(Y - f(X))] = 0``). On a calibration
split the minimax rule for ``H = {h(v) = v}`` is fitted (forecasts only). On a
test split every rule is scored by its mean utility against the realised
outcomes (i.i.d.), under the robust rule's adversarial conditional means
``q*`` (the robust LP on the test forecasts) and under the conditional means
that are worst for the plug-in rule (an LP), both within the
self-orthogonality ambiguity set of the test forecasts.

Utility ``u(a, y) = a y - C(a)``, ``C(a) = 0.5 c0 a^2`` with ``c0`` the mean
training outcome (the paper's constants were not recovered; this choice uses
all three actions). Data: scikit-learn's diabetes data (shipped with
scikit-learn; target rescaled to ``[0, 1]``) with the Bike Sharing actions
``{0.8, 1.0, 1.2}``, and a synthetic regression with the California Housing
actions ``{0.6, 0.75, 0.9}``. Neither of the paper's datasets ships with an
installed package, and nothing is downloaded.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

from ..calibration import (
    MinimaxDecisionRule,
    SquaredErrorDecisionRule,
    TrustForecastRule,
    affine_utility,
    best_response,
    evaluate_rules,
    self_orthogonality_violation,
)
from ..utils import check_rng
from ._registry import StudyContext, StudyReport, make_verdict, register_study

__all__ = ["calibration_decisions_study", "decision_replication", "load_dataset"]

ACTIONS = {"diabetes": (0.8, 1.0, 1.2), "synthetic": (0.6, 0.75, 0.9)}
RULES = ("plug-in", "robust", "safe constant", "histogram recalibrated")
PAPER = pd.DataFrame({
    "dataset": ["Bike Sharing (paper)"] * 2 + ["California Housing (paper)"] * 2,
    "rule": ["plug-in", "robust"] * 2,
    "i.i.d.": [0.474, 0.463, 0.216, 0.207],
    "robust-dual worst case": [0.402, 0.410, 0.160, 0.164],
    "plug-in-tailored worst case": [0.393, 0.412, 0.155, 0.166],
})


def load_dataset(name, n=None, random_state=None):
    """Features and a target in ``[0, 1]``: ``"diabetes"`` (shipped) or ``"synthetic"``.

    Parameters
    ----------
    name : {"diabetes", "synthetic"}
        Dataset.
    n : int, default=None
        Sample size of the synthetic data (ignored for diabetes).
    random_state : None, int or numpy.random.Generator, default=None
        Random stream of the synthetic data.

    Returns
    -------
    X : numpy.ndarray of shape (n, p)
    y : numpy.ndarray of shape (n,)
        Rescaled to ``[0, 1]`` by its range.

    Examples
    --------
    >>> from statlearn.studies.calibration_decisions import load_dataset
    >>> X, y = load_dataset("diabetes")
    >>> X.shape, float(y.min()), float(y.max())
    ((442, 10), 0.0, 1.0)
    """
    if name == "diabetes":
        from sklearn.datasets import load_diabetes

        X, y = load_diabetes(return_X_y=True)
    elif name == "synthetic":
        rng = check_rng(random_state)
        n = 4000 if n is None else int(n)
        X = rng.uniform(-1, 1, size=(n, 5))
        signal = (np.sin(np.pi * X[:, 0]) + X[:, 1] * X[:, 2] + 0.5 * X[:, 3] ** 2
                  - 0.3 * X[:, 4])
        # heteroscedastic, skewed noise: harder to be calibrated everywhere
        noise = 0.3 * (1 + np.abs(X[:, 0])) * (rng.gamma(2.0, 0.5, size=n) - 1.0)
        y = signal + noise
    else:
        raise ValueError(f"name must be one of ['diabetes', 'synthetic'], got {name!r}.")
    y = (y - y.min()) / (y.max() - y.min())
    return X, y


def _histogram_policy(v_cal, y_cal, v_test, U, c, n_bins=10):
    """Best response to histogram-recalibrated forecasts (bin means of y on calibration data)."""
    edges = np.linspace(0, 1, n_bins + 1)
    b_cal = np.clip(np.searchsorted(edges, v_cal, side="right") - 1, 0, n_bins - 1)
    b_test = np.clip(np.searchsorted(edges, v_test, side="right") - 1, 0, n_bins - 1)
    cnt = np.bincount(b_cal, minlength=n_bins)
    means = np.bincount(b_cal, weights=y_cal, minlength=n_bins) / np.maximum(cnt, 1)
    recal = np.where(cnt[b_test] > 0, means[b_test], v_test)
    return np.eye(U.shape[0])[best_response(recal, U, c)]


def decision_replication(setting, rng):
    """One random split: train the MLP, fit the rules, evaluate them on the test split.

    Parameters
    ----------
    setting : dict
        ``dataset`` (``"diabetes"`` or ``"synthetic"``), ``n`` (synthetic size),
        ``hidden`` (hidden units), ``max_iter`` (MLP epochs).
    rng : numpy.random.Generator
        Replication stream.

    Returns
    -------
    dict
        ``{column}|{rule}`` utilities, the self-orthogonality violations on the
        calibration and test splits, the robust rule's value and multiplier and
        the share of test points where it mixes actions.

    Examples
    --------
    >>> import numpy as np
    >>> from statlearn.studies.calibration_decisions import decision_replication
    >>> out = decision_replication({"dataset": "diabetes", "n": 0, "hidden": 8,
    ...                             "max_iter": 200}, np.random.default_rng(0))
    >>> "i.i.d.|robust" in out
    True
    """
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.neural_network import MLPRegressor
    from sklearn.preprocessing import StandardScaler

    name = setting["dataset"]
    X, y = load_dataset(name, setting.get("n"), rng)
    n = len(y)
    perm = rng.permutation(n)
    tr, ca, te = np.split(perm, [n // 2, (3 * n) // 4])
    scaler = StandardScaler().fit(X[tr])
    mlp = MLPRegressor(hidden_layer_sizes=(int(setting["hidden"]),), alpha=1e-4,
                       learning_rate_init=1e-3, max_iter=int(setting["max_iter"]),
                       tol=1e-6, n_iter_no_change=50,
                       random_state=int(rng.integers(2**31 - 1)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        mlp.fit(scaler.transform(X[tr]), y[tr])
    v_cal = np.clip(mlp.predict(scaler.transform(X[ca])), 0, 1)
    v_test = np.clip(mlp.predict(scaler.transform(X[te])), 0, 1)
    U, c = affine_utility(ACTIONS[name], cost_scale=float(y[tr].mean()))
    plug = TrustForecastRule(U, c).fit(v_cal)
    robust = SquaredErrorDecisionRule(U, c).fit(v_cal)
    safe = MinimaxDecisionRule(U, c, tests="none").fit(v_cal)
    rules = {"plug-in": plug, "robust": robust, "safe constant": safe,
             "histogram recalibrated": _histogram_policy(v_cal, y[ca], v_test, U, c)}
    ev = evaluate_rules(rules, v_test, y[te], ambiguity=robust)
    df = ev.to_frame()
    out = {}
    cols = {"i.i.d.": "i.i.d.", "robust-dual worst case": "robust dual",
            "plug-in-tailored worst case": "worst case for plug-in"}
    for col, src in cols.items():
        for rule in RULES:
            out[f"{col}|{rule}"] = float(df.loc[rule, src])
        out[f"{col}|robust - plug-in"] = out[f"{col}|robust"] - out[f"{col}|plug-in"]
    out["self-orthogonality violation (cal)"] = float(
        self_orthogonality_violation(v_cal, y[ca]).estimate[0, 0])
    out["self-orthogonality violation (test)"] = float(
        self_orthogonality_violation(v_test, y[te]).estimate[0, 0])
    out["robust value (cal)"] = robust.robust_value_
    out["lambda"] = float(robust.lambda_[0, 0])
    pi = robust.predict_proba(v_test)
    out["share mixed"] = float(np.mean(pi.max(axis=1) < 1 - 1e-9))
    out["share acting differently"] = float(np.mean(
        np.argmax(pi, axis=1) != plug.predict(v_test)))
    return out


def _table(res):
    s = res.summary()
    rows = []
    for _, r in s.iterrows():
        if "|" not in r["metric"]:
            continue
        col, rule = r["metric"].split("|")
        rows.append({"dataset": r["dataset"], "rule": rule, "column": col, "mean": r["mean"],
                     "se": r["se"]})
    long = pd.DataFrame(rows)
    wide = long.pivot_table(index=["dataset", "rule"], columns="column", values="mean",
                            sort=False).reset_index()
    se = long.pivot_table(index=["dataset", "rule"], columns="column", values="se",
                          sort=False).reset_index()
    for col in ("i.i.d.", "robust-dual worst case", "plug-in-tailored worst case"):
        wide[f"{col} se"] = se[col]
    extra = s[~s["metric"].str.contains("|", regex=False)][["dataset", "metric", "mean", "se"]]
    return wide, extra.reset_index(drop=True)


@register_study("calibration-decisions", title="Robust decisions from partially calibrated "
                "forecasts: plug-in vs minimax (Table 1)",
                paper="Kiyani, Hassani, Pappas, Roth (2025), arXiv:2510.23471")
def calibration_decisions_study(ctx: StudyContext) -> StudyReport:
    """Table 1 pattern: robust loses a little i.i.d. and wins under both adversaries.

    Examples
    --------
    Run it with ``get_study("calibration-decisions").run(StudyContext(quick=True))``
    or ``statlearn reproduce calibration-decisions --quick``.

    >>> from statlearn.studies import get_study
    >>> get_study("calibration-decisions").name
    'calibration-decisions'
    """
    import matplotlib.pyplot as plt

    reps = ctx.size(quick=6, full=30)
    n_syn = ctx.size(quick=3000, full=8000)
    max_iter = ctx.size(quick=300, full=1000)
    grid = [{"dataset": "diabetes", "n": 0, "hidden": 32, "max_iter": max_iter},
            {"dataset": "synthetic", "n": n_syn, "hidden": 32, "max_iter": max_iter}]
    res = ctx.run(decision_replication, grid, reps, name="calibration-decisions")
    table, extra = _table(res)
    both = pd.concat([table, PAPER], ignore_index=True)

    cols = ["i.i.d.", "robust-dual worst case", "plug-in-tailored worst case"]
    fig, axes = plt.subplots(1, 2, figsize=(12, 4))
    for ax, ds in zip(axes, ["diabetes", "synthetic"]):
        t = table[(table["dataset"] == ds) & (table["rule"] != "robust - plug-in")]
        t = t.set_index("rule")
        x = np.arange(len(cols))
        width = 0.8 / len(t)
        for j, (rule, row) in enumerate(t.iterrows()):
            ax.bar(x + (j - (len(t) - 1) / 2) * width, row[cols].to_numpy(float), width,
                   yerr=2 * row[[f"{c} se" for c in cols]].to_numpy(float), capsize=2,
                   label=rule)
        vals = t[cols].to_numpy(float)
        ses = t[[f"{c} se" for c in cols]].to_numpy(float)
        ax.set_ylim(vals.min() - 0.1 * np.ptp(vals) - 0.01,
                    np.nanmax(vals + 2 * ses) + 0.05 * np.ptp(vals))
        ax.set_xticks(x)
        ax.set_xticklabels(cols, fontsize="small")
        ax.set_title(f"{ds} ({reps} splits)")
        ax.set_ylabel("mean utility on the test split")
    axes[0].legend(fontsize="small")
    fig.tight_layout()

    def get(ds, rule, col):
        t = table[(table["dataset"] == ds) & (table["rule"] == rule)]
        return float(t[col].iloc[0])

    def get_se(ds, rule, col):
        t = table[(table["dataset"] == ds) & (table["rule"] == rule)]
        return float(t[f"{col} se"].iloc[0])

    lines = []
    for ds in ("diabetes", "synthetic"):
        p, r = get(ds, "plug-in", "i.i.d."), get(ds, "robust", "i.i.d.")
        diffs = [f"{get(ds, 'robust - plug-in', col):+.4f} "
                 f"(se {get_se(ds, 'robust - plug-in', col):.4f})" for col in cols]
        lines.append(f"- **{ds}**: i.i.d. plug-in {p:.4f}, robust {r:.4f} (robust loses "
                     f"{100 * (p - r) / abs(p):.1f}%). Paired robust minus plug-in: i.i.d. "
                     f"{diffs[0]}, robust-dual adversary {diffs[1]}, plug-in-tailored "
                     f"adversary {diffs[2]}.")
    text = (
        f"{reps} random train/calibration/test splits (50/25/25%) per dataset; MLP with one "
        f"hidden layer of 32 units and a linear head, squared error, at most {max_iter} "
        f"epochs; synthetic n = {n_syn}. Utility a y - 0.5 c0 a^2 with c0 = mean training "
        "outcome. The ambiguity set of both adversaries is the self-orthogonality set "
        "{q : mean q(v) v = mean v^2} on the test forecasts.\n\n"
        "**Paper (Table 1)**: Bike Sharing i.i.d. plug-in 0.474 vs robust 0.463; robust-dual "
        "worst case 0.402 vs 0.410; plug-in-tailored worst case 0.393 vs 0.412. California "
        "Housing 0.216 vs 0.207; 0.160 vs 0.164; 0.155 vs 0.166. Robust loses 2-4% i.i.d. "
        "and wins under both adversaries.\n\n"
        "**Ours** (different data and utility constants, so only the pattern is "
        "comparable):\n\n" + "\n".join(lines) + "\n\n"
        "The robust rule's worst case over the test ambiguity set is at least the plug-in "
        "rule's whenever it is fitted on the same forecasts (the saddle point); here it is "
        "fitted on the calibration split, so the comparison on the test split is out of "
        "sample. The 'safe constant' rule is the maximin action with no calibration "
        "promise; 'histogram recalibrated' best-responds to bin means of the calibration "
        "outcomes (10 bins), the bin-wise robust rule after recalibration."
    )
    pattern = [ds for ds in ("diabetes", "synthetic")
               if get(ds, "robust - plug-in", cols[0]) <= 0
               and get(ds, "robust - plug-in", cols[1]) > 0
               and get(ds, "robust - plug-in", cols[2]) > 0]
    verdict = make_verdict(
        "partly" if pattern else "not reproduced",
        f"the paper's pattern (robust loses a little i.i.d. and wins under both adversaries) "
        f"holds on {len(pattern)} of 2 data sets ({', '.join(pattern) or 'none'}); the "
        "paper's Bike Sharing and California Housing models are not used, so its Table 1 "
        "numbers are not recomputed.")
    return StudyReport(name="calibration-decisions", title="Robust decisions from partially "
                       "calibrated forecasts: plug-in vs minimax (Table 1)",
                       tables={"table1": both, "diagnostics": extra}, figures={"table1": fig},
                       text=text, verdict=verdict)

"""Relative-error evaluation of CATE estimators: inference and the aggregated learner.

Reproduces the shape of the tables of Guo, Li, Tian & Wu (2025), "A relative
error-based evaluation framework of heterogeneous treatment effect
estimators" (arXiv:2510.16419), on synthetic data that needs no download.

Part 1, inference (our reference design, n = 2000): for the pair P1
(``delta = 0.75``) and the null pair P0 (``delta = 0``), the coverage of the
90% interval, the selection accuracy of the CI-based decision on P1 (the
better second candidate is declared better), the rejection rate on P0 and the
spread of the estimate (sd and IQR), for the plug-in (Gao) nuisances with
correct / wrong outcome and propensity models and for the balanced nuisance
fit (fixed linear basis with the paper's signed heads, the same cross-fitted,
the augmented positive-weight heads, and a learned MLP representation).

Part 2, the learner: on IHDP-like data (747 units, 70/30 train/test split),
out-of-sample sqrt(PEHE) and |ATE error| of T-, X- and DR-learners
(scikit-learn gradient boosting base models) and of
:class:`~statlearn.hte.RelativeErrorHTE` built on those three candidates.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
from sklearn.base import clone
from sklearn.ensemble import GradientBoostingClassifier, GradientBoostingRegressor
from sklearn.linear_model import LinearRegression, LogisticRegression
from sklearn.model_selection import StratifiedKFold
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import FunctionTransformer

from ..datasets import make_hte_ihdp_like, make_hte_reference
from ..hte import RelativeErrorEvaluator, RelativeErrorHTE
from ._registry import StudyContext, StudyReport, make_verdict, register_study

__all__ = ["hte_evaluation_study", "hte_inference_replication", "hte_learner_replication"]

#: nuisance configurations of part 1 (label -> evaluator keyword arguments)
CONFIGS = {
    "plugin, e ok / mu ok": {"nuisance": "plugin", "e": "ok", "mu": "ok"},
    "plugin, e ok / mu wrong": {"nuisance": "plugin", "e": "ok", "mu": "wrong"},
    "plugin, e wrong / mu ok": {"nuisance": "plugin", "e": "wrong", "mu": "ok"},
    "plugin, e ok / mu wrong, cross-fit 5": {"nuisance": "plugin", "e": "ok", "mu": "wrong",
                                             "cross_fit": 5},
    "balanced, linear, signed heads": {"nuisance": "balanced"},
    "balanced, linear, signed heads, cross-fit 5": {"nuisance": "balanced", "cross_fit": 5},
    "balanced, linear, augmented heads": {"nuisance": "balanced", "heads": "augmented"},
    "balanced, MLP, signed heads": {"nuisance": "balanced", "representation": "mlp"},
}
#: the same configurations on a variant design whose outcome nonlinearity (0.5 x4^2
#: instead of 0.5 x1^2) is not in the span of w * Phi for either pair
ALT = "alt design: "
ALT_CONFIGS = tuple(ALT + k for k in ("plugin, e ok / mu wrong", "balanced, linear, signed heads",
                                      "balanced, linear, augmented heads"))
QUICK_CONFIGS = tuple(k for k in CONFIGS if "MLP" not in k) + ALT_CONFIGS

#: Numbers reported by the paper (90% CIs, IHDP / Twins, out-of-sample).
PAPER_INFERENCE = pd.DataFrame({
    "nuisance": ["Regression", "Boosting", "Ours (balanced)", "Gao (2025), TARNet"],
    "IHDP coverage": [0.94, 0.95, 0.96, 0.89], "IHDP selection": [0.44, 0.48, 0.80, 0.66],
    "Twins coverage": [0.94, 0.94, 0.94, 0.90], "Twins selection": [0.88, 0.86, 0.94, 0.88],
})
PAPER_LEARNER = pd.DataFrame({
    "method": ["Ours", "TARNet", "DRCFR", "Dragonnet", "ESCFR", "X-learner"],
    "IHDP sqrt(PEHE)": [0.670, 0.920, 0.760, 0.867, 0.841, 0.987],
    "IHDP |ATE error|": [0.105, 0.266, 0.185, 0.134, 0.135, 0.207],
})


def _with_square(X):
    return np.column_stack([X, X[:, 0] ** 2])


def _x3_x4(X):
    return X[:, 2:4]


def _evaluator(cfg, seed):
    cfg = dict(cfg)
    if cfg.pop("nuisance") == "plugin":
        e = LogisticRegression(C=1e4) if cfg.pop("e") == "ok" else make_pipeline(
            FunctionTransformer(_x3_x4), LogisticRegression(C=1e4))
        mu = make_pipeline(FunctionTransformer(_with_square), LinearRegression()) \
            if cfg.pop("mu") == "ok" else LinearRegression()
        return RelativeErrorEvaluator(propensity_model=e, outcome_model=mu, random_state=seed,
                                      **cfg)
    return RelativeErrorEvaluator(nuisance="balanced", random_state=seed, **cfg)


def hte_inference_replication(setting, rng):
    """One replication of part 1: both pairs under one nuisance configuration."""
    config = setting["config"]
    alt = config.startswith(ALT)
    base = config[len(ALT):] if alt else config
    if base not in CONFIGS:
        raise ValueError(f"setting['config'] must be one of {list(CONFIGS) + list(ALT_CONFIGS)}"
                         f", got {config!r}.")
    n = int(setting.get("n", 2000))
    d = make_hte_reference(n, random_state=rng)
    if alt:  # mu0 = x2 + 0.5 x4^2: same tau, candidates and deltas
        d.y = d.y - 0.5 * d.X[:, 0] ** 2 + 0.5 * d.X[:, 3] ** 2
    seed = int(rng.integers(2**31 - 1))
    out = {}
    for pair in ("P1", "P0"):
        k1, k2, truth = d.pairs[pair]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ev = _evaluator(CONFIGS[base], seed).fit(d.X, d.treatment, d.y,
                                                       tau1=d.candidates[k1],
                                                       tau2=d.candidates[k2])
        out[f"{pair}|delta"] = ev.delta_
        out[f"{pair}|se"] = ev.se_
        out[f"{pair}|covered"] = float(ev.conf_int_.low <= truth <= ev.conf_int_.high)
        out[f"{pair}|decision"] = float(ev.decision_)
    return out


# ---------------------------------------------------------------- learners
def _gb(seed):
    return GradientBoostingRegressor(n_estimators=100, max_depth=3, random_state=seed)


def _t_learner(X, a, y, seed):
    m1 = _gb(seed).fit(X[a == 1], y[a == 1])
    m0 = _gb(seed).fit(X[a == 0], y[a == 0])
    return lambda Z: m1.predict(Z) - m0.predict(Z)


def _x_learner(X, a, y, seed):
    m1 = _gb(seed).fit(X[a == 1], y[a == 1])
    m0 = _gb(seed).fit(X[a == 0], y[a == 0])
    d1 = y[a == 1] - m0.predict(X[a == 1])
    d0 = m1.predict(X[a == 0]) - y[a == 0]
    t1 = _gb(seed).fit(X[a == 1], d1)
    t0 = _gb(seed).fit(X[a == 0], d0)
    ps = GradientBoostingClassifier(n_estimators=100, max_depth=2, random_state=seed).fit(X, a)

    def cate(Z):
        g = np.clip(ps.predict_proba(Z)[:, 1], 0.01, 0.99)
        return g * t0.predict(Z) + (1 - g) * t1.predict(Z)

    return cate


def _dr_learner(X, a, y, seed):
    psi = np.empty(a.size)
    for tr, te in StratifiedKFold(2, shuffle=True, random_state=seed).split(X, a):
        m1 = _gb(seed).fit(X[tr][a[tr] == 1], y[tr][a[tr] == 1])
        m0 = _gb(seed).fit(X[tr][a[tr] == 0], y[tr][a[tr] == 0])
        e = np.clip(LogisticRegression(C=1.0, max_iter=1000).fit(X[tr], a[tr]).predict_proba(
            X[te])[:, 1], 0.01, 0.99)
        mu1, mu0 = m1.predict(X[te]), m0.predict(X[te])
        psi[te] = mu1 - mu0 + a[te] * (y[te] - mu1) / e - (1 - a[te]) * (y[te] - mu0) / (1 - e)
    final = clone(_gb(seed)).fit(X, psi)
    return final.predict


def hte_learner_replication(setting, rng):
    """One replication of part 2: train on 70%, sqrt(PEHE) and |ATE error| on the other 30%."""
    if setting.get("data", "ihdp-like") != "ihdp-like":
        raise ValueError(f"setting['data'] must be 'ihdp-like', got {setting['data']!r}.")
    d = make_hte_ihdp_like(747, random_state=rng)
    seed = int(rng.integers(2**31 - 1))
    n = d.y.size
    perm = rng.permutation(n)
    tr, te = perm[: int(0.7 * n)], perm[int(0.7 * n):]
    X, a, y = d.X[tr], d.treatment[tr], d.y[tr]
    cands = {"T-learner": _t_learner(X, a, y, seed), "X-learner": _x_learner(X, a, y, seed),
             "DR-learner": _dr_learner(X, a, y, seed)}
    preds = {k: f(d.X[te]) for k, f in cands.items()}
    reps = ["linear", "mlp"] if setting.get("mlp", False) else ["linear"]
    for rep in reps:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ours = RelativeErrorHTE(list(cands.values()), representation=rep,
                                    random_state=seed).fit(X, a, y)
        preds[f"Ours ({rep})"] = ours.predict(d.X[te])
    tau = d.tau[te]
    out = {}
    for k, p in preds.items():
        out[f"{k}|sqrt_pehe"] = float(np.sqrt(np.mean((p - tau) ** 2)))
        out[f"{k}|ate_error"] = float(abs(p.mean() - tau.mean()))
    return out


def _iqr(x):
    q = np.percentile(x, [25, 75])
    return float(q[1] - q[0])


def _inference_table(tab, configs):
    rows = []
    for config in configs:
        sub = tab[tab["config"] == config]
        p1d, p0d = sub["P1|delta"].to_numpy(), sub["P0|delta"].to_numpy()
        rows.append({
            "nuisance": config,
            "coverage P1": sub["P1|covered"].mean(),
            "selection P1": np.mean(sub["P1|decision"] == 1),
            "coverage P0": sub["P0|covered"].mean(),
            "rejection P0": np.mean(sub["P0|decision"] != 0),
            "mean delta P1": p1d.mean(), "sd P1": p1d.std(ddof=1), "IQR P1": _iqr(p1d),
            "mean se P1": sub["P1|se"].mean(),
            "sd P0": p0d.std(ddof=1), "IQR P0": _iqr(p0d), "mean se P0": sub["P0|se"].mean(),
            "reps": len(sub),
        })
    return pd.DataFrame(rows)


@register_study("hte-evaluation",
                title="Relative-error evaluation of HTE estimators (Gao; Guo et al.)",
                paper="Guo, Li, Tian & Wu (2025), arXiv:2510.16419; Gao (2025), AISTATS")
def hte_evaluation_study(ctx: StudyContext) -> StudyReport:
    """Coverage and selection accuracy of the CI decision; sqrt(PEHE) of the learner.

    Examples
    --------
    Run it with ``get_study("hte-evaluation").run(StudyContext(quick=True))``
    or ``statlearn reproduce hte-evaluation --quick``.

    >>> from statlearn.studies import get_study
    >>> get_study("hte-evaluation").name
    'hte-evaluation'
    """
    import matplotlib.pyplot as plt

    configs = QUICK_CONFIGS if ctx.quick else tuple(CONFIGS) + ALT_CONFIGS
    n_inf = ctx.size(quick=30, full=500)
    res = ctx.run(hte_inference_replication, {"config": list(configs)}, n_inf,
                  name="hte-evaluation-inference")
    inference = _inference_table(res.table, configs)

    n_learn = ctx.size(quick=3, full=100)
    lres = ctx.run(hte_learner_replication, {"data": ["ihdp-like"], "mlp": [not ctx.quick]},
                   n_learn, name="hte-evaluation-learner")
    lt = lres.table
    methods = sorted({c.split("|")[0] for c in lt.columns if c.endswith("|sqrt_pehe")})
    learner = pd.DataFrame([{
        "method": m,
        "sqrt(PEHE)": lt[f"{m}|sqrt_pehe"].mean(), "sd sqrt(PEHE)": lt[f"{m}|sqrt_pehe"].std(),
        "|ATE error|": lt[f"{m}|ate_error"].mean(), "sd |ATE error|": lt[f"{m}|ate_error"].std(),
        "reps": len(lt)} for m in methods]).sort_values("sqrt(PEHE)").reset_index(drop=True)

    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
    ypos = np.arange(len(inference))[::-1]
    axes[0].barh(ypos + 0.2, inference["coverage P1"], height=0.4, label="coverage P1")
    axes[0].barh(ypos - 0.2, inference["selection P1"], height=0.4, label="selection P1")
    axes[0].axvline(0.9, color="grey", ls="--", lw=1)
    axes[0].set_yticks(ypos)
    axes[0].set_yticklabels(inference["nuisance"], fontsize="small")
    axes[0].set_xlim(0, 1.02)
    axes[0].legend(fontsize="small", loc="lower left")
    axes[0].set_title("90% CI coverage and selection accuracy (n = 2000)")
    for i, config in enumerate(configs):
        d = res.table.loc[res.table["config"] == config, "P1|delta"].to_numpy()
        q = np.percentile(d, [10, 25, 50, 75, 90])
        y0 = len(configs) - 1 - i
        axes[1].hlines(y0, q[0], q[4], color="C0", lw=1)
        axes[1].hlines(y0, q[1], q[3], color="C0", lw=5)
        axes[1].plot(q[2], y0, "o", color="white", mec="C0", ms=5)
    axes[1].axvline(0.75, color="C3", lw=1)
    axes[1].set_yticks(range(len(configs)))
    axes[1].set_yticklabels([""] * len(configs))
    axes[1].set_title("delta_hat on P1: median, 25-75% and 10-90% (true 0.75)")
    fig.tight_layout()

    def row(label):
        r = inference.set_index("nuisance").loc[label]
        return (f"coverage {r['coverage P1']:.2f}, selection {r['selection P1']:.2f}, "
                f"sd {r['sd P1']:.3f} vs mean se {r['mean se P1']:.3f}, IQR {r['IQR P1']:.3f}; "
                f"null rejection {r['rejection P0']:.2f}, sd P0 {r['sd P0']:.3g}")

    text = (
        f"Part 1: {n_inf} replications per configuration, n = 2000, 90% normal intervals.\n"
        "Paper (IHDP/Twins, candidates TARNet / causal forest / X-learner):\n\n"
        f"```\n{PAPER_INFERENCE.to_string(index=False)}\n```\n\n"
        "Ours on our reference design (correct propensity, wrong outcome model is the "
        "setting the balanced fit targets):\n\n"
        f"- plug-in, e ok / mu wrong: {row('plugin, e ok / mu wrong')}\n"
        f"- balanced, linear, signed heads: {row('balanced, linear, signed heads')}\n"
        f"- balanced, linear, augmented heads: {row('balanced, linear, augmented heads')}\n"
        + "".join(f"- {c}: {row(c)}\n" for c in ALT_CONFIGS if c in configs) + "\n"
        "Finding (from runs of 100-200 replications per setting, tabulated in the user guide; "
        "a quick run has too few replications to show the tails reliably): the balanced fit "
        "with the paper's signed weighted-least-squares heads on a "
        "fixed linear basis or an MLP representation selects the better candidate more often "
        "than the plug-in "
        "baseline, but its interval under-covers (the se is smaller than the spread) and "
        "the null pair P0 has heavy tails (sd far above the IQR) from near-singular signed "
        "Gram matrices. It does not reproduce the paper's coverage gain; use the plug-in "
        "(cross-fitted) estimator for confidence intervals. The augmented positive-weight "
        "heads satisfy the same condition (C1) as a proper least squares; on this design "
        "their spread is much smaller because w * Phi contains x1^2, the term the linear "
        "outcome model misses; on the variant design (0.5 x4^2 instead) they are no better "
        "than the plug-in baseline.\n\n"
        f"Part 2: IHDP-like data (synthetic covariates, Hill's response surface B), "
        f"{n_learn} replications, out-of-sample. Paper (IHDP):\n\n"
        f"```\n{PAPER_LEARNER.to_string(index=False)}\n```\n\n"
        "Ours: " + "; ".join(f"{r.method} sqrt(PEHE) {r._2:.3f}, |ATE error| {r._4:.3f}"
                             for r in learner.itertuples()) + ".\n"
        "The data and the candidates differ from the paper's (no TARNet/Dragonnet here), so "
        "only the ordering is comparable. With the signed heads the learner inherits their "
        "instability (a linear contrast fitted with signed weights on 25 covariates); in our "
        "runs it does not reproduce the paper's gain over the meta-learners."
    )
    inf = inference.set_index("nuisance")
    cov_plug = float(inf.loc["plugin, e ok / mu wrong", "coverage P1"])
    cov_bal = float(inf.loc["balanced, linear, signed heads", "coverage P1"])
    sel_plug = float(inf.loc["plugin, e ok / mu wrong", "selection P1"])
    sel_bal = float(inf.loc["balanced, linear, signed heads", "selection P1"])
    learner_wins = str(learner["method"].iloc[0]).startswith("Ours")
    n_claims = int(cov_bal >= 0.85 and sel_bal > sel_plug) + int(learner_wins)
    verdict = make_verdict(
        {2: "reproduced", 1: "partly", 0: "not reproduced"}[n_claims],
        f"the balanced nuisance fit selects the better estimator in {sel_bal:.2f} of runs "
        f"(plug-in {sel_plug:.2f}; paper on IHDP 0.80 vs 0.44) and its 90% interval covers "
        f"{cov_bal:.2f} (plug-in {cov_plug:.2f}; paper 0.96 vs 0.94); the aggregated learner "
        f"is {'the best' if learner_wins else 'not the best'} by sqrt(PEHE) on IHDP-like data "
        "(the paper's IHDP/Twins data and neural candidates are not used).")
    return StudyReport(name="hte-evaluation",
                       title="Relative-error evaluation of HTE estimators (Gao; Guo et al.)",
                       tables={"inference": inference, "learner": learner},
                       figures={"coverage_selection": fig}, text=text,
                       verdict=verdict)

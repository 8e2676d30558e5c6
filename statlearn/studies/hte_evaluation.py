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

Part 2, the learner: on IHDP-like data (747 units, 70/30 train/test split,
the training part halved: candidates on one half, aggregation on the other),
out-of-sample sqrt(PEHE) and |ATE error| of T-, X- and DR-learners
(scikit-learn gradient boosting base models), of
:class:`~statlearn.hte.RelativeErrorHTE` built on those three candidates (the
default Q-aggregation and the reconstructed pairwise learner), and of a T- and
a DR-learner trained on the whole training part.

Part 3, the best-candidate set: coverage of the most accurate candidates by the
90% set of :meth:`~statlearn.hte.PairwiseComparison.best_set` (8 candidates, all
equally accurate or two best among six worse) and its mean size.

Part 4, aggregation: test MSE of the learner's variants over the best
candidate's on the three generators of :mod:`statlearn.datasets` with a good and
a bad candidate, near-equal ones and complementary ones
(:func:`hte_aggregation_replication`).
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

from ..datasets import make_hte_ihdp_like, make_hte_nie_wager, make_hte_reference
from ..hte import RelativeErrorEvaluator, RelativeErrorHTE
from ._registry import StudyContext, StudyReport, make_verdict, register_study

__all__ = ["hte_aggregation_replication", "hte_best_set_replication", "hte_evaluation_study",
           "hte_inference_replication", "hte_learner_replication"]

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
    """One replication of part 2: sqrt(PEHE) and |ATE error| on a held-out 30%.

    The other 70% is split in halves: the candidates (T-, X- and DR-learners)
    are trained on the first, :class:`~statlearn.hte.RelativeErrorHTE`
    aggregates them on the second (default Q-aggregation, and the
    reconstructed pairwise learner); a T- and a DR-learner trained on the whole
    70% are the references a user would otherwise fit.
    """
    if setting.get("data", "ihdp-like") != "ihdp-like":
        raise ValueError(f"setting['data'] must be 'ihdp-like', got {setting['data']!r}.")
    d = make_hte_ihdp_like(747, random_state=rng)
    seed = int(rng.integers(2**31 - 1))
    n = d.y.size
    perm = rng.permutation(n)
    tr, te = perm[: int(0.7 * n)], perm[int(0.7 * n):]
    fit_idx, agg_idx = tr[: tr.size // 2], tr[tr.size // 2:]
    X, a, y = d.X, d.treatment, d.y
    cands = {name: learner(X[fit_idx], a[fit_idx], y[fit_idx], seed) for name, learner in
             (("T-learner", _t_learner), ("X-learner", _x_learner),
              ("DR-learner", _dr_learner))}
    preds = {k: f(X[te]) for k, f in cands.items()}
    preds["T-learner (all train)"] = _t_learner(X[tr], a[tr], y[tr], seed)(X[te])
    preds["DR-learner (all train)"] = _dr_learner(X[tr], a[tr], y[tr], seed)(X[te])
    warned = {}
    fits = [("Ours (q-aggregation)", {})]
    reps = ["linear", "mlp"] if setting.get("mlp", False) else ["linear"]
    fits += [(f"Ours (pairwise, {rep})", {"method": "pairwise", "representation": rep})
             for rep in reps]
    for label, kw in fits:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            ours = RelativeErrorHTE(cands, random_state=seed, **kw).fit(X[agg_idx], a[agg_idx],
                                                                         y[agg_idx])
        preds[label] = ours.predict(X[te])
        warned[label] = float(any("less accurate than its best" in str(w.message)
                                  for w in caught))
    tau = d.tau[te]
    out = {}
    for k, p in preds.items():
        out[f"{k}|sqrt_pehe"] = float(np.sqrt(np.mean((p - tau) ** 2)))
        out[f"{k}|ate_error"] = float(abs(p.mean() - tau.mean()))
    out["best candidate|sqrt_pehe"] = min(out[f"{k}|sqrt_pehe"] for k in cands)
    for k, v in warned.items():
        out[f"{k}|warned"] = v
    return out


# ------------------------------------------------------------------ the best-candidate set
def _best_set_candidates(d, design):
    """Candidates ``tau + error`` on the reference design (errors linear in X: exact MSEs)."""
    X, tau = d.X, d.tau
    if design == "all equal":  # 8 directions of length 0.5 in the (x3, x4) plane: MSE 0.25
        angles = np.linspace(0, np.pi, 8, endpoint=False)
        return {f"c{k}": tau + 0.5 * (np.cos(t) * X[:, 2] + np.sin(t) * X[:, 3])
                for k, t in enumerate(angles)}, {f"c{k}" for k in range(8)}
    if design != "two best":
        raise ValueError(f"setting['design'] must be 'all equal' or 'two best', got {design!r}.")
    cands = {"best1": tau + 0.5 * X[:, 2], "best2": tau + 0.5 * X[:, 3]}
    for k, s in enumerate([0.6, 0.7, 0.8, 1.0, 1.2, 1.5]):  # MSE 0.36 ... 2.25
        cands[f"worse{k}"] = tau + s * X[:, 1 if k % 2 else 2]
    return cands, {"best1", "best2"}


def hte_best_set_replication(setting, rng):
    """One replication of part 3: is every most accurate candidate in the 90% set?"""
    d = make_hte_reference(int(setting.get("n", 2000)), random_state=rng)
    cands, best = _best_set_candidates(d, setting.get("design", "two best"))
    ev = _evaluator(CONFIGS["plugin, e ok / mu ok"], int(rng.integers(2**31 - 1)))
    members = set(ev.best_set(d.X, d.treatment, d.y, cands).members)
    return {"covered": float(best <= members), "size": float(len(members))}


# ------------------------------------------------------- aggregation (ratio to the best)
#: generators of the aggregation measurement (name -> (maker, total units))
AGG_DATA = ("reference", "nie-wager A", "nie-wager D", "ihdp-like")
#: candidate sets: a good and a deliberately bad one, near-equal ones, complementary ones
AGG_CANDIDATES = ("good+bad", "near-equal", "complementary")
#: the learner's variants measured beside the default (label -> keyword arguments)
AGG_VARIANTS = {"Ours (q-aggregation)": {}, "Ours (stacking, nu=0)": {"nu": 0.0},
                "Ours (selection, nu=1)": {"nu": 1.0}, "Ours (q-aggregation, R-loss)":
                {"loss": "r"}, "Ours (pairwise)": {"method": "pairwise"}}


def _draw(data, rng):
    if data == "reference":
        return make_hte_reference(3000, random_state=rng)
    if data.startswith("nie-wager"):
        return make_hte_nie_wager(3000, data[-1], random_state=rng)
    if data == "ihdp-like":
        return make_hte_ihdp_like(747, random_state=rng)
    raise ValueError(f"setting['data'] must be one of {list(AGG_DATA)}, got {data!r}.")


def _t_fit(X, a, y, model):
    m1 = clone(model).fit(X[a == 1], y[a == 1])
    m0 = clone(model).fit(X[a == 0], y[a == 0])
    return _Diff(m1, m0)


class _Diff:
    """``tau(x) = m1(x) - m0(x)`` of a fitted T-learner (a picklable candidate)."""

    def __init__(self, m1, m0):
        self.m1, self.m0 = m1, m0

    def predict(self, X):
        return self.m1.predict(X) - self.m0.predict(X)


def _candidate_set(kind, X, a, y, seed):
    """Candidates trained on the first split (never on the aggregation split)."""
    from sklearn.neighbors import KNeighborsRegressor

    if kind == "good+bad":
        return {"good: T-learner (boosting)": _t_fit(X, a, y, _gb(seed)),
                "bad: T-learner (1-NN)": _t_fit(X, a, y, KNeighborsRegressor(1))}
    if kind == "near-equal":  # four stochastic-boosting T-learners, different seeds
        return {f"T-learner (boosting, seed {s})": _t_fit(X, a, y, GradientBoostingRegressor(
            n_estimators=100, max_depth=3, subsample=0.7, random_state=seed + s))
            for s in range(4)}
    if kind == "complementary":  # T-learners on disjoint thirds: independent errors
        parts = np.array_split(np.random.default_rng(seed).permutation(a.size), 3)
        return {f"T-learner (boosting, third {i})": _t_fit(X[p], a[p], y[p], _gb(seed))
                for i, p in enumerate(parts)}
    raise ValueError(f"setting['candidates'] must be one of {list(AGG_CANDIDATES)}, "
                     f"got {kind!r}.")


def hte_aggregation_replication(setting, rng):
    """Test MSE of the candidates and of the learner's variants on one draw.

    The units are split 35% / 35% / 30%: the candidates are trained on the
    first part, the learner aggregates them on the second (held out from the
    candidates), and every method is scored against the true CATE on the
    third.
    """
    d = _draw(setting.get("data", "reference"), rng)
    seed = int(rng.integers(2**31 - 1))
    n = d.y.size
    perm = rng.permutation(n)
    fit_idx, agg_idx, test_idx = np.split(perm, [int(0.35 * n), int(0.7 * n)])
    X, a, y = d.X, d.treatment, d.y
    cands = _candidate_set(setting.get("candidates", "good+bad"), X[fit_idx], a[fit_idx],
                           y[fit_idx], seed)
    tau = d.tau[test_idx]
    mse = [float(np.mean((c.predict(X[test_idx]) - tau) ** 2)) for c in cands.values()]
    out = {"best candidate|mse": min(mse), "worst candidate|mse": max(mse)}
    variants = setting.get("variants", "all")
    variants = ["Ours (q-aggregation)", "Ours (pairwise)"] if variants == "quick" else \
        list(AGG_VARIANTS)
    for label in variants:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            est = RelativeErrorHTE(cands, random_state=seed, **AGG_VARIANTS[label]).fit(
                X[agg_idx], a[agg_idx], y[agg_idx])
        out[f"{label}|mse"] = float(np.mean((est.predict(X[test_idx]) - tau) ** 2))
        out[f"{label}|warned"] = float(any("less accurate than its best" in str(w.message)
                                           for w in caught))
    return out


def aggregation_table(tab, reference="best candidate"):
    """Per setting and method: mean and max over seeds of MSE / MSE(best candidate)."""
    rows = []
    for (data, kind), sub in tab.groupby(["data", "candidates"], sort=False):
        best = sub[f"{reference}|mse"].to_numpy()
        for col in [c for c in sub.columns if c.endswith("|mse") and c.startswith("Ours")]:
            r = sub[col].to_numpy() / best
            rows.append({"data": data, "candidates": kind, "method": col.split("|")[0],
                         "mean ratio": r.mean(), "max ratio": r.max(),
                         "ratio of means": sub[col].mean() / best.mean(),
                         "share < 1": np.mean(r < 1), "best MSE": best.mean(),
                         "seeds": len(sub)})
    return pd.DataFrame(rows)


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
    methods = sorted({c.split("|")[0] for c in lt.columns if c.endswith("|sqrt_pehe")} -
                     {"best candidate"})
    learner = pd.DataFrame([{
        "method": m,
        "sqrt(PEHE)": lt[f"{m}|sqrt_pehe"].mean(), "sd sqrt(PEHE)": lt[f"{m}|sqrt_pehe"].std(),
        "|ATE error|": lt[f"{m}|ate_error"].mean(), "sd |ATE error|": lt[f"{m}|ate_error"].std(),
        "PEHE / best candidate's": np.mean(lt[f"{m}|sqrt_pehe"] ** 2
                                           / lt["best candidate|sqrt_pehe"] ** 2),
        "warned": lt[f"{m}|warned"].mean() if f"{m}|warned" in lt else np.nan,
        "reps": len(lt)} for m in methods]).sort_values("sqrt(PEHE)").reset_index(drop=True)

    n_set = ctx.size(quick=30, full=500)
    bres = ctx.run(hte_best_set_replication, {"design": ["all equal", "two best"]}, n_set,
                   name="hte-evaluation-best-set")
    best_set = bres.table.groupby("design", sort=False).agg(
        coverage=("covered", "mean"), mean_size=("size", "mean"),
        reps=("covered", "size")).reset_index()

    agg_grid = {"data": ["reference"] if ctx.quick else list(AGG_DATA),
                "candidates": list(AGG_CANDIDATES),
                "variants": ["quick" if ctx.quick else "all"]}
    ares = ctx.run(hte_aggregation_replication, agg_grid, ctx.size(quick=2, full=20),
                   name="hte-evaluation-aggregation")
    aggregation = aggregation_table(ares.table)

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
        "Ours (candidates trained on one half of the 70% training split, the learner "
        "aggregating them on the other half; the '(all train)' references use the whole 70%): "
        + "; ".join(f"{r.method} sqrt(PEHE) {r._2:.3f}, |ATE error| {r._4:.3f}"
                    for r in learner.itertuples()) + ".\n"
        "The data and the candidates differ from the paper's (no TARNet/Dragonnet here), so "
        "only the ordering is comparable. The reconstructed pairwise learner inherits the "
        "instability of the signed heads (a linear contrast fitted with signed weights on 25 "
        "covariates) and warns at fit time (share of fits warned in the table); the default "
        "Q-aggregation of the cross-fitted DR-loss stays near its best candidate.\n\n"
        "Part 3: the 90% best-candidate set (Holm over the one-sided pairwise tests, plug-in "
        "nuisances with correct models, n = 2000, 8 candidates): coverage of the most "
        "accurate candidates and mean set size: "
        + "; ".join(f"{r.design}: coverage {r.coverage:.3f}, size {r.mean_size:.2f}"
                    for r in best_set.itertuples()) + ".\n\n"
        "Part 4: test MSE of the learner over that of the best candidate (candidates "
        "trained on 35% of the units, aggregated on 35%, scored on 30%): see the "
        "'aggregation' table (mean and max over seeds of the ratio)."
    )
    inf = inference.set_index("nuisance")
    cov_plug = float(inf.loc["plugin, e ok / mu wrong", "coverage P1"])
    cov_bal = float(inf.loc["balanced, linear, signed heads", "coverage P1"])
    sel_plug = float(inf.loc["plugin, e ok / mu wrong", "selection P1"])
    sel_bal = float(inf.loc["balanced, linear, signed heads", "selection P1"])
    learner_wins = str(learner["method"].iloc[0]).startswith("Ours (pairwise")
    q_ratio = aggregation.loc[aggregation["method"] == "Ours (q-aggregation)", "mean ratio"]
    n_claims = int(cov_bal >= 0.85 and sel_bal > sel_plug) + int(learner_wins)
    verdict = make_verdict(
        {2: "reproduced", 1: "partly", 0: "not reproduced"}[n_claims],
        f"the balanced nuisance fit selects the better estimator in {sel_bal:.2f} of runs "
        f"(plug-in {sel_plug:.2f}; paper on IHDP 0.80 vs 0.44) and its 90% interval covers "
        f"{cov_bal:.2f} (plug-in {cov_plug:.2f}; paper 0.96 vs 0.94); the paper's pairwise "
        f"learner is {'the best' if learner_wins else 'not the best'} by sqrt(PEHE) on "
        "IHDP-like data (the paper's IHDP/Twins data and neural candidates are not used); "
        f"our default Q-aggregation has test MSE at most {q_ratio.max():.2f}x its best "
        "candidate's on average over seeds in every setting measured.")
    return StudyReport(name="hte-evaluation",
                       title="Relative-error evaluation of HTE estimators (Gao; Guo et al.)",
                       tables={"inference": inference, "learner": learner,
                               "best_set": best_set, "aggregation": aggregation},
                       figures={"coverage_selection": fig}, text=text,
                       verdict=verdict)

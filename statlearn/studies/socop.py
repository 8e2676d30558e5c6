"""SOCOP against LAC, APS and RAPS: coverage, mean size and the non-singleton rate.

Reproduces the layout of the main tables of Wang, Sun & Dobriban (2025),
"Singleton-Optimized Conformal Prediction" (arXiv:2509.24095), on data that
needs no download:

* ``digits``: scikit-learn's handwritten digits (K = 10), a standardised
  logistic regression fitted once on 300 images; each replication splits the
  other 1,497 at random into tuning (300), calibration (600) and test (597).
* ``softmax-K`` for K in {10, 100, 1000}: multinomial-logit data
  (:func:`statlearn.datasets.make_softmax_classification`) scored by a
  misspecified, overconfident model (coefficients with 30% noise, logits
  scaled by 1.2); tuning 400, calibration 1,600, test 1,500 per replication.

For 1 - alpha in {0.95, 0.9} every method is calibrated by
:class:`~statlearn.conformal.SplitConformalClassifier` on the same split
(SOCOP's lambda and RAPS's ``lambda_R``/``k_reg`` chosen on the tuning part),
and the test sets give coverage, mean size, P(size > 1), P(size = 0) and
SSCV (size strata 0-1, 2-3, 4-6, 7-10, 11-100, 101-1000, as in Angelopoulos
et al., 2021). The size vs
non-singleton curve traces SOCOP over its lambda grid at 1 - alpha = 0.95.
"""

from __future__ import annotations

import functools

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, ClassifierMixin

from ..conformal import DEFAULT_LAM_GRID, SplitConformalClassifier
from ..conformal._classification._classifier import tuning_split
from ..datasets import make_softmax_classification
from ..utils import check_rng
from ._registry import StudyContext, StudyReport, make_verdict, register_study

__all__ = ["socop_replication", "socop_study"]

METHODS = ("RAPS", "APS", "LAC", "SOCOP")
LEVELS = (0.95, 0.9)
DATASETS = ("digits", "softmax-10", "softmax-100", "softmax-1000")
_SCORE = {"RAPS": "raps", "APS": "aps", "LAC": "lac", "SOCOP": "socop"}
#: the methods whose weights are chosen on a tuning share of the calibration points
_TUNED = ("RAPS", "SOCOP")
_SYNTH = {10: (8, 3.0), 100: (16, 3.6), 1000: (32, 4.0)}  # K: (n_features, scale)

#: Numbers reported by the paper (ImageNet-val, 1 - alpha = 0.95).
PAPER_TABLE = pd.DataFrame({
    "model": ["ResNet152-v2"] * 3 + ["ViT-h-14"] * 2,
    "method": ["RAPS", "LAC", "SOCOP", "LAC", "SOCOP"],
    "coverage": [0.950, 0.950, 0.950, 0.950, 0.950],
    "mean size": [3.158, 2.274, 2.477, 1.291, 1.356],
    "P(size>1)": [0.603, 0.466, 0.370, 0.224, 0.175],
})


class _Precomputed(ClassifierMixin, BaseEstimator):
    """A "model" whose input already is the probability matrix."""

    def __init__(self, n_classes=10):
        self.n_classes = n_classes

    def fit(self, X=None, y=None):
        self.classes_ = np.arange(self.n_classes)
        return self

    def predict_proba(self, X):
        return np.asarray(X, dtype=np.float64)


@functools.lru_cache(maxsize=2)
def _digits_pool():
    from sklearn.datasets import load_digits
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    X, y = load_digits(return_X_y=True)
    perm = np.random.default_rng(2025).permutation(y.size)
    X, y = X[perm], y[perm]
    model = make_pipeline(StandardScaler(), LogisticRegression(C=0.01)).fit(X[:300], y[:300])
    return model.predict_proba(X[300:]), y[300:]


@functools.lru_cache(maxsize=4)
def _synthetic_model(K):
    d, scale = _SYNTH[K]
    rng = np.random.default_rng(1000 + K)
    W = rng.standard_normal((d, K)) * np.sqrt(8 / d)
    W_hat = W + 0.3 * rng.standard_normal((d, K)) * np.sqrt(8 / d)
    return W, W_hat, scale


def _softmax(z):
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


def _draw(data, rng):
    """Probabilities and labels of (tuning + calibration, test) for one replication."""
    if data == "digits":
        proba, y = _digits_pool()
        perm = rng.permutation(y.size)
        fit, test = perm[:900], perm[900:]
        return proba[fit], y[fit], proba[test], y[test]
    K = int(data.split("-")[1])
    W, W_hat, scale = _synthetic_model(K)
    X, y = make_softmax_classification(3500, K, W.shape[0], scale=scale, coef=W,
                                       random_state=rng)
    proba = _softmax(1.2 * scale * (X @ W_hat))
    return proba[:2000], y[:2000], proba[2000:], y[2000:]


def socop_replication(setting, rng):
    """One replication: every method at both levels, and SOCOP's lambda curve.

    Parameters
    ----------
    setting : dict
        ``{"data": "digits" | "softmax-10" | "softmax-100" | "softmax-1000"}``.
    rng : numpy.random.Generator
        The replication's stream.

    Returns
    -------
    dict
        ``"<method>|<level>|<metric>"`` for metrics ``coverage``, ``size``,
        ``nonsingleton``, ``empty``, ``sscv`` (and ``lam`` for SOCOP), plus
        ``"curve|<lam>|size"`` and ``"curve|<lam>|nonsingleton"``.

    Examples
    --------
    >>> import numpy as np
    >>> from statlearn.studies.socop import socop_replication
    >>> out = socop_replication({"data": "softmax-10"}, np.random.default_rng(0))
    >>> 0.9 < out["SOCOP|0.95|coverage"] <= 1.0
    True
    """
    data = setting["data"]
    if data not in DATASETS:
        raise ValueError(f"setting['data'] must be one of {list(DATASETS)}, got {data!r}.")
    p_fit, y_fit, p_test, y_test = _draw(data, rng)
    K = p_fit.shape[1]
    model = _Precomputed(K).fit()
    seed = int(rng.integers(2**31 - 1))
    tune = 300 / 900 if data == "digits" else 400 / 2000
    out = {}
    for level in LEVELS:
        for method in METHODS:
            # SOCOP and RAPS set aside a tuning share for their weights; APS and LAC
            # have none to choose and calibrate on every point
            kw = {"tune_fraction": tune} if method in _TUNED else {}
            clf = SplitConformalClassifier(model, prefit=True, conformity_score=_SCORE[method],
                                           alpha=round(1 - level, 10), random_state=seed, **kw)
            clf.fit(p_fit, y_fit)
            res = clf.evaluate(p_test, y_test)
            key = f"{method}|{level}"
            out[f"{key}|coverage"] = res.coverage
            out[f"{key}|size"] = res.mean_size
            out[f"{key}|nonsingleton"] = res.non_singleton_rate
            out[f"{key}|empty"] = res.empty_rate
            out[f"{key}|sscv"] = res.sscv
            if method == "SOCOP":
                out[f"{key}|lam"] = clf.lam_
    # the same calibration points as the tuned runs: drop their tuning share (a fixed
    # lam makes no tuning split of its own)
    _, cal = tuning_split(p_fit.shape[0], tune, check_rng(seed))
    for lam in DEFAULT_LAM_GRID:
        clf = SplitConformalClassifier(model, prefit=True, alpha=0.05, lam=lam,
                                       random_state=seed)
        res = clf.fit(p_fit[cal], y_fit[cal]).evaluate(p_test, y_test)
        out[f"curve|{lam}|size"] = res.mean_size
        out[f"curve|{lam}|nonsingleton"] = res.non_singleton_rate
    return out


def _tidy(summary):
    rows = summary.copy()
    parts = rows["metric"].str.split("|", expand=True)
    rows["kind"], rows["key"], rows["what"] = parts[0], parts[1], parts[2]
    return rows


@register_study("socop", title="Singleton-optimized conformal prediction (SOCOP)",
                paper="Wang, Sun & Dobriban (2025), arXiv:2509.24095")
def socop_study(ctx: StudyContext) -> StudyReport:
    """Coverage, mean size and P(size > 1) of RAPS, APS, LAC and SOCOP.

    Examples
    --------
    Run it with ``get_study("socop").run(StudyContext(quick=True))`` (the
    quick size takes under two minutes on two cores) or from the command line
    with ``statlearn reproduce socop --quick``.

    >>> from statlearn.studies import get_study
    >>> study = get_study("socop")
    >>> study.name, callable(study.func)
    ('socop', True)
    """
    import matplotlib.pyplot as plt

    n_reps = ctx.size(quick=3, full=100)
    res = ctx.run(socop_replication, {"data": list(DATASETS)}, n_reps, name="socop")
    tidy = _tidy(res.summary())
    main = tidy[tidy["kind"].isin(METHODS)]
    # dropna=False keeps the columns whose standard error is NaN (a single replication)
    table = main.pivot_table(index=["data", "key", "kind"], columns="what", values="mean",
                             dropna=False, sort=False).reset_index()
    se = main.pivot_table(index=["data", "key", "kind"], columns="what", values="se",
                          dropna=False, sort=False).reset_index()
    table = table.rename(columns={"key": "1-alpha", "kind": "method", "size": "mean size",
                                  "nonsingleton": "P(size>1)", "empty": "P(size=0)",
                                  "sscv": "SSCV",
                                  "lam": "lambda (SOCOP)"})
    table["se(P(size>1))"] = se["nonsingleton"].to_numpy()
    table["1-alpha"] = table["1-alpha"].astype(float)
    order = {m: i for i, m in enumerate(METHODS)}
    table["_o"] = table["method"].map(order)
    table["_d"] = table["data"].map({d: i for i, d in enumerate(DATASETS)})
    table = table.sort_values(["_d", "1-alpha", "_o"], ascending=[True, False, True])
    cols = ["data", "1-alpha", "method", "coverage", "mean size", "P(size>1)",
            "se(P(size>1))", "P(size=0)", "SSCV", "lambda (SOCOP)"]
    table = table[cols].reset_index(drop=True)

    curve = tidy[tidy["kind"] == "curve"].pivot_table(index=["data", "key"], columns="what",
                                                      values="mean", sort=False).reset_index()
    curve = curve.rename(columns={"key": "lambda", "size": "mean size",
                                  "nonsingleton": "P(size>1)"})
    curve["lambda"] = curve["lambda"].astype(float)

    fig, axes = plt.subplots(1, len(DATASETS), figsize=(4.2 * len(DATASETS), 3.8))
    for ax, data in zip(axes, DATASETS):
        c = curve[curve["data"] == data].sort_values("lambda")
        c = c[c["lambda"] > 0]  # lam = 0 (full support sets) is off the scale
        ax.plot(c["mean size"], c["P(size>1)"], "o-", color="C3", label="SOCOP, lambda grid")
        for lam, xv, yv in zip(c["lambda"], c["mean size"], c["P(size>1)"]):
            ax.annotate(f"{lam:g}", (xv, yv), fontsize="xx-small", xytext=(2, 2),
                        textcoords="offset points")
        t = table[(table["data"] == data) & (table["1-alpha"] == 0.95)]
        for j, method in enumerate(("RAPS", "APS", "LAC")):
            r = t[t["method"] == method]
            ax.plot(r["mean size"], r["P(size>1)"], "s", color=f"C{j}", label=method)
        r = t[t["method"] == "SOCOP"]
        ax.plot(r["mean size"], r["P(size>1)"], "*", ms=14, color="C3",
                label="SOCOP (knee)")
        ax.set_title(data)
        ax.set_xlabel("mean set size")
    axes[0].set_ylabel("P(size > 1)")
    axes[0].legend(fontsize="x-small")
    fig.suptitle("Mean size vs non-singleton rate at 1 - alpha = 0.95")
    fig.tight_layout()

    t95 = table[table["1-alpha"] == 0.95].set_index(["data", "method"])
    gains = []
    for data in DATASETS:
        best = min(t95.loc[(data, m), "P(size>1)"] for m in ("RAPS", "APS", "LAC"))
        soc = t95.loc[(data, "SOCOP")]
        gains.append(f"{data}: P(size>1) {best:.3f} (best baseline) -> "
                     f"{soc['P(size>1)']:.3f} (SOCOP), mean size {soc['mean size']:.2f} vs "
                     f"LAC {t95.loc[(data, 'LAC'), 'mean size']:.2f}")
    worst_cov = float(table["coverage"].min())
    paper = PAPER_TABLE.to_string(index=False)
    text = (
        f"{n_reps} replications per dataset. Paper (ImageNet-val, 1 - alpha = 0.95):\n\n"
        f"```\n{paper}\n```\n\n"
        "The paper also reports non-singleton rates 0.788 -> 0.638 on TissueMNIST and "
        "0.675 -> 0.587 on MMLU (best baseline -> SOCOP). Ours, at 1 - alpha = 0.95:\n\n"
        + "\n".join(f"- {g}" for g in gains)
        + f"\n\nEvery method keeps its coverage (smallest mean coverage {worst_cov:.3f}; "
        "theory: at least 1 - alpha). As in the paper, SOCOP trades a larger mean size "
        "for markedly fewer non-singleton sets; the data sets differ from the paper's, "
        "so only the direction and order of magnitude are comparable."
    )
    n_fewer = sum(
        t95.loc[(d, "SOCOP"), "P(size>1)"]
        < min(t95.loc[(d, m), "P(size>1)"] for m in ("RAPS", "APS", "LAC")) for d in DATASETS)
    soc = table[table["method"] == "SOCOP"]
    cov_gap = float((soc["coverage"] - soc["1-alpha"]).min())
    verdict = make_verdict(
        "partly" if n_fewer == len(DATASETS) and cov_gap > -0.02 else "not reproduced",
        f"SOCOP has fewer non-singleton sets than the best of RAPS/APS/LAC on {n_fewer} of "
        f"{len(DATASETS)} data sets at 1 - alpha = 0.95, with coverage within "
        f"{max(-cov_gap, 0):.3f} of 1 - alpha, the paper's direction; its ImageNet, TissueMNIST "
        "and MMLU models are not used here, so its numbers themselves are not recomputed.")
    return StudyReport(name="socop", title="Singleton-optimized conformal prediction (SOCOP)",
                       tables={"methods": table, "lambda_curve": curve},
                       figures={"size_vs_nonsingleton": fig}, text=text,
                       verdict=verdict)

"""Gaussian vs Laplace-type noise for one-step Newton unlearning (Pandey et al. 2025).

Setting of the paper's experiments: logistic regression with ridge penalty
``lambda ||beta||^2 / 2`` (``lambda = 0.5``), ``x_i ~ N(0, I_p / n)``,
``beta* ~ N(0, I_p)``, ``n = p``. One Newton step on the retained objective,
then noise calibrated to ``r = sqrt(m^3 / (2 lambda n))`` (polylog factors set to
1): Gaussian ``N(0, (r / epsilon)^2 I)`` against the l2-Laplace-type noise
``exp(-epsilon ||b|| / r)`` used for epsilon-certifiability. The accuracy
measure is the generalisation error divergence
``GED = E |l(y0 | x0^T beta_hat_{-M}) - l(y0 | x0^T beta_tilde)|`` on fresh points.

Three experiments: GED against ``p`` (fitted log-log slopes), against ``m`` and
against ``epsilon``.
"""

from __future__ import annotations

import copy
import warnings

import numpy as np
import pandas as pd
from scipy import stats

from ..unlearning import NewtonUnlearner, UnlearningWarning, draw_noise, ged, make_glm_data
from ..unlearning import noise_radius as _noise_radius
from ._registry import StudyContext, StudyReport, make_verdict, register_study

__all__ = ["ged_replication", "unlearning_study"]

LAMBDA = 0.5
N_TEST = 2000
PAPER_SLOPES_P = {("gaussian", 1): -0.47, ("gaussian", 5): -0.54, ("gaussian", 10): -0.51,
                  ("laplace_l2", 1): 0.03, ("laplace_l2", 5): -0.03, ("laplace_l2", 10): -0.01}


def ged_replication(setting, rng):
    """One dataset: fit, unlearn each ``m`` by one Newton step, GED of both noises.

    Parameters
    ----------
    setting : dict
        ``n`` (``= p``), ``ms`` (tuple of removal sizes), ``epsilons`` (tuple of
        privacy levels) and ``n_noise`` (noise draws per GED).
    rng : numpy.random.Generator
        Replication stream.

    Returns
    -------
    dict
        ``ged_{noise}_m{m}_eps{epsilon}`` for each combination, plus
        ``newton_err_m{m}`` (distance of the noise-free Newton output to the
        exact retrain) and ``r_m{m}``.

    Examples
    --------
    >>> import numpy as np
    >>> from statlearn.studies.unlearning import ged_replication
    >>> out = ged_replication({"n": 60, "ms": (1,), "epsilons": (0.75,), "n_noise": 5},
    ...                       np.random.default_rng(0))
    >>> sorted(out)
    ['ged_gaussian_m1_eps0.75', 'ged_laplace_l2_m1_eps0.75', 'newton_err_m1', 'r_m1']
    """
    n = int(setting["n"])
    ms, epsilons = tuple(setting["ms"]), tuple(setting["epsilons"])
    n_noise = int(setting["n_noise"])
    X_all, y_all, _ = make_glm_data(n + N_TEST, n, n_scale=n, random_state=rng)
    X, y, X0, y0 = X_all[:n], y_all[:n], X_all[n:], y_all[n:]
    est = NewtonUnlearner(fit_intercept=False, alpha=LAMBDA, noise=None, verify=False).fit(X, y)
    out = {}
    for m in ms:
        idx = rng.choice(n, size=m, replace=False)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UnlearningWarning)
            beta1 = copy.deepcopy(est).unlearn(idx).coef_
        exact = est.retrain_reference(idx)
        r = _noise_radius(n, m, LAMBDA)
        out[f"newton_err_m{m}"] = float(np.linalg.norm(beta1 - exact))
        out[f"r_m{m}"] = r
        for noise in ("gaussian", "laplace_l2"):
            for eps in epsilons:
                b = draw_noise(noise, r, eps, n, n_draws=n_noise, random_state=rng)
                res = ged(exact, beta1 + b, X0, y0, loss="logistic")
                out[f"ged_{noise}_m{m}_eps{eps:g}"] = res.estimate
    return out


def _long(res):
    """Tidy table: one row per (n, noise, m, epsilon) with mean GED and its se."""
    rows = []
    for _, s in res.summary().iterrows():
        if not s["metric"].startswith("ged_"):
            continue
        _, rest = s["metric"].split("_", 1)
        noise, rest = rest.rsplit("_m", 1)
        m, eps = rest.split("_eps")
        rows.append({"n=p": int(s["n"]), "noise": noise, "m": int(m), "epsilon": float(eps),
                     "GED": s["mean"], "se": s["se"]})
    return pd.DataFrame(rows)


def _slope(x, y):
    return float(np.polyfit(np.log(x), np.log(y), 1)[0])


@register_study("unlearning", title="Certified unlearning: Gaussian vs Laplace noise after "
                "one Newton step", paper="Pandey, Auddy, Zou, Maleki, Kulkarni (2025), "
                "arXiv:2510.13094")
def unlearning_study(ctx: StudyContext) -> StudyReport:
    """GED vs p, m and epsilon for Gaussian and l2-Laplace noise (paper's Figures).

    Examples
    --------
    Run it with ``get_study("unlearning").run(StudyContext(quick=True))`` (the
    quick size takes under two minutes on two cores) or from the command line
    with ``statlearn reproduce unlearning --quick``.

    >>> from statlearn.studies import get_study
    >>> study = get_study("unlearning")
    >>> study.name, callable(study.func)
    ('unlearning', True)
    """
    import matplotlib.pyplot as plt

    reps = ctx.size(quick=3, full=10)
    n_noise = ctx.size(quick=20, full=20)
    ps = ctx.size(quick=[200, 400, 800], full=[500, 1000, 2000, 4000])
    n_fixed = ctx.size(quick=500, full=1255)
    ms_grid = ctx.size(quick=(5, 10, 20, 40), full=(5, 10, 20, 30, 40, 50))
    eps_grid = (0.25, 0.5, 0.75, 1.0, 2.0, 4.0)

    res_p = ctx.run(ged_replication, {"n": ps, "ms": [(1, 5, 10)], "epsilons": [(0.75,)],
                                      "n_noise": [n_noise]}, reps, name="unlearning-vs-p")
    res_m = ctx.run(ged_replication, {"n": [n_fixed], "ms": [ms_grid], "epsilons": [(0.75,)],
                                      "n_noise": [n_noise]}, reps, name="unlearning-vs-m")
    res_e = ctx.run(ged_replication, {"n": [n_fixed], "ms": [(5,)], "epsilons": [eps_grid],
                                      "n_noise": [n_noise]}, reps, name="unlearning-vs-eps")
    tab_p, tab_m, tab_e = _long(res_p), _long(res_m), _long(res_e)

    slope_rows = []
    for noise in ("gaussian", "laplace_l2"):
        for m in (1, 5, 10):
            g = tab_p[(tab_p["noise"] == noise) & (tab_p["m"] == m)].sort_values("n=p")
            slope_rows.append({"experiment": "GED vs p", "noise": noise, "m": m,
                               "slope": _slope(g["n=p"], g["GED"]),
                               "paper": PAPER_SLOPES_P[(noise, m)],
                               "accept band": "[-0.7, -0.35]" if noise == "gaussian"
                               else "[-0.15, 0.15]"})
        g = tab_m[tab_m["noise"] == noise].sort_values("m")
        slope_rows.append({"experiment": "GED vs m", "noise": noise, "m": np.nan,
                           "slope": _slope(g["m"], g["GED"]),
                           "paper": 1.4 if noise == "gaussian" else 0.24,
                           "accept band": "[1.0, 1.7]" if noise == "gaussian" else "-"})
    slopes = pd.DataFrame(slope_rows)
    err = res_p.summary()
    err = err[err["metric"].str.startswith("newton_err")][["n", "metric", "mean", "se"]]
    err = err.rename(columns={"n": "n=p", "mean": "mean ||beta1 - beta_hat_-M||"})

    fig, axes = plt.subplots(1, 3, figsize=(14, 4))
    for noise, ls in (("gaussian", "-"), ("laplace_l2", "--")):
        for j, m in enumerate((1, 5, 10)):
            g = tab_p[(tab_p["noise"] == noise) & (tab_p["m"] == m)].sort_values("n=p")
            axes[0].errorbar(g["n=p"], g["GED"], yerr=2 * g["se"], ls=ls, marker="o",
                             color=f"C{j}", capsize=2, label=f"{noise}, m={m}")
        g = tab_m[tab_m["noise"] == noise].sort_values("m")
        axes[1].errorbar(g["m"], g["GED"], yerr=2 * g["se"], ls=ls, marker="o", capsize=2,
                         label=noise)
        g = tab_e[tab_e["noise"] == noise].sort_values("epsilon")
        axes[2].errorbar(g["epsilon"], g["GED"], yerr=2 * g["se"], ls=ls, marker="o",
                         capsize=2, label=noise)
    from matplotlib.ticker import NullFormatter

    for ax, xl, title in zip(axes, ["p (= n)", "m", "epsilon"],
                             ["GED vs p (eps=0.75)", f"GED vs m (n=p={n_fixed})",
                              f"GED vs epsilon (n=p={n_fixed}, m=5)"]):
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.xaxis.set_minor_formatter(NullFormatter())
        ax.set_xlabel(xl)
        ax.set_title(title)
    axes[0].set_ylabel("GED")
    axes[0].legend(fontsize="x-small", ncol=2)
    axes[1].legend(fontsize="small")
    fig.tight_layout()

    ge = tab_e[tab_e["noise"] == "gaussian"].sort_values("epsilon")
    le = tab_e[tab_e["noise"] == "laplace_l2"].sort_values("epsilon")
    rho = float(stats.spearmanr(ge["epsilon"], ge["GED"])[0])
    below = bool(np.all(ge["GED"].to_numpy() < le["GED"].to_numpy()))
    s = {(r["experiment"], r["noise"], r["m"]): r["slope"] for _, r in slopes.iterrows()}
    text = (
        f"{reps} datasets per setting, {n_noise} noise draws and {N_TEST} fresh test points per "
        f"GED, lambda = {LAMBDA}, polylog factors 1 (r = sqrt(m^3 / (2 lambda n))).\n\n"
        "**GED vs p.** Paper: Gaussian slopes -0.47, -0.54, -0.51 (m = 1, 5, 10); Laplace "
        f"0.03, -0.03, -0.01. Ours (p in {ps}): Gaussian "
        f"{s[('GED vs p', 'gaussian', 1)]:.2f}, {s[('GED vs p', 'gaussian', 5)]:.2f}, "
        f"{s[('GED vs p', 'gaussian', 10)]:.2f}; Laplace "
        f"{s[('GED vs p', 'laplace_l2', 1)]:.2f}, {s[('GED vs p', 'laplace_l2', 5)]:.2f}, "
        f"{s[('GED vs p', 'laplace_l2', 10)]:.2f}. Gaussian GED vanishes like p^(-1/2); the "
        "Laplace-type noise has norm of order p r / epsilon, so x0^T b stays of order one "
        "and its GED does not decay after one Newton step.\n\n"
        f"**GED vs m** (n = p = {n_fixed}, m in {list(ms_grid)}). Paper: Gaussian slope "
        "1.37-1.44 (theory bound 1.5), Laplace about 0.24. Ours: Gaussian "
        f"{[v for k, v in s.items() if k[:2] == ('GED vs m', 'gaussian')][0]:.2f}, Laplace "
        f"{[v for k, v in s.items() if k[:2] == ('GED vs m', 'laplace_l2')][0]:.2f}. "
        "The Gaussian slope sits in the band [1.0, 1.7]: GED is driven by the noise, whose "
        "scale grows like m^(3/2). With the same radius r for both noises (our "
        "comparison), the Laplace GED also grows like m^(3/2); the paper's much flatter "
        "Laplace slope must come from a calibration of the Laplace mechanism that the "
        "available descriptions do not give, so this row does not reproduce it.\n\n"
        f"**GED vs epsilon** (m = 5, epsilon in {list(eps_grid)}; the paper's grid is not "
        f"stated). Spearman rho of Gaussian GED against epsilon: {rho:.2f} (decreasing); "
        f"Gaussian below Laplace at every epsilon: {below}."
    )
    p_ok = all(-0.7 <= s[("GED vs p", "gaussian", m)] <= -0.35
               and -0.15 <= s[("GED vs p", "laplace_l2", m)] <= 0.15 for m in (1, 5, 10))
    m_gauss = [v for k, v in s.items() if k[:2] == ("GED vs m", "gaussian")][0]
    m_lap = [v for k, v in s.items() if k[:2] == ("GED vs m", "laplace_l2")][0]
    n_ok = int(p_ok) + int(1.0 <= m_gauss <= 1.7) + int(abs(m_lap - 0.24) < 0.3)
    verdict = make_verdict(
        {3: "reproduced", 0: "not reproduced"}.get(n_ok, "partly"),
        f"GED vs p: Gaussian slopes near -1/2 and Laplace flat {'as' if p_ok else 'unlike'} "
        f"the paper; GED vs m: Gaussian slope {m_gauss:.2f} (paper 1.37-1.44), Laplace "
        f"{m_lap:.2f} (paper 0.24; the paper's Laplace calibration is not given, see text).")
    tables = {"ged_vs_p": tab_p, "ged_vs_m": tab_m, "ged_vs_epsilon": tab_e, "slopes": slopes,
              "newton_error": err.reset_index(drop=True)}
    return StudyReport(name="unlearning", title="Certified unlearning: Gaussian vs Laplace "
                       "noise after one Newton step", tables=tables, figures={"ged": fig},
                       text=text, verdict=verdict)

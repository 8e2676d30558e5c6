"""Cross-conformal (CV+) against split-conformal prediction sets at small sample sizes.

Romano, Sesia & Candes (2020) propose CV+ sets for classification (after the
CV+ intervals of Barber et al. 2021): every labelled point is used both to fit
and to calibrate, so at small ``n`` the sets are smaller than split-conformal
sets, whose model sees only part of the data; the price is a weaker guarantee,
``1 - 2 alpha`` (minus a small term) instead of ``1 - alpha``, while the
coverage observed on ordinary data stays close to ``1 - alpha``. This study
measures coverage, mean size and the non-singleton rate of

* ``split``: :class:`~statlearn.conformal.SplitConformalClassifier`, 70% to
  fit and 30% to calibrate,
* ``cv+``: :class:`~statlearn.conformal.CrossConformalClassifier` with 5
  folds and the CV+ rule (``aggregation="crossval"``),
* ``cv-mean``: the same folds, averaged probabilities (``aggregation="mean"``,
  MAPIE's default, no finite-sample guarantee),

with the LAC, APS and SOCOP scores, around a logistic regression on
multinomial-logit data (5 classes, 5 features), for ``n`` labelled points and
1,000 test points per replication.
"""

from __future__ import annotations

import numpy as np

from ..conformal import CrossConformalClassifier, SplitConformalClassifier
from ..datasets import make_softmax_classification
from ._registry import StudyContext, StudyReport, make_verdict, register_study

__all__ = ["METHODS", "cross_conformal_replication", "cross_conformal_study"]

#: The set constructions compared.
METHODS = ("split", "cv+", "cv-mean")
_N_TEST = 1000
_K, _D, _FOLDS, _LAM = 5, 5, 5, 0.1


def _data(rng, n):
    # the coefficients are fixed across replications (one data-generating law)
    coef = np.random.default_rng(12345).standard_normal((_D, _K))
    while True:  # every class in every training fold; P(redraw) < 1e-3 for n >= 40
        X, y = make_softmax_classification(n + _N_TEST, _K, _D, scale=0.8, coef=coef,
                                           random_state=rng)
        if np.bincount(y[:n], minlength=_K).min() >= _FOLDS:
            return X, y


def cross_conformal_replication(setting, rng):
    """One replication of the cross-conformal study (used by :func:`run_study`).

    Parameters
    ----------
    setting : dict
        ``{"method": "split" | "cv+" | "cv-mean", "score": "lac" | "aps" |
        "socop", "n": int, "alpha": float}``.
    rng : numpy.random.Generator
        The replication's random stream.

    Returns
    -------
    dict
        ``coverage``, ``mean_size`` and ``non_singleton`` on the test points.

    Examples
    --------
    >>> import numpy as np
    >>> from statlearn.studies.cross_conformal import cross_conformal_replication
    >>> out = cross_conformal_replication({"method": "cv+", "score": "lac", "n": 60,
    ...                                    "alpha": 0.1}, np.random.default_rng(0))
    >>> sorted(out)
    ['coverage', 'mean_size', 'non_singleton']
    """
    from sklearn.linear_model import LogisticRegression

    method, score = setting["method"], setting["score"]
    n, alpha = int(setting["n"]), float(setting["alpha"])
    if method not in METHODS:
        raise ValueError(f"setting['method'] must be one of {METHODS}, got {method!r}.")
    X, y = _data(rng, n)
    seed = int(rng.integers(2**31 - 1))
    # a fixed lambda for the scores that have one (no tuning split in either construction)
    kw = {"lam": _LAM} if score in ("socop", "raps") else {}
    if method == "split":
        clf = SplitConformalClassifier(LogisticRegression(), conformity_score=score,
                                       alpha=alpha, random_state=seed, **kw)
    else:
        clf = CrossConformalClassifier(LogisticRegression(), conformity_score=score,
                                       alpha=alpha, cv=_FOLDS,
                                       aggregation="crossval" if method == "cv+" else "mean",
                                       random_state=seed, **kw)
    res = clf.fit(X[:n], y[:n]).evaluate(X[n:], y[n:])
    return {"coverage": float(res.coverage), "mean_size": float(res.mean_size),
            "non_singleton": float(res.non_singleton_rate)}


@register_study("cross-conformal", title="Cross-conformal (CV+) against split-conformal sets",
                paper="Romano, Sesia & Candes (2020), NeurIPS; Barber et al. (2021), AoS 49(1)")
def cross_conformal_study(ctx: StudyContext) -> StudyReport:
    """Coverage and size of split, CV+ and fold-averaged sets as ``n`` grows.

    Examples
    --------
    Run it with ``get_study("cross-conformal").run(StudyContext(quick=True))``
    or from the command line with ``statlearn reproduce cross-conformal --quick``.

    >>> from statlearn.studies import get_study
    >>> study = get_study("cross-conformal")
    >>> study.name, callable(study.func)
    ('cross-conformal', True)
    """
    import matplotlib.pyplot as plt

    alpha = 0.1
    ns = [40, 100, 300]
    scores = ["lac", "aps", "socop"]
    n_reps = ctx.size(quick=40, full=400)
    grid = {"method": list(METHODS), "score": scores, "n": ns, "alpha": [alpha]}
    res = ctx.run(cross_conformal_replication, grid, n_reps, name="cross-conformal")
    summ = res.summary()
    keys = ["method", "score", "n"]
    table = None
    for metric in ("coverage", "mean_size", "non_singleton"):
        part = summ[summ["metric"] == metric][keys + ["mean", "se"]].rename(
            columns={"mean": metric, "se": f"{metric}_se"})
        table = part if table is None else table.merge(part, on=keys)
    table = table.sort_values(["score", "n", "method"]).reset_index(drop=True)

    fig, axes = plt.subplots(1, 2, figsize=(10, 3.8))
    for j, method in enumerate(METHODS):
        g = table[(table["method"] == method) & (table["score"] == "lac")]
        axes[0].errorbar(g["n"], g["coverage"], yerr=1.96 * g["coverage_se"], marker="o",
                         color=f"C{j}", capsize=3, label=method)
        axes[1].errorbar(g["n"], g["mean_size"], yerr=1.96 * g["mean_size_se"], marker="o",
                         color=f"C{j}", capsize=3, label=method)
    axes[0].axhline(1 - alpha, color="k", ls=":", label="1 - alpha")
    axes[0].axhline(1 - 2 * alpha, color="k", ls="--", lw=0.8, label="1 - 2 alpha")
    axes[0].set_ylabel("coverage")
    axes[1].set_ylabel("mean set size")
    for ax in axes:
        ax.set_xscale("log")
        ax.set_xlabel("labelled points n")
    axes[0].legend(fontsize="small")
    fig.suptitle("LAC sets: split conformal against CV+ (5 folds)")
    fig.tight_layout()

    cvp = table[table["method"] == "cv+"]
    split = table[table["method"] == "split"]
    # the guarantee holds unless a mean is 4 standard errors below 1 - 2 alpha
    guarantee_ok = bool(np.all(cvp["coverage"] + 4 * cvp["coverage_se"] >= 1 - 2 * alpha))
    small = split["n"] == ns[0]
    smaller = (cvp[cvp["n"] == ns[0]].set_index("score")["mean_size"]
               <= split[small].set_index("score")["mean_size"])
    worst = float(cvp["coverage"].min())
    text = (
        f"{n_reps} replications per setting, alpha = {alpha}, {_FOLDS} folds, "
        f"{_N_TEST} test points. The papers: CV+ covers at least 1 - 2 alpha minus "
        "min{2(1 - 1/K)/(n/K + 1), (1 - K/n)/(K + 1)} for any model fitted symmetrically, "
        "and close to 1 - alpha in their experiments, with sets no larger than split "
        "conformal's because the model sees all the data (Romano et al. 2020 show this on "
        "synthetic data; their exact numbers are not compared here). We got: lowest CV+ "
        f"mean coverage {worst:.3f} (1 - alpha = {1 - alpha}); CV+ sets no larger than split "
        f"sets at n = {ns[0]} for {int(smaller.sum())} of {len(smaller)} scores. The "
        "fold-averaged sets (MAPIE's default) behave like CV+ here, without a guarantee."
    )
    ok = guarantee_ok and bool(smaller.all())
    verdict = make_verdict(
        "reproduced" if ok else "partly",
        f"CV+ coverage is at least 1 - 2 alpha in every setting (lowest {worst:.3f}) and its "
        f"sets are no larger than split sets at n = {ns[0]} for "
        f"{int(smaller.sum())}/{len(smaller)} scores")
    return StudyReport(name="cross-conformal",
                       title="Cross-conformal (CV+) against split-conformal sets",
                       tables={"methods": table}, figures={"coverage_size": fig}, text=text,
                       verdict=verdict)

"""Conformal scoring and set prediction: statlearn against MAPIE and plain NumPy.

For ``n`` rows of a ``K``-class probability matrix (the same matrix for every
library) it times

* calibration ("score"): the scores of the true labels and the conformal
  threshold, and
* set prediction ("sets"): the boolean ``(n, K)`` mask of every set,

for LAC and APS (statlearn's :class:`~statlearn.conformal.SplitConformalClassifier`
around a pass-through model, MAPIE 1.x's ``SplitConformalClassifier`` around
the same model, and the few lines of NumPy a user would write), and for SOCOP
(statlearn's parallel Numba kernel against the vectorised NumPy form of the
same hull). Ratios above 1 mean statlearn is faster. statlearn and NumPy use
the non-randomised APS score (so their sets can be compared); MAPIE runs its
defaults (randomised calibration scores, last label included at prediction),
so its APS sets differ by design.

Run ``python benchmarks/bench_socop.py`` (n = 100,000, K in {10, 100, 1000})
or ``--quick`` (n = 10,000).
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, ClassifierMixin

from statlearn.conformal import SplitConformalClassifier, conformal_quantile
from statlearn.conformal._scores import socop_scores_reference

ALPHA = 0.1
LAM = 0.05


class Passthrough(ClassifierMixin, BaseEstimator):
    """A fitted "model" whose input is already the probability matrix."""

    def __init__(self, n_classes=10):
        self.n_classes = n_classes

    def fit(self, X=None, y=None):
        self.classes_ = np.arange(self.n_classes)
        self.n_features_in_ = self.n_classes
        return self

    def predict_proba(self, X):
        return np.asarray(X, dtype=np.float64)

    def predict(self, X):
        return np.argmax(X, axis=1)


def make_problem(n, K, seed=0):
    rng = np.random.default_rng(seed)
    z = 2.0 * rng.standard_normal((n, K))
    z -= z.max(axis=1, keepdims=True)
    p = np.exp(z)
    p /= p.sum(axis=1, keepdims=True)
    cdf = np.cumsum(p, axis=1)
    y = np.minimum((cdf < rng.random(n)[:, None] * cdf[:, -1:]).sum(axis=1), K - 1)
    return p, y


def best_time(fn, repeat):
    times = []
    out = None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return min(times), out


# ------------------------------------------------------------------ plain NumPy baselines
def numpy_lac_score(p, y):
    return conformal_quantile(1.0 - p[np.arange(p.shape[0]), y], ALPHA)


def numpy_lac_sets(p, q):
    return 1.0 - p <= q


def _numpy_aps_matrix(p, u):
    order = np.argsort(-p, axis=1, kind="stable")
    ps = np.take_along_axis(p, order, axis=1)
    s = np.cumsum(ps, axis=1) - ps + u[:, None] * ps
    out = np.empty_like(s)
    np.put_along_axis(out, order, s, axis=1)
    return out


def numpy_aps_score(p, y, u):
    return conformal_quantile(_numpy_aps_matrix(p, u)[np.arange(p.shape[0]), y], ALPHA)


def numpy_aps_sets(p, q, u):
    return _numpy_aps_matrix(p, u) <= q


def numpy_socop_score(p, y):
    return conformal_quantile(socop_scores_reference(p, LAM, 1)[np.arange(p.shape[0]), y],
                              ALPHA)


# ------------------------------------------------------------------ one (n, K) case
def run_case(n, K, repeat, with_mapie=True):
    from mapie.classification import SplitConformalClassifier as MapieSCC

    p, y = make_problem(n, K)
    u = np.ones(n)  # non-randomised APS: the cumulative mass including the label
    model = Passthrough(K).fit()
    rows = []
    for method in ("lac", "aps", "socop"):
        kw = {"lam": LAM} if method == "socop" else {}
        if method == "aps":
            kw = {"randomized_score": False}  # deterministic, so NumPy's sets can be compared
        ours = SplitConformalClassifier(model, prefit=True, conformity_score=method,
                                        alpha=ALPHA, random_state=0, **kw)
        t_fit, _ = best_time(lambda ours=ours: ours.fit(p, y), repeat)
        t_set, sets = best_time(lambda ours=ours: ours.predict_set(p), repeat)
        if method == "lac":
            t_np_fit, q = best_time(lambda: numpy_lac_score(p, y), repeat)
            t_np_set, np_sets = best_time(lambda q=q: numpy_lac_sets(p, q), repeat)
        elif method == "aps":
            t_np_fit, q = best_time(lambda: numpy_aps_score(p, y, u), repeat)
            t_np_set, np_sets = best_time(lambda q=q: numpy_aps_sets(p, q, u), repeat)
        else:
            t_np_fit, q = best_time(lambda: numpy_socop_score(p, y), repeat)
            t_np_set, np_sets = best_time(
                lambda q=q: socop_scores_reference(p, LAM, 1) <= q, repeat)
        agree_np = float(np.mean(np.all(np_sets == sets, axis=1)))
        t_m_fit = t_m_set = np.nan
        agree_m = np.nan
        if with_mapie and method in ("lac", "aps"):
            def conformalize(method=method):
                # MAPIE conformalizes an instance only once; building one is negligible
                return MapieSCC(Passthrough(K).fit(), confidence_level=1 - ALPHA,
                                conformity_score=method, prefit=True,
                                random_state=0).conformalize(p, y)

            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                t_m_fit, mapie = best_time(conformalize, repeat)
                t_m_set, out = best_time(lambda mapie=mapie: mapie.predict_set(p), repeat)
            agree_m = float(np.mean(np.all(out[1][:, :, 0] == sets, axis=1)))
        for step, t_ours, t_m, t_np in (("score", t_fit, t_m_fit, t_np_fit),
                                        ("sets", t_set, t_m_set, t_np_set)):
            rows.append({"method": method.upper(), "step": step, "n": n, "K": K,
                         "statlearn_s": t_ours, "mapie_s": t_m, "numpy_s": t_np,
                         "mapie/statlearn": t_m / t_ours, "numpy/statlearn": t_np / t_ours,
                         "same sets as MAPIE": agree_m if step == "sets" else np.nan,
                         "same sets as NumPy": agree_np if step == "sets" else np.nan})
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="n = 10,000 instead of 100,000")
    args = parser.parse_args(argv)
    n = 10_000 if args.quick else 100_000
    repeat = 2 if args.quick else 3
    # compile the kernels outside the timings
    SplitConformalClassifier(Passthrough(3).fit(), prefit=True, lam=LAM) \
        .fit(*make_problem(200, 3)).predict_set(make_problem(200, 3)[0])
    SplitConformalClassifier(Passthrough(3).fit(), prefit=True, lam=LAM) \
        .fit(*make_problem(70_000, 3)).predict_set(make_problem(70_000, 3)[0])
    rows = []
    for K in (10, 100, 1000):
        rows += run_case(n, K, 1 if n * K >= 10**7 else repeat)
    table = pd.DataFrame(rows)
    pd.set_option("display.width", 200)
    pd.set_option("display.max_columns", 20)
    print(f"Conformal scoring and set prediction, n = {n}, alpha = {ALPHA}, SOCOP lam = {LAM}")
    print(f"(times in seconds, best of {repeat} runs, one run when n K >= 1e7; "
          "ratios > 1: statlearn faster)\n")
    print(table.to_string(index=False, float_format=lambda v: f"{v:.4g}"))
    # growth: cost against n (K = 100) and against K (n fixed), SOCOP sets
    growth = []
    for nn in (n // 10, n):
        p, _ = make_problem(nn, 100)
        t, _ = best_time(lambda p=p: SplitConformalClassifier(
            Passthrough(100).fit(), prefit=True, lam=LAM).fit(p, np.argmax(p, 1))
            .predict_set(p), 1)
        growth.append({"n": nn, "K": 100, "SOCOP fit+sets s": t, "us per row": 1e6 * t / nn})
    for r in table[(table["method"] == "SOCOP") & (table["step"] == "sets")].itertuples():
        growth.append({"n": r.n, "K": r.K, "SOCOP fit+sets s": np.nan,
                       "us per row": 1e6 * r.statlearn_s / r.n})
    print("\nHow SOCOP set prediction grows (O(K log K) per row, linear in n):\n")
    print(pd.DataFrame(growth).to_string(index=False, float_format=lambda v: f"{v:.4g}"))


if __name__ == "__main__":
    main()

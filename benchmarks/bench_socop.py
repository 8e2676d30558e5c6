"""Conformal scoring and set prediction: statlearn against MAPIE, NumPy and one argsort.

For ``n`` rows of a ``K``-class probability matrix (the same matrix for every
library) it times, in one run,

* calibration ("score"): the scores of the true labels and the conformal
  threshold, and
* set prediction ("sets"): the boolean ``(n, K)`` mask of every set, through
  the public estimator (validation of the probability matrix included),

for LAC, APS (randomised, the default, and deterministic) and SOCOP, with
three yardsticks:

* ``argsort``: one ``np.argsort(p, axis=1)`` of the matrix (what any
  sort-based set rule pays at least); ``statlearn/argsort`` below 1 means the
  set prediction costs less than that one sort;
* MAPIE 1.x's ``SplitConformalClassifier`` around the same pass-through model
  (LAC and APS; ``mapie/statlearn`` above 1 means statlearn is faster);
* the vectorised NumPy form of each rule (the reference the tests use), with
  the share of rows whose sets agree.

``validation`` is the time of the probability-matrix check alone and its share
of statlearn's set-prediction time. MAPIE's APS calibrates on randomised
scores and keeps the crossing label at prediction, so its sets differ from
both statlearn APS variants by design (the deterministic variant agrees with
MAPIE set for set on the same calibration scores, see the tests).

Run ``python benchmarks/bench_socop.py`` (n in {20,000, 100,000}, K in {10,
100, 1000}; MAPIE only where n K <= 2e7, it needs several copies of the
matrix) or ``--quick`` (n = 20,000).
"""

from __future__ import annotations

import argparse
import time
import warnings

import array_api_compat.numpy as npx
import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, ClassifierMixin

from statlearn.conformal import SplitConformalClassifier, conformal_quantile
from statlearn.conformal._classification._baselines import _aps_sets_reference
from statlearn.conformal._classification._socop import socop_scores_reference
from statlearn.utils import check_probabilities

ALPHA = 0.1
LAM = 0.05
MAPIE_MAX_SIZE = 2 * 10**7


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
METHODS = {
    "LAC": ("lac", {}),
    "APS": ("aps", {}),
    "APS-det": ("aps", {"randomized_score": False}),
    "SOCOP": ("socop", {"lam": LAM}),
}


def _reference_sets(name, clf, p):
    q = clf.threshold_
    if name == "LAC":
        return 1.0 - p <= q[None, :]
    if name == "SOCOP":
        return socop_scores_reference(p, LAM, 1) <= q[0]
    u = clf._predict_rng().random(p.shape[0]) if name == "APS" else None
    return _aps_sets_reference(p, u, q, 0.0, 0, npx)


def _reference_sets_rows(name, clf, p, m):
    if name == "APS":  # the same uniforms as predict_set, first m of them
        u = clf._predict_rng().random(p.shape[0])[:m]
        return _aps_sets_reference(p[:m], u, clf.threshold_, 0.0, 0, npx)
    return _reference_sets(name, clf, p[:m])


def run_case(n, K, repeat, with_mapie=True):
    from mapie.classification import SplitConformalClassifier as MapieSCC

    p, y = make_problem(n, K)
    model = Passthrough(K).fit()
    t_sort, _ = best_time(lambda: np.argsort(p, axis=1), repeat)
    t_val, _ = best_time(lambda: check_probabilities(p, "p"), repeat)
    rows = []
    for name, (score, kw) in METHODS.items():
        ours = SplitConformalClassifier(model, prefit=True, conformity_score=score,
                                        alpha=ALPHA, random_state=0, **kw)
        t_fit, _ = best_time(lambda ours=ours: ours.fit(p, y), repeat)
        t_set, sets = best_time(lambda ours=ours: ours.predict_set(p), repeat)
        # the reference builds several (n, K) temporaries: check the first rows only
        m = min(n, 20_000)
        ref = _reference_sets(name, ours, p)[:m] if n == m else \
            _reference_sets_rows(name, ours, p, m)
        agree_ref = float(np.mean(np.all(ref == sets[:m], axis=1)))
        t_m_fit = t_m_set = agree_m = np.nan
        if with_mapie and name in ("LAC", "APS") and n * K <= MAPIE_MAX_SIZE:
            def conformalize(score=score):
                # MAPIE conformalizes an instance only once; building one is negligible
                return MapieSCC(Passthrough(K).fit(), confidence_level=1 - ALPHA,
                                conformity_score=score, prefit=True,
                                random_state=0).conformalize(p, y)

            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                t_m_fit, mapie = best_time(conformalize, repeat)
                t_m_set, out = best_time(lambda mapie=mapie: mapie.predict_set(p), repeat)
            agree_m = float(np.mean(np.all(out[1][:, :, 0] == sets, axis=1)))
        rows.append({"method": name, "n": n, "K": K, "score_s": t_fit, "sets_s": t_set,
                     "mapie_score_s": t_m_fit, "mapie_sets_s": t_m_set, "argsort_s": t_sort,
                     "sets mapie/statlearn": t_m_set / t_set,
                     "score mapie/statlearn": t_m_fit / t_fit,
                     "sets statlearn/argsort": t_set / t_sort,
                     "validation_s": t_val, "validation share": t_val / t_set,
                     "mean size": float(sets.sum(axis=1).mean()),
                     "same sets as MAPIE": agree_m, "same sets as reference": agree_ref})
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="n = 20,000 only")
    args = parser.parse_args(argv)
    sizes = (20_000,) if args.quick else (20_000, 100_000)
    repeat = 2 if args.quick else 3
    # compile the kernels outside the timings (serial and parallel variants)
    for nn in (200, 200_000):
        for score, kw in METHODS.values():
            pp, yy = make_problem(nn, 10)
            SplitConformalClassifier(Passthrough(10).fit(), prefit=True, conformity_score=score,
                                     **kw).fit(pp, yy).predict_set(pp)
    rows = []
    for n in sizes:
        for K in (10, 100, 1000):
            # small cases take milliseconds: more runs make the best time reliable
            reps = 1 if n * K >= 5 * 10**7 else (7 if n * K <= 2 * 10**6 else repeat)
            rows += run_case(n, K, reps)
    table = pd.DataFrame(rows)
    pd.set_option("display.width", 250)
    pd.set_option("display.max_columns", 30)
    fmt = lambda v: f"{v:.3g}"  # noqa: E731
    print(f"Conformal scoring and set prediction, alpha = {ALPHA}, SOCOP lam = {LAM}")
    print(f"(seconds, best of 7 runs when n K <= 2e6, of {repeat} above, one run when "
          "n K >= 5e7)\n")
    print("Set prediction (the hot path):\n")
    print(table[["method", "n", "K", "sets_s", "argsort_s", "sets statlearn/argsort",
                 "mapie_sets_s", "sets mapie/statlearn", "validation share", "mean size",
                 "same sets as reference", "same sets as MAPIE"]]
          .to_string(index=False, float_format=fmt))
    print("\nCalibration (scores of the true labels and the threshold):\n")
    # MAPIE has no SOCOP: its APS calibration is the yardstick of SOCOP's
    aps = table[table["method"] == "APS"].set_index(["n", "K"])["mapie_score_s"]
    table["mapie APS/statlearn"] = [
        aps.get((r.n, r.K), np.nan) / r.score_s if r.method == "SOCOP" else np.nan
        for r in table.itertuples()]
    print(table[["method", "n", "K", "score_s", "mapie_score_s", "score mapie/statlearn",
                 "mapie APS/statlearn"]].to_string(index=False, float_format=fmt))
    print("\nTargets: APS and SOCOP sets within 1.5x of one argsort (statlearn/argsort <= "
          "1.5); APS sets at least 3x faster than MAPIE; LAC calibration and SOCOP calibration "
          "at least 1.5x MAPIE's LAC and APS calibration; validation not the dominant cost.")


if __name__ == "__main__":
    main()

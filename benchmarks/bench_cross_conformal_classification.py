"""Cross-conformal (CV+) classification sets: statlearn against MAPIE 1.x.

Both libraries fit the same model on the same 5 folds (a ``KFold`` passed to
both) and predict sets for ``m`` test rows with ``K = 10`` classes, with the
LAC and APS scores and both aggregations (``"crossval"``: the CV+ count over
the ``n`` training points; ``"mean"``: averaged fold probabilities). The
model is a softmax of fixed logits whose ``fit`` only records the classes, so
the timings are those of the conformal machinery, not of a learner; the last
rows repeat LAC with a :class:`~sklearn.linear_model.LogisticRegression` for
the end-to-end picture.

``fit`` is ``fit`` / ``fit_conformalize``; ``sets`` is ``predict_set``.
``mapie/statlearn`` above 1 means statlearn is faster. ``agree`` is the share
of test rows whose sets are equal: 1 for LAC (same rule at these ``n``, see
the tests for the ``n`` where the CV+ rank and MAPIE's differ), below 1 for
APS by design (MAPIE calibrates on randomised scores and predicts
deterministic sets). MAPIE's ``"crossval"`` holds an ``(m, K, n)`` array, so
it runs only where ``m K n <= 2e8``; statlearn's count is a binary search per
fold, ``O(folds m K log n)``.

Run ``python benchmarks/bench_cross_conformal_classification.py`` or
``--quick`` (smaller sizes).
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import KFold

from statlearn.conformal import CrossConformalClassifier

K = 10
ALPHA = 0.1
MAPIE_MAX_VALUES = 2 * 10**8


class SoftmaxOfInput(ClassifierMixin, BaseEstimator):
    """A "model" whose input columns are the logits; ``fit`` records the classes only."""

    def fit(self, X, y):
        self.classes_ = np.unique(y)
        return self

    def predict_proba(self, X):
        z = np.asarray(X, dtype=np.float64)
        z = z - z.max(axis=1, keepdims=True)
        e = np.exp(z)
        return e / e.sum(axis=1, keepdims=True)


def make_problem(n, m, seed=0):
    rng = np.random.default_rng(seed)
    W = rng.standard_normal((K, K))
    X = rng.standard_normal((n + m, K))
    z = X @ W
    p = np.exp(z - z.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    y = (p.cumsum(axis=1) < rng.random((n + m, 1))).sum(axis=1).clip(0, K - 1)
    # the model sees noisy logits: a misspecified but informative probability model
    logits = z + 0.5 * rng.standard_normal(z.shape)
    return logits[:n], y[:n], logits[n:]


def best_of(fn, repeat):
    best, out = float("inf"), None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def run_case(model, score, agg, n, m, repeat):
    X, y, Xt = make_problem(n, m)
    cv = KFold(5, shuffle=True, random_state=0)
    # deterministic APS, as MAPIE's; LAC has no randomised form
    kw = {"randomized_score": False} if score == "aps" else {}
    ours = CrossConformalClassifier(model, conformity_score=score, cv=cv, aggregation=agg,
                                    alpha=ALPHA, **kw)
    t_fit, _ = best_of(lambda: ours.fit(X, y), repeat)
    t_sets, sets = best_of(lambda: ours.predict_set(Xt), repeat)
    row = {"model": type(model).__name__, "score": score, "aggregation": agg, "n": n, "m": m,
           "statlearn fit (s)": t_fit, "statlearn sets (s)": t_sets}
    try:
        from mapie.classification import CrossConformalClassifier as MapieCCC
    except ImportError:
        return row
    if agg == "crossval" and m * K * n > MAPIE_MAX_VALUES:
        return row
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = MapieCCC(model, confidence_level=1 - ALPHA, conformity_score=score, cv=cv,
                          random_state=0)
        t_mfit, _ = best_of(lambda: theirs.reset().fit_conformalize(X, y), repeat)
        t_msets, msets = best_of(lambda: theirs.predict_set(Xt, agg_scores=agg)[1][:, :, 0],
                                 repeat)
    row.update({"mapie fit (s)": t_mfit, "mapie sets (s)": t_msets,
                "fit mapie/statlearn": t_mfit / t_fit, "sets mapie/statlearn": t_msets / t_sets,
                "agree": float(np.mean(np.all(msets == sets, axis=1)))})
    return row


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args(argv)
    sizes = [(500, 2000)] if args.quick else [(500, 2000), (2000, 5000), (10000, 5000)]
    repeat = 2 if args.quick else 3
    rows = []
    for n, m in sizes:
        for score in ("lac", "aps"):
            for agg in ("crossval", "mean"):
                rows.append(run_case(SoftmaxOfInput(), score, agg, n, m, repeat))
    for agg in ("crossval", "mean"):
        rows.append(run_case(LogisticRegression(), "lac", agg, sizes[0][0], sizes[0][1], 1))
    table = pd.DataFrame(rows)
    with pd.option_context("display.width", 200, "display.max_columns", 20,
                           "display.float_format", "{:.4g}".format):
        print(table.to_string(index=False))


if __name__ == "__main__":
    main()

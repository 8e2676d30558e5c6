"""Conformal regression intervals: statlearn against MAPIE, split and CV+.

Times the whole user call on identical data and models (ridge regression, so
the conformal step is not hidden behind model fitting):

* split: ``SplitConformalRegressor(prefit=True)`` calibrated on ``n`` points
  (``fit``/``conformalize``) and ``predict_interval`` on ``m`` test points, at
  two levels;
* CV+: ``CrossConformalRegressor`` with the same 5 folds over ``n`` points
  (``fit``/``fit_conformalize``) and ``predict_interval`` on ``m`` test points.
  Both libraries build the ``m x n`` values ``mu_{-k(i)}(x) +/- R_i``;
  statlearn takes order statistics by partial sorting in chunks, MAPIE by
  ``np.quantile`` over the full matrix.

Ratios above 1 mean statlearn is faster. The intervals are checked to agree
(largest absolute difference printed). The split case is also timed against
its floor: the two model predictions, the absolute residuals, one conformal
quantile per level (``np.partition``) and the two adds ``mu -/+ q`` into the
``(m, 2, n_levels)`` output; ``statlearn/floor`` is the overhead factor.
Run ``python benchmarks/bench_conformal_regression.py`` (n = 100,000) or
``--quick`` (n = 10,000); ``--split-only`` times the split case at
m = 100,000 and 1,000,000 (calibration on m / 10 points).
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pandas as pd
from sklearn.linear_model import Ridge
from sklearn.model_selection import KFold
from threadpoolctl import threadpool_limits

from statlearn.conformal import CrossConformalRegressor, SplitConformalRegressor, conformal_rank

ALPHAS = [0.1, 0.2]


def best_time(fn, repeat):
    best, out = np.inf, None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def make_data(n, m, d=10, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n + m, d))
    y = X @ rng.normal(size=d) + rng.normal(size=n + m) * (1 + np.abs(X[:, 0]))
    return X[:n], y[:n], X[n:]


def split_floor(model, Xc, yc, Xt):
    """The least a prefit split interval costs: two predictions, one quantile, two adds."""
    r = np.abs(yc - model.predict(Xc))
    n = r.size
    q = []
    for a in ALPHAS:
        k = conformal_rank(n, a)
        q.append(np.partition(r, k - 1)[k - 1] if k <= n else np.inf)
    q = np.array(q)
    mu = model.predict(Xt)
    out = np.empty((mu.size, 2, q.size))
    for j in range(q.size):  # long passes over the rows (the small axes are strided)
        np.subtract(mu, q[j], out=out[:, 0, j])
        np.add(mu, q[j], out=out[:, 1, j])
    return out


def bench_split(n, m, repeat):
    from mapie.regression import SplitConformalRegressor as MapieSplit

    X, y, Xt = make_data(n, m)
    model = Ridge().fit(X[: n // 2], y[: n // 2])
    Xc, yc = X[n // 2:], y[n // 2:]
    calls = {
        "statlearn": lambda: SplitConformalRegressor(
            model, alpha=ALPHAS, prefit=True).fit(Xc, yc).predict_interval(Xt),
        "mapie": lambda: MapieSplit(
            model, confidence_level=[1 - a for a in ALPHAS], prefit=True)
            .conformalize(Xc, yc).predict_interval(Xt)[1],
        "floor": lambda: split_floor(model, Xc, yc, Xt),
    }
    t = dict.fromkeys(calls, np.inf)
    out = {}
    # one BLAS thread: the model's predict is the same in all three, and threaded BLAS
    # on a shared machine makes it the noise of the comparison
    with threadpool_limits(1):
        for _ in range(repeat):  # alternate the three, so that load drifts hit each
            for name, call in calls.items():
                tt, out[name] = best_time(call, 1)
                t[name] = min(t[name], tt)
    assert np.array_equal(out["statlearn"], out["floor"])
    return dict(method="split", n=n // 2, m=m, statlearn_s=t["statlearn"],
                mapie_s=t["mapie"], floor_s=t["floor"],
                **{"statlearn/floor": t["statlearn"] / t["floor"]},
                max_diff=float(np.max(np.abs(out["statlearn"] - out["mapie"]))))


def bench_cvplus(n, m, repeat):
    from mapie.regression import CrossConformalRegressor as MapieCross

    X, y, Xt = make_data(n, m, seed=1)
    folds = KFold(5, shuffle=True, random_state=0)
    t_ours, ours = best_time(lambda: CrossConformalRegressor(
        Ridge(), cv=folds, alpha=ALPHAS).fit(X, y).predict_interval(Xt), repeat)
    t_mapie, theirs = best_time(lambda: MapieCross(
        Ridge(), confidence_level=[1 - a for a in ALPHAS], method="plus", cv=folds)
        .fit_conformalize(X, y).predict_interval(Xt)[1], repeat)
    return dict(method="CV+", n=n, m=m, statlearn_s=t_ours, mapie_s=t_mapie,
                max_diff=float(np.max(np.abs(ours - theirs))))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="n = 10,000 instead of 100,000")
    parser.add_argument("--split-only", action="store_true",
                        help="the split case at m = 1e5 and 1e6")
    args = parser.parse_args(argv)
    if args.split_only:
        table = pd.DataFrame([bench_split(2 * m // 10, m, 15 if m <= 10**5 else 7)
                              for m in (100_000, 1_000_000)])
        table["ratio (mapie / statlearn)"] = table["mapie_s"] / table["statlearn_s"]
        print(table.to_string(index=False, float_format=lambda v: f"{v:.4g}"))
        return table
    n = 10_000 if args.quick else 100_000
    repeat = 2 if args.quick else 3
    rows = [bench_split(2 * n, 10 * n, repeat)]
    # CV+ holds m x n values per level in both libraries: m kept moderate
    for m in ((100, 400) if args.quick else (100, 1000)):
        rows.append(bench_cvplus(n, m, repeat))
    table = pd.DataFrame(rows)
    table["ratio (mapie / statlearn)"] = table["mapie_s"] / table["statlearn_s"]
    print(table.to_string(index=False, float_format=lambda v: f"{v:.4g}"))
    cv = table[table["method"] == "CV+"]
    if len(cv) > 1:
        g = cv["statlearn_s"].iloc[-1] / cv["statlearn_s"].iloc[0]
        print(f"\nCV+ growth in m ({cv['m'].iloc[0]} -> {cv['m'].iloc[-1]}): statlearn x{g:.2f} "
              "(fold fits are a fixed cost; the interval step is O(m n))")
    return table


if __name__ == "__main__":
    main()

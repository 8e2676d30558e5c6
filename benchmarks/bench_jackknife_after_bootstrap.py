"""Jackknife+-after-bootstrap: statlearn against MAPIE on the same samples and models.

Both libraries receive one ``mapie.subsample.Subsample`` (``B`` bootstrap
samples of the ``n`` training points), a ridge regression (so the conformal
step is not hidden behind model fitting) and ``m`` test points at two levels.
Two timings per row:

* ``fit``: the ``B`` fits and the out-of-bag residuals
  (``fit`` / ``fit_conformalize``);
* ``interval``: ``predict_interval`` on the fitted objects, the hot path:
  the ``n`` out-of-bag ensembles at every test point, then the jackknife+
  order statistics. statlearn aggregates once per distinct out-of-bag set
  (a matrix product for the mean, a median per set otherwise) and takes the
  order statistics by partial sorting in chunks; MAPIE forms the ``(m, n)``
  ensemble matrix (the median row by row, ``np.apply_along_axis``) and calls
  ``np.quantile``.

Ratios above 1 mean statlearn is faster; the intervals are checked to agree
(largest absolute difference printed). The last rows show how the interval
step grows with ``n`` (``O(n m)`` in both). Run
``python benchmarks/bench_jackknife_after_bootstrap.py`` or ``--quick``.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pandas as pd
from sklearn.linear_model import Ridge
from threadpoolctl import threadpool_limits

from statlearn.conformal import JackknifeAfterBootstrapRegressor

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


def bench(n, m, B, aggregation, repeat):
    from mapie.regression import JackknifeAfterBootstrapRegressor as MapieJaB
    from mapie.subsample import Subsample

    X, y, Xt = make_data(n, m)

    def sub():
        return Subsample(n_resamplings=B, random_state=0)

    def ours_fit():
        return JackknifeAfterBootstrapRegressor(Ridge(), resampling=sub(), alpha=ALPHAS,
                                                aggregation=aggregation).fit(X, y)

    def mapie_fit():
        return MapieJaB(Ridge(), confidence_level=[1 - a for a in ALPHAS], resampling=sub(),
                        aggregation_method=aggregation).fit_conformalize(X, y)

    # one BLAS thread: the ridge fits are the same in both, and threaded BLAS on a
    # shared machine makes them the noise of the comparison
    with threadpool_limits(1):
        t_fit_ours, ours = best_time(ours_fit, repeat)
        t_fit_mapie, theirs = best_time(mapie_fit, repeat)
        t_iv_ours, iv_ours = best_time(lambda: ours.predict_interval(Xt), repeat)
        t_iv_mapie, iv_mapie = best_time(lambda: theirs.predict_interval(Xt)[1], repeat)
    return dict(aggregation=aggregation, n=n, m=m, B=B,
                fit_statlearn_s=t_fit_ours, fit_mapie_s=t_fit_mapie,
                interval_statlearn_s=t_iv_ours, interval_mapie_s=t_iv_mapie,
                **{"fit ratio": t_fit_mapie / t_fit_ours,
                   "interval ratio": t_iv_mapie / t_iv_ours},
                max_diff=float(np.max(np.abs(iv_ours - iv_mapie))))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller n and m")
    args = parser.parse_args(argv)
    repeat = 2 if args.quick else 3
    B = 30
    sizes = [(500, 200), (2000, 200)] if args.quick else [(1000, 1000), (4000, 1000)]
    rows = [bench(n, m, B, agg, repeat) for agg in ("mean", "median") for n, m in sizes]
    table = pd.DataFrame(rows)
    print(table.to_string(index=False, float_format=lambda v: f"{v:.4g}"))
    for agg in ("mean", "median"):
        sub = table[table["aggregation"] == agg]
        g = sub["interval_statlearn_s"].iloc[-1] / sub["interval_statlearn_s"].iloc[0]
        print(f"{agg}: interval step x{g:.2f} for n x{sub['n'].iloc[-1] / sub['n'].iloc[0]:.0f} "
              "(O(n m))")
    return table


if __name__ == "__main__":
    main()

"""Time series intervals: statlearn's TimeSeriesRegressor against MAPIE's, EnbPI and ACI.

Identical data, model (ridge regression) and block bootstrap (MAPIE's
``BlockBootstrap``, given to statlearn as ``resampler``) in both libraries:

* fit: the ``B`` bootstrap fits and the leave-one-out residuals on ``n``
  points, then ``predict_interval`` on ``m`` points (MAPIE:
  ``predict(..., ensemble=True)``);
* EnbPI online: ``m`` new points revealed one at a time, each one's interval
  then the sliding update (MAPIE: ``predict`` then ``update`` per point;
  statlearn: ``predict_interval_online``, which predicts the ``m`` rows with
  the ``B`` models once and slides the window in a loop);
* ACI online: the same with the adaptive level (MAPIE: ``predict``,
  ``adapt_conformal_inference`` and ``update`` per point), with a model that
  ignores its training data so that both libraries give the same intervals
  (MAPIE centres ACI on a refitted full model, statlearn on the ensemble).

Ratios above 1 mean statlearn is faster; the largest absolute difference
between the two libraries' bounded intervals is printed, with the number of
unbounded ones in each (they differ once the ACI level reaches 0: MAPIE clips
it there, statlearn lets it go below, as the paper does). Run
``python benchmarks/bench_conformal_timeseries.py`` (n = 5,000) or
``--quick`` (n = 1,000); the online cases also show how the cost grows with
``m``.
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.linear_model import Ridge
from threadpoolctl import threadpool_limits

from statlearn.conformal import TimeSeriesRegressor

ALPHA, GAMMA, B = 0.1, 0.01, 20


class FixedLinear(RegressorMixin, BaseEstimator):
    """Fixed coefficients: every bootstrap model is the same, so the ACI centres agree."""

    def __init__(self, coef=None):
        self.coef = coef

    def fit(self, X, y):
        self.coef_ = np.asarray(self.coef, dtype=float)
        return self

    def predict(self, X):
        return np.asarray(X) @ self.coef_


def make_data(n, m, d=5, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n + m, d))
    w = rng.normal(size=d)
    y = X @ w + rng.normal(size=n + m) * np.linspace(0.5, 2.0, n + m)
    return X, y, w


def _bb():
    from mapie.subsample import BlockBootstrap

    return BlockBootstrap(n_resamplings=B, length=10, overlapping=False, random_state=0)


def _mapie(method, estimator):
    from mapie.regression import TimeSeriesRegressor as MapieTS

    return MapieTS(estimator, method=method, cv=_bb(), agg_function="mean")


def best_time(fn, repeat):
    best, out = np.inf, None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def bench_fit(n, m, repeat):
    X, y, _ = make_data(n, m)

    def ours():
        reg = TimeSeriesRegressor(Ridge(), resampler=_bb(), symmetric=False, alpha=ALPHA)
        return reg.fit(X[:n], y[:n]).predict_interval(X[n:])

    def theirs():
        reg = _mapie("enbpi", Ridge()).fit(X[:n], y[:n])
        return reg.predict(X[n:], ensemble=True, confidence_level=1 - ALPHA)[1][:, :, 0]

    t_o, a = best_time(ours, repeat)
    t_m, b = best_time(theirs, repeat)
    return dict(case="fit + predict_interval", n=n, m=m, statlearn_s=t_o, mapie_s=t_m,
                max_diff=float(np.max(np.abs(a - b))))


def _mapie_online(reg, X, y, n, m, aci):
    out = np.empty((m, 2))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        for j, t in enumerate(range(n, n + m)):
            x, yy = X[t:t + 1], y[t:t + 1]
            if aci:
                iv = reg.predict(x, confidence_level=1 - ALPHA, allow_infinite_bounds=True)[1]
                reg.adapt_conformal_inference(x, yy, gamma=GAMMA, confidence_level=1 - ALPHA)
            else:
                iv = reg.predict(x, ensemble=True, confidence_level=1 - ALPHA)[1]
            reg.update(x, yy, ensemble=True)
            out[j] = iv[0, :, 0]
    return out


def bench_online(n, m, aci, repeat):
    X, y, w = make_data(n, m, seed=1)
    est = FixedLinear(w) if aci else Ridge()
    method = "aci" if aci else "enbpi"
    kw = {"gamma": GAMMA} if aci else {}  # the step size is read by ACI only
    ours_fit = TimeSeriesRegressor(est, method=method, resampler=_bb(), symmetric=False,
                                   alpha=ALPHA, **kw).fit(X[:n], y[:n])
    theirs_fit = _mapie(method, est).fit(X[:n], y[:n])
    import copy

    t_o, a = best_time(lambda: copy.deepcopy(ours_fit).predict_interval_online(
        X[n:n + m], y[n:n + m]), repeat)
    t_m, b = best_time(lambda: _mapie_online(copy.deepcopy(theirs_fit), X, y, n, m, aci),
                       repeat)
    both = np.isfinite(a).all(axis=1) & np.isfinite(b).all(axis=1)
    return dict(case=f"{'ACI' if aci else 'EnbPI'} online", n=n, m=m, statlearn_s=t_o,
                mapie_s=t_m, max_diff=float(np.max(np.abs(a[both] - b[both]))),
                unbounded=int(np.sum(~np.isfinite(a).all(axis=1))),
                unbounded_mapie=int(np.sum(~np.isfinite(b).all(axis=1))))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="n = 1,000 instead of 5,000")
    args = parser.parse_args(argv)
    n = 1_000 if args.quick else 5_000
    repeat = 2 if args.quick else 3
    rows = []
    with threadpool_limits(1):  # one BLAS thread: the model fits are the same in both
        rows.append(bench_fit(n, 10 * n, repeat))
        for m in ((50, 200) if args.quick else (200, 1000)):
            rows.append(bench_online(n, m, False, repeat))
            rows.append(bench_online(n, m, True, repeat))
    table = pd.DataFrame(rows)
    table["ratio (mapie / statlearn)"] = table["mapie_s"] / table["statlearn_s"]
    print(table.to_string(index=False, float_format=lambda v: f"{v:.4g}"))
    for case in ("EnbPI online", "ACI online"):
        c = table[table["case"] == case]
        g_o = c["statlearn_s"].iloc[-1] / c["statlearn_s"].iloc[0]
        g_m = c["mapie_s"].iloc[-1] / c["mapie_s"].iloc[0]
        print(f"{case}, m {c['m'].iloc[0]} -> {c['m'].iloc[-1]}: statlearn x{g_o:.2f}, "
              f"MAPIE x{g_m:.2f}")
    return table


if __name__ == "__main__":
    main()

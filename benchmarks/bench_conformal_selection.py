"""Conformal selection: p-values + Benjamini-Hochberg, statlearn against pairwise counting.

For ``n`` calibration scores, ``m`` test points and ``K`` conditions it times
the p-values of all ``m K`` (unit, condition) hypotheses followed by one BH:

* ``statlearn``: :func:`statlearn.conformal.conformal_pvalues` (one sort of
  the calibration scores, two binary searches per test score in a parallel
  Numba kernel, ``O((n + m) log n)`` per condition) and
  :func:`statlearn.conformal.bh_select` (one sort of the pooled p-values);
  also the whole :func:`statlearn.conformal.mccs` call (scores, validation,
  uniforms, result object);
* ``pairwise``: the direct ``O(n m)`` count of calibration scores below and
  equal to each test score, vectorised with NumPy broadcasting in blocks of
  test points, then SciPy's BH (``false_discovery_control``);
* ``loop+pandas``: the approach of the public cfBH reference code: a Python
  loop over test points, each counting with a vectorised comparison against
  all calibration scores, then BH by sorting a pandas frame and scanning the
  sorted rows one by one in Python.

The two ``O(n m)`` baselines are timed on a slice of the test points and
scaled linearly to ``m`` (their cost is exactly linear in ``m``); such rows
are marked ``extrapolated``. Ratios above 1 mean statlearn is faster. The
p-values of the three computations are checked to agree on the timed slice.

Run ``python benchmarks/bench_conformal_selection.py`` (n = 100,000, m up to
1,000,000, K up to 40) or ``--quick`` (n = 10,000, m up to 100,000).
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
import pandas as pd
from scipy.stats import false_discovery_control

from statlearn.conformal import SmallCalibrationWarning, bh_select, conformal_pvalues, mccs

Q = 0.2


def best_time(fn, repeat):
    best, out = np.inf, None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def make_problem(n, m, K, seed=0):
    """Calibration/test predictions and responses with K disjoint unit intervals."""
    rng = np.random.default_rng(seed)
    mu_cal = rng.uniform(0, 2 * K, n)
    y_cal = mu_cal + 0.2 * rng.standard_normal(n)
    mu_test = rng.uniform(0, 2 * K, m)
    conditions = [(2.0 * k + 0.5, 2.0 * k + 1.5) for k in range(K)]
    return mu_cal, y_cal, mu_test, conditions


def condition_scores(mu_cal, y_cal, mu_test, lo, hi):
    """Nonconformity scores (larger = less conforming) of one interval, M = +inf."""
    d_cal = np.minimum(mu_cal - lo, hi - mu_cal)
    d_test = np.minimum(mu_test - lo, hi - mu_test)
    s_cal = np.where((y_cal > lo) & (y_cal < hi), -np.inf, d_cal)
    return s_cal, d_test


def statlearn_pvalues(cal_list, test_list, u):
    p = np.column_stack([conformal_pvalues(t, c, u[:, k])
                         for k, (c, t) in enumerate(zip(cal_list, test_list))])
    return bh_select(p, Q)[0], p


def pairwise_pvalues(cal_list, test_list, u, block=2000):
    cols = []
    for k, (c, t) in enumerate(zip(cal_list, test_list)):
        n = c.size
        out = np.empty(t.size)
        for s in range(0, t.size, block):
            tb = t[s:s + block, None]
            greater = (c[None, :] > tb).sum(axis=1)
            equal = (c[None, :] == tb).sum(axis=1)
            out[s:s + block] = (greater + u[s:s + block, k] * (1 + equal)) / (n + 1)
        cols.append(out)
    p = np.column_stack(cols)
    return false_discovery_control(p.ravel(), method="bh").reshape(p.shape) <= Q, p


def loop_pandas_pvalues(cal_list, test_list, u):
    cols = []
    for k, (c, t) in enumerate(zip(cal_list, test_list)):
        n = c.size
        out = np.empty(t.size)
        for j in range(t.size):
            out[j] = (np.sum(c > t[j]) + u[j, k] * (np.sum(c == t[j]) + 1)) / (n + 1)
        cols.append(out)
    p = np.column_stack(cols)
    flat = p.ravel()
    N = flat.size
    frame = pd.DataFrame({"p": flat}).sort_values("p")
    frame["line"] = Q * np.arange(1, N + 1) / N
    last = -1
    for i in range(N):  # row-by-row scan of the sorted frame
        if frame["p"].iat[i] <= frame["line"].iat[i]:
            last = i
    selected = np.zeros(N, dtype=bool)
    if last >= 0:
        selected[frame.index[: last + 1]] = True
    return selected.reshape(p.shape), p


def run(n, m, K, repeat, slice_m):
    mu_cal, y_cal, mu_test, conditions = make_problem(n, m, K)
    u = np.random.default_rng(1).random((m, K))
    cal_list, test_list = [], []
    for lo, hi in conditions:
        s_cal, s_test = condition_scores(mu_cal, y_cal, mu_test, lo, hi)
        cal_list.append(s_cal)
        test_list.append(s_test)
    t_ours, (sel, p) = best_time(lambda: statlearn_pvalues(cal_list, test_list, u), repeat)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SmallCalibrationWarning)
        t_mccs, res = best_time(lambda: mccs(mu_cal, y_cal, mu_test, conditions, q=Q, u=u),
                                repeat)
    np.testing.assert_array_equal(res.pvalues, p)
    scipy_sel = false_discovery_control(p.ravel(), method="bh").reshape(p.shape) <= Q
    np.testing.assert_array_equal(sel, scipy_sel)
    ms = min(m, slice_m)
    sub_test = [t[:ms] for t in test_list]
    t_pair, (_, p_pair) = best_time(lambda: pairwise_pvalues(cal_list, sub_test, u[:ms]), 1)
    ms_loop = min(ms, max(200, slice_m // 10))
    loop_test = [t[:ms_loop] for t in test_list]
    t_loop, (_, p_loop) = best_time(lambda: loop_pandas_pvalues(cal_list, loop_test, u[:ms_loop]),
                                    1)
    np.testing.assert_allclose(p_pair, p[:ms], rtol=1e-12)
    np.testing.assert_allclose(p_loop, p[:ms_loop], rtol=1e-12)
    t_pair_m = t_pair * m / ms
    t_loop_m = t_loop * m / ms_loop
    return {
        "n": n, "m": m, "K": K, "selected pairs": int(sel.sum()),
        "statlearn p+BH (s)": t_ours, "mccs() (s)": t_mccs,
        "pairwise (s)": t_pair_m, "loop+pandas (s)": t_loop_m,
        "pairwise / statlearn": t_pair_m / t_ours,
        "loop+pandas / statlearn": t_loop_m / t_ours,
        "extrapolated": ms < m or ms_loop < m,
    }


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true",
                        help="n = 10,000 and m up to 100,000 instead of n = 100,000, m to 1e6")
    args = parser.parse_args(argv)
    if args.quick:
        n, grid, repeat, slice_m = 10_000, [(10_000, 1), (100_000, 1), (10_000, 4),
                                            (10_000, 16)], 2, 2_000
    else:
        n, grid, repeat, slice_m = 100_000, [(10_000, 1), (100_000, 1), (1_000_000, 1),
                                             (100_000, 10), (100_000, 40),
                                             (1_000_000, 10)], 2, 1_000
    conformal_pvalues(np.zeros(3), np.zeros(3))  # compile the kernels outside the timings
    conformal_pvalues(np.zeros(1 << 17), np.zeros(3))
    rows = [run(n, m, K, repeat, slice_m) for m, K in grid]
    table = pd.DataFrame(rows)
    with pd.option_context("display.width", 200, "display.max_columns", 20):
        print(table.to_string(index=False, float_format=lambda v: f"{v:.4g}"))
    # growth: time per hypothesis and the ratio between consecutive sizes
    base = table.iloc[0]
    print("\nGrowth of statlearn p+BH time against the first row "
          f"(n = {int(base['n'])}, m = {int(base['m'])}, K = {int(base['K'])}):")
    for _, r in table.iterrows():
        size = r["m"] * r["K"] / (base["m"] * base["K"])
        print(f"  m = {int(r['m']):>8}, K = {int(r['K']):>3}: {size:>6.0f}x hypotheses, "
              f"{r['statlearn p+BH (s)'] / base['statlearn p+BH (s)']:>7.1f}x time")
    if not args.quick:
        print("\nGrowth in n (m = 100,000, K = 1):")
        for n_ in (10_000, 100_000, 1_000_000):
            mu_cal, y_cal, mu_test, conds = make_problem(n_, 100_000, 1)
            s_cal, s_test = condition_scores(mu_cal, y_cal, mu_test, *conds[0])
            t, _ = best_time(lambda c=s_cal, t=s_test: bh_select(conformal_pvalues(t, c), Q),
                             repeat)
            print(f"  n = {n_:>8}: {t:.4f} s")


if __name__ == "__main__":
    main()

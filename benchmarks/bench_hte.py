"""Relative-error evaluation: pairwise comparison of K candidates and cross-fitting cost.

1. Pairwise table. For ``n`` units and ``K`` candidates with shared nuisances,
   :meth:`statlearn.hte.RelativeErrorEvaluator.compare` computes all
   ``K (K - 1) / 2`` relative errors from the covariance of the K DR-losses
   (one ``(K, n) @ (n, K)`` product). The alternative a user would write is a
   loop over pairs calling :func:`statlearn.hte.relative_error_from_nuisances`
   (the same estimator pair by pair). Both use the same nuisance values; the
   nuisance fit is excluded from both timings. Ratios above 1 mean the
   vectorised table is faster.
2. Cross-fitting. Wall time of the 5-fold cross-fitted plug-in nuisances
   (logistic propensity, per-arm gradient boosting, one thread per process)
   with ``n_jobs=1`` and ``n_jobs=-1`` (joblib processes), and how it grows
   with ``n``. The speed-up is bounded by the number of cores and the 5 folds.

3. Scoring. ``DRScorer.loss``, ``RScorer.loss`` (three candidates given as
   predictions at the fitted ``X``) and :func:`statlearn.hte.relative_error_from_nuisances`
   against the plain NumPy formula on the same arrays (the loss, or the
   estimate, its standard error and the effective sample size); ratios above
   1 mean statlearn is faster.

Run ``python benchmarks/bench_hte.py`` (n up to 10^6, K up to 20) or
``--quick`` (n up to 10^5, K up to 10); ``--scoring-only`` runs part 3 alone.
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
import pandas as pd
from sklearn.ensemble import GradientBoostingRegressor
from sklearn.linear_model import LogisticRegression
from threadpoolctl import threadpool_limits

from statlearn.datasets import make_hte_reference
from statlearn.hte import RelativeErrorEvaluator, relative_error_from_nuisances
from statlearn.hte._evaluator import pairwise_table


def _best_of(fn, repeat=3):
    best = np.inf
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def _best_pair(f, g, repeat):
    """Best-of times of ``f`` and ``g`` measured alternately (load drifts hit both)."""
    tf = tg = np.inf
    for _ in range(repeat):
        tf = min(tf, _best_of(f, 1))
        tg = min(tg, _best_of(g, 1))
    return tf, tg


def _table(T, d, names):
    # no clipping (clip=1e-12), as in relative_error_from_nuisances with the true propensity
    return pairwise_table(T, d.treatment.astype(float), d.y, d.mu0, d.mu1, d.propensity,
                          1e-12, None, 0.1, names)


def _loop(T, d):
    K = T.shape[1]
    return [relative_error_from_nuisances(T[:, i], T[:, j], d.treatment, d.y, d.mu0, d.mu1,
                                          d.propensity).delta
            for i in range(K) for j in range(i + 1, K)]


def bench_pairwise(ns, ks):
    rows = []
    for n in ns:
        d = make_hte_reference(n, random_state=0)
        rng = np.random.default_rng(1)
        for K in ks:
            T = d.tau[:, None] + rng.normal(0, np.linspace(0.1, 1.0, K), size=(n, K))
            names = [f"c{k}" for k in range(K)]
            # same numbers from both
            ref = np.array(_loop(T, d))
            assert np.allclose(_table(T, d, names)["delta"].to_numpy(), ref, rtol=1e-9,
                               atol=1e-12)
            rep = 1 if n * K > 5e6 else 3
            t_tab = _best_of(lambda T=T, d=d, names=names: _table(T, d, names), rep)
            t_loop = _best_of(lambda T=T, d=d: _loop(T, d), rep)
            rows.append({"n": n, "K": K, "pairs": K * (K - 1) // 2, "table_s": t_tab,
                         "loop_s": t_loop, "ratio loop/table": t_loop / t_tab})
    return pd.DataFrame(rows)


def bench_cross_fit(ns):
    rows = []
    for n in ns:
        d = make_hte_reference(n, random_state=0)
        kw = dict(tau1=d.candidates["const"], tau2=d.candidates["noisy"])
        times = {}
        for jobs in (1, -1):
            ev = RelativeErrorEvaluator(
                propensity_model=LogisticRegression(),
                outcome_model=GradientBoostingRegressor(n_estimators=50, max_depth=3),
                cross_fit=5, n_jobs=jobs, random_state=0)
            t = time.perf_counter()
            # one BLAS/OpenMP thread per process, so that only joblib parallelises
            with warnings.catch_warnings(), threadpool_limits(1):
                warnings.simplefilter("ignore")
                ev.fit(d.X, d.treatment, d.y, **kw)
            times[jobs] = time.perf_counter() - t
        rows.append({"n": n, "n_jobs=1 s": times[1], "n_jobs=-1 s": times[-1],
                     "speed-up": times[1] / times[-1]})
    return pd.DataFrame(rows)


def _plain_relative_error(t1, t2, a, y, mu0, mu1, e):
    psi = mu1 - mu0 + a * (y - mu1) / e - (1 - a) * (y - mu0) / (1 - e)
    varphi = (t1 - t2) * (t1 + t2 - 2.0 * psi)
    delta = varphi.mean()
    se = np.sqrt(np.mean((varphi - delta) ** 2) / varphi.size)
    W = a / e + (1 - a) / (1 - e)
    return delta, se, W.sum() ** 2 / np.sum(W**2)


def _scoring_rows(n, repeat):
    from statlearn.hte import DRScorer, RScorer

    d = make_hte_reference(n, random_state=0)
    cands = [np.asarray(d.candidates[k], dtype=float) for k in ("const", "half", "noisy")]
    dr = DRScorer(cross_fit=None, random_state=0).fit(d.X, d.treatment, d.y)
    rs = RScorer(cross_fit=None, random_state=0).fit(d.X, d.treatment, d.y)
    psi = dr.pseudo_outcomes_
    a, y, m, e = rs.treatment_, rs.y_, rs.m_, rs.propensity_
    t1, t2 = cands[0], cands[2]
    nu = (d.treatment.astype(float), d.y, d.mu0, d.mu1, d.propensity)
    cases = {
        "DRScorer.loss": (lambda: [dr.loss(c) for c in cands],
                          lambda: [float(np.mean((psi - c) ** 2)) for c in cands]),
        "RScorer.loss": (lambda: [rs.loss(c) for c in cands],
                         lambda: [float(np.mean(((y - m) - (a - e) * c) ** 2)) for c in cands]),
        "relative_error_from_nuisances": (lambda: relative_error_from_nuisances(t1, t2, *nu),
                                          lambda: _plain_relative_error(t1, t2, *nu)),
    }
    rows = []
    for name, (ours, plain) in cases.items():
        got, ref = ours(), plain()
        got = [got.delta, got.se, got.ess] if hasattr(got, "delta") else got
        assert np.allclose(got, ref, rtol=1e-12, atol=0), name
        t_ours, t_plain = _best_pair(ours, plain, repeat)
        rows.append({"n": n, "call": name, "statlearn_ms": 1e3 * t_ours,
                     "numpy_ms": 1e3 * t_plain, "ratio numpy/statlearn": t_plain / t_ours})
    return rows


def bench_scoring(ns, repeat=25):
    return pd.DataFrame([row for n in ns for row in _scoring_rows(n, repeat)])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="n up to 1e5, K up to 10")
    parser.add_argument("--cross-fit-only", action="store_true", help="skip the pairwise part")
    parser.add_argument("--scoring-only", action="store_true", help="part 3 alone")
    args = parser.parse_args(argv)
    pd.set_option("display.width", 200)
    print("Scoring against the plain NumPy formula (n, three candidates):")
    print(bench_scoring([100_000, 1_000_000]).to_string(index=False, float_format="%.4g"))
    if args.scoring_only:
        return
    if args.quick:
        ns, ks, cf = [10_000, 100_000], [2, 5, 10], [5_000, 20_000]
    else:
        ns, ks, cf = [10_000, 100_000, 1_000_000], [2, 5, 10, 20], [10_000, 100_000]
    pd.set_option("display.width", 200)
    if not args.cross_fit_only:
        print("Pairwise table vs loop over pairs (shared nuisances):")
        print(bench_pairwise(ns, ks).to_string(index=False, float_format="%.4g"))
    print("\nCross-fitting, 5 folds, per-arm gradient boosting:")
    print(bench_cross_fit(cf).to_string(index=False, float_format="%.4g"))


if __name__ == "__main__":
    main()

"""Overhead of :func:`statlearn.simulation.run_study` against a plain loop.

What a user would otherwise write is a ``for`` loop over settings and
replications (or ``joblib.Parallel`` directly). This measures, in one run, the
runner's cost per replication with and without the SQLite store, and the
speed-up from two loky workers on a replication that does real work.

Usage: ``python benchmarks/bench_simulation.py [--quick]``
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

import numpy as np
from _cli import quick_flag

from statlearn.simulation import run_study
from statlearn.studies.conformal_coverage import coverage_replication


def _plain_loop(fn, settings, n_reps, seed):
    rows = []
    for i, s in enumerate(settings):
        for r in range(n_reps):
            rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(i, r)))
            rows.append(fn(s, rng))
    return rows


def _time(f, repeat=3):
    best = np.inf
    for _ in range(repeat):
        t0 = time.perf_counter()
        f()
        best = min(best, time.perf_counter() - t0)
    return best


def main(quick: bool) -> None:
    light = [{"model": "oracle", "n": 50, "alpha": 0.1}]
    heavy = [{"model": "ridge", "n": 500, "alpha": 0.1}]
    n_light = 2000 if quick else 20000
    n_heavy = 100 if quick else 1000
    rows = []
    base = _time(lambda: _plain_loop(coverage_replication, light, n_light, 0))
    t_seq = _time(lambda: run_study(coverage_replication, light, n_light, 0, progress=False,
                                    backend="sequential"))
    with tempfile.TemporaryDirectory() as d:
        t_store = _time(lambda: run_study(coverage_replication, light, n_light, 0,
                                          progress=False, backend="sequential",
                                          store=Path(d) / f"s{time.perf_counter_ns()}.sqlite"),
                        repeat=1)
    rows += [("plain loop (light replication)", base, 1.0),
             ("run_study sequential", t_seq, t_seq / base),
             ("run_study sequential + SQLite store", t_store, t_store / base)]
    base_h = _time(lambda: _plain_loop(coverage_replication, heavy, n_heavy, 0), repeat=1)
    t_loky = _time(lambda: run_study(coverage_replication, heavy, n_heavy, 0, progress=False,
                                     n_jobs=2, backend="loky"), repeat=1)
    rows += [("plain loop (ridge replication)", base_h, 1.0),
             ("run_study loky, 2 workers", t_loky, t_loky / base_h)]
    print(f"{'case':42s} {'seconds':>9s} {'time / plain loop':>18s}")
    for name, t, ratio in rows:
        print(f"{name:42s} {t:9.3f} {ratio:18.2f}")
    print(f"\nper-replication overhead: sequential {1e6 * (t_seq - base) / n_light:.0f} us, "
          f"with store {1e6 * (t_store - base) / n_light:.0f} us")


if __name__ == "__main__":
    main(quick_flag(__doc__))

"""Test MSE of the aggregated HTE learner relative to its best candidate.

For each generator of :mod:`statlearn.datasets` (the reference design, Nie &
Wager's setups A and D, the IHDP-like design) and each candidate set (a good
and a deliberately bad candidate; four near-equal ones; three complementary
ones with independent errors), each seed splits the units 35% / 35% / 30%:
candidates are trained on the first part, :class:`statlearn.hte.RelativeErrorHTE`
aggregates them on the second, and every method is scored against the true
CATE on the third (see
:func:`statlearn.studies.hte_evaluation.hte_aggregation_replication`).
The table gives, per setting and method, the mean and the maximum over seeds
of ``MSE(method) / MSE(best candidate)`` (the best candidate chosen with the
truth, per seed), the ratio of the mean MSEs and the share of seeds where the
learner beats the best candidate.

Run ``python benchmarks/bench_hte_aggregation.py`` (20 seeds), ``--seeds 3``, or
``--quick`` (3 seeds, as ``run_all.py`` runs it); ``--out file.csv`` keeps the
per-seed numbers.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pandas as pd

from statlearn.studies.hte_evaluation import (
    AGG_CANDIDATES,
    AGG_DATA,
    aggregation_table,
    hte_aggregation_replication,
)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--out", default=None)
    parser.add_argument("--data", nargs="*", default=list(AGG_DATA))
    parser.add_argument("--quick", action="store_true", help="3 seeds")
    args = parser.parse_args(argv)
    if args.quick:
        args.seeds = min(args.seeds, 3)
    rows = []
    t0 = time.perf_counter()
    for data in args.data:
        for kind in AGG_CANDIDATES:
            for seed in range(args.seeds):
                out = hte_aggregation_replication({"data": data, "candidates": kind},
                                                  np.random.default_rng([seed, 2026]))
                rows.append({"data": data, "candidates": kind, "seed": seed, **out})
            if args.out:
                pd.DataFrame(rows).to_csv(args.out, index=False)
            print(f"{data} / {kind}: done ({time.perf_counter() - t0:.0f} s)", flush=True)
    tab = pd.DataFrame(rows)
    pd.set_option("display.width", 200)
    print(aggregation_table(tab).round(3).to_string(index=False))


if __name__ == "__main__":
    main()

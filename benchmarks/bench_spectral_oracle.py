"""Clustering oracle (answer q queries) against scikit-learn's SpectralClustering (whole graph).

For stochastic block models with ``k = 3`` blocks, average degree about 20
inside and 1 across, and ``n`` growing, it measures

* the oracle: construction time, time to answer ``q`` random queries, the
  words it counts (``peak_memory_words_``) and the peak resident memory
  added on top of the loaded graph (sampled every 5 ms);
* :class:`sklearn.cluster.SpectralClustering` (``affinity="precomputed"``,
  ``cluster_qr`` labels) on the whole graph: time and added memory, with the
  LOBPCG eigensolver (the fast choice for large sparse graphs) and, in the
  full run at ``n = 10**4`` only, the default ARPACK solver (shift-invert
  needs a sparse LU factorisation of the Laplacian; it took 160 s at
  ``n = 10**4`` on the development machine, against 0.2 s for LOBPCG).

Each measurement runs in a fresh process (the graph is written to a
temporary ``.npz`` file first), after a warm-up that loads the compiled
kernels. Ratios above 1 mean the oracle is cheaper. The oracle runs with
its defaults: walk length from the eigen-gap rule (its cost is part of the
build time), ``b = ceil(sqrt(n))``, ``R = 4 n / b``.

A second table times the walk engines on the same batch of estimates: the
parallel Numba kernel against the vectorised array-API path on NumPy (the
same code runs on CuPy when ``backend="cupy"``).

Run ``python benchmarks/bench_spectral_oracle.py`` (``n`` up to ``10**6``)
or ``--quick`` (``n`` up to 30,000).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time

import numpy as np
import pandas as pd
import scipy.sparse as sp

K = 3
WALK_LENGTH = 16


def _rss_bytes():
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


class PeakRSS:
    """Samples the resident set size in a thread; ``peak - base`` is the memory added."""

    def __enter__(self):
        self.base = self.peak = _rss_bytes()
        self._stop = False
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        return self

    def _run(self):
        while not self._stop:
            self.peak = max(self.peak, _rss_bytes())
            time.sleep(0.005)

    def __exit__(self, *exc):
        self._stop = True
        self._thread.join()
        self.peak = max(self.peak, _rss_bytes())
        return False

    @property
    def added_mb(self):
        return (self.peak - self.base) / 2**20


def make_graph(n, seed=0):
    from statlearn.datasets import make_sbm_graph

    block = n // K
    A, y = make_sbm_graph([block] * K, 20 / block, 0.5 / block, random_state=seed,
                          dtype=np.float64)
    return A, y


ORACLES = {
    "low-memory": {},  # b = ceil(sqrt(n)), R = 4 n / b: walk buffer sqrt(n) words
    "prior": {"mode": "prior"},  # all R = ceil(sqrt(4 n)) endpoints of both sides: 4 sqrt(n)
}


def _warm_up():
    from statlearn.cluster import estimate_collision_probabilities
    from statlearn.cluster._graph import as_graph_access
    from statlearn.datasets import make_sbm_graph

    warm, _ = make_sbm_graph([30] * K, 0.3, 0.01, random_state=0)
    as_graph_access(warm)
    for prior in (False, True):
        estimate_collision_probabilities(warm, [0, 1], [2, 3], walk_length=4, n_walks=8,
                                         prior=prior, random_state=0)


def worker(method, path, n_queries):
    data = np.load(path)
    A = sp.csr_array((data["data"], data["indices"], data["indptr"]), shape=tuple(data["shape"]))
    y = data["labels"]
    n = A.shape[0]
    from statlearn.cluster import SpectralClusteringOracle
    from statlearn.studies.spectral_oracle import label_accuracy

    out = {"method": method, "n": n}
    if method in ORACLES:
        _warm_up()
        queries = np.random.default_rng(1).choice(n, size=n_queries, replace=False)
        with PeakRSS() as mem:
            t0 = time.perf_counter()
            oracle = SpectralClusteringOracle(K, random_state=0, **ORACLES[method]).fit(A)
            t1 = time.perf_counter()
            pred = oracle.predict(queries)
            t2 = time.perf_counter()
        one = time.perf_counter()
        oracle.which_cluster(int(queries[0]))
        one = time.perf_counter() - one
        steps = oracle.walk_steps_per_query_
        out.update(build_s=t1 - t0, query_s=(t2 - t1) / n_queries, single_query_s=one,
                   added_mb=mem.added_mb, words=oracle.peak_memory_words_,
                   buffer_words=oracle.walk_buffer_words_,
                   accuracy=label_accuracy(pred, y[queries], K), steps_per_query=steps,
                   steps_fit=oracle.walk_steps_fit_, t=oracle.walk_length_,
                   ns_per_step=1e9 * (t2 - t1) / (n_queries * steps))
    else:
        from sklearn.cluster import SpectralClustering

        solver = method.split("-")[1]
        with PeakRSS() as mem:
            t0 = time.perf_counter()
            labels = SpectralClustering(n_clusters=K, affinity="precomputed",
                                        assign_labels="cluster_qr", eigen_solver=solver,
                                        random_state=0).fit_predict(A)
            t1 = time.perf_counter()
        out.update(total_s=t1 - t0, added_mb=mem.added_mb, accuracy=label_accuracy(labels, y, K))
    print(json.dumps(out))


def run_worker(method, path, n_queries, timeout):
    cmd = [sys.executable, __file__, "--worker", method, path, str(n_queries)]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"method": method, "error": f"timeout > {timeout} s"}
    if proc.returncode != 0:
        return {"method": method, "error": proc.stderr.strip().splitlines()[-1][:80]}
    return json.loads(proc.stdout.strip().splitlines()[-1])


def break_even(build_s, query_s, sklearn_s):
    """Largest ``q`` with ``build + q * query <= sklearn`` (``0`` if the build alone is slower)."""
    if build_s >= sklearn_s:
        return 0
    return int((sklearn_s - build_s) // query_s)


def engines_table(quick):
    """Numba kernel against the array-API path on the same estimates."""
    from statlearn.cluster import estimate_collision_probabilities

    A, _ = make_graph(30_000 if quick else 300_000, seed=1)
    n_pairs = 200 if quick else 1000
    x = np.random.default_rng(0).integers(0, A.shape[0], size=n_pairs)
    rows = []
    kw = dict(walk_length=WALK_LENGTH, n_walks=256, batch_size=64, random_state=0)
    estimate_collision_probabilities(A, x[:2], x[:2], **kw)  # load kernels
    times = {}
    for backend in ("numba", "numpy"):
        t0 = time.perf_counter()
        z = estimate_collision_probabilities(A, x, x[::-1], backend=backend, **kw)
        times[backend] = time.perf_counter() - t0
        steps = n_pairs * 2 * 256 * WALK_LENGTH
        rows.append({"engine": backend, "estimates": n_pairs, "walk steps": steps,
                     "seconds": times[backend], "ns/step": 1e9 * times[backend] / steps,
                     "checksum": float(z.sum())})
    table = pd.DataFrame(rows)
    table["speed-up of numba"] = times["numpy"] / table["seconds"]
    return table


def _slope(x, y):
    x, y = np.asarray(x, float), np.asarray(y, float)
    ok = np.isfinite(y) & (y > 0)
    return np.polyfit(np.log(x[ok]), np.log(y[ok]), 1) if ok.sum() > 1 else None


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--worker", nargs=3, metavar=("METHOD", "PATH", "Q"))
    args = parser.parse_args(argv)
    if args.worker:
        worker(args.worker[0], args.worker[1], int(args.worker[2]))
        return 0
    ns = [10_000, 30_000, 100_000] if args.quick else [10_000, 100_000, 1_000_000]
    n_queries = 20
    timeout = 600 if args.quick else 3600
    rows, per_n = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for n in ns:
            A, y = make_graph(n)
            path = os.path.join(tmp, f"g{n}.npz")
            np.savez(path, data=A.data, indices=A.indices, indptr=A.indptr,
                     shape=np.array(A.shape), labels=y)
            graph_mb = (A.data.nbytes + A.indices.nbytes + A.indptr.nbytes) / 2**20
            del A
            skl = run_worker("sklearn-lobpcg", path, 0, timeout)
            summary = {"n": n, "graph MB": graph_mb, "sklearn s": skl.get("total_s"),
                       "sklearn +MB": skl.get("added_mb"), "sklearn acc": skl.get("accuracy")}
            if "error" in skl:
                summary["sklearn note"] = skl["error"]
            if n == 10_000 and not args.quick:
                arpack = run_worker("sklearn-arpack", path, 0, timeout)
                summary["sklearn arpack s"] = arpack.get("total_s", arpack.get("error"))
            for name in ORACLES:
                res = run_worker(name, path, n_queries, timeout)
                row = {"n": n, "oracle": name}
                if "error" in res:
                    row["note"] = res["error"]
                else:
                    row.update({"t": res["t"], "build s": res["build_s"],
                                "s/query": res["query_s"], "1 query s": res["single_query_s"],
                                "steps/query": res["steps_per_query"],
                                "ns/step": res["ns_per_step"], "steps build": res["steps_fit"],
                                "buffer words": res["buffer_words"], "words": res["words"],
                                "+MB": res["added_mb"], "acc": res["accuracy"]})
                    if "total_s" in skl:
                        q_star = break_even(res["build_s"], res["query_s"], skl["total_s"])
                        row["q*"] = q_star
                        summary[f"q* {name}"] = q_star
                        summary[f"build/sklearn {name}"] = res["build_s"] / skl["total_s"]
                        summary[f"query/sklearn {name}"] = res["query_s"] / skl["total_s"]
                        summary[f"memory sk/oracle {name}"] = (skl["added_mb"]
                                                               / max(res["added_mb"], 0.1))
                rows.append(row)
                print("  " + ", ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}"
                                       for k, v in row.items()), flush=True)
            per_n.append(summary)
            print(f"n={n} done: " + ", ".join(f"{k}={v:.4g}" if isinstance(v, float) else
                                              f"{k}={v}" for k, v in summary.items()), flush=True)
    table = pd.DataFrame(rows)
    summary = pd.DataFrame(per_n)
    with pd.option_context("display.width", 200, "display.max_columns", 30,
                           "display.float_format", "{:.4g}".format):
        print("\nOracle: build and per-query cost (q = "
              f"{n_queries} random queries answered in one predict call)")
        print(table.to_string(index=False))
        print("\nAgainst SpectralClustering (LOBPCG) on the whole graph; q* = largest number of "
              "queries with build + q* x query <= sklearn (0: the build alone is slower)")
        print(summary.T.to_string(header=False))
        print("\nGrowth with n (log-log slope; the oracle's walk steps grow like sqrt(n) log n "
              "at fixed t, SpectralClustering like n or faster)")
        for name in ORACLES:
            g = table[(table["oracle"] == name) & table["build s"].notna()] if (
                "build s" in table) else table.iloc[:0]
            for col in ("build s", "s/query"):
                fit = _slope(g["n"], g[col]) if len(g) > 1 else None
                if fit is not None:
                    print(f"  {name} {col}: n^{fit[0]:.2f}")
        fit_sk = _slope(summary["n"], summary["sklearn s"])
        if fit_sk is not None:
            print(f"  sklearn s: n^{fit_sk[0]:.2f}")
        for name in ORACLES:
            g = table[(table["oracle"] == name) & table["build s"].notna()] if (
                "build s" in table) else table.iloc[:0]
            fit_b = _slope(g["n"], g["build s"]) if len(g) > 1 else None
            if fit_b is None or fit_sk is None or fit_sk[0] <= fit_b[0]:
                continue
            # power laws a n^p (oracle build) and c n^r (sklearn) cross at log n = (a - c)/(r - p)
            log_n = (fit_b[1] - fit_sk[1]) / (fit_sk[0] - fit_b[0])
            print(f"  {name}: the fitted power laws put build time = sklearn time near "
                  f"n = {np.exp(log_n):.1g} (extrapolated, not measured; the graph would "
                  "not fit in this machine's memory for sklearn long before)")
        wins = []
        for _, r in summary.iterrows():
            parts = []
            for name in ORACLES:
                q_star = r.get(f"q* {name}")
                mem = r.get(f"memory sk/oracle {name}")
                if pd.isna(q_star):
                    continue
                parts.append(f"{name}: time {'up to q=' + str(int(q_star)) if q_star else 'never'}"
                             f", memory {mem:.1f}x less" if mem > 1 else
                             f"{name}: time {'up to q=' + str(int(q_star)) if q_star else 'never'}"
                             f", memory {1 / mem:.1f}x more")
            wins.append(f"n={int(r['n'])}: " + "; ".join(parts))
        print("\nwhere the oracle wins:\n  " + "\n  ".join(wins))
        print("\nWalk engines on the same estimates")
        print(engines_table(args.quick).to_string(index=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())

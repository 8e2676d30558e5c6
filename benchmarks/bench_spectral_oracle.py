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


def worker(method, path, n_queries):
    data = np.load(path)
    A = sp.csr_array((data["data"], data["indices"], data["indptr"]), shape=tuple(data["shape"]))
    y = data["labels"]
    n = A.shape[0]
    from statlearn.cluster import SpectralClusteringOracle
    from statlearn.studies.spectral_oracle import label_accuracy

    out = {"method": method, "n": n}
    if method == "oracle":
        from statlearn.cluster import estimate_collision_probabilities
        from statlearn.datasets import make_sbm_graph

        warm, _ = make_sbm_graph([30] * K, 0.3, 0.01, random_state=0)  # loads the kernels
        estimate_collision_probabilities(warm, [0, 1], [2, 3], walk_length=4, n_walks=8,
                                         random_state=0)
        queries = np.random.default_rng(1).choice(n, size=n_queries, replace=False)
        with PeakRSS() as mem:
            t0 = time.perf_counter()
            oracle = SpectralClusteringOracle(K, random_state=0).fit(A)
            t1 = time.perf_counter()
            pred = oracle.predict(queries)
            t2 = time.perf_counter()
        out.update(build_s=t1 - t0, query_s=t2 - t1, total_s=t2 - t0, added_mb=mem.added_mb,
                   words=oracle.peak_memory_words_, accuracy=label_accuracy(pred, y[queries], K),
                   steps_per_query=oracle.walk_steps_per_query_, t=oracle.walk_length_)
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
        rows.append({"engine": backend, "estimates": n_pairs,
                     "walk steps": n_pairs * 2 * 256 * WALK_LENGTH,
                     "seconds": times[backend], "checksum": float(z.sum())})
    table = pd.DataFrame(rows)
    table["speed-up of numba"] = times["numpy"] / table["seconds"]
    return table


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--worker", nargs=3, metavar=("METHOD", "PATH", "Q"))
    args = parser.parse_args(argv)
    if args.worker:
        worker(args.worker[0], args.worker[1], int(args.worker[2]))
        return 0
    ns = [10_000, 30_000] if args.quick else [10_000, 100_000, 1_000_000]
    n_queries = 20
    timeout = 600 if args.quick else 3600
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in ns:
            A, y = make_graph(n)
            path = os.path.join(tmp, f"g{n}.npz")
            np.savez(path, data=A.data, indices=A.indices, indptr=A.indptr,
                     shape=np.array(A.shape), labels=y)
            graph_mb = (A.data.nbytes + A.indices.nbytes + A.indptr.nbytes) / 2**20
            del A
            orc = run_worker("oracle", path, n_queries, timeout)
            skl = run_worker("sklearn-lobpcg", path, 0, timeout)
            arpack = (run_worker("sklearn-arpack", path, 0, timeout)
                      if n == 10_000 and not args.quick else {})
            row = {"n": n, "graph MB": graph_mb,
                   "oracle build s": orc.get("build_s"), "oracle s/query": (
                       orc["query_s"] / n_queries if "query_s" in orc else None),
                   f"oracle total s (q={n_queries})": orc.get("total_s"),
                   "oracle +MB": orc.get("added_mb"), "oracle words": orc.get("words"),
                   "t": orc.get("t"),
                   "oracle acc": orc.get("accuracy"),
                   "sklearn s": skl.get("total_s"), "sklearn +MB": skl.get("added_mb"),
                   "sklearn acc": skl.get("accuracy")}
            if arpack:
                row["sklearn arpack s"] = arpack.get("total_s")
                row["sklearn arpack +MB"] = arpack.get("added_mb")
            if "total_s" in orc and "total_s" in skl:
                row["time ratio sk/oracle"] = skl["total_s"] / orc["total_s"]
                row["break-even q"] = max(0.0, (skl["total_s"] - orc["build_s"])
                                          / (orc["query_s"] / n_queries))
                row["memory ratio sk/oracle"] = skl["added_mb"] / max(orc["added_mb"], 0.1)
            for tag, res in (("oracle", orc), ("sklearn", skl), ("arpack", arpack)):
                if "error" in res:
                    row[f"{tag} note"] = res["error"]
            rows.append(row)
            print(f"n={n} done: " + ", ".join(f"{k}={v:.4g}" if isinstance(v, float) else
                                              f"{k}={v}" for k, v in row.items()), flush=True)
    table = pd.DataFrame(rows)
    with pd.option_context("display.width", 200, "display.max_columns", 30,
                           "display.float_format", "{:.4g}".format):
        print("\nOracle (build + q queries) vs SpectralClustering (LOBPCG) on the whole graph")
        print(table.T.to_string(header=False))
        if len(table) > 1:
            g = table.dropna(subset=["oracle build s"])
            if len(g) > 1:
                slope = np.polyfit(np.log(g["n"]), np.log(g["oracle build s"]), 1)[0]
                print(f"\noracle build time grows like n^{slope:.2f} "
                      "(theory: sqrt(n) log n walks per estimate at b = sqrt(n))")
            g = table.dropna(subset=["sklearn s"])
            if len(g) > 1:
                slope = np.polyfit(np.log(g["n"]), np.log(g["sklearn s"]), 1)[0]
                print(f"SpectralClustering time grows like n^{slope:.2f}")
        wins = []
        for _, r in table.iterrows():
            if pd.notna(r.get("time ratio sk/oracle")):
                what = [name for name, key in (("time", "time ratio sk/oracle"),
                                               ("memory", "memory ratio sk/oracle"))
                        if r[key] > 1]
                wins.append(f"n={int(r['n'])}: " + (" and ".join(what) or "neither"))
        print(f"\nwhere the oracle wins (q = {n_queries} queries): {'; '.join(wins)}")
        print("\nWalk engines on the same estimates")
        print(engines_table(args.quick).to_string(index=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())

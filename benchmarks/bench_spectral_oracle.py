"""Clustering oracle (build, then q queries) vs scikit-learn's SpectralClustering (whole graph).

For stochastic block models with ``k = 3`` blocks, average degree about 20
inside and 0.5 across, and ``n`` growing, it measures

* the oracle in two modes, with its defaults otherwise (``random_state=0``):
  ``"low-memory"`` (``b = ceil(sqrt(n))`` walks per batch, ``R = 4 n / b``
  walks per side, walk buffer ``sqrt(n)`` words) and ``"prior"`` (the earlier
  oracles: all ``R = ceil(sqrt(4 n))`` endpoints of both sides, buffer
  ``4 sqrt(n)`` words, half the walk steps). For each: the build time (the
  eigen-gap walk-length search included), the time per query (20 random
  queries in one ``predict`` call, and one ``which_cluster`` call), walk
  steps per query and the time per step, the words the algorithm counts
  (``peak_memory_words_``), the peak resident memory added on top of the
  loaded graph (sampled every 5 ms) and the accuracy on the queries;
* :class:`sklearn.cluster.SpectralClustering` (``affinity="precomputed"``,
  ``cluster_qr`` labels) on the whole graph with the LOBPCG eigensolver (the
  fast choice for large sparse graphs): time, added memory, accuracy; in the
  full run at ``n = 10**4`` also the default ARPACK solver (56 s there);
* the break-even number of queries ``q*``: the largest ``q`` with
  ``build + q * per-query <= SpectralClustering`` (0 when the build alone is
  slower), and the growth of every cost with ``n``.

Each measurement runs in a fresh process (the graph is written to a
temporary ``.npz`` file first), after a warm-up that loads the compiled
kernels. A last table times the walk engines on the same estimates: the
parallel Numba kernel against the vectorised array-API path on NumPy (the
same code runs on CuPy when ``backend="cupy"``).

Measured on a shared 2-core machine (full run; every run labelled its
queries, and SpectralClustering all vertices, correctly)::

    n          SpectralClustering  low-memory: build, per query  prior: build, per query
    10,000     0.20 s, +12 MB      5.2 s, 0.040 s (t = 32)       3.1 s, 0.022 s
    100,000    1.5 s,  +85 MB      59 s,  0.44 s  (t = 64)       26 s,  0.28 s
    1,000,000  14.5 s, +803 MB     329 s, 4.0 s   (t = 64)       160 s, 1.9 s

The oracle adds 4-5 MB at every size (6,700-10,600 counted words): it wins
on memory, 3x, 19x and about 160x. It loses on time at every size: ``q* = 0``
(the build alone takes 11-40 times as long as SpectralClustering, one query
11-30% of it). Walk steps per query: 11, 91 and 349 million (low-memory;
half in prior mode), at 4-6 ns per step on 2 cores while the graph fits in
cache and 11 ns at ``n = 10**6``. Before the kernels advanced 16 walks at
once per thread, the same steps cost 9-14 ns (n = 10**5) and 21 ns
(n = 10**6: 680 s build, 7.4 s per query). From ``n = 10**5`` to ``10**6``
the build grew 5.6x against 9.8x for SpectralClustering.

Fast mode (``mode="fast"``: landmark walks stored once, one walk set per
query, 1,000 queries in one ``predict`` call; walks continued across the
walk-length candidates, endpoints in one sorted int32 index), measured with
``--oracles fast,fast-certified --sizes 1e5,1e6 --skip-arpack`` while the
machine was shared (load 5-8 on 2 cores; both sides under the same load),
accuracy 1.0 everywhere::

    n          SC lobpcg         SC amg            fast: build, per query, +MB   q* (lobpcg, amg)
    100,000    20.1 s, +86 MB    28.9 s, +534 MB   2.1 s, 2.9 ms, +5.0 MB        6,251, 9,268
    1,000,000  61.5 s, +804 MB   769 s, +11.4 GB   7.7 s, 14 ms, +9.1 MB         3,820, 53,987
    10^7       not run           not run           114 s, 0.23 s, +50 MB         --

At ``n = 10**7`` (``--sizes 1e7``, opt-in: the graph is drawn in the worker
by :func:`make_graph_lean`, SpectralClustering is not run, about 8 GB by
extrapolation) the default walk lengths are refused (gap ratio 1.7 at
``t = 64``, 1.1 at 128); the run uses ``LEAN_FAST`` (a finer grid) and twice
the default walks: t = 90, 2.6 million steps per query, accuracy 1.0 on 1,000
queries, about 45 s of the build is the symmetry check of the input. At
``n = 10**6`` build plus 1,000 queries took 0.35x SpectralClustering's time
(lobpcg) with 88x less added memory (target 50x).

With ``error_rate=0.01`` (certified answers) a query costs about 7x more. Select
modes and sizes with ``--oracles fast,fast-certified --sizes 1e5,1e6``;
``--skip-arpack`` skips the slow ARPACK run. SpectralClustering with the AMG
solver is timed when ``pyamg`` is installed.

``--degrees`` compares the two walks of the oracle (``walk="d-bounded"`` and
``"degree-normalised"``, fast mode, threshold graph or k-means on the
landmarks; the normalised walk also with ``n_walks="auto"``, and with
``laziness=0.1``, fixed and automatic ``n_walks``, and with
``walk_length_rule="noise-floor"``) with
SpectralClustering on graphs with heterogeneous degrees: the karate club, the
digits 10-NN graph, networkx LFR graphs (``n = 10**3``, ``10**4`` and
``10**5``, ``mu = 0.1, 0.2, 0.3``, degree exponents 2.5 and 3; at ``10**5``
networkx raised ``ExceededMaxIterations`` for seeds 0 to 3 with exponent 2.5;
each seed is time-boxed to 600 s there) and degree-corrected SBMs (``n = 10**5``;
``10**6`` in the full run): ARI against the truth on 1,000 random vertices, build plus 1,000 queries
time and added memory, each in a fresh process (``--graphs`` selects graphs by
name, only those are drawn; ``--methods`` selects methods, and runs
``normalised/kmeans/lazy0.1/floor/256R0``, 256 times the fast default walks,
only when named; ``--quick`` keeps
``n = 1000`` LFR and ``n = 10**5`` DC-SBM). Results: the user guide, section
"Graphs with heterogeneous degrees".

Run ``python benchmarks/bench_spectral_oracle.py`` (``n`` up to ``10**6``,
about 15 minutes) or ``--quick`` (``n`` up to ``10**5``, about 2.5 minutes).
"""

from __future__ import annotations

import argparse
import importlib.util
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


#: from this size on the graph is drawn in the worker by :func:`make_graph_lean` and
#: SpectralClustering is not run (about 8 GB at n = 10**7, extrapolated from n = 10**6)
LEAN_FROM = 5_000_000


#: fast mode from LEAN_FROM on: the default power-of-two walk lengths miss the narrow
#: window at n = 10**7 (t = 64 has not mixed inside the blocks, t = 128 has leaked across:
#: gap ratios 1.7 and 1.1, construction refused); a finer grid and twice the default
#: walks (ratio 4.1 at t = 76) build it
LEAN_FAST = {"walk_length_candidates": [64, 76, 90, 107, 128]}


def make_graph_lean(n, seed=0):
    """The SBM of :func:`make_graph` with int32 indices and int8 ones, for very large ``n``.

    Every block gets ``Binomial(m (m - 1) / 2, p)`` edges and every pair of
    blocks ``Binomial(m_a m_b, q)``, each a uniform pair of distinct vertices;
    the rare repeated pairs (about a hundred per block at ``n = 10**7``) are
    merged, so the graph is simple. Peak memory is about three times the
    final CSR arrays (1.1 GB at ``n = 10**7``): no int64 or float64 arrays of
    the size of the edge list.
    """
    rng = np.random.default_rng(seed)
    block = n // K
    p, q = 20 / block, 0.5 / block
    rows, cols = [], []
    for a in range(K):
        m = block
        cnt = int(rng.binomial(m * (m - 1) // 2, p))
        i = rng.integers(0, m, size=cnt, dtype=np.int32)
        j = rng.integers(0, m - 1, size=cnt, dtype=np.int32)
        j += j >= i  # a uniform vertex other than i
        rows.append(i + np.int32(a * block))
        cols.append(j + np.int32(a * block))
        for b in range(a + 1, K):
            cnt = int(rng.binomial(m * block, q))
            rows.append(rng.integers(0, m, size=cnt, dtype=np.int32) + np.int32(a * block))
            cols.append(rng.integers(0, block, size=cnt, dtype=np.int32)
                        + np.int32(b * block))
    u = np.concatenate(rows)
    del rows
    v = np.concatenate(cols)
    del cols
    both_r = np.concatenate([u, v])
    both_c = np.concatenate([v, u])
    del u, v
    A = sp.coo_array((np.ones(both_r.size, dtype=np.int8), (both_r, both_c)),
                     shape=(K * block, K * block))
    del both_r, both_c
    A = A.tocsr()  # sums repeated pairs
    A.data[:] = 1
    labels = np.repeat(np.arange(K, dtype=np.int64), block)
    return A, labels


ORACLES = {
    "low-memory": {},  # b = ceil(sqrt(n)), R = 4 n / b: walk buffer sqrt(n) words
    "prior": {"mode": "prior"},  # all R = ceil(sqrt(4 n)) endpoints of both sides: 4 sqrt(n)
    # landmark walks stored once (R = 8 sqrt(n / k) per landmark), one query walk set
    "fast": {"mode": "fast"},
    # the same, queries doubled until the label is certified at error 0.01
    "fast-certified": {"mode": "fast", "error_rate": 0.01},
}
#: queries timed per oracle (one predict call); the slow modes answer fewer
QUERIES = {"low-memory": 20, "prior": 20, "fast": 1000, "fast-certified": 1000}


def _warm_up():
    from statlearn.cluster import estimate_collision_probabilities
    from statlearn.cluster._graph import as_graph_access
    from statlearn.datasets import make_sbm_graph

    warm, _ = make_sbm_graph([30] * K, 0.3, 0.01, random_state=0)
    as_graph_access(warm)
    import warnings

    from statlearn.cluster import OracleConstructionError, SpectralClusteringOracle

    warm, _ = make_sbm_graph([100] * K, 0.2, 0.005, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:  # loads the fast mode's kernels (build and queries)
            for error_rate in (None, 0.01):  # fixed and sequential queries
                o = SpectralClusteringOracle(K, mode="fast", walk_length_candidates=[4, 8],
                                             error_rate=error_rate, random_state=0).fit(warm)
                o.query([0, 150])
        except OracleConstructionError:
            pass
    for prior in (False, True):
        estimate_collision_probabilities(warm, [0, 1], [2, 3], walk_length=4, n_walks=8,
                                         prior=prior, random_state=0)


def worker(method, path, n_queries):
    if path.startswith("lean:"):
        A, y = make_graph_lean(int(path[5:]))
        import gc

        gc.collect()
    else:
        data = np.load(path)
        A = sp.csr_array((data["data"], data["indices"], data["indptr"]),
                         shape=tuple(data["shape"]))
        y = data["labels"]
    n = A.shape[0]
    graph_mb = (A.data.nbytes + A.indices.nbytes + A.indptr.nbytes) / 2**20
    from statlearn.cluster import SpectralClusteringOracle
    from statlearn.studies.spectral_oracle import label_accuracy

    out = {"method": method, "n": n, "graph_mb": graph_mb}
    if method in ORACLES:
        _warm_up()
        queries = np.random.default_rng(1).choice(n, size=n_queries, replace=False)
        with PeakRSS() as mem:
            t0 = time.perf_counter()
            kw = dict(ORACLES[method])
            if n >= LEAN_FROM and kw.get("mode") == "fast":
                kw.update(LEAN_FAST)
                kw["n_walks"] = 2 * int(np.ceil(8 * np.sqrt(n / K)))
            oracle = SpectralClusteringOracle(K, random_state=0, **kw).fit(A)
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
        lines = proc.stderr.strip().splitlines() or [f"exit status {proc.returncode}"]
        return {"method": method, "error": lines[-1][:80]}
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


# ---------------------------------------------------------------- --degrees
#: the oracles of the heterogeneous-degree comparison (fast mode, defaults otherwise)
DEGREE_ORACLES = {
    "d-bounded/threshold": {},
    "d-bounded/kmeans": {"landmark_clustering": "kmeans"},
    "normalised/threshold": {"walk": "degree-normalised"},
    "normalised/kmeans": {"walk": "degree-normalised", "landmark_clustering": "kmeans"},
    "normalised/kmeans/auto": {"walk": "degree-normalised", "landmark_clustering": "kmeans",
                               "n_walks": "auto"},
    # the less lazy walk (laziness 0.1, its finer default walk-length grid)
    "normalised/kmeans/lazy0.1": {"walk": "degree-normalised", "landmark_clustering": "kmeans",
                                  "laziness": 0.1},
    "normalised/kmeans/auto/lazy0.1": {"walk": "degree-normalised",
                                       "landmark_clustering": "kmeans", "n_walks": "auto",
                                       "laziness": 0.1},
    # the walk-length rule that does not wait for the ratio to reach 2
    "normalised/kmeans/auto/floor": {"walk": "degree-normalised", "landmark_clustering": "kmeans",
                                     "n_walks": "auto", "walk_length_rule": "noise-floor"},
    "normalised/kmeans/auto/lazy0.1/floor": {"walk": "degree-normalised",
                                             "landmark_clustering": "kmeans", "n_walks": "auto",
                                             "laziness": 0.1, "walk_length_rule": "noise-floor"},
    # the same with sequential queries: walks double per vertex until its label is certified
    # at error rate 0.05 (or 32 times the walks are reached)
    "normalised/kmeans/auto/lazy0.1/floor/certified": {
        "walk": "degree-normalised", "landmark_clustering": "kmeans", "n_walks": "auto",
        "laziness": 0.1, "walk_length_rule": "noise-floor", "error_rate": 0.05},
    # 256 times the fast default walks R0 = ceil(8 sqrt(n / k)) (the cap of "auto" is 16
    # times), every length from 3 to 11 a candidate: what the n = 1e5, mu = 0.3 LFR row
    # costs (user guide, "the exact walk there")
    "normalised/kmeans/lazy0.1/floor/256R0": {
        "walk": "degree-normalised", "landmark_clustering": "kmeans", "laziness": 0.1,
        "walk_length_rule": "noise-floor", "walk_length_candidates": list(range(3, 12)),
        "walks_over_R0": 256},
    # the same in the batched and prior modes (queries cost s times more walks there)
    "normalised/kmeans/auto/lazy0.1/batched": {"walk": "degree-normalised", "mode": "batched",
                                               "landmark_clustering": "kmeans",
                                               "n_walks": "auto", "laziness": 0.1},
    "normalised/kmeans/auto/lazy0.1/prior": {"walk": "degree-normalised", "mode": "prior",
                                             "landmark_clustering": "kmeans",
                                             "n_walks": "auto", "laziness": 0.1},
}
#: run only when named in ``--methods``: hours on the n = 1e6 graphs
OPT_IN_DEGREE_ORACLES = {"normalised/kmeans/lazy0.1/floor/256R0"}
#: LFR parameters: power-law degrees (exponent tau1), community sizes (exponent 1.5)
#: between n/8 and n/4, mean degree 20, largest degree 3 sqrt(n); the first seed in
#: 0..3 whose generation converges is used (networkx raises or loops otherwise)
LFR_DEFAULTS = {"tau2": 1.5, "average_degree": 20}


def _int32_csr(A):
    A = sp.csr_array(A, dtype=np.float32)
    A.sum_duplicates()
    A.data[:] = 1
    A.indices = A.indices.astype(np.int32)
    A.indptr = A.indptr.astype(np.int32)
    return A


def _lfr(n, tau1, mu, timeout):
    """An LFR graph and its communities, or ``(None, None, note)`` when no seed converges."""
    import signal

    import networkx as nx

    def alarm(*_):
        raise TimeoutError

    old = signal.signal(signal.SIGALRM, alarm)
    notes = []
    try:
        for seed in range(4):
            signal.alarm(timeout)
            try:
                G = nx.LFR_benchmark_graph(n, tau1, LFR_DEFAULTS["tau2"], mu,
                                           average_degree=LFR_DEFAULTS["average_degree"],
                                           max_degree=int(3 * np.sqrt(n)), min_community=n // 8,
                                           max_community=n // 4, seed=seed)
            except (TimeoutError, nx.NetworkXException) as exc:
                notes.append(f"seed {seed}: {type(exc).__name__}")
                continue
            finally:
                signal.alarm(0)
            comms = sorted({frozenset(G.nodes[v]["community"]) for v in G}, key=min)
            y = np.empty(n, dtype=np.int64)
            for i, c in enumerate(comms):
                y[list(c)] = i
            A = nx.to_scipy_sparse_array(G, nodelist=range(n), weight=None, format="csr")
            return _int32_csr(A), y, f"seed {seed}" + (f" ({'; '.join(notes)})" if notes else "")
    finally:
        signal.signal(signal.SIGALRM, old)
    return None, None, "; ".join(notes)


def _digits_knn():
    from sklearn.datasets import load_digits
    from sklearn.neighbors import kneighbors_graph

    X, y = load_digits(return_X_y=True)
    A = kneighbors_graph(X, 10, include_self=False)
    return _int32_csr(((A + A.T) > 0).astype(np.float32)), y.astype(np.int64)


def _karate():
    import networkx as nx

    G = nx.karate_club_graph()
    y = np.array([G.nodes[v]["club"] == "Officer" for v in G], dtype=np.int64)
    return _int32_csr(nx.to_scipy_sparse_array(G, weight=None, format="csr")), y


def degree_graphs(quick, only=None):
    """``(name, A, y, note)`` of the heterogeneous-degree comparison (only the graphs whose
    name contains one of the strings in ``only``, when given; the others are not drawn)."""
    from statlearn.studies.spectral_oracle import make_dcsbm_graph

    def wanted(name):
        return not only or any(o in name for o in only)

    if wanted("karate club"):
        yield ("karate club", *_karate(), "networkx, 2 clubs")
    if wanted("digits 10-NN"):
        yield ("digits 10-NN", *_digits_knn(), "symmetrised, k = 10")
    for n in ([1000] if quick else [1000, 10_000, 100_000]):
        for tau1 in (2.5, 3.0):
            for mu in (0.1, 0.2, 0.3):
                name = f"LFR n={n} tau1={tau1} mu={mu}"
                if wanted(name):
                    yield (name, *_lfr(n, tau1, mu, {1000: 30, 10_000: 300}.get(n, 600)))
    for n in ([100_000] if quick else [100_000, 1_000_000]):
        for mu in (0.1, 0.2):
            name = f"DC-SBM n={n} k=5 mu={mu}"
            if wanted(name):
                A, y = make_dcsbm_graph(n, 5, mu=mu, exponent=2.5, random_state=0)
                yield (name, A, y, "exponent 2.5, mean degree 20")


def degrees_worker(method, path, n_queries):
    """One measurement of the --degrees comparison (fresh process): JSON on stdout."""
    import warnings

    from sklearn.metrics import adjusted_rand_score

    data = np.load(path)
    A = sp.csr_array((data["data"], data["indices"], data["indptr"]), shape=tuple(data["shape"]))
    y = data["labels"]
    n, k = A.shape[0], int(y.max()) + 1
    rng = np.random.default_rng(1)
    queries = np.sort(rng.choice(n, size=min(n_queries, n), replace=False))
    out = {"method": method}
    if method == "SpectralClustering":
        from sklearn.cluster import SpectralClustering

        with PeakRSS() as mem:
            t0 = time.perf_counter()
            labels = SpectralClustering(n_clusters=k, affinity="precomputed",
                                        assign_labels="cluster_qr", eigen_solver="lobpcg",
                                        random_state=0).fit_predict(A)
            total = time.perf_counter() - t0
        out.update(total_s=total, added_mb=mem.added_mb,
                   ari=adjusted_rand_score(y[queries], labels[queries]))
    else:
        from statlearn.cluster import OracleConstructionError, SpectralClusteringOracle
        from statlearn.datasets import make_sbm_graph

        warm, _ = make_sbm_graph([60, 60], 0.2, 0.01, random_state=0)
        for walk in ("d-bounded", "degree-normalised"):  # load the compiled kernels
            try:
                SpectralClusteringOracle(2, mode="fast", walk=walk, walk_length=4,
                                         random_state=0).fit(warm).predict([0, 1])
            except OracleConstructionError:
                pass
        from statlearn.cluster._params import default_fast_walks

        params = {"mode": "fast", **DEGREE_ORACLES[method]}
        factor = params.pop("walks_over_R0", None)
        if factor is not None:  # a multiple of the fast mode's default n_walks
            params["n_walks"] = factor * default_fast_walks(n, k)
        with PeakRSS() as mem, warnings.catch_warnings():
            warnings.simplefilter("ignore")
            t0 = time.perf_counter()
            try:
                o = SpectralClusteringOracle(k, random_state=0, **params).fit(A)
                if o.error_rate is None:
                    labels = o.predict(queries, force=True)
                else:  # sequential queries: also the share certified and the walks drawn
                    res = o.query(queries, force=True)
                    labels = res.labels
                    out.update(certified=float(res.certified.mean()),
                               query_walks_over_R=float(res.n_walks.mean() / o.n_walks_))
            except OracleConstructionError as exc:
                out.update(refused=str(exc)[:60], total_s=time.perf_counter() - t0)
                labels = None
            total = time.perf_counter() - t0
        out.update(total_s=total, added_mb=mem.added_mb)
        if labels is not None:
            out.update(ari=adjusted_rand_score(y[queries], labels), t=o.walk_length_,
                       n_walks=o.n_walks_, index_words=o.index_words_)
    print(json.dumps(out))


def _run_degrees_worker(method, path, n_queries, timeout):
    cmd = [sys.executable, __file__, "--degrees-worker", method, path, str(n_queries)]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"method": method, "error": f"timeout > {timeout} s"}
    if proc.returncode != 0:
        lines = proc.stderr.strip().splitlines() or [f"exit status {proc.returncode}"]
        return {"method": method, "error": lines[-1][:80]}
    return json.loads(proc.stdout.strip().splitlines()[-1])


def degrees_table(quick, only=None, n_queries=1000, methods=None):
    """ARI against the truth, build + ``n_queries`` queries time and added memory of both
    walks (fast mode) and SpectralClustering (LOBPCG) on graphs with heterogeneous degrees,
    each measurement in a fresh process."""
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, A, y, note in degree_graphs(quick, only):
            row = {"graph": name, "n": None, "note": note}
            if A is None:
                rows.append(row)
                print(f"{name}: not generated ({note})", flush=True)
                continue
            deg = np.diff(A.indptr)
            row.update(n=A.shape[0], k=int(y.max()) + 1, deg_max_over_median=deg.max()
                       / max(np.median(deg), 1))
            path = os.path.join(tmp, "g.npz")
            np.savez(path, data=A.data, indices=A.indices, indptr=A.indptr,
                     shape=np.array(A.shape), labels=y)
            del A
            default = [m for m in DEGREE_ORACLES if m not in OPT_IN_DEGREE_ORACLES]
            for method in methods or ["SpectralClustering", *default]:
                res = _run_degrees_worker(method, path, n_queries, 3600)
                short = "SC" if method == "SpectralClustering" else method
                if "error" in res:
                    row[f"{short} ARI"] = res["error"]
                    continue
                row[f"{short} ARI"] = res.get("ari", "refused")
                row[f"{short} s"] = res["total_s"]
                row[f"{short} +MB"] = res["added_mb"]
                for key in ("t", "n_walks", "index_words", "certified", "query_walks_over_R"):
                    if key in res:
                        row[f"{short} {key}"] = res[key]
            rows.append(row)
            print("  " + ", ".join(f"{k}={v:.3g}" if isinstance(v, float) else f"{k}={v}"
                                   for k, v in row.items()), flush=True)
    return pd.DataFrame(rows)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--worker", nargs=3, metavar=("METHOD", "PATH", "Q"))
    parser.add_argument("--oracles", default=",".join(ORACLES),
                        help="comma-separated oracle modes to time (default: all)")
    parser.add_argument("--sizes", default=None, help="comma-separated n (overrides the default)")
    parser.add_argument("--skip-arpack", action="store_true",
                        help="do not time the ARPACK solver at n = 10**4 in the full run")
    parser.add_argument("--degrees", action="store_true",
                        help="graphs with heterogeneous degrees (LFR, DC-SBM, karate, digits "
                             "k-NN): both walks against SpectralClustering")
    parser.add_argument("--graphs", default=None,
                        help="with --degrees: comma-separated substrings of the graph names")
    parser.add_argument("--methods", default=None,
                        help="with --degrees: comma-separated methods (SpectralClustering "
                             f"and {', '.join(DEGREE_ORACLES)}; default all)")
    parser.add_argument("--degrees-worker", nargs=3, metavar=("METHOD", "PATH", "Q"))
    args = parser.parse_args(argv)
    if args.worker:
        worker(args.worker[0], args.worker[1], int(args.worker[2]))
        return 0
    if args.degrees_worker:
        degrees_worker(args.degrees_worker[0], args.degrees_worker[1],
                       int(args.degrees_worker[2]))
        return 0
    if args.degrees:
        only = args.graphs.split(",") if args.graphs else None
        methods = args.methods.split(",") if args.methods else None
        for m in methods or []:
            if m != "SpectralClustering" and m not in DEGREE_ORACLES:
                parser.error(f"unknown method {m!r}")
        table = degrees_table(args.quick, only, methods=methods)
        with pd.option_context("display.width", 250, "display.max_columns", 40,
                               "display.float_format", "{:.3g}".format):
            print(table.to_string(index=False))
        return 0
    ns = [10_000, 30_000, 100_000] if args.quick else [10_000, 100_000, 1_000_000]
    if args.sizes:
        ns = [int(float(v)) for v in args.sizes.split(",")]
    oracles = [o for o in args.oracles.split(",") if o]
    for o in oracles:
        if o not in ORACLES:
            parser.error(f"unknown oracle {o!r}; choose from {list(ORACLES)}")
    solvers = ["sklearn-lobpcg"]
    if importlib.util.find_spec("pyamg") is not None:
        solvers.append("sklearn-amg")
    else:
        print("note: pyamg is not installed, so SpectralClustering with eigen_solver='amg' "
              "is skipped (pip install pyamg)", flush=True)
    timeout = 600 if args.quick else 3600
    rows, per_n = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for n in ns:
            lean = n >= LEAN_FROM
            if lean:
                # drawn again in every worker (same seed); SpectralClustering is not run
                path, graph_mb = f"lean:{n}", None
                skl = {"error": "not run (memory: about 8 GB at n = 1e7 by linear "
                                "extrapolation from n = 1e6)"}
            else:
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
                prev = [r for r in per_n if r.get("sklearn s") is not None]
                if lean and prev:  # linear extrapolation from the largest size run
                    ref = prev[-1]
                    summary["sklearn s (extrapolated)"] = ref["sklearn s"] * n / ref["n"]
                    summary["sklearn +MB (extrapolated)"] = ref["sklearn +MB"] * n / ref["n"]
            if "sklearn-amg" in solvers and not lean:
                amg = run_worker("sklearn-amg", path, 0, timeout)
                summary.update({"amg s": amg.get("total_s", amg.get("error")),
                                "amg +MB": amg.get("added_mb"), "amg acc": amg.get("accuracy")})
            elif not lean:
                summary["amg note"] = "pyamg not installed: SpectralClustering amg not run"
            if n == 10_000 and not args.quick and not args.skip_arpack:
                arpack = run_worker("sklearn-arpack", path, 0, timeout)
                summary["sklearn arpack s"] = arpack.get("total_s", arpack.get("error"))
            for name in oracles:
                res = run_worker(name, path, min(QUERIES[name], n // 2), timeout)
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
                        summary[f"build+1000q/sklearn {name}"] = (
                            (res["build_s"] + 1000 * res["query_s"]) / skl["total_s"])
                    amg_s = summary.get("amg s")
                    if isinstance(amg_s, float):
                        summary[f"q* amg {name}"] = break_even(res["build_s"], res["query_s"],
                                                               amg_s)
                        summary[f"build+1000q/amg {name}"] = (
                            (res["build_s"] + 1000 * res["query_s"]) / amg_s)
                        summary[f"memory amg/oracle {name}"] = (summary["amg +MB"]
                                                                / max(res["added_mb"], 0.1))
                if summary["graph MB"] is None and "graph_mb" in res:
                    summary["graph MB"] = res["graph_mb"]
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
        print("\nOracle: build and per-query cost (random queries answered in one predict "
              f"call: {', '.join(f'{o} {QUERIES[o]}' for o in oracles)})")
        print(table.to_string(index=False))
        print("\nAgainst SpectralClustering (LOBPCG) on the whole graph; q* = largest number of "
              "queries with build + q* x query <= sklearn (0: the build alone is slower)")
        print(summary.T.to_string(header=False))
        print("\nGrowth with n (log-log slope over all sizes; the oracle's walk steps grow like "
              "sqrt(n) log n at a fixed walk length, SpectralClustering's work like n)")
        growth = {"sklearn s": _slope(summary["n"], summary["sklearn s"])}
        for name in oracles:
            g = table[table["oracle"] == name]
            for col in ("build s", "s/query"):
                if col in g:
                    growth[f"{name} {col}"] = _slope(g["n"], g[col])
        print("  " + ", ".join(f"{k}: n^{v[0]:.2f}" for k, v in growth.items() if v is not None))
        if len(summary) > 1 and "build s" in table:
            lo, hi = summary["n"].iloc[-2], summary["n"].iloc[-1]
            decades = np.log10(hi / lo)
            factors = {"sklearn": summary["sklearn s"].iloc[-1] / summary["sklearn s"].iloc[-2]}
            for name in oracles:
                g = table[table["oracle"] == name].set_index("n")
                if lo in g.index and hi in g.index:
                    factors[f"{name} build"] = g.loc[hi, "build s"] / g.loc[lo, "build s"]
                    factors[f"{name} query"] = g.loc[hi, "s/query"] / g.loc[lo, "s/query"]
            print(f"  per decade of n from {lo} to {hi}: " + ", ".join(
                f"{k} x{v ** (1 / decades):.2g}" for k, v in factors.items() if pd.notna(v))
                + " (the eigen-gap rule may pick a longer walk as n grows)")
        wins = []
        for _, r in summary.iterrows():
            parts = []
            for name in oracles:
                q_star, mem = r.get(f"q* {name}"), r.get(f"memory sk/oracle {name}")
                if pd.isna(q_star):
                    continue
                when = f"up to q={int(q_star)}" if q_star else "never"
                more = f"{mem:.1f}x less" if mem >= 1 else f"{1 / mem:.1f}x more"
                parts.append(f"{name}: time {when}, added memory {more}")
            wins.append(f"n={int(r['n'])}: " + "; ".join(parts))
        print("\nwhere the oracle wins against SpectralClustering:\n  " + "\n  ".join(wins))
        print("\nWalk engines on the same estimates")
        print(engines_table(args.quick).to_string(index=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Sublinear spectral clustering oracle with little memory: the paper's SBM experiment.

Setup of Shen, Zhu, Peng, Huang (ICLR 2026), section 5: stochastic block
model with ``n = 3000`` vertices, ``k = 3`` blocks of 1000, ``p = 0.07``
inside and ``q = 0.002`` across blocks; a fresh graph per run. Two oracles
with the same landmarks, median repeats and walk-length rule:

* ``low-memory``: the batched estimator, ``b`` endpoints in memory,
  ``R = ceil(4 n / b)`` walks per estimate (more time when ``b`` shrinks);
* ``prior``: the estimator of the earlier oracles (Shen & Peng 2023), which
  stores all ``R`` endpoints of both walk sets, so ``R`` is set by memory.

Per run we record whether construction succeeds (the similarity graph has
``k`` components) and the accuracy on random query vertices (best label
permutation; outliers count as errors), the words held while building the
oracle, and the walk steps per query ``T``. The walk length is chosen by
the eigen-gap rule (``walk_length="auto"``) in every run: no hand tuning.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from ..cluster import OracleConstructionError, SpectralClusteringOracle
from ..datasets import make_sbm_graph
from ._registry import StudyContext, StudyReport, make_verdict, register_study
from ._spectral_degrees import degree_replication, degrees_figure, degrees_grid, degrees_table

__all__ = ["label_accuracy", "make_dcsbm_graph", "method_replication", "oracle_replication",
           "spectral_oracle_study"]

N, K, P_IN, Q_OUT = 3000, 3, 0.07, 0.002

# the paper's table (space in words while building D; baseline 1x = 10,400 words)
PAPER_TABLE = pd.DataFrame({
    "oracle": ["low-memory"] * 3 + ["prior"] * 4,
    "words": [9900, 10100, 10400, 34840, 43888, 44383, 61223],
    "x baseline": [0.95, 0.97, 1.00, 3.35, 4.22, 4.27, 5.89],
    "success rate": [1.0, 1.0, 1.0, 0.0, 0.6, 1.0, 1.0],
    "accuracy": [0.9833, 0.9900, 0.9907, np.nan, 0.9860, 0.9997, 1.0000],
})


def label_accuracy(pred, truth, n_clusters):
    """Fraction of correct labels after the best permutation (outliers are errors).

    Examples
    --------
    >>> import numpy as np
    >>> from statlearn.studies.spectral_oracle import label_accuracy
    >>> label_accuracy(np.array([1, 1, 0, -1]), np.array([0, 0, 1, 1]), 2)
    0.75
    """
    from scipy.optimize import linear_sum_assignment

    pred = np.asarray(pred)
    truth = np.asarray(truth)
    C = np.zeros((n_clusters, n_clusters))
    ok = pred >= 0
    np.add.at(C, (pred[ok], truth[ok]), 1)
    r, c = linear_sum_assignment(-C)
    return float(C[r, c].sum() / truth.size)


def make_dcsbm_graph(n, n_blocks, *, mean_degree=20.0, mu=0.1, exponent=2.5, max_weight=None,
                     random_state=None):
    """Degree-corrected stochastic block model with power-law degree weights.

    Vertex ``v`` in block ``c(v)`` (``n_blocks`` equal blocks, in order) gets a
    weight ``theta_v`` drawn from a Pareto law with density exponent
    ``exponent`` (``P(theta > x) ~ x**(1 - exponent)``, at least 1, capped at
    ``max_weight``, default ``sqrt(n)``). Edges are drawn Chung-Lu style by
    block pair: ``Poisson(n mean_degree (1 - mu) / (2 n_blocks))`` edges
    inside each block and ``Poisson(n mean_degree mu / (n_blocks (n_blocks - 1)))``
    between each pair of blocks, each edge's endpoints drawn in their blocks
    with probability proportional to ``theta``; self-loops and repeated
    edges are dropped. So the expected degree of ``v`` is about
    ``mean_degree theta_v / mean(theta)``, a fraction ``mu`` of it across
    blocks. ``O(n mean_degree)`` time and memory (int32 edges).

    Parameters
    ----------
    n, n_blocks : int
    mean_degree : float, default=20.0
    mu : float in [0, 1), default=0.1
        Expected fraction of each vertex's edges leaving its block.
    exponent : float > 2, default=2.5
    max_weight : float or None
    random_state : None, int or Generator

    Returns
    -------
    A : scipy.sparse.csr_array of shape (n, n)
        Symmetric 0/1 adjacency (int32 indices, float32 entries).
    labels : ndarray of int64, shape (n,)

    Examples
    --------
    >>> import numpy as np
    >>> from statlearn.studies.spectral_oracle import make_dcsbm_graph
    >>> A, y = make_dcsbm_graph(2000, 2, random_state=0)
    >>> deg = np.diff(A.indptr)
    >>> bool(deg.max() > 5 * np.median(deg)), np.bincount(y).tolist()
    (True, [1000, 1000])
    """
    import scipy.sparse as sp

    rng = np.random.default_rng(random_state)
    k = int(n_blocks)
    labels = np.repeat(np.arange(k), -(-n // k))[:n].astype(np.int64)
    cap = float(max_weight) if max_weight is not None else math.sqrt(n)
    theta = np.minimum(rng.pareto(exponent - 1.0, n) + 1.0, cap)
    bounds = np.searchsorted(labels, np.arange(k + 1))
    cum = [np.cumsum(theta[bounds[c]:bounds[c + 1]]) for c in range(k)]

    def draw(c, m):
        u = rng.random(m) * cum[c][-1]
        return (np.searchsorted(cum[c], u, side="right") + bounds[c]).astype(np.int32)

    us, vs = [], []
    for a in range(k):
        for b in range(a, k):
            lam = (n * mean_degree * (1 - mu) / (2 * k) if a == b
                   else n * mean_degree * mu / (k * (k - 1)))
            m = int(rng.poisson(lam))
            us.append(draw(a, m))
            vs.append(draw(b, m))
    u = np.concatenate(us)
    v = np.concatenate(vs)
    keep = u != v
    u, v = u[keep], v[keep]
    A = sp.coo_array((np.ones(2 * u.size, dtype=np.float32),
                      (np.concatenate([u, v]), np.concatenate([v, u]))), shape=(n, n)).tocsr()
    A.sum_duplicates()
    A.data[:] = 1.0
    A.indices = A.indices.astype(np.int32)
    A.indptr = A.indptr.astype(np.int32)
    return A, labels


def oracle_replication(setting, rng):
    """One run: fresh SBM graph, build the oracle, answer random queries.

    Parameters
    ----------
    setting : dict
        ``oracle`` (``"low-memory"`` or ``"prior"``), ``memory`` (``b`` for
        low-memory, ``R`` for prior), ``n_queries``, ``n_repeats`` (``0``:
        the default) and optionally ``n``, ``p``, ``q`` (graph size and
        probabilities; the paper's by default).
    rng : numpy.random.Generator
        The run's random stream.

    Returns
    -------
    dict
        ``success``, ``accuracy`` (NaN when construction failed),
        ``walk_length``, ``peak_words``, ``walk_buffer_words``,
        ``steps_per_query`` and ``fit_steps``.

    Examples
    --------
    >>> import numpy as np
    >>> from statlearn.studies.spectral_oracle import oracle_replication
    >>> out = oracle_replication({"oracle": "low-memory", "memory": 20, "n_queries": 20,
    ...                           "n_repeats": 3, "n": 300, "p": 0.3, "q": 0.01},
    ...                          np.random.default_rng(0))
    >>> out["success"], out["accuracy"] > 0.9
    (True, True)
    """
    n = int(setting.get("n", N))
    p = float(setting.get("p", P_IN))
    q = float(setting.get("q", Q_OUT))
    A, y = make_sbm_graph([n // K] * K, p, q, random_state=rng)
    reps = int(setting.get("n_repeats", 0)) or None
    kw = dict(n_repeats=reps, random_state=int(rng.integers(2**31)))
    if setting["oracle"] == "prior":
        oracle = SpectralClusteringOracle(K, mode="prior", n_walks=int(setting["memory"]), **kw)
    elif setting["oracle"] == "low-memory":
        oracle = SpectralClusteringOracle(K, batch_size=int(setting["memory"]), **kw)
    else:
        raise ValueError(f"setting['oracle'] must be 'low-memory' or 'prior', got "
                         f"{setting['oracle']!r}.")
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # small eigen-gaps are reported as failures
        try:
            oracle.fit(A)
            success = True
        except OracleConstructionError:
            success = False
    out = {"success": success, "accuracy": math.nan,
           "walk_length": getattr(oracle, "walk_length_", math.nan),
           "peak_words": oracle.peak_memory_words_,
           "walk_buffer_words": oracle.walk_buffer_words_,
           "steps_per_query": getattr(oracle, "walk_steps_per_query_", math.nan),
           "fit_steps": getattr(oracle, "walk_steps_fit_", math.nan)}
    if success:
        queries = rng.choice(A.shape[0], size=int(setting["n_queries"]), replace=False)
        out["accuracy"] = label_accuracy(oracle.predict(queries), y[queries], K)
    return out


METHODS = ("fast", "low-memory", "prior", "SpectralClustering")

#: measured once with benchmarks/bench_spectral_oracle.py (too heavy for the study run)
AT_SCALE = (
    "**At scale** (benchmarks/bench_spectral_oracle.py, one run on a shared 2-core "
    "machine, both sides under the same load; fast mode with defaults, 1,000 random queries, "
    "accuracy 1.0 for every method): n=1e5: SpectralClustering lobpcg 20.1 s +86 MB, amg "
    "28.9 s +534 MB; fast build 2.1 s, 2.9 ms/query, +5.0 MB, break-even q* = 6,251 "
    "(lobpcg) and 9,268 (amg). n=1e6: lobpcg 61.5 s +804 MB, amg 769 s +11,450 MB; fast "
    "build 7.7 s, 14 ms/query, +9.1 MB (88x less than lobpcg; target 50x), build plus 1,000 "
    "queries 0.35x lobpcg's time, q* = 3,820 (lobpcg) and 53,987 (amg). n=1e7 (opt-in "
    "size, lean generator, finer walk-length grid and twice the default walks): fast build "
    "114 s, 0.23 s/query, +50 MB (target: 1 GiB); SpectralClustering not run (about 8 GB "
    "extrapolated).")


def method_replication(setting, rng):
    """One timed run of a method on a sparse SBM (``k = 3``, degree ~20 in, 0.5 across).

    Parameters
    ----------
    setting : dict
        ``method`` (one of ``METHODS``), ``n`` and ``n_queries``.
    rng : numpy.random.Generator

    Returns
    -------
    dict
        ``build_s`` (SpectralClustering: the whole run), ``query_s`` (per
        query, one ``predict`` call; NaN for SpectralClustering),
        ``peak_mb`` (peak of the allocations traced by :mod:`tracemalloc`
        during build and queries, the input graph excluded), ``accuracy``.

    Examples
    --------
    >>> import numpy as np
    >>> from statlearn.studies.spectral_oracle import method_replication
    >>> out = method_replication({"method": "fast", "n": 900, "n_queries": 30},
    ...                          np.random.default_rng(0))
    >>> out["accuracy"] > 0.9
    True
    """
    import time
    import tracemalloc
    import warnings

    method = setting["method"]
    if method not in METHODS:
        raise ValueError(f"setting['method'] must be one of {METHODS}, got {method!r}.")
    n = int(setting["n"])
    block = n // K
    A, y = make_sbm_graph([block] * K, min(1.0, 20 / block), 0.5 / block, random_state=rng)
    seed = int(rng.integers(2**31))
    queries = rng.choice(A.shape[0], size=min(int(setting["n_queries"]), A.shape[0]),
                         replace=False)
    out = {"build_s": math.nan, "query_s": math.nan, "peak_mb": math.nan,
           "accuracy": math.nan}
    tracemalloc.start()
    try:
        t0 = time.perf_counter()
        if method == "SpectralClustering":
            from sklearn.cluster import SpectralClustering

            labels = SpectralClustering(K, affinity="precomputed", assign_labels="cluster_qr",
                                        eigen_solver="lobpcg", random_state=seed).fit_predict(A)
            out["build_s"] = time.perf_counter() - t0
            out["accuracy"] = label_accuracy(labels[queries], y[queries], K)
        else:
            kw = {"fast": {"mode": "fast"}, "low-memory": {}, "prior": {"mode": "prior"}}
            oracle = SpectralClusteringOracle(K, random_state=seed, **kw[method])
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", UserWarning)
                try:
                    oracle.fit(A)
                except OracleConstructionError:
                    return out
            t1 = time.perf_counter()
            pred = oracle.predict(queries)
            out["build_s"] = t1 - t0
            out["query_s"] = (time.perf_counter() - t1) / queries.size
            out["accuracy"] = label_accuracy(pred, y[queries], K)
        out["peak_mb"] = tracemalloc.get_traced_memory()[1] / 2**20
    finally:
        tracemalloc.stop()
    return out


def _methods_table(res):
    t = res.table
    rows = []
    for (method, n), g in t.groupby(["method", "n"], sort=False):
        sk = t[(t["method"] == "SpectralClustering") & (t["n"] == n)]["build_s"].median()
        build = float(g["build_s"].median())
        query = float(g["query_s"].median())
        q_star = (0 if not build < sk else int((sk - build) // query)) if (
            np.isfinite(query) and np.isfinite(sk)) else math.nan
        rows.append({"method": method, "n": int(n), "build s": build, "s/query": query,
                     "peak MB": float(g["peak_mb"].median()),
                     "accuracy": float(g["accuracy"].mean()),
                     "build / SpectralClustering": build / sk if sk else math.nan,
                     "break-even q*": q_star})
    return pd.DataFrame(rows)


def _methods_figure(table):
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(10.5, 3.6))
    for j, (name, g) in enumerate(table.groupby("method", sort=False)):
        g = g.sort_values("n")
        axes[0].plot(g["n"], g["build s"], "o-", color=f"C{j}", label=f"{name}: build")
        if g["s/query"].notna().any():
            axes[0].plot(g["n"], 100 * g["s/query"], "s--", color=f"C{j}",
                         label=f"{name}: 100 queries")
        axes[1].plot(g["n"], g["peak MB"], "o-", color=f"C{j}", label=name)
    for ax, lab in zip(axes, ("seconds", "peak traced MB")):
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("n")
        ax.set_ylabel(lab)
        ax.legend(fontsize="small")
    axes[0].set_title("time against n")
    axes[1].set_title("memory against n (graph excluded)")
    fig.tight_layout()
    return fig


def _table(res, n):
    t = res.table
    rows = []
    for (oracle, memory), g in t.groupby(["oracle", "memory"], sort=False):
        ok = g["success"].astype(bool)
        acc = g.loc[ok, "accuracy"]
        rows.append({
            "oracle": oracle, "b or R": int(memory),
            "words": int(g["peak_words"].max()),
            "walk buffer": int(g["walk_buffer_words"].max()),
            "success rate": float(ok.mean()), "runs": len(g),
            "accuracy": float(acc.mean()) if len(acc) else math.nan,
            "accuracy se": float(acc.std(ddof=1) / math.sqrt(len(acc))) if len(acc) > 1
            else math.nan,
            "t (median)": float(np.nanmedian(g["walk_length"].astype(float))),
            "steps/query T": float(g["steps_per_query"].median()),
        })
    table = pd.DataFrame(rows)
    base = table[table["oracle"] == "low-memory"]["words"].max()
    table.insert(3, "x baseline", table["words"] / base)
    table["S_walk*T/n"] = table["walk buffer"] * table["steps/query T"] / n
    return table


def _figure(table):
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(10.5, 3.9))
    ax = axes[0]
    for j, (name, g) in enumerate(table.groupby("oracle", sort=False)):
        g = g.sort_values("walk buffer")
        ax.plot(g["steps/query T"], g["walk buffer"], "-", color=f"C{j}", alpha=0.6)
        ok = g["success rate"] >= 0.5
        ax.scatter(g["steps/query T"][ok], g["walk buffer"][ok], color=f"C{j}",
                   label=f"{name} (built)")
        ax.scatter(g["steps/query T"][~ok], g["walk buffer"][~ok], facecolors="none",
                   edgecolors=f"C{j}", label=f"{name} (failed)")
    lo = table[table["oracle"] == "low-memory"]
    if len(lo):
        c = float(np.median(lo["walk buffer"] * lo["steps/query T"]))
        ts = np.geomspace(table["steps/query T"].min(), table["steps/query T"].max(), 50)
        ax.plot(ts, c / ts, "k:", label="S*T = const")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("walk steps per query T")
    ax.set_ylabel("walk-buffer words S")
    ax.set_title("memory / time trade-off")
    ax.legend(fontsize="small")
    ax = axes[1]
    for j, (name, g) in enumerate(table.groupby("oracle", sort=False)):
        g = g.sort_values("walk buffer")
        ax.plot(g["walk buffer"], g["success rate"], "o--", color=f"C{j}",
                label=f"{name}: success rate")
        ax.plot(g["walk buffer"], g["accuracy"], "s-", color=f"C{j}", label=f"{name}: accuracy")
    ax.set_xscale("log")
    ax.set_xlabel("walk-buffer words (the rest, ~s^2 + s s', is the same for all)")
    ax.set_ylim(-0.05, 1.05)
    ax.set_title(f"SBM n={N}, k={K}, p={P_IN}, q={Q_OUT}")
    ax.legend(fontsize="small")
    fig.tight_layout()
    return fig


def _degrees_text(degrees):
    """The paragraph on graphs with heterogeneous degrees (ARI of every method)."""
    cols = [c for c in degrees.columns if c.endswith(" ARI")]
    rows = "; ".join(f"{r['graph']}: " + ", ".join(f"{c[:-4]} {r[c]:.2f}" for c in cols)
                     for _, r in degrees.iterrows())
    return ("**Heterogeneous degrees** (LFR graphs over the mixing parameter mu and real "
            "graphs with known communities; fast oracle with k-means on the landmarks for "
            "each walk, the normalised walk at the fixed default n_walks and with "
            "n_walks='auto'; ARI against the truth on every vertex): " + rows + ".")


@register_study("spectral-oracle", title="Spectral clustering oracle with little memory",
                paper="Shen, Zhu, Peng, Huang (ICLR 2026), OpenReview 0GpolO2auw")
def spectral_oracle_study(ctx: StudyContext) -> StudyReport:
    """The paper's SBM table (low-memory vs prior oracle), the S-vs-T curve, and both walks
    against SpectralClustering on graphs with heterogeneous degrees (ARI against mu).

    Examples
    --------
    Run it with ``get_study("spectral-oracle").run(StudyContext(quick=True))`` (the
    quick size takes under two minutes on two cores) or from the command line
    with ``statlearn reproduce spectral-oracle --quick``.

    >>> from statlearn.studies import get_study
    >>> study = get_study("spectral-oracle")
    >>> study.name, callable(study.func)
    ('spectral-oracle', True)
    """
    n_reps = ctx.size(quick=2, full=5)
    n_queries = ctx.size(quick=60, full=500)
    n_repeats = ctx.size(quick=3, full=0)  # 0: the default (7 for n = 3000)
    b_grid = ctx.size(quick=[16, 32, 55], full=[8, 16, 32, 55])
    r_grid = ctx.size(quick=[20, 40, 110], full=[15, 25, 40, 60, 110])
    grid = ([{"oracle": "low-memory", "memory": b, "n_queries": n_queries,
              "n_repeats": n_repeats} for b in b_grid]
            + [{"oracle": "prior", "memory": r, "n_queries": n_queries,
                "n_repeats": n_repeats} for r in r_grid])
    res = ctx.run(oracle_replication, grid, n_reps, name="spectral-oracle")
    table = _table(res, N)
    fig = _figure(table)
    ns = ctx.size(quick=[3000, 10000], full=[3000, 10000, 30000])
    # quick size: the slow modes (tens of seconds per build) only at the smallest n
    mgrid = [{"method": m, "n": n, "n_queries": 100 if m == "fast" else 10}
             for n in ns for m in METHODS
             if not (ctx.quick and n > ns[0] and m in ("low-memory", "prior"))]
    mres = ctx.run(method_replication, mgrid, 1, name="spectral-oracle-methods")
    methods = _methods_table(mres)
    mfig = _methods_figure(methods)
    dres = ctx.run(degree_replication, degrees_grid(ctx.quick), 1,
                   name="spectral-oracle-degrees")
    degrees = degrees_table(dres)
    dfig = degrees_figure(degrees)

    lo = table[table["oracle"] == "low-memory"]
    pr = table[table["oracle"] == "prior"]
    built_lo = lo[lo["success rate"] >= 0.8]
    built_pr = pr[pr["success rate"] >= 0.8]
    st_spread = (float(lo["S_walk*T/n"].max() / lo["S_walk*T/n"].min()) if len(lo)
                 else math.nan)
    min_lo = int(built_lo["walk buffer"].min()) if len(built_lo) else None
    min_pr = int(built_pr["walk buffer"].min()) if len(built_pr) else None
    ratio = (f"{min_lo / min_pr:.2f}" if min_lo is not None and min_pr is not None else "n/a")
    picks = sorted({int(v) for v in res.table["walk_length"].dropna()})
    size = "quick (n_repeats=3, " if ctx.quick else "full (default n_repeats=7, "
    text = (
        f"SBM n={N}, k={K}, p={P_IN}, q={Q_OUT}; {n_reps} runs per setting (fresh graph each), "
        f"{n_queries} random queries per run; size {size}{n_queries} queries). Words = "
        "peak words held while building D, counted by the algorithm (landmark Gram/Psi "
        "matrix s^2, cluster-landmark cache s*s', walk buffer, bookkeeping); with the "
        "default s=62, s'=42 the landmark part is about 6,600 words, so totals move little "
        "while the walk buffer moves a lot. Walk lengths chosen by the eigen-gap rule: "
        f"{picks}.\n\n"
        "**Paper (Table, space in words; baseline 1x = 10,400):** low-memory oracle at "
        "0.95-1.0x: success 1.0, accuracy 0.983-0.991; prior oracle at 3.35x: success 0.0, "
        "at 4.22x: 0.6 (accuracy 0.986), at 4.27-5.89x: 1.0 (accuracy 0.9997-1.0).\n\n"
        f"**Ours:** the low-memory oracle builds (success >= 0.8) with walk buffers down to "
        f"{min_lo} words; the prior oracle needs at least {min_pr} words of walk buffer "
        f"(ratio {ratio}; the paper's finding is that the low-memory oracle succeeds with "
        "<= 1/4 of the memory at which the prior one first succeeds). "
        "Across batch sizes, S_walk*T/n of the low-memory oracle varies by a factor "
        f"{st_spread:.2f} (theory: constant, S*T = O~(n)); the prior oracle's memory and time "
        "grow together. Accuracy of built low-memory oracles: "
        + ", ".join(f"b={int(r['b or R'])}: {r['accuracy']:.3f}" for _, r in lo.iterrows())
        + ". The paper's table is shown below for comparison.\n\n"
        "**Fast vs low-memory vs prior vs SpectralClustering** (sparse SBM, k=3, degree ~20 "
        "inside and 0.5 across, one run per size; times on a shared machine, memory = peak "
        "of traced allocations without the input graph): "
        + "; ".join(f"n={int(r['n'])} {r['method']}: build {r['build s']:.2g} s"
                    + (f", {1e3 * r['s/query']:.2g} ms/query" if np.isfinite(r["s/query"])
                       else "") + f", {r['peak MB']:.2g} MB, acc {r['accuracy']:.2f}"
                    for _, r in methods.iterrows())
        + ". The paper has no such comparison (it compares memory only).\n\n"
        + AT_SCALE + "\n\n" + _degrees_text(degrees)
    )
    acc_lo = float(built_lo["accuracy"].min()) if len(built_lo) else math.nan
    mem_ok = min_lo is not None and min_pr is not None and min_lo / min_pr <= 0.25
    verdict = make_verdict(
        "reproduced" if mem_ok and acc_lo >= 0.95 else
        ("partly" if min_lo is not None else "not reproduced"),
        f"the low-memory oracle builds with {ratio} of the walk buffer the prior oracle needs "
        f"(paper: at most 1/4), accuracy at least {acc_lo:.3f} (paper 0.983-0.991); memory is "
        "counted by this implementation, so only the ratio is comparable with the paper's "
        "words.")
    return StudyReport(name="spectral-oracle", title="Spectral clustering oracle with little "
                       "memory (SBM)", tables={"oracles": table, "paper": PAPER_TABLE,
                                               "methods": methods, "degrees": degrees},
                       figures={"tradeoff": fig, "methods": mfig, "degrees": dfig}, text=text,
                       verdict=verdict)

"""The spectral-oracle study on graphs with heterogeneous degrees: both walks against
SpectralClustering on LFR graphs over the mixing parameter, and on small real graphs."""

from __future__ import annotations

import math
import time
import warnings

import numpy as np
import pandas as pd

from ..cluster import OracleConstructionError, SpectralClusteringOracle

__all__ = ["DEGREE_METHODS", "degree_replication", "degrees_figure", "degrees_grid",
           "degrees_table", "exact_walk_spectrum", "lfr_graph"]

#: the compared methods: SpectralClustering on the whole graph, and the fast oracle with
#: k-means on the landmarks for each walk (the normalised walk at the fixed default
#: ``n_walks`` and with ``n_walks="auto"``)
DEGREE_METHODS = {
    "SpectralClustering": None,
    "d-bounded": {"walk": "d-bounded"},
    "normalised": {"walk": "degree-normalised"},
    "normalised, auto": {"walk": "degree-normalised", "n_walks": "auto"},
}


def lfr_graph(n, tau1, mu):
    """networkx LFR graph (community-size exponent 1.5, mean degree 20, largest degree
    ``3 sqrt(n)``, communities of ``n/8`` to ``n/4`` vertices) and its communities; the
    first seed in 0..3 whose generation converges.

    Returns
    -------
    A : scipy.sparse.csr_array
    y : ndarray of int
    seed : int

    Examples
    --------
    >>> from statlearn.studies._spectral_degrees import lfr_graph
    >>> A, y, seed = lfr_graph(1000, 3.0, 0.1)
    >>> A.shape, int(y.max()) + 1, seed
    ((1000, 1000), 6, 0)
    """
    import networkx as nx

    for seed in range(4):
        try:
            G = nx.LFR_benchmark_graph(n, tau1, 1.5, mu, average_degree=20,
                                       max_degree=int(3 * math.sqrt(n)), min_community=n // 8,
                                       max_community=n // 4, seed=seed)
        except nx.NetworkXException:
            continue
        comms = sorted({frozenset(G.nodes[v]["community"]) for v in G}, key=min)
        y = np.empty(n, dtype=np.int64)
        for i, c in enumerate(comms):
            y[list(c)] = i
        return _csr(nx.to_scipy_sparse_array(G, nodelist=range(n), weight=None)), y, seed
    raise RuntimeError(f"LFR generation did not converge for n={n}, tau1={tau1}, mu={mu} "
                       "(seeds 0..3).")


def _csr(A):
    import scipy.sparse as sp

    A = sp.csr_array(A, dtype=np.float64)
    A.data[:] = 1.0
    A.indices, A.indptr = A.indices.astype(np.int32), A.indptr.astype(np.int32)
    return A


def _real_graph(name):
    import networkx as nx

    if name == "karate club":
        G = nx.karate_club_graph()
        y = np.array([G.nodes[v]["club"] == "Officer" for v in G], dtype=np.int64)
        return _csr(nx.to_scipy_sparse_array(G, weight=None)), y
    if name == "digits 10-NN":
        from sklearn.datasets import load_digits
        from sklearn.neighbors import kneighbors_graph

        X, y = load_digits(return_X_y=True)
        A = kneighbors_graph(X, 10, include_self=False)
        return _csr((A + A.T) > 0), y.astype(np.int64)
    raise ValueError(f"setting['graph'] must be 'LFR', 'karate club' or 'digits 10-NN', "
                     f"got {name!r}.")


def degree_replication(setting, rng):
    """One run of a method on an LFR graph (``graph="LFR"``, with ``n``, ``tau1``, ``mu``)
    or a real graph (``"karate club"``, ``"digits 10-NN"``): ARI against the truth on
    every vertex, seconds (build and ``predict`` of every vertex) and the oracle's
    ``n_walks_`` (0 for SpectralClustering, which draws no walks).

    Examples
    --------
    >>> import numpy as np
    >>> from statlearn.studies._spectral_degrees import degree_replication
    >>> out = degree_replication({"graph": "karate club", "method": "SpectralClustering"},
    ...                          np.random.default_rng(0))
    >>> out["ari"] > 0.5
    True
    """
    from sklearn.metrics import adjusted_rand_score

    method = setting["method"]
    if method not in DEGREE_METHODS:
        raise ValueError(f"setting['method'] must be one of {list(DEGREE_METHODS)}, got "
                         f"{method!r}.")
    if setting["graph"] == "LFR":
        A, y, _ = lfr_graph(int(setting["n"]), float(setting["tau1"]), float(setting["mu"]))
    else:
        A, y = _real_graph(setting["graph"])
    k = int(y.max()) + 1
    seed = int(rng.integers(2**31))
    out = {"ari": math.nan, "seconds": math.nan, "n_walks": 0}
    t0 = time.perf_counter()
    if DEGREE_METHODS[method] is None:
        from sklearn.cluster import SpectralClustering

        labels = SpectralClustering(k, affinity="precomputed", assign_labels="cluster_qr",
                                    random_state=seed).fit_predict(A)
    else:
        o = SpectralClusteringOracle(k, mode="fast", landmark_clustering="kmeans",
                                     random_state=seed, **DEGREE_METHODS[method])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # small eigen-gap warnings
            try:
                o.fit(A)
            except OracleConstructionError:
                return out
        labels = o.predict(np.arange(A.shape[0]), force=True)
        out.update(n_walks=o.n_walks_)
    out.update(seconds=time.perf_counter() - t0, ari=adjusted_rand_score(y, labels))
    return out


def degrees_table(res):
    """One row per graph, the ARI (and seconds) of every method side by side."""
    t = res.table.copy()
    t["graph name"] = [g if g != "LFR" else f"LFR n={int(n)} tau1={float(tau):g} "
                       f"mu={float(mu):g}" for g, n, tau, mu in
                       zip(t["graph"], t["n"], t["tau1"], t["mu"])]
    rows = []
    for name, g in t.groupby("graph name", sort=False):
        row = {"graph": name}
        for c in ("n", "tau1", "mu"):
            v = g[c].iloc[0]
            row[c] = np.nan if v is None else float(v)
        for method, m in g.groupby("method", sort=False):
            row[f"{method} ARI"] = float(m["ari"].mean())
            row[f"{method} s"] = float(m["seconds"].median())
            if DEGREE_METHODS[method] is not None:
                row[f"{method} R"] = float(m["n_walks"].median())
        rows.append(row)
    return pd.DataFrame(rows)


def degrees_figure(table):
    """ARI against ``mu`` for every method, one panel per (n, tau1) of the LFR rows."""
    import matplotlib.pyplot as plt

    lfr = table[table["graph"].str.startswith("LFR")]
    panels = list(lfr.groupby(["n", "tau1"], sort=True))
    fig, axes = plt.subplots(1, max(1, len(panels)), figsize=(4.2 * max(1, len(panels)), 3.4),
                             squeeze=False)
    styles = dict(zip(DEGREE_METHODS, ["k-", "o--", "s:", "D-"]))
    for ax, ((n, tau1), g) in zip(axes[0], panels):
        g = g.sort_values("mu")
        for method, style in styles.items():
            if f"{method} ARI" in g:
                ax.plot(g["mu"], g[f"{method} ARI"], style, label=method)
        ax.set_title(f"LFR n={int(n)}, tau1={tau1:g}")
        ax.set_xlabel("mixing parameter mu")
        ax.set_ylim(-0.05, 1.05)
    axes[0][0].set_ylabel("ARI against the communities")
    axes[0][0].legend(fontsize="small")
    fig.tight_layout()
    return fig


def degrees_grid(quick):
    """The settings of the comparison: LFR graphs over ``mu`` and the real graphs."""
    ns, taus = ([1000], [2.5]) if quick else ([1000, 10_000], [2.5, 3.0])
    graphs = [{"graph": "LFR", "n": n, "tau1": tau, "mu": mu}
              for n in ns for tau in taus for mu in (0.1, 0.2, 0.3)]
    graphs += [{"graph": g, "n": None, "tau1": None, "mu": None}
               for g in (["karate club"] if quick else ["karate club", "digits 10-NN"])]
    return [{**g, "method": m} for g in graphs for m in DEGREE_METHODS]


def _exact_grams(A, starts, n_ends, walk_lengths, laziness):
    """Exact weighted collision probabilities ``sum_v p_x(v) p_y(v) dbar / deg(v)`` of the
    walk that stays with probability ``laziness`` (else a uniform neighbour), for ``x`` in
    ``starts`` (rows) and ``y`` in its first ``n_ends`` entries (columns): one
    ``(walk_length, Gram)`` pair per distinct walk length, shortest first, all from one
    propagation of the endpoint distributions (a propagation per length would repeat
    the same steps)."""
    import scipy.sparse as sp

    A = sp.csr_array(A, dtype=np.float64)
    n = A.shape[0]
    deg = np.asarray(A.sum(axis=1)).ravel()
    if np.any(deg == 0):
        raise ValueError("A must have no isolated vertex (degree 0).")
    P = sp.csr_array(A @ sp.diags_array(1.0 / deg))  # column stochastic: A D^{-1}
    starts = np.asarray(starts)
    X = np.zeros((n, starts.size))
    X[starts, np.arange(starts.size)] = 1.0
    w = deg.mean() / deg
    done = 0
    for t in sorted(set(int(t) for t in walk_lengths)):
        for _ in range(t - done):
            X = laziness * X + (1.0 - laziness) * (P @ X)
        done = t
        yield t, X.T @ (X[:, :n_ends] * w[:, None])


def _exact_gram(A, starts, ends, walk_length, laziness):
    """:func:`_exact_grams` at one walk length, for ``x`` in ``starts`` (rows) and ``y``
    in ``ends`` (columns)."""
    starts, ends = np.asarray(starts), np.asarray(ends)
    both = np.concatenate([ends, starts])
    (_, C), = _exact_grams(A, both, ends.size, [walk_length], laziness)
    return C[ends.size:]


def exact_walk_spectrum(A, y, walk_lengths, *, laziness=0.5, n_landmarks=None,
                        n_queries=1000, random_state=0):
    """The oracle's landmark Gram matrix without Monte Carlo noise, per walk length.

    For uniform landmarks (the oracle's default count for ``k`` clusters
    unless given) and random query vertices, computes the exact
    degree-normalised collision probabilities (endpoint distributions by
    matrix powers, weighted by ``dbar / deg(v)``) of the walk that stays with
    probability ``laziness`` (0.5: the oracle's ``walk="degree-normalised"``;
    0: the non-lazy walk), the eigenvalues of ``(n/s) G`` and, as a proxy for
    how well the exact embedding separates, the ARI of k-means on the
    queries' row-normalised embeddings ``alpha_x W_k Sigma_k^{-1}``. The
    distributions are propagated once through the sorted walk lengths, as a
    dense ``n x (s + n_queries)`` array (0.9 GB at ``n = 10**5`` with the
    defaults, held twice during a step; there the lengths 4 to 10 took 66 s
    on one core): meant for diagnosis.

    Parameters
    ----------
    A : sparse matrix of shape (n, n)
        Symmetric unweighted adjacency, no isolated vertex.
    y : array-like of shape (n,)
        True communities (``k = max(y) + 1``).
    walk_lengths : sequence of int
        Walk lengths to evaluate (each at least 1).
    laziness : float in [0, 1), default=0.5
        Probability of staying at each step.
    n_landmarks : int or None
        ``s``; default ``ceil(10 k ln(k+1) + 20)``, as the oracle's.
    n_queries : int, default=1000
        Query vertices for the ARI proxy (at most ``n``, drawn without replacement).
    random_state : int, default=0
        Seed of the landmarks, the queries and k-means.

    Returns
    -------
    pandas.DataFrame
        One row per walk length: ``t``, ``sigma_k``, ``sigma_k+1`` (eigenvalues
        of ``(n/s) G``), ``gap`` (their ratio) and ``ari``.

    Examples
    --------
    >>> from statlearn.studies._spectral_degrees import exact_walk_spectrum, lfr_graph
    >>> A, y, _ = lfr_graph(1000, 3.0, 0.3)
    >>> lazy = exact_walk_spectrum(A, y, [3, 8], n_queries=300)
    >>> eager = exact_walk_spectrum(A, y, [3], laziness=0.0, n_queries=300)
    >>> bool(lazy["ari"].iloc[0] < 0.8 < lazy["ari"].iloc[1]), bool(eager["ari"].iloc[0] > 0.9)
    (True, True)
    """
    from sklearn.cluster import KMeans
    from sklearn.metrics import adjusted_rand_score

    y = np.asarray(y)
    n = A.shape[0]
    if A.ndim != 2 or A.shape[1] != n:
        raise ValueError(f"A must be a square adjacency matrix, got shape {A.shape}.")
    if y.shape != (n,):
        raise ValueError(f"y must have one community per vertex ({n}), got shape {y.shape}.")
    if not 0.0 <= float(laziness) < 1.0:
        raise ValueError(f"laziness must be in [0, 1), got {laziness!r}.")
    ts = [int(t) for t in walk_lengths]
    if not ts or min(ts) < 1:
        raise ValueError(f"walk_lengths must be positive ints, got {list(walk_lengths)!r}.")
    if not 1 <= int(n_queries) <= n:
        raise ValueError(f"n_queries must be in [1, {n}], got {n_queries!r}.")
    k = int(y.max()) + 1
    s = int(n_landmarks) if n_landmarks is not None else math.ceil(10 * k * math.log(k + 1)
                                                                    + 20)
    if not k < s:
        raise ValueError(f"n_landmarks must exceed the number of communities {k}, got {s}.")
    rng = np.random.default_rng(random_state)
    landmarks = rng.integers(0, n, size=s)
    queries = rng.choice(n, size=int(n_queries), replace=False)
    rows = {}
    # the landmarks are the first s starts, so one propagation gives G and alpha together
    for t, C in _exact_grams(A, np.concatenate([landmarks, queries]), s, ts, laziness):
        G, alpha = C[:s], C[s:]
        vals, vecs = np.linalg.eigh(n / s * G)
        vals, vecs = vals[::-1], vecs[:, ::-1]
        emb = alpha @ (vecs[:, :k] / vals[:k])
        emb /= np.linalg.norm(emb, axis=1, keepdims=True)
        labels = KMeans(k, n_init=10, random_state=random_state).fit_predict(emb)
        rows[t] = {"t": t, "sigma_k": vals[k - 1], "sigma_k+1": vals[k],
                   "gap": vals[k - 1] / vals[k],
                   "ari": adjusted_rand_score(y[queries], labels)}
    rows = [rows[t] for t in ts]
    return pd.DataFrame(rows)

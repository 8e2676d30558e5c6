"""From the landmark Gram matrix to labelled cluster landmarks (shared by every build mode).

* :func:`embed_landmarks`: the eigendecomposition ``(n/s) G = W Sigma W^T``
  of the landmark Gram matrix, the refusal when its ``k``-th eigenvalue is not
  positive, the eigen-gap ``sigma_k / sigma_{k+1}`` with its warning below 2,
  and ``Psi = (n/s) W_k Sigma_k^{-2} W_k^T`` (Algorithm 3, ``InitOracle``, of
  Shen, Zhu, Peng and Huang 2026);
* :func:`label_landmarks`: the clusters of the cluster landmarks, either the
  connected components of the similarity graph ``H`` (edge when the estimated
  dot product ``alpha_u^T Psi alpha_v`` is at least the threshold; the
  construction of Shen and Peng 2023, which the paper builds on) or k-means on
  the landmarks' estimated spectral embeddings;
* :func:`cluster_score_scale`: with k-means, the norm of each cluster's mean
  landmark embedding, by which a query's cluster scores are divided (the
  cluster whose centroid is closest in angle wins);
* :func:`gap_ratio`, the eigen-gap ``sigma_k / sigma_{k+1}`` by which the
  automatic walk length is chosen (the candidates are in :mod:`._params`).
"""

from __future__ import annotations

import math

import numpy as np

from statlearn.utils._numba import one_blas_thread

from ._build import OracleConstructionError, warn_at_caller

__all__ = ["cluster_means", "cluster_score_scale", "embed_landmarks", "gap_ratio", "gram_spectrum",
           "label_landmarks", "length_rank", "noise_tier", "search_stops", "signal_to_noise",
           "similarity_components"]

#: the ``k``-th eigenvalue of ``(n/s) G`` must exceed this fraction of the first
EIG_TOL = 1e-8


def gap_ratio(eigenvalues, k):
    """``sigma_k / sigma_{k+1}`` (``inf`` when ``sigma_{k+1} <= 0 < sigma_k``)."""
    a, b = float(eigenvalues[k - 1]), float(eigenvalues[k]) if eigenvalues.size > k else 0.0
    if a <= 0:
        return 0.0
    return a / b if b > 0 else math.inf


#: ``walk_length_rule="noise-floor"``: ``sigma_k`` above this multiple of the noise edge
#: is a signal (a candidate the rule prefers)
NOISE_VALID = 1.5


def signal_to_noise(eigenvalues, k):
    """``sigma_k / nu``, with ``nu = max(0, -sigma_min)`` the noise edge of ``(n/s) G``.

    The exact landmark Gram matrix is positive semi-definite, so a negative eigenvalue
    of the estimate is Monte Carlo noise only; the noise spectrum is about symmetric
    (a semicircle of half-width ``2 sqrt(n/s) / R`` for the collision counts), so the
    most negative eigenvalue measures the edge of the noise bulk at any walk length,
    where ``sigma_{k+1}`` may still be signal. ``inf`` when nothing is negative.
    """
    a = float(eigenvalues[k - 1])
    nu = max(0.0, -float(np.min(eigenvalues)))
    if a <= 0:
        return 0.0
    return a / nu if nu > 0 else math.inf


def noise_tier(snr):
    """1: ``sigma_k`` is signal (``snr >= NOISE_VALID``), 0: it is in the noise."""
    return 1 if snr >= NOISE_VALID else 0


def length_rank(rule, ratio, snr):
    """Order of the walk-length candidates (the largest is chosen): the eigen-gap ratio
    (``rule="gap"``), or first the noise tier of ``sigma_k``, then the ratio
    (``"noise-floor"``)."""
    return (noise_tier(snr) if rule == "noise-floor" else 0, ratio)


def search_stops(rule, ratios, snrs, t, best_t, *, on_ties=True):
    """Whether the search ends after candidate ``t`` (``best_t``: the best so far).

    Both rules stop at the first candidate that does not beat a best with a ratio of at
    least 2 (``on_ties=False``: only at one whose ratio is below the best's, the batched
    search's reading). ``"noise-floor"`` also stops at the first candidate whose
    ``sigma_k`` is noise after one that was signal: the cluster eigenvalues only fall
    with ``t``.
    """
    if (t != best_t and ratios[best_t] >= 2
            and (on_ties or ratios[t] < ratios[best_t])):
        return True
    if rule != "noise-floor":
        return False
    return noise_tier(snrs[t]) == 0 and any(noise_tier(v) >= 1 for v in snrs.values())


def gram_spectrum(G, n):
    """Eigenvalues (descending) and eigenvectors of ``(n/s) G`` for an ``s x s`` Gram matrix."""
    with one_blas_thread():
        vals, vecs = np.linalg.eigh(n / G.shape[0] * G)
    return vals[::-1], vecs[:, ::-1]


def embed_landmarks(o, st, G, refuse):
    """Eigendecomposition of ``(n/s) G``, then ``Psi``, with the refusal and the gap warning.

    Sets ``o.gram_eigenvalues_``, ``o.eigengap_`` and ``o.psi_``. When the
    ``k``-th eigenvalue is not positive (at most ``EIG_TOL`` times the first),
    ``Sigma_k^{-1}`` does not exist: raises ``refuse(eigenvalues)``, the
    mode's :class:`~._build.OracleConstructionError` with its diagnostic. A gap
    ratio below 2 (``Psi`` ill-conditioned) warns once per attempt (``st.warned``).
    """
    p = o._p
    vals, vecs = gram_spectrum(G, o._g.n)
    o.gram_eigenvalues_ = vals
    o.eigengap_ = gap_ratio(vals, p.k)
    o.signal_to_noise_ = signal_to_noise(vals, p.k)
    if not vals[0] > 0 or vals[p.k - 1] <= EIG_TOL * vals[0]:
        raise refuse(vals)
    if o.eigengap_ < 2 and not st.warned:
        st.warned = True
        warn_at_caller(f"small eigen-gap sigma_k/sigma_(k+1) = {o.eigengap_:.3g} < 2 in the "
                       "landmark Gram matrix: Psi is ill-conditioned; check n_clusters and "
                       "walk_length.")
    wk = vecs[:, :p.k]
    o.psi_ = (o._g.n / p.s) * (wk / vals[:p.k] ** 2) @ wk.T


def similarity_components(alpha, psi, threshold):
    """Components of ``H`` (edge iff ``alpha_u psi alpha_v >= threshold``), one row at a time."""
    sc = alpha.shape[0]
    parent = np.arange(sc)

    def find(i):
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i in range(sc):
        row = alpha[i + 1:] @ (psi @ alpha[i])
        for j in np.flatnonzero(row >= threshold) + i + 1:
            ri, rj = find(i), find(j)
            if ri != rj:
                parent[max(ri, rj)] = min(ri, rj)
    roots = np.array([find(i) for i in range(sc)])
    # order components by their smallest member (roots are minima by construction)
    uniq = np.unique(roots)
    labels = np.searchsorted(uniq, roots).astype(np.int64)
    return labels, uniq.size


def label_landmarks(o, alpha, seed):
    """Clusters of the cluster landmarks, ``(labels, number of groups)``.

    ``landmark_clustering="threshold"``: the components of ``H``.
    ``"kmeans"``: k-means on the rows of ``alpha V_k Sigma_k^{1/2}`` (``Psi = V
    Sigma V^T``), normalised to unit length as in Ng, Jordan and Weiss, with a
    seed drawn from ``seed``. Either way clusters are numbered in the order of
    their first landmark.
    """
    p = o._p
    if o.landmark_clustering == "threshold":
        return similarity_components(alpha, o.psi_, p.threshold)
    from sklearn.cluster import KMeans

    w, V = np.linalg.eigh(o.psi_)
    top = np.argsort(w)[::-1][:p.k]
    emb = alpha @ (V[:, top] * np.sqrt(np.maximum(w[top], 0.0)))
    norms = np.linalg.norm(emb, axis=1, keepdims=True)
    emb = np.divide(emb, norms, out=np.zeros_like(emb), where=norms > 0)
    rs = int(seed.generate_state(1)[0])
    raw = KMeans(p.k, n_init=10, random_state=rs).fit_predict(emb)
    # order clusters by their first landmark (deterministic labels, as for H)
    first = {c: i for i, c in reversed(list(enumerate(raw)))}
    order = sorted(first, key=first.get)
    labels = np.array([order.index(c) for c in raw], dtype=np.int64)
    return labels, len(order)


def cluster_means(alpha, labels, k):
    """``(s, k)`` mean ``alpha`` row of each cluster's landmarks (one column per cluster).

    Examples
    --------
    >>> import numpy as np
    >>> from statlearn.cluster._embedding import cluster_means
    >>> cluster_means(np.array([[1.0, 0.0], [3.0, 0.0], [0.0, 2.0]]), np.array([0, 0, 1]), 2)
    array([[2., 0.],
           [0., 2.]])
    """
    return np.stack([alpha[labels == c].mean(axis=0) for c in range(k)], axis=1)


def cluster_score_scale(o, means):
    """Divisors of a query's ``k`` cluster scores: ones, or the centroid norms (k-means).

    ``means`` are the clusters' mean ``alpha`` rows (:func:`cluster_means`).
    A query's score for cluster ``c`` is its mean estimated dot product with
    the cluster's landmarks, ``<f_x, m_c>`` with ``m_c`` the mean of their
    estimated embeddings ``f_u``. With ``landmark_clustering="threshold"`` the
    largest score wins (the paper's rule; the divisors are 1). With
    ``"kmeans"`` the landmarks were grouped by the direction of their
    embeddings (rows normalised), so a query goes to the centroid closest in
    angle: the score is divided by ``||m_c|| = sqrt(m_c^T Psi m_c)`` (the
    query's own norm is common to every cluster). Without it the largest raw
    score favours the clusters of small volume, whose embeddings are longer.

    Raises :class:`~statlearn.cluster.OracleConstructionError` when a centroid
    norm is not positive and finite (a cluster without embedding signal).

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> import numpy as np
    >>> from statlearn.cluster._embedding import cluster_means, cluster_score_scale
    >>> o = SimpleNamespace(landmark_clustering="kmeans", psi_=np.eye(2),
    ...                     _p=SimpleNamespace(k=2))
    >>> alpha = np.array([[3.0, 0.0], [0.0, 1.0], [0.0, 1.0]])
    >>> cluster_score_scale(o, cluster_means(alpha, np.array([0, 1, 1]), 2)).tolist()
    [3.0, 1.0]
    """
    if o.landmark_clustering != "kmeans":
        return np.ones(o._p.k)
    sq = np.einsum("sc,st,tc->c", means, o.psi_, means)
    if not np.all(np.isfinite(sq) & (sq > 0)):
        raise OracleConstructionError(
            "a k-means cluster of the landmarks has a mean embedding of norm "
            f"{np.sqrt(np.maximum(sq, 0)).round(12).tolist()}: no embedding signal to "
            "score queries against.")
    return np.sqrt(sq)

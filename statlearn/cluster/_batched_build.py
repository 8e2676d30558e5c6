"""Build stages of the batched and prior modes: every estimate a median of batched estimates.

The paper's low-memory oracle (Shen, Zhu, Peng and Huang 2026): the landmark
Gram matrix of collision probabilities, each entry the median of
``n_repeats`` estimates of Algorithm 1 (``EstRWDot``, batches of
``batch_size`` walks; Algorithm 2, ``EstColliProb``), then ``Psi``
(Algorithm 3, see :mod:`._embedding`) and the collision probabilities
``alpha_u`` of the cluster landmarks with the landmarks (Algorithm 4,
``QueryDot``), which the queries compare with their own. The prior mode runs
the same stages with one batch of all ``n_walks`` walks per side (the
estimator of Gluch et al. 2021 and Shen and Peng 2023, which stores all
endpoints).

The estimated pairs of each matrix are computed in about 16 chunks, each
kept in the build state as soon as it is done (a stage per chunk), so a
stopped build resumes from the last chunk done.

``n_walks="auto"`` (:func:`_auto_walks_round`): after the Gram matrix of a
round (its walk-length search included), ``R`` doubles and the round runs
again, while the eigen-gap ratio ``sigma_k / sigma_{k+1}`` of that ``(n/s) G``
(the matrix ``Psi`` would be built from) is below 2, at most 16 times the
start, the rule of the fast mode. The batch size stays; every estimate's walks
are keyed by its ids and walk counters, so the last round is exactly the fixed
build with ``n_walks`` at the ``R`` kept, and the queries use that ``R``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from statlearn.utils._validation import _scalar

from ._build import BuildState, OracleConstructionError, Search, start_attempt
from ._embedding import (
    cluster_means,
    cluster_score_scale,
    embed_landmarks,
    gap_ratio,
    gram_spectrum,
    label_landmarks,
    length_rank,
    search_stops,
    signal_to_noise,
)
from ._params import AUTO_WALKS_DOUBLINGS, AUTO_WALKS_GAP, at_walks, walk_accounting
from ._walks import base_words, median_estimates

__all__ = ["BatchedBuildState", "alpha_from_estimates", "batched_stages", "estimates"]


@dataclass
class BatchedBuildState(BuildState):
    """:class:`~._build.BuildState` of the batched and prior builds, plus ``n_walks``: the
    walks per side of the current round (``n_walks="auto"`` doubles it; ``None`` until the
    first stage, then the ``R`` fit resolved)."""

    n_walks: int | None = None


def estimates(o, xs, ys, ids, base, t, p=None):
    """Median-over-repeats estimates; ``ids`` (n_pairs, m) name each pair."""
    p = p or o._p
    return median_estimates(o._g, xs, ys, ids, base, t, p.reps, p.n_batches, p.batch_size,
                            prior=p.prior, backend=o.backend, n_jobs=o.n_jobs)


def symmetric_from_upper(z, s):
    """``s x s`` symmetric matrix from its upper triangle in ``np.triu_indices`` order."""
    iu, ju = np.triu_indices(s)
    G = np.zeros((s, s))
    G[iu, ju] = z
    G[ju, iu] = z
    return G


def _chunked_estimates(o, st: BuildState, name, xs, ys, ids, base, t, label, p=None):
    """:func:`estimates` over the pairs in about 16 pieces, each kept in
    ``st.pieces[name]`` when done (a yield per piece)."""
    p = p or o._p
    parts = st.pieces.setdefault(name, {})
    n_pairs = xs.size
    chunk = max(1, -(-n_pairs // 16))
    for ci, lo in enumerate(range(0, n_pairs, chunk)):
        if ci in parts:
            continue
        hi = min(n_pairs, lo + chunk)
        parts[ci] = estimates(o, xs[lo:hi], ys[lo:hi], ids[lo:hi], base, t, p)
        yield f"{label} {hi}/{n_pairs} pairs", p.reps * (hi - lo) * 2 * p.n_walks * t


def _joined(st, name):
    """The pieces of ``st.pieces[name]`` in chunk order, as one array."""
    return np.concatenate([st.pieces[name][c] for c in sorted(st.pieces[name])])


def _search_walk_length(o, st, cands, sample):
    """The eigen-gap rule over ``cands`` (see the class Notes); returns the length chosen.

    Each candidate's Gram matrix uses ``min(n_repeats, 3)`` repeats and walks of
    its own; the search stops at the first decrease once a ratio of at least 2
    was seen.
    """
    g, p = o._g, o._p
    sel = replace(p, reps=min(p.reps, 3))
    base = base_words(sample.seeds["walk_length"])
    landmarks = sample.landmarks
    iu, ju = np.triu_indices(p.s)
    for t in cands:
        search = st.search or Search({}, False)
        if search.stopped:
            break
        if t in search.scores:
            continue
        name = f"select{t}"
        yield from _chunked_estimates(o, st, name, landmarks[iu], landmarks[ju],
                                      np.column_stack([iu, ju]), base, t,
                                      f"walk length t={t}", sel)
        G = symmetric_from_upper(_joined(st, name), p.s)
        vals = np.linalg.eigvalsh(g.n / p.s * G)[::-1]
        new = {**search.scores, t: gap_ratio(vals, p.k)}
        snr = {**search.snr, t: signal_to_noise(vals, p.k)}
        best = _best_length(o, new, snr)
        stop = search_stops(o.walk_length_rule, new, snr, t, best, on_ties=False)
        st.search = Search(new, stop, snr)
        del st.pieces[name]
    return _best_length(o, st.search.scores, st.search.snr)


def _best_length(o, scores, snr):
    """The candidate ranked first by the walk-length rule (ties: the shortest)."""
    rule = o.walk_length_rule
    return max(scores, key=lambda c: (length_rank(rule, scores[c], snr.get(c, 0.0)), -c))


def _auto_walks_round(o, st: BatchedBuildState, G):
    """``n_walks="auto"``: whether the round whose Gram matrix is ``G`` is the last.

    It is when ``n_walks`` is fixed, when the eigen-gap ratio of ``(n/s) G`` (the
    ``eigengap_`` the oracle would report) is at least 2, or when ``R`` is 16 times the
    start. Otherwise ``R`` doubles (``st.n_walks``, ``o._p``) and the round's search and
    Gram matrix are dropped, to be estimated again with the new ``R``.
    """
    p, first = o._p, o._build.first
    if not p.auto_walks:
        return True
    gap = gap_ratio(gram_spectrum(G, o._g.n)[0], p.k)
    if gap >= AUTO_WALKS_GAP or p.n_walks >= first.n_walks << AUTO_WALKS_DOUBLINGS:
        return True
    st.n_walks = 2 * p.n_walks
    o._p = at_walks(first, st.n_walks)
    st.search = None
    st.pieces.pop("gram", None)
    return False


def batched_stages(o, st: BatchedBuildState):
    """The stages of one attempt of the batched (or prior) build (see the module docstring)."""
    if o._build.first is None:
        o._build.first = o._p  # the parameters resolved by fit (R of the first round)
    if st.n_walks is None:
        st.n_walks = o._build.first.n_walks
    o._p = at_walks(o._build.first, st.n_walks)
    cands = o._build.cands
    sample = start_attempt(o, st)
    landmarks, cluster_landmarks = sample.landmarks, sample.cluster_landmarks
    while True:
        p = o._p
        if cands:
            t = yield from _search_walk_length(o, st, cands, sample)
            scores = st.search.scores
        else:
            t, scores = int(_scalar(o.walk_length)), {}
        iu, ju = np.triu_indices(p.s)
        yield from _chunked_estimates(o, st, "gram", landmarks[iu], landmarks[ju],
                                      np.column_stack([iu, ju]),
                                      base_words(sample.seeds["gram"]), t, f"Gram matrix t={t}")
        G = symmetric_from_upper(_joined(st, "gram"), p.s)
        if _auto_walks_round(o, st, G):
            break
        yield f"n_walks doubled to {st.n_walks}", 0
    for name, value in walk_accounting(p, len(cands)).items():
        setattr(o, name, value)
    o.walk_length_ = t
    o.walk_length_scores_ = scores
    embed_landmarks(o, st, G, lambda vals: OracleConstructionError(
        f"the {p.k}-th eigenvalue of the landmark Gram matrix is not positive "
        f"(eigenvalues {np.round(vals[:p.k + 1], 6).tolist()}): n_clusters too large "
        f"or the walks of length {t} do not separate clusters."))
    # cluster landmarks: alpha_u for every u in S'
    iu = np.repeat(np.arange(p.sc), p.s)
    jl = np.tile(np.arange(p.s), p.sc)
    yield from _chunked_estimates(o, st, "alpha", cluster_landmarks[iu], landmarks[jl],
                                  np.column_stack([iu, jl]),
                                  base_words(sample.seeds["clusters"]), t, "cluster landmarks")
    alpha = _joined(st, "alpha").reshape(p.sc, p.s)
    o._alpha_cluster = alpha
    o.walk_steps_fit_ = int(st.steps)
    o.walk_steps_per_query_ = int(p.reps * p.s * 2 * p.n_walks * t)
    o._query_base = base_words(sample.seeds["queries"])
    labels, n_comp = label_landmarks(o, alpha, sample.seeds["clusters"])
    o.landmark_labels_ = labels
    if n_comp != p.k:
        hint = (" (fewer than n_clusters: the threshold may exceed 1/|C_max|; with "
                "unbalanced clusters lower balance or threshold)") if n_comp < p.k else ""
        raise OracleConstructionError(
            f"the similarity graph on {p.sc} cluster landmarks has {n_comp} connected "
            f"components, expected n_clusters={p.k}{hint}.")
    o._score_scale = cluster_score_scale(o, cluster_means(alpha, labels, p.k))


def alpha_from_estimates(o, vertices):
    """``alpha_x`` of each query vertex: a median of batched estimates per landmark."""
    p = o._p
    q = vertices.size
    xs = np.repeat(vertices, p.s)
    jl = np.tile(np.arange(p.s), q)
    z = estimates(o, xs, o.landmarks_[jl], np.column_stack([xs, jl]), o._query_base,
                  o.walk_length_)
    return z.reshape(q, p.s)

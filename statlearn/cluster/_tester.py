"""Low-memory tester: is the graph one expander or two (Algorithm 5 of Shen et al. 2026)?"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from statlearn.utils import Summary, check_int, check_option, check_real, spawn_seeds
from statlearn.utils._results import compact_repr
from statlearn.utils._validation import _scalar

from ._embedding import gap_ratio
from ._graph import as_graph_access
from ._params import default_n_repeats, default_walk_length_candidates
from ._walks import BACKENDS, base_words, median_estimates

__all__ = ["ClusterCountTestResult", "test_one_vs_two_clusters"]


@dataclass(frozen=True)
class ClusterCountTestResult:
    """Outcome of :func:`test_one_vs_two_clusters`.

    Attributes
    ----------
    n_clusters : int
        The decision: 1 or 2.
    nu2 : float
        Second largest eigenvalue of ``(n/s) G``.
    eigenvalues : ndarray of shape (s,)
        All eigenvalues of ``(n/s) G``, descending.
    threshold : float
        Two clusters are declared when ``nu2 >= threshold``.
    n_samples, walk_length, batch_size, n_walks, n_repeats : int
        Parameters used (``n_walks`` is a multiple of ``batch_size``).
    peak_memory_words : int
        Words held at once (``s**2 + s + n_repeats`` plus the walk buffer).
    walk_steps : int
        Lazy-walk steps spent (the walk-length selection included).
    walk_length_scores : dict
        Eigen-gap score of each candidate walk length tried by the automatic
        choice (empty when ``walk_length`` was given).
    """

    n_clusters: int
    nu2: float
    eigenvalues: np.ndarray
    threshold: float
    n_samples: int
    walk_length: int
    batch_size: int
    n_walks: int
    n_repeats: int
    peak_memory_words: int
    walk_steps: int
    walk_length_scores: dict = field(default_factory=dict)

    __repr__ = compact_repr

    @property
    def two_clusters(self) -> bool:
        """Whether two clusters were declared."""
        return self.n_clusters == 2

    def summary(self) -> Summary:
        """Decision, statistic and cost as a :class:`~statlearn.utils.Summary`."""
        table = pd.DataFrame({
            "decision": [f"{self.n_clusters} cluster(s)"], "nu2": [self.nu2],
            "threshold": [self.threshold], "samples": [self.n_samples],
            "walk_length": [self.walk_length], "batch_size": [self.batch_size],
            "n_walks": [self.n_walks], "memory_words": [self.peak_memory_words],
            "walk_steps": [self.walk_steps]})
        return Summary("One vs two clusters (low-memory tester)", {"": table},
                       ("nu2 is the 2nd eigenvalue of (n/s) G; about 0 for one expander, "
                        "about 2 min(s1, s2)/s for two.",))

    def plot(self, ax=None):
        """Bar plot of the leading eigenvalues with the threshold; returns the Axes."""
        import matplotlib.pyplot as plt

        if ax is None:
            _, ax = plt.subplots(figsize=(4.5, 3.2))
        m = min(10, self.eigenvalues.size)
        ax.bar(np.arange(1, m + 1), self.eigenvalues[:m], color="C0")
        ax.axhline(self.threshold, color="C3", ls="--", label=f"threshold {self.threshold:g}")
        ax.set_xlabel("eigenvalue index")
        ax.set_ylabel("eigenvalue of (n/s) G")
        ax.set_title(f"decision: {self.n_clusters} cluster(s)")
        ax.legend(fontsize="small")
        return ax


def test_one_vs_two_clusters(graph, *, walk_length=None, batch_size=None, n_walks=None,
                             n_samples=None, n_repeats=None, threshold=0.6, max_degree=None,
                             backend="numba", n_jobs=None, random_state=None):
    """Decide whether a graph is one expander or two, with memory ``O(b)`` walks.

    Samples ``s`` vertices, estimates their Gram matrix ``G`` of collision
    probabilities with the batched estimator and declares two clusters when
    the second eigenvalue ``nu2`` of ``(n/s) G`` is at least ``threshold``.
    For one expander ``nu2`` is about 0; for two disjoint expanders of equal
    size it is about ``2 min(s1, s2) / s`` (``s1, s2`` sampled vertices per
    half), so the decision also needs a balanced sample: hence the default
    ``s = max(64, ceil(8 ln n))``. Memory ``O(b + s**2)``, time ``O(n / b)``
    walk steps per Gram entry; the paper shows ``S * T = Omega(n)`` for any
    random-walk tester.

    Parameters
    ----------
    graph : scipy.sparse matrix, tuple (indptr, indices) or query object
        Undirected, unweighted graph.
    walk_length : int, "auto" or None, default=None
        ``None`` or ``"auto"`` chooses it as :class:`SpectralClusteringOracle`
        does, by the eigen-gap rule over the candidates
        ``4, 8, ..., max(16, 8 ln n)``: each candidate ``t`` is scored by the
        clearer of the two hypotheses' gaps, ``max(nu1 / nu2, nu2 / nu3)`` of
        ``(n/s) G`` (one cluster: a gap after the first eigenvalue; two: after
        the second), with ``min(n_repeats, 3)`` repeats and walks of their own;
        the search stops at the first decrease once a score of 2 has been
        seen. The decision is then taken on fresh walks at the chosen length
        (reusing the selection walks would bias ``nu2``). A fixed length that
        mixes over the whole graph (e.g. ``8 ln n``) reads two weakly linked
        blocks as one cluster.
    batch_size : int or None
        ``b``; default ``ceil(sqrt(n))``.
    n_walks : int or None
        ``R``; default ``max(b, ceil(4 n / b))``.
    n_samples : int or None
        ``s``; default ``max(64, ceil(8 ln n))``.
    n_repeats : int or None
        Median size; default as in :class:`SpectralClusteringOracle`.
    threshold : float, default=0.6
        Decision threshold on ``nu2`` (not squared again).
    max_degree : int or None
        ``d`` of the ``d``-bounded convention.
    backend : {"numba", "numpy", "cupy"}, default="numba"
        Walk engine.
    n_jobs : int or None
        Numba threads, or on the array-API backends the number of
        pairs walked at once (each holding one batch: memory grows with it and
        with ``batch_size``; default 64 on NumPy). Results do not depend on it.
    random_state : None, int, SeedSequence, Generator or RandomState
        Seed (a ``Generator`` or ``RandomState`` gives it by one draw).

    Returns
    -------
    ClusterCountTestResult

    Examples
    --------
    >>> from statlearn.cluster import test_one_vs_two_clusters
    >>> from statlearn.datasets import make_planted_expanders, make_random_regular_graph
    >>> one = make_random_regular_graph(400, 8, random_state=0)
    >>> two, _ = make_planted_expanders([200, 200], 8, n_bridges=0, random_state=0)
    >>> kw = dict(n_repeats=1, walk_length=20, random_state=0)
    >>> [test_one_vs_two_clusters(g, **kw).n_clusters for g in (one, two)]
    [1, 2]
    """
    g = as_graph_access(graph, max_degree=max_degree)
    n = g.n
    check_option(backend, "backend", list(BACKENDS))
    walk_length = _scalar(walk_length)
    auto = walk_length is None or (isinstance(walk_length, str) and walk_length == "auto")
    if not auto:
        if isinstance(walk_length, str):
            check_option(walk_length, "walk_length", ["auto"])
        t = check_int(walk_length, "walk_length", low=1)
    s = max(64, math.ceil(8 * math.log(n))) if n_samples is None else check_int(
        n_samples, "n_samples", low=2)
    reps = default_n_repeats(n) if n_repeats is None else check_int(n_repeats, "n_repeats", low=1)
    b = math.ceil(math.sqrt(n)) if batch_size is None else check_int(batch_size, "batch_size",
                                                                        low=1)
    r = max(b, math.ceil(4 * n / b)) if n_walks is None else check_int(n_walks, "n_walks", low=1)
    b = min(b, r)
    n_batches = -(-r // b)
    threshold = check_real(threshold, "threshold")
    if n_jobs is not None:
        check_int(n_jobs, "n_jobs", low=1)
    seed_sample, seed_walks, seed_select = spawn_seeds(_scalar(random_state), 3)
    rng = np.random.default_rng(seed_sample)
    sample = rng.integers(0, n, size=s)
    iu, ju = np.triu_indices(s)
    pairs = np.column_stack([iu, ju])

    def spectrum(t, n_rep, base):
        z = median_estimates(g, sample[iu], sample[ju], pairs, base, t, n_rep, n_batches, b,
                             backend=backend, n_jobs=n_jobs)
        G = np.zeros((s, s))
        G[iu, ju] = z
        G[ju, iu] = z
        return np.linalg.eigvalsh(n / s * G)[::-1]

    steps = 0
    scores = {}
    if auto:
        sel_reps = min(reps, 3)
        sel_base = base_words(seed_select)
        for cand in default_walk_length_candidates(n):
            ev = spectrum(cand, sel_reps, sel_base)
            steps += sel_reps * iu.size * 2 * n_batches * b * cand
            scores[cand] = max(gap_ratio(ev, 1), gap_ratio(ev, 2))
            best = max(scores.values())
            if best >= 2 and scores[cand] < best:
                break
        t = max(scores, key=lambda c: (scores[c], -c))
    ev = spectrum(t, reps, base_words(seed_walks))
    nu2 = float(ev[1])
    steps += reps * iu.size * 2 * n_batches * b * t
    return ClusterCountTestResult(
        n_clusters=2 if nu2 >= threshold else 1, nu2=nu2, eigenvalues=ev, threshold=threshold,
        n_samples=s, walk_length=t, batch_size=b, n_walks=n_batches * b, n_repeats=reps,
        peak_memory_words=int(s * s + s + reps + b + 2), walk_steps=int(steps),
        walk_length_scores=scores)


# not a pytest test despite its name
test_one_vs_two_clusters.__test__ = False

"""The sublinear spectral clustering oracle with a memory/time trade-off."""

from __future__ import annotations

import math
import numbers
import os
import sys
import time
import warnings
from dataclasses import replace

import numpy as np
from sklearn.exceptions import NotFittedError
from threadpoolctl import ThreadpoolController

from statlearn.base import (
    FitStateMixin,
    Integral,
    Level,
    Options,
    ParamsMixin,
    Real,
    validate_params,
)
from statlearn.utils import check_int, spawn_seeds
from statlearn.utils._validation import _scalar

from ._fast import LandmarkIndex, OracleQueryResult, certify_moments, walk_rows
from ._graph import as_graph_access
from ._params import memory_layout, resolve
from ._walks import BACKENDS, _vertices, base_words, derive_keys, median_estimates

__all__ = ["OracleConstructionError", "OracleQueryResult", "SpectralClusteringOracle"]

_EIG_TOL = 1e-8
#: walks per chunk of a fast-mode query batch (bounds the query's working memory)
_QUERY_CHUNK_WALKS = 1 << 16
#: landmark walks advanced per kernel call in fast mode (one stage of the build each)
_WALK_ROWS_CHUNK = 1 << 16
_PHASES = ("landmarks", "walk_length", "gram", "clusters", "queries")


class OracleConstructionError(RuntimeError):
    """The similarity graph on the cluster landmarks did not have ``n_clusters`` components.

    The paper reports these runs as "construction failed": too few walks
    (estimates too noisy), a walk length that leaks across clusters or does
    not mix inside them, or ``n_clusters`` not matching the graph.
    """


def _warn(message, category=UserWarning):
    """Warn at the caller's line: the first frame outside the statlearn package.

    The build runs in stages (generators) under ``fit`` (wrapped by the base
    layer) or :meth:`SpectralClusteringOracle.resume`, so a fixed
    ``stacklevel`` would point into statlearn on one of the two paths.
    """
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    frame, level = sys._getframe(1), 2
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(root):
        frame, level = frame.f_back, level + 1
    warnings.warn(message, category, stacklevel=level)


def default_walk_length_candidates(n: int) -> tuple:
    """Powers of two from 4 up to ``max(16, 8 ln n)`` (``n = 3000``: 4..64)."""
    top = max(16, 8 * math.log(n))
    out, t = [], 4
    while t <= top:
        out.append(t)
        t *= 2
    return tuple(out)


class SpectralClusteringOracle(FitStateMixin, ParamsMixin):
    """Sublinear spectral clustering oracle with little memory (Shen, Zhu, Peng, Huang 2026).

    Built from query access to a graph (degree and neighbour queries), the
    oracle samples landmark vertices, estimates the collision probabilities
    of lazy random walks between them, and keeps a small structure ``D``
    (landmarks, the ``s x s`` matrix ``psi_`` and labelled cluster
    landmarks). It then answers :meth:`which_cluster` for any vertex in time
    sublinear in ``n``, without reading the whole graph. Collision
    probabilities are estimated batch by batch: ``batch_size`` sets the
    memory, ``n_walks`` (default ``4 n / batch_size``) the accuracy, so
    memory ``S`` and walk steps per query ``T`` trade off with ``S * T``
    roughly constant times ``n``.

    This is not a scikit-learn estimator: :meth:`fit` takes a graph (query
    access to an adjacency structure), not a feature matrix ``X``, and
    :meth:`predict` takes vertex ids, so scikit-learn's estimator checks do not
    apply. It still stores its constructor arguments unchanged and offers
    ``get_params``/``set_params``, so :func:`sklearn.base.clone` and pickling work.
    The parameters are checked when :meth:`fit` starts; the queries (and
    :meth:`resume`) answer only from a build made with the parameters the
    oracle has now: after ``set_params`` they raise
    :class:`~statlearn.base.StaleFitError` until the next :meth:`fit`, except
    for ``progress``, ``time_budget`` and ``n_jobs``, which change no answer.

    Parameters
    ----------
    n_clusters : int, default=2
        ``k``, the number of clusters.
    walk_length : int or "auto", default="auto"
        ``t``, steps of each lazy walk. ``"auto"`` picks, among
        ``walk_length_candidates``, the ``t`` whose landmark Gram matrix has
        the largest eigen-gap ratio ``sigma_k / sigma_{k+1}`` (see Notes).
    walk_length_candidates : sequence of int or None
        Candidates for ``"auto"``; default powers of two from 4 to
        ``max(16, 8 ln n)``. On very large graphs the window of good lengths
        narrows (walks must mix inside the clusters before they leak across);
        a finer grid there (e.g. ``[64, 76, 90, 107, 128]`` at ``n = 10**7``)
        finds it: in fast mode each candidate only costs a Gram matrix (the
        walks are continued, not redrawn).
    batch_size : int or None
        ``b``, walks per batch: the memory knob. Default ``ceil(sqrt(n))``,
        or derived from ``memory_budget``; clamped to ``n_walks``.
    memory_budget : int or None
        Words available to build ``D``; sets ``batch_size`` to the largest
        value with ``peak_memory_words_ <= memory_budget`` (in ``mode="prior"``
        it sets ``n_walks``). Give at most one of ``batch_size`` and
        ``memory_budget``.
    n_walks : int or None
        ``R``, walks per side of each estimate, rounded up to a multiple of
        ``batch_size``. Default ``max(b, ceil(4 n / b))`` (``ceil(sqrt(4 n))``
        in prior mode), so that every estimate compares about ``4 n`` walk
        pairs whatever ``b``.
    n_landmarks : int or None
        ``s``; default ``ceil(10 k ln(k+1) + 20)``.
    n_cluster_landmarks : int or None
        ``s'``; default ``ceil(10 k ln(k+1) / balance)``.
    n_repeats : int or None
        Independent estimates per entry, combined by their median; default
        ``ceil(log2(n)/2)``, at least 3, rounded up to odd.
    threshold : float or None
        ``theta``: cluster landmarks ``u, v`` are joined when their estimated
        dot product is at least ``theta``; a query vertex whose best dot
        product is below it gets ``outlier_label``. Default
        ``threshold_scale * balance * k / n``.
    threshold_scale : float, default=0.5
        Used when ``threshold`` is None.
    balance : float, default=1.0
        ``gamma`` in ``(0, 1]``, lower bound on ``|C_i| k / n``.
    max_degree : int or None
        ``d`` of the ``d``-bounded convention (vertex ``v`` gets
        ``d - deg(v)`` self-loops); default the largest degree.
    mode : {"batched", "prior", "fast"}, default="batched"
        ``"batched"`` is the paper's low-memory oracle. ``"prior"``
        reproduces the earlier oracles (Gluch et al. 2021; Shen & Peng
        2023): every estimate stores all ``n_walks`` endpoints of both walk
        sets (memory ``2 R``). ``"fast"`` draws each landmark's walks once at
        build time and keeps their endpoints (memory about ``s R`` words,
        ``R = 8 sqrt(n / k)`` by default); a query draws ``R`` walks once and
        compares them with every landmark (see Notes). ``batch_size``,
        ``memory_budget`` and ``n_repeats`` do not apply to it.
    error_rate : float in (0, 1) or None, default=None
        Fast mode only: answer queries sequentially. Each vertex starts with
        ``n_walks_`` walks and doubles them until its label is certified at
        this error probability or ``max_query_walks_`` is reached (see
        Notes). ``None``: a fixed ``n_walks_`` walks per query.
    max_query_walks : int or None
        Cap of the sequential queries; default ``32 * n_walks_``.
    landmark_clustering : {"threshold", "kmeans"}, default="threshold"
        How the cluster landmarks are grouped. ``"threshold"`` is the paper's
        similarity graph ``H`` (edge when the estimated dot product is at least
        ``threshold_``; construction fails unless ``H`` has ``n_clusters``
        components). ``"kmeans"`` runs k-means on the landmarks' estimated
        spectral embeddings (rows normalised, as in Ng, Jordan and Weiss),
        which always gives ``n_clusters`` groups: more robust on real graphs
        with unequal, less separated clusters (kNN graphs), with no
        certificate that the graph is clusterable (check ``eigengap_``).
    outlier_label : int, default=-1
        Label of vertices close to no cluster.
    max_retries : int, default=0
        Resample the landmarks this many times when construction fails.
    symmetrize : bool, default=False
        Accept a directed (non-symmetric) adjacency and use ``A + A^T``
        (weighted: ``(A + A^T) / 2``).
    weighted : bool, default=False
        Fast mode only: the entries of a sparse matrix (or the ``"weight"``
        attributes of a networkx graph) are edge weights, and walks are
        weighted lazy walks, ``W = (I + (A + diag(d - w)) / d) / 2`` with
        ``w`` the weighted degrees and ``d = max_degree`` (default the
        largest ``w``).
    progress : bool, default=False
        Show a progress bar of the build (tqdm), in walk steps, with the
        current stage (walk length being tried, Gram matrix, cluster
        landmarks).
    time_budget : float or None, default=None
        Seconds a call of :meth:`fit` (or :meth:`resume`) may spend on the
        build. When they are spent, the build stops after the current stage,
        keeps the stages done and warns; ``build_state_`` is then
        ``"partial"`` and the oracle refuses queries until :meth:`resume`
        finishes it. ``None``: no limit.
    backend : {"numba", "numpy", "cupy"}, default="numba"
        Walk engine: Numba kernels over CSR arrays, or the batched array-API
        path on NumPy or CuPy (GPU). Identical results.
    n_jobs : int or None
        Numba threads, or on the array-API backends the number of
        pairs walked at once (each holding one batch: memory grows with it and
        with ``batch_size``; default 64 on NumPy). Results do not depend on it.
    random_state : None, int, SeedSequence, Generator or RandomState
        Seed. Each estimate derives its own keys from it and the ids of its
        vertices, so answers do not depend on order, batching or threads. A
        ``Generator`` or ``RandomState`` gives the seed by one draw (each
        ``fit`` draws again).

    Attributes
    ----------
    n_vertices_, max_degree_ : int
        ``n`` and ``d``.
    walk_length_ : int or None
        ``t`` used (``None`` when ``n_clusters == 1``).
    walk_length_scores_ : dict
        Eigen-gap ratio per candidate (empty unless ``walk_length="auto"``).
    batch_size_, n_walks_, n_batches_, n_repeats_ : int
        ``b``, ``R`` (a multiple of ``b``), ``R / b`` and the median size.
    landmarks_ : ndarray of shape (s,)
        Landmark vertices ``I_S``.
    cluster_landmarks_ : ndarray of shape (s',)
        Vertices of the similarity graph ``H``.
    landmark_labels_ : ndarray of shape (s',)
        Cluster of each cluster landmark (components of ``H`` ordered by
        their first landmark).
    psi_ : ndarray of shape (s, s)
        ``(n/s) W_k Sigma_k^{-2} W_k^T`` from the eigendecomposition
        ``(n/s) G = W Sigma W^T`` of the landmark Gram matrix ``G``.
    gram_eigenvalues_ : ndarray of shape (s,)
        Eigenvalues of ``(n/s) G``, descending.
    eigengap_ : float
        ``sigma_k / sigma_{k+1}``.
    threshold_ : float
        ``theta`` used.
    peak_memory_words_ : int
        Words held at once while building ``D``, counted by the algorithm
        (sequential execution; see Notes).
    walk_buffer_words_ : int
        The part of it that holds walk endpoints: ``b`` (``2 R`` in prior mode).
    walk_steps_fit_ : int
        Lazy-walk steps spent building ``D``.
    walk_steps_per_query_ : int
        Steps per :meth:`which_cluster` call (``2 s R t n_repeats``).
    query_memory_words_ : int
        Words a query needs on top of ``D``.
    n_attempts_ : int
        Constructions tried (``1 + retries used``).
    build_state_ : {"complete", "partial", "failed"}
        ``"complete"``: the oracle answers queries. ``"partial"``: the build
        was stopped (``time_budget`` spent, or interrupted with ``Ctrl-C``,
        i.e. ``KeyboardInterrupt``, which is raised again after the state is
        saved); the work done is kept, queries raise ``NotFittedError`` and
        :meth:`resume` finishes the build. ``"failed"``: construction failed
        (``OracleConstructionError``).
    build_stage_ : str
        Last build stage completed (``"done"`` when complete).
    index_words_ : int
        Fast mode: words of the stored landmark endpoints (sorted, with their
        landmarks) and the ``s x k`` score weights, the long-lived part of ``D``.
    max_query_walks_ : int
        Fast mode: cap of the sequential queries.

    Notes
    -----
    Steps (spec A1-A6): sample ``s`` landmarks; estimate their Gram matrix of
    collision probabilities ``G_ij = <p^t_{s_i}, p^t_{s_j}>`` (median of
    ``n_repeats`` batched estimates); ``psi_`` from the top ``k``
    eigenpairs of ``(n/s) G``; estimate ``alpha_u`` (collision
    probabilities with the landmarks) for ``s'`` cluster landmarks; join
    ``u, v`` when ``alpha_u^T psi_ alpha_v >= theta``; construction succeeds
    when this graph has exactly ``k`` components. A query ``x`` computes
    ``alpha_x`` and returns the component of the cluster landmark with the
    largest ``alpha_x^T psi_ alpha_u``. Collision estimates use two
    independent walk sets, so self-collisions (``x = y``) are unbiased.

    *Memory.* ``peak_memory_words_`` counts what the sequential algorithm
    holds: ``b`` endpoints of the ``x`` walks of the current batch (sorted),
    the current ``y`` walk and a counter (the ``y`` walks are streamed), plus
    ``s**2 + s*s' + O(s + s')`` words for the landmark structures; so
    ``memory_budget`` gives ``b = budget - s**2 - s*s' - O(s + s')``. The
    Numba and array-API engines run many estimates in parallel for speed,
    which multiplies the walk buffer by the number of estimates in flight;
    the counter reports the algorithm, as in the paper's experiments.

    *Walk length.* The theory's ``t >= 20 ln n / phi**2`` assumes a huge
    conductance gap; on ordinary clusterable graphs it lets walks leak
    between clusters and construction fails (on the paper's SBM, ``t = 65``
    fails while ``t = 10..20`` works). ``walk_length="auto"`` estimates
    ``G`` for each candidate ``t`` on the same landmarks and keeps the
    ``t`` with the largest ``sigma_k / sigma_{k+1}`` of ``(n/s) G``: short
    walks that have not mixed inside the clusters inflate ``sigma_{k+1}``
    (concentrated walk distributions), long walks shrink ``sigma_k`` into the
    estimation noise. Candidates are tried in increasing order with
    ``min(n_repeats, 3)`` repeats, stopping at the first decrease once a
    ratio of at least 2 was seen; the Gram matrix is then estimated again at
    the chosen ``t`` with all repeats (memory stays ``s**2``).

    *Fast mode.* Each landmark ``j`` keeps the endpoints of ``R`` walks (set
    ``A_j``) in one sorted array of endpoints beside the landmark of each
    (about ``1.25 s R`` words; an endpoint is found by binary search). The Gram
    entry ``G_ij`` counts collisions of ``A_i`` with ``A_j``; the diagonal
    compares ``A_i`` with a second, independent set ``B_i`` (discarded after
    the build), so every entry is an unbiased estimate with one batch of
    ``R`` walks per side: the estimator of the batched mode with ``b = R``, in
    distribution (spec P1, P2, P7). A query draws its ``R`` walks once; each
    endpoint is looked up once and adds its counts to all ``s`` landmarks.
    Query walks are keyed by the vertex only, so a vertex gets the same answer
    in any batch; :meth:`predict` runs all asked vertices through one walk
    call and one look-up. The label is the cluster whose landmarks have the
    largest *mean* estimated dot product with the vertex (the batched mode
    takes the maximum over landmarks); outliers are vertices whose best mean
    is below ``threshold_``. Landmark walks are not redrawn per query and
    there is no median over repeats, which is where the batched mode spends
    its time; memory grows to about ``s R`` words instead of ``b``. For
    ``walk_length="auto"`` all candidates come from the same walks: only the
    ``2 s R`` walk positions are held, and they are continued from one
    candidate length to the next (the draws are counter based), so the search
    costs the steps of the longest candidate tried plus one Gram matrix per
    candidate; the candidate with the largest eigen-gap ratio is kept (its
    index; the current one is dropped when it loses). Construction fails with
    a diagnostic (eigenvalues near ``k``, the gap ratio, the component sizes
    of the similarity graph and the walk steps spent) after at most
    ``2 s R max(candidates) + s' R t`` walk steps: there are no hidden
    retries. ``peak_memory_words_`` counts the walk positions, the indexes,
    the Gram matrix and its eigenvectors (search), or the kept index, one
    chunk of cluster-landmark walks, ``psi_`` and the ``alpha`` rows
    (clusters), whichever is larger.
    Queries are processed in chunks of at most 65,536 walks, keeping only
    running sums per vertex, so a batch's working memory does not grow with
    its size.

    *Long builds.* The build runs in stages (landmark walks for one length
    and a chunk of landmarks, a Gram matrix, a chunk of cluster landmarks or
    of estimated pairs); each stage's result is kept as soon as it is done.
    ``progress=True`` shows them in a progress bar counted in walk steps.
    With ``time_budget`` the build stops after the stage during which the
    budget ran out, and an interruption (``Ctrl-C``) stops it where it is;
    either way ``build_state_`` is ``"partial"``, the oracle refuses queries
    (``NotFittedError``, never answers from a half-built ``D``) and
    :meth:`resume` finishes the build from the stages kept. The random streams
    are fixed per stage, so the resumed oracle equals the uninterrupted one.

    *Sequential queries (``error_rate``).* Given the built ``D``, a query
    walk ending at ``v`` yields the score vector ``h(v)`` (``k`` values, its
    contribution to every cluster's mean dot product); the walks are i.i.d.,
    so cluster scores are means of i.i.d. bounded samples, with ranges known
    from ``D``. After each doubling round ``r``, the best cluster is
    certified when, for every other cluster, the empirical Bernstein lower
    bound (Maurer and Pontil 2009) on the mean score difference is positive,
    and (unless ``force``) the best score is certified above or below
    ``threshold_``; every comparison gets error budget
    ``6 delta / (pi**2 r**2 (k (k - 1) + 2))``. By the union bound over rounds
    and comparisons, *with probability at least 1 - error_rate a certified
    label equals the label this oracle gives with infinitely many query
    walks* (the exact mean scores). The guarantee covers the query's Monte
    Carlo error only, not whether ``D`` itself separates the clusters (that
    is the construction's job). Uncertified answers (cap reached) are
    reported by :meth:`query`.

    *Resolved ambiguities.* Theory needs ``epsilon / phi**2`` very small (about
    ``1e-5``); this is documented, never enforced. A query close to no
    cluster gets ``outlier_label`` (``predict(..., force=True)`` returns the
    arg-max). Landmarks of degree 0 are resampled (a deviation from uniform
    sampling on isolated vertices only). Default threshold
    ``0.5 gamma k / n``; the same-cluster value is ``1/|C_i|``, so with very
    unbalanced clusters the threshold can exceed ``1/|C_max|`` and the
    similarity graph splits: the construction error then says so (lower
    ``balance`` or set ``threshold``). Only the Shen & Peng (2023)
    instantiation of the paper is implemented (the Gluch et al. one needs
    ``2**poly(k)`` preprocessing). Randomness: instead of spawning a
    ``SeedSequence`` per estimate, every estimate hashes the seed with the ids
    of its vertices, landmark and repeat into its own keys (same purpose:
    results independent of order and parallelism, and a vertex gets the same
    answer in any query batch).

    References
    ----------
    .. [1] R. Shen, X. Zhu, P. Peng, Z. Huang. Sublinear spectral clustering
       oracle with little memory. ICLR 2026 (OpenReview 0GpolO2auw).
    .. [2] R. Shen, P. Peng. A sublinear-time spectral clustering oracle with
       improved preprocessing time. NeurIPS 2023 (arXiv:2310.17878).
    .. [3] G. Gluch, M. Kapralov, S. Lattanzi, A. Mousavifar, C. Sohler.
       Spectral clustering oracles in sublinear time. SODA 2021.
    .. [4] A. Maurer, M. Pontil. Empirical Bernstein bounds and sample
       variance penalization. COLT 2009.

    Examples
    --------
    >>> from statlearn.cluster import SpectralClusteringOracle
    >>> from statlearn.datasets import make_planted_expanders
    >>> A, y = make_planted_expanders([300, 300], 10, n_bridges=10, random_state=0)
    >>> oracle = SpectralClusteringOracle(2, walk_length=8, random_state=0).fit(A)
    >>> labels = oracle.predict([0, 1, 2, 400, 500])
    >>> bool(labels[0] == labels[1] == labels[2] != labels[3] == labels[4])
    True
    >>> oracle.peak_memory_words_ < 10_000
    True
    >>> fast = SpectralClusteringOracle(2, mode="fast", error_rate=0.01, random_state=0).fit(A)
    >>> res = fast.query([0, 1, 400])
    >>> res.labels[0] == res.labels[1] != res.labels[2], bool(res.certified.all())
    (np.True_, True)
    """

    _parameter_constraints = {
        "n_clusters": [Integral(1)],  # at most the number of vertices: checked in fit
        "walk_length": [Options(["auto"]), Integral(1)],
        "walk_length_candidates": [None, "array-like"],  # each a positive int: fit checks
        "batch_size": [None, Integral(1)],
        "memory_budget": [None, Integral(1)],
        "n_walks": [None, Integral(1)],
        "n_landmarks": [None, Integral(1)],
        "n_cluster_landmarks": [None, Integral(1)],
        "n_repeats": [None, Integral(1)],
        "threshold": [None, Real()],
        "threshold_scale": [Real(0, None, closed="neither")],
        "balance": [Real(0, 1, closed="right")],
        # an int for unweighted graphs, and at least the largest degree: checked in fit
        "max_degree": [None, Real(0, None, closed="neither")],
        "mode": [Options(["batched", "prior", "fast"])],
        "error_rate": [None, Level()],
        "max_query_walks": [None, Integral(2)],
        "landmark_clustering": [Options(["threshold", "kmeans"])],
        "outlier_label": [Integral()],
        "max_retries": [Integral(0)],
        "symmetrize": ["boolean"],
        "weighted": ["boolean"],
        "progress": ["boolean"],
        "time_budget": [None, Real(0, None, allow_inf=True)],
        "backend": [Options(list(BACKENDS))],
        "n_jobs": [None, Integral(1)],
        "random_state": ["random_state"],
    }
    #: a bar, a time limit (a build that completes is the same with or without one: the
    #: random streams are fixed per stage) and threads / lanes (results do not depend on
    #: them) change no answer of a built oracle
    _output_free_params = ("progress", "time_budget", "n_jobs")

    def __init__(self, n_clusters=2, *, walk_length="auto", walk_length_candidates=None,
                 batch_size=None, memory_budget=None, n_walks=None, n_landmarks=None,
                 n_cluster_landmarks=None, n_repeats=None, threshold=None,
                 threshold_scale=0.5, balance=1.0, max_degree=None, mode="batched",
                 error_rate=None, max_query_walks=None, landmark_clustering="threshold",
                 outlier_label=-1, max_retries=0, symmetrize=False, weighted=False,
                 progress=False, time_budget=None, backend="numba", n_jobs=None,
                 random_state=None):
        self.n_clusters = n_clusters
        self.walk_length = walk_length
        self.walk_length_candidates = walk_length_candidates
        self.batch_size = batch_size
        self.memory_budget = memory_budget
        self.n_walks = n_walks
        self.n_landmarks = n_landmarks
        self.n_cluster_landmarks = n_cluster_landmarks
        self.n_repeats = n_repeats
        self.threshold = threshold
        self.threshold_scale = threshold_scale
        self.balance = balance
        self.max_degree = max_degree
        self.mode = mode
        self.error_rate = error_rate
        self.max_query_walks = max_query_walks
        self.landmark_clustering = landmark_clustering
        self.outlier_label = outlier_label
        self.max_retries = max_retries
        self.symmetrize = symmetrize
        self.weighted = weighted
        self.progress = progress
        self.time_budget = time_budget
        self.backend = backend
        self.n_jobs = n_jobs
        self.random_state = random_state

    # ------------------------------------------------------------------ helpers
    def _estimates(self, xs, ys, ids, base, t, p=None):
        """Median-over-repeats estimates; ``ids`` (n_pairs, m) name each pair."""
        p = p or self._p
        return median_estimates(self._g, xs, ys, ids, base, t, p.reps, p.n_batches,
                                p.batch_size, prior=p.prior, backend=self.backend,
                                n_jobs=self.n_jobs)

    def _sample_landmarks(self, rng, size):
        g = self._g
        out = rng.integers(0, g.n, size=size)
        for _ in range(1000):
            bad = np.flatnonzero(g.degrees(out) == 0)
            if bad.size == 0:
                return out.astype(np.int64)
            out[bad] = rng.integers(0, g.n, size=bad.size)
        raise ValueError("graph has (almost) only isolated vertices: could not sample "
                         "landmarks of positive degree.")

    @property
    def _auto_length(self) -> bool:
        return isinstance(_scalar(self.walk_length), str)

    def _warn_long_walks(self):
        """The checks the constraints leave: a warning on very long walks."""
        if not self._auto_length and int(_scalar(self.walk_length)) > 10**4:
            _warn(f"walk_length={self.walk_length} is very long (> 1e4 steps per walk).")

    def _candidates(self, n):
        if not self._auto_length:
            return ()
        cands = self.walk_length_candidates
        if cands is None:
            return default_walk_length_candidates(n)
        arr = np.asarray(cands, dtype=object)
        if arr.ndim != 1:
            raise TypeError("walk_length_candidates must be a 1-D sequence of positive ints, "
                            f"got shape {arr.shape}.")
        out = tuple(sorted({check_int(c, "walk_length_candidates", low=1) for c in arr}))
        if not out:
            raise ValueError("walk_length_candidates must not be empty.")
        return out

    # ------------------------------------------------------------------ fit
    def fit(self, graph, y=None):
        """Build the oracle's data structure ``D`` from query access to ``graph``.

        Parameters
        ----------
        graph : scipy.sparse matrix, networkx graph, tuple (indptr, indices) or query object
            Undirected graph: a sparse adjacency matrix (entries 1, or weights
            with ``weighted=True``), a networkx graph (vertex ``i`` is the
            ``i``-th node of ``graph.nodes``), CSR arrays, or any object with
            ``degree(v)``, ``neighbor(v, i)`` and ``n_vertices`` (pure-Python walks:
            small graphs only). A sparse matrix is checked once for symmetry and 0/1
            entries, which reads all its entries (``O(nnz)`` time, in place: no copy
            unless it holds duplicate entries or explicit zeros; the input is never
            modified); the oracle itself then only queries degrees and neighbours.
        y : None
            Ignored.

        Returns
        -------
        self

        Raises
        ------
        OracleConstructionError
            The similarity graph did not have ``n_clusters`` components in any
            of the ``1 + max_retries`` attempts.
        """
        self._warn_long_walks()
        weighted = bool(_scalar(self.weighted))
        if weighted and self.mode != "fast":
            raise ValueError("weighted=True needs mode='fast' (the batched and prior walk "
                             "engines are unweighted).")
        self._g = as_graph_access(graph, max_degree=_scalar(self.max_degree),
                                  symmetrize=bool(_scalar(self.symmetrize)), weighted=weighted)
        g = self._g
        cands = self._candidates(g.n)
        p = resolve(self, g.n, len(cands))
        self._p = p
        self.n_vertices_ = g.n
        self.max_degree_ = g.max_degree
        self.outlier_label_ = int(_scalar(self.outlier_label))
        self.batch_size_ = p.batch_size
        self.n_walks_ = p.n_walks
        self.n_batches_ = p.n_batches
        self.n_repeats_ = p.reps
        self.threshold_ = p.threshold
        self.walk_buffer_words_ = p.buffer_words
        self.walk_length_scores_ = {}
        if p.k == 1:
            self.walk_length_ = None if self._auto_length else int(_scalar(self.walk_length))
            empty = np.zeros(0, dtype=np.int64)
            self.landmarks_ = self.cluster_landmarks_ = self.landmark_labels_ = empty
            self.psi_ = np.zeros((0, 0))
            self.gram_eigenvalues_ = np.zeros(0)
            self.eigengap_ = math.inf
            self.peak_memory_words_ = 0
            self.walk_steps_fit_ = self.walk_steps_per_query_ = self.query_memory_words_ = 0
            self.n_attempts_ = 1
            self.build_state_, self.build_stage_ = "complete", "done"
            return self
        if g.indices is not None and g.indices.size == 0:
            raise ValueError("graph has no edges; with n_clusters > 1 there is nothing to "
                             "cluster.")
        with_walks, without = memory_layout(p.s, p.sc, p.k, p.reps, len(cands))
        self.peak_memory_words_ = max(with_walks + p.buffer_words, without)
        self.query_memory_words_ = p.s + p.sc + p.reps + p.buffer_words + 2
        if not self._auto_length:
            per = p.n_walks if p.fast else p.reps * p.s * 2 * p.n_walks
            self.walk_steps_per_query_ = int(per * int(_scalar(self.walk_length)))
        retries = int(_scalar(self.max_retries))
        self._build = {"seeds": spawn_seeds(_scalar(self.random_state), retries + 1),
                       "attempt": 0, "cands": cands, "state": {"steps": 0}}
        self.n_attempts_ = 1
        self.build_state_ = "partial"
        self.build_stage_ = "started"
        try:
            return self._run_build()
        except KeyboardInterrupt:
            # the stages done are kept for resume(), which answers only for these
            # parameters: record them as the fit's (fit did not return)
            self._record_fit()
            raise

    def resume(self):
        """Finish a build stopped by ``time_budget`` or an interruption.

        The stages completed before the stop are kept (``build_stage_`` names
        the last one) and the build goes on from there with the same random
        streams, so the finished oracle equals the one an uninterrupted
        :meth:`fit` gives. ``time_budget`` applies again to this call.

        Returns
        -------
        self

        Examples
        --------
        >>> from statlearn.cluster import SpectralClusteringOracle
        >>> from statlearn.datasets import make_planted_expanders
        >>> A, y = make_planted_expanders([300, 300], 10, n_bridges=10, random_state=0)
        >>> o = SpectralClusteringOracle(2, mode="fast", time_budget=0.0, random_state=0)
        >>> import warnings
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter("ignore")
        ...     o = o.fit(A)
        >>> o.build_state_
        'partial'
        >>> o.set_params(time_budget=None).resume().build_state_
        'complete'
        """
        self._check_fitted(resuming=True)
        validate_params(self)  # time_budget, progress and n_jobs may have changed
        if self.build_state_ == "complete":
            return self
        return self._run_build()

    def _run_build(self):
        """Run the build stages (generators yielding ``(stage, walk steps)`` after each
        committed piece of work) until done, the time budget is spent or an interrupt."""
        tb = _scalar(self.time_budget)
        budget = None if tb is None else float(tb)
        from tqdm.auto import tqdm

        bs = self._build
        p = self._p
        start = time.perf_counter()
        bar = tqdm(total=self._planned_steps(), disable=not bool(_scalar(self.progress)),
                   unit="step", unit_scale=True, desc="oracle build", leave=False)
        bar.update(bs["state"]["steps"])
        try:
            while True:
                st = bs["state"]
                st.setdefault("seed", bs["seeds"][bs["attempt"]])
                stages = (self._fast_stages if p.fast else self._batched_stages)(st, bs["cands"])
                try:
                    for stage, steps in stages:
                        st["steps"] += int(steps)
                        self.build_stage_ = stage
                        bar.update(int(steps))
                        # stages are coarse (tens to hundreds): show each one
                        bar.set_description(f"oracle build: {stage}", refresh=True)
                        if budget is not None and time.perf_counter() - start >= budget:
                            self.build_state_ = "partial"
                            _warn(
                                f"time_budget={budget:g} s spent: the oracle build stopped after "
                                f"stage {stage!r} ({st['steps']} walk steps); it cannot answer "
                                "queries yet. Call resume() to finish it (the work done is "
                                "kept).")
                            return self
                except OracleConstructionError:
                    if bs["attempt"] < int(_scalar(self.max_retries)):
                        bs["attempt"] += 1
                        bs["state"] = {"steps": 0}
                        self.n_attempts_ = bs["attempt"] + 1
                        continue
                    self.build_state_ = "failed"
                    raise
                self.build_state_ = "complete"
                self.build_stage_ = "done"
                return self
        except KeyboardInterrupt:
            self.build_state_ = "partial"
            raise
        finally:
            bar.close()

    def _planned_steps(self):
        """Walk steps of the whole build if the walk-length search runs to its end."""
        p, cands = self._p, self._build["cands"]
        t_max = max(cands) if cands else int(_scalar(self.walk_length))
        if p.fast:
            return 2 * p.s * p.n_walks * t_max + p.sc * p.n_walks * t_max
        per = 2 * p.n_walks
        pairs = p.s * (p.s + 1) // 2
        sel = min(p.reps, 3) * pairs * per * sum(cands) if cands else 0
        return sel + p.reps * (pairs + p.sc * p.s) * per * t_max

    def _start_stages(self, st):
        """Landmarks and per-phase seeds of this attempt (sampled once, then kept)."""
        if "landmarks" not in st:
            seeds = dict(zip(_PHASES, st["seed"].spawn(len(_PHASES))))
            rng = np.random.default_rng(seeds["landmarks"])
            landmarks = self._sample_landmarks(rng, self._p.s)
            cluster_landmarks = self._sample_landmarks(rng, self._p.sc)
            st["landmarks"] = (seeds, landmarks, cluster_landmarks)
        seeds, landmarks, cluster_landmarks = st["landmarks"]
        self.landmarks_ = landmarks
        self.cluster_landmarks_ = cluster_landmarks
        return seeds, landmarks, cluster_landmarks

    def _chunked_estimates(self, st, name, xs, ys, ids, base, t, label, p=None):
        """``_estimates`` over the pairs in about 16 pieces, each kept in ``st[name]`` when
        done (a yield per piece); returns the concatenated estimates via ``st``."""
        p = p or self._p
        parts = st.setdefault(name, {})
        n_pairs = xs.size
        chunk = max(1, -(-n_pairs // 16))
        for ci, lo in enumerate(range(0, n_pairs, chunk)):
            if ci in parts:
                continue
            hi = min(n_pairs, lo + chunk)
            parts[ci] = self._estimates(xs[lo:hi], ys[lo:hi], ids[lo:hi], base, t, p)
            yield f"{label} {hi}/{n_pairs} pairs", p.reps * (hi - lo) * 2 * p.n_walks * t

    def _batched_stages(self, st, cands):
        g, p = self._g, self._p
        seeds, landmarks, cluster_landmarks = self._start_stages(st)
        scores = {}
        if cands:
            sel = replace(p, reps=min(p.reps, 3))
            base = base_words(seeds["walk_length"])
            iu, ju = np.triu_indices(p.s)
            for t in cands:
                scores, stop = st.get("found", ({}, False))
                if stop:
                    break
                if t in scores:
                    continue
                name = f"select{t}"
                yield from self._chunked_estimates(st, name, landmarks[iu], landmarks[ju],
                                                   np.column_stack([iu, ju]), base, t,
                                                   f"walk length t={t}", sel)
                G = _symmetric_from_upper(np.concatenate([st[name][c] for c in
                                                          sorted(st[name])]), p.s)
                ratio = _gap_ratio(np.linalg.eigvalsh(g.n / p.s * G)[::-1], p.k)
                new = {**scores, t: ratio}
                best = max(new.values())
                st["found"] = (new, bool(best >= 2 and ratio < best))
                del st[name]
            scores = st["found"][0]
            t = max(scores, key=lambda c: (scores[c], -c))
        else:
            t = int(_scalar(self.walk_length))
        self.walk_length_ = t
        self.walk_length_scores_ = scores
        iu, ju = np.triu_indices(p.s)
        yield from self._chunked_estimates(st, "gram", landmarks[iu], landmarks[ju],
                                           np.column_stack([iu, ju]), base_words(seeds["gram"]),
                                           t, f"Gram matrix t={t}")
        G = _symmetric_from_upper(np.concatenate([st["gram"][c] for c in sorted(st["gram"])]),
                                  p.s)
        with _one_blas_thread():
            vals, vecs = np.linalg.eigh(g.n / p.s * G)
        vals, vecs = vals[::-1], vecs[:, ::-1]
        self.gram_eigenvalues_ = vals
        if not vals[0] > 0 or vals[p.k - 1] <= _EIG_TOL * vals[0]:
            raise OracleConstructionError(
                f"the {p.k}-th eigenvalue of the landmark Gram matrix is not positive "
                f"(eigenvalues {np.round(vals[:p.k + 1], 6).tolist()}): n_clusters too large "
                f"or the walks of length {t} do not separate clusters.")
        self.eigengap_ = _gap_ratio(vals, p.k)
        if self.eigengap_ < 2 and "warned" not in st:
            st["warned"] = True
            _warn(f"small eigen-gap sigma_k/sigma_(k+1) = {self.eigengap_:.3g} < 2 in the "
                  "landmark Gram matrix: Psi is ill-conditioned; check n_clusters and "
                  "walk_length.")
        wk = vecs[:, :p.k]
        self.psi_ = (g.n / p.s) * (wk / vals[:p.k] ** 2) @ wk.T
        # cluster landmarks: alpha_u for every u in S'
        iu = np.repeat(np.arange(p.sc), p.s)
        jl = np.tile(np.arange(p.s), p.sc)
        yield from self._chunked_estimates(st, "alpha", cluster_landmarks[iu], landmarks[jl],
                                           np.column_stack([iu, jl]),
                                           base_words(seeds["clusters"]), t,
                                           "cluster landmarks")
        alpha = np.concatenate([st["alpha"][c] for c in sorted(st["alpha"])]).reshape(p.sc, p.s)
        self._alpha_cluster = alpha
        self.walk_steps_fit_ = int(st["steps"])
        self.walk_steps_per_query_ = int(p.reps * p.s * 2 * p.n_walks * t)
        self._query_base = base_words(seeds["queries"])
        labels, n_comp = self._label_landmarks(alpha, seeds["clusters"])
        self.landmark_labels_ = labels
        if n_comp != p.k:
            hint = (" (fewer than n_clusters: the threshold may exceed 1/|C_max|; with "
                    "unbalanced clusters lower balance or threshold)") if n_comp < p.k else ""
            raise OracleConstructionError(
                f"the similarity graph on {p.sc} cluster landmarks has {n_comp} connected "
                f"components, expected n_clusters={p.k}{hint}.")

    def _fast_stages(self, st, cands):
        """Fast mode: every landmark's walks are drawn once; one sorted index of endpoints.

        Landmark walks (set A: walk ids ``0..R-1``, kept in the index; set B:
        ids ``R..2R-1``, only for the Gram diagonal) are advanced from one
        candidate walk length to the next (the Numba engine continues them;
        only their positions are held), so the search costs the steps of the
        longest candidate tried.
        """
        g, p = self._g, self._p
        seeds, landmarks, cluster_landmarks = self._start_stages(st)
        ts = list(cands) if cands else [int(_scalar(self.walk_length))]
        r = p.n_walks
        keys = derive_keys(base_words(seeds["gram"]), np.column_stack([landmarks,
                                                                      np.arange(p.s)]))
        rows = max(1, _WALK_ROWS_CHUNK // (2 * r))
        chunks = [(lo, min(p.s, lo + rows)) for lo in range(0, p.s, rows)]
        advancing = self.backend == "numba" and g.has_csr
        pos = st.setdefault("positions", {})
        for t in ts:
            scores, best, stop = st.get("found", ({}, None, False))
            if stop:
                break
            if t in scores:
                continue
            for ci, (lo, hi) in enumerate(chunks):
                step0, arr = pos.get(ci, (0, None))
                if step0 == t:
                    continue
                new = walk_rows(g, landmarks[lo:hi], keys[lo:hi], 0, 2 * r, t,
                                out=None if arr is None else arr.copy(), step0=step0,
                                backend=self.backend, n_jobs=self.n_jobs)
                pos[ci] = (t, new)
                yield f"landmark walks t={t}", (hi - lo) * 2 * r * (t - step0 if advancing
                                                                    else t)
            index = LandmarkIndex([pos[ci][1][:, :r] for ci in range(len(chunks))], r)
            G = np.zeros((p.s, p.s))
            for ci, (lo, hi) in enumerate(chunks):
                G[lo:hi] = index.collision_counts(pos[ci][1][:, :r])
                diag = index.collision_counts(pos[ci][1][:, r:])
                G[np.arange(lo, hi), np.arange(lo, hi)] = diag[np.arange(hi - lo),
                                                              np.arange(lo, hi)]
            G /= float(r * r)
            with _one_blas_thread():
                vals, vecs = np.linalg.eigh(g.n / p.s * G)
            vals, vecs = vals[::-1], vecs[:, ::-1]
            ratio = _gap_ratio(vals, p.k)
            new_scores = {**scores, t: ratio}
            if best is None or ratio > new_scores[best[0]]:
                best, stop = (t, index, vals, vecs), False
            else:
                stop = new_scores[best[0]] >= 2
            st["found"] = (new_scores, best, stop)
            yield f"Gram matrix t={t}", 0
        st.pop("positions", None)  # landmark walks are no longer needed
        scores, (t, index, vals, vecs), _ = st["found"]
        self.walk_length_ = t
        self.walk_length_scores_ = scores if cands else {}
        self.gram_eigenvalues_ = vals
        self.eigengap_ = _gap_ratio(vals, p.k)
        diag = (f"eigenvalues of (n/s) G near k: {np.round(vals[:p.k + 2], 4).tolist()}, "
                f"gap sigma_k/sigma_(k+1) = {self.eigengap_:.3g}")
        if not vals[0] > 0 or vals[p.k - 1] <= _EIG_TOL * vals[0]:
            raise _refusal(f"the {p.k}-th eigenvalue of the landmark Gram matrix is not "
                           f"positive at walk length {t}: no cluster structure at "
                           f"n_clusters={p.k} ({diag}; {st['steps']} walk steps spent).", vals,
                           None, st["steps"])
        if self.eigengap_ < 2 and "warned" not in st:
            st["warned"] = True
            _warn(f"small eigen-gap sigma_k/sigma_(k+1) = {self.eigengap_:.3g} < 2 in the "
                  "landmark Gram matrix: Psi is ill-conditioned; check n_clusters and "
                  "walk_length.")
        wk = vecs[:, :p.k]
        self.psi_ = (g.n / p.s) * (wk / vals[:p.k] ** 2) @ wk.T
        # cluster landmarks: fresh walks against the stored landmark walks, a chunk at a time
        ckeys = derive_keys(base_words(seeds["clusters"]),
                            np.column_stack([cluster_landmarks, np.arange(p.sc)]))
        parts = st.setdefault("alpha", {})
        rows = max(1, _WALK_ROWS_CHUNK // r)
        for ci, lo in enumerate(range(0, p.sc, rows)):
            if ci in parts:
                continue
            hi = min(p.sc, lo + rows)
            ends = walk_rows(g, cluster_landmarks[lo:hi], ckeys[lo:hi], 0, r, t,
                             backend=self.backend, n_jobs=self.n_jobs)
            parts[ci] = index.collision_counts(ends) / float(r * r)
            del ends
            yield f"cluster landmarks {hi}/{p.sc}", (hi - lo) * r * t
        alpha = np.concatenate([parts[c] for c in sorted(parts)])
        self._alpha_cluster = alpha
        self._index = index
        labels, n_comp = self._label_landmarks(alpha, seeds["clusters"])
        self.landmark_labels_ = labels
        self.walk_steps_fit_ = int(st["steps"])
        self.walk_steps_per_query_ = int(r * t)
        self._query_base = base_words(seeds["queries"])
        if n_comp != p.k:
            sizes = np.bincount(labels).tolist()
            hint = (" (fewer than n_clusters: the threshold may exceed 1/|C_max|; with "
                    "unbalanced clusters lower balance or threshold)") if n_comp < p.k else ""
            raise _refusal(
                f"the similarity graph on {p.sc} cluster landmarks has {n_comp} connected "
                f"components (sizes {sizes}), expected n_clusters={p.k}{hint}; {diag}; "
                f"{self.walk_steps_fit_} walk steps spent.", vals, sizes, self.walk_steps_fit_)
        # per-landmark weights of a walk's cluster scores: the mean over a query's walks of
        # sum_j c_j(endpoint) W[j] is alpha_x^T Psi (mean alpha_u over the component)
        means = np.stack([alpha[labels == c].mean(axis=0) for c in range(p.k)], axis=1)
        self._weights = (self.psi_ @ means) / float(r)
        # range of one walk's score (and score difference) over every possible endpoint,
        # including those no landmark walk reached (score 0)
        self._score_range = index.score_range(self._weights)
        self.index_words_ = index.words + self._weights.size
        # words held at once (sequential count; positions and endpoints one word each):
        # search = the 2 s R walk positions, the current and the best index (one when a
        # single length is tried), the Gram matrix and its eigenvectors; clusters = the
        # kept index, one chunk of cluster-landmark walks, Psi and the alpha rows
        search = 2 * p.s * r + (1 if len(scores) == 1 else 2) * index.words + 2 * p.s * p.s
        clusters = index.words + min(p.sc, rows) * r + p.s * p.s + p.s * p.sc
        self.peak_memory_words_ = int(max(search, clusters) + p.s * p.k + 3 * (p.s + p.sc))
        self.walk_buffer_words_ = int(index.words)
        self.query_memory_words_ = int(2 * r + p.s + p.k)
        qmax = self.max_query_walks
        self.max_query_walks_ = int(_scalar(qmax)) if qmax is not None else 32 * r

    def _query_walks(self, vertices, first, count):
        """Positions of query walks ``first..first+count-1`` (keyed by the vertex only)."""
        keys = derive_keys(self._query_base,
                           np.column_stack([vertices, np.zeros(vertices.size, dtype=np.int64)]))
        return walk_rows(self._g, vertices, keys, first, count, self.walk_length_,
                         backend=self.backend, n_jobs=self.n_jobs)

    def _fast_moments(self, vertices, which, first, count, s1, s2):
        """Add the cluster scores of walks ``first..first+count-1`` of ``vertices[which]``
        to the running sums ``s1`` (scores) and ``s2`` (products), in chunks of at most
        ``_QUERY_CHUNK_WALKS`` walks, so memory does not grow with the number of queries."""
        per = max(1, _QUERY_CHUNK_WALKS // max(count, 1))
        k = self._p.k
        for lo in range(0, which.size, per):
            idx = which[lo:lo + per]
            ends = self._query_walks(vertices[idx], first, count)
            z = self._index.walk_scores(ends, self._weights).reshape(idx.size, count, k)
            del ends
            s1[idx] += z.sum(axis=1)
            s2[idx] += np.einsum("qwc,qwd->qcd", z, z)

    def query(self, vertices, *, force=False):
        """Labels with their certificates (``mode="fast"``; sequential if ``error_rate``).

        Every vertex draws ``n_walks_`` walks; with ``error_rate`` set, vertices
        whose decision is not yet certain double their walks (all such vertices
        in one call, sharing the walk engine and the index look-ups) until the
        empirical Bernstein test certifies the label or ``max_query_walks_`` is
        reached (see Notes of the class).

        Parameters
        ----------
        vertices : array-like of int, shape (q,)
        force : bool, default=False
            No outlier label (the threshold test is skipped).

        Returns
        -------
        OracleQueryResult

        Examples
        --------
        >>> from statlearn.cluster import SpectralClusteringOracle
        >>> from statlearn.datasets import make_planted_expanders
        >>> A, y = make_planted_expanders([300, 300], 10, n_bridges=10, random_state=0)
        >>> o = SpectralClusteringOracle(2, mode="fast", error_rate=0.05, random_state=0)
        >>> res = o.fit(A).query([3, 500])
        >>> bool(res.labels[0] != res.labels[1]), bool(res.certified.all())
        (True, True)
        """
        self._check_fitted()
        v = self._check_vertices(vertices)
        p = self._p
        if not p.fast:
            raise ValueError("query needs mode='fast'.")
        if p.k == 1:
            z = np.zeros(v.size, dtype=np.int64)
            return OracleQueryResult(z, np.ones(v.size, bool), z, np.zeros((v.size, 1)),
                                     None if self.error_rate is None
                                     else float(_scalar(self.error_rate)))
        er = None if self.error_rate is None else float(_scalar(self.error_rate))
        r0 = p.n_walks
        q = v.size
        labels = np.zeros(q, dtype=np.int64)
        certified = np.zeros(q, dtype=bool)
        used = np.zeros(q, dtype=np.int64)
        means = np.zeros((q, p.k))
        if q == 0:
            return OracleQueryResult(labels, certified, used, means, er)
        k = p.k
        s1 = np.zeros((q, k))
        s2 = np.zeros((q, k, k))
        self._fast_moments(v, np.arange(q), 0, r0, s1, s2)
        used[:] = r0
        if er is None:
            means = s1 / r0
            labels = np.argmax(means, axis=1).astype(np.int64)
            above = means.max(axis=1) >= self.threshold_
        else:
            thr = None if force else self.threshold_
            above = np.ones(q, dtype=bool)
            pending = np.arange(q)
            r = 1
            while pending.size:
                still = []
                for i in pending:
                    best, ok, ab, m = certify_moments(used[i], s1[i], s2[i], er,
                                                      self._score_range, thr, r)
                    labels[i], above[i], means[i] = best, ab, m
                    if ok:
                        certified[i] = True
                    elif used[i] < self.max_query_walks_:
                        still.append(i)
                pending = np.array(still, dtype=np.int64)
                if pending.size:
                    # doubling: every pending vertex (all have the same count) draws as many
                    # new walks as it has, continuing its walk ids
                    n_have = int(used[pending[0]])
                    extra = min(n_have, self.max_query_walks_ - n_have)
                    self._fast_moments(v, pending, n_have, extra, s1, s2)
                    used[pending] += extra
                    r += 1
        if not force:
            labels[~above] = self.outlier_label_
        return OracleQueryResult(labels, certified, used, means, er)

    def _label_landmarks(self, alpha, seed):
        """Clusters of the cluster landmarks: components of ``H`` or k-means (see Notes)."""
        p = self._p
        if self.landmark_clustering == "threshold":
            return _similarity_components(alpha, self.psi_, p.threshold)
        from sklearn.cluster import KMeans

        w, V = np.linalg.eigh(self.psi_)
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

    # ------------------------------------------------------------------ queries
    def _alpha(self, vertices):
        p = self._p
        q = vertices.size
        if q == 0:
            return np.zeros((0, p.s))
        if p.fast:
            out = np.empty((q, p.s))
            per = max(1, _QUERY_CHUNK_WALKS // p.n_walks)
            for lo in range(0, q, per):
                ends = self._query_walks(vertices[lo:lo + per], 0, p.n_walks)
                out[lo:lo + per] = self._index.collision_counts(ends) / float(p.n_walks) ** 2
            return out
        xs = np.repeat(vertices, p.s)
        jl = np.tile(np.arange(p.s), q)
        z = self._estimates(xs, self.landmarks_[jl], np.column_stack([xs, jl]),
                            self._query_base, self.walk_length_)
        return z.reshape(q, p.s)

    def _check_fitted(self, method=None, *, resuming=False):
        """Refuse unless built, with the parameters the oracle has now.

        Raises ``NotFittedError`` before :meth:`fit`, after a failed build and (for
        the queries) while the build is partial; :class:`~statlearn.base.StaleFitError`
        when a parameter that shapes the answers changed since :meth:`fit`.
        ``resuming=True`` (:meth:`resume`) accepts a partial build and refuses a failed
        one with :class:`OracleConstructionError`.
        """
        state = self.__dict__.get("build_state_")
        if state == "failed":
            if resuming:
                raise OracleConstructionError("the build failed (see the error fit raised); "
                                              "there is nothing to resume: call fit again.")
            raise NotFittedError(
                f"the oracle build failed (stopped after stage {self.build_stage_!r}): it "
                "cannot answer queries; fit again.")
        if resuming and "_build" not in self.__dict__:
            raise NotFittedError(f"this {type(self).__name__} instance has no build to resume; "
                                 "call fit(graph) first.")
        super()._check_fitted(method)
        if state != "complete" and not resuming:
            raise NotFittedError(
                f"the oracle build is {state} (stopped after stage {self.build_stage_!r}): it "
                "cannot answer queries. Call resume() to finish a partial build, or fit "
                "again.")

    def _check_vertices(self, vertices, name="vertices"):
        arr = np.asarray(vertices)
        if arr.ndim != 1:
            raise ValueError(f"{name} must be a 1-D array of vertex ids, got shape {arr.shape}.")
        return _vertices(arr, name, self.n_vertices_)

    def embedding_dots(self, vertices):
        """Estimated ``<f_x, f_u>`` of each vertex with each cluster landmark.

        Parameters
        ----------
        vertices : array-like of int, shape (q,)

        Returns
        -------
        ndarray of shape (q, s')
        """
        self._check_fitted()
        v = self._check_vertices(vertices)
        if self._p.k == 1:
            raise ValueError("embedding_dots needs the Psi matrix, which is not built when "
                             "n_clusters=1.")
        return self._alpha(v) @ self.psi_ @ self._alpha_cluster.T

    def predict(self, vertices, *, force=False):
        """Cluster of each vertex (``WhichCluster``), ``outlier_label`` if none is close.

        Parameters
        ----------
        vertices : array-like of int, shape (q,)
            Vertex ids in ``[0, n)``.
        force : bool, default=False
            Return the best cluster even when its dot product is below
            ``threshold_`` (no outliers).

        Returns
        -------
        ndarray of int64, shape (q,)
        """
        self._check_fitted()
        v = self._check_vertices(vertices)
        if self._p.k == 1:
            return np.zeros(v.size, dtype=np.int64)
        if self._p.fast:
            return self.query(v, force=force).labels
        dots = self._alpha(v) @ self.psi_ @ self._alpha_cluster.T
        k = self._p.k
        best = np.full((v.size, k), -np.inf)
        for c in range(k):
            best[:, c] = dots[:, self.landmark_labels_ == c].max(axis=1)
        label = np.argmax(best, axis=1).astype(np.int64)
        if not force:
            label[best.max(axis=1) < self.threshold_] = self.outlier_label_
        return label

    def which_cluster(self, v, *, force=False):
        """Cluster of one vertex (see :meth:`predict`).

        Parameters
        ----------
        v : int
            Vertex id.
        force : bool, default=False
            No outlier label.

        Returns
        -------
        int
        """
        self._check_fitted()
        v = _scalar(v)
        if isinstance(v, bool | np.bool_) or not isinstance(v, numbers.Integral):
            raise TypeError(f"v must be an integer vertex id, got {v!r}.")
        return int(self.predict(np.array([v]), force=force)[0])

    def dot(self, x, y):
        """Estimate of the spectral dot product ``<f_x, f_y>`` (``QueryDot``).

        Parameters
        ----------
        x, y : int
            Vertex ids.

        Returns
        -------
        float
        """
        self._check_fitted()
        x, y = _scalar(x), _scalar(y)
        for name, val in (("x", x), ("y", y)):
            if isinstance(val, bool | np.bool_) or not isinstance(val, numbers.Integral):
                raise TypeError(f"{name} must be an integer vertex id, got {val!r}.")
        v = self._check_vertices(np.array([x, y]))
        if self._p.k == 1:
            raise ValueError("dot needs the Psi matrix, which is not built when n_clusters=1.")
        a = self._alpha(v)
        return float(a[0] @ self.psi_ @ a[1])

    def fit_predict(self, graph, y=None):
        """Fit, then label every vertex (``O(n T)``: for evaluation, defeats sublinearity).

        Parameters
        ----------
        graph : scipy.sparse matrix, tuple (indptr, indices) or query object
        y : None
            Ignored.

        Returns
        -------
        ndarray of int64, shape (n,)
        """
        self.fit(graph)
        return self.predict(np.arange(self.n_vertices_))


def _refusal(message, eigenvalues, component_sizes, walk_steps):
    """Construction error carrying its diagnostic (eigenvalues, components, steps spent)."""
    exc = OracleConstructionError(message)
    exc.walk_steps = int(walk_steps)
    exc.eigenvalues = eigenvalues
    exc.component_sizes = component_sizes
    return exc


_BLAS = []


def _one_blas_thread():
    """Context running BLAS on one thread: the small eigenproblems here take ~0.1 s
    instead of ~0.3 ms when several BLAS threads wait for busy cores. The controller is
    made once (building it scans the loaded libraries)."""
    if not _BLAS:
        _BLAS.append(ThreadpoolController())
    return _BLAS[0].limit(limits=1, user_api="blas")


def _symmetric_from_upper(z, s):
    """``s x s`` symmetric matrix from its upper triangle in ``np.triu_indices`` order."""
    iu, ju = np.triu_indices(s)
    G = np.zeros((s, s))
    G[iu, ju] = z
    G[ju, iu] = z
    return G


def _gap_ratio(eigenvalues, k):
    """``sigma_k / sigma_{k+1}`` (``inf`` when ``sigma_{k+1} <= 0 < sigma_k``)."""
    a, b = float(eigenvalues[k - 1]), float(eigenvalues[k]) if eigenvalues.size > k else 0.0
    if a <= 0:
        return 0.0
    return a / b if b > 0 else math.inf


def _similarity_components(alpha, psi, threshold):
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

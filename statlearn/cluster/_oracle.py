"""The sublinear spectral clustering oracle: the estimator, its fit, resume and queries.

The build runs in stages (:mod:`._build`; batched and prior: :mod:`._batched_build`,
fast: :mod:`._landmark_index`); the queries: :mod:`._oracle_queries` (fast-mode
certificates: :mod:`._certified_queries`).
"""

from __future__ import annotations

import numpy as np

from statlearn.base import (
    FitStateMixin,
    Integral,
    Level,
    Options,
    ParamsMixin,
    Real,
    validate_params,
)
from statlearn.utils import spawn_seeds
from statlearn.utils._validation import _scalar

from ._batched_build import BatchedBuildState, batched_stages
from ._build import (
    Build,
    check_built,
    one_cluster_build,
    run_build,
    warn_at_caller,
)
from ._graph import WALKS, as_graph_access
from ._landmark_index import FastBuildState, fast_stages
from ._oracle_queries import OracleQueries
from ._params import refuse_inactive, resolve, walk_accounting, walk_length_candidates
from ._walks import BACKENDS

__all__ = ["SpectralClusteringOracle"]


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
        ``max(16, 8 ln n)``; with a ``laziness`` ``l`` other than 0.5 a finer
        grid (ratio ``sqrt 2``) scaled by ``1 / (2 (1 - l))``, from
        ``max(2, 4 / (2 (1 - l)))`` (``l = 0.1``, ``n = 10**4``: 2, 3, 4, 6,
        8, 11, 16, 23, 32). On very large graphs the window of good lengths
        narrows (walks must mix inside the clusters before they leak across);
        a finer grid there (e.g. ``[64, 76, 90, 107, 128]`` at ``n = 10**7``)
        finds it: in fast mode each candidate only costs a Gram matrix (the
        walks are continued, not redrawn). Refused with a fixed ``walk_length``.
    walk_length_rule : {"gap", "noise-floor"}, default="gap"
        How ``"auto"`` ranks the candidates. ``"gap"``: the largest eigen-gap
        ratio ``sigma_k / sigma_{k+1}``. ``"noise-floor"``: for graphs where
        that ratio never reaches 2 (weak communities, where it stays near 1
        at every length and its maximum falls on noise), each candidate's
        ``sigma_k`` is compared with the noise edge ``nu = max(0,
        -sigma_min)`` of the same ``(n/s) G`` (the exact Gram matrix is
        positive semi-definite, so its negative eigenvalues are Monte Carlo
        noise): candidates with ``sigma_k >= 1.5 nu`` come first, the ratio
        deciding among them (and among the rest when none is), and the search
        stops at the first candidate whose ``sigma_k`` is below ``1.5 nu``
        after one above it (``signal_to_noise_`` reports ``sigma_k / nu`` of
        the kept Gram matrix). ``n_walks="auto"`` keeps its own rule. Refused
        (unless ``"gap"``) with a fixed ``walk_length``.
    batch_size : int or None
        ``b``, walks per batch: the memory knob. Default ``ceil(sqrt(n))``,
        or derived from ``memory_budget``; clamped to ``n_walks``.
    memory_budget : int or None
        Words available to build ``D``; sets ``batch_size`` to the largest
        value with ``peak_memory_words_ <= memory_budget`` (in ``mode="prior"``
        it sets ``n_walks``). Give at most one of ``batch_size`` and
        ``memory_budget``.
    n_walks : int, "auto" or None
        ``R``, walks per side of each estimate, rounded up to a multiple of
        ``batch_size``. Default ``max(b, ceil(4 n / b))`` (``ceil(sqrt(4 n))``
        in prior mode, ``max(16, ceil(8 sqrt(n / k)))`` in fast mode), so that
        every estimate compares about ``4 n`` walk pairs whatever ``b``.
        ``"auto"`` (every mode): start at the mode's default and double ``R``,
        searching the walk length again, until the eigen-gap ratio ``sigma_k /
        sigma_{k+1}`` of ``(n/s) G`` reaches 2 or ``R`` is 16 times the start
        (see Notes); ``n_walks_`` is the ``R`` kept, and queries use it. In
        prior mode it cannot be combined with ``memory_budget`` (there the
        budget fixes ``R``).
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
        Used when ``threshold`` is None; another value next to a ``threshold`` is
        refused.
    balance : float, default=1.0
        ``gamma`` in ``(0, 1]``, lower bound on ``|C_i| k / n``.
    max_degree : int or None
        ``d`` of the ``d``-bounded convention (vertex ``v`` gets
        ``d - deg(v)`` self-loops); default the largest degree.
    walk : {"d-bounded", "degree-normalised"}, default="d-bounded"
        The lazy walk. ``"d-bounded"`` is the paper's (moves with probability
        ``deg(v) / (2d)``). ``"degree-normalised"`` is the lazy random walk of
        the graph (moves with probability 1/2 to a uniform neighbour), its
        collisions weighted by the inverse stationary distribution (``dbar /
        deg(v)``): the random-walk counterpart of the normalised-Laplacian
        embedding, for graphs with heterogeneous degrees. Every mode; not with
        ``weighted=True`` or query objects.
    laziness : float in [0, 1), default=0.5
        ``walk="degree-normalised"`` only: the probability ``l`` that a step
        stays, so the walk is ``W = l I + (1 - l) A D^{-1}``. An eigenvalue
        ``lambda`` of ``A D^{-1}`` becomes ``l + (1 - l) lambda``: a smaller
        ``l`` widens the ratio between the ``k``-th eigenvalue and the rest
        per step (the community signal survives to the lengths where the
        walk has mixed inside the communities; see the user guide), at the
        price of the negative end of the spectrum, which decays only like
        ``|l + (1 - l) lambda_min|^t``. 0 (the non-lazy walk) is refused on a
        graph with a bipartite connected component (``lambda = -1``: the walk
        is periodic there and never mixes; checked in ``O(n + nnz)`` at
        :meth:`fit`); on graphs close to bipartite keep ``l`` away from 0
        (``l = 0.1`` maps -1 to -0.8). With ``walk="d-bounded"`` only 0.5
        is accepted (its laziness is set by ``max_degree``).
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
        Cap of the sequential queries; default ``32 * n_walks_``. Refused without
        ``error_rate``.
    landmark_clustering : {"threshold", "kmeans"}, default="threshold"
        How the cluster landmarks are grouped. ``"threshold"`` is the paper's
        similarity graph ``H`` (edge when the estimated dot product is at least
        ``threshold_``; construction fails unless ``H`` has ``n_clusters``
        components). ``"kmeans"`` runs k-means on the landmarks' estimated
        spectral embeddings (rows normalised, as in Ng, Jordan and Weiss),
        which always gives ``n_clusters`` groups: more robust on real graphs
        with unequal, less separated clusters (kNN graphs), with no
        certificate that the graph is clusterable (check ``eigengap_``).
        Queries are then labelled by the centroid closest in angle, as
        k-means grouped the landmarks: the mean estimated dot product with a
        cluster's landmarks divided by the norm of their mean embedding
        (the outlier test stays on the raw value).
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
        Show a progress bar of the build (tqdm) in walk steps, with the current stage.
    time_budget : float or None, default=None
        Seconds a call of :meth:`fit` (or :meth:`resume`) may spend on the
        build. When they are spent, the build stops after the current stage,
        keeps the stages done and warns; ``build_state_`` is then
        ``"partial"`` and the oracle refuses queries until :meth:`resume`
        finishes it. ``None``: no limit.
    backend : {"numba", "numpy", "cupy"}, default="numba"
        Numba kernels over CSR arrays, or array-API on NumPy or CuPy: identical results.
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
    signal_to_noise_ : float
        ``sigma_k / nu`` with ``nu = max(0, -sigma_min)``, the noise edge of
        ``(n/s) G`` (``inf`` when no eigenvalue is negative); see
        ``walk_length_rule``.
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
    Steps: sample ``s`` landmarks; estimate their Gram matrix of collision
    probabilities ``G_ij = <p^t_{s_i}, p^t_{s_j}>``, each entry the median of
    ``n_repeats`` batched estimates (Algorithms 1 and 2 of [1]_); ``psi_``
    from the top ``k`` eigenpairs of ``(n/s) G`` (Algorithm 3); estimate
    ``alpha_u`` (collision probabilities with the landmarks, Algorithm 4) for
    ``s'`` cluster landmarks; join ``u, v`` when ``alpha_u^T psi_ alpha_v >=
    theta``; construction succeeds when this graph has exactly ``k``
    components (the construction of [2]_, on which [1]_ builds). A query ``x``
    computes ``alpha_x`` and returns the component of the cluster landmark
    with the largest ``alpha_x^T psi_ alpha_u``. Collision estimates use two
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
    between clusters and construction fails (on the SBM of the paper's
    experiment, ``t = 65`` fails while ``t = 10..20`` works).
    ``walk_length="auto"`` estimates ``G`` for each candidate ``t`` on the
    same landmarks and keeps the ``t`` with the largest ``sigma_k /
    sigma_{k+1}`` of ``(n/s) G``: short walks that have not mixed inside the
    clusters inflate ``sigma_{k+1}``, long walks shrink ``sigma_k`` into the
    estimation noise. Candidates are tried in increasing order with
    ``min(n_repeats, 3)`` repeats, stopping at the first decrease once a
    ratio of at least 2 was seen; the Gram matrix is then estimated again at
    the chosen ``t`` with all repeats (memory stays ``s**2``).

    *Fast mode.* Each landmark keeps the endpoints of ``R`` walks, drawn once,
    in one sorted array (about ``1.25 s R`` words); the Gram diagonal uses a
    second, independent set, so every entry is Algorithm 1 with one batch,
    ``b = R``. A query draws its ``R`` walks once (keyed by the vertex: the
    same answer in any batch) and looks each endpoint up once for all
    landmarks; its label is the cluster whose landmarks have the largest
    *mean* estimated dot product (with ``landmark_clustering="kmeans"``, in
    every mode, that mean divided by the norm of the cluster's mean landmark
    embedding: the centroid closest in angle). The walk-length search continues the same
    walks from one candidate to the next; a graph without cluster structure
    is refused, with its diagnostic, after at most ``2 s R max(candidates) +
    s' R t`` walk steps (``n_walks="auto"``: twice that at the last ``R``; the
    noise eigenvalues of ``(n/s) G`` fall like ``1 / R``, the signal does not).

    *Sequential queries (``error_rate``, fast mode).* Query walks double until
    empirical Bernstein bounds [4]_ certify the best cluster against every
    other (and, unless ``force``, against ``threshold_``), with error budget
    ``6 delta / (pi**2 r**2 m)`` per comparison in round ``r``: *with
    probability at least 1 - error_rate a certified label equals the label
    this oracle gives with infinitely many query walks* (the query's Monte
    Carlo error only, not whether ``D`` separates the clusters). The user
    guide details fast mode, certified queries and long builds (``time_budget``,
    :meth:`resume`: the build runs in stages, each kept when done).

    *Choices the paper leaves open.* Its theorem needs ``epsilon / phi**2``
    very small (about ``1e-5``); this is documented, never enforced. A query
    close to no cluster gets ``outlier_label`` (``force=True`` returns the
    arg-max). Landmarks of degree 0 are resampled. Default threshold ``0.5
    gamma k / n``; the same-cluster value is ``1/|C_i|``, so with very
    unbalanced clusters the threshold can exceed ``1/|C_max|`` and the
    similarity graph splits: the construction error then says so (lower
    ``balance`` or set ``threshold``). Only the instantiation of [1]_ on
    [2]_ is implemented (the one on [3]_ needs ``2**poly(k)`` preprocessing).
    Every estimate hashes the seed with the ids of its vertices, landmark and
    repeat into its own keys: results do not depend on order or parallelism,
    and a vertex gets the same answer in any query batch.

    References
    ----------
    .. [1] R. Shen, X. Zhu, P. Peng, Z. Huang. Sublinear spectral clustering
       oracle with little memory. ICLR 2026 (arXiv:2604.14981, OpenReview 0GpolO2auw).
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
    >>> from statlearn.studies.spectral_oracle import make_dcsbm_graph  # power-law degrees
    >>> B, z = make_dcsbm_graph(3000, 3, mu=0.05, random_state=0)
    >>> o = SpectralClusteringOracle(3, mode="fast", walk="degree-normalised", random_state=0)
    >>> from sklearn.metrics import adjusted_rand_score
    >>> bool(adjusted_rand_score(z[::10], o.fit(B).predict(range(0, 3000, 10))) > 0.95)
    True
    """

    _parameter_constraints = {
        "n_clusters": [Integral(1)],  # at most the number of vertices: checked in fit
        "walk_length": [Options(["auto"]), Integral(1)],
        "walk_length_candidates": [None, "array-like"],  # each a positive int: fit checks
        "walk_length_rule": [Options(["gap", "noise-floor"])],
        "batch_size": [None, Integral(1)],
        "memory_budget": [None, Integral(1)],
        "n_walks": [None, Options(["auto"]), Integral(1)],
        "n_landmarks": [None, Integral(1)],
        "n_cluster_landmarks": [None, Integral(1)],
        "n_repeats": [None, Integral(1)],
        "threshold": [None, Real()],
        "threshold_scale": [Real(0, None, closed="neither")],
        "balance": [Real(0, 1, closed="right")],
        # an int for unweighted graphs, and at least the largest degree: checked in fit
        "max_degree": [None, Real(0, None, closed="neither")],
        "walk": [Options(list(WALKS))],
        "laziness": [Real(0, 1, closed="left")],  # 0.5 unless walk="degree-normalised"
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
                 walk_length_rule="gap", batch_size=None, memory_budget=None, n_walks=None,
                 n_landmarks=None, n_cluster_landmarks=None, n_repeats=None, threshold=None,
                 threshold_scale=0.5, balance=1.0, max_degree=None, walk="d-bounded",
                 laziness=0.5, mode="batched", error_rate=None, max_query_walks=None,
                 landmark_clustering="threshold",
                 outlier_label=-1, max_retries=0, symmetrize=False, weighted=False,
                 progress=False, time_budget=None, backend="numba", n_jobs=None,
                 random_state=None):
        self.n_clusters = n_clusters
        self.walk_length = walk_length
        self.walk_length_candidates = walk_length_candidates
        self.walk_length_rule = walk_length_rule
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
        self.walk = walk
        self.laziness = laziness
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

    @property
    def _auto_length(self) -> bool:
        return isinstance(_scalar(self.walk_length), str)

    def _warn_long_walks(self):
        """The checks the constraints leave: a warning on very long walks."""
        if not self._auto_length and int(_scalar(self.walk_length)) > 10**4:
            warn_at_caller(f"walk_length={self.walk_length} is very long (> 1e4 steps per walk).")

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
        refuse_inactive(self)
        self._g = as_graph_access(graph, max_degree=_scalar(self.max_degree),
                                  symmetrize=bool(_scalar(self.symmetrize)), weighted=weighted,
                                  walk=self.walk, laziness=_scalar(self.laziness))
        g = self._g
        cands = walk_length_candidates(self, g.n)
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
            return one_cluster_build(self)
        if g.indices is not None and g.indices.size == 0:
            raise ValueError("graph has no edges; with n_clusters > 1 there is nothing to "
                             "cluster.")
        acc = walk_accounting(p, len(cands))
        self.peak_memory_words_ = acc["peak_memory_words_"]
        self.query_memory_words_ = acc["query_memory_words_"]
        if not self._auto_length:
            per = p.n_walks if p.fast else p.reps * p.s * 2 * p.n_walks
            self.walk_steps_per_query_ = int(per * int(_scalar(self.walk_length)))
        retries = int(_scalar(self.max_retries))
        seeds = spawn_seeds(_scalar(self.random_state), retries + 1)
        state = (FastBuildState if p.fast else BatchedBuildState)(seed=seeds[0])
        self._build = Build(seeds=seeds, cands=cands, state=state)
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
        """Run the build stages of this mode (see :func:`._build.run_build`)."""
        return run_build(self, fast_stages if self._p.fast else batched_stages)

    # the queries are written in ._oracle_queries and bound here, so that they are the
    # class's own methods (documented with it, found in its __dict__)
    query = OracleQueries.query
    embedding_dots = OracleQueries.embedding_dots
    predict = OracleQueries.predict
    which_cluster = OracleQueries.which_cluster
    dot = OracleQueries.dot
    _alpha = OracleQueries._alpha
    _check_vertices = OracleQueries._check_vertices

    def _check_fitted(self, method=None, *, resuming=False):
        """Refuse unless built, with the parameters the oracle has now (see
        :func:`._build.check_built`)."""
        check_built(self, method, resuming=resuming)
        FitStateMixin._check_fitted(self, method)
        check_built(self, method, resuming=resuming, after=True)

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

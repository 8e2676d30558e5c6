"""Query access to a graph: CSR arrays or any object answering degree/neighbour queries."""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from statlearn.utils import check_int
from statlearn.utils._validation import _scalar

from ._kernels import bipartite_component_kernel, missing_mirrors_kernel
from ._references import move_threshold

__all__ = ["WALKS", "GraphAccess", "as_graph_access", "lazy_walk_distribution"]

#: the lazy walks: the paper's ``d``-bounded one, and the lazy random walk of the graph
WALKS = ("d-bounded", "degree-normalised")


@dataclass(frozen=True)
class GraphAccess:
    """A validated graph, seen only through degree and neighbour queries.

    Either ``indptr``/``indices`` (CSR arrays, the fast path) are set, or
    ``oracle`` is an object with ``degree(v)`` and ``neighbor(v, i)``.
    ``max_degree`` is the ``d`` of the ``d``-bounded lazy-walk convention.
    """

    n: int
    max_degree: int
    indptr: np.ndarray | None = None
    indices: np.ndarray | None = None
    oracle: object | None = None
    #: weighted graphs: row-wise cumulative edge weights (float64, one per edge) and
    #: ``d`` as a float (at least every weighted degree); ``None`` when unweighted
    weights: np.ndarray | None = None
    max_weight: float | None = None
    #: the degree-normalised walk (stay with probability ``laziness``, else a uniform
    #: neighbour), its collisions weighted by ``mean_degree / deg(v)``
    normalised: bool = False
    laziness: float = 0.5

    @property
    def move_threshold(self) -> int:
        """``T`` the kernels take for the degree-normalised walk (``2**31`` at laziness 1/2;
        see :func:`._references.move_threshold`)."""
        return move_threshold(self.laziness)

    @property
    def has_csr(self) -> bool:
        return self.indptr is not None

    @property
    def step_degree(self) -> int:
        """The ``max_degree`` the kernels take: ``d``, or 0 for the degree-normalised walk."""
        return 0 if self.normalised else self.max_degree

    @property
    def mean_degree(self) -> float:
        """``dbar = nnz / n`` (CSR graphs; one read of ``indptr``)."""
        return float(self.indptr[-1]) / self.n

    def degree(self, v: int) -> int:
        if self.has_csr:
            return int(self.indptr[v + 1] - self.indptr[v])
        return int(self.oracle.degree(int(v)))

    def degrees(self, vertices) -> np.ndarray:
        vertices = np.asarray(vertices, dtype=np.int64)
        if self.has_csr:
            return (self.indptr[vertices + 1] - self.indptr[vertices]).astype(np.int64)
        return np.array([self.degree(v) for v in vertices], dtype=np.int64)

    def neighbor(self, v: int, i: int) -> int:
        if self.has_csr:
            return int(self.indices[self.indptr[v] + i])
        return int(self.oracle.neighbor(int(v), int(i)))


def _n_vertices_of(obj) -> int:
    for attr in ("n_vertices", "number_of_nodes", "n"):
        value = getattr(obj, attr, None)
        if value is not None:
            value = value() if callable(value) else value
            return check_int(value, f"graph.{attr}")
    if hasattr(obj, "__len__"):
        return check_int(len(obj), "len(graph)")
    raise TypeError("a graph given as a query object must expose its number of vertices as "
                    "'n_vertices' (attribute or method) or through len().")


_CHUNK = 1 << 20


def _all_equal(values, target) -> bool:
    """``np.all(values == target)`` in chunks (no temporary the size of ``values``)."""
    return all(np.all(values[i:i + _CHUNK] == target) for i in range(0, values.size, _CHUNK))


def _any_equal(values, target) -> bool:
    return any(np.any(values[i:i + _CHUNK] == target) for i in range(0, values.size, _CHUNK))


def _max_degree(indptr) -> int:
    """Largest ``indptr[v + 1] - indptr[v]``, in chunks."""
    n = indptr.size - 1
    return max((int(np.max(indptr[i + 1:min(n, i + _CHUNK) + 1] - indptr[i:min(n, i + _CHUNK)]))
                for i in range(0, n, _CHUNK)), default=0)


def _weighted_csr(A, symmetrize: bool):
    """Canonical CSR with positive finite weights, symmetric (values included)."""
    A = sp.csr_array(A, dtype=np.float64)
    if A.ndim != 2 or A.shape[0] != A.shape[1]:
        raise ValueError(f"graph must be a square adjacency matrix, got shape {A.shape}.")
    A = A.copy()
    A.sum_duplicates()
    A.eliminate_zeros()
    if not np.all(np.isfinite(A.data)) or np.any(A.data < 0):
        raise ValueError("graph weights must be finite and non-negative.")
    if (A != A.T).nnz:
        if not symmetrize:
            raise ValueError("graph must be undirected (a symmetric weight matrix); got a "
                             "non-symmetric one. Pass symmetrize=True to use (A + A.T) / 2.")
        A = sp.csr_array((A + A.T) / 2.0)
    A.sort_indices()
    return A


def row_cumulative_weights(indptr, data):
    """Cumulative edge weights within each row (``cumw[indptr[v+1] - 1]`` = ``w(v)``)."""
    cum = np.cumsum(data, dtype=np.float64)
    counts = np.diff(indptr)
    before = np.concatenate([[0.0], cum])[indptr[:-1]]
    return cum - np.repeat(before, counts)


def _from_networkx(graph, weighted):
    import networkx as nx

    return nx.to_scipy_sparse_array(graph, weight="weight" if weighted else None,
                                    dtype=np.float64, format="csr")


def _csr_from_sparse(A, symmetrize: bool):
    A = sp.csr_array(A)  # may share the caller's arrays: never modify them in place
    if A.ndim != 2 or A.shape[0] != A.shape[1]:
        raise ValueError(f"graph must be a square adjacency matrix, got shape {A.shape}.")
    # checks read the entries in chunks: the caller's graph is the only O(nnz) memory
    if not A.has_canonical_format or _any_equal(A.data, 0):
        A = A.copy()
        A.sum_duplicates()
        A.eliminate_zeros()
    if not _all_equal(A.data, 1):
        raise ValueError("graph must be an unweighted adjacency matrix: every stored entry "
                         "must equal 1 (for weights pass weighted=True, with mode='fast').")
    # symmetric pattern, checked in place (no transpose: O(nnz) words fewer at peak)
    if missing_mirrors_kernel(A.indptr, A.indices):
        if not symmetrize:
            raise ValueError("graph must be undirected (a symmetric adjacency matrix); got a "
                             "non-symmetric one. Pass symmetrize=True to use A + A.T with "
                             "entries set to 1.")
        A = sp.csr_array(((A + A.T) > 0).astype(np.int8))
        A.sort_indices()
    idx_dtype = np.int32 if A.nnz < 2**31 - 1 and A.shape[0] < 2**31 - 1 else np.int64
    return A.indptr.astype(idx_dtype, copy=False), A.indices.astype(idx_dtype, copy=False)


def as_graph_access(graph, *, max_degree=None, symmetrize: bool = False,
                    weighted: bool = False, walk: str = "d-bounded",
                    laziness=0.5) -> GraphAccess:
    """Validate ``graph`` and wrap it for walks.

    Parameters
    ----------
    graph : scipy.sparse matrix/array, networkx graph, tuple (indptr, indices) or query object
        The undirected graph. A query object has methods
        ``degree(v)`` and ``neighbor(v, i)`` (the ``i``-th neighbour,
        ``0 <= i < degree(v)``) and exposes ``n_vertices`` (or ``len``). A
        networkx graph is converted to a sparse adjacency matrix; vertex
        ``i`` is the ``i``-th node of ``graph.nodes``.
    max_degree : int or None
        ``d`` of the ``d``-bounded convention; ``None`` takes the largest
        degree (one pass over the vertices).
    symmetrize : bool, default=False
        Accept a non-symmetric sparse matrix and use ``A + A.T`` (weighted:
        ``(A + A.T) / 2``).
    weighted : bool, default=False
        Use the stored entries (networkx: the ``"weight"`` attribute, default
        1) as edge weights: the lazy walk moves to ``u`` with probability
        ``A_vu / (2 d)`` where ``d`` is ``max_degree`` (default the largest
        weighted degree). Needs a sparse matrix or a networkx graph.
    walk : {"d-bounded", "degree-normalised"}, default="d-bounded"
        ``"degree-normalised"``: the lazy random walk of the graph (stay with
        probability ``laziness``, else move to a uniform neighbour), for CSR graphs
        (unweighted; ``max_degree`` then only bounds the degrees).
    laziness : float in [0, 1), default=0.5
        Stay probability of the degree-normalised walk (see
        :func:`check_laziness`); the ``d``-bounded walk takes only 0.5.

    Returns
    -------
    GraphAccess

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> from statlearn.cluster._graph import as_graph_access
    >>> g = as_graph_access(sp.csr_array([[0, 1], [1, 0]]))
    >>> g.n, g.max_degree
    (2, 1)
    """
    max_degree, symmetrize, weighted = _scalar(max_degree), _scalar(symmetrize), _scalar(weighted)
    if not isinstance(symmetrize, bool | np.bool_):
        raise TypeError(f"symmetrize must be a bool, got {type(symmetrize).__name__}.")
    if not isinstance(weighted, bool | np.bool_):
        raise TypeError(f"weighted must be a bool, got {type(weighted).__name__}.")
    if walk not in WALKS:
        raise ValueError(f"walk must be one of {list(WALKS)}, got {walk!r}.")
    normalised = walk == "degree-normalised"
    laziness = check_laziness(laziness, walk)
    if normalised and weighted:
        raise ValueError("walk='degree-normalised' is implemented for unweighted graphs only; "
                         "got weighted=True (use walk='d-bounded' for weighted walks).")
    if hasattr(graph, "adj") and hasattr(graph, "nodes") and hasattr(graph, "is_directed"):
        graph = _from_networkx(graph, weighted)
    if weighted:
        if not sp.issparse(graph):
            raise TypeError("weighted=True needs the graph as a scipy.sparse matrix or a "
                            f"networkx graph, got {type(graph).__name__}.")
        A = _weighted_csr(graph, symmetrize)
        n = A.shape[0]
        if n < 2:
            raise ValueError(f"graph must have at least 2 vertices, got {n}.")
        idx_dtype = np.int32 if A.nnz < 2**31 - 1 and n < 2**31 - 1 else np.int64
        indptr = A.indptr.astype(idx_dtype, copy=False)
        indices = A.indices.astype(idx_dtype, copy=False)
        cumw = row_cumulative_weights(A.indptr, A.data)
        wdeg = np.asarray(A.sum(axis=1)).ravel()
        true_max = float(wdeg.max()) if n else 0.0
        if max_degree is None:
            d = true_max if true_max > 0 else 1.0
        else:
            if isinstance(max_degree, bool) or not isinstance(max_degree, numbers.Real):
                raise TypeError(f"max_degree must be a real or None, got {max_degree!r}.")
            d = float(max_degree)
            if not d >= true_max * (1 + 1e-12) - 1e-300 or not np.isfinite(d):
                raise ValueError(f"max_degree must be at least the largest weighted degree "
                                 f"{true_max}, got {max_degree}.")
        return GraphAccess(n=n, max_degree=max(1, int(np.ceil(d))), indptr=indptr,
                           indices=indices, weights=cumw, max_weight=d)
    if sp.issparse(graph):
        indptr, indices = _csr_from_sparse(graph, symmetrize)
        n = indptr.shape[0] - 1
        oracle = None
    elif isinstance(graph, tuple):
        if len(graph) != 2:
            raise ValueError("graph given as a tuple must be (indptr, indices).")
        indptr = np.asarray(graph[0])
        indices = np.asarray(graph[1])
        for name, arr in (("indptr", indptr), ("indices", indices)):
            if arr.ndim != 1 or not np.issubdtype(arr.dtype, np.integer):
                raise ValueError(f"graph {name} must be a 1-D integer array.")
        n = indptr.shape[0] - 1
        if n < 0 or indptr[0] != 0 or np.any(np.diff(indptr) < 0) or indptr[-1] != indices.size:
            raise ValueError("graph indptr must start at 0, be non-decreasing and end at "
                             "len(indices).")
        if indices.size and (indices.min() < 0 or indices.max() >= n):
            raise ValueError(f"graph indices must lie in [0, {n - 1}].")
        data = np.ones(indices.size, dtype=np.int8)
        indptr, indices = _csr_from_sparse(sp.csr_array((data, indices, indptr), shape=(n, n)),
                                           symmetrize)
        oracle = None
    elif hasattr(graph, "degree") and hasattr(graph, "neighbor"):
        n = _n_vertices_of(graph)
        indptr = indices = None
        oracle = graph
    else:
        raise TypeError("graph must be a scipy.sparse adjacency matrix, a tuple (indptr, "
                        "indices) or an object with degree(v) and neighbor(v, i) methods; got "
                        f"{type(graph).__name__}.")
    if n < 2:
        raise ValueError(f"graph must have at least 2 vertices, got {n}.")
    if oracle is None:
        true_max = _max_degree(indptr)
    elif max_degree is None:
        true_max = max(int(graph.degree(v)) for v in range(n))
    else:
        true_max = None
    if max_degree is None:
        d = max(true_max, 1)
    else:
        if isinstance(max_degree, bool) or not isinstance(max_degree, numbers.Integral):
            raise TypeError(f"max_degree must be an integer or None, got {max_degree!r}.")
        d = check_int(max_degree, "max_degree", low=1, high=2**31 - 1)
        if true_max is not None and d < true_max:
            raise ValueError(f"max_degree must be at least the largest degree {true_max}, "
                             f"got {d}.")
    if d >= 2**31:
        raise ValueError(f"max_degree must be below 2**31, got {d}.")
    if normalised and oracle is not None:
        raise TypeError("walk='degree-normalised' needs the graph as a sparse matrix, a "
                        "networkx graph or CSR arrays, got a query object.")
    if normalised and laziness == 0.0:
        _refuse_bipartite(indptr, indices)
    return GraphAccess(n=n, max_degree=d, indptr=indptr, indices=indices, oracle=oracle,
                       normalised=normalised, laziness=laziness)


def check_laziness(laziness, walk="degree-normalised") -> float:
    """``laziness`` as a float in ``[0, 1)``; only 0.5 with the ``d``-bounded walk.

    Examples
    --------
    >>> from statlearn.cluster._graph import check_laziness
    >>> check_laziness(0.2)
    0.2
    """
    laziness = _scalar(laziness)
    if isinstance(laziness, bool | np.bool_) or not isinstance(laziness, numbers.Real):
        raise TypeError(f"laziness must be a real number in [0, 1), got {laziness!r}.")
    lz = float(laziness)
    if not 0.0 <= lz < 1.0:
        raise ValueError(f"laziness must be in [0, 1), got {laziness!r}.")
    if walk != "degree-normalised" and lz != 0.5:
        raise ValueError(f"laziness={laziness!r} needs walk='degree-normalised' (the "
                         f"d-bounded walk's laziness is fixed by max_degree); got walk={walk!r}.")
    return lz


def _refuse_bipartite(indptr, indices):
    """Raise when a connected component with an edge is bipartite (``O(n + nnz)``).

    There the non-lazy walk is periodic: the eigenvalue -1 of ``A D^{-1}`` never decays,
    the endpoint distributions alternate between the two sides and the collision
    probabilities of the two sides stay 0 at every length.
    """
    v = int(bipartite_component_kernel(indptr, indices))
    if v >= 0:
        raise ValueError(
            "laziness=0 (the non-lazy walk) on a graph with a bipartite connected component "
            f"(the one of vertex {v}): the walk is periodic there (eigenvalue -1 of A D^-1), "
            "so its collision probabilities never converge; use laziness > 0 (e.g. 0.1: the "
            "eigenvalue -1 then decays like 0.8**t).")


def lazy_walk_distribution(graph, x, walk_length, *, max_degree=None, weighted=False,
                           walk="d-bounded", laziness=0.5):
    """Exact endpoint distribution ``p_x^t = W^t 1_x`` of the lazy ``d``-bounded walk.

    ``W = (I + A/d) / 2`` where vertex ``v`` carries ``d - deg(v)`` self
    loops; with ``walk="degree-normalised"``, ``W = l I + (1 - l) A D^{-1}``, the
    lazy random walk of the graph with laziness ``l`` (a vertex of degree 0 stays). Costs ``t``
    sparse matrix-vector products: meant for small graphs and for checking
    the Monte Carlo estimators.

    Parameters
    ----------
    graph : scipy.sparse matrix or tuple (indptr, indices)
        Undirected, unweighted adjacency.
    x : int
        Start vertex.
    walk_length : int
        Number of lazy steps ``t >= 0``.
    max_degree : int or None
        ``d``; default the largest degree.
    weighted : bool, default=False
        Use the entries as weights: ``W = (I + (A + diag(d - w)) / d) / 2``
        with ``w`` the weighted degrees and ``d`` the largest of them.
    walk : {"d-bounded", "degree-normalised"}, default="d-bounded"
        The lazy walk (see :class:`SpectralClusteringOracle`).
    laziness : float in [0, 1), default=0.5
        ``l``, the stay probability of the degree-normalised walk.

    Returns
    -------
    ndarray of float64, shape (n,)

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> from statlearn.cluster import lazy_walk_distribution
    >>> A = sp.csr_array([[0, 1], [1, 0]])
    >>> lazy_walk_distribution(A, 0, 1).tolist()
    [0.5, 0.5]
    """
    lz = check_laziness(laziness, walk)
    g = as_graph_access(graph, max_degree=max_degree, weighted=weighted, walk=walk,
                        laziness=0.5 if lz == 0.0 else lz)  # exact: no periodicity refusal
    if not g.has_csr:
        raise TypeError("lazy_walk_distribution needs the graph as a sparse matrix or CSR tuple.")
    x = check_int(x, "x")
    if not 0 <= x < g.n:
        raise IndexError(f"x must be a vertex in [0, {g.n - 1}], got {x}.")
    t = check_int(walk_length, "walk_length", low=0)
    if g.weights is not None:
        src = graph if sp.issparse(graph) else _from_networkx(graph, True)
        A = _weighted_csr(src, False)
        d = float(g.max_weight)
        deg = np.asarray(A.sum(axis=1)).ravel()
    else:
        A = sp.csr_array((np.ones(g.indices.size), g.indices, g.indptr), shape=(g.n, g.n))
        d = float(g.max_degree)
        deg = np.diff(g.indptr)
    p = np.zeros(g.n)
    p[x] = 1.0
    if g.normalised:
        inv = 1.0 / np.maximum(deg, 1)
        stay = np.where(deg > 0, lz, 1.0)
        for _ in range(t):
            p = stay * p + (1.0 - lz) * (A @ (p * inv))
        return p
    stay = 0.5 + (d - deg) / (2 * d)
    for _ in range(t):
        p = stay * p + (A @ p) / (2 * d)
    return p

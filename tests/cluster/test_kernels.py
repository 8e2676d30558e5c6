"""Walk kernels against their references: bit-identical walks on every engine."""

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from statlearn.cluster._graph import as_graph_access
from statlearn.cluster._kernels import (
    GROUP,
    collision_counts_kernel,
    hash32,
    missing_mirrors_kernel,
    walk_endpoints_kernel,
)
from statlearn.cluster._references import (
    _hash32_py,
    _hash32_xp,
    collision_counts_reference,
    collision_counts_xp,
    missing_mirrors_reference,
    walk_endpoints_xp,
)
from statlearn.cluster._walks import base_words, collision_counts, derive_keys
from statlearn.datasets import make_sbm_graph


@st.composite
def small_graphs(draw, max_n=25):
    """Random simple undirected graphs as CSR (isolated vertices allowed)."""
    n = draw(st.integers(2, max_n))
    pairs = draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=60))
    rows, cols = [], []
    for a, b in pairs:
        if a != b:
            rows += [a, b]
            cols += [b, a]
    A = sp.csr_array((np.ones(len(rows)), (rows, cols)), shape=(n, n))
    A.data[:] = 1.0
    return A


class CountingGraph:
    """A query object over CSR arrays that counts degree queries (one per walk step)."""

    def __init__(self, A):
        self.A = sp.csr_array(A)
        self.n_vertices = self.A.shape[0]
        self.degree_calls = 0

    def degree(self, v):
        self.degree_calls += 1
        return int(self.A.indptr[v + 1] - self.A.indptr[v])

    def neighbor(self, v, i):
        return int(self.A.indices[self.A.indptr[v] + i])


def _walk_inputs(g, n_walks, seed):
    rng = np.random.default_rng(seed)
    starts = rng.integers(0, g.n, size=n_walks).astype(np.int64)
    keys = derive_keys(base_words(np.random.SeedSequence(seed)), np.arange(n_walks))
    ids = rng.integers(0, 1000, size=n_walks).astype(np.int64)
    return starts, keys, ids


@pytest.mark.numba
def test_hash_is_the_same_on_every_engine():
    x = np.array([0, 1, 2, 12345, 2**32 - 1], dtype=np.uint64)
    expected = [_hash32_py(int(v)) for v in x]
    assert [int(hash32(v)) for v in x] == expected
    assert _hash32_xp(x, np).tolist() == expected
    # a bijection on 32 bits: no collisions on a block of inputs
    block = _hash32_xp(np.arange(1 << 16, dtype=np.uint64), np)
    assert np.unique(block).size == 1 << 16 and block.max() < 2**32


@pytest.mark.numba
@settings(deadline=None, max_examples=25)
@given(A=small_graphs(), seed=st.integers(0, 2**16), ts=st.lists(st.integers(0, 12), min_size=1,
                                                                  max_size=3))
def test_walk_kernel_equals_reference(A, seed, ts):
    g = as_graph_access(A)
    ts = np.array(sorted(ts), dtype=np.int64)
    starts, keys, ids = _walk_inputs(g, 16, seed)
    got = walk_endpoints_kernel(g.indptr, g.indices, g.max_degree, starts, keys, ids, ts)
    ref = walk_endpoints_xp(g.indptr.astype(np.int64), g.indices.astype(np.int64), g.max_degree,
                            starts, keys, ids, ts.tolist())
    np.testing.assert_array_equal(got, ref)
    # walks move along edges only: consecutive checkpoints of a 1-step gap are adjacent or equal
    assert got.min() >= 0 and got.max() < g.n


@pytest.mark.numba
@settings(deadline=None, max_examples=20)
@given(A=small_graphs(max_n=15), seed=st.integers(0, 2**16), b=st.integers(1, 6),
       n_batches=st.integers(1, 3))
def test_collision_kernel_equals_reference(A, seed, b, n_batches):
    g = as_graph_access(A)
    rng = np.random.default_rng(seed)
    xs = rng.integers(0, g.n, size=3).astype(np.int64)
    ys = np.array([xs[0], *rng.integers(0, g.n, size=2)], dtype=np.int64)  # includes x == y
    keys = derive_keys(base_words(np.random.SeedSequence(seed)), np.arange(3))
    ts = np.array([3, 7], dtype=np.int64)
    got = collision_counts_kernel(g.indptr, g.indices, g.max_degree, xs, ys, keys, ts,
                                  n_batches, b)
    r = n_batches * b
    for p in range(3):
        ids = 2 * np.arange(r)
        ex = walk_endpoints_xp(g.indptr.astype(np.int64), g.indices.astype(np.int64),
                               g.max_degree, np.full(r, xs[p]), np.repeat(keys[p:p + 1], r, 0),
                               ids, [3, 7])
        ey = walk_endpoints_xp(g.indptr.astype(np.int64), g.indices.astype(np.int64),
                               g.max_degree, np.full(r, ys[p]), np.repeat(keys[p:p + 1], r, 0),
                               ids + 1, [3, 7])
        for c in range(2):
            assert got[p, c] == collision_counts_reference(ex[c], ey[c], n_batches, b)
    # the vectorised array-API path gives the same counts
    xp_counts = collision_counts(g, xs, ys, keys, [3, 7], n_batches, b, backend="numpy")
    np.testing.assert_array_equal(got, xp_counts)


@pytest.mark.numba
def test_grouped_walks_equal_reference_across_groups():
    """Walks advanced GROUP at a time (full groups and a partial tail) follow the
    same steps as the vectorised reference, and counts with b > GROUP match."""
    A, _ = make_sbm_graph([40, 40], 0.2, 0.02, random_state=3)
    g = as_graph_access(A)
    n_walks = 2 * GROUP + 5
    starts, keys, ids = _walk_inputs(g, n_walks, 7)
    ts = np.array([0, 5, 9], dtype=np.int64)
    got = walk_endpoints_kernel(g.indptr, g.indices, g.max_degree, starts, keys, ids, ts)
    ref = walk_endpoints_xp(g.indptr.astype(np.int64), g.indices.astype(np.int64), g.max_degree,
                            starts, keys, ids, ts.tolist())
    np.testing.assert_array_equal(got, ref)
    b, n_batches = GROUP + 3, 2
    xs, ys = np.array([0, 5, 60], dtype=np.int64), np.array([0, 7, 61], dtype=np.int64)
    keys = derive_keys(base_words(np.random.SeedSequence(8)), np.arange(3))
    counts = collision_counts_kernel(g.indptr, g.indices, g.max_degree, xs, ys, keys, ts[1:],
                                     n_batches, b)
    r = n_batches * b
    for p in range(3):
        kk = np.repeat(keys[p:p + 1], r, 0)
        ex = walk_endpoints_xp(g.indptr.astype(np.int64), g.indices.astype(np.int64),
                               g.max_degree, np.full(r, xs[p]), kk, 2 * np.arange(r), [5, 9])
        ey = walk_endpoints_xp(g.indptr.astype(np.int64), g.indices.astype(np.int64),
                               g.max_degree, np.full(r, ys[p]), kk, 2 * np.arange(r) + 1, [5, 9])
        for c in range(2):
            assert counts[p, c] == collision_counts_reference(ex[c], ey[c], n_batches, b)
    assert counts[0].min() > 0  # x == y on a small graph: collisions do occur


@st.composite
def directed_patterns(draw, max_n=12):
    """Random 0/1 patterns (self-loops allowed), made symmetric half of the time."""
    n = draw(st.integers(1, max_n))
    pairs = draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=40))
    if draw(st.booleans()):
        pairs = pairs + [(b, a) for a, b in pairs]
    rows = [a for a, _ in pairs]
    cols = [b for _, b in pairs]
    A = sp.csr_array((np.ones(len(pairs)), (rows, cols)), shape=(n, n))
    A.sum_duplicates()
    A.data[:] = 1.0
    return A


@pytest.mark.numba
@settings(deadline=None, max_examples=60)
@given(A=directed_patterns())
def test_symmetry_check_kernel_equals_reference(A):
    got = missing_mirrors_kernel(A.indptr, A.indices)
    assert got == missing_mirrors_reference(A.indptr, A.indices)
    assert (got == 0) == ((A != A.T).nnz == 0)


def test_validation_does_not_copy_the_graph():
    """The symmetry check reads the matrix in place: no transpose or difference matrix
    (which would take several times the matrix's own size)."""
    import tracemalloc

    A, _ = make_sbm_graph([5000, 5000], 20 / 5000, 1 / 5000, random_state=0)
    as_graph_access(A)  # compile the checks first
    tracemalloc.start()
    try:
        as_graph_access(A)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 2 * A.nnz  # a few boolean masks over the entries at most (1 byte each)


@pytest.mark.numba
def test_query_object_path_equals_csr_path():
    A, _ = make_sbm_graph([12, 12], 0.5, 0.05, random_state=1)
    g_csr = as_graph_access(A)
    obj = CountingGraph(A)
    g_obj = as_graph_access(obj)
    assert g_obj.max_degree == g_csr.max_degree
    xs, ys = np.array([0, 3, 20]), np.array([0, 15, 21])
    keys = derive_keys(base_words(np.random.SeedSequence(3)), np.arange(3))
    a = collision_counts(g_csr, xs, ys, keys, [4], 2, 5)
    obj.degree_calls = 0
    b = collision_counts(g_obj, xs, ys, keys, [4], 2, 5)
    np.testing.assert_array_equal(a, b)
    # one degree query per lazy step: 3 pairs x 2 sides x 10 walks x 4 steps
    assert obj.degree_calls == 3 * 2 * 10 * 4


def test_array_api_path_matches_numpy(xp):
    """The batched walk path gives the same counts in any array namespace."""
    A, _ = make_sbm_graph([30, 30], 0.3, 0.03, random_state=2)
    g = as_graph_access(A)
    xs, ys = np.array([0, 5, 40, 7]), np.array([0, 50, 41, 7])
    keys = derive_keys(base_words(np.random.SeedSequence(4)), np.arange(4))
    expected = collision_counts(g, xs, ys, keys, [2, 6], 3, 4, backend="numpy")
    got = collision_counts_xp(xp.asarray(g.indptr.astype(np.int64)),
                              xp.asarray(g.indices.astype(np.int64)), g.max_degree,
                              xp.asarray(xs), xp.asarray(ys), xp.asarray(keys), [2, 6], 3, 4)
    np.testing.assert_array_equal(np.asarray(got), expected)


def test_keys_depend_only_on_ids():
    base = base_words(np.random.SeedSequence(9))
    ids = np.array([[3, 4, 0], [5, 6, 1], [3, 4, 1]])
    k = derive_keys(base, ids)
    np.testing.assert_array_equal(derive_keys(base, ids[::-1]), k[::-1])
    assert len({tuple(r) for r in k.tolist()}) == 3
    with pytest.raises(ValueError, match="ids"):
        derive_keys(base, np.array([[-1]]))


@pytest.mark.numba
@settings(deadline=None, max_examples=20)
@given(A=small_graphs(), seed=st.integers(0, 2**16), t0=st.integers(0, 6),
       t1=st.integers(0, 6), weighted=st.booleans())
def test_advance_kernel_continues_walks_exactly(A, seed, t0, t1, weighted):
    """Walks stopped after t0 steps and continued for t1 more sit where walks run from the
    start for t0 + t1 steps are (the reference reruns them), weighted or not, on int32
    positions, with the walk ids starting at an offset and a partial GROUP. Planted defect
    (continued walks reuse the draws of steps 1, 2, ... instead of step0 + 1, ...): fails."""
    from statlearn.cluster._kernels import advance_walks_kernel
    from statlearn.cluster._references import advance_walks_reference

    if weighted:
        B = sp.csr_array(A, copy=True)
        B.data = np.random.default_rng(seed).uniform(0.5, 2.0, B.nnz)
        A = (B + B.T) / 2
        if A.nnz == 0:
            return
    g = as_graph_access(A, weighted=weighted)
    cumw = g.weights if weighted else np.zeros(0)
    d = float(g.max_weight) if weighted else float(g.max_degree)
    keys = derive_keys(base_words(np.random.SeedSequence(seed)), np.arange(3))
    starts = np.random.default_rng(seed).integers(0, g.n, size=(3, GROUP + 3))
    pos = starts.astype(np.int32)
    advance_walks_kernel(g.indptr, g.indices, cumw, d, pos, keys, 5, 0, t0)
    advance_walks_kernel(g.indptr, g.indices, cumw, d, pos, keys, 5, t0, t1)
    ref = advance_walks_reference(g.indptr, g.indices, cumw, d, starts, keys, 5, t0, t1)
    np.testing.assert_array_equal(pos, ref)


@pytest.mark.numba
@settings(deadline=None, max_examples=25)
@given(seed=st.integers(0, 2**16), m=st.integers(0, 40), s=st.integers(1, 5),
       q=st.integers(0, 4), r=st.integers(0, 6))
def test_index_kernels_equal_references(seed, m, s, q, r):
    """Counts and scores of walks against a sorted endpoint index (repeated endpoints,
    several landmarks at one endpoint, endpoints absent from the index, int32 index
    looked up with int64 walks) equal the NumPy references."""
    from statlearn.cluster._kernels import index_counts_kernel, index_scores_kernel
    from statlearn.cluster._references import index_counts_reference, index_scores_reference

    rng = np.random.default_rng(seed)
    endpoints = np.sort(rng.integers(0, 12, size=m)).astype(np.int32)
    owners = rng.integers(0, s, size=m).astype(np.uint8)
    queries = rng.integers(0, 14, size=(q, r)).astype(np.int64)
    got = index_counts_kernel(endpoints, owners, queries, s)
    np.testing.assert_array_equal(got, index_counts_reference(endpoints, owners, queries, s))
    # brute force: pairs with equal endpoints
    brute = np.zeros((q, s), dtype=np.int64)
    for i in range(q):
        for e in queries[i]:
            np.add.at(brute[i], owners[endpoints == e], 1)
    np.testing.assert_array_equal(got, brute)
    w = rng.normal(size=(s, 3))
    np.testing.assert_allclose(index_scores_kernel(endpoints, owners, queries.ravel(), w),
                               index_scores_reference(endpoints, owners, queries.ravel(), w),
                               rtol=1e-12, atol=1e-12)

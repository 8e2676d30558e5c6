"""Collision estimates checked against exact values, on every engine.

Two graphs make the estimator's output exact or exactly distributed:

* with ``walk_length = 0`` no walk moves, so every batch counts ``b * b``
  collisions when ``x == y`` and none otherwise: the estimate is exactly 1 or 0
  for every number of walks and batch size;
* on one edge ``0 - 1`` (``d = 1``) a lazy walk moves with probability 1/2 at each
  step, so after ``t >= 1`` steps each walk sits at either end with probability
  1/2, independently.  With ``X, Y`` the shares of the two walk sets at vertex 0,
  a batch scores ``Z = 1/2 + 2 (X - 1/2)(Y - 1/2)``: mean 1/2 (the exact
  collision probability) and variance ``1 / (4 b^2)``.

Every backend (Numba kernel, vectorised NumPy path, query object) is checked.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.sparse as sp

from statlearn.cluster import estimate_collision_probabilities
from statlearn.cluster._graph import as_graph_access
from statlearn.cluster._walks import base_words, collision_counts, derive_keys
from statlearn.datasets import make_random_regular_graph
from tests.helpers import raises


class _QueryGraph:
    """A graph seen only through degree / neighbour queries (no CSR arrays)."""

    def __init__(self, A):
        self._A = sp.csr_matrix(A)
        self.n_vertices = self._A.shape[0]

    def degree(self, v):
        return int(self._A.indptr[v + 1] - self._A.indptr[v])

    def neighbor(self, v, i):
        return int(self._A.indices[self._A.indptr[v] + i])


EDGE = sp.csr_matrix(np.array([[0, 1], [1, 0]]))


def _graphs(A):
    return [("numba", A), ("numpy", A), ("numba", _QueryGraph(A))]


@pytest.mark.parametrize("r, b", [(1, None), (5, 2), (8, 8), (7, 100), (12, 5)])
def test_zero_length_walks_give_exact_indicator(r, b):
    A = make_random_regular_graph(30, 4, random_state=1)
    x = np.array([0, 3, 7, 7, 29])
    y = np.array([0, 4, 7, 6, 29])
    expected = (x == y).astype(float)
    for backend, g in _graphs(A):
        z = estimate_collision_probabilities(g, x, y, walk_length=0, n_walks=r, batch_size=b,
                                             backend=backend, random_state=3)
        np.testing.assert_array_equal(z, expected)


@pytest.mark.parametrize("t", [1, 2, 5])
def test_single_edge_estimates_are_unbiased_with_the_exact_variance(t):
    # N pairs, each the mean of B batches of b walks per side: the mean of the N
    # estimates has sd 1 / (2 b sqrt(B N)); band 5 sd (false-alarm 5.7e-7). An estimate
    # whose batches divide by b instead of b^2, or that shares walks between the two
    # sides, is off by far more than the band.
    r, b = 12, 4
    B = math.ceil(r / b)
    for backend, g in _graphs(EDGE):
        n_pairs = 3000 if backend == "numpy" or not isinstance(g, _QueryGraph) else 1000
        sd = 1 / (2 * b * math.sqrt(B * n_pairs))
        x = np.zeros(n_pairs, dtype=int)
        y = np.tile([0, 1], n_pairs // 2)
        z = estimate_collision_probabilities(g, x, y, walk_length=t, n_walks=r, batch_size=b,
                                             backend=backend, random_state=t)
        assert z.shape == (n_pairs,)
        assert abs(z.mean() - 0.5) < 5 * sd, (backend, z.mean())
        # per-estimate variance 1 / (4 b^2 B): the sample variance over N estimates has
        # relative sd sqrt((kurtosis - 1) / N) = 0.056 at N = 1000 (kurtosis 4.1 for
        # B = 3, b = 4), so the 25% band is 4.5 sd (false-alarm rate below 1e-5)
        var = z.var(ddof=1) * 4 * b * b * B
        assert 0.75 < var < 1.25, (backend, var)


def test_backends_give_identical_estimates_on_a_query_object():
    A = make_random_regular_graph(40, 3, random_state=2)
    x = np.arange(0, 40, 3)
    y = np.arange(1, 41, 3) % 40
    kw = dict(walk_length=6, n_walks=10, batch_size=3, random_state=11)
    ref = estimate_collision_probabilities(A, x, y, backend="numba", **kw)
    np.testing.assert_array_equal(estimate_collision_probabilities(A, x, y, backend="numpy",
                                                                   **kw), ref)
    np.testing.assert_array_equal(estimate_collision_probabilities(_QueryGraph(A), x, y, **kw),
                                  ref)


def test_each_estimate_depends_on_the_seed_and_its_position_only():
    A = make_random_regular_graph(50, 4, random_state=0)
    x = np.arange(10)
    y = np.arange(10, 20)
    kw = dict(walk_length=4, n_walks=6, batch_size=2, random_state=5)
    full = estimate_collision_probabilities(A, x, y, **kw)
    np.testing.assert_array_equal(estimate_collision_probabilities(A, x[:4], y[:4], **kw),
                                  full[:4])
    # broadcasting keeps C order and the broadcast shape
    grid = estimate_collision_probabilities(A, x.reshape(2, 5), 0, **kw)
    assert grid.shape == (2, 5)
    flat = estimate_collision_probabilities(A, x, np.zeros(10, dtype=int), **kw)
    np.testing.assert_array_equal(grid.ravel(), flat)


def test_batch_size_defaults_and_prior_mode_equal_one_batch():
    A = make_random_regular_graph(40, 4, random_state=3)
    x, y = np.arange(8), np.arange(8, 16)
    kw = dict(walk_length=3, n_walks=9, random_state=2)
    one = estimate_collision_probabilities(A, x, y, batch_size=None, **kw)
    for backend in ("numba", "numpy"):
        np.testing.assert_array_equal(
            estimate_collision_probabilities(A, x, y, batch_size=50, backend=backend, **kw),
            one)
        np.testing.assert_array_equal(
            estimate_collision_probabilities(A, x, y, batch_size=2, prior=True,
                                             backend=backend, **kw), one)
    # a smaller batch is a different (still unbiased) estimator
    assert not np.array_equal(estimate_collision_probabilities(A, x, y, batch_size=3, **kw),
                              one)


def test_keys_depend_on_every_id_column_and_accept_the_full_32_bit_range():
    base = base_words(np.random.SeedSequence(0))
    ids = np.array([[i, j] for i in range(40) for j in range(40)])
    keys = derive_keys(base, ids)
    assert keys.shape == (1600, 2) and keys.dtype == np.uint64
    assert len({tuple(k) for k in keys.tolist()}) == 1600  # no collisions
    assert keys.max() <= 0xFFFFFFFF
    # row order does not matter, and one column equals its 1-D form
    perm = np.random.default_rng(0).permutation(1600)
    np.testing.assert_array_equal(derive_keys(base, ids[perm]), keys[perm])
    np.testing.assert_array_equal(derive_keys(base, np.arange(5)),
                                  derive_keys(base, np.arange(5)[:, None]))
    # other base words give other keys
    other = derive_keys(base_words(np.random.SeedSequence(1)), ids)
    assert not np.any(np.all(other == keys, axis=1))
    edge = derive_keys(base, np.array([[0], [2**32 - 1]]))
    assert edge.shape == (2, 2)
    for bad in ([[2**32]], [[-1]]):
        raises(lambda bad=bad: derive_keys(base, np.array(bad)), ValueError,
               shows="[0, 2**32)", match="estimate ids must lie in")


def test_collision_counts_edge_cases_and_repeated_walk_lengths():
    g = as_graph_access(make_random_regular_graph(20, 4, random_state=0))
    keys = derive_keys(base_words(np.random.SeedSequence(0)), np.arange(3))
    out = collision_counts(g, np.array([], dtype=int), np.array([], dtype=int), keys[:0],
                           [0, 2], 1, 4)
    assert out.shape == (0, 2)
    with pytest.raises(ValueError, match="single batch"):
        collision_counts(g, np.arange(3), np.arange(3), keys, [1], 2, 4, prior=True)
    # several walk lengths at once (repeated ones included): column j equals a run with
    # ts = [t_j], on every backend, a query object included
    ts = [0, 0, 1, 3, 3, 6]
    query = as_graph_access(_QueryGraph(make_random_regular_graph(20, 4, random_state=0)))
    ref = None
    for backend, gg in (("numba", g), ("numpy", g), ("numba", query)):
        many = collision_counts(gg, np.arange(3), np.arange(3, 6), keys, ts, 2, 3,
                                backend=backend)
        for j, t in enumerate(ts):
            one = collision_counts(gg, np.arange(3), np.arange(3, 6), keys, [t], 2, 3,
                                   backend=backend)
            np.testing.assert_array_equal(many[:, j], one[:, 0])
        if ref is None:
            ref = many
        np.testing.assert_array_equal(many, ref)
        assert many.dtype == np.int64          # counts, on every engine


def test_array_api_walks_on_a_graph_without_edges_stay_put():
    from statlearn.cluster._references import walk_endpoints_xp

    indptr = np.zeros(5, dtype=np.int64)
    indices = np.zeros(0, dtype=np.int64)
    starts = np.array([0, 3, 2], dtype=np.int64)
    keys = derive_keys(base_words(np.random.SeedSequence(1)), np.arange(3))
    out = walk_endpoints_xp(indptr, indices, 1, starts, keys, np.arange(3, dtype=np.int64),
                            [0, 1, 2, 2, 5])
    np.testing.assert_array_equal(out, np.tile(starts, (5, 1)))


def test_input_messages():
    A = make_random_regular_graph(10, 2, random_state=0)
    est = estimate_collision_probabilities
    refused = [  # (arguments, error, argument named, value shown, the rule broken)
        (dict(walk_length=-1, n_walks=2), ValueError, "walk_length", "-1", r"in \[0, inf\]"),
        (dict(walk_length=1, n_walks=0), ValueError, "n_walks", "0", r"in \[1, inf\]"),
        (dict(walk_length=1, n_walks=2, batch_size=0), ValueError, "batch_size", "0",
         r"in \[1, inf\]"),
        (dict(walk_length=1, n_walks=2, backend="torch"), ValueError, "backend", "torch",
         "must be one of"),
        (dict(walk_length=1, n_walks=2, prior=1), TypeError, "prior", "got int",
         "must be a bool"),
        (dict(walk_length=1, n_walks=2**32), ValueError, "n_walks", None, "is too large"),
    ]
    for kw, exc, name, value, rule in refused:
        raises(lambda kw=kw: est(A, 0, 1, **kw), exc, names=name, shows=value, match=rule)
    bad_vertices = [  # (x, y, error, argument named, value shown, the rule broken)
        ([0.5], 1, TypeError, "x", "fractional values", "must hold integer vertex ids"),
        ([np.nan], 1, ValueError, "x", "NaN or infinite", "must hold vertex ids"),
        (["0"], 1, TypeError, "x", "dtype <U1", "must hold integer vertex ids"),
        (0, [True], TypeError, "y", "dtype bool", "must hold integer vertex ids"),
        ([3, 10], 1, IndexError, "x", ["[0, 9]", "got 10"], "must hold vertices in"),
        (0, [-1], IndexError, "y", ["[0, 9]", "got -1"], "must hold vertices in"),
    ]
    for x, y, exc, name, value, rule in bad_vertices:
        raises(lambda x=x, y=y: est(A, x, y, walk_length=1, n_walks=2), exc, names=name,
               shows=value, match=rule)
    # the extreme vertices and an empty request are valid
    assert est(A, [0, 9], [9, 0], walk_length=0, n_walks=1).tolist() == [0.0, 0.0]
    assert est(A, np.array([], dtype=float), 0, walk_length=1, n_walks=2).shape == (0,)


def test_median_estimates_exact_at_zero_length_and_independent_of_pair_order():
    from statlearn.cluster._walks import median_estimates

    A = make_random_regular_graph(30, 4, random_state=5)
    g = as_graph_access(A)
    base = base_words(np.random.SeedSequence(7))
    xs = np.array([0, 4, 9, 9, 17])
    ys = np.array([0, 5, 9, 2, 17])
    ids = np.arange(5)
    for reps in (1, 3):
        for backend in ("numba", "numpy"):
            z = median_estimates(g, xs, ys, ids, base, 0, reps, 2, 3, backend=backend)
            np.testing.assert_array_equal(z, (xs == ys).astype(float))
    # each pair's median depends on its id only: any order or grouping of the pairs
    full = median_estimates(g, xs, ys, ids, base, 5, 5, 2, 3)
    perm = np.array([3, 0, 4, 1, 2])
    np.testing.assert_array_equal(median_estimates(g, xs[perm], ys[perm], ids[perm], base, 5,
                                                   5, 2, 3), full[perm])
    np.testing.assert_array_equal(median_estimates(g, xs[3:], ys[3:], ids[3:], base, 5, 5, 2,
                                                   3), full[3:])
    np.testing.assert_array_equal(median_estimates(g, xs, ys, ids, base, 5, 5, 2, 3,
                                                   backend="numpy"), full)
    assert np.all((full >= 0) & (full <= 1))
    # ids may name a pair by several integers (vertex, landmark, ...): one row per pair
    two = median_estimates(g, xs, ys, np.column_stack([ids, ids + 100]), base, 0, 3, 2, 3)
    np.testing.assert_array_equal(two, (xs == ys).astype(float))
    # the prior (unbatched) estimator is one batch: asking it for two batches is an error
    with pytest.raises(ValueError, match="single batch"):
        median_estimates(g, xs, ys, ids, base, 2, 3, 2, 3, prior=True)


def test_array_api_lanes_and_a_second_namespace():
    xps = pytest.importorskip("array_api_strict")
    from statlearn.cluster._references import collision_counts_xp, default_lanes, walk_endpoints_xp

    # NumPy: 64 pairs in flight; other namespaces: as many pairs as fit 2**22 positions
    assert default_lanes(np, 10) == 64
    assert default_lanes(xps, 1000) == 2**22 // 2000
    assert default_lanes(xps, 2**22) == 1
    assert default_lanes(xps, 0) == 2**22
    A = make_random_regular_graph(12, 3, random_state=0)
    g = as_graph_access(A)
    keys = derive_keys(base_words(np.random.SeedSequence(2)), np.arange(5))
    xs, ys = np.arange(5), np.arange(5, 10)
    ref = collision_counts(g, xs, ys, keys, [0, 2, 3], 2, 4, backend="numba")
    for lanes in (None, 1, 2, 7):
        out = collision_counts_xp(g.indptr, g.indices, g.max_degree, xs, ys, keys, [0, 2, 3],
                                  2, 4, lanes=lanes)
        np.testing.assert_array_equal(out, ref)
    # the same walks in another array namespace (array-api-strict wraps NumPy)
    strict = collision_counts_xp(xps.asarray(g.indptr), xps.asarray(g.indices), g.max_degree,
                                 xps.asarray(xs), xps.asarray(ys), xps.asarray(keys),
                                 [0, 2, 3], 2, 4)
    np.testing.assert_array_equal(np.asarray(strict), ref)
    # no walk length asked: an empty (0, n_walks) array
    empty = walk_endpoints_xp(g.indptr, g.indices, g.max_degree, xs, keys, xs, [])
    assert empty.shape == (0, 5) and empty.dtype == np.int64


def test_missing_cupy_is_named_with_the_backend():
    try:
        import cupy  # noqa: F401
    except ImportError:
        pass
    else:
        pytest.skip("cupy is installed")
    A = make_random_regular_graph(10, 2, random_state=0)
    raises(lambda: estimate_collision_probabilities(A, 0, 1, walk_length=1, n_walks=2,
                                                    backend="cupy"),
           ImportError, names="cupy", shows=["backend='cupy'", "'.[gpu]' (the 'gpu' extra)"],
           match="is required for .* could not be imported")


def test_derive_keys_reads_ids_as_integers():
    base = base_words(np.random.SeedSequence(5))
    np.testing.assert_array_equal(derive_keys(base, [["3", "1"], ["4", "0"]]),
                                  derive_keys(base, np.array([[3, 1], [4, 0]])))

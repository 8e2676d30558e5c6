"""Graph generators: structure, edge densities, reproducibility, bad input."""

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given
from hypothesis import strategies as st

from statlearn.datasets import make_planted_expanders, make_random_regular_graph, make_sbm_graph
from statlearn.datasets._graphs import _bernoulli_indices, _triangle_decode
from statlearn.testing import assert_binomial_rate


def _is_simple_undirected(A):
    return ((A != A.T).nnz == 0 and A.diagonal().sum() == 0 and np.all(A.data == 1)
            and sp.isspmatrix_csr(A) or isinstance(A, sp.csr_array))


@given(m=st.integers(2, 60))
def test_triangle_decoding_enumerates_upper_triangle(m):
    k = np.arange(m * (m - 1) // 2)
    i, j = _triangle_decode(k, m)
    ii, jj = np.triu_indices(m, 1)
    np.testing.assert_array_equal(i, ii)
    np.testing.assert_array_equal(j, jj)


def test_triangle_decoding_is_exact_for_huge_blocks():
    m = 10**6
    k = np.array([0, 1, m - 2, m - 1, m * (m - 1) // 2 - 1, 123456789012])
    i, j = _triangle_decode(k, m)
    offset = i * (2 * m - i - 1) // 2
    np.testing.assert_array_equal(offset + j - i - 1, k)
    assert np.all((0 <= i) & (i < j) & (j < m))


def test_geometric_skipping_keeps_each_index_with_probability_p():
    rng = np.random.default_rng(0)
    hits = np.zeros(50, dtype=int)
    for _ in range(2000):
        idx = _bernoulli_indices(rng, 50, 0.1)
        assert np.all(np.diff(idx) > 0) and (idx.size == 0 or idx[-1] < 50)
        hits[idx] += 1
    # every position: Binomial(2000, 0.1); Bonferroni over 50 positions
    for h in hits:
        assert_binomial_rate(int(h), 2000, 0.1, false_alarm=1e-6 / 50)
    assert _bernoulli_indices(rng, 10, 0.0).size == 0
    np.testing.assert_array_equal(_bernoulli_indices(rng, 5, 1.0), np.arange(5))


def test_sbm_edge_counts_match_probabilities():
    A, y = make_sbm_graph([300, 200], 0.05, 0.01, random_state=1)
    assert _is_simple_undirected(A) and A.shape == (500, 500)
    np.testing.assert_array_equal(np.bincount(y), [300, 200])
    rows, cols = sp.triu(A, 1).nonzero()
    within = int(np.sum(y[rows] == y[cols]))
    between = rows.size - within
    n_within = 300 * 299 // 2 + 200 * 199 // 2
    assert_binomial_rate(within, n_within, 0.05, label="within-block edges")
    assert_binomial_rate(between, 300 * 200, 0.01, label="between-block edges")


def test_sbm_is_reproducible_and_scales():
    a, _ = make_sbm_graph([100, 100], 0.1, 0.01, random_state=5)
    b, _ = make_sbm_graph([100, 100], 0.1, 0.01, random_state=5)
    assert (a != b).nnz == 0
    c, _ = make_sbm_graph([100, 100], 0.1, 0.01, random_state=6)
    assert (a != c).nnz > 0
    big, y = make_sbm_graph([100_000] * 2, 5e-5, 1e-6, random_state=0, dtype=np.int8)
    assert big.dtype == np.int8 and big.shape == (200_000, 200_000)
    assert 0.8 * 1e6 < big.nnz < 1.2 * 1e6  # about 2 * (2 * 5e-5 * 1e10 / 2 + 1e-6 * 1e10)


def test_random_regular_graph_degrees():
    A = make_random_regular_graph(2000, 8, random_state=0)
    assert _is_simple_undirected(A)
    deg = np.asarray(A.sum(axis=1)).ravel()
    assert deg.max() == 8
    # loops and repeated edges are rare (~(d^2 - 1)/4 = 16 in expectation)
    assert np.sum(8 - deg) <= 2 * 60
    # an expander: second adjacency eigenvalue well below the degree
    ev = np.linalg.eigvalsh(A.toarray())
    assert ev[-2] < 2 * np.sqrt(7) + 0.5


def test_planted_expanders_structure():
    A, y = make_planted_expanders([100, 120, 80], 6, n_bridges=7, random_state=3)
    assert _is_simple_undirected(A) and A.shape == (300, 300)
    rows, cols = sp.triu(A, 1).nonzero()
    assert np.sum(y[rows] != y[cols]) == 7
    B, y2 = make_planted_expanders([50, 50], 4, n_bridges=0, random_state=0)
    rows, cols = B.nonzero()
    assert np.all(y2[rows] == y2[cols])


@pytest.mark.parametrize("call, exc, match", [
    (lambda: make_sbm_graph(100, 0.1, 0.1), TypeError, "sizes"),
    (lambda: make_sbm_graph([], 0.1, 0.1), ValueError, "sizes"),
    (lambda: make_sbm_graph([10, 0], 0.1, 0.1), ValueError, "positive"),
    (lambda: make_sbm_graph([10.5], 0.1, 0.1), TypeError, "integers"),
    (lambda: make_sbm_graph([10], 1.5, 0.1), ValueError, "p must be"),
    (lambda: make_sbm_graph([10], 0.1, -0.1), ValueError, "q must be"),
    (lambda: make_sbm_graph([10], 0.1, 0.1, dtype="U3"), TypeError, "dtype"),
    (lambda: make_random_regular_graph(9, 3), ValueError, "even"),
    (lambda: make_random_regular_graph(4, 4), ValueError, "below"),
    (lambda: make_random_regular_graph(1, 0), ValueError, "n_vertices"),
    (lambda: make_planted_expanders([10], 4, 2), ValueError, "two clusters"),
    (lambda: make_planted_expanders([10, 11], 3, 2), ValueError, "even"),
    (lambda: make_planted_expanders([10, 10], 4, -1), ValueError, "n_bridges"),
])
def test_bad_inputs(call, exc, match):
    with pytest.raises(exc, match=match):
        call()

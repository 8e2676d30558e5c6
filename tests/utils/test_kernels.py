"""The fused probability-matrix check equals its NumPy reference."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from statlearn.utils._kernels import probability_rows_status, probability_rows_status_reference

_entries = st.one_of(st.floats(-0.5, 1.5), st.sampled_from([0.0, 1.0, np.nan, np.inf, -np.inf]))


@pytest.mark.numba
@settings(deadline=None, max_examples=200)
@given(P=arrays(np.float64, st.tuples(st.integers(1, 8), st.integers(1, 6)), elements=_entries),
       atol=st.sampled_from([1e-6, 1e-2, 0.5]))
def test_kernel_matches_reference(P, atol):
    got = probability_rows_status(P, atol)
    ref = probability_rows_status_reference(P, atol)
    assert got[:2] == ref[:2]
    assert got[2] == pytest.approx(ref[2], rel=1e-12, abs=1e-12)


@pytest.mark.numba
@settings(deadline=None, max_examples=50)
@given(rows=st.integers(1, 20), K=st.integers(1, 30), seed=st.integers(0, 2**32 - 1))
def test_valid_matrices_pass(rows, K, seed):
    P = np.random.default_rng(seed).dirichlet(np.ones(K), size=rows)
    assert probability_rows_status(P, 1e-9) == (0, -1, 0.0)


@pytest.mark.numba
def test_first_offending_row_and_precedence():
    P = np.array([[0.5, 0.6], [0.5, -0.5], [np.nan, 1.0]])
    assert probability_rows_status(P, 1e-6)[:2] == (1, 2)  # non-finite first
    assert probability_rows_status(P[:2], 1e-6)[:2] == (2, 1)  # then negative
    code, row, s = probability_rows_status(P[:1], 1e-6)
    assert (code, row) == (3, 0) and s == pytest.approx(1.1)
    # non-contiguous views work too
    Q = np.asfortranarray(np.tile([[0.25, 0.75]], (3, 1)))
    assert probability_rows_status(Q, 1e-9)[0] == 0

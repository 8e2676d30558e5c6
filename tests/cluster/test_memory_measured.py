"""The memory the walks and the build really hold, measured with tracemalloc (not the formula)."""

from __future__ import annotations

import numpy as np

from statlearn.cluster import SpectralClusteringOracle
from statlearn.datasets import make_planted_expanders


def _peak_bytes(f):
    """Peak of Python-visible (NumPy) allocations made while ``f`` runs."""
    import tracemalloc

    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        base = tracemalloc.get_traced_memory()[0]
        f()
        return tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()


def _graph_and_pairs():
    from statlearn.cluster._graph import as_graph_access
    from statlearn.cluster._walks import base_words, derive_keys

    A, _ = make_planted_expanders([1000, 1000], 10, n_bridges=10, random_state=0)
    g = as_graph_access(A)
    keys = derive_keys(base_words(np.random.SeedSequence(1)), np.arange(3))
    return g, np.array([0, 5, 1500]), np.array([3, 1200, 1501]), keys


def test_numba_kernel_holds_one_batch_of_endpoints():
    """The kernel's own allocations, traced by running its code uninterpreted-free.

    ``py_func`` is the kernel's source run by Python (NumPy allocations, traced);
    the compiled kernel allocates the same arrays. Per pair it holds the sorted
    x-endpoints of one batch (``b`` words) plus O(16)-word group buffers; NumPy's
    sort adds one temporary of the row in the interpreted run. Measured: about
    2 words per endpoint, nothing that grows with the number of batches.
    """
    from statlearn.cluster._kernels import collision_counts_kernel

    fn = getattr(collision_counts_kernel, "py_func", collision_counts_kernel)
    g, xs, ys, keys = _graph_and_pairs()
    ts = np.array([8])
    fn(g.indptr, g.indices, g.max_degree, xs, ys, keys, ts, 2, 8)  # warm up
    peak = {b: _peak_bytes(lambda b=b: fn(g.indptr, g.indices, g.max_degree, xs[:1], ys[:1],
                                          keys[:1], ts, 4096 // b, b))
            for b in (256, 4096)}
    slope_words = (peak[4096] - peak[256]) / (8 * (4096 - 256))
    assert 0.9 <= slope_words <= 2.2, peak  # the claim: 1 word per endpoint (+ sort temp)
    assert peak[256] < 8 * (2.2 * 256) + 16_000, peak  # no term in n_batches (16 here)


def test_numpy_walk_path_memory_follows_batch_size():
    """The array-API path holds one batch per pair in flight (was: 2**22-walk chunks).

    One lane: peak grows like the batch size (about 40 words per endpoint of
    vectorisation temporaries), not like the 8192 walks per side of the estimate.
    """
    from statlearn.cluster._references import collision_counts_xp

    g, xs, ys, keys = _graph_and_pairs()
    ip, ix = g.indptr.astype(np.int64), g.indices.astype(np.int64)

    def run(b, lanes=1):
        return collision_counts_xp(ip, ix, g.max_degree, xs, ys, keys, [8], 8192 // b, b,
                                   lanes=lanes)

    run(64)  # warm up
    peak = {b: _peak_bytes(lambda b=b: run(b)) for b in (256, 1024)}
    assert 3.0 < peak[1024] / peak[256] < 5.0, peak
    assert peak[1024] < 8 * 45 * 1024, peak
    # lanes multiply the in-flight batches (and the results are the same)
    np.testing.assert_array_equal(run(256, lanes=3), run(256))
    assert _peak_bytes(lambda: run(256, lanes=3)) > 2 * peak[256]


def test_oracle_fit_memory_does_not_grow_with_walks_or_batch():
    """Whole fit on the Numba path: traced NumPy memory (the kernel buffers are covered
    above) stays within a constant of the reported ``peak_memory_words_`` and does not
    change with ``batch_size`` or ``n_walks``. Measured about 6x the reported words at
    s = 42 landmarks: index arrays over the s(s+1)/2 landmark pairs and the keys of
    up to 256 estimates at a time, against s**2 words in the sequential count.
    """
    A, _ = make_planted_expanders([200, 200], 10, n_bridges=10, random_state=0)
    peaks, claims = [], []
    for b, r in ((8, 256), (128, 256), (16, 1024)):
        est = SpectralClusteringOracle(2, walk_length=8, batch_size=b, n_walks=r, n_repeats=1,
                                       random_state=0)
        est.fit(A)  # warm up
        peaks.append(_peak_bytes(lambda est=est: est.fit(A)))
        claims.append(8 * est.peak_memory_words_)
    assert max(peaks) < 1.2 * min(peaks), peaks
    assert all(p < 8 * c for p, c in zip(peaks, claims)), (peaks, claims)

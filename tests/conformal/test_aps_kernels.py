"""The blocked APS/RAPS set kernel for few labels against a per-row walk written here.

The kernel ranks the labels of a block of rows by counting (vectorised over
the rows) and walks down the ranks; its sets must be those of the walk below,
bit for bit: the same stable order (larger probability first, ties by the
lower index), the same sums in the same order, the same comparisons. The
thresholds include scores met exactly, rows with ties and zeros, and sizes
that leave a partial last block and empty parallel chunks.
"""

from __future__ import annotations

import numpy as np
import pytest

from statlearn.conformal import _aps_kernels, _kernels

TWINS = ("aps_sets_threshold_kernel", "aps_sets_threshold_kernel_serial")


def _walk_row(row, u, randomized, lam_reg, k_reg, q):
    """APS/RAPS set of one row for one threshold, by the definition (one label at a time)."""
    order = sorted(range(len(row)), key=lambda i: (-row[i], i))
    keep = np.zeros(len(row), dtype=bool)
    cum = 0.0
    for t, lab in enumerate(order):
        rank, pv = t + 1, float(row[lab])
        if randomized:  # s(rank) = mass above + u p (+ lam (rank - k)^+) <= q
            s = cum + u * pv
            if lam_reg > 0 and rank - k_reg > 0:
                s += lam_reg * float(rank - k_reg)
            inside = s <= q
        elif rank == 1:  # deterministic: the top label, then while E_{rank-1} < q
            inside = True
        else:
            e = cum
            if lam_reg > 0 and rank - 1 - k_reg > 0:
                e += lam_reg * float(rank - 1 - k_reg)
            inside = e < q
        if not inside:
            break
        keep[lab] = True
        cum += pv
    return keep


def _rows(rng, n, K):
    """Half continuous rows, half on a coarse grid (ties, zeros)."""
    p = rng.dirichlet(np.full(K, 0.5), size=n)
    levels = rng.choice([0.0, 1.0, 2.0, 3.0], size=(n // 2, K))
    levels[:, 0] += 1.0
    p[: n // 2] = levels / levels.sum(axis=1, keepdims=True)
    return p


def _hit_score(p, u, randomized, lam_reg, k_reg, rng):
    """A threshold equal to the score of a label at rank 2 of some row (met exactly)."""
    i = int(rng.integers(p.shape[0]))
    row = p[i]
    order = sorted(range(row.size), key=lambda j: (-row[j], j))
    top, second = float(row[order[0]]), float(row[order[min(1, row.size - 1)]])
    if randomized:
        s = top + u[i] * second
        if lam_reg > 0 and 2 - k_reg > 0:
            s += lam_reg * float(2 - k_reg)
        return s
    return top  # E_1 (lam term zero at rank 1 when k_reg >= 1, or lam_reg = 0)


@pytest.mark.numba
@pytest.mark.parametrize("K", [1, 2, 7, 16, 32])
@pytest.mark.parametrize("randomized", [True, False])
@pytest.mark.parametrize("lam_reg, k_reg", [(0.0, 0), (0.02, 1)])
def test_blocked_kernel_equals_the_walk(K, randomized, lam_reg, k_reg):
    assert K <= _aps_kernels._APS_SMALL_K  # these K take the blocked path
    rng = np.random.default_rng(100 * K + 10 * randomized + k_reg)
    n = 2 * _aps_kernels.BLOCK + 9  # two full blocks and a partial one
    p = _rows(rng, n, K)
    u = rng.random(n)
    uu = u if randomized else np.zeros(n)
    qs = [0.0, 0.3, 0.75, 0.97, 1.5, _hit_score(p, u, randomized, lam_reg, k_reg, rng)]
    for q in qs:
        want = np.array([_walk_row(p[i], uu[i], randomized, lam_reg, k_reg, q)
                         for i in range(n)])
        for name in TWINS:
            got = getattr(_kernels, name)(p, uu, randomized, lam_reg, k_reg, q)
            np.testing.assert_array_equal(got, want, err_msg=f"{name} q={q}")
        # few rows: most parallel chunks are empty
        got = _kernels.aps_sets_threshold_kernel(p[:5], uu[:5], randomized, lam_reg, k_reg, q)
        np.testing.assert_array_equal(got, want[:5])


@pytest.mark.numba
def test_blocked_kernel_meets_a_score_exactly():
    # q equal to a score keeps that label (s <= q) in the randomised rule and drops the
    # next one in the deterministic rule (E_1 = q is not below q)
    p = np.array([[0.1, 0.5, 0.4], [0.25, 0.5, 0.25]])
    u = np.array([0.5, 0.5])
    q = 0.5 + 0.5 * 0.4  # row 0, rank 2 (label 2): s = 0.5 + u * 0.4
    for name in TWINS:
        got = getattr(_kernels, name)(p, u, True, 0.0, 0, q)
        np.testing.assert_array_equal(got, [[False, True, True], [True, True, False]])
        got = getattr(_kernels, name)(p, np.zeros(2), False, 0.0, 0, 0.5)
        np.testing.assert_array_equal(got, [[False, True, False], [False, True, False]])
        # equal probabilities: the lower index ranks first (row 1: label 0 before label 2)
        got = getattr(_kernels, name)(p, u, True, 0.0, 0, 0.5 + 0.25 + 0.5 * 0.25)
        np.testing.assert_array_equal(got[1], [True, True, True])
        got = getattr(_kernels, name)(p, u, True, 0.0, 0, 0.5 + 0.5 * 0.25)
        np.testing.assert_array_equal(got[1], [True, True, False])


@pytest.mark.numba
@pytest.mark.parametrize("K", [9, 32, 33, 60])
def test_blocked_and_bucketed_paths_agree_on_continuous_rows(K):
    # around the switch (K = 32 blocked, 33 bucketed) the sets are those of the walk
    rng = np.random.default_rng(K)
    p = rng.dirichlet(np.full(K, 0.4), size=300)
    u = rng.random(300)
    for q in (0.2, 0.6, 0.9):
        want = np.array([_walk_row(p[i], u[i], True, 0.0, 0, q) for i in range(300)])
        for name in TWINS:
            np.testing.assert_array_equal(getattr(_kernels, name)(p, u, True, 0.0, 0, q), want)


# ---------------------------------------------------------------- SOCOP, one threshold
@pytest.mark.numba
@pytest.mark.parametrize("K", [1, 2, 10, 16, 17])  # 16 blocked, 17 per row
@pytest.mark.parametrize("k0", [0, 1, 3])
def test_blocked_socop_sets_equal_the_hull_scan(K, k0):
    # the hull scan (one sort per row) is the reference; thresholds include scores met
    # exactly, rows with ties and zeros, a partial last block
    rng = np.random.default_rng(10 * K + k0)
    n = 2 * _aps_kernels.BLOCK + 5
    p = _rows(rng, n, K)
    for lam in (0.0, 0.05, 0.5):
        scores = _kernels.socop_scores_kernel_serial(p, lam, k0)
        fin = scores[np.isfinite(scores)]
        for q in [0.0, *rng.choice(fin, 4), 0.5 * fin.max() + 0.1, 3 * fin.max() + 1]:
            want = _kernels.socop_sets_kernel_serial(p, lam, k0, np.full(K, q))
            for name in ("socop_sets_threshold_kernel", "socop_sets_threshold_kernel_serial"):
                got = getattr(_kernels, name)(p, lam, k0, q)
                np.testing.assert_array_equal(got, want, err_msg=f"{name} lam={lam} q={q}")

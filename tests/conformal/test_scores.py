"""Scores: SOCOP worked examples, brute force, kernel vs reference, limits, baselines."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from statlearn.conformal import (
    _kernels,
    aps_scores,
    conformal_quantile,
    label_ranks,
    lac_scores,
    raps_scores,
    socop_scores,
    socop_sets,
    topk_scores,
)
from statlearn.conformal._classification._socop import socop_scores_reference

# ---------------------------------------------------------------- worked examples
# The SOCOP score of Wang, Sun & Dobriban (2025) by hand: the lower convex hull of the
# points (Gamma_j, g_j), g_j = 1{j > k0} + lam j, and its edge slopes (our computations,
# checked against the brute-force minimisation below).
WORKED = [
    ((0.5, 0.3, 0.15, 0.05), 0.1, (0.2, 2.6, 2.6, 2.6)),
    ((0.4, 0.35, 0.15, 0.1), 0.5, (1.25, 4.0, 4.0, 5.0)),
    ((0.6, 0.25, 0.1, 0.05), 0.0, (0.0, 2.5, 2.5, 2.5)),
    ((0.7, 0.3, 0.0, 0.0), 0.2, (2 / 7, 4.0, np.inf, np.inf)),
]


@pytest.mark.parametrize("gamma, lam, expected", WORKED)
def test_worked_examples(gamma, lam, expected):
    p = np.array([gamma])
    for got in (socop_scores(p, lam), socop_scores_reference(p, lam, 1)):
        np.testing.assert_allclose(got[0], expected, rtol=1e-12, atol=0)
    # the same vector with its labels permuted: scores follow the labels
    perm = np.array([2, 0, 3, 1])
    np.testing.assert_allclose(socop_scores(p[:, perm], lam)[0], np.array(expected)[perm],
                               rtol=1e-12)


def test_worked_example_hull_and_sets():
    # gamma = (0.5, 0.3, 0.15, 0.05), lam = 0.1: hull {0, 1, 4}, so sets are
    # empty below 0.2, {top} on [0.2, 2.6), everything from 2.6 on.
    p = np.array([[0.5, 0.3, 0.15, 0.05]])
    for q, size in [(0.19, 0), (0.2, 1), (2.59, 1), (2.6, 4), (np.inf, 4)]:
        assert socop_sets(p, 0.1, q).sum() == size


def test_k2_closed_form():
    # K = 2: the hull is P_0, P_1 = (g1, lam), P_2 = (1, 1 + 2 lam), and P_1 is on it iff
    # lam/g1 <= (1 + lam)/(1 - g1); otherwise both labels share the slope 1 + 2 lam
    for g1 in (0.5, 0.6, 0.8, 0.95, 0.999):
        for lam in (0.0, 0.05, 0.5, 2.0, 20.0):
            s = socop_scores(np.array([[g1, 1 - g1]]), lam)[0]
            e1, e2 = lam / g1, (1 + lam) / (1 - g1)
            if e1 <= e2:
                np.testing.assert_allclose(s, [e1, e2], rtol=1e-12)
            else:
                np.testing.assert_allclose(s, [1 + 2 * lam, 1 + 2 * lam], rtol=1e-12)


# ---------------------------------------------------------------- brute force
# The paper's definition: the score of a label is the smallest price eta at which it enters
# a minimiser of the Lagrangian 1{|S| > k0} + lam |S| - eta sum_{y in S} p_y, a top-j set;
# evaluated exactly at eta in {0} and every pairwise slope (where the minimiser changes).
def _brute_force(gamma_sorted, lam, k0):
    """min eta such that the largest minimiser of g_j - eta Gamma_j is >= rank."""
    K = gamma_sorted.size
    suffix = np.r_[np.cumsum(gamma_sorted[::-1])[::-1], 0.0]
    Gamma = suffix[0] - suffix
    j = np.arange(K + 1)
    g = (j > k0) + lam * j
    support = int(np.sum(gamma_sorted > 0))
    cand = {0.0}
    for a in range(support + 1):
        for b in range(a + 1, support + 1):
            cand.add((g[b] - g[a]) / (suffix[a] - suffix[b]))
    cand = np.array(sorted(cand))
    jstar = np.empty(cand.size, dtype=int)
    for t, eta in enumerate(cand):
        vals = g[:support + 1] - eta * Gamma[:support + 1]
        tol = 1e-11 * max(1.0, np.abs(g).max(), eta * Gamma[-1])
        jstar[t] = np.flatnonzero(vals <= vals.min() + tol).max()
    out = np.full(K, np.inf)
    for r in range(1, support + 1):
        out[r - 1] = cand[np.flatnonzero(jstar >= r)[0]]
    return out


_weights = arrays(np.int64, st.integers(2, 8), elements=st.integers(0, 40))


@settings(deadline=None, max_examples=150)
@given(w=_weights, lam=st.sampled_from([0.0, 0.01, 0.1, 0.5, 1.0, 3.0]),
       k0=st.integers(0, 3))
def test_brute_force_agreement(w, lam, k0):
    assume(w.sum() > 0)
    if lam == 0.0:
        # lam = 0 with exact zeros is excluded: the "largest minimiser" rule would put a
        # zero-probability label into the set, the hull gives it +inf
        assume(np.all(w > 0))
    p = w / w.sum()
    order = np.argsort(-p, kind="stable")
    expected = np.empty(p.size)
    expected[order] = _brute_force(p[order], lam, k0)
    got = socop_scores(p[None, :], lam, k0)[0]
    assert np.array_equal(np.isinf(got), np.isinf(expected))
    fin = np.isfinite(got)
    np.testing.assert_allclose(got[fin], expected[fin], rtol=1e-9)


def test_brute_force_dirichlet():
    rng = np.random.default_rng(3)
    for _ in range(120):
        K = rng.integers(2, 9)
        p = rng.dirichlet(np.full(K, rng.choice([0.2, 1.0, 5.0])))
        lam, k0 = float(rng.choice([0.0, 0.02, 0.1, 1.0])), int(rng.integers(0, 3))
        order = np.argsort(-p, kind="stable")
        expected = np.empty(K)
        expected[order] = _brute_force(p[order], lam, k0)
        np.testing.assert_allclose(socop_scores(p[None], lam, k0)[0], expected, rtol=1e-9)


# ---------------------------------------------------------------- kernel == reference
def _probability_rows(rng, n, K, zero_share=0.1, tie_rows=20):
    p = rng.dirichlet(np.full(K, rng.choice([0.1, 0.5, 2.0])), size=n)
    p[rng.random(p.shape) < zero_share] = 0.0
    p[p.sum(axis=1) == 0, 0] = 1.0
    p[:tie_rows] = np.round(p[:tie_rows], 1) + 1e-3  # ties inside a row
    return p / p.sum(axis=1, keepdims=True)


@pytest.mark.numba
@pytest.mark.parametrize("k0", [0, 1, 2, 5])
@pytest.mark.parametrize("lam", [0.0, 0.03, 1.0, 1e8])
def test_kernel_matches_reference(k0, lam):
    rng = np.random.default_rng(k0 * 100 + int(lam * 7) % 97)
    p = _probability_rows(rng, 60, 7)
    ref = socop_scores_reference(p, lam, k0)
    labels = rng.integers(0, 7, size=60)
    fin = np.isfinite(ref)
    q = rng.choice(np.r_[ref[fin], np.inf], size=7)
    for suffix in ("", "_serial"):
        got = getattr(_kernels, "socop_scores_kernel" + suffix)(p, lam, k0)
        assert np.array_equal(np.isinf(got), np.isinf(ref))
        np.testing.assert_allclose(got[fin], ref[fin], rtol=1e-10)
        lab = getattr(_kernels, "socop_label_scores_kernel" + suffix)(
            p, np.sort(p, axis=1), labels, lam, k0)
        np.testing.assert_array_equal(lab, got[np.arange(60), labels])
        sets = getattr(_kernels, "socop_sets_kernel" + suffix)(p, lam, k0, q)
        np.testing.assert_array_equal(sets, got <= q[None, :])


@pytest.mark.parametrize("K", [1, 2, 7, 60])
@pytest.mark.parametrize("k0", [0, 1, 3])
def test_label_scores_from_sorted_values_equal_the_stable_sort_scores(K, k0, monkeypatch):
    # the label kernel sorts the values only and ranks the label by a count (ties: the
    # lower index first); it must give the score of the stable-sort kernel exactly,
    # also with ties and zeros, and block by block
    from statlearn.conformal._classification import _socop

    rng = np.random.default_rng(K * 10 + k0)
    n = 300
    levels = rng.choice([0.0, 1.0, 2.0, 3.0], size=(n, K))  # many ties and zeros
    levels[:, 0] += 1.0  # no row of zeros
    p = levels / levels.sum(axis=1, keepdims=True)
    p[: n // 2] = _probability_rows(rng, n // 2, K)
    labels = rng.integers(0, K, size=n)
    for lam in (0.0, 0.04, 1.0):
        full = _kernels.socop_scores_kernel_serial(p, lam, k0)[np.arange(n), labels]
        for suffix in ("", "_serial"):
            got = getattr(_kernels, "socop_label_scores_kernel" + suffix)(
                p, np.sort(p, axis=1), labels, lam, k0)
            np.testing.assert_array_equal(got, full)
        monkeypatch.setattr(_socop, "_SORT_BLOCK", 7 * max(K, 1))  # blocks of 7 rows
        np.testing.assert_array_equal(_socop._socop_label_scores_np(p, labels, lam, k0), full)
        monkeypatch.undo()


@pytest.mark.numba
@pytest.mark.parametrize("k0", [0, 1, 2, 5])
@pytest.mark.parametrize("lam", [0.0, 0.03, 1.0])
def test_one_pass_socop_sets_equal_the_hull_scan(k0, lam):
    # the one-pass kernel (no sort) must give the hull-scan sets row for row, also
    # when the threshold is exactly one of the scores (ties, rows with zeros)
    rng = np.random.default_rng(k0 * 10 + int(lam * 100))
    p = _probability_rows(rng, 80, 7)
    ref = socop_scores_reference(p, lam, k0)
    fin = ref[np.isfinite(ref)]
    for q in [0.0, 0.5 * fin.min(), *rng.choice(fin, 6), 2 * fin.max()]:
        hull = _kernels.socop_sets_kernel_serial(p, lam, k0, np.full(7, q))
        for suffix in ("", "_serial"):
            fast = getattr(_kernels, "socop_sets_threshold_kernel" + suffix)(p, lam, k0, q)
            np.testing.assert_array_equal(fast, hull)
        # and the reference's sets wherever q is not within rounding of a score
        clear = ~np.any(np.isclose(ref, q, rtol=1e-9, atol=0), axis=1)
        np.testing.assert_array_equal(hull[clear], (ref <= q)[clear])
    assert socop_sets(p, lam, np.inf, k0).all()


@pytest.mark.numba
@pytest.mark.parametrize("K", [9, 60])  # rows sorted whole / bucketed by value
@pytest.mark.parametrize("randomized", [True, False])
@pytest.mark.parametrize("lam_reg, k_reg", [(0.0, 0), (0.01, 2)])
def test_aps_set_kernels_match_reference(K, randomized, lam_reg, k_reg):
    import array_api_compat.numpy as xp

    from statlearn.conformal._classification._baselines import _aps_sets_reference

    rng = np.random.default_rng(3)
    p = rng.dirichlet(np.full(K, 0.4), size=120)  # continuous: no ties at the threshold
    p[:10] = rng.dirichlet(np.full(K, 0.02), size=10)  # nearly all mass on few labels
    u = rng.random(120) if randomized else None
    uu = u if randomized else np.zeros(120)
    for q in (0.05, 0.4, 0.83, 0.97, 1.3):
        ref = _aps_sets_reference(p, u, np.full(K, q), lam_reg, k_reg, xp)
        for name in ("aps_sets_threshold_kernel", "aps_sets_threshold_kernel_serial"):
            got = getattr(_kernels, name)(p, uu, randomized, lam_reg, k_reg, q)
            np.testing.assert_array_equal(got, ref)
        qs = rng.uniform(0.2, 1.0, size=K)  # one threshold per label: the sort kernel
        ref = _aps_sets_reference(p, u, qs, lam_reg, k_reg, xp)
        for name in ("aps_sets_kernel", "aps_sets_kernel_serial"):
            np.testing.assert_array_equal(
                getattr(_kernels, name)(p, uu, randomized, lam_reg, k_reg, qs), ref)


@pytest.mark.numba
def test_lac_set_kernel_matches_definition():
    rng = np.random.default_rng(8)
    p = _probability_rows(rng, 50, 6)
    q = rng.uniform(0.3, 0.95, size=6)
    for name in ("lac_sets_kernel", "lac_sets_kernel_serial"):
        np.testing.assert_array_equal(getattr(_kernels, name)(p, q), 1.0 - p <= q[None, :])


@settings(deadline=None, max_examples=60)
@given(p=arrays(np.float64, st.tuples(st.integers(1, 5), st.integers(2, 9)),
                elements=st.floats(0, 1)),
       lam=st.floats(0, 10), k0=st.integers(0, 4))
def test_kernel_matches_reference_hypothesis(p, lam, k0):
    assume(np.all(p.sum(axis=1) > 0))
    p = p / p.sum(axis=1, keepdims=True)
    ref = socop_scores_reference(p, lam, k0)
    got = socop_scores(p, lam, k0)
    assert np.array_equal(np.isinf(got), np.isinf(ref))
    fin = np.isfinite(ref)
    np.testing.assert_allclose(got[fin], ref[fin], rtol=1e-9, atol=1e-12)


# ---------------------------------------------------------------- structure
# Sets are top-j sets nested in alpha (the minimisers are top-j and nested in eta); lam = 0
# gives the top label or the whole support, lam -> inf the LAC sets (Wang, Sun & Dobriban).
def _is_top_j(sets, p):
    order = np.argsort(-p, axis=1, kind="stable")
    by_rank = np.take_along_axis(sets, order, axis=1)
    size = by_rank.sum(axis=1)
    return np.all(by_rank == (np.arange(p.shape[1])[None, :] < size[:, None]))


@pytest.mark.parametrize("lam", [0.0, 0.01, 0.2, 2.0])
def test_sets_are_top_j_and_nested_in_alpha(lam):
    rng = np.random.default_rng(11)
    p_cal, p_test = _probability_rows(rng, 300, 8), _probability_rows(rng, 400, 8)
    y_cal = np.array([rng.choice(8, p=row) for row in p_cal])
    s_cal = socop_scores(p_cal, lam, labels=y_cal)
    previous = None
    for alpha in (0.5, 0.3, 0.2, 0.1, 0.05, 0.01, 0.001):  # decreasing alpha
        sets = socop_sets(p_test, lam, conformal_quantile(s_cal, alpha))
        assert _is_top_j(sets, p_test)
        if previous is not None:
            assert np.all(previous <= sets)  # C_{alpha1} within C_{alpha2}, alpha1 > alpha2
        previous = sets


def test_lambda_zero_gives_top_label_or_support():
    rng = np.random.default_rng(5)
    p = _probability_rows(rng, 500, 6)
    s = socop_scores(p, 0.0)
    support = p > 0
    top = np.zeros_like(support)
    top[np.arange(500), np.argmax(p, axis=1)] = True
    for q in np.r_[np.quantile(s[np.isfinite(s)], [0.0, 0.3, 0.6, 0.9, 1.0]), np.inf]:
        sets = socop_sets(p, 0.0, q)
        ok = np.all(sets == top, axis=1) | np.all(sets == support, axis=1)
        if np.isinf(q):
            ok |= sets.all(axis=1)
        assert ok.all()
        assert sets[np.arange(500), np.argmax(p, axis=1)].all()  # never empty at lam = 0


def test_large_lambda_recovers_lac():
    rng = np.random.default_rng(8)
    p = rng.dirichlet(np.full(10, 0.5), size=7000)
    y = np.array([rng.choice(10, p=row) for row in p])
    cal, test = slice(0, 2000), slice(2000, None)
    for alpha in (0.05, 0.1, 0.2):
        q_soc = conformal_quantile(socop_scores(p[cal], 1e8, labels=y[cal]), alpha)
        q_lac = conformal_quantile(lac_scores(p[cal], y[cal]), alpha)
        same = np.all(socop_sets(p[test], 1e8, q_soc) == (lac_scores(p[test]) <= q_lac), axis=1)
        assert same.mean() >= 0.999


# ---------------------------------------------------------------- edge cases
def test_ties_are_broken_by_label_index():
    np.testing.assert_array_equal(label_ranks(np.array([[0.3, 0.3, 0.4]]))[0], [2, 3, 1])
    flat = np.array([[0.25, 0.25, 0.25, 0.25]])
    s = socop_scores(flat, 0.1)[0]
    assert np.all(np.diff(s) >= 0)  # equal probabilities: earlier labels enter first
    sets = socop_sets(flat, 0.1, s[0])
    np.testing.assert_array_equal(sets[0], [True, False, False, False])


def test_zero_probability_labels_score_inf():
    p = np.array([[0.6, 0.0, 0.4, 0.0]])
    for lam in (0.0, 0.1, 5.0):
        s = socop_scores(p, lam)[0]
        assert np.isinf(s[[1, 3]]).all() and np.isfinite(s[[0, 2]]).all()
        assert not socop_sets(p, lam, 1e300)[0, [1, 3]].any()
        assert socop_sets(p, lam, np.inf)[0].all()


def test_tiny_probability_keeps_a_finite_score():
    # Gamma differences come from suffix sums: 1e-20 must not collapse onto its neighbour
    p = np.array([[1 - 2e-20, 1e-20, 1e-20]])
    s = socop_scores(p, 0.1)[0]
    assert np.isfinite(s).all()
    assert s[1] > 1e18
    np.testing.assert_allclose(socop_scores_reference(p, 0.1, 1)[0], s, rtol=1e-9)


def test_empty_sets_when_threshold_below_first_slope():
    p = np.array([[0.5, 0.3, 0.15, 0.05]])
    assert not socop_sets(p, 0.1, 0.1).any()


def test_k0_zero_and_large():
    p = np.array([[0.5, 0.3, 0.2]])
    # k0 >= K: no indicator, scores lam / p (the LAC order)
    np.testing.assert_allclose(socop_scores(p, 1.0, k0=3)[0], 1.0 / p[0], rtol=1e-12)
    s0 = socop_scores(p, 0.1, k0=0)[0]
    assert np.all(np.diff(s0) >= 0) and s0[0] > 0


# ---------------------------------------------------------------- baselines
def _naive_ranks(p):
    K = p.size
    return np.array([np.sum(p > p[y]) + np.sum(p[:y] == p[y]) + 1 for y in range(K)])


def test_baselines_match_definitions():
    rng = np.random.default_rng(2)
    p = _probability_rows(rng, 50, 6)
    u = rng.random(50)
    for i in range(50):
        r = _naive_ranks(p[i])
        above = np.array([p[i][r < r[y]].sum() for y in range(6)])
        np.testing.assert_array_equal(label_ranks(p)[i], r)
        np.testing.assert_allclose(topk_scores(p)[i], r)
        np.testing.assert_allclose(lac_scores(p)[i], 1 - p[i])
        np.testing.assert_allclose(aps_scores(p, randomized=False)[i], above + p[i],
                                   atol=1e-12)
        np.testing.assert_allclose(aps_scores(p, u=u)[i], above + u[i] * p[i], atol=1e-12)
        np.testing.assert_allclose(
            raps_scores(p, lam_reg=0.2, k_reg=2, u=u)[i],
            above + u[i] * p[i] + 0.2 * np.maximum(r - 2, 0), atol=1e-12)


@pytest.mark.parametrize("func, kw", [
    (lac_scores, {}), (topk_scores, {}), (aps_scores, {"randomized": False}),
    (raps_scores, {"randomized": False, "lam_reg": 0.1, "k_reg": 2}),
    (socop_scores, {"lam": 0.1}), (socop_scores, {"lam": 0.0, "k0": 2}),
])
def test_label_scores_equal_matrix_columns(func, kw):
    rng = np.random.default_rng(4)
    p = _probability_rows(rng, 80, 5)
    y = rng.integers(0, 5, size=80)
    np.testing.assert_allclose(func(p, labels=y, **kw), func(p, **kw)[np.arange(80), y],
                               rtol=1e-12, atol=1e-15)


def test_randomized_aps_uses_one_u_per_row():
    rng = np.random.default_rng(0)
    p = rng.dirichlet(np.ones(6), size=40)
    a = aps_scores(p, random_state=1)
    b = aps_scores(p, random_state=1)
    np.testing.assert_array_equal(a, b)
    y = rng.integers(0, 6, size=40)
    np.testing.assert_allclose(aps_scores(p, y, random_state=1), a[np.arange(40), y], atol=1e-15)
    assert _is_top_j(a <= 0.6, p)


# ---------------------------------------------------------------- array API
@pytest.mark.parametrize("name", ["socop", "lac", "aps", "raps", "topk", "ranks"])
def test_array_api_namespaces(xp, name):
    rng = np.random.default_rng(9)
    p = _probability_rows(rng, 40, 6)
    y = rng.integers(0, 6, size=40)
    u = rng.random(40)
    funcs = {
        "socop": lambda q, lab=None: socop_scores(q, 0.1, labels=lab),
        "lac": lambda q, lab=None: lac_scores(q, lab),
        "aps": lambda q, lab=None: aps_scores(q, lab, u=u),
        "raps": lambda q, lab=None: raps_scores(q, lab, lam_reg=0.1, k_reg=1, u=u),
        "topk": lambda q, lab=None: topk_scores(q, lab),
        "ranks": lambda q, lab=None: label_ranks(q, lab),
    }
    f = funcs[name]
    px = xp.asarray(p)
    got = f(px)
    assert type(got) is type(px)
    np.testing.assert_allclose(np.asarray(got), f(p), rtol=1e-12)
    got_y = f(px, xp.asarray(y))
    np.testing.assert_allclose(np.asarray(got_y), f(p, y), rtol=1e-12)


def test_array_api_sets(xp):
    rng = np.random.default_rng(10)
    p = _probability_rows(rng, 30, 5)
    sets = socop_sets(xp.asarray(p), 0.2, 3.0)
    np.testing.assert_array_equal(np.asarray(sets), socop_sets(p, 0.2, 3.0))


# ---------------------------------------------------------------- input rejection
@pytest.mark.parametrize("bad, err", [
    ([[0.5, -0.1, 0.6]], "non-negative"),
    ([[0.5, np.nan, 0.5]], "NaN"),
    ([[0.5, 0.3, 0.1]], "sum to 1"),
    ([0.5, 0.5], "2-D"),
    (np.zeros((0, 3)), "non-empty"),
])
@pytest.mark.parametrize("func", [socop_scores, lac_scores, aps_scores, raps_scores,
                                  topk_scores, label_ranks])
def test_rejects_bad_probabilities(func, bad, err):
    kwargs = {"lam": 0.1} if func is socop_scores else {}
    with pytest.raises(ValueError, match=err):
        func(np.asarray(bad, dtype=float), **kwargs)


def test_rejects_bad_parameters():
    p = np.array([[0.6, 0.4]])
    with pytest.raises(ValueError, match="lam must be in"):
        socop_scores(p, -0.1)
    with pytest.raises(TypeError, match="lam must be a real number"):
        socop_scores(p, "auto")
    with pytest.raises(ValueError, match="k0 must be in"):
        socop_scores(p, 0.1, k0=-1)
    with pytest.raises(TypeError, match="k0 must be an integer"):
        socop_scores(p, 0.1, k0=1.5)
    with pytest.raises(ValueError, match="labels must be label indices"):
        socop_scores(p, 0.1, labels=[2])
    with pytest.raises(ValueError, match="labels must have shape"):
        lac_scores(p, labels=[0, 1])
    with pytest.raises(TypeError, match="integer label indices"):
        lac_scores(p, labels=[0.5])
    with pytest.raises(ValueError, match="threshold must be"):
        socop_sets(p, 0.1, [1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="u must have shape"):
        aps_scores(p, u=[0.1, 0.2])
    with pytest.raises(ValueError, match=r"u must hold values in \[0, 1\]"):
        aps_scores(p, u=[1.5])
    with pytest.raises(ValueError, match="lam_reg must be in"):
        raps_scores(p, lam_reg=-1)
    with pytest.raises(ValueError, match="k_reg must be in"):
        raps_scores(p, k_reg=-1)


@pytest.mark.numba
@pytest.mark.parametrize("k0", [2, 3, 4])
def test_kernel_subnormal_lambda_and_probability(k0):
    # lam and the smallest probability are the smallest subnormal double: the
    # hull test must not underflow to 0 >= 0 and drop a vertex. Left-chain slopes
    # are lam / p_(j): lam / 0.8 and lam / 0.2 round to 1 and 5 units of 5e-324,
    # and lam / p_(3) = 1 exactly (when rank 3 is on the left chain, k0 >= 3).
    tiny = 5e-324
    p = np.array([[0.8, 0.2, tiny]])
    expected = np.array([[tiny, 5 * tiny, 1.0 if k0 >= 3 else np.inf]])
    for fn in (socop_scores_reference, socop_scores):
        # (1 + lam) / 5e-324 overflows to the expected +inf (a warning without Numba)
        with np.errstate(over="ignore"):
            got = fn(p, tiny, k0)
        np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("bad", [-0.1, 1.5, float("nan")])
def test_uniforms_of_another_namespace_are_range_checked(bad):
    xps = pytest.importorskip("array_api_strict")
    p = xps.asarray([[0.6, 0.3, 0.1], [0.2, 0.5, 0.3]])
    u = xps.asarray([0.5, bad])
    with pytest.raises(ValueError, match=r"u must hold values in \[0, 1\]"):
        aps_scores(p, u=u)
    # in range: accepted, and U * p_y enters the score as defined
    s = aps_scores(p, xps.asarray([0, 1]), u=xps.asarray([0.5, 0.25]))
    np.testing.assert_allclose(np.asarray(s), [0.5 * 0.6, 0.25 * 0.5])


def test_socop_sets_threshold_as_numpy_scalar_in_another_namespace():
    xps = pytest.importorskip("array_api_strict")
    p = [[0.5, 0.3, 0.15, 0.05], [0.4, 0.35, 0.2, 0.05]]
    expected = socop_sets(np.asarray(p), lam=0.1, threshold=1.0)
    for q in (np.float64(1.0), np.asarray(1.0), np.full(4, 1.0), 1.0):
        got = socop_sets(xps.asarray(p), lam=0.1, threshold=q)
        np.testing.assert_array_equal(np.asarray(got), expected)
    for bad in (float("nan"), np.full(3, 1.0), xps.asarray([1.0, 1.0])):
        with pytest.raises(ValueError, match="threshold must be"):
            socop_sets(xps.asarray(p), lam=0.1, threshold=bad)

"""Nonconformity scores and sets against loops written from their definitions.

Every expected value is computed here, label by label, from the definitions in the
score functions' docstrings (ranks by decreasing probability with ties to the lower
index, APS mass above plus ``U p_y``, RAPS penalty ``lam (rank - k_reg)^+``,
deterministic APS/RAPS sets up to and including the first label whose
cumulative score reaches the threshold, SOCOP scores by brute force over the
points ``(Gamma_j, g_j)``), on small inputs with ties, zeros and extreme
parameters, for the NumPy path and the array-API reference path
(array-api-strict). Errors are checked by the argument they name, the values
they show and the phrase that states the problem.
"""

from __future__ import annotations

import warnings

import array_api_compat.numpy as np_xp
import numpy as np
import pytest

from statlearn.conformal import (
    _kernels,
    aps_scores,
    label_ranks,
    lac_scores,
    raps_scores,
    socop_scores,
    socop_sets,
    topk_scores,
)
from statlearn.conformal._classification._baselines import _aps_sets, _aps_sets_reference
from statlearn.conformal._classification._socop import _socop, _socop_sets, socop_scores_reference
from tests.helpers import raises

xps = pytest.importorskip("array_api_strict")


# ------------------------------------------------------------------ naive definitions
def _order(row):
    """Labels by decreasing probability, ties to the lower index (by comparison)."""
    K = len(row)
    return sorted(range(K), key=lambda k: (-row[k], k))


def _rank_row(row):
    out = [0] * len(row)
    for r, k in enumerate(_order(row), start=1):
        out[k] = r
    return out


def _aps_row(row, u=None, lam_reg=0.0, k_reg=0):
    """APS/RAPS score of every label: mass strictly above + (u) p_y + penalty."""
    ranks = _rank_row(row)
    out = []
    for y in range(len(row)):
        above = sum(row[k] for k in range(len(row)) if ranks[k] < ranks[y])
        own = row[y] if u is None else u * row[y]
        out.append(above + own + lam_reg * max(ranks[y] - k_reg, 0))
    return out


def _aps_set_row(row, q, u=None, lam_reg=0.0, k_reg=0):
    """APS/RAPS set of one row for per-label thresholds ``q``.

    Randomised: ``{y : s(y, u) <= q_y}``. Deterministic: rank ``j`` is kept
    when the cumulative score of the ranks before it is below its threshold,
    so with one threshold the set runs up to and including the first label
    whose cumulative score reaches it.
    """
    order = _order(row)
    keep = [False] * len(row)
    cum = 0.0
    for j, k in enumerate(order, start=1):
        pen = lam_reg * max(j - k_reg, 0)
        if u is None:
            prev = -np.inf if j == 1 else cum + lam_reg * max(j - 1 - k_reg, 0)
            keep[k] = prev < q[k]
        else:
            keep[k] = cum + u * row[k] + pen <= q[k]
        cum += row[k]
    return keep


def _socop_brute(row, lam, k0):
    """SOCOP scores: least eta whose largest minimiser of g_j - eta Gamma_j reaches the rank."""
    order = _order(row)
    K = len(row)
    ps = [row[k] for k in order]
    support = sum(1 for v in ps if v > 0)
    Gamma = [sum(ps[:j]) for j in range(K + 1)]
    g = [(1.0 if j > k0 else 0.0) + lam * j for j in range(K + 1)]
    cands = {0.0}
    for a in range(support + 1):
        for b in range(a + 1, support + 1):
            den = sum(ps[a:b])
            cands.add((g[b] - g[a]) / den)
    cands = sorted(cands)
    best = []
    for eta in cands:
        vals = [g[j] - eta * Gamma[j] for j in range(support + 1)]
        lo = min(vals)
        tol = 1e-11 * max(1.0, max(abs(v) for v in g), eta)
        best.append(max(j for j in range(support + 1) if vals[j] <= lo + tol))
    out = [np.inf] * K
    for r in range(1, support + 1):
        out[order[r - 1]] = next(c for c, b in zip(cands, best, strict=True) if b >= r)
    return out


def _rows():
    """Small probability rows with ties (at the top, the middle, the bottom) and zeros."""
    rows = [
        [0.5, 0.3, 0.15, 0.05],
        [0.25, 0.25, 0.25, 0.25],
        [0.1, 0.4, 0.1, 0.4],
        [0.0, 0.6, 0.0, 0.4],
        [0.3, 0.3, 0.2, 0.2],
        [0.05, 0.15, 0.3, 0.5],
        [1.0, 0.0, 0.0, 0.0],
        [0.2, 0.2, 0.5, 0.1],
        [0.7, 0.1, 0.1, 0.1],
        [0.45, 0.05, 0.45, 0.05],
    ]
    rng = np.random.default_rng(20)
    rows += list(rng.dirichlet(np.full(4, 0.7), size=10))
    return np.array(rows, dtype=float)


P = _rows()
N, K = P.shape
U = np.random.default_rng(21).random(N)
Y = np.random.default_rng(22).integers(0, K, size=N)


# ------------------------------------------------------------------ ranks and baselines
def test_ranks_and_topk_match_the_naive_order_on_ties():
    expected = np.array([_rank_row(r) for r in P])
    assert label_ranks(P).dtype.kind == "i"
    np.testing.assert_array_equal(label_ranks(P), expected)
    np.testing.assert_array_equal(label_ranks(P, Y), expected[np.arange(N), Y])
    got = topk_scores(P)
    assert got.dtype == np.float64
    np.testing.assert_array_equal(got, expected.astype(float))
    np.testing.assert_array_equal(topk_scores(P, Y), expected[np.arange(N), Y])
    # ties far down a long row (the stable re-sort of tied rows only)
    row = np.array([[0.3, 0.1, 0.2, 0.1, 0.2, 0.1]])
    np.testing.assert_array_equal(label_ranks(row)[0], [1, 4, 2, 5, 3, 6])


def test_lac_is_one_minus_p():
    np.testing.assert_array_equal(lac_scores(P), 1.0 - P)
    np.testing.assert_array_equal(lac_scores(P, Y), 1.0 - P[np.arange(N), Y])
    # integer-valued float32 input is converted to float64
    got = lac_scores(np.array([[1.0, 0.0]], dtype=np.float32))
    assert got.dtype == np.float64


@pytest.mark.parametrize("lam_reg, k_reg", [(0.0, 0), (0.3, 1), (0.05, 2), (1.0, 0)])
def test_aps_and_raps_scores_match_the_definition(lam_reg, k_reg):
    det = np.array([_aps_row(r, None, lam_reg, k_reg) for r in P])
    ran = np.array([_aps_row(r, u, lam_reg, k_reg) for r, u in zip(P, U, strict=True)])
    if lam_reg == 0.0:
        np.testing.assert_allclose(aps_scores(P, randomized=False), det, atol=1e-14)
        np.testing.assert_allclose(aps_scores(P, u=U), ran, atol=1e-14)
        np.testing.assert_allclose(aps_scores(P, Y, u=U), ran[np.arange(N), Y], atol=1e-14)
        np.testing.assert_allclose(aps_scores(P, Y, randomized=False),
                                   det[np.arange(N), Y], atol=1e-14)
    kw = {"lam_reg": lam_reg, "k_reg": k_reg}
    np.testing.assert_allclose(raps_scores(P, randomized=False, **kw), det, atol=1e-14)
    np.testing.assert_allclose(raps_scores(P, u=U, **kw), ran, atol=1e-14)
    np.testing.assert_allclose(raps_scores(P, Y, u=U, **kw), ran[np.arange(N), Y], atol=1e-14)
    np.testing.assert_allclose(raps_scores(P, Y, randomized=False, **kw),
                               det[np.arange(N), Y], atol=1e-14)


def test_raps_default_parameters_are_lam_001_and_k_1():
    det = np.array([_aps_row(r, None, 0.01, 1) for r in P])
    np.testing.assert_allclose(raps_scores(P, randomized=False), det, atol=1e-14)


def test_uniforms_scalar_list_and_rng():
    row = np.array([[0.5, 0.3, 0.2], [0.2, 0.2, 0.6]])
    expected = np.array([_aps_row(r, 0.25) for r in row])
    np.testing.assert_allclose(aps_scores(row, u=0.25), expected, atol=1e-15)
    np.testing.assert_allclose(aps_scores(row, u=np.float64(0.25)), expected, atol=1e-15)
    np.testing.assert_allclose(aps_scores(row, u=[0.25, 0.25]), expected, atol=1e-15)
    # the edges of [0, 1] are allowed
    np.testing.assert_allclose(aps_scores(row, u=[0.0, 1.0]),
                               [_aps_row(row[0], 0.0), _aps_row(row[1], 1.0)], atol=1e-15)
    # drawn from the generator: one uniform per row, as Generator.random(n) gives
    u = np.random.default_rng(5).random(2)
    np.testing.assert_allclose(aps_scores(row, random_state=5),
                               [_aps_row(r, v) for r, v in zip(row, u, strict=True)], atol=1e-15)
    np.testing.assert_allclose(aps_scores(row, random_state=np.random.default_rng(5)),
                               aps_scores(row, random_state=5), atol=0)


def test_uniform_errors_are_complete():
    row = np.array([[0.5, 0.5], [0.4, 0.6]])
    raises(lambda: aps_scores(row, u=[0.1]), ValueError, names="u",
           shows=("(2,)", "got (1,)"), match="must have shape")
    raises(lambda: aps_scores(row, u=[[0.1, 0.2]]), ValueError, names="u",
           shows=("(2,)", "got (1, 2)"), match="must have shape")
    for bad in ([0.1, np.nan], [-1e-9, 0.5], [0.5, 1 + 1e-9]):
        raises(lambda bad=bad: aps_scores(row, u=bad), ValueError, names="u", shows="[0, 1]",
               match="must hold values in")
    raises(lambda: raps_scores(row, u=np.array([0.5, 2.0])), ValueError, names="u",
           shows="[0, 1]", match="must hold values in")


def test_label_errors_are_complete():
    p = np.array([[0.6, 0.4], [0.5, 0.5]])
    # the hint, with its separators: the encoding the caller needs is the point
    hint = ("; encode class names as column positions first, e.g. "
            "np.unique(y, return_inverse=True)[1] or np.searchsorted(clf.classes_, y).")
    raises(lambda: lac_scores(p, labels=["a", "b"]), TypeError, names="labels",
           shows=("dtype <U1", hint), match="must hold integer label indices")
    raises(lambda: lac_scores(p, labels=np.array([0.0, 1.0])), TypeError, names="labels",
           shows="dtype float64", match="must hold integer label indices")
    for bad in ([0, 2], [-1, 0]):
        raises(lambda bad=bad: lac_scores(p, labels=bad), ValueError, names=("labels", "proba"),
               shows=("[0, 1] (columns of proba)", hint), match="must be label indices in")
    raises(lambda: lac_scores(p, labels=[[0, 1]]), ValueError, names="labels",
           shows=("(2,)", "got (1, 2)"), match="must have shape")
    raises(lambda: lac_scores(p, labels=np.array([0])), ValueError, names="labels",
           shows=("(2,)", "got (1,)"), match="must have shape")
    # the largest valid index and unsigned integers are accepted
    np.testing.assert_array_equal(lac_scores(p, labels=np.array([1, 1], dtype=np.uint8)),
                                  [0.6, 0.5])
    np.testing.assert_array_equal(lac_scores(p, labels=[1, 0]), [0.6, 0.5])


def test_parameter_errors_are_complete():
    p = np.array([[0.6, 0.4]])
    for bad in ([1.0, np.nan], np.nan):
        raises(lambda bad=bad: socop_sets(p, 0.1, bad), ValueError, names="threshold",
               shows="array of shape (2,)", match=r"a number or an array .* without NaN\.")
    with pytest.raises(ValueError, match="lam"):
        socop_sets(p, -1.0, 1.0)
    with pytest.raises(ValueError, match="k0"):
        socop_sets(p, 0.1, 1.0, k0=-1)
    # boundaries that are allowed
    assert socop_scores(p, 0.0, k0=0).shape == (1, 2)
    assert raps_scores(p, lam_reg=0.0, k_reg=0, randomized=False).shape == (1, 2)


# ------------------------------------------------------------------ SOCOP
@pytest.mark.parametrize("k0", [0, 1, 2, 3, 4, 6])
@pytest.mark.parametrize("lam", [0.0, 0.05, 0.4, 3.0])
def test_socop_reference_and_kernel_match_brute_force(lam, k0):
    rows = P if lam > 0 else P[np.all(P > 0, axis=1)]
    expected = np.array([_socop_brute(list(r), lam, k0) for r in rows])
    fin = np.isfinite(expected)
    for got in (socop_scores_reference(rows, lam, k0), socop_scores(rows, lam, k0),
                _socop(rows, lam, k0, None, np_xp)):
        assert np.array_equal(np.isfinite(got), fin)
        np.testing.assert_allclose(got[fin], expected[fin], rtol=1e-9, atol=1e-12)
    y = Y[: rows.shape[0]]
    np.testing.assert_array_equal(socop_scores(rows, lam, k0, labels=y),
                                  socop_scores(rows, lam, k0)[np.arange(rows.shape[0]), y])


@pytest.mark.parametrize("k0", [0, 1, 2, 5])
def test_socop_reference_in_array_api_strict(k0):
    lam = 0.2
    expected = np.array([_socop_brute(list(r), lam, k0) for r in P])
    got = socop_scores(xps.asarray(P), lam, k0)
    assert isinstance(got, type(xps.asarray(P)))
    got = np.asarray(got)
    fin = np.isfinite(expected)
    assert np.array_equal(np.isfinite(got), fin)
    np.testing.assert_allclose(got[fin], expected[fin], rtol=1e-9, atol=1e-12)
    got_y = np.asarray(socop_scores(xps.asarray(P), lam, k0, labels=xps.asarray(Y)))
    np.testing.assert_array_equal(got_y, got[np.arange(N), Y])


def test_socop_worked_example_and_exact_values():
    # gamma = (0.5, 0.3, 0.15, 0.05), lam = 0.1: hull {P0, P1, P4}; edge slopes
    # 0.1 / 0.5 = 0.2 and (1 + 0.4 - 0.1) / 0.5 = 2.6
    p = np.array([[0.5, 0.3, 0.15, 0.05]])
    for got in (socop_scores(p, 0.1), socop_scores_reference(p, 0.1)):
        np.testing.assert_allclose(got, [[0.2, 2.6, 2.6, 2.6]], rtol=1e-12)
    # k0 = 0: points (0, 0), (0.6, 1.5), (1, 2); slopes 2.5 then 1.25 are not
    # convex, so the hull is the single edge of slope 2 shared by both labels
    q = np.array([[0.6, 0.4]])
    np.testing.assert_allclose(socop_scores_reference(q, 0.5, 0), [[2.0, 2.0]], rtol=1e-12)
    np.testing.assert_allclose(socop_scores(q, 0.5, 0), [[2.0, 2.0]], rtol=1e-12)
    # lam = 0.1: slopes 1.1 / 0.6 = 1.833 then 0.1 / 0.4 = 0.25: again one edge, 1.2
    np.testing.assert_allclose(socop_scores_reference(q, 0.1, 0), [[1.2, 1.2]], rtol=1e-12)
    # k0 = 1: (0, 0), (0.6, 0.5), (1, 2): slopes 0.833 then 3.75, both on the hull
    np.testing.assert_allclose(socop_scores_reference(q, 0.5, 1), [[0.5 / 0.6, 3.75]],
                               rtol=1e-12)
    # k0 >= K: no indicator, the LAC-like slopes lam / p
    for k0 in (2, 3):
        np.testing.assert_allclose(socop_scores_reference(q, 0.5, k0), [[0.5 / 0.6, 0.5 / 0.4]],
                                   rtol=1e-12)


@pytest.mark.parametrize("k0", [0, 1, 2])
def test_socop_sets_scalar_and_per_label_thresholds(k0):
    lam = 0.3
    scores = np.array([_socop_brute(list(r), lam, k0) for r in P])
    fin = np.unique(scores[np.isfinite(scores)])
    fin = fin[np.r_[True, np.diff(fin) > 1e-9 * fin[1:]]]  # one value per rounding cluster
    mids = np.r_[fin[0] / 2, (fin[1:] + fin[:-1]) / 2, fin[-1] * 2]  # never on a score
    for q in mids[:: max(1, mids.size // 8)]:
        want = scores <= q
        np.testing.assert_array_equal(socop_sets(P, lam, q, k0), want)
        np.testing.assert_array_equal(socop_sets(P, lam, np.full(K, q), k0), want)
        strict = socop_sets(xps.asarray(P), lam, float(q), k0)
        np.testing.assert_array_equal(np.asarray(strict), want)
    qs = mids[np.random.default_rng(k0).integers(0, mids.size, size=K)]
    np.testing.assert_array_equal(socop_sets(P, lam, qs, k0), scores <= qs[None, :])
    np.testing.assert_array_equal(
        np.asarray(socop_sets(xps.asarray(P), lam, xps.asarray(qs), k0)), scores <= qs[None, :])
    np.testing.assert_array_equal(socop_sets(P, lam, [0.0] * K, k0), scores <= 0.0)
    # an infinite threshold keeps every label, zeros included
    assert socop_sets(P, lam, np.inf, k0).all()
    assert socop_sets(P, lam, [np.inf] * K, k0).all()
    # a threshold of exactly a score keeps that label (scores <= q)
    i, j = np.argwhere(np.isfinite(scores))[3]
    assert socop_sets(P[i:i + 1], lam, scores[i, j], k0)[0, j]


def test_socop_sets_with_large_k0_and_the_inner_dispatch():
    # k0 above the one-pass limit takes the hull-scan kernel
    k0 = _kernels.FAST_SET_MAX_K0 + 1
    rng = np.random.default_rng(3)
    p = rng.dirichlet(np.ones(k0 + 3), size=5)
    scores = np.array([_socop_brute(list(r), 0.1, k0) for r in p])
    q = float(np.median(scores))
    q = q if not np.any(np.isclose(scores, q)) else q * (1 + 1e-6)
    np.testing.assert_array_equal(socop_sets(p, 0.1, q, k0), scores <= q)
    np.testing.assert_array_equal(_socop_sets(p, 0.1, 1, np.full(p.shape[1], q), np_xp),
                                  socop_scores(p, 0.1, 1) <= q)
    assert _socop_sets(P, 0.1, 1, np.full(K, np.inf), np_xp).all()


# ------------------------------------------------------------------ APS / RAPS sets
_Q_ONE = (0.05, 0.3, 0.5, 0.75, 0.9, 1.0, 1.2)


@pytest.mark.parametrize("lam_reg, k_reg", [(0.0, 0), (0.1, 1), (0.25, 2)])
@pytest.mark.parametrize("randomized", [False, True])
def test_aps_sets_match_the_definition(lam_reg, k_reg, randomized):
    rng = np.random.default_rng(int(lam_reg * 100) + k_reg)
    u = U if randomized else None
    per_label = [rng.uniform(0.2, 1.1, size=K) for _ in range(4)]
    for q in [np.full(K, v) for v in _Q_ONE] + per_label:
        want = np.array([_aps_set_row(list(r), q, None if u is None else u[i], lam_reg, k_reg)
                         for i, r in enumerate(P)])
        ref = _aps_sets_reference(P, u, q, lam_reg, k_reg, np_xp)
        np.testing.assert_array_equal(ref, want)
        np.testing.assert_array_equal(_aps_sets(P, u, q, lam_reg, k_reg, np_xp), want)
        strict = _aps_sets(xps.asarray(P), None if u is None else xps.asarray(u),
                           xps.asarray(q), lam_reg, k_reg, xps)
        np.testing.assert_array_equal(np.asarray(strict), want)


def test_deterministic_aps_set_keeps_the_crossing_label():
    # mass 0.5, 0.8, 0.95, 1.0: q = 0.8 is reached at the second label, which is kept
    p = np.array([[0.3, 0.5, 0.05, 0.15]])
    for q, want in [(0.4, [False, True, False, False]), (0.5, [False, True, False, False]),
                    (0.8, [True, True, False, False]), (0.81, [True, True, False, True]),
                    (0.0, [False, True, False, False]), (2.0, [True, True, True, True])]:
        np.testing.assert_array_equal(_aps_sets(p, None, np.full(4, q), 0.0, 0, np_xp)[0], want)
        np.testing.assert_array_equal(
            _aps_sets_reference(p, None, np.full(4, q), 0.0, 0, np_xp)[0], want)
    # randomised with u = 1: the same score, but a label is in the set iff its score <= q
    np.testing.assert_array_equal(
        _aps_sets(p, np.ones(1), np.full(4, 0.8), 0.0, 0, np_xp)[0], [True, True, False, False])
    np.testing.assert_array_equal(
        _aps_sets(p, np.ones(1), np.full(4, 0.79), 0.0, 0, np_xp)[0], [False, True, False, False])
    # RAPS penalty 0.5 per rank beyond 1: E = 0.5, 1.3, ... so q = 1.0 stops at rank 2
    np.testing.assert_array_equal(
        _aps_sets(p, None, np.full(4, 1.0), 0.5, 1, np_xp)[0], [True, True, False, False])
    np.testing.assert_array_equal(
        _aps_sets_reference(p, None, np.full(4, 1.0), 0.5, 1, np_xp)[0], [True, True, False, False])


# ------------------------------------------------------------------ more namespaces and inputs
def test_array_api_labels_given_as_a_list_and_float32_rows():
    lam = 0.1
    expected = np.array([_socop_brute(list(r), lam, 1) for r in P])
    # labels as a plain list with array-API probabilities
    got = np.asarray(socop_scores(xps.asarray(P), lam, labels=Y.tolist()))
    np.testing.assert_allclose(got, expected[np.arange(N), Y], rtol=1e-9)
    got = np.asarray(lac_scores(xps.asarray(P), Y.tolist()))
    np.testing.assert_array_equal(got, 1.0 - P[np.arange(N), Y])
    # float32 rows keep their precision in an array-API namespace
    p32 = xps.asarray(P.astype(np.float32))
    s32 = socop_scores(p32, lam)
    assert s32.dtype == xps.float32
    fin = np.isfinite(expected)
    assert np.array_equal(np.isfinite(np.asarray(s32)), fin)
    np.testing.assert_allclose(np.asarray(s32)[fin], expected[fin], rtol=1e-5)


def test_array_api_sets_keep_a_label_whose_score_equals_the_threshold():
    p = np.array([[0.5, 0.3, 0.15, 0.05]])  # scores 0.2, 2.6, 2.6, 2.6 at lam = 0.1
    for q, want in [(0.2, [True, False, False, False]), (2.6, [True, True, True, True]),
                    (0.19, [False] * 4)]:
        got = socop_sets(xps.asarray(p), 0.1, q)
        np.testing.assert_array_equal(np.asarray(got)[0], want)
        np.testing.assert_array_equal(socop_sets(p, 0.1, q)[0], want)


def test_raps_uniforms_come_from_random_state():
    u = np.random.default_rng(7).random(N)
    want = np.array([_aps_row(r, v, 0.1, 1) for r, v in zip(P, u, strict=True)])
    np.testing.assert_allclose(raps_scores(P, lam_reg=0.1, random_state=7), want, atol=1e-14)
    np.testing.assert_allclose(raps_scores(P, Y, lam_reg=0.1, random_state=7),
                               want[np.arange(N), Y], atol=1e-14)


def test_threshold_that_is_not_a_number_is_a_value_error():
    with pytest.raises(ValueError, match="could not convert string to float"):
        socop_sets(np.array([[0.6, 0.4]]), 0.1, "abc")
    # integer thresholds are numbers like any other
    np.testing.assert_array_equal(socop_sets(np.array([[0.6, 0.4]]), 0.1, 1),
                                  socop_scores(np.array([[0.6, 0.4]]), 0.1) <= 1.0)


def test_bad_probabilities_are_named_proba():
    for bad, shows, phrase in [([[0.5, -0.1, 0.6]], (), "must be non-negative"),
                               ([[0.5, np.nan, 0.5]], "NaN", "must not contain"),
                               ([0.5, 0.5], "shape (2,)", "must be a 2-D array")]:
        calls = [lambda f=func, b=bad: f(np.asarray(b, dtype=float))
                 for func in (lac_scores, label_ranks, topk_scores, aps_scores)]
        calls += [lambda b=bad: socop_scores(np.asarray(b, dtype=float), 0.1),
                  lambda b=bad: socop_sets(np.asarray(b, dtype=float), 0.1, 1.0)]
        for call in calls:
            raises(call, ValueError, names="proba", shows=shows, match=phrase)


def test_a_single_label():
    # K = 1: the only label has probability 1; SOCOP score lam / 1 at k0 >= 1
    p = np.ones((3, 1))
    np.testing.assert_allclose(socop_scores(p, 0.1), np.full((3, 1), 0.1))
    np.testing.assert_array_equal(socop_sets(p, 0.1, 0.5), np.ones((3, 1), dtype=bool))
    np.testing.assert_array_equal(socop_sets(p, 0.1, 0.05), np.zeros((3, 1), dtype=bool))
    np.testing.assert_array_equal(socop_sets(p, 0.1, np.inf), np.ones((3, 1), dtype=bool))
    for u in (None, np.full(3, 0.5)):
        np.testing.assert_array_equal(_aps_sets(p, u, np.array([0.9]), 0.0, 0, np_xp),
                                      np.ones((3, 1), dtype=bool))
    # randomised with u = 0.5: score 0.5 > 0.4, so the label is out
    np.testing.assert_array_equal(_aps_sets(p, np.full(3, 0.5), np.array([0.4]), 0.0, 0, np_xp),
                                  np.zeros((3, 1), dtype=bool))


def test_sets_are_boolean_arrays():
    for q in (0.5, np.inf, [np.inf] * K, [0.5] * K):
        assert socop_sets(P, 0.1, q).dtype == np.bool_
    assert _socop_sets(P, 0.1, 1, np.full(K, np.inf), np_xp).dtype == np.bool_


def test_subnormal_probabilities_overflow_to_infinity_silently():
    # lam / p overflows to +inf for a subnormal p: documented, and without a warning
    p = np.array([[1.0 - 1e-320, 1e-320, 0.0], [1.0, 5e-324, 0.0]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with np.errstate(all="warn"):
            got = socop_scores_reference(p, 0.1, 1)
    assert np.isfinite(got[:, 0]).all() and np.isinf(got[:, 1:]).all()


def test_array_api_per_label_thresholds_as_a_list_and_scalar_uniforms():
    lam = 0.3
    scores = np.array([_socop_brute(list(r), lam, 1) for r in P])
    qs = [0.5, 1.0, 2.0, 4.0]
    got = socop_sets(xps.asarray(P), lam, qs)
    np.testing.assert_array_equal(np.asarray(got), scores <= np.array(qs)[None, :])
    # a scalar uniform with array-API probabilities is validated like any other
    raises(lambda: aps_scores(xps.asarray(P), u=1.5), ValueError, names="u", shows="[0, 1]",
           match="must hold values in")
    want = np.array([_aps_row(r, 0.25) for r in P])
    np.testing.assert_allclose(np.asarray(aps_scores(xps.asarray(P), u=0.25)), want, atol=1e-14)


def test_array_api_float32_rows_with_k0_at_least_k():
    expected = np.array([_socop_brute(list(r), 0.2, 5) for r in P])
    s32 = socop_scores(xps.asarray(P.astype(np.float32)), 0.2, k0=5)
    assert s32.dtype == xps.float32
    fin = np.isfinite(expected)
    np.testing.assert_allclose(np.asarray(s32)[fin], expected[fin], rtol=1e-5)

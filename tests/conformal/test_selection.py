"""Conformal selection (cfBH, MCCS): worked examples, references, edge cases, bad input."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from scipy.stats import false_discovery_control

from statlearn.conformal import (
    ConformalSelector,
    MultiConditionSelector,
    SelectionResult,
    SmallCalibrationWarning,
    _kernels,
    bh_select,
    cfbh,
    conformal_pvalues,
    conformal_quantile,
    mccs,
    region_scores,
    smoothed_pvalues,
)
from statlearn.conformal._core._quantile import _conformal_pvalues_xp

# calibration data of the hand-worked examples below (ours): cfBH's clipped score and
# p-value (Jin & Candes 2023), the conjunctive region score and the global BH of MCCS
# (Hao, Liao, Jing & Wei 2026), computed by hand with M = 100 and U = 0.5
MU_CAL = np.array([-1.2, -0.5, 0.3, 0.9, 1.5, -0.2, 0.6, 2.0, -0.8, 0.1])
Y_CAL = np.array([-1.0, -0.9, 0.5, 0.7, 1.1, 0.2, -0.3, 1.8, -1.5, -0.4])
MU_TEST = np.array([1.7, 0.05, -0.6, 0.65, 1.2])


@pytest.fixture(autouse=True)
def _quiet_small_n():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SmallCalibrationWarning)
        yield


# ---------------------------------------------------------------------------
# references written independently of the code under test


def brute_pvalues(v_cal, v_test, u):
    """O(n m) double loop of p_j = (#{V_i < V_j} + U_j (1 + #{V_i = V_j})) / (n + 1)."""
    n = len(v_cal)
    out = np.empty(len(v_test))
    for j, v in enumerate(v_test):
        less = sum(1 for a in v_cal if a < v)
        eq = sum(1 for a in v_cal if a == v)
        out[j] = (less + u[j] * (1 + eq)) / (n + 1)
    return out


def brute_bh(p, q):
    """BH by its definition: l* = max{l : p_(l) <= q l / N}, select p <= q l* / N."""
    flat = np.asarray(p, dtype=float).ravel()
    N = flat.size
    srt = sorted(flat)
    lstar = 0
    for l in range(1, N + 1):
        if srt[l - 1] <= q * l / N:
            lstar = l
    return (np.asarray(p) <= q * lstar / N) if lstar else np.zeros(np.shape(p), bool), lstar


# ---------------------------------------------------------------------------
# worked examples (exact)


def test_worked_example_cfbh():
    M = 100.0
    v = region_scores(MU_CAL, Y_CAL, lower=0.0, M=M)
    np.testing.assert_allclose(v, [1.2, 0.5, 99.7, 99.1, 98.5, 100.2, -0.6, 98.0, 0.8, -0.1],
                               atol=1e-12)
    np.testing.assert_allclose(region_scores(MU_TEST, lower=0.0),
                               [-1.7, -0.05, 0.6, -0.65, -1.2], atol=1e-12)
    res = cfbh(MU_CAL, Y_CAL, MU_TEST, c_cal=0.0, q=0.3, M=M, u=np.full(5, 0.5))
    np.testing.assert_allclose(res.pvalues[:, 0], np.array([0.5, 2.5, 3.5, 0.5, 0.5]) / 11,
                               rtol=1e-12)
    assert res.threshold == pytest.approx(0.24)
    np.testing.assert_array_equal(res.selected, [0, 1, 3, 4])
    np.testing.assert_array_equal(res.pairs, [[0, 0], [1, 0], [3, 0], [4, 0]])
    # M = inf gives the same p-values (M exceeds the bound here)
    res_inf = cfbh(MU_CAL, Y_CAL, MU_TEST, q=0.3, u=np.full(5, 0.5))
    np.testing.assert_allclose(res_inf.pvalues, res.pvalues, rtol=1e-12)


def test_worked_example_conjunctive():
    mu_test = np.array([0.5, 0.45, 2.0, 0.55, -1.0])
    v = region_scores(MU_CAL, Y_CAL, lower=0.0, upper=1.0, M=100.0)
    np.testing.assert_allclose(v, [1.2, 0.5, 99.7, 99.9, 0.5, 100.2, -0.4, 1.0, 0.8, -0.1],
                               atol=1e-12)
    np.testing.assert_allclose(region_scores(mu_test, lower=0.0, upper=1.0),
                               [-0.5, -0.45, 1.0, -0.45, 1.0], atol=1e-12)
    res = mccs(MU_CAL, Y_CAL, mu_test, (0.0, 1.0), q=0.3, M=100.0, u=np.full((5, 1), 0.5))
    np.testing.assert_allclose(res.pvalues[:, 0], np.array([0.5, 0.5, 6, 0.5, 6]) / 11,
                               rtol=1e-12)
    assert res.threshold == pytest.approx(0.18)
    np.testing.assert_array_equal(res.selected, [0, 1, 3])


def test_worked_example_disjunctive():
    res = mccs(MU_CAL, Y_CAL, MU_TEST, [(-np.inf, -0.5), (1.0, np.inf)], q=0.3, M=100.0,
               u=np.full((5, 2), 0.5))
    np.testing.assert_allclose(res.pvalues[:, 0] * 11, [6.5, 1.5, 0.5, 4.5, 5.5], atol=1e-12)
    np.testing.assert_allclose(res.pvalues[:, 1] * 11, [0.5, 4.5, 6.5, 1.5, 0.5], atol=1e-12)
    assert res.threshold == pytest.approx(0.15)
    np.testing.assert_array_equal(res.pairs, [[0, 1], [1, 0], [2, 0], [3, 1], [4, 1]])
    np.testing.assert_array_equal(res.selected, [0, 1, 2, 3, 4])


def test_one_condition_mccs_is_cfbh_with_the_same_score():
    rng = np.random.default_rng(3)
    mu_c, mu_t = rng.normal(size=200), rng.normal(size=40)
    y_c = mu_c + rng.normal(size=200)
    u = rng.random(40)
    a = cfbh(mu_c, y_c, mu_t, c_cal=0.2, q=0.3, u=u)
    b = mccs(mu_c, y_c, mu_t, (0.2, np.inf), q=0.3, u=u[:, None])
    np.testing.assert_allclose(a.pvalues, b.pvalues, rtol=1e-12)
    np.testing.assert_array_equal(a.selected, b.selected)


# ---------------------------------------------------------------------------
# kernel == array-API reference == O(n m) brute force, ties included

_tied = st.integers(-4, 4).map(float) | st.sampled_from([np.inf, -np.inf])


@pytest.mark.numba
@given(cal=st.lists(_tied, min_size=1, max_size=30), test=st.lists(_tied, min_size=1,
       max_size=20), seed=st.integers(0, 2**16))
def test_pvalue_kernels_match_brute_force(cal, test, seed):
    cal, test = np.array(cal), np.array(test)
    u = np.random.default_rng(seed).random(test.size)
    # brute force in the selection convention: nonconformity s = -V
    expected = brute_pvalues(-cal, -test, u)
    srt = np.sort(cal)
    for kernel in (_kernels.conformal_pvalues_kernel, _kernels.conformal_pvalues_kernel_serial):
        np.testing.assert_allclose(kernel(srt, test, u), expected, rtol=1e-12, atol=0)
    np.testing.assert_allclose(_conformal_pvalues_xp(srt, test, u, np), expected, rtol=1e-12)
    np.testing.assert_allclose(conformal_pvalues(test, cal, u), expected, rtol=1e-12)
    # u = None means u = 1
    np.testing.assert_allclose(conformal_pvalues(test, cal), brute_pvalues(-cal, -test,
                               np.ones(test.size)), rtol=1e-12)


def test_pvalues_xp_namespaces_agree(xp):
    rng = np.random.default_rng(0)
    cal = rng.integers(0, 6, 50).astype(float)
    test = rng.integers(0, 6, (20, 3)).astype(float)
    u = rng.random((20, 3))
    expected = conformal_pvalues(test, cal, u)
    got = conformal_pvalues(xp.asarray(test), xp.asarray(cal), xp.asarray(u))
    np.testing.assert_allclose(np.asarray(got), expected, rtol=1e-12)
    sel_np, cut_np = bh_select(expected, 0.3)
    sel, cut = bh_select(xp.asarray(expected), 0.3)
    np.testing.assert_array_equal(np.asarray(sel), sel_np)
    assert cut == pytest.approx(cut_np, rel=1e-12)


@given(cal=st.lists(st.integers(0, 6).map(float), min_size=1, max_size=40),
       s=st.integers(-1, 7).map(float), alpha=st.floats(0.01, 0.99))
def test_deterministic_pvalue_agrees_with_conformal_quantile(cal, s, alpha):
    # p > alpha  <=>  s <= k-th smallest calibration score, ties included
    n = len(cal)
    x = alpha * (n + 1)
    assume(abs(x - round(x)) > 1e-6)  # away from the decimal-rounding convention of k
    p = conformal_pvalues(np.array([s]), np.array(cal))[0]
    assert (p > alpha) == (s <= conformal_quantile(cal, alpha))


def test_selection_functions_follow_the_input_namespace(xp):
    rng = np.random.default_rng(8)
    mc, mt = rng.normal(size=300), rng.normal(size=40)
    yc, yt = mc + 0.3 * rng.normal(size=300), mt + 0.3 * rng.normal(size=40)
    conds = [(-np.inf, -0.5), (0.5, np.inf)]
    u = rng.random((40, 2))
    ref = mccs(mc, yc, mt, conds, q=0.3, u=u, y_test=yt)
    got = mccs(xp.asarray(mc), xp.asarray(yc), xp.asarray(mt), conds, q=0.3, u=xp.asarray(u),
               y_test=xp.asarray(yt))
    np.testing.assert_array_equal(got.pvalues, ref.pvalues)
    np.testing.assert_array_equal(got.pairs, ref.pairs)
    assert got.fdp == ref.fdp and got.power == ref.power
    ref1 = cfbh(mc, yc, mt, c_cal=0.2, q=0.3, u=u[:, 0])
    got1 = cfbh(xp.asarray(mc), xp.asarray(yc), xp.asarray(mt), c_cal=0.2, q=0.3,
                u=xp.asarray(u[:, 0]))
    np.testing.assert_array_equal(got1.selected, ref1.selected)


def test_smoothed_pvalues_is_the_same_definition():
    rng = np.random.default_rng(1)
    cal = rng.integers(0, 5, 30).astype(float)
    test = rng.integers(0, 5, (10, 4)).astype(float)
    u = rng.random(10)
    np.testing.assert_array_equal(smoothed_pvalues(test, cal, u), conformal_pvalues(test, cal, u))
    # row-shared u equals an explicitly broadcast u
    np.testing.assert_array_equal(conformal_pvalues(test, cal, u),
                                  conformal_pvalues(test, cal, np.repeat(u[:, None], 4, 1)))


@given(mu_c=arrays(np.float64, 25, elements=st.integers(-3, 3).map(float)),
       y_c=arrays(np.float64, 25, elements=st.integers(-3, 3).map(float)),
       mu_t=arrays(np.float64, 15, elements=st.integers(-3, 3).map(float)),
       c=st.sampled_from([-0.5, 0.0, 1.0]), q=st.sampled_from([0.1, 0.3, 0.5]),
       score=st.sampled_from(["clip", "residual"]), seed=st.integers(0, 2**16))
def test_cfbh_matches_direct_reference(mu_c, y_c, mu_t, c, q, score, seed):
    u = np.random.default_rng(seed).random(15)
    res = cfbh(mu_c, y_c, mu_t, c_cal=c, q=q, score=score, u=u)
    # the scores written out (M = inf): clipped V = M 1{y > c} + c 1{y <= c} - mu, or y - mu
    if score == "clip":
        v_cal = np.where(y_c > c, np.inf, c - mu_c)
    else:
        v_cal = y_c - mu_c
    v_test = c - mu_t
    p = brute_pvalues(v_cal, v_test, u)
    np.testing.assert_allclose(res.pvalues[:, 0], p, rtol=1e-12)
    sel, lstar = brute_bh(p, q)
    np.testing.assert_array_equal(res.selected, np.flatnonzero(sel))
    assert res.threshold == pytest.approx(q * lstar / 15 if lstar else 0.0)


@given(mu_c=arrays(np.float64, 20, elements=st.integers(-4, 4).map(lambda v: v / 2)),
       y_c=arrays(np.float64, 20, elements=st.integers(-4, 4).map(lambda v: v / 2)),
       mu_t=arrays(np.float64, 12, elements=st.integers(-4, 4).map(lambda v: v / 2)),
       seed=st.integers(0, 2**16))
def test_mccs_disjunctive_matches_direct_reference(mu_c, y_c, mu_t, seed):
    u = np.random.default_rng(seed).random((12, 2))
    conds = [(-1.0, 0.5), (1.0, np.inf)]
    res = mccs(mu_c, y_c, mu_t, conds, q=0.3, u=u)
    ps = []
    for k, (lo, hi) in enumerate(conds):
        d_c = np.minimum(mu_c - lo, hi - mu_c)
        d_t = np.minimum(mu_t - lo, hi - mu_t)
        v_cal = np.where((y_c > lo) & (y_c < hi), np.inf, -d_c)
        ps.append(brute_pvalues(v_cal, -d_t, u[:, k]))
    p = np.stack(ps, axis=1)
    np.testing.assert_allclose(res.pvalues, p, rtol=1e-12)
    sel, _ = brute_bh(p, 0.3)
    np.testing.assert_array_equal(res.pairs, np.argwhere(sel))
    np.testing.assert_array_equal(res.selected, np.flatnonzero(sel.any(axis=1)))


@given(p=arrays(np.float64, st.integers(1, 40),
                elements=st.integers(1, 20).map(lambda v: v / 21) | st.floats(0, 1)),
       q=st.sampled_from([0.05, 0.1, 0.3]))
def test_bh_select_matches_definition_and_scipy(p, q):
    sel, cut = bh_select(p, q)
    ref, lstar = brute_bh(p, q)
    np.testing.assert_array_equal(sel, ref)
    np.testing.assert_array_equal(sel, false_discovery_control(p, method="bh") <= q)
    assert cut == pytest.approx(q * lstar / p.size if lstar else 0.0)


# ---------------------------------------------------------------------------
# edge cases: no selection, ties, small n, degenerate intervals


def test_no_selection_returns_empty_arrays_and_zero_fdp():
    rng = np.random.default_rng(0)
    mu_c = rng.normal(size=100)
    y_c = np.full(100, -5.0)  # every calibration unit is null with large score
    res = cfbh(mu_c, y_c, rng.normal(size=10) - 10, q=0.1, y_test=np.zeros(10), random_state=0)
    assert res.n_selected == 0 and res.selected.shape == (0,) and res.pairs.shape == (0, 2)
    assert res.selected.dtype.kind == "i"
    assert res.threshold == 0.0 and res.fdp == 0.0 and res.power == 0.0
    assert "n_selected=0" in repr(res)


def test_ties_are_broken_by_the_uniform():
    cal = np.array([0.0, 0.0, 0.0, 1.0])
    p = conformal_pvalues(np.zeros(3), cal, np.array([0.0, 0.5, 1.0]))
    # #{s_i > 0} = 1, ties = 3 -> (1 + u * 4) / 5
    np.testing.assert_allclose(p, [0.2, 0.6, 1.0])


def test_infinite_end_reduces_to_half_bounded_score():
    rng = np.random.default_rng(1)
    mu_c, mu_t = rng.normal(size=50), rng.normal(size=10)
    y_c = mu_c + rng.normal(size=50)
    a = region_scores(mu_c, y_c, lower=-np.inf, upper=0.3)
    expected = np.where(y_c < 0.3, np.inf, mu_c - 0.3)  # M 1{y < c} + mu (shifted by -c)
    np.testing.assert_array_equal(a, expected)
    u = rng.random((10, 1))
    r1 = mccs(mu_c, y_c, mu_t, (-np.inf, 0.3), q=0.3, u=u)
    r2 = cfbh(-mu_c, -y_c, -mu_t, c_cal=-0.3, q=0.3, u=u[:, 0])
    np.testing.assert_allclose(r1.pvalues, r2.pvalues, rtol=1e-12)


def test_small_n_warnings():
    rng = np.random.default_rng(0)
    with pytest.warns(SmallCalibrationWarning, match="no selection is possible"):
        cfbh(rng.normal(size=5), rng.normal(size=5), rng.normal(size=3), q=0.1, random_state=0)
    with pytest.warns(SmallCalibrationWarning, match="expect low power"):
        mccs(rng.normal(size=50), rng.normal(size=50), rng.normal(size=20),
             [(0, 1), (2, 3)], q=0.3, randomize=False)
    # randomised p-values: only the "nothing selectable" case warns
    with warnings.catch_warnings():
        warnings.simplefilter("error", SmallCalibrationWarning)
        mccs(rng.normal(size=50), rng.normal(size=50), rng.normal(size=20),
             [(0, 1), (2, 3)], q=0.3, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", SmallCalibrationWarning)
        cfbh(rng.normal(size=500), rng.normal(size=500), rng.normal(size=10), q=0.1, random_state=0)


def test_deterministic_pvalues_cannot_select_when_n_is_tiny():
    # n + 1 = 5 < 1/q = 10: smallest deterministic p-value 1/5 > q
    res = cfbh(np.zeros(4), np.full(4, -1.0), np.full(3, 100.0), q=0.1, randomize=False)
    assert res.n_selected == 0
    np.testing.assert_allclose(res.pvalues, 0.2)


@pytest.mark.parametrize("cond", [(1.0, 1.0), (2.0, 1.0)])
def test_degenerate_interval_raises(cond):
    with pytest.raises(ValueError, match="degenerate"):
        mccs(MU_CAL, Y_CAL, MU_TEST, cond, q=0.3)
    with pytest.raises(ValueError, match="lower must be strictly below"):
        region_scores(MU_CAL, lower=cond[0], upper=cond[1])


def test_conjunctive_mode_intersects_the_boxes():
    rng = np.random.default_rng(2)
    mu_c, mu_t = rng.normal(size=300), rng.normal(size=30)
    y_c = mu_c + 0.3 * rng.normal(size=300)
    u = rng.random((30, 1))
    a = mccs(mu_c, y_c, mu_t, [(-1.0, np.inf), (-np.inf, 0.5)], mode="conjunctive", q=0.3, u=u)
    b = mccs(mu_c, y_c, mu_t, (-1.0, 0.5), q=0.3, u=u)
    np.testing.assert_array_equal(a.pvalues, b.pvalues)
    with pytest.raises(ValueError, match="empty"):
        mccs(mu_c, y_c, mu_t, [(-1.0, 0.0), (0.0, 1.0)], mode="conjunctive", q=0.3)


def test_multitask_box_and_disjunction_across_tasks():
    rng = np.random.default_rng(4)
    mu_c, mu_t = rng.normal(size=(400, 2)), rng.normal(size=(50, 2))
    y_c = mu_c + 0.2 * rng.normal(size=(400, 2))
    y_t = mu_t + 0.2 * rng.normal(size=(50, 2))
    box = {0: (0.0, np.inf), 1: (-np.inf, 0.0)}
    res = mccs(mu_c, y_c, mu_t, [box], q=0.2, y_test=y_t, random_state=0)
    truth = (y_t[:, 0] > 0) & (y_t[:, 1] < 0)
    assert res.power > 0.5
    fdp = (~truth[res.selected]).sum() / max(1, res.n_selected)
    assert res.fdp == pytest.approx(fdp)
    # the box score is V = M 1{y in box} - min over tasks of the depth
    d = np.minimum(mu_c[:, 0], -mu_c[:, 1])
    np.testing.assert_allclose(region_scores(mu_c, lower=[0.0, -np.inf], upper=[np.inf, 0.0]),
                               -d)
    # a disjunction over tasks pools both conditions in one BH
    r2 = mccs(mu_c, y_c, mu_t, [{0: (1.0, np.inf)}, {1: (1.0, np.inf)}], q=0.2, random_state=0)
    assert r2.pvalues.shape == (50, 2)
    assert set(np.unique(r2.pairs[:, 1])) <= {0, 1}


def test_truth_metrics_pair_and_unit_level():
    # two overlapping-free conditions, hand-checked counts
    mu_c = np.linspace(-3, 3, 200)
    y_c = mu_c.copy()
    mu_t = np.array([-2.5, 2.5, 2.6, 0.0])
    y_t = np.array([-2.5, 0.0, 2.6, 0.0])  # unit 1 is predicted in but truly out
    res = mccs(mu_c, y_c, mu_t, [(-np.inf, -1.0), (1.0, np.inf)], q=0.2, y_test=y_t,
               u=np.full((4, 2), 0.5))
    sel = set(res.selected.tolist())
    assert {0, 2} <= sel and 3 not in sel
    n_false = int(1 in sel)
    assert res.fdp == pytest.approx(n_false / len(sel))
    assert res.pair_fdp == pytest.approx(n_false / len(res.pairs))
    assert res.power == 1.0


def test_result_summary_and_plot():
    res = cfbh(MU_CAL, Y_CAL, MU_TEST, q=0.3, u=np.full(5, 0.5), y_test=np.ones(5))
    assert isinstance(res, SelectionResult)
    text = str(res.summary())
    assert "BH threshold" in text and "0.24" in text
    ax = res.plot()
    assert ax.get_xlabel() == "rank l"
    with pytest.raises(AttributeError):
        res.q = 0.5  # frozen


def test_baselines_int_uni_and_bonferroni():
    rng = np.random.default_rng(5)
    mu_c, mu_t = rng.normal(size=500), rng.normal(size=60)
    y_c = mu_c + 0.5 * rng.normal(size=500)
    u = rng.random((60, 1))
    res = mccs(mu_c, y_c, mu_t, (-0.5, 0.5), q=0.3, method="int", u=u)
    lo = cfbh(mu_c, y_c, mu_t, c_cal=-0.5, q=0.3, u=u[:, 0])
    hi = cfbh(-mu_c, -y_c, -mu_t, c_cal=-0.5, q=0.3, u=u[:, 0])
    np.testing.assert_array_equal(res.selected, np.intersect1d(lo.selected, hi.selected))
    res_b = mccs(mu_c, y_c, mu_t, (-0.5, 0.5), q=0.3, method="int-b", u=u)
    lo_b = cfbh(mu_c, y_c, mu_t, c_cal=-0.5, q=0.15, u=u[:, 0])
    hi_b = cfbh(-mu_c, -y_c, -mu_t, c_cal=-0.5, q=0.15, u=u[:, 0])
    np.testing.assert_array_equal(res_b.selected, np.intersect1d(lo_b.selected, hi_b.selected))
    u2 = rng.random((60, 2))
    uni = mccs(mu_c, y_c, mu_t, [(-np.inf, -1.0), (1.0, np.inf)], q=0.3, method="uni", u=u2)
    a = cfbh(-mu_c, -y_c, -mu_t, c_cal=1.0, q=0.3, u=u2[:, 0])
    b = cfbh(mu_c, y_c, mu_t, c_cal=1.0, q=0.3, u=u2[:, 1])
    np.testing.assert_array_equal(uni.selected, np.union1d(a.selected, b.selected))
    # Ind: cfBH on the indicator with a classifier's probability
    z_c = ((y_c > -0.5) & (y_c < 0.5)).astype(float)
    prob_c, prob_t = np.exp(-mu_c**2), np.exp(-mu_t**2)
    ind = mccs(mu_c, y_c, mu_t, (-0.5, 0.5), q=0.3, method="ind", ind_cal=prob_c,
               ind_test=prob_t, u=u)
    ref = cfbh(prob_c, z_c, prob_t, c_cal=0.5, q=0.3, u=u[:, 0])
    np.testing.assert_array_equal(ind.selected, ref.selected)


# ---------------------------------------------------------------------------
# estimators


def test_selector_precomputed_equals_function_and_per_unit_thresholds():
    rng = np.random.default_rng(6)
    mu_c, mu_t = rng.normal(size=300), rng.normal(size=40)
    y_c = mu_c + 0.5 * rng.normal(size=300)
    c_c, c_t = rng.normal(size=300) * 0.3, rng.normal(size=40) * 0.3
    sel = ConformalSelector("precomputed", q=0.2, random_state=3).fit(mu_c[:, None], y_c,
                                                                     threshold=c_c)
    res = sel.select(mu_t[:, None], threshold=c_t)
    ref = cfbh(mu_c, y_c, mu_t, c_cal=c_c, c_test=c_t, q=0.2, random_state=3)
    np.testing.assert_array_equal(res.pvalues, ref.pvalues)
    np.testing.assert_array_equal(res.selected, ref.selected)
    np.testing.assert_array_equal(sel.pvalues(mu_t[:, None], threshold=c_t), ref.pvalues[:, 0])


def test_selector_wraps_a_regressor_and_prefit():
    from sklearn.linear_model import LinearRegression

    rng = np.random.default_rng(7)
    X = rng.normal(size=(700, 2))
    y = X[:, 0] + 0.2 * rng.normal(size=700)
    model = LinearRegression().fit(X[:300], y[:300])
    sel = ConformalSelector(model, prefit=True, threshold=0.5, q=0.2, random_state=0)
    sel.fit(X[300:600], y[300:600])
    ref = cfbh(model.predict(X[300:600]), y[300:600], model.predict(X[600:]), c_cal=0.5,
               q=0.2, random_state=0)
    np.testing.assert_array_equal(sel.select(X[600:]).selected, ref.selected)
    mcs = MultiConditionSelector(model, conditions=[(-np.inf, -0.5), (0.5, np.inf)], q=0.2,
                                 prefit=True, random_state=0).fit(X[300:600], y[300:600])
    ref2 = mccs(model.predict(X[300:600]), y[300:600], model.predict(X[600:]),
                [(-np.inf, -0.5), (0.5, np.inf)], q=0.2, random_state=0)
    np.testing.assert_array_equal(mcs.select(X[600:]).pairs, ref2.pairs)
    np.testing.assert_array_equal(mcs.pvalues(X[600:]), ref2.pvalues)


# ---------------------------------------------------------------------------
# bad input


@pytest.mark.parametrize("kwargs, exc, match", [
    ({"q": 0.0}, ValueError, "q must be in"),
    ({"q": 1.5}, ValueError, "q must be in"),
    ({"score": "abs"}, ValueError, "score must be one of"),
    ({"randomize": "yes"}, TypeError, "randomize must be a bool"),
    ({"M": -1.0}, ValueError, "M must be in"),
    ({"c_cal": np.zeros(3)}, ValueError, "c_test is required"),
    ({"c_cal": np.zeros(3), "c_test": 0.0}, ValueError, "c_cal must be a scalar or have"),
    ({"c_cal": np.nan}, ValueError, "c_cal must not contain NaN"),
    ({"u": np.full(4, 0.5)}, ValueError, "u must have shape"),
    ({"u": np.full(5, 1.5)}, ValueError, r"u must hold numbers in \[0, 1\]"),
])
def test_cfbh_rejects_bad_arguments(kwargs, exc, match):
    with pytest.raises(exc, match=match):
        cfbh(MU_CAL, Y_CAL, MU_TEST, **kwargs)


@pytest.mark.parametrize("args, match", [
    ((MU_CAL, Y_CAL[:5], MU_TEST), "y_cal must have the shape of mu_cal"),
    ((MU_CAL, Y_CAL, np.array([np.nan, 1.0])), "mu_test must not contain NaN"),
    ((MU_CAL, Y_CAL, np.array([np.inf, 1.0])), "mu_test must be finite"),
    ((MU_CAL[:0], Y_CAL[:0], MU_TEST), "at least one calibration point"),
    ((MU_CAL, Y_CAL, MU_TEST[:0]), "at least one test point"),
    ((MU_CAL, Y_CAL, np.zeros((5, 2))), "column"),
    ((np.zeros((2, 2, 2)), Y_CAL, MU_TEST), "mu_cal must have 1 or 2 dimensions"),
])
def test_prepare_rejects_bad_arrays(args, match):
    with pytest.raises(ValueError, match=match):
        cfbh(*args, q=0.3)


@pytest.mark.parametrize("conditions, exc, match", [
    ([], ValueError, "at least one condition"),
    ((-np.inf, np.inf), ValueError, "constrains nothing"),
    ([(0.0, "a")], TypeError, "must be a real number"),
    ([(0.0, 1.0, 2.0)], TypeError, "must be a .lower, upper. pair"),
    ([{3: (0.0, 1.0)}], ValueError, "task must be an integer"),
    ([{}], ValueError, "constrains no task"),
    (5, TypeError, "conditions must be a sequence"),
])
def test_mccs_rejects_bad_conditions(conditions, exc, match):
    with pytest.raises(exc, match=match):
        mccs(MU_CAL, Y_CAL, MU_TEST, conditions, q=0.3)


@pytest.mark.parametrize("kwargs, match", [
    ({"mode": "any"}, "mode must be one of"),
    ({"method": "bonferroni"}, "method must be one of"),
    ({"method": "ind"}, "needs ind_cal and ind_test"),
    ({"u": np.full((5, 3), 0.5)}, "u must have shape"),
])
def test_mccs_rejects_bad_options(kwargs, match):
    with pytest.raises(ValueError, match=match):
        mccs(MU_CAL, Y_CAL, MU_TEST, [(0, 1), (2, 3)], q=0.3, **kwargs)


@pytest.mark.parametrize("args, match", [
    ((np.array([0.1]), np.array([[0.1]])), "cal_scores must be 1-D"),
    ((np.array([0.1]), np.array([])), "at least one calibration score"),
    ((np.array([0.1]), np.array([np.nan])), "cal_scores must not contain NaN"),
    ((np.array([np.nan]), np.array([0.1])), "test_scores must not contain NaN"),
    ((np.zeros((1, 1, 1)), np.array([0.1])), "test_scores must be 1-D or 2-D"),
])
def test_conformal_pvalues_rejects_bad_input(args, match):
    with pytest.raises(ValueError, match=match):
        conformal_pvalues(*args)
    with pytest.raises(ValueError, match="u must have the shape"):
        conformal_pvalues(np.zeros((3, 2)), np.zeros(4), np.zeros(2))
    with pytest.raises(ValueError, match=r"u must hold numbers in \[0, 1\]"):
        conformal_pvalues(np.zeros(3), np.zeros(4), np.full(3, -0.1))


@pytest.mark.parametrize("p, q, match", [
    (np.array([0.1, 1.2]), 0.1, r"pvalues must be numbers in \[0, 1\]"),
    (np.array([np.nan]), 0.1, "pvalues must be numbers"),
    (np.array([]), 0.1, "at least one p-value"),
    (np.array([0.1]), 1.0, "q must be in"),
])
def test_bh_select_rejects_bad_input(p, q, match):
    with pytest.raises(ValueError, match=match):
        bh_select(p, q)


def test_estimators_reject_bad_parameters():
    X, y = np.random.default_rng(0).normal(size=(40, 2)), np.zeros(40)
    with pytest.raises(ValueError, match="conformity_score must be one of"):
        ConformalSelector(conformity_score="abs").fit(X, y)
    with pytest.raises(ValueError, match="q must be in"):
        ConformalSelector(q=2.0).fit(X, y)
    with pytest.raises(ValueError, match=r"estimator must be None or .*predict.*got .linear."):
        ConformalSelector(estimator="linear").fit(X, y)
    with pytest.raises(ValueError, match="one column of predictions"):
        ConformalSelector(estimator="precomputed").fit(X, y)
    with pytest.raises(ValueError, match="threshold must be finite"):
        ConformalSelector().fit(X, y, threshold=np.zeros(3))
    with pytest.raises(ValueError, match="degenerate"):
        MultiConditionSelector(conditions=[(1.0, 0.0)]).fit(X, y)
    with pytest.raises(ValueError, match="method must be one of"):
        MultiConditionSelector(method="ind").fit(X, y)


@pytest.mark.parametrize("kwargs, match", [
    ({"lower": -np.inf, "upper": np.inf}, "at least one finite end"),
    ({"lower": np.zeros(3)}, "must broadcast"),
    ({"lower": 0.0, "y": np.zeros(4)}, "y must have the shape of mu"),
    ({"lower": 0.0, "M": 0.0}, "M must be in"),
])
def test_region_scores_rejects_bad_input(kwargs, match):
    kwargs = dict(kwargs)  # the parametrised dict is shared between runs: do not pop from it
    y = kwargs.pop("y", np.zeros(5))
    with pytest.raises(ValueError, match=match):
        region_scores(np.arange(5.0), y, **kwargs)


def test_selectors_prefit_needs_a_fitted_model():
    from sklearn.exceptions import NotFittedError
    from sklearn.linear_model import LinearRegression

    X, y = np.random.default_rng(0).normal(size=(40, 2)), np.zeros(40)
    with pytest.raises(NotFittedError):
        ConformalSelector(LinearRegression(), prefit=True).fit(X, y)
    with pytest.raises(TypeError, match="predict method"):
        ConformalSelector(object()).fit(X, y)


def test_multitask_selector_with_a_multioutput_regressor():
    rng = np.random.default_rng(9)
    X = rng.normal(size=(1400, 3))
    Y = np.column_stack([X[:, 0], X[:, 1]]) + 0.1 * rng.normal(size=(1400, 2))
    box = {0: (0.0, np.inf), 1: (0.0, np.inf)}
    sel = MultiConditionSelector(conditions=[box], q=0.2, random_state=0).fit(X[:1200], Y[:1200])
    res = sel.select(X[1200:], y_true=Y[1200:])
    assert sel.mu_cal_.shape == (600, 2) and res.pvalues.shape == (200, 1)
    truth = (Y[1200:, 0] > 0) & (Y[1200:, 1] > 0)
    assert res.power > 0.5
    assert res.fdp == pytest.approx((~truth[res.selected]).mean())
    # precomputed predictions, one column per task
    pre = MultiConditionSelector("precomputed", conditions=[box], q=0.2, random_state=0)
    pre.fit(sel.mu_cal_, sel.y_cal_)
    res2 = pre.select(sel.estimator_.predict(X[1200:]), y_true=Y[1200:])
    np.testing.assert_array_equal(res2.pvalues, res.pvalues)


@pytest.mark.parametrize("method", ["mccs", "int", "uni-b"])
def test_ind_predictions_are_refused_by_the_other_methods(method):
    # they were accepted and silently ignored: the selection was the same with or without
    rng = np.random.default_rng(0)
    mu_c, mu_t = rng.normal(size=200), rng.normal(size=20)
    y_c = mu_c + 0.1 * rng.normal(size=200)
    with pytest.raises(ValueError, match=r'ind_cal and ind_test are read by method="ind" only'):
        mccs(mu_c, y_c, mu_t, (-0.5, 0.5), q=0.3, method=method, ind_cal=np.full(200, 0.5),
             ind_test=np.full(20, 0.5))


@pytest.mark.parametrize("multi", [False, True])
def test_true_responses_are_refused_under_their_own_name(multi):
    # select(X, y_true=...) and score(X, y) pass the responses on to the procedures, whose
    # argument is y_test: an error there named an argument the caller never passed
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 2))
    y = X[:, 0] + 0.3 * rng.normal(size=300)
    sel = (MultiConditionSelector(conditions=[(-np.inf, -0.5), (0.5, np.inf)], q=0.3,
                                  random_state=0) if multi
           else ConformalSelector(q=0.3, random_state=0)).fit(X[:200], y[:200])
    Xt, yt = X[200:], y[200:]
    ref = sel.select(Xt, y_true=yt)
    assert sel.score(Xt, yt) == ref.power
    assert sel.select(Xt, y_true=list(yt)).power == ref.power
    bad = yt.copy()
    bad[4] = np.nan
    with pytest.raises(ValueError, match=r"^y_true: .*NaN"):
        sel.select(Xt, y_true=bad)
    with pytest.raises(ValueError, match=r"^y: .*NaN"):
        sel.score(Xt, bad)
    with pytest.raises(ValueError, match=r"^y_true .*per row of X \(100\).*\(99,\)"):
        sel.select(Xt, y_true=yt[:99])
    with pytest.raises(ValueError, match=r"^y .*per row of X"):
        sel.score(Xt, yt[:99])

"""The split-conformal rank, quantile and p-value against exact arithmetic and brute force.

The expected rank is computed with exact rational arithmetic (``fractions``)
from the decimal level, the expected quantile by sorting, the p-value by
counting, and the coverage ``k / (n + 1)`` by enumerating every position of
the test score among the calibration scores (exchangeability makes each of the
``n + 1`` ranks equally likely), so a rank that is off by one, a rounding
tolerance that is too loose or too tight, or a wrong order statistic fails
here. Errors are checked by the argument they name and the value they show.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from statlearn.conformal import conformal_pvalues, conformal_quantile, conformal_rank
from tests.helpers import raises


def _exact_rank(n, alpha_text):
    """``ceil((n + 1)(1 - alpha))`` for the decimal ``alpha_text``, in exact arithmetic."""
    return math.ceil((n + 1) * (1 - Fraction(alpha_text)))


DECIMALS = ["0.01", "0.02", "0.05", "0.1", "0.15", "0.2", "0.25", "0.3", "0.35", "0.4", "0.5",
            "0.6", "0.7", "0.75", "0.8", "0.9", "0.95", "0.99"]


def test_rank_matches_exact_rational_ceiling_for_decimal_levels():
    # (n + 1)(1 - alpha) is an integer for many decimal levels (alpha = 0.3, n = 9);
    # binary rounding must not push those up by one, nor pull the others down.
    mismatches = [(n, a) for n in range(1, 401) for a in DECIMALS
                  if conformal_rank(n, float(a)) != _exact_rank(n, a)]
    assert mismatches == []


def test_rank_at_large_n_where_relative_tolerance_matters():
    # at n ~ 1e6 the absolute float error of (n + 1)(1 - alpha) exceeds 1e-9, so an
    # absolute tolerance would miss exact integers; the relative one must find them
    # (at n + 1 = 1e8, alpha = 0.7 the float product is 3e7 + 3.7e-9, above 1e-9)
    for n in (999_999, 1_999_999, 4_999_999, 10**7 - 1, 10**8 - 1, 10**9 - 1):
        for a in ("0.1", "0.3", "0.7", "0.9", "0.05"):
            assert conformal_rank(n, float(a)) == _exact_rank(n, a), (n, a)


def test_rank_rounds_up_a_product_just_above_an_integer():
    # (n + 1)(1 - alpha) = 9 + 1e-6 is far outside the rounding tolerance: k = 10
    n, alpha = 9, 0.1 - 1e-7
    assert (n + 1) * (1 - alpha) - 9 > 1e-7
    assert conformal_rank(n, alpha) == 10
    # and just below an integer (by more than the tolerance) it stays at that integer
    assert conformal_rank(9, 0.1 + 1e-7) == 9
    # a product within the tolerance of an integer is that integer, from either side
    assert conformal_rank(9, 0.1 + 1e-12) == 9
    assert conformal_rank(9, 0.1 - 1e-12) == 9


def test_rank_tolerance_is_relative_to_one_below_one_and_a_half():
    # n = 1: (n + 1)(1 - alpha) = 1 + d. The tolerance is 1e-9 * max(1, x): d = 5e-10
    # is taken as the integer 1, d = 1.5e-9 is not (k = 2), so the tolerance is neither
    # looser nor tighter than documented at x ~ 1
    assert conformal_rank(1, 0.5 - 0.25e-9) == 1
    assert conformal_rank(1, 0.5 - 0.75e-9) == 2
    # at x ~ 3e7 the same absolute gap 1.5e-9 is inside the relative tolerance
    assert conformal_rank(10**8 - 1, 0.7) == 30_000_000


def test_rank_values_and_type():
    k = conformal_rank(19, 0.05)
    assert type(k) is int and k == 19
    assert type(conformal_rank(9, 0.3)) is int
    assert conformal_rank(1, 0.5) == 1       # (2)(0.5) = 1
    assert conformal_rank(1, 0.4) == 2       # 1.2 -> 2 > n: the whole label set
    assert conformal_rank(10, 0.01) == 11


def test_rank_domain_messages():
    raises(lambda: conformal_rank(0, 0.1), ValueError, names="n", shows="[1, inf]")
    raises(lambda: conformal_rank(10, 0.0), ValueError, names="alpha", shows="(0, 1)")
    raises(lambda: conformal_rank(10, 1.0), ValueError, names="alpha", shows="(0, 1)")


@pytest.mark.parametrize("n", [1, 2, 7, 20, 101])
def test_quantile_is_kth_order_statistic(n):
    rng = np.random.default_rng(n)
    for alpha in (0.02, 0.1, 0.33, 0.5, 0.9):
        # ties and +inf included
        s = rng.integers(0, 5, size=n).astype(float)
        s[rng.random(n) < 0.1] = np.inf
        k = _exact_rank(n, repr(alpha))
        expected = math.inf if k > n else sorted(s.tolist())[k - 1]
        got = conformal_quantile(list(s), alpha)
        assert type(got) is float
        assert got == expected, (n, alpha, k)


def test_quantile_of_distinct_scores_is_the_exact_order_statistic():
    # distinct continuous scores, larger n: the k-th smallest and no neighbour of it
    rng = np.random.default_rng(21)
    for n in (30, 257, 1000):
        s = rng.standard_normal(n)
        srt = np.sort(s)
        for alpha in (0.001 + 1 / (n + 1), 0.01, 0.1, 0.5, 0.9, 0.99):
            k = _exact_rank(n, repr(alpha))
            got = conformal_quantile(s.copy(), alpha)
            assert got == (srt[k - 1] if k <= n else math.inf), (n, alpha, k)
        # alpha just below 1: k = 1, the minimum
        assert conformal_quantile(s.copy(), 1 - 0.5 / (n + 1)) == srt[0]


@pytest.mark.parametrize("n, alpha", [(9, 0.3), (19, 0.05), (40, 0.1), (99, 0.2), (6, 0.5)])
def test_quantile_coverage_is_exactly_k_over_n_plus_1_by_enumeration(n, alpha):
    # distinct scores 0..n are exchangeable: the test score takes each value with
    # probability 1/(n+1) and the others form the calibration set; enumerate them all
    covered = 0
    values = np.arange(n + 1, dtype=float)
    for i in range(n + 1):
        cal = np.delete(values, i)
        covered += values[i] <= conformal_quantile(cal, alpha)
    k = _exact_rank(n, repr(alpha))
    assert Fraction(covered, n + 1) == Fraction(min(k, n + 1), n + 1)
    assert covered / (n + 1) >= 1 - alpha


def test_quantile_infinite_when_rank_exceeds_n():
    assert conformal_quantile([0.2, 0.1, 0.4], 0.2) == math.inf  # k = ceil(3.2) = 4 > 3
    assert conformal_quantile([0.2, 0.1, 0.4, 0.3], 0.2) == 0.4  # k = 4 = n
    assert conformal_quantile([5.0], 0.5) == 5.0  # k = 1 = n


def test_quantile_accepts_infinite_scores_and_other_dtypes():
    assert conformal_quantile([np.inf, 1.0, np.inf, 0.5], 0.6) == 1.0  # k = 2 of 4
    assert conformal_quantile(np.array([3, 1, 2], dtype=np.int64), 0.5) == 2.0
    assert conformal_quantile(np.array([0.25, 0.75], dtype=np.float32), 0.5) == 0.75
    assert conformal_quantile(np.array([np.inf, np.inf]), 0.5) == math.inf


def test_quantile_input_messages():
    raises(lambda: conformal_quantile([[0.1, 0.2]], 0.5), ValueError, names="scores",
           shows="(1, 2)", match="must be 1-D")
    raises(lambda: conformal_quantile([], 0.5), ValueError, names="scores",
           match="at least one calibration score")
    raises(lambda: conformal_quantile([0.1, np.nan], 0.5), ValueError, names="scores",
           shows="NaN", match="must not contain")
    raises(lambda: conformal_quantile([0.1, -np.inf], 0.5), ValueError, names="scores",
           shows="-inf", match="must not contain")
    raises(lambda: conformal_quantile([0.1, 0.2], 1.0), ValueError, names="alpha", shows="(0, 1)")
    raises(lambda: conformal_quantile(["a", "b"], 0.5), ValueError, match=r"^scores: ")
    # arrays of another dtype are converted and checked like lists
    raises(lambda: conformal_quantile(np.array(["a", "b"]), 0.5), ValueError, match=r"^scores: ")
    raises(lambda: conformal_quantile(np.zeros((2, 2)), 0.5), ValueError, names="scores",
           shows="(2, 2)", match="must be 1-D")
    raises(lambda: conformal_quantile(np.array([np.nan]), 0.5), ValueError, names="scores",
           shows="NaN", match="must not contain")
    raises(lambda: conformal_quantile(np.zeros(0), 0.5), ValueError, names="scores",
           match="at least one calibration score")


# ----------------------------------------------------------------- p-values
def _brute_pvalue(s, cal, u):
    """``(#{c > s} + u (1 + #{c == s})) / (n + 1)`` by counting."""
    above = sum(1 for c in cal if c > s)
    equal = sum(1 for c in cal if c == s)
    return (above + u * (1 + equal)) / (len(cal) + 1)


def _xp_namespaces():
    out = [("numpy", np)]
    try:
        import array_api_strict

        out.append(("array_api_strict", array_api_strict))
    except ImportError:  # pragma: no cover
        pass
    return out


@pytest.mark.parametrize("name, xp", _xp_namespaces())
def test_pvalues_against_counting_with_ties_and_infinities(name, xp):
    rng = np.random.default_rng(4)
    cal = rng.integers(0, 6, size=23).astype(float)
    cal[[0, 5]] = [np.inf, -np.inf]
    test = np.concatenate([rng.integers(-1, 7, size=30).astype(float), [np.inf, -np.inf]])
    u = rng.random(test.size)
    for uu in (None, u):
        got = conformal_pvalues(xp.asarray(test), xp.asarray(cal),
                                None if uu is None else xp.asarray(uu))
        expected = [_brute_pvalue(s, cal, 1.0 if uu is None else uu[i])
                    for i, s in enumerate(test)]
        np.testing.assert_allclose(np.asarray(got), expected, rtol=0, atol=1e-15)


@pytest.mark.parametrize("name, xp", _xp_namespaces())
def test_pvalues_two_dimensional_with_row_uniforms(name, xp):
    rng = np.random.default_rng(9)
    cal = rng.integers(0, 4, size=11).astype(float)
    test = rng.integers(0, 5, size=(6, 3)).astype(float)
    u_row = rng.random(6)
    got = np.asarray(conformal_pvalues(xp.asarray(test), xp.asarray(cal), xp.asarray(u_row)))
    assert got.shape == (6, 3)
    for i in range(6):
        for j in range(3):
            assert got[i, j] == pytest.approx(_brute_pvalue(test[i, j], cal, u_row[i]), abs=1e-15)
    u_full = rng.random((6, 3))
    got = np.asarray(conformal_pvalues(xp.asarray(test), xp.asarray(cal), xp.asarray(u_full)))
    for i in range(6):
        for j in range(3):
            assert got[i, j] == pytest.approx(_brute_pvalue(test[i, j], cal, u_full[i, j]),
                                              abs=1e-15)


def test_pvalues_large_input_takes_the_same_values():
    # above the parallel-kernel size the values are the same counts
    rng = np.random.default_rng(2)
    cal = rng.integers(0, 50, size=40).astype(float)
    test = rng.integers(-1, 52, size=1 << 17).astype(float)
    got = conformal_pvalues(test, cal)
    srt = np.sort(cal)
    above = cal.size - np.searchsorted(srt, test, side="right")
    equal = np.searchsorted(srt, test, side="right") - np.searchsorted(srt, test, side="left")
    np.testing.assert_array_equal(got, (above + 1.0 + equal) / (cal.size + 1))
    for i in rng.integers(0, test.size, size=20):
        assert got[i] == pytest.approx(_brute_pvalue(test[i], cal, 1.0), abs=1e-15)


def test_pvalue_above_alpha_iff_score_within_the_quantile():
    # deterministic p-values and the conformal quantile define the same sets, ties included
    rng = np.random.default_rng(12)
    for n in (5, 19, 40):
        cal = rng.integers(0, 8, size=n).astype(float)
        test = np.arange(-1.0, 10.0, 0.5)
        for alpha in (0.05, 0.1, 0.3, 0.5):
            q = conformal_quantile(cal, alpha)
            np.testing.assert_array_equal(conformal_pvalues(test, cal) > alpha, test <= q)


def test_pvalue_input_messages():
    ok = np.array([0.1, 0.2])
    raises(lambda: conformal_pvalues(ok, np.zeros((2, 2))), ValueError, names="cal_scores",
           shows="(2, 2)", match="must be 1-D")
    raises(lambda: conformal_pvalues(ok, np.zeros(0)), ValueError, names="cal_scores",
           match="at least one calibration score")
    raises(lambda: conformal_pvalues(ok, np.array([np.nan, 1.0])), ValueError,
           names="cal_scores", shows="NaN", match="must not contain")
    raises(lambda: conformal_pvalues(np.zeros((1, 1, 1)), ok), ValueError, names="test_scores",
           shows="(1, 1, 1)", match="must be 1-D or 2-D")
    raises(lambda: conformal_pvalues(np.array([np.nan]), ok), ValueError, names="test_scores",
           shows="NaN", match="must not contain")
    raises(lambda: conformal_pvalues(np.zeros((2, 3)), ok, u=np.zeros(3)), ValueError,
           names=("u", "test_scores"), shows=("(2, 3) or (2,)", "got (3,)"),
           match="must have the shape of")
    raises(lambda: conformal_pvalues(ok, ok, u=np.zeros(3)), ValueError,
           names=("u", "test_scores"), shows=("(2,) or (2,)", "got (3,)"),
           match="must have the shape of")
    for bad in (np.array([0.5, np.nan]), np.array([0.5, -0.01]), np.array([0.5, 1.01])):
        raises(lambda bad=bad: conformal_pvalues(ok, ok, u=bad), ValueError, names="u",
               shows="[0, 1]", match="must hold numbers in")
    # the endpoints 0 and 1 are valid uniforms
    np.testing.assert_allclose(conformal_pvalues(ok, ok, u=np.array([0.0, 1.0])),
                               [_brute_pvalue(0.1, ok, 0.0), _brute_pvalue(0.2, ok, 1.0)])


def test_pvalues_refuse_mixed_array_libraries():
    xs = pytest.importorskip("array_api_strict")
    strict, plain = xs.asarray([0.2, 0.6]), np.array([0.1, 0.2, 0.5])
    phrase = "must all come from one array library"
    raises(lambda: conformal_pvalues(strict, plain), TypeError, match=phrase)
    raises(lambda: conformal_pvalues(plain, xs.asarray([0.1])), TypeError, match=phrase)
    raises(lambda: conformal_pvalues(plain, plain, u=xs.asarray([0.5, 0.5, 0.5])), TypeError,
           match=phrase)


def test_pvalues_convert_integer_inputs_in_every_namespace():
    # integer scores and 0/1 tie-breakers are numbers like any other: the result is the
    # float64 p-value of the same counts, in the input's namespace
    cal, test, u = [0, 1, 1, 2], [1, 3], [0, 1]
    expected = [_brute_pvalue(1, cal, 0), _brute_pvalue(3, cal, 1)]
    for name, xp in _xp_namespaces():
        got = conformal_pvalues(xp.asarray(test), xp.asarray(cal), xp.asarray(u))
        assert got.dtype == xp.float64, name
        np.testing.assert_allclose(np.asarray(got), expected, rtol=1e-15)
        got1 = conformal_pvalues(xp.asarray(test), xp.asarray(cal))
        np.testing.assert_allclose(np.asarray(got1),
                                   [_brute_pvalue(s, cal, 1.0) for s in test], rtol=1e-15)

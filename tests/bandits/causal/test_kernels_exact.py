"""Exact checks of the kernels' Python side: the MRG32k3a seeding and the KL-UCB reference.

Written against the mutation runs of ``bandits.causal._kernels`` (mutmut leaves the
``@jit`` kernels alone; these are the functions it mutates). Expected values are
derived here: the seeding from the MRG32k3a state space (L'Ecuyer, 1999) and the
Generator's documented ``integers`` draws, the index from the definition
``sup{q in [mean, 1] : n KL(mean, q) <= level}`` with KL written out in the test.
"""

import math
import warnings

import numpy as np
import pytest

from statlearn.bandits.causal import _kernels as _k

M1 = 4294967087  # the two MRG32k3a moduli (L'Ecuyer, 1999, Table II)
M2 = 4294944443
TOP = 1.0 - 1e-15  # the reference's bracket end: an index at or above it reads as 1


def kl(p, q):
    """KL(Bernoulli(p) || Bernoulli(q)) with 0 log 0 = 0, in plain math."""
    out = 0.0
    if p > 0:
        out += p * math.log(p / q)
    if p < 1:
        out += (1 - p) * math.log((1 - p) / (1 - q))
    return out


@pytest.mark.parametrize("seed", [0, 1, 12345])
def test_seed_state_is_three_draws_per_component_in_the_state_space(seed):
    # MRG32k3a's state is (x1, x2, x3) in [1, m1)^3 and (y1, y2, y3) in [1, m2)^3 (a zero
    # triple is the degenerate fixed point); the six numbers are the Generator's next
    # draws of integers(1, m1, 3) then integers(1, m2, 3), so a seed fixes the stream
    s = _k.seed_state(np.random.default_rng(seed))
    assert s.dtype == np.int64 and s.shape == (6,)
    ref = np.random.default_rng(seed)
    np.testing.assert_array_equal(s[:3], ref.integers(1, M1, size=3))
    np.testing.assert_array_equal(s[3:], ref.integers(1, M2, size=3))
    assert np.all((1 <= s[:3]) & (s[:3] < M1)) and np.all((1 <= s[3:]) & (s[3:] < M2))
    # three independent draws from 4e9 values: distinct (a scalar broadcast is not)
    assert len(set(s[:3].tolist())) == 3 and len(set(s[3:].tolist())) == 3


def test_seed_state_consumes_exactly_six_draws():
    rng = np.random.default_rng(7)
    _k.seed_state(rng)
    ref = np.random.default_rng(7)
    ref.integers(1, M1, size=3)
    ref.integers(1, M2, size=3)
    assert rng.random() == ref.random()


def test_reference_index_at_mean_one_is_one_without_numerical_warnings():
    # n KL(1, q) is finite only at q = 1: the index is 1, returned before any log(0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert _k.klucb_index_reference(1.0, 10, 2.0) == 1.0


def test_reference_index_near_the_bracket_top_solves_the_equation():
    # mean 0.5, n 1: KL(0.5, q) = 0.5 log(0.25 / (q (1 - q))), so the root of KL = level
    # above 1/2 has q (1 - q) = c = e^(-2 level) / 4, i.e. 1 - q = c / q. At level 16,
    # n KL(0.5, TOP) - level is in (0, 1) and the root lies strictly below TOP
    mean, n, level = 0.5, 1, 16.0
    assert 0 < n * kl(mean, TOP) - level < 1
    c = math.exp(-2 * level) / 4
    gap = c / (1 - c)  # 1 - q to first order in c (q = 1 - c + O(c^2)); about 3.2e-15
    q = _k.klucb_index_reference(mean, n, level)
    assert mean < q < TOP
    # brentq stops within xtol + rtol |q| = 1e-14 + 4 eps of the root; 1 - q is exact
    assert abs((1 - q) - gap) <= 1e-14 + 4 * np.finfo(float).eps


def test_reference_index_is_one_when_the_level_exceeds_the_kl_range():
    # n KL(0.5, q) <= 100 for every q <= TOP (its largest value is about 16.58): sup is 1
    assert 1 * kl(0.5, TOP) < 100
    assert _k.klucb_index_reference(0.5, 1, 100.0) == 1.0


def test_reference_index_at_the_kl_value_of_the_top_is_one():
    # level = n KL(mean, TOP) exactly: every q <= TOP is admissible, so the index is 1
    mean, n = 0.3, 4
    level = n * ((mean * np.log(mean / TOP)) + (1 - mean) * np.log((1 - mean) / (1 - TOP)))
    assert _k.klucb_index_reference(mean, n, float(level)) == 1.0


def test_reference_index_of_a_mean_above_the_bracket_top_stays_in_mean_one():
    # mean = the float just below 1 (> TOP) and a huge n: n KL(mean, TOP) > level, yet
    # the index lies in [mean, 1] by definition and reads as 1
    mean = float(np.nextafter(1.0, 0.0))
    n, level = 1e17, 1.0
    assert mean > TOP and n * kl(mean, TOP) > level
    assert _k.klucb_index_reference(mean, n, level) == 1.0

import numpy as np
import pytest

from statlearn.utils import (
    check_alpha,
    check_array,
    check_consistent_length,
    check_int,
    check_option,
    check_probabilities,
    check_real,
)


@pytest.mark.parametrize("value", [0.0, 1e-9, 0.999, 1.0])
def test_check_real_closed_bounds_accept(value):
    assert check_real(value, "lam", low=0, high=1) == value


@pytest.mark.parametrize("value,closed", [(0.0, "neither"), (1.0, "left"), (0.0, "right")])
def test_check_real_open_bounds_reject(value, closed):
    with pytest.raises(ValueError, match="lam must be in"):
        check_real(value, "lam", low=0, high=1, closed=closed)


@pytest.mark.parametrize("value,exc", [(True, TypeError), ("1", TypeError), (None, TypeError),
                                       (np.nan, ValueError), (np.inf, ValueError)])
def test_check_real_rejects(value, exc):
    with pytest.raises(exc, match="^lam"):
        check_real(value, "lam")


def test_check_real_allows_inf_when_asked():
    assert check_real(np.inf, "lam", low=0, allow_inf=True) == np.inf


@pytest.mark.parametrize("value", [1.0, True, np.float64(2.0)])
def test_check_int_rejects_non_integers(value):
    with pytest.raises(TypeError, match="n must be an integer"):
        check_int(value, "n")


def test_check_int_accepts_numpy_ints():
    assert check_int(np.int32(4), "n", low=1) == 4


@pytest.mark.parametrize("alpha", [0, 1, -0.1, 1.5])
def test_check_alpha(alpha):
    with pytest.raises(ValueError, match=r"alpha must be in \(0, 1\)"):
        check_alpha(alpha)


def test_check_option_lists_allowed():
    with pytest.raises(ValueError, match=r"score must be one of \['a', 'b'\], got 'c'"):
        check_option("c", "score", ["a", "b"])
    with pytest.raises(ValueError, match="score"):
        check_option([1], "score", ["a"])  # unhashable


def test_check_array_prefixes_name():
    with pytest.raises(ValueError, match="^X_cal: "):
        check_array([[np.inf]], "X_cal")
    with pytest.raises(ValueError, match="^X_cal: "):
        check_array(np.zeros(3), "X_cal")


def test_check_consistent_length():
    with pytest.raises(ValueError, match="X and y"):
        check_consistent_length(X=np.zeros((2, 1)), y=np.zeros(3))
    assert check_consistent_length(X=np.zeros((2, 1)), y=None) == 2


@pytest.mark.parametrize("proba,match", [
    ([[0.5, 0.6]], "row 0 sums to 1.1"),
    ([[0.5, 0.5], [1.2, -0.2]], "non-negative"),
    ([[np.nan, 1.0]], "NaN"),
    ([0.5, 0.5], "2-D"),
    (np.zeros((0, 3)), "non-empty"),
    ([["a", "b"]], "numeric"),
])
def test_check_probabilities_rejects(proba, match):
    with pytest.raises((ValueError, TypeError), match=match):
        check_probabilities(proba)


def test_check_probabilities_keeps_values_and_tolerance():
    p = np.array([[0.2, 0.8 + 5e-7]])
    out = check_probabilities(p)
    assert out is p  # no copy, no renormalisation
    with pytest.raises(ValueError):
        check_probabilities(p, atol=1e-8)
    assert check_probabilities([1, 0], ndim=1).dtype == np.float64


def test_check_probabilities_any_namespace(xp):
    p = xp.asarray([[0.25, 0.75], [1.0, 0.0]])
    out = check_probabilities(p)
    assert type(out) is type(p)
    with pytest.raises(ValueError, match="row 1"):
        check_probabilities(xp.asarray([[0.25, 0.75], [0.5, 0.4]]))

"""The regression generator of the conformal selection experiments."""

from __future__ import annotations

import numpy as np
import pytest

from statlearn.datasets import make_selection_regression


def test_shapes_mean_and_noise():
    X, y, mean = make_selection_regression(20000, 12, noise=0.5, scale=2.0, return_mean=True,
                                           random_state=0)
    assert X.shape == (20000, 12) and y.shape == mean.shape == (20000,)
    assert X.min() >= -1 and X.max() <= 1
    np.testing.assert_allclose(mean, 2.0 * (4 * X[:, 0] * X[:, 1] + X[:, 2]))
    resid = y - mean
    # sd of N(0, 0.25) residuals: 0.5 +/- 5 se (se ~ 0.5 / sqrt(2 * 20000))
    assert abs(resid.std() - 0.5) < 5 * 0.5 / np.sqrt(40000)


def test_reproducible_and_noise_free():
    a = make_selection_regression(10, random_state=3)
    b = make_selection_regression(10, random_state=3)
    np.testing.assert_array_equal(a[1], b[1])
    X, y, mean = make_selection_regression(10, noise=0.0, return_mean=True, random_state=1)
    np.testing.assert_array_equal(y, mean)


@pytest.mark.parametrize("kwargs, exc, match", [
    ({"n_samples": 0}, ValueError, "n_samples must be in"),
    ({"n_features": 2}, ValueError, "n_features must be in"),
    ({"noise": -1.0}, ValueError, "noise must be in"),
    ({"scale": 0.0}, ValueError, "scale must be in"),
    ({"n_samples": 2.5}, TypeError, "n_samples must be an integer"),
])
def test_rejects_bad_arguments(kwargs, exc, match):
    with pytest.raises(exc, match=match):
        make_selection_regression(**kwargs)

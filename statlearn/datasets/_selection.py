"""Synthetic regression data for conformal selection experiments."""

from __future__ import annotations

from ..utils import check_int, check_real, check_rng

__all__ = ["make_selection_regression"]


def make_selection_regression(n_samples=1000, n_features=10, *, noise=0.5, scale=1.0,
                              return_mean=False, random_state=None):
    """Regression data with an interaction: ``Y = scale (4 x1 x2 + x3) + noise * N(0, 1)``.

    ``X ~ Unif[-1, 1]^d``. This is the synthetic design recommended for
    reproducing the conformal selection experiments (cfBH with ``noise = 1``,
    MCCS with ``noise = 0.5``).

    Parameters
    ----------
    n_samples : int, default=1000
        Number of rows (``>= 1``).
    n_features : int, default=10
        Dimension ``d`` of ``X`` (``>= 3``; only the first three matter).
    noise : float, default=0.5
        Standard deviation of the Gaussian noise (``>= 0``).
    scale : float, default=1.0
        Multiplier of the regression function (``> 0``).
    return_mean : bool, default=False
        Also return ``E[Y | X]``.
    random_state : None, int or numpy.random.Generator
        Seed or generator.

    Returns
    -------
    X : ndarray of shape (n_samples, n_features)
    y : ndarray of shape (n_samples,)
    mean : ndarray of shape (n_samples,)
        Only when ``return_mean``.

    Examples
    --------
    >>> from statlearn.datasets import make_selection_regression
    >>> X, y = make_selection_regression(5, random_state=0)
    >>> X.shape, y.shape
    ((5, 10), (5,))
    """
    n_samples = check_int(n_samples, "n_samples", low=1)
    n_features = check_int(n_features, "n_features", low=3)
    noise = check_real(noise, "noise", low=0)
    scale = check_real(scale, "scale", low=0, closed="neither")
    rng = check_rng(random_state)
    X = rng.uniform(-1.0, 1.0, size=(n_samples, n_features))
    mean = scale * (4.0 * X[:, 0] * X[:, 1] + X[:, 2])
    y = mean + noise * rng.standard_normal(n_samples)
    return (X, y, mean) if return_mean else (X, y)

"""The unpenalised intercept minimised out: its exact value for fixed coefficients.

With the coefficients fixed, the retained loss is a convex function of the
intercept ``b`` alone. Its minimiser has a closed form for the squared loss
(the mean residual) and the Poisson loss (``log sum y - log sum e^z``), and is
the root of ``sum_i sigmoid(z_i + b) = sum_i y_i`` for the logistic loss.
"""

from __future__ import annotations

import math

import numpy as np

from ..utils import asarray_like, to_numpy

__all__ = ["profiled_intercept", "with_profiled_intercept"]


def profiled_intercept(z, y, loss):
    """Exact minimiser over ``b`` of ``sum_i l(y_i | z_i + b)`` (host arrays).

    Parameters
    ----------
    z : ndarray of shape (n,)
        Linear predictor of the coefficients alone, on the rows kept (``n >= 1``).
    y : ndarray of shape (n,)
        Targets of those rows (0/1 for the logistic loss).
    loss : {"squared", "logistic", "poisson"}

    Returns
    -------
    float

    Raises
    ------
    ValueError
        When no minimiser exists: a single class left (logistic) or only zero
        counts (Poisson).

    Examples
    --------
    >>> import numpy as np
    >>> from statlearn.unlearning._intercept import profiled_intercept
    >>> profiled_intercept(np.array([0.0, 1.0]), np.array([1.0, 3.0]), "squared")
    1.5
    >>> round(profiled_intercept(np.zeros(4), np.array([0.0, 1.0, 1.0, 1.0]), "logistic"), 6)
    1.098612
    """
    from scipy.optimize import brentq
    from scipy.special import expit

    if loss == "squared":
        return float(np.mean(y - z))
    sy = float(y.sum())
    if loss == "poisson":
        if sy <= 0:
            raise ValueError("the rows still kept have only zero counts: the unpenalised "
                             "intercept has no minimiser (use fit_intercept=False).")
        zmax = float(z.max())
        return float(math.log(sy) - zmax - math.log(np.exp(z - zmax).sum()))
    n_keep = int(z.shape[0])
    if sy <= 0 or sy >= n_keep:
        raise ValueError("the rows still kept hold a single class: the unpenalised "
                         "intercept has no minimiser (use fit_intercept=False).")
    target = math.log(sy / (n_keep - sy))

    def excess(b):
        return float(np.sum(expit(z + b))) - sy

    lo, hi = target - float(z.max()) - 1.0, target - float(z.min()) + 1.0
    return float(brentq(excess, lo, hi, xtol=1e-15, rtol=4 * np.finfo(float).eps,
                        maxiter=500))


def with_profiled_intercept(theta, X, y, weights, loss):
    """``theta`` (coefficients, intercept last) with the exact intercept for its coefficients.

    ``X`` is the design with its intercept column last and ``y`` the encoded
    targets, on any array-API namespace; ``weights`` is the 0/1 host mask of
    the rows kept. With no row kept the intercept is 0. The result is on the
    namespace and device of ``X``.

    Examples
    --------
    >>> import numpy as np
    >>> from statlearn.unlearning._intercept import with_profiled_intercept
    >>> X = np.array([[0.0, 1.0], [1.0, 1.0], [2.0, 1.0]])
    >>> with_profiled_intercept(np.array([1.0, 9.0]), X, np.array([1.0, 2.0, 9.0]),
    ...                         np.array([1.0, 1.0, 0.0]), "squared")
    array([1., 1.])
    """
    w = np.asarray(weights, dtype=float)
    keep = w > 0
    if not keep.any():
        b0 = 0.0
    else:
        z = to_numpy(X[:, :-1] @ theta[:-1])[keep]
        b0 = profiled_intercept(z, to_numpy(y)[keep], loss)
    out = np.array(to_numpy(theta), dtype=np.float64, copy=True)
    out[-1] = b0
    return asarray_like(out, X, dtype=X.dtype)

"""Reading the training data: array-API design matrices and the GLM targets.

NumPy input goes through scikit-learn's ``validate_data`` in the estimator;
other array-API arrays (CuPy, array-api-strict, ...) are checked here on their
own namespace. The targets are read on the host and encoded for the loss.
"""

from __future__ import annotations

import numpy as np
from sklearn.utils.multiclass import check_classification_targets

from ..utils import to_numpy

__all__ = ["check_xp_design", "glm_targets", "host_targets"]


def check_xp_design(X, xp, n_features=None, owner="NewtonUnlearner"):
    """An array-API design matrix as float64: 2-D, at least one row and column, finite.

    ``n_features`` (when given) is the number of columns seen at ``fit``.

    Examples
    --------
    >>> import array_api_strict as xps
    >>> from statlearn.unlearning._inputs import check_xp_design
    >>> check_xp_design(xps.ones((2, 3)), xps).dtype
    array_api_strict.float64
    """
    if X.ndim != 2:
        raise ValueError(f"X must be 2-D, got {X.ndim} dimension(s).")
    if X.shape[0] < 1 or X.shape[1] < 1:
        raise ValueError(f"X must have at least one row and column, got {X.shape}.")
    X = xp.astype(X, xp.float64)
    if not bool(xp.all(xp.isfinite(X))):
        raise ValueError("X must not contain NaN or infinity.")
    if n_features is not None and X.shape[1] != n_features:
        raise ValueError(f"X has {X.shape[1]} features, but {owner} is "
                         f"expecting {n_features} features as input.")
    return X


def host_targets(y, n_rows):
    """The targets of an array-API fit on the host, one per row of the design.

    Examples
    --------
    >>> from statlearn.unlearning._inputs import host_targets
    >>> host_targets([0.5, 1.5], 2)
    array([0.5, 1.5])
    """
    y_host = to_numpy(y)
    if y_host.ndim != 1 or y_host.shape[0] != n_rows:
        raise ValueError(f"y must be 1-D with {n_rows} entries, got shape "
                         f"{y_host.shape}.")
    return y_host


def glm_targets(y_host, loss):
    """Float64 targets for ``loss`` and the class labels (``None`` unless logistic).

    The logistic loss needs exactly two classes; the second (in sorted order)
    becomes 1. The squared and Poisson losses need finite values, the Poisson
    loss non-negative ones.

    Examples
    --------
    >>> import numpy as np
    >>> from statlearn.unlearning._inputs import glm_targets
    >>> y01, classes = glm_targets(np.array(["no", "yes", "yes"]), "logistic")
    >>> y01, classes.tolist()
    (array([0., 1., 1.]), ['no', 'yes'])
    """
    if loss == "logistic":
        check_classification_targets(y_host)
        classes = np.unique(y_host)
        if classes.size != 2:
            raise ValueError(
                f"Only binary classification is supported: loss='logistic' needs exactly 2 "
                f"classes in y, got {classes.size} "
                f"class(es): {classes.tolist()[:5]}."
            )
        return (y_host == classes[1]).astype(np.float64), classes
    y01 = np.asarray(y_host, dtype=np.float64)
    if not np.all(np.isfinite(y01)):
        raise ValueError("y must be finite.")
    if loss == "poisson" and np.any(y01 < 0):
        raise ValueError("loss='poisson' needs non-negative y.")
    return y01, None

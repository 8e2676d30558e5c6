"""Array-likes at the entry points of statlearn.conformal."""

from __future__ import annotations

import numbers

import array_api_compat
import numpy as np
import scipy.sparse as sp

__all__ = ["fit_inputs", "float64_features", "host", "row_indexable", "same_rows"]


def host(a):
    """``a`` as an array: pandas objects and other array-likes become NumPy.

    Arrays of an array-API namespace (NumPy, CuPy, ...) are returned as they
    are, so GPU input stays on its device; ``None``, Python and NumPy scalars
    too. A pandas ``Series`` / ``DataFrame`` gives its values in row order:
    its index is never used to align it with another argument.

    Examples
    --------
    >>> import pandas as pd
    >>> from statlearn.conformal._core._arrays import host
    >>> host(pd.Series([0.2, 0.5], index=[10, 11])).tolist()
    [0.2, 0.5]
    """
    if a is None or isinstance(a, numbers.Number | str | bytes | np.generic):
        return a
    if isinstance(a, np.ndarray) or array_api_compat.is_array_api_obj(a):
        return a
    return np.asarray(a)


def float64_features(X):
    """A NumPy ``X`` of another numeric dtype (float32, ints) as float64.

    The wrappers hand ``X`` to the base estimator as given (a DataFrame keeps
    its column names for a pipeline, a sparse matrix stays sparse); only a
    NumPy array of numbers is widened, so that float32 features give the
    predictions of the same values in float64.

    Examples
    --------
    >>> import numpy as np
    >>> from statlearn.conformal._core._arrays import float64_features
    >>> float64_features(np.ones((2, 1), dtype=np.float32)).dtype
    dtype('float64')
    """
    if isinstance(X, np.ndarray) and X.dtype.kind in "iuf" and X.dtype != np.float64:
        return X.astype(np.float64)
    return X


def row_indexable(X):
    """``X`` in a form that row indexing accepts (CSR for sparse input).

    The wrappers split ``X`` into training and calibration rows (or folds)
    with scikit-learn's ``_safe_indexing``; a sparse matrix becomes CSR, an
    object without ``__getitem__`` a NumPy array, anything else is kept.

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> from statlearn.conformal._core._arrays import row_indexable
    >>> row_indexable(sp.coo_matrix([[1.0, 0.0], [0.0, 2.0]])).format
    'csr'
    """
    if sp.issparse(X):
        return X.tocsr()
    if not hasattr(X, "__getitem__"):
        return np.asarray(X)
    return X


def same_rows(n, y):
    """Raise unless ``y`` has the ``n`` rows of ``X``."""
    if n != y.shape[0]:
        raise ValueError(f"X and y must have the same number of rows, got X: {n}, "
                         f"y: {y.shape[0]}.")


def fit_inputs(estimator, X, y, check_y):
    """``(X, y, n)`` at a wrapper's ``fit``: float features (scikit-learn's
    ``validate_data`` records their count on ``estimator``), ``y`` read by
    ``check_y``, and the row count they share."""
    from sklearn.utils.validation import _num_samples, validate_data

    X = float64_features(X)
    validate_data(estimator, X, skip_check_array=True)
    y = check_y(y)
    n = _num_samples(X)
    same_rows(n, y)
    return X, y, n

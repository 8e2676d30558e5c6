"""Array-backend helpers: NumPy in gives NumPy out, CuPy in gives CuPy out."""

from __future__ import annotations

from typing import Any

import array_api_compat
import numpy as np
from array_api_compat import array_namespace, is_cupy_namespace, is_numpy_namespace

__all__ = [
    "asarray_like",
    "device",
    "get_namespace",
    "input_namespace",
    "is_cupy_namespace",
    "is_numpy_namespace",
    "to_numpy",
]


def get_namespace(*arrays: Any):
    """Return the array-API namespace shared by ``arrays``.

    ``None`` and Python scalars are ignored; lists, tuples, pandas objects and
    anything else that is not an array-API array but converts with
    :func:`numpy.asarray` count as NumPy. Mixing namespaces (e.g. NumPy and
    CuPy) raises ``TypeError``.

    Examples
    --------
    >>> import numpy as np
    >>> from statlearn.utils import get_namespace
    >>> get_namespace(np.zeros(3)).__name__
    'array_api_compat.numpy'
    >>> import pandas as pd
    >>> get_namespace(pd.Series([0.5, 0.5]), [1, 0]).__name__
    'array_api_compat.numpy'
    """
    arrs = [
        a if array_api_compat.is_array_api_obj(a) else np.asarray(a)
        for a in arrays
        if a is not None and not isinstance(a, bool | int | float | complex | str)
    ]
    if not arrs:
        return array_api_compat.numpy
    try:
        return array_namespace(*arrs)
    except TypeError as exc:
        raise TypeError(f"inputs must all come from one array library: {exc}") from exc


def input_namespace(X: Any):
    """Namespace an estimator computes in for the input ``X``, without converting it.

    An array-API array other than a NumPy array (CuPy, array-api-strict, ...)
    gives its own namespace; anything else (NumPy arrays, lists, pandas
    objects, malformed input) gives NumPy's, so that NumPy-side validation
    sees the input unchanged and reports its own errors. Unlike
    :func:`get_namespace` it never calls :func:`numpy.asarray`.

    Examples
    --------
    >>> import numpy as np
    >>> from statlearn.utils._array_api import input_namespace
    >>> input_namespace(np.zeros((2, 2))).__name__
    'array_api_compat.numpy'
    >>> input_namespace([[1.0, 2.0], [3.0]]).__name__  # ragged: left to the validation
    'array_api_compat.numpy'
    """
    import array_api_compat.numpy as np_xp

    if array_api_compat.is_array_api_obj(X) and not isinstance(X, np.ndarray):
        return get_namespace(X)
    return np_xp


def device(x: Any):
    """Device of the array ``x`` (``"cpu"`` for NumPy), to create arrays next to it.

    Examples
    --------
    >>> import numpy as np
    >>> from statlearn.utils._array_api import device
    >>> device(np.zeros(3))
    'cpu'
    """
    return array_api_compat.device(x)


def to_numpy(x: Any) -> np.ndarray:
    """Copy ``x`` to a host :class:`numpy.ndarray` (no copy for NumPy input).

    Examples
    --------
    >>> import numpy as np
    >>> from statlearn.utils import to_numpy
    >>> a = np.arange(3)
    >>> to_numpy(a) is a
    True
    """
    if isinstance(x, np.ndarray):
        return x
    if array_api_compat.is_cupy_array(x):
        return x.get()
    if array_api_compat.is_array_api_obj(x):
        try:
            return np.from_dlpack(x)
        except (TypeError, RuntimeError, BufferError, AttributeError):
            return np.asarray(x)
    return np.asarray(x)


def asarray_like(x: Any, like: Any, dtype=None):
    """Convert ``x`` to an array of ``like``'s namespace (and device).

    Examples
    --------
    >>> import numpy as np
    >>> from statlearn.utils import asarray_like
    >>> asarray_like([1.0, 2.0], np.zeros(1)).dtype
    dtype('float64')
    """
    xp = get_namespace(like)
    kwargs = {}
    if not is_numpy_namespace(xp):
        kwargs["device"] = array_api_compat.device(like)
    return xp.asarray(x, dtype=dtype, **kwargs)

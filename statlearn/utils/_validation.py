"""Input validation that names the offending argument.

Thin wrappers around scikit-learn's validation so that every error message a
user sees says which argument was wrong, what was received and what is
allowed. Nothing here clips, drops or silently converts data.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable
from typing import Any

import numpy as np
from sklearn.utils import check_array as _sk_check_array

from ._array_api import to_numpy
from ._kernels import BAD_SUM, NEGATIVE, NOT_FINITE, probability_rows_status

__all__ = [
    "check_alpha",
    "check_array",
    "check_consistent_length",
    "check_int",
    "check_option",
    "check_probabilities",
    "check_real",
]

_CLOSED = {"both", "neither", "left", "right"}
_RENORM = ("Rounded or single-precision probabilities miss by a little: renormalise "
           "with proba / proba.sum(axis=-1, keepdims=True).")


def _scalar(value):
    """A 0-d NumPy array as the NumPy scalar it holds (``np.asarray(0.5)`` is a number)."""
    if isinstance(value, np.ndarray) and value.ndim == 0:
        return value[()]
    return value


def _describe_interval(low, high, closed: str) -> str:
    left = "[" if closed in ("both", "left") else "("
    right = "]" if closed in ("both", "right") else ")"
    lo = "-inf" if low is None else repr(low)
    hi = "inf" if high is None else repr(high)
    return f"{left}{lo}, {hi}{right}"


def _check_bounds(value, name: str, low, high, closed: str) -> None:
    if closed not in _CLOSED:
        raise ValueError(f"closed must be one of {sorted(_CLOSED)}, got {closed!r}")
    bad = False
    if low is not None:
        bad |= value < low if closed in ("both", "left") else value <= low
    if high is not None:
        bad |= value > high if closed in ("both", "right") else value >= high
    if bad:
        raise ValueError(
            f"{name} must be in {_describe_interval(low, high, closed)}, got {value!r}."
        )


def check_real(
    value: Any,
    name: str,
    *,
    low: float | None = None,
    high: float | None = None,
    closed: str = "both",
    allow_inf: bool = False,
) -> float:
    """Validate a real scalar and return it as a Python ``float``.

    Parameters
    ----------
    value : object
        The value to check.
    name : str
        Name of the argument, used in error messages.
    low, high : float or None, default=None
        Bounds of the allowed interval; ``None`` means unbounded.
    closed : {"both", "neither", "left", "right"}, default="both"
        Which bounds are included.
    allow_inf : bool, default=False
        Whether ``inf``/``-inf`` are acceptable values.

    Returns
    -------
    float
        The validated value.

    Raises
    ------
    TypeError
        If ``value`` is not a real number (booleans are refused).
    ValueError
        If ``value`` is NaN, infinite (unless allowed) or out of bounds.

    Examples
    --------
    >>> from statlearn.utils import check_real
    >>> check_real(0.5, "lam", low=0)
    0.5
    >>> check_real(-1, "lam", low=0)
    Traceback (most recent call last):
    ...
    ValueError: lam must be in [0, inf], got -1.
    """
    value = _scalar(value)
    if isinstance(value, bool | np.bool_) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {type(value).__name__} {value!r}.")
    if math.isnan(value):
        raise ValueError(f"{name} must not be NaN.")
    if math.isinf(value) and not allow_inf:
        raise ValueError(f"{name} must be finite, got {value!r}.")
    _check_bounds(value, name, low, high, closed)
    return float(value)


def check_int(
    value: Any,
    name: str,
    *,
    low: int | None = None,
    high: int | None = None,
    closed: str = "both",
) -> int:
    """Validate an integer scalar and return it as a Python ``int``.

    Parameters
    ----------
    value : object
        The value to check; Python and NumPy integers are accepted, booleans
        and floats (even integral ones) are refused.
    name : str
        Name of the argument, used in error messages.
    low, high : int or None, default=None
        Bounds of the allowed interval.
    closed : {"both", "neither", "left", "right"}, default="both"
        Which bounds are included.

    Returns
    -------
    int

    Examples
    --------
    >>> from statlearn.utils import check_int
    >>> check_int(3, "n_reps", low=1)
    3
    >>> check_int(0, "n_reps", low=1)
    Traceback (most recent call last):
    ...
    ValueError: n_reps must be in [1, inf], got 0.
    """
    value = _scalar(value)
    if isinstance(value, bool | np.bool_) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer, got {type(value).__name__} {value!r}.")
    value = int(value)
    _check_bounds(value, name, low, high, closed)
    return value


def check_alpha(alpha: Any, name: str = "alpha") -> float:
    """Validate a miscoverage / error level strictly inside ``(0, 1)``.

    Examples
    --------
    >>> from statlearn.utils import check_alpha
    >>> check_alpha(0.1)
    0.1
    >>> check_alpha(1.0)
    Traceback (most recent call last):
    ...
    ValueError: alpha must be in (0, 1), got 1.0.
    >>> check_alpha(10)
    Traceback (most recent call last):
    ...
    ValueError: alpha must be in (0, 1), got 10. alpha is a fraction, not a percentage ...
    """
    alpha = _scalar(alpha)
    try:
        return check_real(alpha, name, low=0, high=1, closed="neither")
    except ValueError as exc:
        if isinstance(alpha, numbers.Real) and 1 < alpha < 100:
            hint = (f"{exc} {name} is a fraction, not a percentage ({float(alpha):g}% is "
                    f"{name}={float(alpha) / 100:g})")
            if name == "alpha":
                hint += "; the coverage is 1 - alpha (alpha=0.1 for 90% coverage)"
            raise ValueError(hint + ".") from None
        raise


def check_option(value: Any, name: str, options: Iterable[Any]) -> Any:
    """Check that ``value`` is one of ``options``.

    Examples
    --------
    >>> from statlearn.utils import check_option
    >>> check_option("lac", "score", ["lac", "aps"])
    'lac'
    >>> check_option("foo", "score", ["lac", "aps"])
    Traceback (most recent call last):
    ...
    ValueError: score must be one of ['lac', 'aps'], got 'foo'.
    >>> check_option("LAC", "score", ["lac", "aps"])
    Traceback (most recent call last):
    ...
    ValueError: score must be one of ['lac', 'aps'], got 'LAC'; did you mean 'lac'?
    """
    options = list(options)
    try:
        ok = value in options
    except TypeError:  # unhashable or incomparable
        ok = False
    if not ok:
        hint = ""
        if isinstance(value, str):
            import difflib

            names = [o for o in options if isinstance(o, str)]
            lower = {o.lower(): o for o in names}
            close = ([lower[value.lower()]] if value.lower() in lower
                     else difflib.get_close_matches(value, names, n=1, cutoff=0.75))
            if close:
                hint = f"; did you mean {close[0]!r}?"
        raise ValueError(f"{name} must be one of {options!r}, got {value!r}"
                         + (hint or "."))
    return value


def check_array(array: Any, name: str, **kwargs: Any) -> np.ndarray:
    """Validate an array like :func:`sklearn.utils.check_array`, naming it on error.

    Parameters
    ----------
    array : array-like
        Input to validate.
    name : str
        Name of the argument; every error message starts with it.
    **kwargs
        Passed to :func:`sklearn.utils.check_array` (``ensure_2d``,
        ``dtype``, ``ensure_all_finite``, ...).

    Returns
    -------
    numpy.ndarray

    Examples
    --------
    >>> import numpy as np
    >>> from statlearn.utils import check_array
    >>> check_array([[1.0, 2.0]], "X").shape
    (1, 2)
    >>> check_array([[1.0, np.nan]], "X")
    Traceback (most recent call last):
    ...
    ValueError: X: Input X contains NaN.
    """
    kwargs.setdefault("input_name", name)
    try:
        return _sk_check_array(array, **kwargs)
    except (ValueError, TypeError) as exc:
        raise type(exc)(f"{name}: {exc}") from exc


def user_frame(X: Any, X_checked: np.ndarray) -> Any:
    """The ``X`` to hand to a user's model: their own DataFrame, else the checked array.

    A wrapper validates ``X`` into a float array for its own arithmetic, but a
    model the user fitted on a DataFrame must receive a DataFrame: with its
    column names the model refuses columns renamed or reordered since its fit
    (scikit-learn's convention), where a bare array would be read by position
    and give silently wrong predictions. A copy is handed over, so that later
    edits of the user's frame cannot reach what the wrapper keeps.

    Parameters
    ----------
    X : array-like
        The input as the user passed it.
    X_checked : numpy.ndarray
        The same input after validation.

    Returns
    -------
    pandas.DataFrame or numpy.ndarray

    Examples
    --------
    >>> import numpy as np
    >>> import pandas as pd
    >>> from statlearn.utils._validation import user_frame
    >>> df = pd.DataFrame({"a": [1.0, 2.0], "b": [3.0, 4.0]})
    >>> list(user_frame(df, df.to_numpy()).columns)
    ['a', 'b']
    >>> type(user_frame(df.to_numpy(), df.to_numpy())).__name__
    'ndarray'
    """
    import pandas as pd

    if isinstance(X, pd.DataFrame):
        return X.copy()
    return X_checked


def check_consistent_length(**arrays: Any) -> int:
    """Check that named arrays share their first dimension and return it.

    Examples
    --------
    >>> import numpy as np
    >>> from statlearn.utils import check_consistent_length
    >>> check_consistent_length(X=np.zeros((3, 2)), y=np.zeros(3))
    3
    >>> check_consistent_length(X=np.zeros((3, 2)), y=np.zeros(4))
    Traceback (most recent call last):
    ...
    ValueError: X and y must have the same number of rows, got X: 3, y: 4.
    """
    lengths = {k: int(np.shape(v)[0]) for k, v in arrays.items() if v is not None}
    if len(set(lengths.values())) > 1:
        names = " and ".join(lengths)
        got = ", ".join(f"{k}: {v}" for k, v in lengths.items())
        raise ValueError(f"{names} must have the same number of rows, got {got}.")
    return next(iter(lengths.values())) if lengths else 0


def check_scored_target(X: Any, y: Any, name: str = "y") -> None:
    """Refuse a ``y`` handed to ``score(X, y)`` that the metric would reject without naming it.

    A numeric ``y`` must be finite, and ``X`` and ``y`` must have the same
    number of rows; other checks (label values, the metric's own) are left to
    the metric. scikit-learn's metrics report such input as "Input contains
    NaN" or "Found input variables with inconsistent numbers of samples",
    naming neither argument.

    Examples
    --------
    >>> import numpy as np
    >>> from statlearn.utils._validation import check_scored_target
    >>> check_scored_target(np.zeros((3, 2)), [0.5, 1.0, 2.0])
    >>> check_scored_target(np.zeros((3, 2)), [0.5, np.nan, 2.0])
    Traceback (most recent call last):
    ...
    ValueError: y must not contain NaN or infinite values.
    """
    y_arr = to_numpy(y)
    if y_arr.dtype.kind in "fc" and not np.isfinite(y_arr).all():
        raise ValueError(f"{name} must not contain NaN or infinite values.")
    if y_arr.ndim == 0:
        raise ValueError(f"{name} must hold one value per row of X, got a scalar.")
    if hasattr(X, "shape") or isinstance(X, list | tuple):
        check_consistent_length(X=X, **{name: y_arr})


def check_probabilities(
    proba: Any,
    name: str = "proba",
    *,
    atol: float = 1e-6,
    ndim: int = 2,
) -> Any:
    """Validate a probability vector (``ndim=1``) or matrix of row vectors (``ndim=2``).

    Entries must be finite and non-negative and each row must sum to one
    within ``atol``. Works with any array-API namespace (NumPy, CuPy, ...)
    and returns the input in its own namespace as floating point, unchanged
    otherwise (no renormalisation, no clipping).

    Parameters
    ----------
    proba : array-like of shape (n_samples, n_classes) or (n_classes,)
        Probabilities.
    name : str, default="proba"
        Argument name used in error messages.
    atol : float, default=1e-6
        Allowed absolute deviation of each row sum from one.
    ndim : {1, 2}, default=2
        Expected number of dimensions.

    Returns
    -------
    array
        ``proba`` as a floating array of the input's namespace.

    Examples
    --------
    >>> from statlearn.utils import check_probabilities
    >>> check_probabilities([[0.2, 0.8], [0.5, 0.5]]).shape
    (2, 2)
    >>> check_probabilities([[0.2, 0.7]])
    Traceback (most recent call last):
    ...
    ValueError: proba: every row must sum to 1 (atol=1e-06); row 0 sums to 0.9. ...
    """
    import array_api_compat

    from ._array_api import get_namespace

    if not array_api_compat.is_array_api_obj(proba):
        proba = np.asarray(proba)  # lists, pandas objects: read by position
    xp = get_namespace(proba)
    if proba.ndim != ndim:
        raise ValueError(f"{name} must be a {ndim}-D array, got shape {tuple(proba.shape)}.")
    if proba.shape[-1] < 1 or (ndim == 2 and proba.shape[0] < 1):
        raise ValueError(f"{name} must be non-empty, got shape {tuple(proba.shape)}.")
    if not xp.isdtype(proba.dtype, ("real floating", "integral")):
        raise TypeError(f"{name} must be a real numeric array, got dtype {proba.dtype}.")
    if not xp.isdtype(proba.dtype, "real floating"):
        proba = xp.astype(proba, xp.float64)
    if isinstance(proba, np.ndarray) and ndim == 2:
        # one fused pass (Numba) instead of three full-size temporaries
        _raise_for_status(*probability_rows_status(proba, float(atol)), name, atol)
        return proba
    if not bool(xp.all(xp.isfinite(proba))):
        raise ValueError(f"{name} must not contain NaN or infinite values.")
    if bool(xp.any(proba < 0)):
        raise ValueError(f"{name} must be non-negative; found a negative entry.")
    sums = xp.sum(proba, axis=-1)
    bad = xp.abs(sums - 1.0) > atol
    if bool(xp.any(bad)):
        if ndim == 1:
            raise ValueError(
                f"{name} must sum to 1 (atol={atol}); it sums to {float(sums):.6g}. {_RENORM}"
            )
        row = int(xp.argmax(xp.astype(bad, xp.int8)))
        raise ValueError(
            f"{name}: every row must sum to 1 (atol={atol}); "
            f"row {row} sums to {float(sums[row]):.6g}. {_RENORM}"
        )
    return proba


def _raise_for_status(status, row, row_sum, name, atol):
    """Turn the status of :func:`probability_rows_status` into the error message."""
    if status == NOT_FINITE:
        raise ValueError(f"{name} must not contain NaN or infinite values.")
    if status == NEGATIVE:
        raise ValueError(f"{name} must be non-negative; found a negative entry.")
    if status == BAD_SUM:
        raise ValueError(
            f"{name}: every row must sum to 1 (atol={atol}); row {row} sums to {row_sum:.6g}. "
            f"{_RENORM}"
        )

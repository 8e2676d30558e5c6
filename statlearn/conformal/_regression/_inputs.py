"""What the regression wrappers share: checks of levels, responses and model predictions;
the input tags of a wrapped model and the evaluation of intervals from refitted models."""

from __future__ import annotations

import numbers

import numpy as np
from sklearn.utils.validation import column_or_1d

from ...base import Level
from ...utils import check_alpha
from ...utils._validation import _scalar
from .._core._arrays import host

__all__ = []


def _check_alphas(alpha, name="alpha"):
    """``alpha`` as a tuple of levels in (0, 1) and whether it was a scalar."""
    alpha = _scalar(alpha)
    if isinstance(alpha, numbers.Real) and not isinstance(alpha, bool | np.bool_):
        return (check_alpha(alpha, name),), True
    if isinstance(alpha, str | bytes | dict) or not hasattr(alpha, "__len__"):
        raise TypeError(f"{name} must be a float in (0, 1) or a sequence of them, got "
                        f"{alpha!r}.")
    values = np.asarray(host(alpha), dtype=object)
    if values.ndim != 1:
        raise ValueError(f"{name} must be a float or a 1-D sequence of floats, got shape "
                         f"{values.shape}.")
    levels = tuple(check_alpha(a, name) for a in values)
    if not levels:
        raise ValueError(f"{name} must hold at least one level, got an empty sequence.")
    return levels, False


class _Levels(Level):
    """A level in ``(0, 1)`` or a non-empty 1-D sequence of levels (one interval each)."""

    def matches_type(self, value):
        value = _scalar(value)
        if isinstance(value, numbers.Real) and not isinstance(value, bool | np.bool_):
            return True
        return isinstance(value, list | tuple | np.ndarray) or hasattr(value, "__array__")

    def check(self, value, name):
        _check_alphas(value, name)
        return value

    def describe(self):
        return "a real in (0, 1) or a non-empty sequence of them"


def _check_target(y, name="y"):
    if type(y) is np.ndarray and y.ndim == 1 and y.dtype.kind in "biuf":
        y = y.astype(np.float64, copy=False)  # what column_or_1d would pass on, unchecked
        if not np.isfinite(y).all():
            raise ValueError(f"{name} must not contain NaN or infinite values.")
        return y
    y = column_or_1d(host(y), warn=True)
    if y.dtype.kind not in "biuf":
        try:
            y = y.astype(np.float64)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"{name} must hold real numbers, got dtype {y.dtype}.") from exc
    y = y.astype(np.float64, copy=False)
    if not np.all(np.isfinite(y)):
        raise ValueError(f"{name} must not contain NaN or infinite values.")
    return y


def _check_predictions(values, n, name):
    v = np.asarray(values, dtype=np.float64)
    if v.ndim == 2 and v.shape[1] == 1:
        v = v[:, 0]
    if v.shape != (n,):
        raise ValueError(f"{name} must return shape ({n},), got {v.shape}.")
    if not np.all(np.isfinite(v)):
        raise ValueError(f"{name} returned NaN or infinite values.")
    return v


class _WrappedModelTags:
    """Input tags of the wrapped ``estimator`` (a linear regression when it is None)."""

    def __sklearn_tags__(self):
        from sklearn.linear_model import LinearRegression
        from sklearn.utils import get_tags

        tags = super().__sklearn_tags__()
        inner = self.estimator if self.estimator is not None else LinearRegression()
        tags.input_tags = get_tags(inner).input_tags
        return tags


class _ResampledIntervalsEvaluation(_WrappedModelTags):
    """``evaluate`` for the wrappers whose intervals come from refitted models."""

    def evaluate(self, X, y, bins=None, n_bins=10):
        """Coverage and width of the intervals on labelled data.

        Parameters
        ----------
        X : array-like
            Features.
        y : array-like of shape (n_samples,)
            True responses.
        bins : array-like of shape (n_samples,), optional
            Values for conditional coverage (default: the point prediction).
        n_bins : int, default=10
            Number of quantile bins.

        Returns
        -------
        PredictionIntervalResult
        """
        from ._interval_metrics import evaluate_intervals

        self._check_fitted()
        y = _check_target(y)
        iv = self.predict_interval(X)
        if iv.ndim == 2:
            iv = iv[:, :, None]
        if bins is None:
            bins = self.predict(X)
        return evaluate_intervals(iv, y, self.alpha_, bins=bins, n_bins=n_bins)

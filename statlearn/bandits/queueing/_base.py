"""Plain-parameter objects: ``get_params`` / ``set_params`` / ``repr`` without sklearn's base.

The environment and the policies are sequential decision objects, not
estimators fitted to a data set, so they do not derive from
:class:`sklearn.base.BaseEstimator` (whose checks assume ``fit``/``predict``).
They still keep scikit-learn's habits: ``__init__`` only stores its keyword
arguments, validation happens when the object is used, and
:func:`sklearn.base.clone` works through ``get_params``.
"""

from __future__ import annotations

import inspect

import numpy as np

from statlearn.utils._results import _short

__all__ = ["ParamsMixin", "UnstableQueueWarning"]


class UnstableQueueWarning(UserWarning):
    """The arrival rate is not below the service rates: the queue may grow without bound.

    Examples
    --------
    >>> from statlearn.bandits.queueing import UnstableQueueWarning
    >>> issubclass(UnstableQueueWarning, UserWarning)
    True
    """


class ParamsMixin:
    """``get_params``/``set_params`` read from the ``__init__`` signature."""

    @classmethod
    def _param_names(cls):
        sig = inspect.signature(cls.__init__)
        return [p.name for p in sig.parameters.values()
                if p.name != "self" and p.kind != p.VAR_KEYWORD]

    def get_params(self, deep=True):
        """Constructor arguments as a dict (``deep`` is accepted for sklearn compatibility)."""
        return {name: getattr(self, name) for name in self._param_names()}

    def set_params(self, **params):
        """Set constructor arguments; unknown names raise ``ValueError``."""
        valid = self._param_names()
        for key, value in params.items():
            if key not in valid:
                raise ValueError(
                    f"Invalid parameter {key!r} for {type(self).__name__}; valid parameters "
                    f"are {valid}."
                )
            setattr(self, key, value)
        return self

    def __repr__(self):
        sig = inspect.signature(type(self).__init__)
        parts = []
        for name in self._param_names():
            value = getattr(self, name)
            default = sig.parameters[name].default
            if isinstance(value, np.ndarray) or not _same(value, default):
                parts.append(f"{name}={_short(value)}")
        return f"{type(self).__name__}({', '.join(parts)})"


def _same(a, b):
    try:
        return bool(a == b) and type(a) is type(b)
    except (TypeError, ValueError):
        return False

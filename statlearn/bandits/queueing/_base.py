"""The warning of the queueing area (its parameter handling is :class:`statlearn.base.ParamsMixin`).

The environment and the policies are sequential decision objects, not
estimators fitted to a data set, so they do not derive from
:class:`sklearn.base.BaseEstimator` (whose checks assume ``fit``/``predict``).
They keep scikit-learn's habits through :class:`statlearn.base.ParamsMixin`:
``__init__`` only stores its keyword arguments, the parameters are checked
against the class's ``_parameter_constraints`` when the object is used, and
:func:`sklearn.base.clone` works through ``get_params``.
"""

from __future__ import annotations

__all__ = ["UnstableQueueWarning"]


class UnstableQueueWarning(UserWarning):
    """The arrival rate is not below the service rates: the queue may grow without bound.

    Examples
    --------
    >>> from statlearn.bandits.queueing import UnstableQueueWarning
    >>> issubclass(UnstableQueueWarning, UserWarning)
    True
    """

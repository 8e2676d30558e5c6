"""Find the public estimators, functions and result classes of statlearn."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

__all__ = ["all_estimators"]

_SKIP = {"tests", "studies", "cli", "utils", "simulation", "plotting", "__main__"}


def _public_modules():
    import statlearn

    for info in pkgutil.walk_packages(statlearn.__path__, prefix="statlearn."):
        parts = info.name.split(".")
        if any(p.startswith("_") for p in parts[1:]) or parts[1] in _SKIP:
            continue
        yield importlib.import_module(info.name)


def all_estimators():
    """List ``(name, class)`` of every public scikit-learn-style estimator in statlearn.

    A class counts when it derives from :class:`sklearn.base.BaseEstimator`, is
    defined inside statlearn, is exported by a public subpackage and is not
    abstract. Sorted by name.

    Returns
    -------
    list of tuple of (str, type)

    Examples
    --------
    >>> from statlearn.utils.discovery import all_estimators
    >>> isinstance(all_estimators(), list)
    True
    """
    from sklearn.base import BaseEstimator

    found = {}
    for module in _public_modules():
        for name, obj in inspect.getmembers(module, inspect.isclass):
            if (
                issubclass(obj, BaseEstimator)
                and obj.__module__.startswith("statlearn.")
                and not name.startswith("_")
                and not inspect.isabstract(obj)
            ):
                found[name] = obj
    return sorted(found.items())

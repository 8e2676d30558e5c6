"""Find the public estimators, functions and result classes of statlearn."""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import pkgutil

__all__ = ["all_estimators", "all_functions", "all_public_classes"]

_SKIP = {"tests", "studies", "cli", "utils", "simulation", "plotting", "base", "__main__"}

#: public modules that need an optional dependency: left out when it is missing
_OPTIONAL = {"statlearn.testing.strategies": "hypothesis"}


def _public_modules():
    import statlearn

    for info in pkgutil.walk_packages(statlearn.__path__, prefix="statlearn."):
        parts = info.name.split(".")
        if any(p.startswith("_") for p in parts[1:]) or parts[1] in _SKIP:
            continue
        needs = _OPTIONAL.get(info.name)
        if needs is not None and importlib.util.find_spec(needs) is None:
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


def _exported(module):
    names = getattr(module, "__all__", None)
    if names is None:
        names = [n for n in vars(module) if not n.startswith("_")]
    for name in names:
        obj = getattr(module, name, None)
        if obj is not None and getattr(obj, "__module__", "").startswith("statlearn."):
            yield obj


def all_functions():
    """Every public function that an area or :mod:`statlearn.datasets` exports.

    A function counts when a public module lists it in ``__all__`` and it is
    defined inside statlearn. Sorted by qualified name, each once.

    Returns
    -------
    list of callable

    Examples
    --------
    >>> from statlearn.utils.discovery import all_functions
    >>> "lac_scores" in {f.__name__ for f in all_functions()}
    True
    """
    found = {}
    for module in _public_modules():
        for obj in _exported(module):
            if inspect.isfunction(obj):
                found[f"{obj.__module__}.{obj.__qualname__}"] = obj
    return [found[k] for k in sorted(found)]


def all_public_classes():
    """Every public estimator or decision object (a class with ``get_params``).

    scikit-learn estimators and the :class:`statlearn.base.ParamsMixin`
    classes (environments, policies, bandit agents, the clustering oracle)
    that a public module exports; result containers and warnings are not
    included. Sorted by qualified name.

    Returns
    -------
    list of type

    Examples
    --------
    >>> from statlearn.utils.discovery import all_public_classes
    >>> "SplitConformalClassifier" in {c.__name__ for c in all_public_classes()}
    True
    """
    found = {}
    for module in _public_modules():
        for obj in _exported(module):
            if inspect.isclass(obj) and hasattr(obj, "get_params") \
                    and not inspect.isabstract(obj):
                found[f"{obj.__module__}.{obj.__qualname__}"] = obj
    return [found[k] for k in sorted(found)]

"""scikit-learn's estimator checks over every public statlearn estimator.

Estimators are found by :func:`statlearn.utils.discovery.all_estimators`. A
class whose constructor needs arguments provides instances through a
classmethod ``_statlearn_test_instances()``; known, justified deviations from
the scikit-learn contract are listed by a classmethod
``_statlearn_expected_failed_checks()`` returning ``{check_name: reason}``.
"""

from __future__ import annotations

import inspect
import pickle
import warnings

import pytest
from sklearn.base import clone
from sklearn.utils.estimator_checks import (
    check_dataframe_column_names_consistency,
    parametrize_with_checks,
)

from statlearn.utils.discovery import all_estimators


def _instances():
    out = []
    for _, cls in all_estimators():
        make = getattr(cls, "_statlearn_test_instances", None)
        out.extend(make() if make is not None else [cls()])
    return out


def _expected_failed(est):
    get = getattr(type(est), "_statlearn_expected_failed_checks", None)
    return get() if get is not None else {}


INSTANCES = _instances()


@parametrize_with_checks(INSTANCES, expected_failed_checks=_expected_failed)
def test_sklearn_compatible_estimator(estimator, check):
    check(estimator)


@pytest.mark.parametrize("estimator", INSTANCES, ids=lambda e: type(e).__name__)
def test_clone_and_pickle(estimator):
    cloned = clone(estimator)
    assert cloned.get_params().keys() == estimator.get_params().keys()
    restored = pickle.loads(pickle.dumps(cloned))
    assert type(restored) is type(estimator)


def test_discovery_finds_only_statlearn_classes():
    for name, cls in all_estimators():
        assert cls.__module__.startswith("statlearn."), name


def _fits_x_y(est):
    """``fit(X, y, ...)``: the signature scikit-learn's checks call (the HTE estimators
    take ``(X, treatment, y)``; the contract suite covers their column names)."""
    return list(inspect.signature(type(est).fit).parameters)[1:3] == ["X", "y"]


@pytest.mark.parametrize("estimator", [e for e in INSTANCES if _fits_x_y(e)],
                         ids=lambda e: type(e).__name__)
def test_dataframe_column_names_are_recorded_and_checked(estimator):
    # scikit-learn's own check, which parametrize_with_checks does not yield: a fit on a
    # DataFrame records feature_names_in_, and renamed or reordered columns at an output
    # method raise instead of being read by position
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_dataframe_column_names_consistency(type(estimator).__name__, clone(estimator))

"""The base layer: parameter constraints, the fit record and stale fits."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin, clone
from sklearn.exceptions import NotFittedError
from sklearn.linear_model import Ridge
from sklearn.utils.validation import check_is_fitted

from statlearn.base import (
    Bool,
    FitStateMixin,
    HasMethods,
    Integral,
    Level,
    Options,
    ParamsMixin,
    Real,
    StaleFitError,
    TargetCheckedScoreMixin,
    validate_params,
)


class Toy(FitStateMixin, BaseEstimator):
    _parameter_constraints = {
        "alpha": [Level()],
        "k": [Integral(1)],
        "mode": [Options(["a", "b"])],
        "flag": [Bool()],
        "model": [None, HasMethods("fit", "predict")],
        "grid": [None, "array-like"],
        "n_jobs": [None, Integral()],
        "random_state": ["random_state"],
        "fn": [None, "callable"],
    }
    _output_free_params = ("n_jobs",)

    def __init__(self, alpha=0.1, k=2, mode="a", flag=False, model=None, grid=None, n_jobs=None,
                 random_state=None, fn=None):
        self.alpha, self.k, self.mode, self.flag = alpha, k, mode, flag
        self.model, self.grid, self.n_jobs = model, grid, n_jobs
        self.random_state, self.fn = random_state, fn

    def fit(self, X, y=None):
        if np.any(np.asarray(X) < 0):
            raise ValueError("X must be non-negative.")
        self.offset_ = self.alpha * self.k
        return self

    def predict(self, X):
        self._check_fitted()
        return np.asarray(X, dtype=float) + self.offset_


X = np.arange(4.0)


@pytest.mark.parametrize("name, value, exc, pattern", [
    ("alpha", 2.0, ValueError, r"^Toy parameter alpha must be in \(0, 1\), got 2\.0"),
    ("alpha", 10, ValueError, r"alpha is a fraction, not a percentage"),
    ("alpha", "0.1", TypeError, r"^Toy parameter alpha must be a real in \(0, 1\), got str"),
    ("k", 0, ValueError, r"^Toy parameter k must be in \[1, inf\], got 0"),
    ("k", 2.0, TypeError, r"^Toy parameter k must be an int in \[1, inf\], got float"),
    ("mode", "c", ValueError, r"^Toy parameter mode must be one of \['a', 'b'\], got 'c'"),
    ("mode", "A", ValueError, r"did you mean 'a'\?"),
    ("flag", 1, TypeError, r"^Toy parameter flag must be a bool, got int 1"),
    ("model", "ridge", TypeError, r"model must be None or an object with fit and predict"),
    ("random_state", -1, ValueError, r"random_state must be a non-negative int, got -1"),
    ("random_state", 1.5, TypeError, r"random_state must be None, a non-negative int"),
    ("fn", 3, TypeError, r"fn must be None or a callable, got int 3"),
])
def test_constraints_are_checked_at_fit_and_name_class_parameter_and_value(name, value, exc,
                                                                           pattern):
    with pytest.raises(exc, match=pattern):
        Toy(**{name: value}).fit(X)


def test_valid_values_of_every_kind_pass():
    for kw in ({"alpha": np.float32(0.2)}, {"alpha": np.asarray(0.2)}, {"k": np.int64(3)},
               {"k": np.asarray(3)}, {"flag": np.bool_(True)}, {"model": Ridge()},
               {"grid": [1, 2]}, {"random_state": np.random.default_rng(0)},
               {"random_state": np.random.RandomState(0)}, {"fn": len}, {"n_jobs": 2}):
        Toy(**kw).fit(X)


def test_a_constraint_naming_no_parameter_is_a_programming_error():
    class Bad(Toy):
        _parameter_constraints = {**Toy._parameter_constraints, "beta": [Real()]}

    with pytest.raises(RuntimeError, match="names 'beta'"):
        Bad().fit(X)


def test_outputs_after_set_params_raise_until_the_next_fit():
    est = Toy().fit(X)
    before = est.predict(X)
    est.set_params(alpha=0.3)
    with pytest.raises(StaleFitError, match=r"alpha changed since fit \(fit with 0\.1, now 0\.3"
                                            r"\): call fit again before predict"):
        est.predict(X)
    assert isinstance(StaleFitError(), NotFittedError)
    est.set_params(alpha=0.1)  # set back: the fit is current again
    np.testing.assert_array_equal(est.predict(X), before)
    est.set_params(alpha=0.3).fit(X)
    np.testing.assert_allclose(est.predict(X), X + 0.6)


def test_output_free_parameters_may_change_after_fit():
    est = Toy().fit(X)
    est.set_params(n_jobs=4)
    est.predict(X)


def test_in_place_edits_and_nested_parameters_are_seen():
    est = Toy(grid=[1.0, 2.0]).fit(X)
    est.grid.append(3.0)
    with pytest.raises(StaleFitError, match="grid changed"):
        est.predict(X)
    arr = np.array([1.0, 2.0])
    est = Toy(grid=arr).fit(X)
    arr[0] = 5.0
    with pytest.raises(StaleFitError, match="grid changed"):
        est.predict(X)
    est = Toy(model=Ridge(alpha=1.0)).fit(X)
    est.set_params(model__alpha=2.0)
    with pytest.raises(StaleFitError, match="model__alpha changed"):
        est.predict(X)
    est = Toy(model=Ridge()).fit(X)
    est.set_params(model=Ridge())  # another object, even if equal
    with pytest.raises(StaleFitError, match="model changed"):
        est.predict(X)


def test_a_failed_fit_leaves_the_estimator_unfitted():
    est = Toy().fit(X)
    with pytest.raises(ValueError, match="non-negative"):
        est.fit(-X)
    with pytest.raises(NotFittedError, match="not fitted yet"):
        est.predict(X)
    with pytest.raises(NotFittedError):
        check_is_fitted(est)


def test_the_fit_record_survives_pickling_copying_and_is_not_cloned():
    est = Toy(model=Ridge(), random_state=np.random.default_rng(0)).fit(X)
    for copied in (pickle.loads(pickle.dumps(est)), copy.deepcopy(est)):
        np.testing.assert_array_equal(copied.predict(X), est.predict(X))
    with pytest.raises(NotFittedError):
        clone(est).predict(X)
    check_is_fitted(est)


def test_a_subclass_calling_super_fit_records_once():
    class Child(Toy):
        def fit(self, X, y=None):
            super().fit(X)
            self.extra_ = 1
            return self

    est = Child().fit(X)
    est.predict(X)
    est.set_params(k=5)
    with pytest.raises(StaleFitError):
        est.predict(X)


def test_params_mixin_get_set_repr_and_clone():
    class Agent(ParamsMixin):
        _parameter_constraints = {"c": [Real(0, None, closed="neither")], "inner": [None, Ridge]}

        def __init__(self, c=1.0, inner=None):
            self.c, self.inner = c, inner

    a = Agent(c=0.5, inner=Ridge(alpha=3.0))
    assert a.get_params()["inner__alpha"] == 3.0
    assert repr(Agent(c=0.5)) == "Agent(c=0.5)"
    b = clone(a)
    assert b.c == 0.5 and b.inner is not a.inner and b.inner.alpha == 3.0
    a.set_params(inner__alpha=1.0)
    assert a.inner.alpha == 1.0
    with pytest.raises(ValueError, match=r"invalid parameter 'd' for Agent"):
        a.set_params(d=1)
    validate_params(a)
    with pytest.raises(ValueError, match=r"^Agent parameter c must be in \(0, inf\), got 0"):
        validate_params(Agent(c=0))


# ---------------------------------------------------------------- parameter names, read once
def _signature_names(cls):
    import inspect

    return sorted(p for p in inspect.signature(cls.__init__).parameters if p != "self")


def test_parameter_names_are_read_once_per_class_and_subclasses_get_their_own(monkeypatch):
    import inspect

    import statlearn.base as base

    class Parent(FitStateMixin, BaseEstimator):
        def __init__(self, a=1, b=2):
            self.a, self.b = a, b

        def fit(self, X, y=None):
            self.fitted_ = True
            return self

    class Child(Parent):  # other parameters than its parent
        def __init__(self, a=1, c=3, d=4):
            super().__init__(a=a)
            self.c, self.d = c, d

    class Plain(ParamsMixin):
        def __init__(self, x=0.0, *args, **kwargs):
            self.x = x

    reads = []
    real = inspect.signature

    def counting(obj, *args, **kwargs):
        reads.append(getattr(obj, "__qualname__", obj))
        return real(obj, *args, **kwargs)

    monkeypatch.setattr(inspect, "signature", counting)
    for cls, want in ((Parent, ["a", "b"]), (Child, ["a", "c", "d"]), (Plain, ["x"])):
        for _ in range(3):
            assert sorted(cls._get_param_names()) == want
        assert sorted(cls().get_params()) == want
    # one signature read per class, however many calls (scikit-learn reads it every time)
    assert len(reads) == 3, reads
    names = Child._get_param_names()
    names.append("e")  # a copy: editing it cannot reach the cache
    assert "e" not in Child._get_param_names()
    assert base._PARAM_NAMES[Child] == ("a", "c", "d")
    assert base._PARAM_NAMES[Parent] == ("a", "b")


def test_set_params_clone_and_repr_read_the_cached_names():
    class Est(FitStateMixin, BaseEstimator):
        def __init__(self, alpha=0.1, inner=None):
            self.alpha, self.inner = alpha, inner

        def fit(self, X, y=None):
            self.done_ = True
            return self

    class Wider(Est):
        def __init__(self, alpha=0.1, inner=None, beta=2.0):
            super().__init__(alpha=alpha, inner=inner)
            self.beta = beta

    est = Est(alpha=0.3, inner=Ridge(alpha=2.0))
    est.get_params()
    est.set_params(alpha=0.2, inner__alpha=5.0)
    assert est.alpha == 0.2 and est.inner.alpha == 5.0
    with pytest.raises(ValueError, match="beta"):  # not a parameter of Est
        est.set_params(beta=1.0)
    twin = clone(est)
    assert type(twin) is Est and twin.alpha == 0.2 and twin.inner.alpha == 5.0
    assert twin.inner is not est.inner
    wide = clone(Wider(beta=7.0))
    assert wide.get_params(deep=False) == {"alpha": 0.1, "inner": None, "beta": 7.0}
    assert repr(Wider(beta=7.0)) == "Wider(beta=7.0)"
    fitted = Wider().fit(X)
    fitted.set_params(beta=1.0)  # a parameter only the subclass has: the stale check sees it
    with pytest.raises(StaleFitError, match="beta"):
        fitted._check_fitted("predict")


@pytest.mark.parametrize("module, name", [
    ("statlearn.conformal", "SplitConformalRegressor"),
    ("statlearn.conformal", "SplitConformalClassifier"),
    ("statlearn.hte", "RelativeErrorEvaluator"),
    ("statlearn.cluster", "SpectralClusteringOracle"),
])
def test_the_library_estimators_names_are_their_signatures(module, name):
    import importlib

    cls = getattr(importlib.import_module(module), name)
    assert sorted(cls._get_param_names()) == _signature_names(cls)


def test_deep_params_equal_scikit_learns_own_at_every_depth():
    # param_record reads nested plain scikit-learn estimators' names from a per-class
    # cache; it must give exactly what get_params(deep=True) gives, overriding
    # classes (Pipeline) included, values compared by identity
    from sklearn.linear_model import LogisticRegression, Ridge
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    from statlearn.base import _deep_params, check_param_record, param_record
    from statlearn.conformal import CrossConformalRegressor, SplitConformalClassifier

    objs = [Ridge(alpha=3.0),
            make_pipeline(StandardScaler(), Ridge(alpha=2.0)),
            CrossConformalRegressor(make_pipeline(StandardScaler(), Ridge()), cv=4),
            SplitConformalClassifier(LogisticRegression(C=0.5), alpha=0.2)]
    for obj in objs:
        ours, theirs = _deep_params(obj), obj.get_params(deep=True)
        assert list(ours) == list(theirs)
        assert all(ours[k] is theirs[k] for k in theirs)
    # a nested change after the record is still seen
    est = objs[2]
    record = param_record(est)
    est.set_params(estimator__ridge__alpha=5.0)
    with pytest.raises(StaleFitError, match="estimator__ridge__alpha"):
        check_param_record(est, record, "predict")


# ----------------------------------------------------------------------- score(X, y)
def _inherited_score_classes():
    from statlearn.utils.discovery import all_estimators

    return [(name, cls) for name, cls in all_estimators()
            if issubclass(cls, RegressorMixin | ClassifierMixin)]


def test_every_score_taken_from_scikit_learn_checks_y_first():
    # scikit-learn's metrics refuse NaN in y or a y of the wrong length without naming y:
    # every estimator that takes score from its mixins lists TargetCheckedScoreMixin first
    classes = _inherited_score_classes()
    assert len(classes) >= 8
    for name, cls in classes:
        assert cls.score is TargetCheckedScoreMixin.score, name
        mro = cls.__mro__
        mixin = RegressorMixin if issubclass(cls, RegressorMixin) else ClassifierMixin
        assert mro.index(TargetCheckedScoreMixin) < mro.index(mixin), name


class _Mean(FitStateMixin, RegressorMixin, BaseEstimator):
    def fit(self, X, y):
        self.mean_ = float(np.mean(y))
        return self

    def predict(self, X):
        return np.full(np.shape(X)[0], self.mean_)


class _CheckedMean(FitStateMixin, TargetCheckedScoreMixin, RegressorMixin, BaseEstimator):
    fit, predict = _Mean.fit, _Mean.predict


def test_the_checked_score_names_y_and_gives_the_mixins_value():
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(20, 2)), rng.normal(size=20)
    plain, checked = _Mean().fit(X, y), _CheckedMean().fit(X, y)
    assert checked.score(X, y + 1.0) == plain.score(X, y + 1.0)
    w = rng.random(20)
    assert checked.score(X, y, sample_weight=w) == plain.score(X, y, sample_weight=w)
    bad = y.copy()
    bad[3] = np.nan
    with pytest.raises(ValueError, match="Input contains NaN"):
        plain.score(X, bad)  # what the metric alone says
    for value in (np.nan, np.inf):
        bad[3] = value
        with pytest.raises(ValueError, match=r"^y .*NaN or infinite"):
            checked.score(X, bad)
    with pytest.raises(ValueError, match=r"X and y .*X: 20, y: 19"):
        checked.score(X, y[:19])
    with pytest.raises(ValueError, match=r"^y .*one value per row"):
        checked.score(X, 1.0)

"""statlearn's own contracts, over every public function and estimator.

scikit-learn's estimator checks (``tests/test_common.py``) hold the
scikit-learn API. These hold what statlearn promises beside it, for every
public function and estimator of the areas, found by discovery (a new one
without a case fails :func:`test_every_public_function_has_a_case`):

* array-likes: lists, NumPy arrays of other dtypes (integers, float32 read as
  float64), pandas Series / DataFrames with a non-default index and string
  column names give the result of the NumPy call; NumPy scalars and 0-d arrays
  are numbers;
* bad values: NaN or inf in an array raises an error that names the argument;
  rows that must pair up but do not raise too;
* the caller's data: no call writes into the arrays, lists or pandas objects it
  is given (``fit`` and every output method included), nor changes whether
  an array is writeable, and using a decision object leaves its parameters as
  they were given;
* ``random_state``: None, an int, a ``RandomState`` and a ``Generator`` are
  accepted, and the same seed gives the same result;
* estimators: the same for ``fit`` and for every output method; constraints
  declared for every parameter and checked at ``fit``; ``set_params`` after
  ``fit`` never changes an output (it raises ``StaleFitError`` until the next
  ``fit``), and a parameter declared output-free (``n_jobs``, ``progress``, ...)
  gives the same outputs when the fit runs with another value; an output read
  twice gives the same answer; clone and pickling keep the outputs; a
  ``Pipeline``, ``cross_val_score`` and ``GridSearchCV`` work wherever ``fit``
  takes ``(X, y)`` and a ``predict`` or ``score`` exists.

The cases (one valid call each) are in ``tests/contracts/cases_*.py``.
"""

from __future__ import annotations

import copy
import importlib
import inspect
import numbers
import pickle
import warnings
from functools import partial

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone

from statlearn.base import StaleFitError, _make_constraint, param_record
from statlearn.utils.discovery import all_estimators, all_functions, all_public_classes
from tests.contracts._framework import (
    array_args,
    as_list,
    as_pandas,
    assert_same,
    float_arrays,
    names_argument,
    numeric_scalars,
    plant,
)

AREAS = ["conformal", "hte", "calibration", "bandits", "cluster", "unlearning", "datasets",
         "testing"]

FUNCTIONS, ESTIMATORS, OBJECTS, NOT_APPLICABLE = [], [], [], {}
for _area in AREAS:
    _mod = importlib.import_module(f"tests.contracts.cases_{_area}")
    FUNCTIONS += _mod.FUNCTIONS
    ESTIMATORS += getattr(_mod, "ESTIMATORS", [])
    OBJECTS += getattr(_mod, "OBJECTS", [])
    NOT_APPLICABLE.update(getattr(_mod, "NOT_APPLICABLE", {}))


def _qualname(obj):
    return f"{obj.__module__}.{obj.__qualname__}"


# ----------------------------------------------------------------------- coverage
def test_every_public_function_has_a_case():
    covered = {_qualname(c.func) for c in FUNCTIONS}
    missing = sorted(name for name in map(_qualname, all_functions())
                     if name not in covered and name not in NOT_APPLICABLE)
    assert not missing, f"public functions without a contract case: {missing}"


def test_every_public_class_has_a_case():
    covered = {_qualname(c.cls) for c in (*ESTIMATORS, *OBJECTS)}
    missing = sorted(name for name in map(_qualname, all_public_classes())
                     if name not in covered and name not in NOT_APPLICABLE)
    assert not missing, f"public estimators without a contract case: {missing}"


def test_not_applicable_entries_exist_and_say_why():
    public = {_qualname(o) for o in (*all_functions(), *all_public_classes())}
    for name, reason in NOT_APPLICABLE.items():
        assert name in public, f"{name} is listed as not applicable but is not public"
        assert len(reason) > 20, f"{name}: give the reason"


# ----------------------------------------------------------------------- helpers
def _params(cases, contracts):
    out = []
    for case in cases:
        for contract in contracts:
            marks = []
            reason = case.expected_failures.get(contract.__name__)
            if reason is not None:
                marks.append(pytest.mark.xfail(reason=reason, strict=True))
            out.append(pytest.param(case, contract, marks=marks,
                                    id=f"{case.name}-{contract.__name__}"))
    return out


def _outcome(call):
    """``("ok", result)`` or ``("error", exception type)`` of a call, warnings kept quiet."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return "ok", call()
        except Exception as exc:
            return "error", exc


def _same_outcome(ref, got, what, rtol=0.0):
    assert ref[0] == "ok", f"the plain call failed: {ref[1]!r}"
    if got[0] == "error":
        raise AssertionError(f"{what}: raised {type(got[1]).__name__}: {got[1]}")
    assert_same(ref[1], got[1], what, rtol)


# An estimator passes X on to the scikit-learn model it wraps as given (a DataFrame keeps
# its column names for a Pipeline); a DataFrame is column-major, so BLAS may sum in another
# order there: outputs of X given as pandas or a list may differ by a few ulps, not more.
LAYOUT_RTOL = 1e-12


def _quiet(call):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return call()


def _refuses(call, name, what):
    """The call raises a ValueError / TypeError whose message names ``name``."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            call()
        except (ValueError, TypeError) as exc:
            assert names_argument(exc, name), (
                f"{what}: the error does not name {name!r}: {type(exc).__name__}: {exc}")
            return
    raise AssertionError(f"{what}: accepted without an error")


# ----------------------------------------------------------------------- function contracts
def lists(case):
    ref = _outcome(case.call)
    for name in array_args(case.make()):
        kwargs = case.make()
        kwargs[name] = as_list(kwargs[name])
        _same_outcome(ref, _outcome(partial(case.call, kwargs)), f"{name} as a list")


def pandas_objects(case):
    ref = _outcome(case.call)
    for name in array_args(case.make()):
        kwargs = case.make()
        converted = as_pandas(kwargs[name])
        if converted is None:
            continue
        kwargs[name] = converted
        _same_outcome(ref, _outcome(partial(case.call, kwargs)), f"{name} as pandas",
                      LAYOUT_RTOL)


def other_dtypes(case):
    base = case.make()
    for name in array_args(base):
        a = base[name]
        if a.dtype.kind in "iu":
            variants = [a.astype(np.int32), a.astype(np.int64)]
            if a.min() >= 0 and a.max() <= 255:
                variants.append(a.astype(np.uint8))
            ref = _outcome(case.call)
        elif a.dtype.kind == "f":
            # float32 in must be read as the float64 of the same values
            kwargs = case.make()
            kwargs[name] = a.astype(np.float32).astype(np.float64)
            ref = _outcome(partial(case.call, kwargs))
            if ref[0] != "ok":
                continue  # rounding made the input invalid (the NaN contract covers errors)
            variants = [a.astype(np.float32)]
        else:
            continue
        for v in variants:
            kwargs = case.make()
            kwargs[name] = v
            _same_outcome(ref, _outcome(partial(case.call, kwargs)), f"{name} as {v.dtype}")


def numpy_scalars(case):
    ref = _outcome(case.call)
    for name in numeric_scalars(case.make()):
        if name == "random_state":
            continue  # the random_states contract covers it
        value = case.make()[name]
        np_type = np.int64 if isinstance(value, int) else np.float64
        for v in (np_type(value), np.asarray(value)):
            kwargs = case.make()
            kwargs[name] = v
            _same_outcome(ref, _outcome(partial(case.call, kwargs)),
                          f"{name} as {type(v).__name__}")


def nan_refused(case):
    for name in float_arrays(case.make(), skip=case.allow_nan):
        kwargs = case.make()
        kwargs[name] = plant(kwargs[name], np.nan)
        _refuses(partial(case.call, kwargs), name, f"NaN in {name}")


def inf_refused(case):
    for name in float_arrays(case.make(), skip=case.allow_inf + case.allow_nan):
        kwargs = case.make()
        kwargs[name] = plant(kwargs[name], np.inf)
        _refuses(partial(case.call, kwargs), name, f"inf in {name}")


def rows_must_pair(case):
    for pair in case.paired:
        kwargs = case.make()
        kwargs[pair[1]] = kwargs[pair[1]][:-1]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with pytest.raises((ValueError, TypeError)) as info:
                case.call(kwargs)
        assert any(names_argument(info.value, n) for n in pair), str(info.value)


def random_states(case):
    if "random_state" not in inspect.signature(case.func).parameters:
        return
    makers = [lambda: 3, lambda: np.random.RandomState(3), lambda: np.random.default_rng(3)]
    for make_rs in makers:
        runs = []
        for _ in range(2):
            kwargs = case.make()
            kwargs["random_state"] = make_rs()
            runs.append(_outcome(partial(case.call, kwargs)))
        _same_outcome(runs[0], runs[1], f"random_state={type(make_rs()).__name__}")
    kwargs = case.make()
    kwargs["random_state"] = None
    assert _outcome(partial(case.call, kwargs))[0] == "ok"


def unknown_names(case):
    for name, value in case.unknown.items():
        kwargs = case.make()
        kwargs[name] = value
        _refuses(partial(case.call, kwargs), name, f"{name}={value!r}")


def _data_args(kwargs):
    """Copies of the data arguments (arrays, pandas objects, lists and tuples of them or
    of numbers), with each array's writeable flag, to compare after a call."""
    def is_data(v):
        if isinstance(v, np.ndarray | pd.DataFrame | pd.Series):
            return True
        return isinstance(v, list | tuple) and len(v) > 0 and all(
            isinstance(x, np.ndarray | numbers.Number) or is_data(x) for x in v)

    return {k: (copy.deepcopy(v), v.flags.writeable if isinstance(v, np.ndarray) else None)
            for k, v in kwargs.items() if is_data(v)}


def _assert_unchanged(before, kwargs, what):
    for name, (value, writeable) in before.items():
        assert_same(value, kwargs[name], f"{what}: argument {name} after the call")
        if writeable is not None:
            assert kwargs[name].flags.writeable == writeable, (
                f"{what}: the call changed whether argument {name} is writeable")


def inputs_unchanged(case):
    kwargs = case.make()
    before = _data_args(kwargs)
    _outcome(partial(case.call, kwargs))
    _assert_unchanged(before, kwargs, case.name)


FUNCTION_CONTRACTS = [lists, pandas_objects, other_dtypes, numpy_scalars, nan_refused,
                      inf_refused, rows_must_pair, random_states, unknown_names,
                      inputs_unchanged]


@pytest.mark.parametrize("case, contract", _params(FUNCTIONS, FUNCTION_CONTRACTS))
def test_function_contract(case, contract):
    contract(case)


# ----------------------------------------------------------------------- estimator contracts
def _read(case, est=None, fit_kwargs=None, overrides=None):
    def run():
        fitted = case.fitted(est, fit_kwargs)
        return case.read(fitted, overrides)

    return _outcome(run)


def fit_array_likes(case):
    ref = _read(case)
    for name in array_args(case.fit()):
        for convert, what in ((as_list, "a list"), (as_pandas, "pandas")):
            kwargs = case.fit()
            converted = convert(kwargs[name])
            if converted is None:
                continue
            kwargs[name] = converted
            _same_outcome(ref, _read(case, fit_kwargs=kwargs), f"fit {name} as {what}",
                          LAYOUT_RTOL)


def output_array_likes(case):
    ref = _read(case)
    for method, make_kwargs in case.outputs.items():
        for name in array_args(make_kwargs()):
            for convert, what in ((as_list, "a list"), (as_pandas, "pandas")):
                kwargs = make_kwargs()
                converted = convert(kwargs[name])
                if converted is None:
                    continue
                kwargs[name] = converted
                if name in case.positions and what == "pandas":
                    # row positions: a pandas object is refused, its values may be labels
                    est = _quiet(case.fitted)
                    _refuses(partial(getattr(est, method), **kwargs), name,
                             f"{method} {name} as pandas")
                    continue
                _same_outcome(ref, _read(case, overrides={method: kwargs}),
                              f"{method} {name} as {what}", LAYOUT_RTOL)


def fit_other_dtypes(case):
    base = case.fit()
    for name in array_args(base):
        a = base[name]
        if a.dtype.kind in "iu":
            ref, variants = _read(case), [a.astype(np.int32)]
        elif a.dtype.kind == "f":
            kwargs = case.fit()
            kwargs[name] = a.astype(np.float32).astype(np.float64)
            ref, variants = _read(case, fit_kwargs=kwargs), [a.astype(np.float32)]
            if ref[0] != "ok":
                continue
        else:
            continue
        for v in variants:
            kwargs = case.fit()
            kwargs[name] = v
            _same_outcome(ref, _read(case, fit_kwargs=kwargs), f"fit {name} as {v.dtype}")


def fit_nan_refused(case):
    for bad, allowed in ((np.nan, case.allow_nan), (np.inf, case.allow_nan + case.allow_inf)):
        for name in float_arrays(case.fit(), skip=allowed):
            kwargs = case.fit()
            kwargs[name] = plant(kwargs[name], bad)
            _refuses(partial(case.fitted, fit_kwargs=kwargs), name, f"{bad} in fit {name}")


def output_nan_refused(case):
    fitted = _quiet(case.fitted)
    for method, make_kwargs in case.outputs.items():
        for bad, allowed in ((np.nan, case.allow_nan), (np.inf, case.allow_nan + case.allow_inf)):
            for name in float_arrays(make_kwargs(), skip=allowed):
                kwargs = make_kwargs()
                kwargs[name] = plant(kwargs[name], bad)
                _refuses(partial(getattr(fitted, method), **kwargs), name,
                         f"{bad} in {method} {name}")


def estimator_random_states(case):
    est = case.make()
    if "random_state" not in est.get_params():
        return
    seed = est.get_params()["random_state"]
    assert seed is not None, "the case must fix an integer random_state"
    makers = [lambda: seed, lambda: np.random.RandomState(seed),
              lambda: np.random.default_rng(seed)]
    for make_rs in makers:
        runs = [_read(case, est=case.make().set_params(random_state=make_rs()))
                for _ in range(2)]
        _same_outcome(runs[0], runs[1], f"random_state={type(make_rs()).__name__}")
    assert _read(case, est=case.make().set_params(random_state=None))[0] == "ok"


def constraints_declared(case):
    est = case.make()
    declared = set(getattr(type(est), "_parameter_constraints", {}))
    params = set(est.get_params(deep=False))
    assert declared == params, (f"undeclared: {sorted(params - declared)}, "
                                f"unknown: {sorted(declared - params)}")


def bad_parameter_values_refused(case):
    constraints = type(case.make())._parameter_constraints
    for name, specs in constraints.items():
        if "no_validation" in (specs if isinstance(specs, list) else [specs]):
            continue
        est = case.make().set_params(**{name: object()})
        _refuses(partial(case.fitted, est), name, f"{name}=object()")


def _alternative(value, specs):
    """A different value that meets one of the constraints (None when none is found)."""
    from statlearn.base import Bool, Integral, Options, Real

    for spec in specs if isinstance(specs, list) else [specs]:
        rule = _make_constraint(spec)
        if isinstance(rule, Bool) and isinstance(value, bool | np.bool_):
            return not value
        if isinstance(rule, Options):
            others = [o for o in rule.values if o != value]
            if others:
                return others[0]
        if isinstance(rule, Integral) and isinstance(value, int) and not isinstance(value, bool):
            for cand in (value + 1, value - 1):
                if (rule.low is None or cand >= rule.low) and (rule.high is None
                                                              or cand <= rule.high):
                    return cand
        if isinstance(rule, Real) and isinstance(value, float | int) \
                and not isinstance(value, bool):
            lo = rule.low if rule.low is not None else value - 1.0
            hi = rule.high if rule.high is not None else value + 1.0
            for cand in ((value + hi) / 2, (value + lo) / 2):
                if cand != value and np.isfinite(cand):
                    return float(cand)
    return None


def set_params_after_fit(case):
    ref = _read(case)
    assert ref[0] == "ok", f"the plain outputs failed: {ref[1]!r}"
    constraints = type(case.make())._parameter_constraints
    free = set(getattr(type(case.make()), "_output_free_params", ()))
    tried = 0
    for name, specs in constraints.items():
        if name in free:
            continue
        old = case.make().get_params(deep=False)[name]
        new = case.alternatives.get(name, _alternative(old, specs))
        if new is None:
            continue
        tried += 1
        for i, method in enumerate(case.outputs):
            # a fresh fit, the earlier outputs read as in the reference (some change the
            # state, e.g. unlearn), then the parameter changed and output i read
            est = _quiet(case.fitted)
            for earlier in list(case.outputs)[:i]:
                _quiet(partial(_one, case, est, earlier))
            est.set_params(**{name: new})
            got = _outcome(partial(_one, case, est, method))
            if got[0] == "error":
                assert isinstance(got[1], StaleFitError), (
                    f"{name}={new!r} after fit: {method} raised {type(got[1]).__name__}: "
                    f"{got[1]}")
                assert names_argument(got[1], name), str(got[1])
            else:
                assert_same(ref[1][i], got[1], f"{method} after set_params({name}={new!r})")
    assert tried, "no parameter could be changed: give the case alternatives"
    # a parameter set back: the fit is current again
    est = _quiet(case.fitted)
    est.set_params(**{name: new}).set_params(**{name: old})
    _same_outcome(ref, _outcome(partial(case.read, est)), "outputs once set back")


def _one(case, est, method):
    return _one_with(est, method, case.outputs[method]())


def _one_with(est, method, kwargs):
    attr = getattr(est, method)
    return attr(**kwargs) if callable(attr) else attr


#: values that exercise an output-free parameter without ending the fit early
_FREE_VALUES = {"n_jobs": 2, "progress": True, "time_budget": 1e6}


def output_free_params_are_free(case):
    """A parameter declared output-free (exempt from the stale-fit check) gives the same
    outputs when the fit runs with another value: two parallel workers, a progress bar,
    a time budget that is not reached."""
    free = getattr(case.cls, "_output_free_params", ())
    if not free:
        return
    ref = _read(case)
    assert ref[0] == "ok", f"the plain outputs failed: {ref[1]!r}"
    for name in free:
        value = case.alternatives.get(name, _FREE_VALUES.get(name))
        assert value is not None, f"give the case an alternative value for {name}"
        est = case.make().set_params(**{name: value})
        _same_outcome(ref, _read(case, est=est), f"fit with {name}={value!r}")


def clone_and_pickle(case):
    est = _quiet(case.fitted)
    ref = _outcome(lambda: case.read(est))
    est2 = _quiet(case.fitted)
    restored = pickle.loads(pickle.dumps(est2))
    _same_outcome(ref, _outcome(lambda: case.read(restored)), "after pickling")
    _same_outcome(ref, _read(case, est=clone(case.make())), "a clone, fitted")


def numpy_scalar_parameters(case):
    ref = _read(case)
    params = case.make().get_params(deep=False)
    for name in numeric_scalars(params):
        value = params[name]
        if name == "random_state":
            continue
        np_type = np.int64 if isinstance(value, int) else np.float64
        for v in (np_type(value), np.asarray(value)):
            est = case.make().set_params(**{name: v})
            _same_outcome(ref, _read(case, est=est), f"{name} as {type(v).__name__}")


def sklearn_composition(case):
    """Pipeline, cross_val_score and GridSearchCV wherever fit takes (X, y) and a
    predict or score exists."""
    from sklearn.model_selection import GridSearchCV, cross_val_score
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import FunctionTransformer

    fit_kwargs = case.fit()
    est = case.make()
    if set(fit_kwargs) != {"X", "y"} or not (hasattr(est, "predict") or hasattr(est, "score")):
        return
    X, y = fit_kwargs["X"], fit_kwargs["y"]
    if hasattr(est, "predict"):
        pipe = _quiet(partial(make_pipeline(FunctionTransformer(), clone(est)).fit, X, y))
        Xt = case.outputs["predict"]()["X"] if "predict" in case.outputs else X
        _same_outcome(_outcome(partial(_quiet, partial(case.fitted().predict, Xt))),
                      _outcome(partial(_quiet, partial(pipe.predict, Xt))), "in a Pipeline")
    if hasattr(est, "score"):
        scores = _quiet(partial(cross_val_score, clone(est), X, y, cv=3, error_score="raise"))
        assert np.asarray(scores).shape == (3,)
        grid = {}  # one numeric parameter searched over two values
        for name, specs in type(est)._parameter_constraints.items():
            alt = case.alternatives.get(name, _alternative(est.get_params()[name], specs))
            if isinstance(alt, float | int) and not isinstance(alt, bool) \
                    and name != "random_state":
                grid = {name: [est.get_params()[name], alt]}
                break
        search = GridSearchCV(clone(est), grid, cv=3, error_score="raise")
        _quiet(partial(search.fit, X, y))
        assert search.best_params_.keys() == grid.keys()


def _frame_output(case, fit_kwargs, k, X):
    """Output ``k`` of a fresh fit on ``fit_kwargs``, the outputs before it read first,
    with ``X`` as its ``X``."""
    def run():
        est = case.fitted(fit_kwargs=fit_kwargs)
        for i, (method, make_kwargs) in enumerate(case.outputs.items()):
            kwargs = make_kwargs()
            if i == k:
                return getattr(est, method)(**{**kwargs, "X": X})
            attr = getattr(est, method)
            if callable(attr):
                attr(**kwargs)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return _outcome(run)


def reordered_columns_refused(case):
    """Fitted on a DataFrame, an output given the frame with its columns reversed raises
    scikit-learn's feature-name error or gives the answer of the original order: the
    columns are never read by position (a model the estimator wraps sees the names)."""
    fit_kwargs = case.fit()
    X = fit_kwargs.get("X")
    if not (isinstance(X, np.ndarray) and X.ndim == 2 and X.shape[1] >= 2):
        return  # no 2-D X to name the columns of
    fit_kwargs["X"] = as_pandas(X)
    for k, (method, make_kwargs) in enumerate(case.outputs.items()):
        Xo = make_kwargs().get("X")
        if not (isinstance(Xo, np.ndarray) and Xo.ndim == 2 and Xo.shape[1] == X.shape[1]):
            continue
        frame = as_pandas(Xo)
        ref = _frame_output(case, fit_kwargs, k, frame)
        assert ref[0] == "ok", f"{method} on the fitted frame failed: {ref[1]!r}"
        got = _frame_output(case, fit_kwargs, k, frame[frame.columns[::-1]])
        if got[0] == "error":
            assert isinstance(got[1], ValueError) and "feature names" in str(got[1]), (
                f"{method} with the columns reversed: {type(got[1]).__name__}: {got[1]}")
            continue
        assert_same(ref[1], got[1], f"{method} with the columns reversed", LAYOUT_RTOL)


#: the estimators with a ``prefit`` parameter (a model the user fitted themselves)
PREFIT_WRAPPERS = sorted(name for name, cls in all_estimators()
                         if "prefit" in inspect.signature(cls).parameters)


def _prefit_case(name):
    """``(wrapper, DataFrame X, y)`` with a model fitted on ``X`` (named columns)."""
    from sklearn.datasets import make_classification, make_regression
    from sklearn.linear_model import LinearRegression, LogisticRegression
    from sklearn.multioutput import MultiOutputClassifier

    cls = dict(all_estimators())[name]
    if name in ("ConformalSelector", "MultiConditionSelector", "SplitConformalRegressor"):
        X, y = make_regression(200, 4, n_targets=2 if name == "MultiConditionSelector" else 1,
                               noise=1.0, random_state=0)
        model = LinearRegression()
    elif name == "MultiLabelRiskController":
        X, _ = make_classification(200, 4, random_state=0)
        y = (X[:, :3] + np.random.default_rng(0).normal(size=(200, 3)) > 0).astype(int)
        model = MultiOutputClassifier(LogisticRegression())
    else:
        X, y = make_classification(200, 4, random_state=0)
        model = LogisticRegression()
    X = as_pandas(X)
    return cls(estimator=model.fit(X, y), prefit=True), X, y


@pytest.mark.parametrize("name", PREFIT_WRAPPERS)
def test_a_prefit_model_sees_the_column_names(name):
    # a wrapper checks X into a float array for itself, but the user's model gets the
    # user's DataFrame: calibration data with the columns reordered since the model's
    # fit is refused by the model (scikit-learn's feature-name check), not read by
    # position into silently wrong scores
    wrapper, X, y = _prefit_case(name)
    _quiet(partial(wrapper.fit, X, y))
    wrapper, X, y = _prefit_case(name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ValueError, match="feature names"):
            wrapper.fit(X[X.columns[::-1]], y)


def estimator_inputs_unchanged(case):
    kwargs = case.fit()
    before = _data_args(kwargs)
    est = _quiet(partial(case.fitted, fit_kwargs=kwargs))
    _assert_unchanged(before, kwargs, f"{case.name}.{case.fit_method}")
    for method, make_kwargs in case.outputs.items():
        kwargs = make_kwargs()
        before = _data_args(kwargs)
        _outcome(partial(_one_with, est, method, kwargs))
        _assert_unchanged(before, kwargs, f"{case.name}.{method}")


def outputs_repeatable(case):
    """Each output read twice in a row on one fitted estimator gives the same answer: no
    output draws from a stream that the call before it moved, or reads a cache it left
    behind. Methods that change the state (they return the estimator, or the case lists
    them in ``changes_state``) are read once."""
    est = _quiet(case.fitted)
    for method in case.outputs:
        first = _outcome(partial(_one, case, est, method))
        if method in case.changes_state or (first[0] == "ok" and first[1] is est):
            continue
        _same_outcome(first, _outcome(partial(_one, case, est, method)),
                      f"{method} read a second time")


ESTIMATOR_CONTRACTS = [fit_array_likes, output_array_likes, fit_other_dtypes, fit_nan_refused,
                       output_nan_refused, estimator_random_states, constraints_declared,
                       bad_parameter_values_refused, set_params_after_fit, clone_and_pickle,
                       numpy_scalar_parameters, sklearn_composition,
                       reordered_columns_refused, estimator_inputs_unchanged,
                       output_free_params_are_free, outputs_repeatable]


@pytest.mark.parametrize("case, contract", _params(ESTIMATORS, ESTIMATOR_CONTRACTS))
def test_estimator_contract(case, contract):
    contract(case)


# ----------------------------------------------------------------------- decision objects
def object_constraints_declared(case):
    constraints_declared(case)


def _with_param(case, name, value):
    """The object with one parameter changed: by ``set_params``, or rebuilt through its
    constructor when it is immutable (a diagram, a model: ``set_params`` refuses)."""
    obj = case.make()
    if getattr(type(obj), "_immutable", False):
        return type(obj)(**{**obj.get_params(deep=False), name: value})
    return obj.set_params(**{name: value})


def _use_with_param(case, name, value):
    return case.use(_with_param(case, name, value))


def object_bad_parameter_values_refused(case):
    constraints = type(case.make())._parameter_constraints
    for name, specs in constraints.items():
        if "no_validation" in (specs if isinstance(specs, list) else [specs]):
            continue
        _refuses(partial(_use_with_param, case, name, object()), name, f"{name}=object()")


def object_clone_and_pickle(case):
    ref = _outcome(lambda: case.use(case.make()))
    _same_outcome(ref, _outcome(lambda: case.use(clone(case.make()))), "a clone")
    _same_outcome(ref, _outcome(lambda: case.use(pickle.loads(pickle.dumps(case.make())))),
                  "after pickling")


def object_numpy_scalar_parameters(case):
    ref = _outcome(lambda: case.use(case.make()))
    params = case.make().get_params(deep=False)
    for name in numeric_scalars(params):
        if name == "random_state":
            continue
        value = params[name]
        np_type = np.int64 if isinstance(value, int) else np.float64
        for v in (np_type(value), np.asarray(value)):
            _same_outcome(ref, _outcome(partial(_use_with_param, case, name, v)),
                          f"{name} as {type(v).__name__}")


def object_parameters_unchanged(case):
    """Using the object leaves the values of its parameters as they were given: a run
    that wrote into an array parameter would write into the caller's array."""
    obj = case.make()
    before = param_record(obj)
    _outcome(partial(case.use, obj))
    after = param_record(obj)
    changed = sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k))
    assert not changed, f"using the object changed its parameters {changed}"


OBJECT_CONTRACTS = [object_constraints_declared, object_bad_parameter_values_refused,
                    object_clone_and_pickle, object_numpy_scalar_parameters,
                    object_parameters_unchanged]


@pytest.mark.parametrize("case, contract", _params(OBJECTS, OBJECT_CONTRACTS))
def test_object_contract(case, contract):
    contract(case)

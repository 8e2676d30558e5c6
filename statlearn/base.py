"""The base layer every statlearn estimator and decision object shares.

Three rules hold for every public class, and live here once:

* **Parameters** come from the ``__init__`` signature (:class:`ParamsMixin`
  gives ``get_params`` / ``set_params`` / ``repr`` to the classes that are not
  scikit-learn estimators) and are checked against the constraints the class
  declares once, in ``_parameter_constraints`` (scikit-learn's idea): types,
  intervals, options, callables. An error names the class, the parameter, what
  is allowed and the value given.
* **Fitted state**: ``fit`` validates the parameters and records the values it
  used. Every output (prediction, set, interval, selection, decision, query)
  starts with :meth:`FitStateMixin._check_fitted`, which refuses to answer from
  a fit made with other parameters: ``set_params`` after ``fit`` never changes
  an output silently; it raises :class:`StaleFitError` until the next ``fit``.
  Parameters that cannot change an output (``n_jobs``, ``progress``, ...) are
  listed in ``_output_free_params``.
* **Scalars** given as NumPy scalars or 0-d arrays are read as the number they
  hold (see :func:`statlearn.utils.check_real`).

The contract suite (``tests/test_contracts.py``) checks these rules over every
public estimator and function, so a new one cannot forget them.
"""

from __future__ import annotations

import functools
import inspect
import numbers
import weakref
from typing import ClassVar

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.exceptions import NotFittedError

from .utils._constraints import (
    Bool,
    HasMethods,
    Integral,
    Level,
    Options,
    Real,
    _make_constraint,
    _NoneConstraint,
)
from .utils._results import _short
from .utils._validation import check_scored_target

__all__ = [
    "Bool",
    "FitStateMixin",
    "HasMethods",
    "Integral",
    "Level",
    "Options",
    "ParamsMixin",
    "Real",
    "StaleFitError",
    "TargetCheckedScoreMixin",
    "check_param_record",
    "param_record",
    "validate_params",
]


class StaleFitError(NotFittedError):
    """A parameter changed after ``fit``: the fitted state no longer matches it.

    Raised by every output method of an estimator whose parameters were changed
    (``set_params`` or attribute assignment) since its last ``fit``. It derives
    from :class:`sklearn.exceptions.NotFittedError`: the remedy is the same,
    call ``fit`` again (or set the parameter back).

    Examples
    --------
    >>> from sklearn.exceptions import NotFittedError
    >>> from statlearn.base import StaleFitError
    >>> issubclass(StaleFitError, NotFittedError)
    True
    """


# --------------------------------------------------------------------- constraints
def validate_params(obj, constraints: dict | None = None) -> None:
    """Check every constructor parameter of ``obj`` against its declared constraints.

    Parameters
    ----------
    obj : object
        An estimator or decision object with ``get_params``.
    constraints : dict, optional
        ``{name: [constraint, ...]}``; the value must satisfy one of them. A
        constraint is a :class:`Real`, :class:`Integral`, :class:`Options`,
        :class:`Bool`, :class:`HasMethods`, a type, ``None`` or one of the
        strings ``"boolean"``, ``"callable"``, ``"random_state"``,
        ``"array-like"``, ``"no_validation"``. Default: the class's
        ``_parameter_constraints``.

    Raises
    ------
    TypeError
        If the value has none of the allowed types.
    ValueError
        If it has an allowed type but an allowed range or option is broken.
        Both messages start with the class and the parameter's name.

    Examples
    --------
    >>> from statlearn.base import ParamsMixin, Real, validate_params
    >>> class Rule(ParamsMixin):
    ...     _parameter_constraints = {"alpha": [Real(0, 1, closed="neither")]}
    ...     def __init__(self, alpha=0.1):
    ...         self.alpha = alpha
    >>> validate_params(Rule(alpha=0.2))
    >>> validate_params(Rule(alpha=2.0))
    Traceback (most recent call last):
    ...
    ValueError: Rule parameter alpha must be in (0, 1), got 2.0.
    >>> validate_params(Rule(alpha="0.2"))
    Traceback (most recent call last):
    ...
    TypeError: Rule parameter alpha must be a real in (0, 1), got str '0.2'.
    """
    if constraints is None:
        constraints = getattr(type(obj), "_parameter_constraints", {})
    owner = type(obj).__name__
    params = obj.get_params(deep=False)
    for name, specs in constraints.items():
        if name not in params:
            raise RuntimeError(f"{owner}._parameter_constraints names {name!r}, which is not "
                               "a parameter of its __init__.")
        value = params[name]
        rules = [_make_constraint(s) for s in (specs if isinstance(specs, list) else [specs])]
        fitting = [r for r in rules if r.matches_type(value)]
        if not fitting:
            allowed = " or ".join(r.describe() for r in rules)
            raise TypeError(f"{owner} parameter {name} must be {allowed}, got "
                            f"{type(value).__name__} {_short(value)}.")
        errors = []
        for rule in fitting:
            try:
                rule.check(value, name)
                break
            except (TypeError, ValueError) as exc:
                errors.append(exc)
        else:
            if len([r for r in rules if not isinstance(r, _NoneConstraint)]) > 1:
                allowed = " or ".join(r.describe() for r in rules)
                raise ValueError(f"{owner} parameter {name} must be {allowed}, got "
                                 f"{_short(value)}.") from None
            exc = errors[0]
            raise type(exc)(f"{owner} parameter {exc}") from None


# --------------------------------------------------------------------- parameters
_PARAM_NAMES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # {class: names}


_SKLEARN_GET_PARAMS = BaseEstimator.get_params


def _cached_param_names(cls, compute):
    """``compute()`` once per class (each subclass its own entry), then copies of it."""
    if cls not in _PARAM_NAMES:
        _PARAM_NAMES[cls] = tuple(compute())
    return list(_PARAM_NAMES[cls])


class ParamsMixin:
    """``get_params`` / ``set_params`` / ``repr`` read from the ``__init__`` signature.

    For the classes that are not scikit-learn estimators (environments,
    policies, bandit agents, the clustering oracle): :func:`sklearn.base.clone`
    and pickling work through it, as for an estimator.

    Examples
    --------
    >>> from statlearn.base import ParamsMixin
    >>> class Agent(ParamsMixin):
    ...     def __init__(self, horizon=10, c=2.0):
    ...         self.horizon, self.c = horizon, c
    >>> Agent(c=0.5)
    Agent(c=0.5)
    >>> Agent().set_params(horizon=5).get_params()
    {'horizon': 5, 'c': 2.0}
    """

    @classmethod
    def _get_param_names(cls):
        return _cached_param_names(cls, lambda: [
            p.name for p in inspect.signature(cls.__init__).parameters.values()
            if p.name != "self" and p.kind not in (p.VAR_KEYWORD, p.VAR_POSITIONAL)])

    def get_params(self, deep=True):
        """Constructor parameters as a dict (nested ``get_params`` when ``deep``)."""
        out = {}
        for name in self._get_param_names():
            value = getattr(self, name)
            out[name] = value
            if deep and hasattr(value, "get_params") and not isinstance(value, type):
                for key, sub in value.get_params(deep=True).items():
                    out[f"{name}__{key}"] = sub
        return out

    def set_params(self, **params):
        """Set constructor parameters (``name__sub`` for nested ones); returns ``self``.

        Unknown names raise ``ValueError`` listing the valid ones.
        """
        valid = self._get_param_names()
        nested = {}
        for key, value in params.items():
            name, _, sub = key.partition("__")
            if name not in valid:
                raise ValueError(f"invalid parameter {name!r} for {type(self).__name__}; "
                                 f"valid parameters are {valid}.")
            if sub:
                nested.setdefault(name, {})[sub] = value
            else:
                setattr(self, name, value)
        for name, sub in nested.items():
            getattr(self, name).set_params(**sub)
        return self

    def __repr__(self):
        sig = inspect.signature(type(self).__init__)
        parts = []
        for name in self._get_param_names():
            value = getattr(self, name)
            if not _same_value(value, sig.parameters[name].default):
                parts.append(f"{name}={_short(value)}")
        return f"{type(self).__name__}({', '.join(parts)})"


# --------------------------------------------------------------------- fitted state
class _Ref:
    """An object compared by identity (an estimator, a callable, a generator).

    It holds the object itself, not its ``id``: a pickled or deep-copied
    estimator carries its parameters and its fit record as one graph, so the
    identity survives the copy.
    """

    __slots__ = ("obj",)

    def __init__(self, obj):
        self.obj = obj

    def __eq__(self, other):
        return isinstance(other, _Ref) and other.obj is self.obj

    def __hash__(self):
        return id(self.obj)


def _freeze(value):
    """A copy of a parameter value that later in-place edits cannot reach."""
    if isinstance(value, np.ndarray):
        return ("ndarray", value.dtype.str, value.shape, value.tobytes())
    if isinstance(value, list | tuple):
        return (type(value).__name__, tuple(_freeze(v) for v in value))
    if isinstance(value, dict):
        return ("dict", tuple((k, _freeze(v)) for k, v in value.items()))
    if isinstance(value, set | frozenset):
        return ("set", frozenset(_freeze(v) for v in value))
    if value is None or isinstance(value, str | bytes | numbers.Number | np.generic):
        return ("value", type(value).__name__, value)
    return ("object", _Ref(value))  # estimators, callables, generators: by identity


def _same_value(a, b) -> bool:
    if a is b:
        return True
    try:
        return _freeze(a) == _freeze(b) and type(a) is type(b)
    except Exception:
        return False


def _frozen_equal(a, b) -> bool:
    try:
        return bool(a == b)
    except Exception:
        return False


def _refuse_inactive_params(obj, names, why) -> None:
    """Raise ``ValueError`` if a parameter that has no effect here was set.

    ``names`` are parameters of ``obj`` that the current settings never read
    (``why`` says which setting, e.g. ``"with method='pairwise'"``). Each must
    keep its default: a value set there would be accepted and silently ignored,
    so the user would believe it took effect.

    Examples
    --------
    >>> from statlearn.base import _refuse_inactive_params
    >>> from statlearn.hte import RelativeErrorHTE
    >>> est = RelativeErrorHTE(method="pairwise", loss="r")
    >>> try:
    ...     _refuse_inactive_params(est, ("loss",), "with method='pairwise'")
    ... except ValueError as exc:
    ...     print(str(exc).split(";")[0])
    RelativeErrorHTE: loss='r' has no effect with method='pairwise'
    """
    defaults = {k: p.default for k, p in inspect.signature(type(obj).__init__).parameters.items()}
    from .utils._validation import _scalar

    for name in names:
        value, default = _scalar(getattr(obj, name)), defaults[name]
        if value is default or _same_value(value, default) or (
                isinstance(value, numbers.Number) and isinstance(default, numbers.Number)
                and not isinstance(value, bool) and value == default):
            continue
        raise ValueError(f"{type(obj).__name__}: {name}={value!r} has no effect {why}; leave "
                         f"it at its default {default!r}.")


def param_record(obj, names=None) -> dict:
    """A record of ``obj``'s parameters (nested ones too) that later edits cannot reach.

    Parameters
    ----------
    obj : object with ``get_params``
    names : iterable of str, optional
        Top-level parameters to record (their nested ``name__sub`` ones too);
        all by default.

    Returns
    -------
    dict
        Compare it with a later one through :func:`check_param_record`.

    Examples
    --------
    >>> from sklearn.linear_model import Ridge
    >>> from statlearn.base import check_param_record, param_record
    >>> model = Ridge(alpha=1.0)
    >>> record = param_record(model)
    >>> check_param_record(model.set_params(alpha=2.0), record, "predict")
    Traceback (most recent call last):
    ...
    statlearn.base.StaleFitError: Ridge parameter alpha changed since fit (fit with 1.0, ...
    """
    keep = None if names is None else set(names)
    return {k: _freeze(v) for k, v in _deep_params(obj).items()
            if keep is None or k.partition("__")[0] in keep}


def _deep_params(obj):
    """``obj.get_params(deep=True)``, reading each plain scikit-learn class's parameter
    names once (its own ``get_params`` reads the ``__init__`` signature at every call);
    a class that overrides ``get_params`` is asked itself."""
    if getattr(type(obj), "get_params", None) is not _SKLEARN_GET_PARAMS:
        return obj.get_params(deep=True)
    out = {}
    for key in _cached_param_names(type(obj), type(obj)._get_param_names):
        value = getattr(obj, key)
        if hasattr(value, "get_params") and not isinstance(value, type):
            out.update((f"{key}__{k}", v) for k, v in _deep_params(value).items())
        out[key] = value
    return out


def check_param_record(obj, record, action, names=None):
    """Raise :class:`StaleFitError` if a recorded parameter of ``obj`` changed.

    Parameters
    ----------
    obj : object with ``get_params``
    record : dict
        From :func:`param_record` (with the same ``names``).
    action : str
        What cannot be done (named in the message).
    names : iterable of str, optional
        The top-level parameters to compare (by default those in ``record``).
    """
    if names is None:
        names = {k.partition("__")[0] for k in record}
    now = param_record(obj, names)
    for key in sorted(set(record) | set(now)):
        if not _frozen_equal(record.get(key), now.get(key)):
            raise StaleFitError(
                f"{type(obj).__name__} parameter {key} changed since fit (fit with "
                f"{_describe_frozen(record.get(key))}, now {_describe_frozen(now.get(key))}): "
                f"call fit again before {action}, or set it back.")


class FitStateMixin:
    """Validated parameters at ``fit``, and outputs only from a fit with the same ones.

    A class using it declares ``_parameter_constraints`` and may list
    ``_output_free_params``. Its ``fit`` (wrapped when the class is defined)
    checks the constraints first and, once it returns, records the parameters it
    ran with; an output method calls :meth:`_check_fitted` first.

    Examples
    --------
    >>> from sklearn.base import BaseEstimator
    >>> from statlearn.base import FitStateMixin, Real, StaleFitError
    >>> class Shift(FitStateMixin, BaseEstimator):
    ...     _parameter_constraints = {"c": [Real()]}
    ...     def __init__(self, c=1.0):
    ...         self.c = c
    ...     def fit(self, X, y=None):
    ...         self.shift_ = self.c
    ...         return self
    ...     def predict(self, X):
    ...         self._check_fitted()
    ...         return [x + self.shift_ for x in X]
    >>> est = Shift().fit([0.0])
    >>> est.predict([1.0])
    [2.0]
    >>> est.set_params(c=5.0).predict([1.0])
    Traceback (most recent call last):
    ...
    statlearn.base.StaleFitError: Shift parameter c changed since fit (fit with 1.0, now 5.0): ...
    """

    _parameter_constraints: ClassVar[dict] = {}
    #: parameters that never change an output (changing them after fit is allowed)
    _output_free_params: ClassVar[tuple] = ()
    #: methods wrapped as fits: validate first, record the parameters after
    _fit_methods: ClassVar[tuple] = ("fit",)

    @classmethod
    def _get_param_names(cls):  # scikit-learn reads the signature at every call
        return _cached_param_names(cls, super()._get_param_names)

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        for name in cls._fit_methods:
            method = cls.__dict__.get(name)
            if method is not None and not getattr(method, "_statlearn_fit", False):
                setattr(cls, name, _wrap_fit(method))

    def _validate_params(self):
        validate_params(self)

    def _record_fit(self):
        """Record the current parameters as those of a fit (a ``fit`` that is interrupted
        but leaves a resumable state calls it before re-raising)."""
        self.__dict__["_fit_params_"] = self._fit_snapshot()

    def _fit_snapshot(self):
        free = set(self._output_free_params)
        return param_record(self, [n for n in self.get_params(deep=False) if n not in free])

    def __sklearn_is_fitted__(self):
        return self.__dict__.get("_fit_params_") is not None

    def _check_fitted(self, method=None):
        """Raise unless fitted, and fitted with the parameters the object has now.

        Raises
        ------
        sklearn.exceptions.NotFittedError
            Before the first successful ``fit``.
        StaleFitError
            When a parameter that shapes the outputs changed since that fit.
        """
        owner = type(self).__name__
        recorded = self.__dict__.get("_fit_params_")
        if recorded is None:
            raise NotFittedError(
                f"This {owner} instance is not fitted yet. Call 'fit' with appropriate "
                "arguments before using this estimator.")
        free = set(self._output_free_params)
        names = [n for n in self.get_params(deep=False) if n not in free]
        check_param_record(self, recorded, method or _public_caller(self), names)


class TargetCheckedScoreMixin:
    """scikit-learn's ``score(X, y, sample_weight=None)``, with ``y`` checked first.

    Listed before :class:`~sklearn.base.RegressorMixin` or
    :class:`~sklearn.base.ClassifierMixin`, whose ``score`` it then calls. NaN
    or infinite values in a numeric ``y``, or a ``y`` with another number of
    rows than ``X``, raise an error that names ``y``
    (:func:`statlearn.utils._validation.check_scored_target`); the metrics
    behind the mixins report them without naming an argument.

    Examples
    --------
    >>> import numpy as np
    >>> from statlearn.conformal import SplitConformalRegressor
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(200, 2)); y = X[:, 0] + rng.normal(size=200)
    >>> reg = SplitConformalRegressor(random_state=0).fit(X, y)
    >>> try:
    ...     reg.score(X[:5], [0.0, np.nan, 1.0, 2.0, 3.0])
    ... except ValueError as exc:
    ...     print(exc)
    y must not contain NaN or infinite values.
    """

    def score(self, X, y, sample_weight=None):
        check_scored_target(X, y)
        return super().score(X, y, sample_weight=sample_weight)


def _public_caller(obj):
    """The name of the public method of ``obj`` that is running (for error messages)."""
    frame = inspect.currentframe()
    try:
        while frame is not None:
            name = frame.f_code.co_name
            if frame.f_locals.get("self") is obj and not name.startswith("_"):
                return name
            frame = frame.f_back
        return "using it"
    finally:
        del frame


def _describe_frozen(frozen):
    if frozen is None:
        return "nothing"
    kind = frozen[0]
    if kind == "value":
        return repr(frozen[2])
    if kind == "ndarray":
        return f"an array of shape {frozen[2]}"
    if kind == "object":
        return "another object"
    return f"a {kind}"


def _wrap_fit(method):
    @functools.wraps(method)
    def fit(self, *args, **kwargs):
        outer = not self.__dict__.get("_in_fit_", False)
        if outer:
            self._validate_params()
            snapshot = self._fit_snapshot()
            self.__dict__["_fit_params_"] = None
            self.__dict__["_in_fit_"] = True
        try:
            out = method(self, *args, **kwargs)
        finally:
            if outer:
                self.__dict__.pop("_in_fit_", None)
        if outer:
            self.__dict__["_fit_params_"] = snapshot
        return out

    fit._statlearn_fit = True
    return fit

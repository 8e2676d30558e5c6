"""Parameter constraints of the base layer: what ``_parameter_constraints`` declares.

Each constraint says whether a value has the right type, checks its range, and
describes what is allowed for the error message. The public ones are
re-exported by :mod:`statlearn.base`, which is where users import them from
(they live here, below the base layer, with the other validation helpers).
"""

from __future__ import annotations

import numbers

import numpy as np

from ._validation import (
    _describe_interval,
    _scalar,
    check_alpha,
    check_int,
    check_option,
    check_real,
)


class _Constraint:
    """A rule one parameter value may satisfy; ``check`` returns the value or raises."""

    def matches_type(self, value) -> bool:  # pragma: no cover - abstract
        raise NotImplementedError

    def check(self, value, name):
        return value

    def describe(self) -> str:  # pragma: no cover - abstract
        raise NotImplementedError

    def __repr__(self):
        return f"<{self.describe()}>"


class Real(_Constraint):
    """A real number (not a bool) in an interval.

    Examples
    --------
    >>> from statlearn.base import Real
    >>> Real(0, 1, closed="neither").describe()
    'a real in (0, 1)'
    """

    def __init__(self, low=None, high=None, closed="both", allow_inf=False):
        self.low, self.high, self.closed, self.allow_inf = low, high, closed, allow_inf

    def matches_type(self, value):
        value = _scalar(value)
        return isinstance(value, numbers.Real) and not isinstance(value, bool | np.bool_)

    def check(self, value, name):
        return check_real(value, name, low=self.low, high=self.high, closed=self.closed,
                          allow_inf=self.allow_inf)

    def describe(self):
        if self.low is None and self.high is None:
            return "a real" + (" (inf allowed)" if self.allow_inf else "")
        return f"a real in {_describe_interval(self.low, self.high, self.closed)}"


class Level(Real):
    """An error level or rate strictly inside ``(0, 1)`` (``alpha``, ``q``, ``delta``).

    Its error says when a percentage was given for a fraction.

    Examples
    --------
    >>> from statlearn.base import Level
    >>> Level().describe()
    'a real in (0, 1)'
    """

    def __init__(self):
        super().__init__(0, 1, closed="neither")

    def check(self, value, name):
        return check_alpha(value, name)


class Integral(_Constraint):
    """An integer (not a bool, not an integral float) in an interval.

    Examples
    --------
    >>> from statlearn.base import Integral
    >>> Integral(1).describe()
    'an int in [1, inf]'
    """

    def __init__(self, low=None, high=None, closed="both"):
        self.low, self.high, self.closed = low, high, closed

    def matches_type(self, value):
        value = _scalar(value)
        return isinstance(value, numbers.Integral) and not isinstance(value, bool | np.bool_)

    def check(self, value, name):
        return check_int(value, name, low=self.low, high=self.high, closed=self.closed)

    def describe(self):
        if self.low is None and self.high is None:
            return "an int"
        return f"an int in {_describe_interval(self.low, self.high, self.closed)}"


class Options(_Constraint):
    """One of a fixed set of values (strings are matched exactly, with a hint).

    Examples
    --------
    >>> from statlearn.base import Options
    >>> Options(["lac", "aps"]).describe()
    "one of ['lac', 'aps']"
    """

    def __init__(self, values):
        self.values = list(values)

    def matches_type(self, value):
        return any(type(value) is type(v) or (isinstance(value, str) and isinstance(v, str))
                   for v in self.values)

    def check(self, value, name):
        return check_option(value, name, self.values)

    def describe(self):
        return f"one of {self.values!r}"


class Bool(_Constraint):
    """A Python or NumPy bool.

    Examples
    --------
    >>> from statlearn.base import Bool
    >>> Bool().describe()
    'a bool'
    """

    def matches_type(self, value):
        return isinstance(_scalar(value), bool | np.bool_)

    def describe(self):
        return "a bool"


class HasMethods(_Constraint):
    """An object with the given methods (an estimator: ``HasMethods("fit")``).

    Examples
    --------
    >>> from statlearn.base import HasMethods
    >>> HasMethods("fit", "predict").describe()
    'an object with fit and predict methods'
    >>> HasMethods("split", description="a cross-validation splitter").describe()
    'a cross-validation splitter'
    """

    def __init__(self, *methods, description=None):
        self.methods = methods
        self.description = description

    def matches_type(self, value):
        # a string has methods too (str.split): never an estimator or a splitter
        return not isinstance(value, str | bytes) and all(
            callable(getattr(value, m, None)) for m in self.methods)

    def describe(self):
        if self.description is not None:
            return self.description
        names = " and ".join(self.methods)
        return f"an object with {names} method{'s' if len(self.methods) > 1 else ''}"


class _Callable(_Constraint):
    def matches_type(self, value):
        return callable(value) and not isinstance(value, type)

    def describe(self):
        return "a callable"


class _NoneConstraint(_Constraint):
    def matches_type(self, value):
        return value is None

    def describe(self):
        return "None"


class _RandomState(_Constraint):
    def matches_type(self, value):
        value = _scalar(value)
        return value is None or isinstance(value, np.random.RandomState | np.random.Generator
                                           | np.random.SeedSequence) or (
            isinstance(value, numbers.Integral) and not isinstance(value, bool | np.bool_))

    def check(self, value, name):
        value = _scalar(value)
        if isinstance(value, numbers.Integral) and value < 0:
            raise ValueError(f"{name} must be a non-negative int, got {value!r}.")
        return value

    def describe(self):
        return "None, a non-negative int, a SeedSequence, a Generator or a RandomState"


class _ArrayLike(_Constraint):
    def matches_type(self, value):
        return isinstance(value, np.ndarray | list | tuple) or hasattr(value, "__array__") \
            or hasattr(value, "__array_namespace__")

    def describe(self):
        return "an array-like"


class _InstanceOf(_Constraint):
    def __init__(self, *types):
        self.types = types

    def matches_type(self, value):
        return isinstance(value, self.types)

    def describe(self):
        return " or ".join(f"{'an' if t.__name__[0] in 'AEIOUaeiou' else 'a'} {t.__name__}"
                           for t in self.types)


class _Any(_Constraint):
    def matches_type(self, value):
        return True

    def describe(self):
        return "anything (checked by the method itself)"


_SHORTHANDS = {
    None: _NoneConstraint(),
    "boolean": Bool(),
    "callable": _Callable(),
    "random_state": _RandomState(),
    "array-like": _ArrayLike(),
    "no_validation": _Any(),
}


def _make_constraint(spec):
    if isinstance(spec, _Constraint):
        return spec
    if isinstance(spec, type):
        return _InstanceOf(spec)
    try:
        return _SHORTHANDS[spec]
    except (KeyError, TypeError):
        raise TypeError(f"unknown parameter constraint {spec!r}") from None

"""The contract suite's cases and the conversions it applies to them.

A :class:`FunctionCase` is one valid call of a public function; an
:class:`EstimatorCase` is one valid fit of a public estimator (or decision
object) and the calls of its output methods. ``tests/test_contracts.py`` turns
each case into many: the same call with the arrays given as lists, as pandas
objects with a non-default index, in other dtypes, the scalars as NumPy scalars
and 0-d arrays, NaN and inf planted in each array, every kind of random state,
parameters changed after ``fit``, and so on; each variant must give the same
result as the plain call, or an error that names the argument.

Every public function and estimator of the areas must have a case (or an entry
in ``NOT_APPLICABLE`` with its reason), so a new one joins the suite on its own.
"""

from __future__ import annotations

import dataclasses
import math
import numbers
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from tests.helpers import names_argument

__all__ = [
    "EstimatorCase",
    "FunctionCase",
    "ObjectCase",
    "as_list",
    "as_pandas",
    "assert_same",
    "float_arrays",
    "names_argument",
    "numeric_scalars",
    "plant",
]


@dataclass
class FunctionCase:
    """One valid call ``func(**make())``.

    Parameters
    ----------
    func : callable
    make : callable returning dict
        Fresh keyword arguments of a valid call (a new dict each time: the
        contracts edit it).
    name : str
        Id of the case (defaults to the function's name).
    allow_nan, allow_inf : tuple of str
        Array arguments in which NaN / inf are meaningful values.
    paired : tuple of tuple of str
        Array arguments that must share their first dimension: dropping a row
        from one must raise an error naming one of them.
    unknown : dict
        ``{argument: value}`` with a name the call cannot know (a node, an
        option, a key): it must raise an error naming the argument.
    expected_failures : dict
        ``{contract: reason}`` for a contract that does not apply, with why.
    """

    func: Callable
    make: Callable[[], dict]
    name: str = ""
    allow_nan: tuple = ()
    allow_inf: tuple = ()
    paired: tuple = ()
    unknown: dict = field(default_factory=dict)
    expected_failures: dict = field(default_factory=dict)

    def __post_init__(self):
        if not self.name:
            self.name = self.func.__name__

    def call(self, kwargs=None):
        return self.func(**(self.make() if kwargs is None else kwargs))


@dataclass
class EstimatorCase:
    """One valid fit of an estimator and the outputs read from it.

    Parameters
    ----------
    make : callable returning an unfitted estimator
        With a fixed integer ``random_state`` where it has one.
    fit : callable returning dict
        Keyword arguments of ``fit``.
    outputs : dict of {method name: callable returning dict}
        The output methods to call after ``fit``, in order, with their
        keyword arguments. An entry whose name is an attribute that is not
        callable is read as a fitted property.
    alternatives : dict of {parameter: value}
        A different valid value per parameter for the set-after-fit contract;
        parameters not listed get one derived from their constraints.
    fit_method : str
        The method that fits (``"fit"``).
    positions : tuple of str
        Output arguments that hold row positions: a pandas object there must
        be refused with an error naming the argument (its values may be labels).
    changes_state : tuple of str
        Output methods that change the fitted state while returning a result
        (an online method that updates as it predicts); a method that returns
        the estimator itself is known to change it.
    """

    make: Callable[[], Any]
    fit: Callable[[], dict]
    outputs: Mapping[str, Callable[[], dict]]
    name: str = ""
    alternatives: dict = field(default_factory=dict)
    fit_method: str = "fit"
    positions: tuple = ()
    changes_state: tuple = ()
    allow_nan: tuple = ()
    allow_inf: tuple = ()
    expected_failures: dict = field(default_factory=dict)

    def __post_init__(self):
        if not self.name:
            self.name = type(self.make()).__name__

    @property
    def cls(self):
        return type(self.make())

    def fitted(self, est=None, fit_kwargs=None):
        est = self.make() if est is None else est
        out = getattr(est, self.fit_method)(**(self.fit() if fit_kwargs is None else fit_kwargs))
        return est if out is None else out

    def read(self, est, overrides=None):
        """The outputs of a fitted ``est``, in order (``overrides``: method -> kwargs)."""
        results = []
        for method, make_kwargs in self.outputs.items():
            kwargs = (overrides or {}).get(method)
            kwargs = make_kwargs() if kwargs is None else kwargs
            attr = getattr(est, method)
            out = attr(**kwargs) if callable(attr) else attr
            # a method that returns the estimator itself changed its state: the outputs
            # read after it show the change
            results.append(None if out is est else out)
        return results


@dataclass
class ObjectCase:
    """A decision object without ``fit`` (environment, policy, agent, diagram, model).

    ``make()`` builds it with a fixed seed where it has one; ``use(obj)`` is its
    typical use (a run, a query) and returns a result to compare.
    """

    make: Callable[[], Any]
    use: Callable[[Any], Any]
    name: str = ""
    expected_failures: dict = field(default_factory=dict)

    def __post_init__(self):
        if not self.name:
            self.name = type(self.make()).__name__

    @property
    def cls(self):
        return type(self.make())


# ----------------------------------------------------------------------- conversions
def float_arrays(kwargs, skip=()):
    """Names of the float ndarray arguments (the ones NaN / inf can be planted in)."""
    return [k for k, v in kwargs.items() if k not in skip and isinstance(v, np.ndarray)
            and v.dtype.kind == "f" and v.size and v.ndim >= 1]


def array_args(kwargs):
    return [k for k, v in kwargs.items()
            if isinstance(v, np.ndarray) and v.ndim >= 1 and v.dtype.kind in "biuf"]


def numeric_scalars(kwargs):
    """Names of the Python int / float arguments (not bools)."""
    return [k for k, v in kwargs.items() if isinstance(v, numbers.Real)
            and not isinstance(v, bool | np.bool_ | np.generic)]


def as_list(a):
    return a.tolist()


def as_pandas(a):
    """A Series / DataFrame with index 100, 101, ... and string column names."""
    index = pd.RangeIndex(100, 100 + a.shape[0])
    if a.ndim == 1:
        return pd.Series(a, index=index, name="values")
    if a.ndim == 2:
        return pd.DataFrame(a, index=index, columns=[f"c{j}" for j in range(a.shape[1])])
    return None


def plant(a, value):
    """A copy of ``a`` with ``value`` at its first entry."""
    b = np.array(a, dtype=float, copy=True)
    b.flat[0] = value
    return b


# ----------------------------------------------------------------------- comparison
def _plain(x):
    if isinstance(x, pd.DataFrame | pd.Series | pd.Index):
        return x.to_numpy()
    return x


def _stream_state(g):
    return g.bit_generator.state if isinstance(g, np.random.Generator) else g.get_state(
        legacy=False)


def assert_same(a, b, path="result", rtol=0.0):
    """Recursive equality of two results of the same code path (exact by default).

    Arrays (NaN equal to NaN), pandas objects (by value), dataclasses, tuples,
    lists, dicts, scalars; objects with a ``__dict__`` field by field; figures
    and axes are skipped. ``rtol > 0`` lets floats differ by that relative
    amount (of the largest magnitude), for inputs that reach BLAS in another
    memory layout.
    """
    if isinstance(a, pd.DataFrame) and isinstance(b, pd.DataFrame):
        # column by column, each in its own dtype: a frame of strings and floats is an
        # object array as a whole, where floats would be compared exactly
        assert list(a.columns) == list(b.columns), f"{path}: columns differ"
        for col in a.columns:
            assert_same(a[col], b[col], f"{path}[{col!r}]", rtol)
        return
    a, b = _plain(a), _plain(b)
    if a is b:
        return
    mod = type(a).__module__ or ""
    if mod.startswith("matplotlib"):
        return
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        a_, b_ = np.asarray(a), np.asarray(b)
        assert a_.shape == b_.shape, f"{path}: shape {a_.shape} != {b_.shape}"
        if (a_.dtype.kind in "fc" or b_.dtype.kind in "fc") and rtol and a_.size:
            scale = max(1.0, float(np.nanmax(np.abs(a_[np.isfinite(a_)]), initial=0.0)))
            np.testing.assert_allclose(a_, b_, rtol=rtol, atol=rtol * scale, err_msg=path)
        elif a_.dtype.kind in "fc" or b_.dtype.kind in "fc":
            np.testing.assert_array_equal(a_, b_, err_msg=path)
        else:
            assert np.array_equal(a_, b_), f"{path}: arrays differ"
        return
    if dataclasses.is_dataclass(a) and not isinstance(a, type):
        assert type(a) is type(b), f"{path}: {type(a).__name__} != {type(b).__name__}"
        for f in dataclasses.fields(a):
            assert_same(getattr(a, f.name), getattr(b, f.name), f"{path}.{f.name}", rtol)
        return
    if isinstance(a, dict):
        assert isinstance(b, dict) and a.keys() == b.keys(), f"{path}: keys differ"
        for k in a:
            assert_same(a[k], b[k], f"{path}[{k!r}]", rtol)
        return
    if isinstance(a, list | tuple):
        assert isinstance(b, list | tuple) and len(a) == len(b), f"{path}: lengths differ"
        for i, (x, y) in enumerate(zip(a, b)):
            assert_same(x, y, f"{path}[{i}]", rtol)
        return
    if isinstance(a, numbers.Number) and isinstance(b, numbers.Number):
        if isinstance(a, float | np.floating) and math.isnan(a):
            assert math.isnan(b), f"{path}: nan != {b!r}"
        elif rtol and isinstance(a, float | np.floating):
            assert abs(a - b) <= rtol * max(1.0, abs(a)), f"{path}: {a!r} != {b!r}"
        else:
            assert a == b, f"{path}: {a!r} != {b!r}"
        return
    if isinstance(a, str | bytes | bool | type(None)):
        assert a == b, f"{path}: {a!r} != {b!r}"
        return
    if isinstance(a, np.random.Generator | np.random.RandomState):
        assert type(a) is type(b) and repr(_stream_state(a)) == repr(_stream_state(b)), (
            f"{path}: streams differ")
        return
    if hasattr(a, "__dict__") and type(a) is type(b):
        assert_same(vars(a), vars(b), path, rtol)
        return
    assert a == b, f"{path}: {a!r} != {b!r}"

"""What every guarantee check shares: argument checks and replications through the runner."""

from __future__ import annotations

import inspect
import numbers
from functools import partial

import numpy as np

from ..simulation import run_study
from ..simulation._runner import BACKENDS
from ..utils import check_int, check_option, check_real, check_rng

__all__ = ["call_maker", "check_common", "replicate"]


def _entropy(random_state):
    """Root entropy for :func:`run_study`: an int as is, a generator drawn from, None fresh."""
    if isinstance(random_state, np.ndarray) and random_state.ndim == 0:
        random_state = random_state[()]
    if random_state is None:
        return None
    if isinstance(random_state, numbers.Integral) and not isinstance(random_state,
                                                                     bool | np.bool_):
        return check_int(random_state, "random_state", low=0)
    return int(check_rng(random_state).integers(0, 2**63 - 1))


def check_common(name, maker, make_data, n_reps, false_alarm, n_jobs, backend, progress):
    """Validate the arguments every check takes; return ``(n_reps, false_alarm)``."""
    if not callable(maker):
        raise TypeError(f"{name} must be callable, got {type(maker).__name__} {maker!r}.")
    if not callable(make_data):
        raise TypeError(f"make_data must be callable, got {type(make_data).__name__} "
                        f"{make_data!r}.")
    n_reps = check_int(n_reps, "n_reps", low=2)
    false_alarm = check_real(false_alarm, "false_alarm", low=0, high=0.5, closed="neither")
    if n_jobs is not None:
        n_jobs = check_int(n_jobs, "n_jobs")
        if n_jobs == 0 or n_jobs < -1:
            raise ValueError(f"n_jobs must be a positive integer or -1, got {n_jobs}.")
    if backend is not None:
        check_option(backend, "backend", BACKENDS)
    if not isinstance(progress, bool | np.bool_):
        raise TypeError(f"progress must be a bool, got {type(progress).__name__} {progress!r}.")
    return n_reps, false_alarm


def call_maker(maker, rng):
    """``maker(random_state)`` with a seed from ``rng``, or ``maker()`` if it takes none."""
    try:
        takes = len(inspect.signature(maker).parameters) > 0
    except (TypeError, ValueError):  # a builtin or C callable: assume it takes the seed
        takes = True
    seed = int(rng.integers(0, 2**31 - 1))
    return maker(seed) if takes else maker()


def unpack_data(data, name="make_data"):
    """``(X, y, X_test, y_test)`` from what ``make_data(rng)`` returned."""
    if not isinstance(data, tuple | list) or len(data) != 4:
        raise TypeError(f"{name}(rng) must return a tuple (X, y, X_test, y_test), got "
                        f"{type(data).__name__}"
                        + (f" of length {len(data)}" if isinstance(data, tuple | list) else "")
                        + ".")
    return data


def replicate(rep, n_reps, random_state, n_jobs, backend, progress, name, **bound):
    """Run ``rep(**bound, setting=..., rng=...)`` ``n_reps`` times through :func:`run_study`.

    Returns the table of outputs (one row per replication, in order).
    """
    fn = partial(_call, rep, bound)
    res = run_study(fn, None, n_reps=n_reps, random_state=_entropy(random_state),
                    n_jobs=n_jobs, backend=backend, progress=bool(progress), name=name)
    return res.table


def _call(rep, bound, setting, rng):
    return rep(rng=rng, **bound)


def check_alpha_level(alpha, name="alpha"):
    return check_real(alpha, name, low=0, high=1, closed="neither")

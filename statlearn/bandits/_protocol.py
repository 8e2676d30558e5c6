"""The policy protocol shared by every bandit runner in :mod:`statlearn.bandits`.

A policy is any object with three methods, called by the runners in this
order::

    policy.reset(<problem sizes>, horizon, random_state=rng)   # once per run
    for t in 1..horizon:
        action = policy.select(<what the agent sees>, t)
        <the environment plays the action>
        policy.update(<the action>, <the outcome>)

The arguments depend on the problem:

- queueing bandits: ``reset(n_servers, n_features, horizon, random_state)``;
  ``select(queue_X, t)`` returns ``(job_idx, server)`` or ``None``;
  ``update(x, server, departed)``.
- causal bandits: ``reset(n_arms, horizon, random_state)``; ``select(t)``
  returns an arm index; ``update(arm, reward)``.

``random_state`` is a :class:`numpy.random.Generator` owned by the run: a
policy that draws all its randomness from it is reproducible and gives the
same results for any ``n_jobs`` or backend of the Monte Carlo runner.
Built-in policies follow the same protocol, so a user's policy runs through
the same runners (on the step-by-step Python path).
"""

from __future__ import annotations

import numbers
from typing import Protocol, runtime_checkable

import numpy as np

from statlearn.utils import check_rng
from statlearn.utils._validation import _scalar

__all__ = ["BanditPolicy", "check_policy"]


@runtime_checkable
class BanditPolicy(Protocol):
    """Structural type of a bandit policy: ``reset`` / ``select`` / ``update``.

    Any object with these three methods is a policy; there is nothing to
    inherit. See the module documentation for the arguments each runner passes.

    Examples
    --------
    >>> from statlearn.bandits import BanditPolicy
    >>> class FirstArm:
    ...     def reset(self, n_arms, horizon, random_state=None):
    ...         return self
    ...     def select(self, t):
    ...         return 0
    ...     def update(self, arm, reward):
    ...         return self
    >>> isinstance(FirstArm(), BanditPolicy)
    True
    """

    def reset(self, *args, **kwargs):
        """Prepare a new run."""

    def select(self, *args, **kwargs):
        """Choose the action of round ``t``."""

    def update(self, *args, **kwargs):
        """Record the outcome of the chosen action."""


def check_policy(policy, name="policy"):
    """Check that ``policy`` has callable ``reset``, ``select`` and ``update`` methods.

    Parameters
    ----------
    policy : object
        Candidate policy.
    name : str, default="policy"
        Argument name used in the error message.

    Returns
    -------
    object
        ``policy`` itself.

    Raises
    ------
    TypeError
        Naming the missing methods.

    Examples
    --------
    >>> from statlearn.bandits import check_policy
    >>> try:
    ...     check_policy(object())
    ... except TypeError as err:
    ...     print(str(err).split("; ")[1])
    object lacks reset, select, update.
    """
    missing = [m for m in ("reset", "select", "update")
               if not callable(getattr(policy, m, None))]
    if missing or isinstance(policy, type):
        what = "is a class, not an instance" if isinstance(policy, type) else (
            "lacks " + ", ".join(missing))
        raise TypeError(
            f"{name} must be a bandit policy (an object with methods reset, select, update); "
            f"{type(policy).__name__ if not isinstance(policy, type) else policy.__name__} "
            f"{what}."
        )
    return policy


def _study_seed(random_state):
    """Root entropy for :func:`statlearn.simulation.run_study` from any random state.

    ``None`` and non-negative ints (NumPy ints and 0-d arrays included) are the
    root entropy itself, as ``run_study`` takes them; a ``SeedSequence``, a
    ``Generator`` or a ``RandomState`` gives one draw of 63 bits, so the same
    seeded object gives the same study (a generator advances by that draw).
    """
    rs = _scalar(random_state)
    if rs is None or (isinstance(rs, numbers.Integral) and not isinstance(rs, bool | np.bool_)):
        return rs
    if isinstance(rs, np.random.SeedSequence | np.random.Generator | np.random.RandomState):
        return int(check_rng(rs).integers(0, 2**63 - 1))
    raise TypeError(
        "random_state must be None, a non-negative int, a SeedSequence, a Generator or a "
        f"RandomState, got {type(rs).__name__} {rs!r}.")


def _integer_rounds(values, name):
    """A non-empty 1-D vector of round numbers as int64 (integral floats accepted).

    Lists, NumPy arrays of any real dtype and pandas objects are read by value
    (never by index); NaN, infinite or fractional entries raise an error
    naming ``name``.
    """
    arr = np.asarray(values)
    if arr.ndim != 1 or arr.size == 0:
        raise TypeError(f"{name} must be a non-empty 1-D sequence of integers, got shape "
                        f"{arr.shape}.")
    if np.issubdtype(arr.dtype, np.integer):
        return arr.astype(np.int64)
    if arr.dtype == np.bool_ or not np.issubdtype(arr.dtype, np.floating):
        raise TypeError(f"{name} must be a non-empty 1-D sequence of integers, got dtype "
                        f"{arr.dtype}.")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must not contain NaN or infinite values.")
    if not np.all(arr == np.round(arr)):
        bad = arr[arr != np.round(arr)][0]
        raise ValueError(f"{name} must hold whole round numbers, got {bad!r}.")
    return arr.astype(np.int64)


def _spawn(rng, n):
    """``n`` independent child generators of ``rng`` (``Generator.spawn``).

    A generator over a ``RandomState``'s legacy stream cannot spawn; its
    children are then seeded from one draw of it (the same seeded
    ``RandomState`` gives the same children).
    """
    try:
        return rng.spawn(n)
    except TypeError:
        seed = np.random.SeedSequence(rng.integers(0, 2**63 - 1, size=4))
        return [np.random.default_rng(s) for s in seed.spawn(n)]

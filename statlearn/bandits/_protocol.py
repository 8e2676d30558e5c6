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

from typing import Protocol, runtime_checkable

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

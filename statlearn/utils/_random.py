"""Random-state helpers: one way in for seeds, one way to split streams."""

from __future__ import annotations

import numbers

import numpy as np
from sklearn.utils import check_random_state

__all__ = ["check_random_state", "check_rng", "spawn_rngs", "spawn_seeds"]


def check_rng(random_state=None) -> np.random.Generator:
    """Turn ``random_state`` into a :class:`numpy.random.Generator`.

    Parameters
    ----------
    random_state : None, int, SeedSequence, Generator or RandomState
        ``None`` gives fresh OS entropy; an integer or a ``SeedSequence``
        seeds a new PCG64 generator; a ``Generator`` is returned as is; a
        ``RandomState`` is wrapped so that both share the same bit stream.

    Returns
    -------
    numpy.random.Generator

    Examples
    --------
    >>> import numpy as np
    >>> from statlearn.utils import check_rng
    >>> rng = check_rng(0)
    >>> check_rng(rng) is rng
    True
    >>> float(check_rng(0).random()) == float(check_rng(0).random())
    True
    >>> float(check_rng(np.asarray(0)).random()) == float(check_rng(0).random())
    True
    """
    if isinstance(random_state, np.ndarray) and random_state.ndim == 0:
        random_state = random_state[()]  # a 0-d array holding a seed is that seed
    if random_state is None or isinstance(random_state, np.random.SeedSequence):
        return np.random.default_rng(random_state)
    if isinstance(random_state, np.random.Generator):
        return random_state
    if isinstance(random_state, np.random.RandomState):
        return np.random.Generator(random_state._bit_generator)
    if isinstance(random_state, numbers.Integral) and not isinstance(random_state, bool | np.bool_):
        if random_state < 0:
            raise ValueError(f"random_state must be a non-negative integer, got {random_state}.")
        return np.random.default_rng(int(random_state))
    raise TypeError(
        "random_state must be None, a non-negative int, a SeedSequence, a Generator "
        f"or a RandomState, got {type(random_state).__name__} {random_state!r}."
    )


def spawn_seeds(random_state, n: int) -> list[np.random.SeedSequence]:
    """Spawn ``n`` independent :class:`numpy.random.SeedSequence` children.

    ``random_state`` may be anything :func:`check_rng` accepts; for integers
    and ``SeedSequence`` the children depend only on ``random_state`` and
    their index.

    Examples
    --------
    >>> from statlearn.utils import spawn_seeds
    >>> a, b = spawn_seeds(1, 2)
    >>> a.spawn_key, b.spawn_key
    ((0,), (1,))
    """
    if isinstance(random_state, np.ndarray) and random_state.ndim == 0:
        random_state = random_state[()]  # a 0-d array holding a seed is that seed
    if isinstance(random_state, np.random.SeedSequence):
        return random_state.spawn(n)
    if isinstance(random_state, numbers.Integral) and not isinstance(random_state, bool | np.bool_):
        return np.random.SeedSequence(int(random_state)).spawn(n)
    rng = check_rng(random_state)
    return np.random.SeedSequence(rng.integers(0, 2**63 - 1, size=4)).spawn(n)


def spawn_rngs(random_state, n: int) -> list[np.random.Generator]:
    """Spawn ``n`` independent generators (see :func:`spawn_seeds`).

    Examples
    --------
    >>> from statlearn.utils import spawn_rngs
    >>> len(spawn_rngs(0, 3))
    3
    """
    return [np.random.default_rng(s) for s in spawn_seeds(random_state, n)]

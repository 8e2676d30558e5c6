"""Random-state helpers: one way in for seeds, one way to split streams."""

from __future__ import annotations

import numbers

import numpy as np
from sklearn.utils import check_random_state

__all__ = ["check_random_state", "check_rng", "spawn_rngs", "spawn_seeds"]


def check_rng(seed=None) -> np.random.Generator:
    """Turn ``seed`` into a :class:`numpy.random.Generator`.

    Parameters
    ----------
    seed : None, int, numpy.random.SeedSequence, numpy.random.Generator or numpy.random.RandomState
        ``None`` gives fresh OS entropy; an integer or a ``SeedSequence``
        seeds a new PCG64 generator; a ``Generator`` is returned as is; a
        ``RandomState`` is wrapped so that both share the same bit stream.

    Returns
    -------
    numpy.random.Generator

    Examples
    --------
    >>> from statlearn.utils import check_rng
    >>> rng = check_rng(0)
    >>> check_rng(rng) is rng
    True
    >>> float(check_rng(0).random()) == float(check_rng(0).random())
    True
    """
    if seed is None or isinstance(seed, np.random.SeedSequence):
        return np.random.default_rng(seed)
    if isinstance(seed, np.random.Generator):
        return seed
    if isinstance(seed, np.random.RandomState):
        return np.random.Generator(seed._bit_generator)
    if isinstance(seed, numbers.Integral) and not isinstance(seed, bool | np.bool_):
        if seed < 0:
            raise ValueError(f"random_state must be a non-negative integer, got {seed}.")
        return np.random.default_rng(int(seed))
    raise TypeError(
        "random_state must be None, a non-negative int, a SeedSequence, a Generator "
        f"or a RandomState, got {type(seed).__name__} {seed!r}."
    )


def spawn_seeds(seed, n: int) -> list[np.random.SeedSequence]:
    """Spawn ``n`` independent :class:`numpy.random.SeedSequence` children.

    ``seed`` may be anything :func:`check_rng` accepts; for integers and
    ``SeedSequence`` the children depend only on ``seed`` and their index.

    Examples
    --------
    >>> from statlearn.utils import spawn_seeds
    >>> a, b = spawn_seeds(1, 2)
    >>> a.spawn_key, b.spawn_key
    ((0,), (1,))
    """
    if isinstance(seed, np.random.SeedSequence):
        return seed.spawn(n)
    if isinstance(seed, numbers.Integral) and not isinstance(seed, bool | np.bool_):
        return np.random.SeedSequence(int(seed)).spawn(n)
    rng = check_rng(seed)
    return np.random.SeedSequence(rng.integers(0, 2**63 - 1, size=4)).spawn(n)


def spawn_rngs(seed, n: int) -> list[np.random.Generator]:
    """Spawn ``n`` independent generators (see :func:`spawn_seeds`).

    Examples
    --------
    >>> from statlearn.utils import spawn_rngs
    >>> len(spawn_rngs(0, 3))
    3
    """
    return [np.random.default_rng(s) for s in spawn_seeds(seed, n)]

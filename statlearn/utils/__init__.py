"""Shared plumbing: validation, random state, array backends, numba, results."""

from ._array_api import asarray_like, get_namespace, to_numpy
from ._numba import NUMBA_ENABLED, jit, prange, set_num_threads_ctx
from ._optional import has_module, import_optional
from ._random import check_random_state, check_rng, spawn_rngs, spawn_seeds
from ._results import ConfidenceInterval, Summary, normal_interval
from ._validation import (
    check_alpha,
    check_array,
    check_consistent_length,
    check_int,
    check_option,
    check_probabilities,
    check_real,
)

__all__ = [
    "NUMBA_ENABLED",
    "ConfidenceInterval",
    "Summary",
    "asarray_like",
    "check_alpha",
    "check_array",
    "check_consistent_length",
    "check_int",
    "check_option",
    "check_probabilities",
    "check_random_state",
    "check_real",
    "check_rng",
    "get_namespace",
    "has_module",
    "import_optional",
    "jit",
    "normal_interval",
    "prange",
    "set_num_threads_ctx",
    "spawn_rngs",
    "spawn_seeds",
    "to_numpy",
]

"""Calibration test classes ``H``: the matrix ``h_k(v_i)`` for named classes and callables."""

from __future__ import annotations

import numpy as np

from ..utils import check_array, check_int
from ._utility import _best_response

__all__: list[str] = []

TEST_CLASSES = ("self_orthogonal", "decision", "binwise", "full", "none")


def check_tests(tests):
    """Validate the ``tests`` parameter (a name, a callable or a list of callables)."""
    if isinstance(tests, str):
        if tests not in TEST_CLASSES:
            raise ValueError(f"tests must be one of {list(TEST_CLASSES)}, a callable or a list "
                             f"of callables, got {tests!r}.")
        return tests
    if callable(tests):
        return tests
    if isinstance(tests, list | tuple) and all(callable(t) for t in tests):
        return tests
    raise TypeError(f"tests must be one of {list(TEST_CLASSES)}, a callable or a list of "
                    f"callables, got {type(tests).__name__} {tests!r}.")


def bin_edges(bins, lo, hi):
    """Edges of the bins of a bin-wise test class on ``[lo, hi]`` (``d = 1``)."""
    if isinstance(bins, np.ndarray) and bins.ndim == 0:
        bins = bins[()]  # a 0-d array is the number it holds
    if isinstance(bins, int | np.integer) and not isinstance(bins, bool):
        nb = check_int(bins, "bins", low=1)
        return np.linspace(lo, hi, nb + 1)
    edges = check_array(bins, "bins", ensure_2d=False, dtype=float)
    if edges.ndim != 1 or edges.shape[0] < 2 or np.any(np.diff(edges) <= 0):
        raise ValueError("bins must be a positive int or a strictly increasing 1-D array of "
                         f"at least 2 edges, got {bins!r}.")
    return edges


def bin_index(v, edges):
    """Bin of each scalar forecast; bins are ``[e_j, e_{j+1})``, the last one closed."""
    if np.any(v < edges[0]) or np.any(v > edges[-1]):
        raise ValueError(f"forecasts must lie within the bin edges [{edges[0]}, {edges[-1]}].")
    return np.clip(np.searchsorted(edges, v, side="right") - 1, 0, len(edges) - 2)


def test_matrix(tests, V, U, c, *, intercept=False, edges=None):
    """Values ``h_k(v_i)`` (n, k) of the test class ``tests`` at forecasts ``V`` (n, d)."""
    n, d = V.shape
    if isinstance(tests, str):
        if tests == "self_orthogonal":
            H = V.copy()
        elif tests == "decision":
            a = _best_response(V, U, c)
            H = (a[:, None] == np.arange(U.shape[0])[None, :]).astype(float)
        elif tests == "binwise":
            if d != 1:
                raise ValueError("tests='binwise' needs scalar forecasts (d = 1); pass a "
                                 "callable of bin indicators for d > 1.")
            b = bin_index(V[:, 0], edges)
            H = (b[:, None] == np.arange(len(edges) - 1)[None, :]).astype(float)
        elif tests == "full":
            _, inv = np.unique(V, axis=0, return_inverse=True)
            inv = np.asarray(inv).ravel()
            H = (inv[:, None] == np.arange(inv.max() + 1)[None, :]).astype(float)
        else:  # "none"
            H = np.zeros((n, 0))
    else:
        funcs = [tests] if callable(tests) else list(tests)
        cols = []
        for f in funcs:
            h = np.asarray(f(V), dtype=float)
            if h.ndim == 1:
                h = h[:, None]
            if h.ndim != 2 or h.shape[0] != n:
                raise ValueError(f"tests: each test function must return an array of shape "
                                 f"(n,) or (n, k) for n={n} forecasts, got {h.shape}.")
            if not np.all(np.isfinite(h)):
                raise ValueError("tests: the test functions returned NaN or infinite values.")
            cols.append(h)
        H = np.hstack(cols) if cols else np.zeros((n, 0))
    if intercept:
        H = np.hstack([H, np.ones((n, 1))])
    return H

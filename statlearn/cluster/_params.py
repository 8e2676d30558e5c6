"""Parameter resolution and memory accounting for the clustering oracle.

The parameters themselves are checked against the oracle's
``_parameter_constraints`` (:mod:`statlearn.base`) before :func:`resolve`
runs; it only combines them (defaults, the cross-parameter rules, the memory
budget) for a graph with ``n`` vertices.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from statlearn.base import _refuse_inactive_params
from statlearn.utils import check_int
from statlearn.utils._validation import _scalar

__all__ = ["Resolved", "at_walks", "default_fast_walks", "default_n_repeats",
           "default_walk_length_candidates", "memory_layout", "refuse_inactive", "resolve",
           "walk_accounting", "walk_length_candidates"]

#: words per buffered walk endpoint in the batched estimator (a bare endpoint list)
WORDS_PER_ENDPOINT = 1
#: fast mode: ``R = 8 sqrt(n / k)`` walks per side give about 64 expected collisions
#: between a vertex and a landmark of its cluster (collision probability ``k / n``)
FAST_WALKS_FACTOR = 8.0
#: ``n_walks="auto"`` (every mode): the eigen-gap ratio ``sigma_k / sigma_{k+1}`` to reach
#: (the walk-length search's own success mark) and the most doublings of the walks
AUTO_WALKS_GAP = 2.0
AUTO_WALKS_DOUBLINGS = 4


def default_fast_walks(n: int, k: int) -> int:
    """Fast mode's default ``n_walks``: ``max(16, ceil(8 sqrt(n / k)))``.

    Examples
    --------
    >>> from statlearn.cluster._params import default_fast_walks
    >>> default_fast_walks(100_000, 6)
    1033
    """
    return max(16, math.ceil(FAST_WALKS_FACTOR * math.sqrt(n / k)))


def default_n_repeats(n: int) -> int:
    """``ceil(log2(n)/2)``, at least 3, rounded up to odd (``n = 3000`` gives 7)."""
    r = max(3, math.ceil(math.log2(max(n, 2)) / 2))
    return r if r % 2 else r + 1


def default_walk_length_candidates(n: int, laziness: float = 0.5) -> tuple:
    """Powers of two from 4 up to ``max(16, 8 ln n)`` (``n = 3000``: 4..64).

    With a ``laziness`` ``l`` other than 1/2 (the degree-normalised walk) the walk mixes
    in about ``c = 1 / (2 (1 - l))`` times the steps of the lazy walk: lengths scale by ``c``,
    and the grid is finer (ratio ``sqrt 2``), because the window of good lengths of a
    less lazy walk is a few steps wide: rounded ``2**(i/2)`` from ``max(2, 4 c)`` up to
    ``max(16, 8 ln n) c`` (``n = 10**4``, ``l = 0.1``: 2, 3, 4, 6, 8, 11, 16, 23, 32).
    """
    top = max(16, 8 * math.log(n))
    if laziness == 0.5:
        out, t = [], 4
        while t <= top:
            out.append(t)
            t *= 2
        return tuple(out)
    c = 1.0 / (2.0 * (1.0 - laziness))
    lo, hi = max(2, math.floor(4 * c)), top * c
    out, i = [], 0
    while True:
        t = round(lo * 2 ** (i / 2))
        if t > hi and len(out) >= 3:
            return tuple(sorted(set(out)))
        out.append(t)
        i += 1


def refuse_inactive(est) -> None:
    """Refuse the parameters the oracle's other settings never read (``ValueError``).

    ``walk_length_candidates`` and ``walk_length_rule`` choose among walk lengths, so a
    fixed ``walk_length`` leaves them nothing to do; ``max_query_walks`` caps the
    sequential queries, which only ``error_rate`` turns on; ``threshold_scale`` sets
    the default ``threshold``. Each must keep its default there.
    """
    if not isinstance(_scalar(est.walk_length), str):
        _refuse_inactive_params(est, ("walk_length_candidates", "walk_length_rule"),
                                f"with a fixed walk_length={_scalar(est.walk_length)!r} "
                                "(they choose the length when walk_length='auto')")
    if est.error_rate is None:
        _refuse_inactive_params(est, ("max_query_walks",),
                                "without error_rate (it caps the sequential queries that "
                                "error_rate turns on, in mode='fast')")
    if est.threshold is not None:
        _refuse_inactive_params(est, ("threshold_scale",),
                                "when threshold is given (it scales the default threshold)")


def walk_length_candidates(est, n: int) -> tuple:
    """The walk lengths the automatic choice tries, sorted and distinct (``()`` for a fixed
    ``walk_length``): ``walk_length_candidates``, or the default for ``n`` vertices."""
    if not isinstance(_scalar(est.walk_length), str):
        return ()
    cands = est.walk_length_candidates
    if cands is None:
        laziness = float(_scalar(getattr(est, "laziness", 0.5)))
        return default_walk_length_candidates(n, laziness)
    arr = np.asarray(cands, dtype=object)
    if arr.ndim != 1:
        raise TypeError("walk_length_candidates must be a 1-D sequence of positive ints, "
                        f"got shape {arr.shape}.")
    out = tuple(sorted({check_int(c, "walk_length_candidates", low=1) for c in arr}))
    if not out:
        raise ValueError("walk_length_candidates must not be empty.")
    return out


def memory_layout(s: int, sc: int, k: int, reps: int, n_candidates: int = 0):
    """Words held in each phase of the construction, split as ``(with_walks, without)``.

    The construction holds the walk buffer only in the phases that run walks;
    with ``buffer`` words of walk buffer (the stored endpoints) the peak is
    ``max(with_walks + buffer, without)``. Phases (sequential algorithm):

    * walk-length selection: landmark lists ``s + sc``, Gram ``s**2``, its
      eigenvalues ``s``, candidate scores, median buffer ``reps``;
    * Gram matrix: ``s + sc + s**2 + reps``;
    * eigendecomposition (in place) and Psi: ``s + sc + s**2 + s*k + k``;
    * cluster-landmark cache: ``s + sc + s**2 (Psi) + s*sc + reps``;
    * every phase with walks also holds the current streamed walk position
      and the collision counter (2 words);
    * similarity graph, one row at a time with union-find:
      ``s + sc + s**2 + s*sc + 2*sc``.
    """
    base = s + sc + s * s
    with_walks = 2 + max(base + s + n_candidates + reps if n_candidates else 0,
                         base + reps,
                         base + s * sc + reps)
    without = max(base + s * k + k, base + s * sc + 2 * sc)
    return with_walks, without


@dataclass(frozen=True)
class Resolved:
    """Parameters after defaults (all plain ints / floats)."""

    n: int
    k: int
    s: int
    sc: int
    reps: int
    batch_size: int
    n_walks: int
    n_batches: int
    buffer_words: int
    threshold: float
    prior: bool
    fast: bool = False
    auto_walks: bool = False


def _opt_int(value):
    """An already validated optional int parameter as a Python int (or None)."""
    return None if value is None else int(_scalar(value))


def resolve(est, n: int, n_candidates: int) -> Resolved:
    """Resolve the oracle's defaults for a graph with ``n`` vertices.

    The paper's parameters (Theorem 3.2 of Shen, Zhu, Peng and Huang 2026) are
    asymptotic; these defaults are practical choices of this library, listed
    in the oracle's docstring. The parameters must have passed the oracle's
    constraint check.
    """
    k = int(_scalar(est.n_clusters))
    if k > n:
        raise ValueError(f"n_clusters must be at most the number of vertices {n}, got {k}.")
    gamma = float(_scalar(est.balance))
    s = _opt_int(est.n_landmarks)
    if s is None:
        s = math.ceil(10 * k * math.log(k + 1) + 20)
    sc = _opt_int(est.n_cluster_landmarks)
    if sc is None:
        sc = math.ceil(10 * k * math.log(k + 1) / gamma)
    if k > 1 and k >= s:
        raise ValueError(f"n_clusters must be below n_landmarks={s}, got {k}.")
    reps = _opt_int(est.n_repeats)
    if reps is None:
        reps = default_n_repeats(n)
    prior = est.mode == "prior"
    fast = est.mode == "fast"
    if fast:
        for name in ("batch_size", "memory_budget", "n_repeats"):
            if getattr(est, name) is not None:
                raise ValueError(f"{name} is not used with mode='fast' (landmark walks are "
                                 "stored once, no median over repeats); leave it None.")
        reps = 1
    elif getattr(est, "error_rate", None) is not None:
        raise ValueError("error_rate (sequential queries) needs mode='fast'.")
    if est.batch_size is not None and est.memory_budget is not None:
        raise ValueError("give at most one of batch_size and memory_budget.")
    if prior and est.batch_size is not None:
        raise ValueError("batch_size is not used with mode='prior' (it stores all n_walks "
                         "endpoints); set n_walks or memory_budget instead.")
    b = _opt_int(est.batch_size)
    auto_walks = isinstance(_scalar(est.n_walks), str)
    r = None if auto_walks else _opt_int(est.n_walks)
    budget = _opt_int(est.memory_budget)
    if auto_walks and prior and budget is not None:
        raise ValueError("n_walks='auto' cannot be combined with memory_budget in "
                         "mode='prior': there the budget fixes n_walks (2 * n_walks buffer "
                         "words), which the doubling would exceed; give one of the two, or "
                         "use mode='batched', where the budget sets batch_size.")
    if budget is not None:
        with_walks, without = memory_layout(s, sc, k, reps, n_candidates)
        free = budget - with_walks
        need = 2 if prior else 1
        if free < need or without > budget:
            raise ValueError(
                f"memory_budget={budget} words is too small: the landmark structures alone "
                f"need {max(with_walks + need, without)} words (n_landmarks={s}, "
                f"n_cluster_landmarks={sc}, n_repeats={reps}).")
        if prior:
            r_budget = free // 2
            if r is not None and r > r_budget:
                raise ValueError(f"n_walks={r} needs {2 * r} buffer words in mode='prior', "
                                 f"but memory_budget leaves {free}.")
            r = r if r is not None else r_budget
        else:
            b = free // WORDS_PER_ENDPOINT
    if fast:
        if r is None:
            r = default_fast_walks(n, k)
        b = r
    elif prior:
        if r is None:
            r = math.ceil(math.sqrt(4 * n))
        b = r
    else:
        if b is None:
            b = math.ceil(math.sqrt(n))
        if r is None:
            r = max(b, math.ceil(4 * n / b))
        b = min(b, r)
    n_batches = -(-r // b)
    top = n_batches << AUTO_WALKS_DOUBLINGS if auto_walks else n_batches
    if 2 * top * b >= 2**32:
        raise ValueError("n_walks is too large: 2 * n_walks must stay below 2**32"
                         + (f" (n_walks='auto' may double it {AUTO_WALKS_DOUBLINGS} times)."
                            if auto_walks else "."))
    buffer_words = 2 * b if prior else WORDS_PER_ENDPOINT * b
    if est.threshold is None:
        theta = float(_scalar(est.threshold_scale)) * gamma * k / n
    else:
        theta = float(_scalar(est.threshold))
    return Resolved(n=n, k=k, s=s, sc=sc, reps=reps, batch_size=b, n_walks=n_batches * b,
                    n_batches=n_batches, buffer_words=buffer_words, threshold=theta,
                    prior=prior, fast=fast, auto_walks=auto_walks)


def at_walks(p: Resolved, n_walks: int) -> Resolved:
    """The batched or prior parameters ``p`` with ``n_walks`` walks per side (a multiple of
    ``p.batch_size`` in the batched mode; ``n_walks="auto"`` doubles it from round to round).

    The batch size, the memory knob, stays; the batches (batched) or the stored endpoints
    (prior: one batch of all ``n_walks``, ``2 n_walks`` buffer words) follow ``n_walks``.
    """
    r = int(n_walks)
    if p.prior:
        return replace(p, n_walks=r, batch_size=r, n_batches=1, buffer_words=2 * r)
    if r % p.batch_size:
        raise ValueError(f"n_walks={r} is not a multiple of batch_size={p.batch_size}.")
    return replace(p, n_walks=r, n_batches=r // p.batch_size)


def walk_accounting(p: Resolved, n_candidates: int) -> dict:
    """The fitted accounting attributes of a batched or prior build with parameters ``p``:
    walks, batches and the words held while building ``D`` and by a query."""
    with_walks, without = memory_layout(p.s, p.sc, p.k, p.reps, n_candidates)
    return {"batch_size_": p.batch_size, "n_walks_": p.n_walks, "n_batches_": p.n_batches,
            "walk_buffer_words_": p.buffer_words,
            "peak_memory_words_": max(with_walks + p.buffer_words, without),
            "query_memory_words_": p.s + p.sc + p.reps + p.buffer_words + 2}

"""The oracle's build as resumable stages: a typed build state, time budget, progress, retries.

A build (``SpectralClusteringOracle.fit``) runs the stages of its mode, the
batched and prior stages of :mod:`._batched_build` or the fast stages of
:mod:`._landmark_index`. A stage function is a generator: it reads and extends
one :class:`BuildState` and yields ``(stage name, walk steps)`` after every
piece of work it has committed to the state (the landmark walks of one length
for a chunk of landmarks, a Gram matrix, a chunk of cluster landmarks or of
estimated pairs). Because every result is kept as soon as it is done, and the
random streams are fixed per stage (one seed per phase of each attempt), a
build stopped after any stage, by ``time_budget`` or an interruption
(``Ctrl-C``), goes on from there with :meth:`SpectralClusteringOracle.resume`
and ends with exactly the oracle an uninterrupted build gives.

:func:`run_build` drives the stages: it counts the walk steps, shows them in a
progress bar, stops after the stage during which the time budget ran out, marks
the oracle ``"partial"`` on an interruption and starts the next attempt (fresh
landmarks from the next seed) when the construction fails and retries are left.
"""

from __future__ import annotations

import math
import os
import sys
import time
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import numpy as np

from statlearn.utils._validation import _scalar

__all__ = ["Build", "BuildState", "LandmarkSample", "OracleConstructionError", "Search",
           "check_built", "one_cluster_build", "refusal", "run_build", "start_attempt",
           "warn_at_caller"]

#: the phases of one attempt, each with its own child seed (the streams are fixed per phase)
PHASES = ("landmarks", "walk_length", "gram", "clusters", "queries")


class OracleConstructionError(RuntimeError):
    """The similarity graph on the cluster landmarks did not have ``n_clusters`` components.

    The paper reports these runs as "construction failed": too few walks
    (estimates too noisy), a walk length that leaks across clusters or does
    not mix inside them, or ``n_clusters`` not matching the graph.
    """


def refusal(message, eigenvalues, component_sizes, walk_steps):
    """Construction error carrying its diagnostic (eigenvalues, components, steps spent)."""
    exc = OracleConstructionError(message)
    exc.walk_steps = int(walk_steps)
    exc.eigenvalues = eigenvalues
    exc.component_sizes = component_sizes
    return exc


def warn_at_caller(message, category=UserWarning):
    """Warn at the caller's line: the first frame outside the statlearn package.

    The build runs in stages (generators) under ``fit`` (wrapped by the base
    layer) or :meth:`SpectralClusteringOracle.resume`, so a fixed
    ``stacklevel`` would point into statlearn on one of the two paths.
    """
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    frame, level = sys._getframe(1), 2
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(root):
        frame, level = frame.f_back, level + 1
    warnings.warn(message, category, stacklevel=level)


@dataclass(frozen=True)
class LandmarkSample:
    """The landmarks of one attempt and the child seed of each of its phases."""

    seeds: dict  # phase name -> SeedSequence (see PHASES)
    landmarks: np.ndarray
    cluster_landmarks: np.ndarray


@dataclass(frozen=True)
class Search:
    """Where the walk-length search stands after the candidates tried so far.

    ``scores`` maps each candidate tried (in the order tried) to its eigen-gap
    ratio; ``stopped`` says that the search rule ended the search (the
    remaining candidates are not tried). Replaced as a whole after each
    candidate, so an interruption never leaves half of it updated.
    """

    scores: dict
    stopped: bool
    #: ``sigma_k`` over the noise edge per candidate (see :func:`._embedding.signal_to_noise`)
    snr: dict = field(default_factory=dict)


@dataclass
class BuildState:
    """What one attempt of the build has done so far (kept across :func:`run_build` calls).

    Attributes
    ----------
    seed : SeedSequence
        The attempt's seed (one child per attempt of ``random_state``).
    steps : int
        Walk steps spent by the stages done.
    sample : LandmarkSample or None
        The landmarks and phase seeds, drawn once per attempt.
    search : Search or None
        The walk-length search (``None`` until a candidate was tried).
    pieces : dict
        Finished pieces of the chunked estimates, by name (``"select<t>"``,
        ``"gram"``, ``"alpha"``), each a dict ``chunk index -> array``.
    warned : bool
        Whether the small eigen-gap warning was given (once per attempt).
    """

    seed: np.random.SeedSequence
    steps: int = 0
    sample: LandmarkSample | None = None
    search: Search | None = None
    pieces: dict = field(default_factory=dict)
    warned: bool = False


@dataclass
class Build:
    """A build in progress: the seed of every attempt, the walk-length candidates, the
    current attempt (0 for the first) and its state."""

    seeds: list  # one SeedSequence per attempt
    cands: tuple
    state: BuildState
    attempt: int = 0
    first: object = None  # the parameters fit resolved (the first round of n_walks="auto")


def start_attempt(o, st: BuildState) -> LandmarkSample:
    """Landmarks and per-phase seeds of this attempt (sampled once, then kept)."""
    if st.sample is None:
        seeds = dict(zip(PHASES, st.seed.spawn(len(PHASES))))
        rng = np.random.default_rng(seeds["landmarks"])
        landmarks = _sample_landmarks(o._g, rng, o._p.s)
        cluster_landmarks = _sample_landmarks(o._g, rng, o._p.sc)
        st.sample = LandmarkSample(seeds, landmarks, cluster_landmarks)
    o.landmarks_ = st.sample.landmarks
    o.cluster_landmarks_ = st.sample.cluster_landmarks
    return st.sample


def _sample_landmarks(g, rng, size):
    """Uniform vertices, those of degree 0 drawn again (they would be singleton clusters)."""
    out = rng.integers(0, g.n, size=size)
    for _ in range(1000):
        bad = np.flatnonzero(g.degrees(out) == 0)
        if bad.size == 0:
            return out.astype(np.int64)
        out[bad] = rng.integers(0, g.n, size=bad.size)
    raise ValueError("graph has (almost) only isolated vertices: could not sample "
                     "landmarks of positive degree.")


def one_cluster_build(o):
    """The build for ``n_clusters=1``: nothing to build, every vertex is in cluster 0."""
    o.walk_length_ = None if o._auto_length else int(_scalar(o.walk_length))
    empty = np.zeros(0, dtype=np.int64)
    o.landmarks_ = o.cluster_landmarks_ = o.landmark_labels_ = empty
    o.psi_ = np.zeros((0, 0))
    o.gram_eigenvalues_ = np.zeros(0)
    o.eigengap_ = math.inf
    o.signal_to_noise_ = math.inf
    o.peak_memory_words_ = 0
    o.walk_steps_fit_ = o.walk_steps_per_query_ = o.query_memory_words_ = 0
    o.n_attempts_ = 1
    o.build_state_, o.build_stage_ = "complete", "done"
    return o


def planned_steps(p, cands, walk_length):
    """Walk steps of the whole build if the walk-length search runs to its end."""
    t_max = max(cands) if cands else int(_scalar(walk_length))
    if p.fast:
        return 2 * p.s * p.n_walks * t_max + p.sc * p.n_walks * t_max
    per = 2 * p.n_walks
    pairs = p.s * (p.s + 1) // 2
    sel = min(p.reps, 3) * pairs * per * sum(cands) if cands else 0
    return sel + p.reps * (pairs + p.sc * p.s) * per * t_max


Stages = Callable[[object, BuildState], Iterator[tuple[str, int]]]


def run_build(o, stages: Stages):
    """Run ``stages(o, state)`` until done, the time budget is spent or an interrupt.

    Returns ``o``, with ``build_state_`` ``"complete"`` or (time budget spent)
    ``"partial"``; marks it ``"partial"`` and raises again on
    ``KeyboardInterrupt``, ``"failed"`` on an :class:`OracleConstructionError`
    once no retry is left.
    """
    tb = _scalar(o.time_budget)
    budget = None if tb is None else float(tb)
    from tqdm.auto import tqdm

    build = o._build
    start = time.perf_counter()
    bar = tqdm(total=planned_steps(o._p, build.cands, o.walk_length),
               disable=not bool(_scalar(o.progress)), unit="step", unit_scale=True,
               desc="oracle build", leave=False)
    bar.update(build.state.steps)
    try:
        while True:
            st = build.state
            try:
                for stage, steps in stages(o, st):
                    st.steps += int(steps)
                    o.build_stage_ = stage
                    bar.update(int(steps))
                    # stages are coarse (tens to hundreds): show each one
                    bar.set_description(f"oracle build: {stage}", refresh=True)
                    if budget is not None and time.perf_counter() - start >= budget:
                        o.build_state_ = "partial"
                        warn_at_caller(
                            f"time_budget={budget:g} s spent: the oracle build stopped after "
                            f"stage {stage!r} ({st.steps} walk steps); it cannot answer "
                            "queries yet. Call resume() to finish it (the work done is "
                            "kept).")
                        return o
            except OracleConstructionError:
                if build.attempt < int(_scalar(o.max_retries)):
                    build.attempt += 1
                    build.state = type(st)(seed=build.seeds[build.attempt])
                    o.n_attempts_ = build.attempt + 1
                    continue
                o.build_state_ = "failed"
                raise
            o.build_state_ = "complete"
            o.build_stage_ = "done"
            return o
    except KeyboardInterrupt:
        o.build_state_ = "partial"
        raise
    finally:
        bar.close()


def check_built(o, method=None, *, resuming=False, after=False):
    """The oracle's own refusals around :meth:`~statlearn.base.FitStateMixin._check_fitted`.

    Before it (``after=False``): ``NotFittedError`` after a failed build (``resuming``:
    ``OracleConstructionError``) and, for :meth:`resume`, without a build. After it:
    ``NotFittedError`` for queries while the build is partial. ``StaleFitError`` (a
    parameter that shapes the answers changed since ``fit``) comes from the mixin."""
    from sklearn.exceptions import NotFittedError

    state = o.__dict__.get("build_state_")
    if after:
        if state != "complete" and not resuming:
            raise NotFittedError(
                f"the oracle build is {state} (stopped after stage {o.build_stage_!r}): it "
                "cannot answer queries. Call resume() to finish a partial build, or fit "
                "again.")
        return
    if state == "failed":
        if resuming:
            raise OracleConstructionError("the build failed (see the error fit raised); "
                                          "there is nothing to resume: call fit again.")
        raise NotFittedError(
            f"the oracle build failed (stopped after stage {o.build_stage_!r}): it "
            "cannot answer queries; fit again.")
    if resuming and "_build" not in o.__dict__:
        raise NotFittedError(f"this {type(o).__name__} instance has no build to resume; "
                             "call fit(graph) first.")

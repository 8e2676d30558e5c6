"""Positions of keyed lazy walks on every engine: drawn from the start, or continued.

The stored-walk estimator of fast mode keeps walk *positions*, not collision
counts: a landmark's walks are drawn once and continued from one walk length
to the next, a query vertex's walks are drawn once and looked up in the
landmark index (:mod:`._landmark_index`). Walks of a vertex are keyed by the
vertex (and a tag) only, so a vertex gets the same walks whichever other
vertices are asked with it; the draws are counter based, so a walk stopped
after ``t`` steps goes on exactly as if it had never stopped.
"""

from __future__ import annotations

import numpy as np

from statlearn.utils import set_num_threads_ctx, to_numpy

from ._graph import GraphAccess
from ._kernels import advance_walks_kernel, walk_endpoints_kernel, weighted_walk_endpoints_kernel
from ._references import walk_endpoints_xp
from ._walks import _namespace, _walk_object, derive_keys

__all__ = ["position_dtype", "vertex_walks", "walk_endpoints", "walk_rows"]


_WALK_CHUNK = 1 << 17


def walk_endpoints(g: GraphAccess, starts, keys, walk_ids, ts, *, backend="numba", n_jobs=None):
    """Positions ``(len(ts), n_walks)`` of lazy walks on any backend (same walks everywhere)."""
    starts = np.ascontiguousarray(starts, dtype=np.int64)
    keys = np.ascontiguousarray(keys, dtype=np.uint64)
    walk_ids = np.ascontiguousarray(walk_ids, dtype=np.int64)
    ts_list = [int(t) for t in ts]
    if starts.size == 0:
        return np.zeros((len(ts_list), 0), dtype=np.int64)
    if not g.has_csr:
        out = np.empty((len(ts_list), starts.size), dtype=np.int64)
        for i in range(starts.size):
            out[:, i] = _walk_object(g, starts[i], keys[i, 0], keys[i, 1], walk_ids[i], ts_list)
        return out
    if g.weights is not None:
        # weighted walks: Numba kernel on every backend (the array-API path is unweighted)
        with set_num_threads_ctx(n_jobs):
            return weighted_walk_endpoints_kernel(g.indptr, g.indices, g.weights,
                                                  float(g.max_weight), starts, keys, walk_ids,
                                                  np.asarray(ts_list, dtype=np.int64))
    if backend == "numba":
        with set_num_threads_ctx(n_jobs):
            return walk_endpoints_kernel(g.indptr, g.indices, g.step_degree, starts, keys,
                                         walk_ids, np.asarray(ts_list, dtype=np.int64),
                                         g.move_threshold)
    xp = _namespace(backend)
    out = walk_endpoints_xp(xp.asarray(g.indptr.astype(np.int64)),
                            xp.asarray(g.indices.astype(np.int64)), g.step_degree,
                            xp.asarray(starts), xp.asarray(keys), xp.asarray(walk_ids), ts_list,
                            g.move_threshold)
    return to_numpy(out).astype(np.int64)


def vertex_walks(g, vertices, base, first, count, ts, *, tags=None, backend="numba",
                 n_jobs=None):
    """Walks ``first .. first + count - 1`` of each vertex, keyed by ``(vertex, tag)`` only.

    A vertex gets the same walks whichever other vertices are asked with it,
    and the walks of later doubling rounds continue its walk ids. Distinct
    ``tags`` (default all 0) give the same vertex independent walk sets (used
    for landmarks, which are sampled with replacement).
    Returns endpoints of shape ``(len(ts), len(vertices), count)``.
    """
    vertices = np.asarray(vertices, dtype=np.int64)
    q = vertices.size
    tags = np.zeros(q, dtype=np.int64) if tags is None else np.asarray(tags, dtype=np.int64)
    keys = derive_keys(base, np.column_stack([vertices, tags]))
    out = np.empty((len(ts), q, count), dtype=np.int64)
    # chunks of at most _WALK_CHUNK walks: the per-walk starts, keys and ids are
    # temporaries of 4 words per walk, so they are never built for all walks at once
    per = max(1, _WALK_CHUNK // max(count, 1))
    ids = np.arange(first, first + count, dtype=np.int64)
    for lo in range(0, q, per):
        hi = min(q, lo + per)
        m = hi - lo
        ends = walk_endpoints(g, np.repeat(vertices[lo:hi], count),
                              np.repeat(keys[lo:hi], count, axis=0), np.tile(ids, m), ts,
                              backend=backend, n_jobs=n_jobs)
        out[:, lo:hi, :] = ends.reshape(len(ts), m, count)
    return out


def position_dtype(n):
    """Smallest index dtype for vertex ids below ``n`` (int32 below ``2**31``)."""
    return np.int32 if n < 2**31 - 1 else np.int64


def walk_rows(g: GraphAccess, vertices, keys, first, count, t, *, out=None, step0=0,
              backend="numba", n_jobs=None):
    """Positions ``(m, count)`` of walks ``first .. first + count - 1`` of each row's vertex.

    Row ``j`` holds the walks of ``vertices[j]`` under seed words ``keys[j]``
    (see :func:`vertex_walks`, which gives the same walks), after ``t``
    steps. With ``out`` (positions after ``step0`` steps, updated in place)
    the walks go on from there: on the Numba engine only the remaining
    ``t - step0`` steps are taken and nothing but the positions is held (one
    word per walk, int32 below ``2**31`` vertices); other engines redraw the
    walks from the start (same positions).
    """
    vertices = np.asarray(vertices, dtype=np.int64)
    keys = np.ascontiguousarray(keys, dtype=np.uint64)
    m = vertices.size
    if out is None:
        out = np.empty((m, count), dtype=position_dtype(g.n))
        out[:] = vertices[:, None]
        step0 = 0
    if t == step0 or m == 0 or count == 0:
        return out
    if backend == "numba" and g.has_csr:
        cumw = g.weights if g.weights is not None else np.zeros(0)
        d = float(g.max_weight) if g.weights is not None else float(g.step_degree)
        with set_num_threads_ctx(n_jobs):
            advance_walks_kernel(g.indptr, g.indices, cumw, d, out, keys, int(first),
                                 int(step0), int(t - step0), g.move_threshold)
        return out
    per = max(1, _WALK_CHUNK // max(count, 1))
    ids = np.arange(first, first + count, dtype=np.int64)
    for lo in range(0, m, per):
        hi = min(m, lo + per)
        ends = walk_endpoints(g, np.repeat(vertices[lo:hi], count),
                              np.repeat(keys[lo:hi], count, axis=0), np.tile(ids, hi - lo), [t],
                              backend=backend, n_jobs=n_jobs)
        out[lo:hi] = ends.reshape(hi - lo, count)
    return out

"""Linear programs of the robust decision problem and their fast special cases.

Notation: ``V`` (n, d) distinct forecasts with weights ``w`` (sum 1), ``Hm``
(n, k) the values ``h_k(V_i)`` of the calibration tests, ``U`` (m, d) and
``c`` (m,) the affine utility, ``[lo, hi]^d`` the outcome box, ``simplex``
whether outcomes are further restricted to the probability simplex.

The robust problem (Algorithm A) is the LP

    min  sum_i w_i t_i
    s.t. U_a . q_i - t_i <= -c_a                      (all i, a)
         sum_i w_i h_k(v_i) q_ij = sum_i w_i h_k(v_i) v_ij   (all k, j)
         lo <= q_ij <= hi   (and sum_j q_ij = 1 in simplex mode).

With HiGHS sign conventions the multipliers of the calibration rows are
``lambda = -marginals`` and the minimax policy is ``pi(a | v_i) = -marginal of
row (i, a) / w_i``. With ``eps > 0`` each calibration equality becomes the pair
``|.| <= eps`` (per test and per coordinate).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import sparse
from scipy.optimize import linprog

from ._utility import _TIE_TOL, _envelope_1d

__all__: list[str] = []


@dataclass
class _Solution:
    value: float
    q: np.ndarray
    pi: np.ndarray | None = None
    lam: np.ndarray | None = None


def _calibration_block(V, w, Hm):
    """Sparse rows ``sum_i w_i h_k(v_i) q_ij`` (row ``k*d + j``) and their right-hand side."""
    n, d = V.shape
    k = Hm.shape[1]
    if k == 0:
        return sparse.csr_matrix((0, n * d)), np.zeros(0)
    WH = w[:, None] * Hm                                   # (n, k)
    rows = (np.arange(k)[None, :, None] * d + np.arange(d)[None, None, :])  # (1, k, d)
    rows = np.broadcast_to(rows, (n, k, d))
    cols = np.broadcast_to((np.arange(n)[:, None, None] * d + np.arange(d)[None, None, :]),
                           (n, k, d))
    vals = np.broadcast_to(WH[:, :, None], (n, k, d))
    A = sparse.csr_matrix((vals.ravel(), (rows.ravel(), cols.ravel())), shape=(k * d, n * d))
    rhs = (WH.T @ V).ravel()                                # (k, d) -> k*d
    return A, rhs


def _simplex_block(n, d):
    rows = np.repeat(np.arange(n), d)
    cols = np.arange(n * d)
    return sparse.csr_matrix((np.ones(n * d), (rows, cols)), shape=(n, n * d)), np.ones(n)


#: HiGHS settings tried in turn. Every LP here has a known feasible point (the
#: forecasts themselves, ``q = V``), so an "infeasible" or numerical-trouble status is
#: a solver artefact: HiGHS's presolve reports infeasibility when ``eps`` lies
#: between its small-value and feasibility tolerances (about 1e-9 to 1e-7), for
#: example. The next setting is tried; only when every one fails is an error raised.
_HIGHS_ATTEMPTS = ({}, {"presolve": False}, {"presolve": False, "method": "highs-ipm"})


class _Inaccurate(RuntimeError):
    """A solver answer that fails a check of the caller (duals that are not a policy)."""


def _solve(c_obj, A_ub, b_ub, A_eq, b_eq, bounds, what, accept=None):
    """Solve with HiGHS, trying the settings of ``_HIGHS_ATTEMPTS`` in turn.

    ``accept(res)`` (optional) post-processes an optimal answer and raises
    :class:`_Inaccurate` to ask for the next setting. Returns ``(res, accepted)``
    when ``accept`` is given, else ``res``.
    """
    failures = []
    for attempt in _HIGHS_ATTEMPTS:
        options = {k: v for k, v in attempt.items() if k != "method"}
        res = linprog(c_obj, A_ub=A_ub, b_ub=b_ub, A_eq=A_eq, b_eq=b_eq, bounds=bounds,
                      method=attempt.get("method", "highs"), options=options or None)
        label = ", ".join(f"{k}={v}" for k, v in attempt.items()) or "default settings"
        if res.status != 0:
            failures.append(f"{label}: HiGHS status {res.status} ({res.message})")
            continue
        if accept is None:
            return res
        try:
            return res, accept(res)
        except _Inaccurate as exc:
            failures.append(f"{label}: {exc}")
    raise RuntimeError(f"the {what} LP could not be solved although it has a feasible point "
                       "(for the robust and worst-case LPs: the forecasts themselves); HiGHS "
                       "failed with every setting tried: " + "; ".join(failures))


def robust_lp(V, w, Hm, U, c, lo, hi, simplex=False, eps=0.0):
    """Algorithm A: the joint robust LP; value, q*, policy (duals) and lambda*.

    Solved in the deviations ``D = q - V``: the calibration and simplex rows then
    have the right-hand side exactly 0 and ``D = 0`` is exactly feasible (the
    rows and so the duals are those of the problem in ``q``).
    """
    n, d = V.shape
    m = U.shape[0]
    k = Hm.shape[1]
    nq = n * d
    # utility rows: U_a . (v_i + D_i) - t_i <= -c_a
    r = np.repeat(np.arange(n * m), d)
    col_q = (np.repeat(np.arange(n), m * d) * d + np.tile(np.arange(d), n * m))
    val_q = np.tile(U.ravel(), n)
    A_util = sparse.csr_matrix(
        (np.concatenate([val_q, -np.ones(n * m)]),
         (np.concatenate([r, np.arange(n * m)]),
          np.concatenate([col_q, nq + np.repeat(np.arange(n), m)]))),
        shape=(n * m, nq + n))
    b_util = (-(V @ U.T) - c).ravel()
    A_cal, _ = _calibration_block(V, w, Hm)
    A_cal = sparse.hstack([A_cal, sparse.csr_matrix((A_cal.shape[0], n))]).tocsr()
    zero = np.zeros(A_cal.shape[0])
    eq_blocks, eq_rhs = [], []
    ub_blocks, ub_rhs = [A_util], [b_util]
    if eps > 0:
        ub_blocks += [A_cal, -A_cal]
        ub_rhs += [zero + eps, zero + eps]
    else:
        eq_blocks.append(A_cal)
        eq_rhs.append(zero)
    if simplex:
        S, _ = _simplex_block(n, d)
        eq_blocks.append(sparse.hstack([S, sparse.csr_matrix((n, n))]).tocsr())
        eq_rhs.append(np.zeros(n))
    A_ub = sparse.vstack(ub_blocks).tocsr()
    b_ub = np.concatenate(ub_rhs)
    if eq_blocks:
        A_eq, b_eq = sparse.vstack(eq_blocks).tocsr(), np.concatenate(eq_rhs)
    else:
        A_eq = b_eq = None
    c_obj = np.concatenate([np.zeros(nq), w])
    bounds = _deviation_bounds(V, lo, hi) + [(None, None)] * n

    def policy(res):  # minimax policy from the duals of the utility rows
        return _clean_policy(-res.ineqlin.marginals[: n * m].reshape(n, m) / w[:, None])

    res, pi = _solve(c_obj, A_ub, b_ub, A_eq, b_eq, bounds, "robust", accept=policy)
    q = _from_deviation(V, res.x[:nq], lo, hi, simplex)
    marg_ub = res.ineqlin.marginals
    if eps > 0:
        mu1 = marg_ub[n * m: n * m + k * d]
        mu2 = marg_ub[n * m + k * d: n * m + 2 * k * d]
        lam = (mu2 - mu1).reshape(k, d)
    else:
        lam = -res.eqlin.marginals[: k * d].reshape(k, d) if k else np.zeros((0, d))
    return _Solution(value=float(res.fun), q=q, pi=pi, lam=lam)


def _clean_policy(pi):
    """Remove solver round-off (tiny negatives, sums off by ~1e-9) from dual policies."""
    pi = np.where(pi < 0, np.where(pi > -1e-7, 0.0, pi), pi)
    if np.any(pi < 0):
        raise _Inaccurate("the LP duals do not form a policy (negative weight); "
                          "the solver returned an inaccurate solution.")
    s = pi.sum(axis=1, keepdims=True)
    if np.any(np.abs(s - 1) > 1e-6):
        raise _Inaccurate("the LP duals do not sum to one per forecast; "
                          "the solver returned an inaccurate solution.")
    return pi / s


def _deviation_bounds(V, lo, hi):
    """Bounds ``lo - v <= D <= hi - v`` of the deviations (0 is always inside)."""
    flat = V.ravel()
    return list(zip((lo - flat).tolist(), (hi - flat).tolist(), strict=True))


def _from_deviation(V, D, lo, hi, simplex):
    """``q = V + D`` back in the outcome set (removing the solver's round-off)."""
    q = np.clip(V + D.reshape(V.shape), lo, hi)
    if simplex:
        q = q / q.sum(axis=1, keepdims=True)
    return q


def worst_case_lp(V, w, Hm, U, c, pi, lo, hi, simplex=False, eps=0.0):
    """Worst case of a fixed policy ``pi`` (n, m) over the ambiguity set: value and q.

    Solved in the deviations ``D = q - V`` (see :func:`robust_lp`).
    """
    n, d = V.shape
    g = pi @ U                                              # (n, d)
    const = float(w @ (pi @ c)) + float(w @ np.sum(g * V, axis=1))
    c_obj = (w[:, None] * g).ravel()
    A_cal, _ = _calibration_block(V, w, Hm)
    A_ub = b_ub = A_eq = b_eq = None
    eq_blocks, eq_rhs = [], []
    if A_cal.shape[0]:
        zero = np.zeros(A_cal.shape[0])
        if eps > 0:
            A_ub = sparse.vstack([A_cal, -A_cal]).tocsr()
            b_ub = np.concatenate([zero + eps, zero + eps])
        else:
            eq_blocks.append(A_cal)
            eq_rhs.append(zero)
    if simplex:
        S, _ = _simplex_block(n, d)
        eq_blocks.append(S)
        eq_rhs.append(np.zeros(n))
    if eq_blocks:
        A_eq, b_eq = sparse.vstack(eq_blocks).tocsr(), np.concatenate(eq_rhs)
    res = _solve(c_obj, A_ub, b_ub, A_eq, b_eq, _deviation_bounds(V, lo, hi), "worst-case")
    return _Solution(value=float(res.fun) + const, q=_from_deviation(V, res.x, lo, hi, simplex))


# ---------------------------------------------------------------- pointwise problems
def pointwise(S, U, c, lo, hi, simplex=False):
    """Solve ``min_p val(p) + s . p`` over the outcome set for each row ``s`` of ``S``.

    Returns ``(q, pi)``: a minimiser and the mixed action given by the duals.
    For ``d = 1`` (box) the exact envelope rule is used; otherwise one small
    HiGHS LP per distinct row of ``S``.
    """
    n, d = S.shape
    if d == 1 and not simplex:
        q, pi, _, _ = _pointwise_1d(S[:, 0], U, c, lo, hi)
        return q[:, None], pi
    uniq, inv = np.unique(S, axis=0, return_inverse=True)
    inv = np.asarray(inv).ravel()
    m = U.shape[0]
    qs, pis = np.empty((len(uniq), d)), np.empty((len(uniq), m))
    A_ub = np.hstack([U, -np.ones((m, 1))])
    A_eq = np.hstack([np.ones((1, d)), np.zeros((1, 1))]) if simplex else None
    b_eq = np.ones(1) if simplex else None
    bounds = [(lo, hi)] * d + [(None, None)]
    for r, s in enumerate(uniq):
        res, pis[r] = _solve(np.concatenate([s, [1.0]]), A_ub, -c, A_eq, b_eq, bounds,
                             "pointwise",
                             accept=lambda res: _clean_policy(-res.ineqlin.marginals[None, :])[0])
        qs[r] = res.x[:d]
    return qs[inv], pis[inv]


def _pointwise_1d(t, U, c, lo, hi):
    """Exact pointwise solution for ``d = 1`` on ``[lo, hi]`` given tilts ``t`` (n,).

    Returns ``(q, pi, seg_lo, seg_hi)``: a minimiser, the minimax mixed action
    (the one whose expected slope is closest to ``-t``, which is the dual
    solution), and the whole argmin segment ``[seg_lo, seg_hi]``.
    """
    acts, kinks = _envelope_1d(U, c, lo, hi)
    s = U[acts, 0]
    r = len(acts)
    edges = np.concatenate([[lo], kinks, [hi]])  # piece j (action acts[j]): [e_j, e_{j+1}]
    g = -np.asarray(t, dtype=float)
    n = g.shape[0]
    m = U.shape[0]
    pi = np.zeros((n, m))
    q = np.empty(n)
    seg_lo, seg_hi = np.empty(n), np.empty(n)
    tol = _TIE_TOL * (1.0 + np.abs(s))
    # index of the first envelope slope >= g - tol
    j = np.searchsorted(s - tol, g, side="left")
    jn = np.minimum(j, r - 1)
    jp = np.maximum(j - 1, 0)
    eq_next = (j < r) & (np.abs(g - s[jn]) <= tol[jn])
    eq_prev = (j > 0) & (np.abs(g - s[jp]) <= tol[jp])
    flat = eq_next | eq_prev                                # g equals a slope: flat segment
    kf = np.where(eq_next, jn, jp)
    below = (j == 0) & ~flat                                # g below every slope: p = lo
    above = (j == r) & ~flat                                # g above every slope: p = hi
    kink = ~(flat | below | above)                          # mix the two actions at a kink
    rows = np.arange(n)
    pi[rows[flat], acts[kf[flat]]] = 1.0
    seg_lo[flat], seg_hi[flat] = edges[kf[flat]], edges[kf[flat] + 1]
    pi[rows[below], acts[0]] = 1.0
    seg_lo[below] = seg_hi[below] = lo
    pi[rows[above], acts[-1]] = 1.0
    seg_lo[above] = seg_hi[above] = hi
    jk = j[kink]
    if jk.size:
        p_hi = (g[kink] - s[jk - 1]) / (s[jk] - s[jk - 1])
        pi[rows[kink], acts[jk]] = p_hi
        pi[rows[kink], acts[jk - 1]] = 1.0 - p_hi
        seg_lo[kink] = seg_hi[kink] = edges[jk]
    q[:] = seg_lo
    return q, pi, seg_lo, seg_hi


# ---------------------------------------------------------------- Algorithm B (d = 1)
def dual_1d(v, w, h, U, c, lo, hi, eps=0.0):
    """Algorithm B: maximise the 1-D concave dual for one test ``h`` when ``d = 1``.

    ``G(lam) = sum_i w_i min_p {val(p) + lam h_i p} - lam sum_i w_i h_i v_i - eps |lam|``
    is piecewise linear with breakpoints ``-slope_a / h_i`` (and 0 when
    ``eps > 0``); a binary search over the sorted breakpoints finds its maximum
    exactly. The policy then follows from the tilts, and q* is a selection from
    the pointwise argmin segments that satisfies the calibration row.
    """
    acts, kinks = _envelope_1d(U, c, lo, hi)
    cands = np.concatenate([[lo], kinks, [hi]])
    valc = (cands[:, None] * U[:, 0][None, :] + c[None, :]).max(axis=1)
    slopes = U[acts, 0]
    wh = w * h
    whv = float(wh @ v)
    nz = np.abs(h) > 0

    def G(lam):
        inner = (valc[None, :] + (lam * h)[:, None] * cands[None, :]).min(axis=1)
        return float(w @ inner) - lam * whv - eps * abs(lam)

    bps = (-slopes[None, :] / h[nz, None]).ravel()
    if eps > 0:
        bps = np.append(bps, 0.0)
    bps = np.unique(bps)
    if bps.size == 0:
        lam = 0.0
    else:
        lo_i, hi_i = 0, bps.size - 1                      # argmax of a concave sequence
        while lo_i < hi_i:
            mid = (lo_i + hi_i) // 2
            if G(bps[mid + 1]) - G(bps[mid]) > 0:
                lo_i = mid + 1
            else:
                hi_i = mid
        lam = float(bps[lo_i])
    value = G(lam)
    q, pi, a, b = _pointwise_1d(lam * h, U, c, lo, hi)
    # pick q within the argmin segments so that the calibration row holds
    start = np.where(h > 0, a, b)
    span = np.where(h > 0, b - a, a - b)
    A = float(wh @ (start - v))
    B = A + float(wh @ span)
    if eps > 0 and lam != 0:
        target = eps * np.sign(lam)
    else:
        target = min(max(0.0, A), B)
    theta = 0.0 if B - A <= 0 else min(max((target - A) / (B - A), 0.0), 1.0)
    q = start + theta * span
    return _Solution(value=value, q=q[:, None], pi=pi, lam=np.array([[lam]]))

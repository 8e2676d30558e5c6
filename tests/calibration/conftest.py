"""Reference LPs written for the tests, independent of the library's LP code.

Dense matrices, one variable layout chosen here, ``scipy.optimize.linprog``
(HiGHS). They give the tests their own worst-case values and dual functions,
so no expected value is read from the code under test.
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest
from scipy.optimize import linprog


def _constraints(V, w, Hm, lo, hi, simplex, eps, extra_cols):
    """Rows on q (flattened point-major) for E[h_k(V)(q - V)_j] = 0 (or |.| <= eps)."""
    n, d = V.shape
    k = Hm.shape[1]
    A = np.zeros((k * d, n * d + extra_cols))
    b = np.zeros(k * d)
    for kk in range(k):
        for j in range(d):
            for i in range(n):
                A[kk * d + j, i * d + j] = w[i] * Hm[i, kk]
            b[kk * d + j] = sum(w[i] * Hm[i, kk] * V[i, j] for i in range(n))
    A_eq, b_eq, A_ub, b_ub = [], [], [], []
    if k:
        if eps > 0:
            A_ub += [A, -A]
            b_ub += [b + eps, -b + eps]
        else:
            A_eq.append(A)
            b_eq.append(b)
    if simplex:
        S = np.zeros((n, n * d + extra_cols))
        for i in range(n):
            S[i, i * d:(i + 1) * d] = 1.0
        A_eq.append(S)
        b_eq.append(np.ones(n))
    return A_eq, b_eq, A_ub, b_ub


def _stack(blocks, rhs):
    if not blocks:
        return None, None
    return np.vstack(blocks), np.concatenate(rhs)


def worst_case(V, w, Hm, U, c, pi, lo=0.0, hi=1.0, simplex=False, eps=0.0):
    """min over q in Q of sum_i w_i sum_a pi[i, a] (U[a] . q_i + c[a]); returns (value, q)."""
    V, w, Hm, U, c, pi = (np.asarray(a, dtype=float) for a in (V, w, Hm, U, c, pi))
    n, d = V.shape
    obj = np.zeros(n * d)
    const = 0.0
    for i in range(n):
        for a in range(U.shape[0]):
            obj[i * d:(i + 1) * d] += w[i] * pi[i, a] * U[a]
            const += w[i] * pi[i, a] * c[a]
    A_eq, b_eq, A_ub, b_ub = _constraints(V, w, Hm, lo, hi, simplex, eps, 0)
    A_eq, b_eq = _stack(A_eq, b_eq)
    A_ub, b_ub = _stack(A_ub, b_ub)
    res = linprog(obj, A_ub=A_ub, b_ub=b_ub, A_eq=A_eq, b_eq=b_eq,
                  bounds=[(lo, hi)] * (n * d), method="highs")
    assert res.status == 0, res.message
    return res.fun + const, res.x.reshape(n, d)


def robust_value(V, w, Hm, U, c, lo=0.0, hi=1.0, simplex=False, eps=0.0):
    """min over q in Q of sum_i w_i val(q_i), with epigraph variables (value, q)."""
    V, w, Hm, U, c = (np.asarray(a, dtype=float) for a in (V, w, Hm, U, c))
    n, d = V.shape
    m = U.shape[0]
    nv = n * d + n
    obj = np.zeros(nv)
    obj[n * d:] = w
    A_ub, b_ub = [], []
    for i in range(n):
        for a in range(m):
            row = np.zeros(nv)
            row[i * d:(i + 1) * d] = U[a]
            row[n * d + i] = -1.0
            A_ub.append(row)
            b_ub.append(-c[a])
    A_eq, b_eq, A_ub2, b_ub2 = _constraints(V, w, Hm, lo, hi, simplex, eps, n)
    A_ub = [np.array(A_ub)] + A_ub2
    b_ub = [np.array(b_ub)] + b_ub2
    A_eq, b_eq = _stack(A_eq, b_eq)
    A_ub, b_ub = _stack(A_ub, b_ub)
    res = linprog(obj, A_ub=A_ub, b_ub=b_ub, A_eq=A_eq, b_eq=b_eq,
                  bounds=[(lo, hi)] * (n * d) + [(None, None)] * n, method="highs")
    assert res.status == 0, res.message
    return res.fun, res.x[: n * d].reshape(n, d)


def min_val_tilted(s, U, c, lo=0.0, hi=1.0, simplex=False):
    """min over p in the outcome set of max_a (U[a] . p + c[a]) + s . p."""
    U, c, s = (np.asarray(a, dtype=float) for a in (U, c, s))
    m, d = U.shape
    obj = np.concatenate([s, [1.0]])
    A_ub = np.hstack([U, -np.ones((m, 1))])
    A_eq = np.concatenate([np.ones(d), [0.0]])[None, :] if simplex else None
    b_eq = [1.0] if simplex else None
    res = linprog(obj, A_ub=A_ub, b_ub=-c, A_eq=A_eq, b_eq=b_eq,
                  bounds=[(lo, hi)] * d + [(None, None)], method="highs")
    assert res.status == 0, res.message
    return res.fun


def dual_function(V, w, Hm, lam, U, c, lo=0.0, hi=1.0, simplex=False):
    """G(lam) = sum_i w_i min_p {val(p) + p . s(v_i)} - sum_k lam_k . E[h_k(V) V]."""
    V, w, Hm, lam = (np.asarray(a, dtype=float) for a in (V, w, Hm, lam))
    total = 0.0
    for i in range(V.shape[0]):
        s = Hm[i] @ lam
        total += w[i] * min_val_tilted(s, U, c, lo, hi, simplex)
    for kk in range(Hm.shape[1]):
        total -= lam[kk] @ sum(w[i] * Hm[i, kk] * V[i] for i in range(V.shape[0]))
    return total


@pytest.fixture(scope="session")
def ref():
    """The tests' own reference solvers."""
    return SimpleNamespace(worst_case=worst_case, robust_value=robust_value,
                           min_val_tilted=min_val_tilted, dual_function=dual_function)

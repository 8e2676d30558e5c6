"""Q-aggregation of CATE candidates on cross-fitted DR- or R-loss pseudo-outcomes.

With per-unit weights ``v`` and targets ``z`` (DR-loss: ``v = 1``, ``z = psi``
the AIPW pseudo-outcome; R-loss: ``v = (A - e)^2``, ``z = (Y - m) / (A - e)``)
every candidate ``f`` has the empirical risk ``R(f) = mean(v (z - f)^2)``, and
the Q-aggregate of the K candidates ``T = [tau_1, ..., tau_K]`` is ``T w`` with
``w`` on the simplex minimising

``Q(w) = (1 - nu) R(T w) + nu sum_k w_k R(tau_k)
       = R(T w) + nu sum_k w_k mean(v (tau_k - T w)^2)``

(the second form by the variance decomposition of the squared loss). ``nu = 0``
is convex stacking, ``nu = 1`` selects the empirical risk minimiser, and
``nu = 1/2`` is the Q-aggregation of Rigollet (2012), Dai, Rigollet & Zhang
(2012) and Lecue & Rigollet (2014): for bounded losses, with probability
``1 - delta`` its population risk satisfies the sharp oracle inequality
``E R(T w) <= min_k E R(tau_k) + C (log K + log(1/delta)) / n`` (plain
selection, ``nu = 1``, only achieves ``sqrt(log K / n)``; convex stacking,
``nu = 0``, only ``sqrt(log K / n)`` against the best single candidate).

References
----------
P. Rigollet, "Kullback-Leibler aggregation and misspecified generalized linear
models", Annals of Statistics 40 (2012).
D. Dai, P. Rigollet, T. Zhang, "Deviation optimal learning using greedy
Q-aggregation", Annals of Statistics 40 (2012).
G. Lecue, P. Rigollet, "Optimal learning with Q-aggregation", Annals of
Statistics 42 (2014).
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import minimize

__all__: list[str] = []


def loss_targets(kind, a, y, mu0, mu1, e):
    """Per-unit weights ``v`` and targets ``z`` of the DR- or R-loss (``e`` clipped)."""
    if kind == "dr":
        psi = mu1 - mu0 + a * (y - mu1) / e - (1 - a) * (y - mu0) / (1 - e)
        return np.ones(a.size), psi
    m = e * mu1 + (1 - e) * mu0
    r = a - e  # never 0: e is clipped inside (0, 1)
    return r**2, (y - m) / r


def candidate_risks(T, v, z):
    """``R(tau_k) = mean(v (z - tau_k)^2)`` for every column of ``T``."""
    return np.mean(v[:, None] * (z[:, None] - T) ** 2, axis=0)


def q_objective(w, T, v, z, nu):
    """``Q(w)``: see the module docstring."""
    return float((1 - nu) * np.mean(v * (z - T @ w) ** 2)
                 + nu * candidate_risks(T, v, z) @ w)


def q_aggregation_weights(T, v, z, nu):
    """Weights on the simplex minimising ``Q(w)`` (a convex QP, solved by SLSQP).

    The solver starts at the empirical risk minimiser (a vertex); the returned
    weights never have a larger ``Q`` than that vertex, so
    ``R(T w) <= Q(w) <= min_k R(tau_k)`` holds exactly (up to rounding).

    Returns
    -------
    w : ndarray of shape (K,)
    risks : ndarray of shape (K,)
        ``R(tau_k)``.
    """
    n, K = T.shape
    risks = candidate_risks(T, v, z)
    best = int(np.argmin(risks))
    w0 = np.zeros(K)
    w0[best] = 1.0
    if K == 1 or nu == 1.0:
        return w0, risks
    # Q(w) = (1 - nu) (w' G w - 2 c' w) + nu l' w + const, on a common scale
    Tv = T * v[:, None]
    G = Tv.T @ T / n
    c = Tv.T @ z / n
    scale = max(float(np.max(np.abs(np.diag(G)))), float(np.max(np.abs(risks))), 1e-300)
    H = 2 * (1 - nu) * G / scale
    g0 = (-2 * (1 - nu) * c + nu * risks) / scale

    def fun(w):
        return 0.5 * w @ H @ w + g0 @ w

    def jac(w):
        return H @ w + g0

    res = minimize(fun, w0, jac=jac, method="SLSQP", bounds=[(0.0, 1.0)] * K,
                   constraints=[{"type": "eq", "fun": lambda w: w.sum() - 1.0,
                                 "jac": lambda w: np.ones(K)}],
                   options={"ftol": 1e-14, "maxiter": 500})
    w = np.clip(np.asarray(res.x, dtype=float), 0.0, None)
    w = w / w.sum() if w.sum() > 0 else w0
    w[w < 1e-10] = 0.0
    w /= w.sum()
    if q_objective(w, T, v, z, nu) > q_objective(w0, T, v, z, nu):
        w = w0  # never worse than selecting the empirical risk minimiser
    return w, risks

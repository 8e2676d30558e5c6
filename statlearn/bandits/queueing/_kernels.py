"""Numba kernels of the contextual queueing bandit simulator.

Everything here works on plain arrays and scalars. The pure-NumPy
references are the classes of the package: :class:`LogisticUCBEstimator`
(``_estimator.py``) for :func:`sigmoid`, :func:`sherman_morrison`,
:func:`newton_refit` and :func:`estimator_update`, and the policies'
``select``/``update`` methods driven by :meth:`ContextualQueueEnv.step` for
:func:`run_queue_kernel`. Tests assert that both give the same numbers and
the same queue paths.

Parameter vector layout (``params``, float64), shared with ``_policies.py``:

====  =================================================================
 idx  meaning
====  =================================================================
 0    lam_reg, ridge penalty of the logistic MLE
 1    c_beta, multiplier of the confidence width (0 gives greedy scores)
 2    kappa, logistic curvature constant in the width
 3    S, bound on the parameter norm in the width
 4    log(1 / delta)
 5    tau, length of the pure-exploration phase (CQB-eps)
 6    exploration probability after tau (CQB-eps)
 7    refit_growth: exact Newton refit when n >= (1 + growth) n_last
 8    max_iter of the Newton refit
 9    tol of the Newton refit (max absolute step)
 10   scale of the width in CQB-eps exploitation (1 "ucb", 0 "greedy")
 11   freeze: 1 keeps the estimator fixed (no learning)
====  =================================================================
"""

from __future__ import annotations

import math

import numpy as np

from statlearn.utils import jit

__all__ = [
    "CQB_EPS",
    "FIFO_UCB",
    "N_PARAMS",
    "ORACLE",
    "RANDOM",
    "UCB",
    "confidence_radius",
    "estimator_update",
    "newton_refit",
    "run_queue_kernel",
    "sherman_morrison",
    "sigmoid",
]

# policy codes
ORACLE, RANDOM, CQB_EPS, UCB, FIFO_UCB = 0, 1, 2, 3, 4
N_PARAMS = 12


@jit
def sigmoid(z):
    """Logistic function, evaluated without overflow for either sign of ``z``."""
    if z >= 0.0:
        return 1.0 / (1.0 + math.exp(-z))
    e = math.exp(z)
    return e / (1.0 + e)


@jit
def confidence_radius(n, d, lam, c_beta, kappa, s_bound, log_inv_delta):
    """GLM-UCB confidence radius of a server with ``n`` observations.

    ``c_beta kappa (sqrt(2 log(1/delta) + d log(1 + n/(d lam))) + sqrt(lam) S)``.

    Zero when ``c_beta`` is zero.
    """
    if c_beta == 0.0:
        return 0.0
    core = math.sqrt(2.0 * log_inv_delta + d * math.log(1.0 + n / (d * lam)))
    return c_beta * kappa * (core + math.sqrt(lam) * s_bound)


@jit
def sherman_morrison(ainv, x, w):
    """In place: ``ainv <- (A + w x x^T)^{-1}`` given ``ainv = A^{-1}`` (``w >= 0``)."""
    d = x.shape[0]
    u = np.zeros(d)
    for i in range(d):
        s = 0.0
        for j in range(d):
            s += ainv[i, j] * x[j]
        u[i] = s
    q = 0.0
    for i in range(d):
        q += x[i] * u[i]
    c = w / (1.0 + w * q)
    for i in range(d):
        for j in range(d):
            ainv[i, j] -= c * (u[i] * u[j])


@jit
def newton_refit(X, y, n, theta, hinv, lam, max_iter, tol):
    """Regularised logistic MLE on the first ``n`` rows by Newton's method, in place.

    Minimises ``sum_i [log(1 + e^{z_i}) - y_i z_i] + lam/2 ||theta||^2`` with
    ``z_i = x_i^T theta``, starting from ``theta``. Stops when the largest
    absolute Newton step is below ``tol`` or after ``max_iter`` steps. On
    exit ``hinv`` holds the inverse Hessian of the last iteration (before its
    step). Returns ``(iterations, last_step)``, ``last_step`` being the
    largest absolute component of the last Newton step: the refit converged
    when ``last_step < tol``.
    """
    d = theta.shape[0]
    it = 0
    while it < max_iter:
        it += 1
        g = lam * theta.copy()
        H = lam * np.eye(d)
        for i in range(n):
            z = 0.0
            for a in range(d):
                z += X[i, a] * theta[a]
            m = sigmoid(z)
            r = m - y[i]
            w = m * (1.0 - m)
            for a in range(d):
                xa = X[i, a]
                g[a] += r * xa
                for b in range(a + 1):
                    H[a, b] += w * xa * X[i, b]
        for a in range(d):
            for b in range(a):
                H[b, a] = H[a, b]
        hi = np.linalg.inv(H)
        step = hi @ g
        big = 0.0
        for a in range(d):
            theta[a] -= step[a]
            if abs(step[a]) > big:
                big = abs(step[a])
        hinv[:, :] = hi
        if big < tol:
            break
    return it, big


@jit
def estimator_update(k, x, y, theta, vinv, hinv, n_obs, n_refit, Xs, ys, lam, growth,
                     max_iter, tol):
    """Add observation ``(x, y)`` to server ``k`` of the logistic estimator, in place.

    Stores the pair, updates ``V^{-1}`` by Sherman-Morrison, then either refits
    the MLE exactly (Newton, when ``n >= (1 + growth) * n_refit``) or takes one
    online Newton step ``theta += H^{-1} x (y - mu(x^T theta))`` with the
    inverse Hessian updated by Sherman-Morrison at weight ``mu'(x^T theta)``.

    Returns the last Newton step of a refit that stopped at ``max_iter``
    without reaching ``tol`` (at least ``tol``, or NaN), else ``0.0`` (no
    refit, or a converged one).
    """
    d = x.shape[0]
    n = n_obs[k]
    for a in range(d):
        Xs[k, n, a] = x[a]
    ys[k, n] = y
    n += 1
    n_obs[k] = n
    sherman_morrison(vinv[k], x, 1.0)
    if n >= (1.0 + growth) * n_refit[k]:
        _, step = newton_refit(Xs[k], ys[k], n, theta[k], hinv[k], lam, max_iter, tol)
        n_refit[k] = n
        return 0.0 if step < tol else step  # a NaN step counts as not converged
    else:
        z = 0.0
        for a in range(d):
            z += x[a] * theta[k, a]
        m = sigmoid(z)
        sherman_morrison(hinv[k], x, m * (1.0 - m))
        r = y - m
        for a in range(d):
            s = 0.0
            for b in range(d):
                s += hinv[k, a, b] * x[b]
            theta[k, a] += s * r
    return 0.0


@jit
def _ucb_score(x, k, theta, vinv, beta):
    d = x.shape[0]
    z = 0.0
    for a in range(d):
        z += x[a] * theta[k, a]
    m = sigmoid(z)
    if beta == 0.0:
        return m
    q = 0.0
    for a in range(d):
        s = 0.0
        for b in range(d):
            s += vinv[k, a, b] * x[b]
        q += x[a] * s
    return m + beta * math.sqrt(max(q, 0.0))


@jit
def run_queue_kernel(code, params, arrivals, features, service_u, policy_u, thetas_true,
                     theta, vinv, hinv, n_obs, n_refit, Xs, ys,
                     q_path, jobs, servers, departed, unconverged, last_step):
    """Run one policy for ``T = len(arrivals)`` rounds on pre-drawn randomness.

    Round ``t`` (0-based): if the queue is non-empty the policy picks a
    (job, server) pair; the job departs when ``service_u[t] <= mu(x^T
    theta*_k)``; the learner's estimator is updated; then, if
    ``arrivals[t]``, the job ``features[t]`` joins the back of the queue.
    Jobs are kept in arrival order; ties are broken by the lowest job index
    and then the lowest server index.

    Writes ``q_path[t + 1]`` (queue length after ``t + 1`` rounds, with
    ``q_path[0] = 0``), ``jobs[t]``, ``servers[t]`` (``-1`` when idle) and
    ``departed[t]``, and updates the estimator arrays in place. Counts in
    ``unconverged[k]`` the exact refits of server ``k`` that stopped at
    ``max_iter`` without reaching ``tol``, with the last step of the latest
    one in ``last_step[k]``. Returns the number of exploration rounds
    (CQB-eps), else 0.
    """
    T = arrivals.shape[0]
    K = thetas_true.shape[0]
    d = thetas_true.shape[1]
    lam = params[0]
    c_beta = params[1]
    kappa = params[2]
    s_bound = params[3]
    log_inv_delta = params[4]
    tau = params[5]
    explore_rate = params[6]
    growth = params[7]
    max_iter = int(params[8])
    tol = params[9]
    exploit_scale = params[10]
    freeze = params[11] != 0.0
    learns = code == CQB_EPS or code == UCB or code == FIFO_UCB

    qx = np.empty((T + 1, d))
    best_rate = np.empty(T + 1)
    best_server = np.empty(T + 1, dtype=np.int64)
    betas = np.zeros(K)
    xbuf = np.empty(d)
    qlen = 0
    n_explore = 0
    q_path[0] = 0
    for t in range(T):
        job = -1
        k = -1
        if qlen > 0:
            if code == ORACLE:
                best = -1.0
                for j in range(qlen):
                    if best_rate[j] > best:
                        best = best_rate[j]
                        job = j
                k = best_server[job]
            elif code == RANDOM:
                job = min(int(policy_u[t, 0] * qlen), qlen - 1)
                k = min(int(policy_u[t, 1] * K), K - 1)
            else:
                explore = False
                scale = 1.0
                if code == CQB_EPS:
                    if t + 1 <= tau:
                        explore = True
                        job = qlen - 1
                        k = n_explore % K
                    elif policy_u[t, 0] < explore_rate:
                        explore = True
                        job = qlen - 1
                        k = min(int(policy_u[t, 1] * K), K - 1)
                    else:
                        scale = exploit_scale
                if explore:
                    n_explore += 1
                else:
                    for kk in range(K):
                        betas[kk] = scale * confidence_radius(
                            n_obs[kk], d, lam, c_beta, kappa, s_bound, log_inv_delta)
                    best = -np.inf
                    j_hi = 1 if code == FIFO_UCB else qlen
                    for j in range(j_hi):
                        for kk in range(K):
                            s = _ucb_score(qx[j], kk, theta, vinv, betas[kk])
                            if s > best:
                                best = s
                                job = j
                                k = kk
            for a in range(d):
                xbuf[a] = qx[job, a]
            z = 0.0
            for a in range(d):
                z += xbuf[a] * thetas_true[k, a]
            dep = service_u[t] <= sigmoid(z)
            if learns and not freeze:
                step = estimator_update(k, xbuf, 1.0 if dep else 0.0, theta, vinv, hinv,
                                        n_obs, n_refit, Xs, ys, lam, growth, max_iter, tol)
                if step != 0.0:
                    unconverged[k] += 1
                    last_step[k] = step
            if dep:
                for j in range(job, qlen - 1):
                    for a in range(d):
                        qx[j, a] = qx[j + 1, a]
                    best_rate[j] = best_rate[j + 1]
                    best_server[j] = best_server[j + 1]
                qlen -= 1
            jobs[t] = job
            servers[t] = k
            departed[t] = dep
        else:
            jobs[t] = -1
            servers[t] = -1
            departed[t] = False
        if arrivals[t]:
            best = -1.0
            bk = 0
            for kk in range(K):
                z = 0.0
                for a in range(d):
                    qx[qlen, a] = features[t, a]
                    z += features[t, a] * thetas_true[kk, a]
                r = sigmoid(z)
                if r > best:
                    best = r
                    bk = kk
            best_rate[qlen] = best
            best_server[qlen] = bk
            qlen += 1
        q_path[t + 1] = qlen
    return n_explore

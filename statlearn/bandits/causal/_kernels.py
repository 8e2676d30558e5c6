"""Numba kernels of the causal bandit solvers: a seeded stream, Beta draws, KL-UCB, the loop.

Randomness inside kernels comes from an explicit MRG32k3a state (six int64
numbers, every product below 2^63, so the same arithmetic runs in Python and
in Numba). The NumPy/Python references are :func:`klucb_index_reference`
(a bracketing root finder) and the policies' ``select``/``update`` methods
driven by the Python engine of :func:`run_bandit`; tests compare both.
"""

from __future__ import annotations

import math

import numpy as np

from statlearn.utils import jit

__all__ = [
    "KLUCB",
    "THOMPSON",
    "bernoulli_kl",
    "beta_draw",
    "exploration_level",
    "klucb_argmax",
    "klucb_index",
    "klucb_index_reference",
    "mrg_uniform",
    "random_permutation",
    "run_bandit_kernel",
    "seed_state",
    "thompson_argmax",
]

KLUCB = 0
THOMPSON = 1

_M1 = 4294967087
_M2 = 4294944443


def seed_state(rng):
    """A fresh MRG32k3a state (int64[6]) drawn from a numpy Generator."""
    s = np.empty(6, dtype=np.int64)
    s[:3] = rng.integers(1, _M1, size=3)
    s[3:] = rng.integers(1, _M2, size=3)
    return s


@jit
def mrg_uniform(state):
    """Next uniform in (0, 1) of the MRG32k3a stream (L'Ecuyer, 1999); advances ``state``."""
    p1 = (1403580 * state[1] - 810728 * state[0]) % _M1
    state[0] = state[1]
    state[1] = state[2]
    state[2] = p1
    p2 = (527612 * state[5] - 1370589 * state[3]) % _M2
    state[3] = state[4]
    state[4] = state[5]
    state[5] = p2
    z = p1 - p2
    if z <= 0:
        z += _M1
    return z / (_M1 + 1.0)


@jit
def _std_normal(state):
    u1 = mrg_uniform(state)
    u2 = mrg_uniform(state)
    return math.sqrt(-2.0 * math.log(u1)) * math.cos(2.0 * math.pi * u2)


@jit
def _gamma_draw(state, shape):
    """Gamma(shape, 1) for shape >= 1 (Marsaglia & Tsang, 2000)."""
    d = shape - 1.0 / 3.0
    c = 1.0 / math.sqrt(9.0 * d)
    while True:
        x = _std_normal(state)
        v = 1.0 + c * x
        if v <= 0.0:
            continue
        v = v * v * v
        u = mrg_uniform(state)
        if math.log(u) < 0.5 * x * x + d - d * v + d * math.log(v):
            return d * v


@jit
def beta_draw(state, a, b):
    """Beta(a, b) for a, b >= 1 as a ratio of Gamma draws."""
    x = _gamma_draw(state, a)
    y = _gamma_draw(state, b)
    return x / (x + y)


@jit
def random_permutation(state, n):
    """Uniform permutation of ``0..n-1`` (Fisher-Yates)."""
    out = np.arange(n)
    for i in range(n - 1, 0, -1):
        j = min(int(mrg_uniform(state) * (i + 1)), i)
        tmp = out[i]
        out[i] = out[j]
        out[j] = tmp
    return out


@jit
def bernoulli_kl(p, q):
    """KL(Bernoulli(p) || Bernoulli(q)), with the 0 log 0 = 0 convention."""
    eps = 1e-15
    q = min(max(q, eps), 1.0 - eps)
    out = 0.0
    if p > 0.0:
        out += p * math.log(p / q)
    if p < 1.0:
        out += (1.0 - p) * math.log((1.0 - p) / (1.0 - q))
    return out


@jit
def exploration_level(t, c):
    """KL-UCB level ``f(t) = log t + c log log t`` (``f(t) = 1`` for ``t < 3``)."""
    if t < 3:
        return 1.0
    return math.log(t) + c * math.log(math.log(t))


@jit
def _klucb_upper(mean, n, level):
    """An upper bound on the KL-UCB index (below 1 unless ``mean = 1``).

    Pinsker gives ``mean + sqrt(level / (2 n))``; dropping ``-p log q >= 0``
    from ``KL(p, q) = -H(p) - p log q - (1 - p) log(1 - q)`` gives
    ``1 - exp(-(level / n + H(p)) / (1 - p))``. The smaller one is used.
    """
    if mean >= 1.0:
        return 1.0
    h = 0.0
    if mean > 0.0:
        h -= mean * math.log(mean)
    h -= (1.0 - mean) * math.log(1.0 - mean)
    q2 = 1.0 - math.exp(-(level / n + h) / (1.0 - mean))
    return min(1.0 - 1e-15, mean + math.sqrt(level / (2.0 * n)), q2)


@jit
def klucb_index(mean, n, level):
    """``sup{q in [mean, 1] : n KL(mean, q) <= level}`` by Newton steps from above.

    ``q -> n KL(mean, q)`` is convex and increasing on ``[mean, 1)``, so
    Newton's method started above the root (at :func:`_klucb_upper`)
    decreases monotonically to it. Stops when ``n KL - level < 1e-11`` or a step
    is below ``1e-16``.
    """
    if mean >= 1.0:
        return 1.0
    q = _klucb_upper(mean, n, level)
    for _ in range(200):
        g = n * bernoulli_kl(mean, q) - level
        if g < 1e-11:
            break
        step = g * q * (1.0 - q) / (n * (q - mean))
        q -= step
        if step < 1e-16:
            break
    return q


def klucb_index_reference(mean, n, level):
    """NumPy/SciPy reference of :func:`klucb_index` (Brent's root finder)."""
    from scipy.optimize import brentq

    mean = float(mean)
    if mean >= 1.0:
        return 1.0

    def g(q):
        kl = (mean * np.log(mean / q) if mean > 0 else 0.0) + (1 - mean) * np.log(
            (1 - mean) / (1 - q))
        return n * kl - level

    top = 1.0 - 1e-15
    if g(top) <= 0:
        return 1.0
    return brentq(g, mean, top, xtol=1e-14) if mean < top else 1.0


@jit
def klucb_argmax(counts, sums, t, c, state):
    """KL-UCB choice at round ``t`` once every arm was pulled; ties broken at random.

    Arms whose upper bound (:func:`_klucb_upper`) is already below the best
    index so far cannot win or tie and are skipped.
    """
    level = exploration_level(t, c)
    best = -1.0
    n_best = 0
    K = counts.shape[0]
    idx = np.full(K, -1.0)
    for a in range(K):
        mean = sums[a] / counts[a]
        if _klucb_upper(mean, counts[a], level) < best:
            continue
        idx[a] = klucb_index(mean, counts[a], level)
        if idx[a] > best:
            best = idx[a]
            n_best = 1
        elif idx[a] == best:
            n_best += 1
    if n_best == 1:
        for a in range(K):
            if idx[a] == best:
                return a
    pick = min(int(mrg_uniform(state) * n_best), n_best - 1)
    for a in range(K):
        if idx[a] == best:
            if pick == 0:
                return a
            pick -= 1
    return K - 1


@jit
def thompson_argmax(successes, failures, prior_a, prior_b, state):
    """Thompson sampling choice: the largest Beta(prior + counts) draw (first on ties)."""
    best = -1.0
    arm = 0
    for a in range(successes.shape[0]):
        th = beta_draw(state, prior_a + successes[a], prior_b + failures[a])
        if th > best:
            best = th
            arm = a
    return arm


@jit
def run_bandit_kernel(code, mu, reward_u, state, c, prior_a, prior_b, arms_out, rewards_out):
    """Play ``len(reward_u)`` rounds of KL-UCB (``code=0``) or Thompson sampling (``code=1``).

    Rewards are ``1{reward_u[t] < mu[a_t]}``. Fills ``arms_out`` and ``rewards_out``.
    """
    K = mu.shape[0]
    T = reward_u.shape[0]
    counts = np.zeros(K)
    sums = np.zeros(K)
    order = np.arange(K)
    if code == KLUCB:
        order = random_permutation(state, K)
    for t in range(1, T + 1):
        if code == KLUCB:
            if t <= K:
                a = order[t - 1]
            else:
                a = klucb_argmax(counts, sums, t, c, state)
        else:
            a = thompson_argmax(sums, counts - sums, prior_a, prior_b, state)
        r = 1.0 if reward_u[t - 1] < mu[a] else 0.0
        counts[a] += 1.0
        sums[a] += r
        arms_out[t - 1] = a
        rewards_out[t - 1] = r

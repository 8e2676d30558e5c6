"""Tiny conformal setups, right and with planted defects, for the guarantee checks.

Each is a few lines of NumPy written here (not the library's estimators), so
that the checks' false-alarm rate and power are measured on setups whose truth
the tests know: the split-conformal interval with the rank ``k`` computed by
hand covers with probability ``k / (n + 1)`` exactly (continuous scores), and
one rank lower it covers ``(k - 1) / (n + 1)``; conformal p-values without the
``+ 1`` are too small, so BH over them loses FDR control.
"""

from __future__ import annotations

import math

import numpy as np

from statlearn.conformal import conformal_risk_control, learn_then_test


class SplitAbs:
    """Split conformal interval ``[-q, q]`` for ``y`` from the scores ``|y|``.

    ``offset=-1`` plants the off-by-one rank; ``discrete=True`` rounds the
    scores (ties: coverage ``>= 1 - alpha`` only).
    """

    def __init__(self, alpha=0.1, offset=0, discrete=False):
        self.alpha, self.offset, self.discrete = alpha, offset, discrete

    def fit(self, X, y):
        s = np.sort(np.abs(np.asarray(y, dtype=float)))
        n = s.size
        k = math.ceil((n + 1) * (1 - self.alpha) - 1e-9) + self.offset
        self.q_ = s[k - 1] if k <= n else np.inf
        self.n_calib_ = n
        return self

    def predict_interval(self, X):
        m = len(X)
        return np.column_stack([np.full(m, -self.q_), np.full(m, self.q_)])


def regression_data(rng, n=19, m=100, discrete=False):
    y = rng.normal(size=n + m)
    if discrete:
        y = np.round(y)  # ties in the scores
    X = np.zeros((n + m, 1))
    return X[:n], y[:n], X[n:], y[n:]


class SelectionResultStub:
    def __init__(self, fdp):
        self.fdp = fdp


class OracleScoreSelector:
    """cfBH with the known regression ``mu(x) = x`` and the clip score (M = inf).

    ``plus_one=False`` plants the missing ``+ 1`` in the conformal p-values.
    """

    def __init__(self, q=0.2, plus_one=True, c=0.0):
        self.q, self.plus_one, self.c = q, plus_one, c

    def fit(self, X, y):
        mu = np.asarray(X, dtype=float)[:, 0]
        self.v_ = np.where(np.asarray(y) > self.c, np.inf, self.c - mu)
        return self

    def select(self, X, y_true):
        v_test = self.c - np.asarray(X, dtype=float)[:, 0]
        n = self.v_.size
        count = (self.v_[None, :] < v_test[:, None]).sum(axis=1)
        p = (count + (1 if self.plus_one else 0)) / (n + 1)
        m = p.size
        order = np.sort(p)
        ok = np.flatnonzero(order <= self.q * np.arange(1, m + 1) / m)
        selected = p <= order[ok[-1]] if ok.size else np.zeros(m, dtype=bool)
        false = int((np.asarray(y_true)[selected] <= self.c).sum())
        return SelectionResultStub(false / max(int(selected.sum()), 1))


def selection_data(rng, n=10, m=10):
    X = rng.normal(size=(n + m, 1))
    y = X[:, 0] + rng.normal(size=n + m)
    return X[:n], y[:n], X[n:], y[n:]


def make_unlearner(random_state=None):
    from statlearn.unlearning import NewtonUnlearner

    return NewtonUnlearner(loss="squared", fit_intercept=False, random_state=random_state)


def make_quiet_unlearner(random_state=None):
    """Noise at 70% of the level it reports (a certificate it does not meet)."""
    from statlearn.unlearning import NewtonUnlearner

    class QuietUnlearner(NewtonUnlearner):
        @property
        def sigma_(self):
            return super().sigma_ / 0.7

    return QuietUnlearner(loss="squared", fit_intercept=False, random_state=random_state)


def unlearning_data(rng, n=60, p=5):
    X = rng.normal(size=(n, p))
    y = X @ np.linspace(1.0, -1.0, p) + rng.normal(size=n)
    return X, y, [0, 1]


class UniformPolicy:
    """A bandit policy that never learns (linear regret)."""

    def reset(self, n_arms, horizon, random_state=None):
        self.n_arms, self.rng = n_arms, np.random.default_rng(random_state)

    def select(self, t):
        return int(self.rng.integers(self.n_arms))

    def update(self, arm, reward):
        pass


def sqrt_regret(rng, horizon=2000, scale=0.5):
    """A regret path whose expectation is exactly ``scale * sqrt(t)`` (slope 0.5)."""
    t = np.arange(1, horizon + 1)
    return np.cumsum(rng.random(horizon) < scale * (np.sqrt(t) - np.sqrt(t - 1)))


def klucb_regret(rng, horizon=1000):
    from statlearn.bandits.causal import KLUCB, run_bandit

    return run_bandit(KLUCB(), [0.4, 0.6], horizon, random_state=rng)


# ------------------------------------------------ risk controllers on U ~ Unif(0, 1)
RISK_GRID = np.linspace(0.0, 1.0, 201)


class CRCOnUniform:
    def __init__(self, alpha, drop_bound_term=False):
        self.alpha, self.drop = alpha, drop_bound_term

    def fit(self, X, y=None):
        U = np.asarray(X, dtype=float).ravel()
        L = np.maximum(U[:, None] - RISK_GRID[None, :], 0.0)
        if self.drop:  # planted: the B / (n + 1) term left out
            ok = L.sum(axis=0) <= self.alpha * (U.size + 1)
            self.lambda_ = float(RISK_GRID[np.argmax(ok)]) if ok.any() else 1.0
        else:
            self.lambda_ = float(conformal_risk_control(L, self.alpha,
                                                        lambdas=RISK_GRID).lambda_hat)
        return self


class LTTOnUniform:
    def __init__(self, alpha, delta, ignore_delta=False):
        self.alpha, self.delta, self.ignore = alpha, delta, ignore_delta

    def fit(self, X, y=None):
        U = np.asarray(X, dtype=float).ravel()
        desc = RISK_GRID[::-1]  # the most conservative first
        L = (U[:, None] > desc[None, :]).astype(float)
        if self.ignore:  # planted: the smallest lambda whose empirical risk meets alpha
            ok = L.mean(axis=0) <= self.alpha
            self.lambda_ = float(desc[ok][-1])
        else:
            res = learn_then_test(L, self.alpha, self.delta, lambdas=desc, pvalue="bentkus",
                                  fwer="fixed_sequence", binary=True)
            self.lambda_ = float(res.lambda_hat) if res.index >= 0 else 1.0
        return self


def uniform_data(n):
    def make(rng):
        return rng.random(n), None, None, None
    return make


def crc_risk(ctrl, X_test, y_test):
    return (1.0 - ctrl.lambda_) ** 2 / 2.0  # E[(U - lambda)_+], exactly


def ltt_risk(ctrl, X_test, y_test):
    return 1.0 - ctrl.lambda_  # P(U > lambda), exactly


class BoundaryNull:
    """The least favourable case of the expectation check: risk 0.5 or 0, mean 0.3."""

    def fit(self, X, y=None):
        self.lambda_ = 0.0 if X[0] < 0.6 else 1.0  # risk (1 - lambda)^2 / 2 in {0.5, 0}
        return self

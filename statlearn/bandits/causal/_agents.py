"""Bernoulli bandit solvers for any arm set: KL-UCB and Thompson sampling.

They are sequential decision objects, not estimators fitted to a data set, so they do
not derive from scikit-learn's ``BaseEstimator``; they keep its parameter habits
(``get_params`` / ``set_params`` / ``clone``) and follow the bandit policy protocol.
"""

from __future__ import annotations

import numpy as np

from statlearn.base import ParamsMixin, Real, validate_params
from statlearn.utils import check_int, check_rng
from statlearn.utils._validation import _scalar

from . import _kernels as _k

__all__ = ["KLUCB", "ThompsonSampling"]


class _ArmPolicy(ParamsMixin):
    """Shared state of the built-in solvers (the bandit policy protocol)."""

    _code = -1
    _parameter_constraints: dict = {}

    def reset(self, n_arms, horizon, random_state=None):
        """Start a run over ``n_arms`` arms and ``horizon`` rounds.

        Parameters
        ----------
        n_arms, horizon : int
        random_state : None, int or numpy.random.Generator
            Seeds the policy's own stream (random first-pull order and
            tie-breaking for KL-UCB, posterior draws for Thompson sampling).

        Returns
        -------
        self
        """
        self._validate()
        self.n_arms_ = check_int(n_arms, "n_arms", low=1)
        self.horizon_ = check_int(horizon, "horizon", low=1)
        self.state_ = _k.seed_state(check_rng(_scalar(random_state)))
        self.counts_ = np.zeros(self.n_arms_)
        self.sums_ = np.zeros(self.n_arms_)
        self._start()
        return self

    def _start(self):
        pass

    def _check_started(self):
        if not hasattr(self, "state_"):
            raise RuntimeError(f"call reset(n_arms, horizon) before using this "
                               f"{type(self).__name__}.")

    def update(self, arm, reward):
        """Record a Bernoulli ``reward`` (0 or 1) for ``arm``.

        Returns
        -------
        self
        """
        self._check_started()
        arm = check_int(arm, "arm", low=0, high=self.n_arms_ - 1)
        if reward not in (0, 1, True, False):
            raise ValueError(f"reward must be 0 or 1, got {reward!r}.")
        self.counts_[arm] += 1.0
        self.sums_[arm] += float(reward)
        return self

    @property
    def means_(self):
        """Empirical mean reward of each arm (``nan`` before its first pull)."""
        self._check_started()
        with np.errstate(invalid="ignore", divide="ignore"):
            return self.sums_ / self.counts_


class KLUCB(_ArmPolicy):
    """Bernoulli KL-UCB (Garivier & Cappé, 2011), as in the structural causal bandit code.

    Pulls every arm once in a random order, then plays the arm with the
    largest index ``sup{q >= mean_a : N_a KL(mean_a, q) <= log t + c log log t}``
    (``f(t) = 1`` for ``t < 3``), ties broken at random.

    Parameters
    ----------
    c : float, default=3.0
        Weight of the ``log log t`` term.

    Notes
    -----
    The index is found by bisection to ``1e-12`` (the reference code uses
    Brent's method; both solve the same monotone equation to well below the
    reward resolution). Expected number of pulls of a suboptimal arm ``a``:
    ``E N_a(T) <= (1 + o(1)) log T / KL(mu_a, mu*)``, so regret is
    ``O(sum_a Delta_a log T / KL(mu_a, mu*))``.

    References
    ----------
    A. Garivier and O. Cappé, "The KL-UCB algorithm for bounded stochastic
    bandits and beyond", COLT 2011.

    Examples
    --------
    >>> from statlearn.bandits.causal import KLUCB, run_bandit
    >>> run = run_bandit(KLUCB(), [0.2, 0.5, 0.8], horizon=2000, random_state=0)
    >>> int((run.arms == 2).sum()) > 1800
    True
    """

    _code = _k.KLUCB
    _parameter_constraints = {"c": [Real(0, None)]}

    def __init__(self, c=3.0):
        self.c = c

    def _validate(self):
        validate_params(self)
        self._c = float(_scalar(self.c))

    def _params(self):
        self._validate()
        return self._c, 1.0, 1.0

    def _start(self):
        self.order_ = _k.random_permutation(self.state_, self.n_arms_)

    def select(self, t):
        """The arm to pull in round ``t`` (1-based)."""
        self._check_started()
        t = check_int(t, "t", low=1)
        if t <= self.n_arms_:
            return int(self.order_[t - 1])
        if np.any(self.counts_ == 0):
            return int(np.flatnonzero(self.counts_ == 0)[0])
        return int(_k.klucb_argmax(self.counts_, self.sums_, t, self._c, self.state_))


class ThompsonSampling(_ArmPolicy):
    """Bernoulli Thompson sampling with a Beta prior (Beta(1, 1) by default).

    Each round draws ``theta_a ~ Beta(a0 + successes_a, b0 + failures_a)``
    for every arm and plays the largest.

    Parameters
    ----------
    prior_a, prior_b : float, default=1.0
        Beta prior parameters (at least 1).

    References
    ----------
    S. Agrawal and N. Goyal, "Analysis of Thompson sampling for the
    multi-armed bandit problem", COLT 2012.

    Examples
    --------
    >>> from statlearn.bandits.causal import ThompsonSampling, run_bandit
    >>> run = run_bandit(ThompsonSampling(), [0.2, 0.5, 0.8], horizon=2000, random_state=0)
    >>> int((run.arms == 2).sum()) > 1800
    True
    """

    _code = _k.THOMPSON
    _parameter_constraints = {"prior_a": [Real(1, None)], "prior_b": [Real(1, None)]}

    def __init__(self, prior_a=1.0, prior_b=1.0):
        self.prior_a = prior_a
        self.prior_b = prior_b

    def _validate(self):
        validate_params(self)
        self._a = float(_scalar(self.prior_a))
        self._b = float(_scalar(self.prior_b))

    def _params(self):
        self._validate()
        return 0.0, self._a, self._b

    def select(self, t):
        """The arm to pull in round ``t`` (1-based)."""
        self._check_started()
        check_int(t, "t", low=1)
        return int(_k.thompson_argmax(self.sums_, self.counts_ - self.sums_, self._a, self._b,
                                      self.state_))

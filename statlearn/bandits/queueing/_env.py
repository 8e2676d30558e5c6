"""The contextual queueing environment: one queue, K logistic servers, Bernoulli arrivals."""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np

from statlearn.base import Integral, ParamsMixin, Real, validate_params
from statlearn.utils import check_array, check_int, check_real, check_rng
from statlearn.utils._validation import _scalar

from ._base import UnstableQueueWarning
from ._estimator import _rowdot, sigmoid_np

__all__ = ["ContextualQueueEnv", "QueueRandomness", "make_queueing_instance"]


def _rng(random_state):
    """:func:`check_rng`, with a seed given as a 0-d array read as the int it holds."""
    return check_rng(_scalar(random_state))


@dataclass(frozen=True, eq=False)
class QueueRandomness:
    """Everything random in one run of the environment, drawn in advance.

    Sharing one ``QueueRandomness`` between a learner and the oracle couples
    them by common random numbers: same arrival indicators, same arriving
    features, and one uniform per round deciding service
    (``D(t) = 1{U_t <= mu}``), as in the paper's coupling argument.

    Attributes
    ----------
    arrivals : ndarray of shape (horizon,), bool
        ``A(t)``: whether a job arrives at the end of round ``t``.
    features : ndarray of shape (horizon, n_features)
        Feature vector of the job arriving in round ``t`` (zeros when none).
    service_u : ndarray of shape (horizon,)
        Uniforms ``U_t`` on ``[0, 1)``.
    acceptance_rate : float
        Share of candidate contexts accepted by the slack rejection step
        (1.0 when no rejection is applied).

    Examples
    --------
    >>> import numpy as np
    >>> from statlearn.bandits.queueing import ContextualQueueEnv
    >>> env = ContextualQueueEnv(np.array([[2.0, 0.0]]), arrival_rate=0.5)
    >>> r = env.sample_randomness(100, random_state=0)
    >>> r.arrivals.shape, r.features.shape
    ((100,), (100, 2))
    """

    arrivals: np.ndarray
    features: np.ndarray
    service_u: np.ndarray
    acceptance_rate: float = 1.0

    @property
    def horizon(self) -> int:
        """Number of rounds."""
        return int(self.arrivals.shape[0])


class ContextualQueueEnv(ParamsMixin):
    """One queue, ``K`` servers, success probabilities logistic in the job's features.

    Round ``t`` (the model of Bae, Kang and Lee, 2026, Sec. 3): the agent
    sees the queue; if it is not empty it serves one (job ``x``, server
    ``k``) pair, and the job departs with probability ``mu(x^T theta_k)``,
    ``mu(z) = 1 / (1 + e^{-z})`` (otherwise it stays); then a job arrives with probability
    ``arrival_rate``, with features drawn from the context law
    (stochastic contexts) or read from ``context_sequence`` (adversarial
    contexts). A job arriving in round ``t`` can be served from round
    ``t + 1`` on, and the queue starts empty (this ordering is our
    reconstruction: the paper removes the served job, then adds the arrival).

    Parameters
    ----------
    thetas : array-like of shape (n_servers, n_features)
        True server parameters ``theta*_k``.
    arrival_rate : float
        Bernoulli arrival probability ``lambda`` in ``[0, 1]``.
    context_sampler : callable, optional
        ``context_sampler(rng, n) -> ndarray (n, n_features)``: i.i.d. draws of
        the context law. Default: uniform on ``[-1, 1]^d`` (the paper's
        experiments). Must be picklable for process-based parallel runs.
    context_sequence : array-like of shape (>= horizon, n_features), optional
        Adversarial contexts: row ``t`` is the features of the job arriving in
        round ``t``, if one arrives. Exclusive with ``context_sampler``.
    slack : float, optional
        Traffic slack ``epsilon``: every context must satisfy
        ``max_k mu(x^T theta_k) >= arrival_rate + slack``. Sampled contexts
        are drawn by rejection until they do; a ``context_sequence`` row that
        does not is an error. ``None`` applies no restriction.
    max_attempts : int, default=1000
        Rejection-sampling cap per arriving context; reaching it raises a
        ``ValueError`` saying that the slack assumption cannot be met.
    random_state : None, int or numpy.random.Generator
        Seed used by :meth:`reset` when it draws its own randomness.

    Attributes
    ----------
    queue_features : ndarray of shape (queue_length, n_features)
        Waiting jobs, oldest first (after :meth:`reset`).
    queue_length : int
        Number of waiting jobs.
    t : int
        Current round (1-based; ``horizon + 1`` when finished).

    See Also
    --------
    simulate : Monte Carlo runs of a policy against the oracle.

    Examples
    --------
    >>> import numpy as np
    >>> from statlearn.bandits.queueing import ContextualQueueEnv
    >>> env = ContextualQueueEnv(np.array([[2.0, 0.0], [0.0, 2.0]]), arrival_rate=0.5,
    ...                          random_state=0).reset(horizon=50)
    >>> for t in range(50):
    ...     action = (0, 0) if env.queue_length else None
    ...     departed, arrived = env.step(action)
    >>> env.t, env.queue_length >= 0
    (51, True)
    """

    def __init__(self, thetas, arrival_rate, context_sampler=None, context_sequence=None,
                 slack=None, max_attempts=1000, random_state=None):
        self.thetas = thetas
        self.arrival_rate = arrival_rate
        self.context_sampler = context_sampler
        self.context_sequence = context_sequence
        self.slack = slack
        self.max_attempts = max_attempts
        self.random_state = random_state

    _parameter_constraints = {
        "thetas": ["array-like"],  # shape and finiteness checked by check_array below
        "arrival_rate": [Real(0, 1)],
        "context_sampler": [None, "callable"],
        "context_sequence": [None, "array-like"],  # its columns are checked against thetas
        "slack": [None, Real(0, 1, closed="neither")],
        "max_attempts": [Integral(1)],
        "random_state": ["random_state"],
    }

    # ------------------------------------------------------------------ checks
    def _validate(self):
        validate_params(self)
        thetas = check_array(self.thetas, "thetas", dtype=np.float64)
        lam = float(_scalar(self.arrival_rate))
        if self.slack is not None:
            eps = float(_scalar(self.slack))
            if lam + eps >= 1:
                raise ValueError(
                    f"arrival_rate + slack must be below 1 (no logistic rate reaches 1), got "
                    f"{lam} + {eps} = {lam + eps}."
                )
        if self.context_sampler is not None and self.context_sequence is not None:
            raise ValueError("give either context_sampler or context_sequence, not both.")
        if self.context_sequence is not None:
            seq = check_array(self.context_sequence, "context_sequence", dtype=np.float64)
            if seq.shape[1] != thetas.shape[1]:
                raise ValueError(
                    f"context_sequence must have n_features = {thetas.shape[1]} columns "
                    f"(as thetas), got {seq.shape[1]}."
                )
            if self.slack is not None:
                ok = self._best_rate(seq, thetas) >= lam + eps
                if not ok.all():
                    i = int(np.flatnonzero(~ok)[0])
                    raise ValueError(
                        f"context_sequence violates the slack assumption: row {i} has best "
                        f"service rate {self._best_rate(seq[i:i + 1], thetas)[0]:.4g} < "
                        f"arrival_rate + slack = {lam + eps:.4g}."
                    )
        return thetas

    @property
    def n_servers(self) -> int:
        """Number of servers ``K``."""
        return int(np.shape(self.thetas)[0])

    @property
    def n_features(self) -> int:
        """Feature dimension ``d``."""
        return int(np.shape(self.thetas)[1])

    @staticmethod
    def _best_rate(X, thetas):
        return sigmoid_np(_rowdot(X, thetas)).max(axis=1)

    def service_rates(self, X):
        """True departure probabilities ``mu(x^T theta_k)``, shape ``(n, n_servers)``.

        Examples
        --------
        >>> import numpy as np
        >>> from statlearn.bandits.queueing import ContextualQueueEnv
        >>> env = ContextualQueueEnv(np.zeros((2, 3)), arrival_rate=0.3)
        >>> env.service_rates(np.ones((1, 3)))
        array([[0.5, 0.5]])
        """
        thetas = self._validate()
        X = check_array(X, "X", dtype=np.float64)
        if X.shape[1] != thetas.shape[1]:
            raise ValueError(f"X must have {thetas.shape[1]} columns, got {X.shape[1]}.")
        return sigmoid_np(_rowdot(X, thetas))

    # ------------------------------------------------------------- contexts
    def _raw_contexts(self, rng, n, d):
        if self.context_sampler is None:
            return rng.uniform(-1.0, 1.0, size=(n, d))
        X = np.asarray(self.context_sampler(rng, n), dtype=float)
        if X.shape != (n, d):
            raise ValueError(
                f"context_sampler(rng, {n}) must return an array of shape {(n, d)}, "
                f"got {X.shape}."
            )
        if not np.all(np.isfinite(X)):
            raise ValueError("context_sampler returned NaN or infinite features.")
        return X

    def sample_contexts(self, n, random_state=None):
        """Draw ``n`` contexts from the (slack-restricted) context law.

        Returns
        -------
        X : ndarray of shape (n, n_features)
        acceptance_rate : float
            Share of candidates accepted by the rejection step.

        Raises
        ------
        ValueError
            If some context needs more than ``max_attempts`` candidates: the
            slack assumption cannot be met by this context law.

        Examples
        --------
        >>> import numpy as np
        >>> from statlearn.bandits.queueing import ContextualQueueEnv
        >>> env = ContextualQueueEnv(np.array([[3.0, 0.0]]), arrival_rate=0.6, slack=0.1)
        >>> X, acc = env.sample_contexts(500, random_state=0)
        >>> bool((env.service_rates(X).max(axis=1) >= 0.7).all()), 0 < acc < 1
        (True, True)
        """
        thetas = self._validate()
        n = check_int(n, "n", low=0)
        if self.context_sequence is not None:
            raise ValueError("sample_contexts needs a stochastic context law, not a sequence.")
        return self._contexts(thetas, n, _rng(random_state))

    def _accept(self, cand, thetas, level):
        """``max_k mu(x^T theta_k) >= level`` for each candidate row, as ``_best_rate``.

        A matrix product screens the rows (``mu`` is increasing, so the test is
        ``max_k x^T theta_k >= logit(level)``); rows within ``1e-9`` of the
        threshold are decided by the exact ``_best_rate`` formula, so every
        decision equals the direct one at a fraction of its cost.
        """
        z = (cand @ thetas.T).max(axis=1)
        cut = np.log(level) - np.log1p(-level)
        ok = z >= cut
        near = np.flatnonzero(np.abs(z - cut) <= 1e-9 * (1.0 + abs(cut)))
        if near.size:
            ok[near] = self._best_rate(cand[near], thetas) >= level
        return ok

    def _contexts(self, thetas, n, rng):
        d = thetas.shape[1]
        if self.slack is None:
            return self._raw_contexts(rng, n, d), 1.0
        level = float(self.arrival_rate) + float(self.slack)
        out, got, drawn, accepted, run = [], 0, 0, 0, 0
        default_law = self.context_sampler is None
        while got < n:
            if default_law and drawn:
                # the uniform stream is the same however it is cut into draws, so size the
                # next draw from the acceptance seen so far (same contexts, fewer passes)
                rate = max(accepted / drawn, 1e-3)
                m = max(256, int(1.25 * (n - got) / rate) + 64)
            else:
                m = max(256, 2 * (n - got))
            cand = self._raw_contexts(rng, m, d)
            ok = self._accept(cand, thetas, level)
            drawn += m
            accepted += int(ok.sum())
            idx = np.flatnonzero(ok)[: n - got]
            if idx.size:
                gaps = np.diff(np.concatenate(([-1 - run], idx))) - 1
                if gaps.max() >= self.max_attempts:
                    self._fail(level, drawn, accepted)
                run = m - 1 - int(idx[-1])
            else:
                run += m
                if run >= self.max_attempts:
                    self._fail(level, drawn, accepted)
            out.append(cand[idx])
            got += idx.size
        X = np.concatenate(out) if out else np.empty((0, d))
        return X, (accepted / drawn if drawn else 1.0)

    def _fail(self, level, drawn, accepted):
        raise ValueError(
            "the slack assumption cannot be met: no context with max_k mu(x^T theta_k) >= "
            f"arrival_rate + slack = {level:.4g} in {self.max_attempts} consecutive draws "
            f"({accepted} of {drawn} candidates accepted so far). Lower arrival_rate or "
            "slack, or change the context law / thetas."
        )

    def context_min_eigenvalue(self, n_samples=20000, random_state=0):
        """Monte Carlo estimate of ``sigma_0^2 = lambda_min(E[x x^T])`` under the context law.

        With slack rejection the accepted contexts no longer follow the base
        law, so ``sigma_0^2`` should be estimated here rather than assumed
        (``1/3`` for the uniform box without rejection).

        Examples
        --------
        >>> import numpy as np
        >>> from statlearn.bandits.queueing import ContextualQueueEnv
        >>> env = ContextualQueueEnv(np.zeros((1, 2)), arrival_rate=0.3)
        >>> round(env.context_min_eigenvalue(50000), 2)
        0.33
        """
        n_samples = check_int(n_samples, "n_samples", low=2)
        if self.context_sequence is not None:
            X = check_array(self.context_sequence, "context_sequence", dtype=np.float64)
        else:
            X, _ = self.sample_contexts(n_samples, random_state)
        return float(np.linalg.eigvalsh(X.T @ X / X.shape[0])[0])

    def check_stability(self, n_samples=2000, random_state=0):
        """Warn (:class:`UnstableQueueWarning`) if the arrival rate beats every service rate.

        Looks at the best service rate ``max_k mu(x^T theta_k)`` over sampled
        contexts (or the whole ``context_sequence``); if ``arrival_rate`` is
        at least the largest of them, no policy can keep the queue stable.
        The simulation still runs.

        Returns
        -------
        float
            The largest best service rate seen.

        Examples
        --------
        >>> import warnings
        >>> import numpy as np
        >>> from statlearn.bandits.queueing import ContextualQueueEnv
        >>> env = ContextualQueueEnv(np.zeros((2, 2)), arrival_rate=0.8)
        >>> with warnings.catch_warnings(record=True) as w:
        ...     warnings.simplefilter("always")
        ...     rate = env.check_stability()
        >>> rate, w[0].category.__name__
        (0.5, 'UnstableQueueWarning')
        """
        thetas = self._validate()
        if self.context_sequence is not None:
            X = check_array(self.context_sequence, "context_sequence", dtype=np.float64)
        else:
            X, _ = self._contexts(thetas, check_int(n_samples, "n_samples", low=1),
                                  _rng(random_state))
        top = float(self._best_rate(X, thetas).max()) if X.shape[0] else 0.0
        if float(self.arrival_rate) >= top:
            warnings.warn(
                f"arrival_rate = {self.arrival_rate} is not below the best service rate of "
                f"any context seen ({top:.4g}): the queue is unstable and grows linearly "
                "under every policy. Simulating anyway.",
                UnstableQueueWarning, stacklevel=2,
            )
        return top

    # ----------------------------------------------------------- randomness
    def _check_horizon(self, horizon):
        """Validate the environment for a run of ``horizon`` rounds without drawing one.

        Checks the parameters, the length of a context sequence, and the shape
        of what a user ``context_sampler`` returns (one row).
        """
        thetas = self._validate()
        T = check_int(horizon, "horizon", low=1)
        if self.context_sequence is not None and np.shape(self.context_sequence)[0] < T:
            raise ValueError(
                f"context_sequence has {np.shape(self.context_sequence)[0]} rows but horizon = "
                f"{T} rounds need one row per round."
            )
        if self.context_sampler is not None:
            self._raw_contexts(np.random.default_rng(0), 1, thetas.shape[1])
        return T

    def sample_randomness(self, horizon, random_state=None):
        """Draw the arrivals, arriving features and service uniforms of one run.

        Parameters
        ----------
        horizon : int
            Number of rounds ``T``.
        random_state : None, int or numpy.random.Generator

        Returns
        -------
        QueueRandomness
        """
        thetas = self._validate()
        T = check_int(horizon, "horizon", low=1)
        if self.context_sequence is not None and np.shape(self.context_sequence)[0] < T:
            raise ValueError(
                f"context_sequence has {np.shape(self.context_sequence)[0]} rows but horizon = "
                f"{T} rounds need one row per round."
            )
        return self._draw(thetas, T, _rng(random_state))

    def _draw(self, thetas, T, rng):
        """:meth:`sample_randomness` without validation (``thetas`` already checked)."""
        d = thetas.shape[1]
        arrivals = rng.random(T) < float(self.arrival_rate)
        service_u = rng.random(T)
        features = np.zeros((T, d))
        acc = 1.0
        if self.context_sequence is not None:
            seq = np.asarray(self.context_sequence, dtype=float)
            features[arrivals] = seq[:T][arrivals]
        else:
            X, acc = self._contexts(thetas, int(arrivals.sum()), rng)
            features[arrivals] = X
        return QueueRandomness(arrivals=arrivals, features=features, service_u=service_u,
                               acceptance_rate=float(acc))

    # --------------------------------------------------------- step-by-step
    def reset(self, horizon=None, randomness=None):
        """Empty the queue and go to round 1.

        Parameters
        ----------
        horizon : int, optional
            Number of rounds; needed unless ``randomness`` is given.
        randomness : QueueRandomness, optional
            Pre-drawn randomness (to couple runs); drawn from
            ``random_state`` when omitted.

        Returns
        -------
        self
        """
        thetas = self._validate()
        if randomness is None:
            if horizon is None:
                raise ValueError("reset needs a horizon or a QueueRandomness.")
            randomness = self.sample_randomness(horizon, self.random_state)
        elif not isinstance(randomness, QueueRandomness):
            raise TypeError(
                f"randomness must be a QueueRandomness, got {type(randomness).__name__}."
            )
        elif randomness.features.shape[1] != thetas.shape[1]:
            raise ValueError("randomness was drawn for another feature dimension.")
        self._thetas = thetas
        self._rand = randomness
        self._queue = np.empty((16, thetas.shape[1]))
        self._len = 0
        self.t = 1
        return self

    @property
    def queue_length(self) -> int:
        """Number of jobs waiting."""
        self._check_reset()
        return self._len

    @property
    def queue_features(self) -> np.ndarray:
        """Features of the waiting jobs, oldest first (a copy)."""
        self._check_reset()
        return self._queue[: self._len].copy()

    def _check_reset(self):
        if not hasattr(self, "_rand"):
            raise RuntimeError("call reset() before stepping the environment.")

    def step(self, action):
        """Play one round.

        Parameters
        ----------
        action : tuple of (int, int) or None
            ``(job_idx, server)``: index into :attr:`queue_features` and server
            index. ``None`` serves nothing (required when the queue is empty).

        Returns
        -------
        departed : bool
            Whether the served job left the queue.
        arrived_x : ndarray of shape (n_features,) or None
            Features of the job that arrived at the end of the round.
        """
        self._check_reset()
        t = self.t
        if t > self._rand.horizon:
            raise RuntimeError(f"the run is over: all {self._rand.horizon} rounds were played.")
        departed = False
        if action is not None:
            if self._len == 0:
                raise ValueError("action must be None when the queue is empty.")
            if not isinstance(action, tuple | list) or len(action) != 2:
                raise TypeError(f"action must be a (job_idx, server) pair or None, got {action!r}.")
            job = check_int(action[0], "job_idx", low=0, high=self._len - 1)
            k = check_int(action[1], "server", low=0, high=self._thetas.shape[0] - 1)
            x = self._queue[job]
            mu = float(sigmoid_np((x * self._thetas[k]).sum()))
            departed = bool(self._rand.service_u[t - 1] <= mu)
            if departed:
                self._queue[job:self._len - 1] = self._queue[job + 1:self._len]
                self._len -= 1
        arrived = None
        if self._rand.arrivals[t - 1]:
            if self._len == self._queue.shape[0]:
                self._queue = np.concatenate([self._queue, np.empty_like(self._queue)])
            arrived = self._rand.features[t - 1].copy()
            self._queue[self._len] = arrived
            self._len += 1
        self.t = t + 1
        return departed, arrived


def make_queueing_instance(n_servers=5, n_features=5, arrival_rate=0.7, slack=0.1,
                           min_acceptance=0.01, max_tries=100, random_state=None):
    """The paper's random instance: ``theta_k`` and contexts uniform on ``[-1, 1]^d``.

    Draws ``theta*_k`` coordinate-wise from ``U(-1, 1)`` and returns an
    environment whose contexts are ``U(-1, 1)^d`` restricted by rejection to
    ``max_k mu(x^T theta_k) >= arrival_rate + slack``. Parameter draws whose
    acceptance rate is below ``min_acceptance`` are redrawn (at most
    ``max_tries`` times) so that the rejection step stays cheap.

    Parameters
    ----------
    n_servers, n_features : int, default=5
        ``K`` and ``d`` (5 and 5 in the paper).
    arrival_rate : float, default=0.7
        ``lambda``.
    slack : float, default=0.1
        Traffic slack ``epsilon``.
    min_acceptance : float, default=0.01
        Smallest acceptable acceptance rate of the rejection step.
    max_tries : int, default=100
        Parameter redraws allowed.
    random_state : None, int or numpy.random.Generator

    Returns
    -------
    ContextualQueueEnv

    Examples
    --------
    >>> from statlearn.bandits.queueing import make_queueing_instance
    >>> env = make_queueing_instance(random_state=0)
    >>> env.thetas.shape, env.arrival_rate, env.slack
    ((5, 5), 0.7, 0.1)
    """
    K = check_int(n_servers, "n_servers", low=1)
    d = check_int(n_features, "n_features", low=1)
    check_real(min_acceptance, "min_acceptance", low=0, high=1)
    tries = check_int(max_tries, "max_tries", low=1)
    rng = _rng(random_state)
    for _ in range(tries):
        thetas = rng.uniform(-1.0, 1.0, size=(K, d))
        env = ContextualQueueEnv(thetas, arrival_rate, slack=slack)
        env._validate()
        probe = rng.uniform(-1.0, 1.0, size=(4000, d))
        level = float(arrival_rate) + (0.0 if slack is None else float(slack))
        if np.mean(env._best_rate(probe, thetas) >= level) >= min_acceptance:
            return env
    raise ValueError(
        f"no parameter draw in {tries} tries gave an acceptance rate >= {min_acceptance}; "
        "lower arrival_rate or slack."
    )

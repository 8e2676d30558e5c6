"""Contextual queueing bandits (Bae, Kang & Lee, ICLR 2026, arXiv:2601.19300).

One queue of jobs with feature vectors, ``K`` servers whose success
probability for job ``x`` is ``mu(x^T theta*_k)`` (logistic), Bernoulli
arrivals. A policy picks one (job, server) pair per round; the quality
measure is the queue-length regret ``E[Q(T)] - E[Q*(T)]`` against the
oracle that knows every ``theta*_k``.
"""

from ._base import UnstableQueueWarning
from ._env import ContextualQueueEnv, QueueRandomness, make_queueing_instance
from ._estimator import LogisticUCBEstimator
from ._policies import (
    CQBEpsilon,
    CQBOpt,
    GreedyMLEPolicy,
    OraclePolicy,
    QueueBlindUCBPolicy,
    RandomPolicy,
)
from ._simulate import QueueRun, QueueSimulationResult, run_policy, simulate

__all__ = [
    "CQBEpsilon",
    "CQBOpt",
    "ContextualQueueEnv",
    "GreedyMLEPolicy",
    "LogisticUCBEstimator",
    "OraclePolicy",
    "QueueBlindUCBPolicy",
    "QueueRandomness",
    "QueueRun",
    "QueueSimulationResult",
    "RandomPolicy",
    "UnstableQueueWarning",
    "make_queueing_instance",
    "run_policy",
    "simulate",
]

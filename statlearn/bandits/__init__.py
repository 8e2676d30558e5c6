"""Bandit algorithms.

Subpackages
-----------
queueing
    Contextual queueing bandits: a one-queue, K-server environment with
    logistic service rates, the CQB-eps and CQB-Opt learners, the oracle and
    baseline policies, and a simulator reporting queue-length regret.
"""

from . import queueing

__all__ = ["queueing"]

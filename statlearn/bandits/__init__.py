"""Bandit algorithms.

Every runner in this package drives policies through one protocol,
``reset`` / ``select`` / ``update`` (see :class:`BanditPolicy`), so a
user-written policy runs through the same simulators as the built-in ones.

Subpackages
-----------
queueing
    Contextual queueing bandits: a one-queue, K-server environment with
    logistic service rates, the CQB-eps and CQB-Opt learners, the oracle and
    baseline policies, and a simulator reporting queue-length regret.
causal
    Structural causal bandits: causal diagrams, discrete structural causal
    models, minimal intervention sets, POMIS, counterfactual (ctf-SCB) arms,
    KL-UCB and Thompson sampling agents, and a regret runner.
"""

from . import causal, queueing
from ._protocol import BanditPolicy, check_policy

__all__ = ["BanditPolicy", "causal", "check_policy", "queueing"]

"""Sublinear spectral clustering oracles with a memory/time trade-off.

:class:`SpectralClusteringOracle` answers "which cluster is vertex ``v``
in?" from query access to a graph, after a preprocessing step whose memory
is set by a batch size (Shen, Zhu, Peng, Huang, ICLR 2026, arXiv:2604.14981).
"""

from ._build import OracleConstructionError
from ._certified_queries import OracleQueryResult
from ._graph import lazy_walk_distribution
from ._oracle import SpectralClusteringOracle
from ._tester import ClusterCountTestResult, test_one_vs_two_clusters
from ._walks import estimate_collision_probabilities

__all__ = [
    "ClusterCountTestResult",
    "OracleConstructionError",
    "OracleQueryResult",
    "SpectralClusteringOracle",
    "estimate_collision_probabilities",
    "lazy_walk_distribution",
    "test_one_vs_two_clusters",
]

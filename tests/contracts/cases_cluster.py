"""Contract cases of statlearn.cluster: one valid call per public function and estimator."""

from __future__ import annotations

import numpy as np

from statlearn import cluster as Cl
from statlearn.datasets import make_planted_expanders, make_random_regular_graph


def _graph():
    return make_random_regular_graph(120, 6, random_state=0)


def _two():
    return make_planted_expanders([100, 100], 8, n_bridges=2, random_state=0)[0]


from tests.contracts._framework import EstimatorCase, FunctionCase  # noqa: E402

FUNCTIONS = [
    FunctionCase(Cl.estimate_collision_probabilities,
                 lambda: {"graph": _graph(), "x": np.zeros(6, dtype=np.int64),
                          "y": np.arange(6, dtype=np.int64), "walk_length": 10, "n_walks": 32,
                          "batch_size": 8, "random_state": 0}, paired=(("x", "y"),)),
    FunctionCase(Cl.lazy_walk_distribution, lambda: {"graph": _graph(), "x": 3,
                                                     "walk_length": 4}),
    FunctionCase(Cl.test_one_vs_two_clusters,
                 lambda: {"graph": _two(), "walk_length": 20, "n_repeats": 1, "n_samples": 8,
                          "random_state": 0}),
]

ESTIMATORS = [
    EstimatorCase(lambda: Cl.SpectralClusteringOracle(n_clusters=2, walk_length=20, n_repeats=1,
                                                      random_state=0),
                  lambda: {"graph": _two()},
                  {"predict": lambda: {"vertices": np.arange(0, 200, 7)},
                   "which_cluster": lambda: {"v": 5},
                   "embedding_dots": lambda: {"vertices": np.arange(0, 200, 11)}}),
    EstimatorCase(lambda: Cl.SpectralClusteringOracle(n_clusters=2, walk="degree-normalised",
                                                      mode="fast", walk_length=20,
                                                      random_state=0),
                  lambda: {"graph": _two()},
                  {"predict": lambda: {"vertices": np.arange(0, 200, 7)},
                   "query": lambda: {"vertices": np.arange(3, 200, 13)}}),
    EstimatorCase(lambda: Cl.SpectralClusteringOracle(n_clusters=2, walk="degree-normalised",
                                                      mode="fast", n_walks="auto",
                                                      walk_length=20, random_state=0),
                  lambda: {"graph": _two()},
                  {"predict": lambda: {"vertices": np.arange(0, 200, 7)}}),
]

NOT_APPLICABLE = {}

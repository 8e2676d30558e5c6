"""Contract cases of statlearn.datasets: one valid call per generator."""

from __future__ import annotations

from statlearn import datasets as D
from tests.contracts._framework import FunctionCase

FUNCTIONS = [
    FunctionCase(D.make_softmax_classification, lambda: {"n_samples": 50, "n_classes": 3,
                                                         "random_state": 0}),
    FunctionCase(D.make_hte_ihdp_like, lambda: {"n_samples": 60, "random_state": 0}),
    FunctionCase(D.make_hte_nie_wager, lambda: {"n_samples": 60, "setup": "B",
                                                "random_state": 0}),
    FunctionCase(D.make_hte_reference, lambda: {"n_samples": 60, "random_state": 0}),
    FunctionCase(D.make_planted_expanders, lambda: {"sizes": [20, 20], "degree": 4,
                                                    "n_bridges": 1, "random_state": 0}),
    FunctionCase(D.make_random_regular_graph, lambda: {"n_vertices": 30, "degree": 4,
                                                       "random_state": 0}),
    FunctionCase(D.make_sbm_graph, lambda: {"sizes": [15, 15], "p": 0.4, "q": 0.05,
                                            "random_state": 0}),
    FunctionCase(D.make_selection_regression, lambda: {"n_samples": 50, "n_features": 3,
                                                       "random_state": 0}),
]

NOT_APPLICABLE = {}

"""Synthetic data generators (``make_*`` functions taking ``random_state``)."""

from ._classification import make_softmax_classification
from ._graphs import make_planted_expanders, make_random_regular_graph, make_sbm_graph

__all__: list[str] = [
    "make_softmax_classification",
    "make_planted_expanders",
    "make_random_regular_graph",
    "make_sbm_graph",
]

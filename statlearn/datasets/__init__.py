"""Synthetic data generators (``make_*`` functions taking ``random_state``)."""

from ._classification import make_softmax_classification
from ._graphs import make_planted_expanders, make_random_regular_graph, make_sbm_graph
from ._hte import make_hte_ihdp_like, make_hte_nie_wager, make_hte_reference
from ._selection import make_selection_regression

__all__: list[str] = [
    "make_softmax_classification",
    "make_hte_ihdp_like",
    "make_hte_nie_wager",
    "make_hte_reference",
    "make_planted_expanders",
    "make_random_regular_graph",
    "make_sbm_graph",
    "make_selection_regression",
]

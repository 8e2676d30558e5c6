"""Nonconformity scores for classification (public namespace).

Each function maps a probability matrix ``(n, K)`` to the score of every
label, or of one given label per row. See :func:`socop_scores` for SOCOP and
:func:`lac_scores`, :func:`aps_scores`, :func:`raps_scores`,
:func:`topk_scores` for the baselines.
"""

from ._classification import (
    aps_scores,
    label_ranks,
    lac_scores,
    raps_scores,
    socop_scores,
    socop_sets,
    topk_scores,
)

__all__ = [
    "aps_scores",
    "label_ranks",
    "lac_scores",
    "raps_scores",
    "socop_scores",
    "socop_sets",
    "topk_scores",
]

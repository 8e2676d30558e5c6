"""The shared core of :mod:`statlearn.conformal`.

What every conformal procedure of the package rests on: the rank and value of
the split-conformal quantile, the conformal p-value, the thresholds per label
or group that the quantile gives, and the reading of array-likes at the entry
points. The sub-areas (classification sets, regression intervals, selection)
import from here and never from each other.
"""

from ._arrays import float64_features, host, row_indexable
from ._quantile import conformal_pvalues, conformal_quantile, conformal_rank
from ._thresholds import smoothed_pvalues, thresholds_from_scores

__all__ = [
    "conformal_pvalues",
    "conformal_quantile",
    "conformal_rank",
    "float64_features",
    "host",
    "row_indexable",
    "smoothed_pvalues",
    "thresholds_from_scores",
]

"""Conformal selection with false discovery rate control: cfBH and MCCS.

cfBH (Jin & Candes, 2023) selects the test units whose unobserved response
exceeds a threshold, ``Y > c``, by running Benjamini-Hochberg on conformal
p-values built from a monotone score. Multi-Condition Conformal Selection
(MCCS; Hao, Liao, Jing & Wei, 2026) extends it to a response that must lie in
a bounded interval (conjunctive condition, region-monotone score) or in a
union of intervals (disjunctive condition, one BH over every (unit,
condition) p-value), and to several responses at once (box-shaped regions
over several tasks).

* :mod:`._regions`: the conditions (boxes) and their region-monotone scores;
* :mod:`._procedures`: Benjamini-Hochberg, :func:`cfbh` and :func:`mccs` on
  arrays of predictions;
* :mod:`._result`: :class:`SelectionResult`;
* :mod:`._estimators`: :class:`ConformalSelector` and
  :class:`MultiConditionSelector`, the same procedures around a regressor.
"""

from ._estimators import ConformalSelector, MultiConditionSelector
from ._procedures import SmallCalibrationWarning, bh_select, cfbh, mccs
from ._regions import region_scores
from ._result import SelectionResult

__all__ = [
    "ConformalSelector",
    "MultiConditionSelector",
    "SelectionResult",
    "SmallCalibrationWarning",
    "bh_select",
    "cfbh",
    "mccs",
    "region_scores",
]

"""Check a statistical guarantee on your own setup, with a stated false-alarm rate.

Monte Carlo guarantee checks (:func:`check_coverage` for conformal sets and
intervals, :func:`check_fdr` for selectors, :func:`check_risk` for risk controllers,
:func:`check_unlearning` for
certified unlearning, :func:`check_regret_slope` for bandit policies) run
replications through the study runner (:func:`statlearn.simulation.run_study`,
so ``n_jobs`` and the Dask backend work as in a study) and return a :class:`GuaranteeCheck` with
the estimate, its acceptance region at the given ``false_alarm``, the
verdict and the smallest deviation the run could detect; :func:`mc_size`
says how many replications a check needs. The assertion helpers
(:func:`assert_binomial_rate`, ...) are what statlearn's own test suite uses,
and :mod:`statlearn.testing.strategies` holds hypothesis strategies for the
library's inputs (hypothesis is an optional dependency).

This layer sits above the areas: it may import ``utils``, ``simulation``,
``datasets`` and the areas; no area imports it.
"""

from ._assertions import (
    assert_binomial_rate,
    assert_mean_close,
    assert_normal_close,
    binomial_acceptance_region,
    suite_size,
)
from ._bounds import mc_size
from ._coverage import check_coverage
from ._regret import check_regret_slope
from ._results import GuaranteeCheck
from ._risk import check_risk
from ._selection import check_fdr
from ._unlearning import check_unlearning

__all__ = [
    "GuaranteeCheck",
    "assert_binomial_rate",
    "assert_mean_close",
    "assert_normal_close",
    "binomial_acceptance_region",
    "check_coverage",
    "check_fdr",
    "check_regret_slope",
    "check_risk",
    "check_unlearning",
    "mc_size",
    "suite_size",
]

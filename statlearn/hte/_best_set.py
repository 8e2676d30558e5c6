"""A confidence set for the most accurate of K CATE candidates, from pairwise relative errors.

For every ordered pair ``(k, l)`` the one-sided hypothesis
``H_kl: MSE(tau_k) <= MSE(tau_l)`` is tested with the relative-error estimate
``delta_kl`` and its standard error (``p_kl = 1 - Phi(delta_kl / se_kl)``).
Holm's step-down procedure over the ``K (K - 1)`` hypotheses controls the
family-wise error rate at ``alpha``; candidate ``k`` leaves the set when some
``H_kl`` is rejected (another candidate is significantly more accurate). Every
``H_kl`` of a most accurate candidate ``k`` is true, so with probability at
least ``1 - alpha`` (asymptotically) *all* the most accurate candidates are in
the set at once. This is the "multiple comparisons with the best" idea of Hsu
(1984), carried out with Holm (1979) instead of a joint critical value; the
model confidence set of Hansen, Lunde & Nason (2011) targets the same set.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy import stats

from ..utils import Summary, check_alpha

__all__ = ["BestCandidateSet"]


def holm_adjust(p):
    """Holm step-down adjusted p-values (same order as ``p``)."""
    p = np.asarray(p, dtype=float)
    m = p.size
    order = np.argsort(p, kind="stable")
    adj = np.minimum(1.0, np.maximum.accumulate((m - np.arange(m)) * p[order]))
    out = np.empty(m)
    out[order] = adj
    return out


def directed_pvalues(table):
    """``(worse, better, p)`` for each ordered pair: ``p`` tests ``MSE(worse) <= MSE(better)``."""
    first = table["first"].to_numpy()
    second = table["second"].to_numpy()
    delta = table["delta"].to_numpy(dtype=float)
    se = table["se"].to_numpy(dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.where(se > 0, delta / se, np.sign(delta) * np.inf)
    # H_{first, second}: delta <= 0 is rejected for large z; H_{second, first} for small z
    p_first = np.where(np.isnan(z), 1.0, stats.norm.sf(z))
    p_second = np.where(np.isnan(z), 1.0, stats.norm.cdf(z))
    worse = np.concatenate([first, second])
    better = np.concatenate([second, first])
    return worse, better, np.concatenate([p_first, p_second])


def best_set_from_table(table, names, alpha, rel_loss=None):
    """The :class:`BestCandidateSet` of a table with ``first``, ``second``, ``delta``, ``se``."""
    alpha = check_alpha(alpha)
    worse, better, p = directed_pvalues(table)
    adj = holm_adjust(p)
    rows = []
    for k in names:
        mine = worse == k
        rejected = mine & (adj <= alpha)
        rows.append({"candidate": k, "in_set": not rejected.any(),
                     "pvalue": float(adj[mine].min()) if mine.any() else 1.0,
                     "beaten_by": ", ".join(repr(str(b)) for b in better[rejected])})
    out = pd.DataFrame(rows).set_index("candidate")
    if rel_loss is not None:
        out["rel_loss"] = pd.Series(rel_loss).reindex(out.index).to_numpy()
    out = out.sort_values("pvalue", ascending=False, kind="stable")
    members = tuple(out.index[out["in_set"]])
    return BestCandidateSet(members=members, alpha=alpha, table=out, n_candidates=len(names),
                            n_tests=int(p.size))


@dataclass(frozen=True)
class BestCandidateSet:
    """Candidates not significantly less accurate than any other (family-wise level ``alpha``).

    With probability at least ``1 - alpha`` (asymptotically, with valid
    pairwise intervals) every most accurate candidate is a member. Built by
    :meth:`PairwiseComparison.best_set` (Holm over the one-sided pairwise
    relative-error tests).

    Attributes
    ----------
    members : tuple of str
        The candidates in the set, most plausible first.
    alpha : float
        Family-wise error level.
    table : pandas.DataFrame
        Per candidate: ``in_set``; ``pvalue``, the Holm-adjusted p-value of
        "this candidate is a most accurate one" (it leaves the set when
        ``pvalue <= alpha``); ``beaten_by``, the candidates significantly more
        accurate than it; ``rel_loss`` when known (mean relative error against
        the others).
    n_candidates : int
    n_tests : int
        Number of one-sided tests Holm corrects for, ``K (K - 1)``.

    Examples
    --------
    >>> from statlearn.datasets import make_hte_reference
    >>> from statlearn.hte import RelativeErrorEvaluator
    >>> d = make_hte_reference(2000, random_state=0)
    >>> best = RelativeErrorEvaluator().compare(d.X, d.treatment, d.y, d.candidates).best_set()
    >>> "const" in best, len(best)
    (False, 2)
    """

    members: tuple
    alpha: float
    table: pd.DataFrame = field(repr=False)
    n_candidates: int = 0
    n_tests: int = 0

    def __contains__(self, name):
        return name in self.members

    def __len__(self):
        return len(self.members)

    def __iter__(self):
        return iter(self.members)

    def summary(self):
        """Summary: the set, and the adjusted p-value of every candidate."""
        return Summary("Best-candidate set", {"": self.table}, (
            f"{len(self.members)} of {self.n_candidates} candidates are not significantly less "
            f"accurate than any other, at {100 * (1 - self.alpha):g}% family-wise confidence "
            f"(Holm over {self.n_tests} one-sided relative-error tests): "
            f"{', '.join(repr(str(m)) for m in self.members)}",))

"""Confidence set for the most accurate of K candidates (Holm over one-sided pairwise tests).

Exact parts: Holm's adjusted p-values, the directed p-values of a pairwise table, the
set of a hand-made table. Monte Carlo: on the reference design with correct nuisance
models (logistic propensity on X, outcome regression with x1^2), 8 candidates; every
most accurate candidate is in the 90% set with probability >= 0.9, under the least
favourable configuration (all 8 equally accurate) and with 2 best among 6 worse.
"""

from __future__ import annotations

import functools

import numpy as np
import pandas as pd
import pytest
from sklearn.linear_model import LinearRegression, LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import FunctionTransformer

from statlearn.datasets import make_hte_reference
from statlearn.hte import BestCandidateSet, RelativeErrorEvaluator
from statlearn.hte._best_set import best_set_from_table, directed_pvalues, holm_adjust
from statlearn.testing import binomial_acceptance_region, suite_size


def test_holm_adjusted_pvalues_match_statsmodels():
    multitest = pytest.importorskip("statsmodels.stats.multitest")
    rng = np.random.default_rng(0)
    for m in (1, 2, 7, 30):
        p = rng.uniform(0, 0.2, m) ** 2
        p[: m // 3] = p[0]  # ties
        expected = multitest.multipletests(p, method="holm")[1]
        np.testing.assert_allclose(holm_adjust(p), expected, rtol=1e-12)


def test_directed_pvalues_and_a_hand_made_set():
    # a and b equally good, c worse than both (delta = MSE(first) - MSE(second))
    table = pd.DataFrame({"first": ["a", "a", "b"], "second": ["b", "c", "c"],
                          "delta": [0.0, -1.0, -0.9], "se": [0.1, 0.1, 0.1]})
    worse, better, p = directed_pvalues(table)
    assert list(zip(worse, better, strict=True)) == [("a", "b"), ("a", "c"), ("b", "c"),
                                                     ("b", "a"), ("c", "a"), ("c", "b")]
    assert p[0] == pytest.approx(0.5) and p[3] == pytest.approx(0.5)
    assert p[4] < 1e-20 and p[1] == pytest.approx(1.0)
    best = best_set_from_table(table, ["a", "b", "c"], 0.1)
    assert isinstance(best, BestCandidateSet)
    assert set(best) == {"a", "b"} and "c" not in best and len(best) == 2
    assert best.table.loc["c", "beaten_by"] == "'a', 'b'" and best.n_tests == 6
    text = str(best.summary())
    assert "2 of 3 candidates" in text and "90% family-wise" in text
    # identical candidates (se 0, delta 0) never exclude each other
    tie = pd.DataFrame({"first": ["a"], "second": ["b"], "delta": [0.0], "se": [0.0]})
    assert set(best_set_from_table(tie, ["a", "b"], 0.1)) == {"a", "b"}
    with pytest.raises(ValueError, match="alpha"):
        best_set_from_table(table, ["a", "b", "c"], 10)


def test_best_set_from_the_evaluator_and_from_a_comparison():
    d = make_hte_reference(2000, random_state=0)
    ev = RelativeErrorEvaluator(cross_fit=5, random_state=0)
    comp = ev.compare(d.X, d.treatment, d.y, d.candidates)
    assert ev.best_set(d.X, d.treatment, d.y, d.candidates).members == comp.best_set().members
    assert "const" not in comp.best_set()
    # a larger alpha never gives a larger set
    assert set(comp.best_set(alpha=0.3)) <= set(comp.best_set(alpha=0.05))
    bal = RelativeErrorEvaluator(nuisance="balanced").compare(d.X, d.treatment, d.y,
                                                             d.candidates).best_set()
    assert len(bal) >= 1
    with pytest.raises(ValueError, match="alpha"):
        comp.best_set(alpha=0.0)


# ----------------------------------------------------------------- Monte Carlo
def _with_square(X):
    return np.column_stack([X, X[:, 0] ** 2])


def _candidates(d, design):
    """Candidates ``tau + error``; errors linear in X ~ N(0, I), so MSEs are exact."""
    X, tau = d.X, d.tau
    if design == "all equal":  # 8 directions of length 0.5 in the (x3, x4) plane: MSE 0.25
        angles = np.linspace(0, np.pi, 8, endpoint=False)
        return {f"c{k}": tau + 0.5 * (np.cos(t) * X[:, 2] + np.sin(t) * X[:, 3])
                for k, t in enumerate(angles)}, [f"c{k}" for k in range(8)]
    # two best (MSE 0.25) and six worse (MSE 0.36, 0.49, 0.64, 1, 1.44, 2.25)
    cands = {"best1": tau + 0.5 * X[:, 2], "best2": tau + 0.5 * X[:, 3]}
    for k, s in enumerate([0.6, 0.7, 0.8, 1.0, 1.2, 1.5]):
        cands[f"worse{k}"] = tau + s * X[:, 1 if k % 2 else 2]
    return cands, ["best1", "best2"]


@functools.cache
def _sets(design, reps, n=2000):
    ev = RelativeErrorEvaluator(propensity_model=LogisticRegression(C=1e4),
                                outcome_model=make_pipeline(FunctionTransformer(_with_square),
                                                            LinearRegression()))
    out = []
    for r in range(reps):
        d = make_hte_reference(n, random_state=70_000 + r)
        cands, best = _candidates(d, design)
        members = set(ev.best_set(d.X, d.treatment, d.y, cands).members)
        out.append((set(best) <= members, len(members)))
    return np.array(out)


REPS = suite_size(200, 1000)


@pytest.mark.slow
@pytest.mark.parametrize("design", ["all equal", "two best"])
def test_every_best_candidate_is_in_the_set(design):
    """P(all most accurate candidates in the 90% set) >= 0.9: one-sided binomial check.

    False alarm 1e-3 (lower bound 0.85 at 200 replications, 0.88 at 1000). Measured
    at 200 replications: "all equal" 0.975 (least favourable: all 56 directed nulls
    true), "two best" 0.99, mean set size 7.9 and 2.4. Planted defects (put in once,
    seen to fail, removed): no multiplicity correction (each one-sided test at
    alpha) gave 0.585 on "all equal" and 0.785 on "two best" (both fail, below
    0.85); the one-sided tests swapped (a candidate leaves when it is
    significantly *better* than another) gave 0.0 on "two best" (fails, power 1;
    "all equal" cannot see it: 0.975).
    """
    res = _sets(design, REPS)
    lo, _ = binomial_acceptance_region(REPS, 0.9, 1e-3, alternative="less")
    assert res[:, 0].sum() >= lo, res[:, 0].mean()


@pytest.mark.slow
def test_clearly_worse_candidates_leave_the_set():
    """Power: with two best and six worse (MSE 0.36 to 2.25), the mean set size is
    below 4 (measured 2.4 at 200 replications; a set that kept everyone has 8)."""
    res = _sets("two best", REPS)
    assert res[:, 1].mean() < 4, res[:, 1].mean()

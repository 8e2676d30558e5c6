"""The public hypothesis strategies generate what they promise, hard cases included."""

from __future__ import annotations

import importlib
import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, find, given, settings
from hypothesis import strategies as st

from statlearn.testing import strategies as S
from statlearn.utils import check_probabilities
from tests.helpers import names_argument


def first(strategy, condition):
    """An example of ``strategy`` meeting ``condition``: the search of :func:`hypothesis.find`
    (up to its 2000 examples), without the shrinking that follows it. The tests only need
    one such example, and shrinking a matrix took up to 18 s a call (5 seeds, 2 cores)."""
    return find(strategy, condition, settings=settings(
        max_examples=2000, database=None, phases=[Phase.explicit, Phase.generate]))


@given(S.probability_matrices())
def test_probability_matrices_are_valid_for_the_library(P):
    assert P.ndim == 2 and P.shape[1] >= 2
    assert (P >= 0).all()
    check_probabilities(P, "P")  # the library's own validation accepts every one


def _has_one_hot(P):
    return bool(((P == 1.0).sum(axis=1) == 1).any())


def _has_tiny(P):
    return bool(((P > 0) & (P < 1e-9)).any())


def test_probability_matrices_reach_the_hard_cases():
    strat = S.probability_matrices()
    assert _has_one_hot(first(strat, _has_one_hot))
    assert _has_tiny(first(strat, _has_tiny))
    tied = first(strat, lambda P: any(np.unique(r[r > 0]).size < (r > 0).sum() for r in P))
    assert tied.size
    # each flag on its own: grid rows (ties) can be one-hot too, so one_hot is checked
    # with the grid off, and near_zero with the others off
    assert _has_one_hot(first(S.probability_matrices(ties=False, near_zero=False),
                              _has_one_hot))
    assert _has_tiny(first(S.probability_matrices(ties=False, one_hot=False), _has_tiny))


def test_probability_matrices_without_hard_cases():
    @settings(max_examples=30)
    @given(S.probability_matrices(ties=False, near_zero=False, one_hot=False))
    def run(P):
        assert (P > 0.001).all()

    run()


@given(S.score_vectors())
def test_score_vectors_are_never_nan(s):
    assert s.ndim == 1 and not np.isnan(s).any()


def test_score_vectors_reach_ties_and_infinities():
    strat = S.score_vectors()
    assert np.isposinf(first(strat, lambda s: bool(np.isposinf(s).any()))).any()
    assert np.isneginf(first(strat, lambda s: bool(np.isneginf(s).any()))).any()
    tied = first(strat, lambda s: np.unique(s).size < s.size)
    assert np.unique(tied).size < tied.size

    @settings(max_examples=30)
    @given(S.score_vectors(infinities=False, negative=False))
    def finite(s):
        assert np.isfinite(s).all() and (s >= 0).all()

    finite()


def _is_acyclic(nodes, edges):
    parents = {v: {a for a, b in edges if b == v} for v in nodes}
    done = set()
    while len(done) < len(nodes):
        ready = [v for v in nodes if v not in done and parents[v] <= done]
        if not ready:
            return False
        done |= set(ready)
    return True


@given(S.causal_diagrams())
def test_causal_diagrams_are_acyclic_with_a_rewarded_node(G):
    params = G.get_params()
    nodes = list(params["nodes"])
    directed = [tuple(e) for e in params["directed"]]
    assert "Y" in nodes and any(b == "Y" for _, b in directed)
    assert _is_acyclic(nodes, directed)


def test_causal_diagrams_reach_bidirected_edges():
    G = first(S.causal_diagrams(), lambda G: len(G.get_params()["bidirected"]) >= 2)
    assert len(G.get_params()["bidirected"]) >= 2


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(S.clusterable_graphs())
def test_clusterable_graphs_are_simple_with_few_edges_across(graph):
    A, labels = graph
    assert A.shape == (labels.size, labels.size)
    assert (A != A.T).nnz == 0 and A.diagonal().sum() == 0
    coo = A.tocoo()
    across = int((labels[coo.row] != labels[coo.col]).sum())
    assert across <= 0.2 * coo.nnz  # the clusters are joined by a few bridges only
    assert np.unique(labels).size <= 3


@given(S.glm_problems())
def test_glm_problems_have_the_stated_optimum(p):
    X, y, a, b = p["X"], p["y"], p["alpha"], p["coef"]
    grad = X.T @ (X @ b - y) + a * b
    scale = max(1.0, float(np.abs(X.T @ y).max()))
    assert np.abs(grad).max() <= 1e-9 * scale


def test_glm_optimum_is_what_the_unlearner_fits():
    from statlearn.unlearning import NewtonUnlearner

    @settings(max_examples=10, deadline=None)
    @given(S.glm_problems(min_samples=10))
    def run(p):
        est = NewtonUnlearner(loss="squared", alpha=p["alpha"], fit_intercept=False,
                              noise=None).fit(p["X"], p["y"])
        np.testing.assert_allclose(est.coef_, p["coef"], rtol=1e-6, atol=1e-8)

    run()


@given(S.calibration_problems())
def test_calibration_problems_are_consistent(p):
    m, d = p["U"].shape
    assert p["c"].shape == (m,) and p["V"].shape[1] == d and p["A"].shape[1] == d
    assert np.unique(p["V"], axis=0).shape == p["V"].shape
    if p["simplex"]:
        np.testing.assert_allclose(p["V"].sum(axis=1), 1.0, atol=1e-12)


@pytest.mark.parametrize("call,name", [
    (lambda: S.probability_matrices(min_rows=0), "min_rows"),
    (lambda: S.probability_matrices(min_classes=3, max_classes=2), "max_classes"),
    (lambda: S.probability_matrices(ties="yes"), "ties"),
    (lambda: S.score_vectors(max_size=-1), "max_size"),
    (lambda: S.causal_diagrams(min_nodes=1), "min_nodes"),
    (lambda: S.clusterable_graphs(degrees=(30,)), "degrees"),
    (lambda: S.glm_problems(max_features=0), "max_features"),
    (lambda: S.calibration_problems(dims=()), "dims"),
    (lambda: S.calibration_problems(simplex=1), "simplex"),
])
def test_bad_arguments_fail_when_the_strategy_is_built(call, name):
    with pytest.raises((ValueError, TypeError)) as info:
        call()
    assert names_argument(info.value, name), str(info.value)


def test_a_clear_error_without_hypothesis(monkeypatch):
    for mod in [m for m in sys.modules if m == "hypothesis" or m.startswith("hypothesis.")]:
        monkeypatch.setitem(sys.modules, mod, None)
    monkeypatch.setitem(sys.modules, "hypothesis", None)
    monkeypatch.delitem(sys.modules, "statlearn.testing.strategies")
    with pytest.raises(ImportError, match=r"hypothesis is required.*pip install"):
        importlib.import_module("statlearn.testing.strategies")


def test_strategies_compose_with_plain_hypothesis():
    @settings(max_examples=10)
    @given(S.score_vectors(min_size=2), st.floats(0.05, 0.5))
    def run(s, alpha):
        assert s.size >= 2 and 0 < alpha < 1

    run()

"""The public hypothesis strategies generate what they promise, hard cases included."""

from __future__ import annotations

import importlib
import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, find, given, settings
from hypothesis import strategies as st

from statlearn.testing import strategies as S
from statlearn.utils import check_probabilities
from tests.helpers import names_argument


@given(S.probability_matrices())
def test_probability_matrices_are_valid_for_the_library(P):
    assert P.ndim == 2 and P.shape[1] >= 2
    assert (P >= 0).all()
    check_probabilities(P, "P")  # the library's own validation accepts every one


def test_probability_matrices_reach_the_hard_cases():
    strat = S.probability_matrices()
    one_hot = find(strat, lambda P: bool(((P == 1.0).sum(axis=1) == 1).any()))
    assert (one_hot == 1.0).any()
    tiny = find(strat, lambda P: bool(((P > 0) & (P < 1e-9)).any()))
    assert ((tiny > 0) & (tiny < 1e-9)).any()
    tied = find(strat, lambda P: any(np.unique(r[r > 0]).size < (r > 0).sum() for r in P))
    assert tied.size


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
    assert np.isposinf(find(strat, lambda s: bool(np.isposinf(s).any()))).any()
    assert np.isneginf(find(strat, lambda s: bool(np.isneginf(s).any()))).any()
    tied = find(strat, lambda s: np.unique(s).size < s.size)
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
    G = find(S.causal_diagrams(), lambda G: len(G.get_params()["bidirected"]) >= 2)
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

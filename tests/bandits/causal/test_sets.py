"""MIS / POMIS (Lee and Bareinboim, 2018) and the counterfactual sets (ctf-SCB): known
tables, fast == brute force, properties."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings

from statlearn.bandits.causal import (
    Arm,
    CausalDiagram,
    arm_set,
    ctf_mis,
    ctf_pomis,
    ctf_pomis_bruteforce,
    example_graph,
    is_ctf_pomis,
    is_minimal_intervention_set,
    is_pomis,
    is_realizable,
    make_random_scm,
    minimal_intervention_sets,
    minimal_intervention_sets_bruteforce,
    minimize_cut,
    pomis,
    pomis_bruteforce,
    realizability_conflict,
)
from statlearn.testing.strategies import causal_diagrams

# POMIS sets and the number of MIS, as the reference code of Lee and Bareinboim (2018)
# (npsem) gives them; the last two rows from a brute force over the definitions
TABLE = {
    "IV": ([{"X"}, {"Z"}], 3),
    "XYZW": ([set(), {"W"}, {"W", "X"}], 6),
    "Markovian": ([{"X1", "X2"}], 13),
    "chain": ([{"Z"}], 3),
    "bow": ([set(), {"X"}], 2),
    "XYZWST": ([{"S", "T"}, {"T", "W"}, {"T", "W", "X"}], 18),
    "C56": ([{"X"}, {"W", "X"}], 4),
}


@pytest.mark.parametrize("name", sorted(TABLE))
def test_spec_table(name):
    g, y = example_graph(name)
    expected, n_mis = TABLE[name]
    expected = {frozenset(s) for s in expected}
    assert set(pomis(g, y)) == expected
    assert set(pomis_bruteforce(g, y)) == expected
    assert len(minimal_intervention_sets(g, y)) == n_mis
    assert len(minimal_intervention_sets_bruteforce(g, y)) == n_mis
    for s in expected:
        assert is_pomis(g, y, s)


def test_mis_lists_for_iv_and_markovian():
    g, y = example_graph("IV")
    assert set(minimal_intervention_sets(g, y)) == {frozenset(), frozenset("X"), frozenset("Z")}
    assert is_minimal_intervention_set(g, y, {"Z"})
    assert not is_minimal_intervention_set(g, y, {"X", "Z"})
    g, y = example_graph("Markovian")
    mis = set(minimal_intervention_sets(g, y))
    assert frozenset({"Z1", "Z2", "X1"}) in mis and frozenset({"Z1", "X1", "X2"}) not in mis


@settings(max_examples=60, deadline=None)
@given(causal_diagrams(max_nodes=7))
def test_fast_equals_bruteforce(g):
    assert pomis(g, "Y") == pomis_bruteforce(g, "Y")
    assert minimal_intervention_sets(g, "Y") == minimal_intervention_sets_bruteforce(g, "Y")
    for s in pomis(g, "Y"):
        assert is_minimal_intervention_set(g, "Y", s)


@settings(max_examples=40, deadline=None)
@given(causal_diagrams(max_nodes=7, max_bidirected=0))
def test_markovian_unique_pomis_is_parents(g):
    assert pomis(g, "Y") == [frozenset(g.parents("Y"))]
    assert ctf_pomis(g, "Y") == [frozenset((p, "Y") for p in g.parents("Y"))]


# ---------------------------------------------------------------- counterfactual sets
def test_ctf_sets_on_the_worked_example():
    g, y = example_graph("C56")
    got = set(ctf_pomis(g, y))
    assert got == {frozenset({("X", "W"), ("X", "Y")}), frozenset({("X", "Y"), ("W", "Y")})}
    assert is_ctf_pomis(g, y, {("X", "W"), ("X", "Y")})
    assert not is_ctf_pomis(g, y, {("X", "W")})            # Y still reads the natural X
    assert not is_ctf_pomis(g, y, {("X", "W"), ("X", "Y"), ("W", "Y")})  # not minimal
    assert minimize_cut(g, y, {("X", "W"), ("X", "Y"), ("W", "Y")}) == {("X", "Y"), ("W", "Y")}
    # 8 subsets of 3 edges; minimal ones: all except those cutting X->W together with W->Y
    assert len(ctf_mis(g, y)) == 6


@settings(max_examples=40, deadline=None)
@given(causal_diagrams(max_nodes=6, max_bidirected=2))
def test_ctf_fast_equals_bruteforce(g):
    if len(g.subgraph(g.ancestors("Y")).directed) > 9:
        return
    fast = ctf_pomis(g, "Y")
    assert fast == ctf_pomis_bruteforce(g, "Y")
    for c in fast:
        assert is_ctf_pomis(g, "Y", c)
        assert minimize_cut(g, "Y", c) == c
    if not g.has_bidirected_path_to_ancestor("Y"):
        assert fast == [frozenset((p, "Y") for p in g.parents("Y"))]


def test_no_bidirected_edge_means_only_do_parents():
    g = CausalDiagram(["A", "B", "C", "Y"],
                      [("A", "B"), ("A", "C"), ("B", "Y"), ("C", "Y"), ("A", "Y")])
    assert ctf_pomis(g, "Y") == [frozenset({("A", "Y"), ("B", "Y"), ("C", "Y")})]
    assert ctf_pomis_bruteforce(g, "Y") == ctf_pomis(g, "Y")


def test_realizability():
    g = CausalDiagram(["X", "Z", "W", "Y"], [("X", "Z"), ("Z", "W"), ("W", "Y")])
    # {W_x, Z_x'}: Z's mechanism would need both x and x'
    assert not is_realizable(g, "Y", {"W": {"X": 1}, "Z": {"X": 0}})
    assert realizability_conflict(g, "Y", {"W": {"X": 1}, "Z": {"X": 0}}) == "Z"
    assert is_realizable(g, "Y", {"W": {"X": 1}, "Z": {"X": 1}})
    assert is_realizable(g, "Y", {"W": {"X": 1}})
    # Y also reads the natural Z: Z needed under X=1 (for W) and naturally (for Y)
    g2 = CausalDiagram(g.nodes, list(g.directed) + [("Z", "Y")])
    assert realizability_conflict(g2, "Y", {"W": {"X": 1}}) == "Z"
    # regimes on Z itself are fine: W reads Z = 1, Y reads the natural Z
    assert is_realizable(g2, "Y", {"W": {"Z": 1}})


def _all_cut_arms(g, y):
    """Every counterfactual edge arm on G[An(Y)], written out independently."""
    edges = sorted(g.subgraph(g.ancestors(y)).directed)
    arms = []
    for r in range(len(edges) + 1):
        for c in itertools.combinations(edges, r):
            for vals in itertools.product((0, 1), repeat=r):
                arms.append(Arm(cut=dict(zip(c, vals))))
    return arms


def _all_do_arms(g, y):
    others = [v for v in g.nodes if v != y]
    arms = []
    for r in range(len(others) + 1):
        for s in itertools.combinations(others, r):
            for vals in itertools.product((0, 1), repeat=r):
                arms.append(Arm(do=dict(zip(s, vals))))
    return arms


@settings(max_examples=25, deadline=None)
@given(causal_diagrams(max_nodes=5, max_bidirected=2))
def test_soundness_on_random_scms(g):
    """max over pruned arms == max over all arms, exactly, for random SCMs (the soundness of
    POMIS pruning, Lee and Bareinboim 2018, and of CTF-POMIS pruning, ctf-SCB)."""
    if len(g.subgraph(g.ancestors("Y")).directed) > 6:
        return
    rng = np.random.default_rng(len(g.directed) * 31 + len(g.bidirected))
    for _ in range(2):
        scm = make_random_scm(g, rng)
        best_do = scm.arm_means("Y", _all_do_arms(g, "Y")).max()
        best_pomis = scm.arm_means("Y", arm_set(scm, "Y", "POMIS")).max()
        assert abs(best_pomis - best_do) < 1e-12
        best_cut = scm.arm_means("Y", _all_cut_arms(g, "Y")).max()
        best_ctf = scm.arm_means("Y", arm_set(scm, "Y", "CTF-POMIS")).max()
        assert abs(best_ctf - best_cut) < 1e-12
        assert best_cut >= best_do - 1e-12   # every do() is a cut of all out-edges


def test_bad_reward_and_sets():
    g, y = example_graph("IV")
    with pytest.raises(ValueError, match="reward must be a node"):
        pomis(g, "Q")
    with pytest.raises(ValueError, match="has no ancestors"):
        pomis(g, "Z")
    with pytest.raises(TypeError, match="graph must be a CausalDiagram"):
        pomis("IV", "Y")
    with pytest.raises(ValueError, match="must not contain the reward"):
        is_minimal_intervention_set(g, y, {"Y"})
    with pytest.raises(ValueError, match="not an edge"):
        minimize_cut(g, y, {("Y", "X")})
    with pytest.raises(ValueError, match="unknown nodes"):
        is_realizable(g, y, {"Q": {"X": 1}})


@settings(max_examples=20, deadline=None)
@given(causal_diagrams(max_nodes=5, max_bidirected=1))
def test_super_model_keeps_soundness(g):
    """Extra bidirected edges (a super-model of the true diagram) lose pruning, not the optimum."""
    if len(g.subgraph(g.ancestors("Y")).directed) > 6:
        return
    rng = np.random.default_rng(len(g.directed))
    scm = make_random_scm(g, rng)
    others = [v for v in g.nodes if v != "Y"]
    extra = [(a, "Y") for a in others if not g.confounded(a, "Y")]
    bigger = CausalDiagram(g.nodes, g.directed, [tuple(e) for e in g.bidirected] + extra)
    best = scm.arm_means("Y", _all_do_arms(g, "Y")).max()
    arms = [Arm(do={v: x for v, x in zip(sorted(s), vals)})
            for s in pomis(bigger, "Y")
            for vals in itertools.product((0, 1), repeat=len(s))]
    assert abs(scm.arm_means("Y", arms).max() - best) < 1e-12
    cuts = [Arm(cut=dict(zip(sorted(c), vals))) for c in ctf_pomis(bigger, "Y")
            for vals in itertools.product((0, 1), repeat=len(c))]
    assert abs(scm.arm_means("Y", cuts).max()
               - scm.arm_means("Y", _all_cut_arms(g, "Y")).max()) < 1e-12

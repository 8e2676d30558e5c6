"""Exact checks of the causal diagram and the intervention sets: orders, components, errors.

Written against the mutation runs of ``bandits.causal._graph`` and
``bandits.causal._sets``. Orders are the documented ones (ties by position in
``nodes``; cuts by size, then by their sorted (child, parent) positions) and are
derived here by brute force over small diagrams; errors are matched by type, the
argument they name and the value they show.
"""

from itertools import chain, combinations

import pytest

from statlearn.bandits.causal import CausalDiagram, check_reward, ctf_mis, example_graph
from tests.helpers import raises


def _ancestors(nodes, edges, y):
    out, stack = {y}, [y]
    while stack:
        v = stack.pop()
        for a, b in edges:
            if b == v and a not in out:
                out.add(a)
                stack.append(a)
    return out


# ------------------------------------------------------------------ the diagram
def test_repeated_nodes_are_named_in_the_error():
    raises(lambda: CausalDiagram(["X", "Y", "X", "Z", "Y"]), ValueError,
           names="nodes", shows="['X', 'Y']")


def test_topological_ties_follow_the_stated_node_order():
    # no edges: every node is ready at once, so the order is the stated one (not
    # alphabetical); with Q -> A the parent comes first, and the rest keep their places
    nodes = ["Q", "M", "A", "Z", "B", "K"]
    assert CausalDiagram(nodes).topological_order() == tuple(nodes)
    g = CausalDiagram(nodes, [("Z", "M")])
    # ready at start: Q, A, Z, B, K (M waits for Z); Z releases M after it is taken
    assert g.topological_order() == ("Q", "A", "Z", "M", "B", "K")


def test_sorted_edges_break_ties_by_the_parent_position():
    # eight parents of one child, stated in an order that is neither alphabetical nor
    # the edges' order: (child, parent) positions give exactly the stated order
    parents = ["P7", "P2", "P5", "P0", "P6", "P1", "P4", "P3"]
    g = CausalDiagram(parents + ["Y"], [(p, "Y") for p in sorted(parents)])
    assert g.sorted_edges() == [(p, "Y") for p in parents]


def test_c_components_are_listed_once_each_in_node_order():
    g, _ = example_graph("XYZWST")  # nodes S, T, Z, X, W, Y; X <-> W, Z <-> Y
    assert g.c_components() == [{"S"}, {"T"}, {"Z", "Y"}, {"X", "W"}]
    g, _ = example_graph("IV")  # Z, X, Y with X <-> Y
    assert g.c_components() == [{"Z"}, {"X", "Y"}]


@pytest.mark.parametrize("call, name", [
    (lambda g: g.c_component("Q"), "node"),
    (lambda g: g.confounded("Q", "X"), "a"),
    (lambda g: g.confounded("X", "Q"), "b"),
    (lambda g: g.muct("Q"), "reward"),
    (lambda g: g.has_bidirected_path_to_ancestor("Q"), "reward"),
])
def test_unknown_node_queries_name_their_argument(call, name):
    g, _ = example_graph("IV")
    exc = raises(lambda: call(g), ValueError, names=name, shows="['Q']")
    # and no other argument name: the word before "has unknown nodes" is the argument
    assert str(exc).split(" has unknown nodes")[0] == name


# ------------------------------------------------------------------ the sets
def test_check_reward_shows_the_type_it_got():
    raises(lambda: check_reward({"X": "Y"}, "Y"), TypeError, names="graph", shows="dict")


@pytest.mark.parametrize("name", ["chain", "IV", "XYZW", "XYZWST", "C56"])
def test_ctf_mis_is_every_minimal_cut_in_the_documented_order(name):
    # brute force: every subset of the edges of G[An(Y)] whose cut heads are all still
    # ancestors of Y once the cut is made; sorted by size, then by the sorted
    # (child position, parent position) pairs of its edges
    g, y = example_graph(name)
    anc = _ancestors(g.nodes, g.directed, y)
    edges = [e for e in g.directed if e[0] in anc and e[1] in anc]
    pos = {v: i for i, v in enumerate(g.nodes)}
    cuts = []
    for c in chain.from_iterable(combinations(edges, r) for r in range(len(edges) + 1)):
        rest = [e for e in edges if e not in c]
        left = _ancestors(g.nodes, rest, y)
        if all(b in left for _, b in c):
            cuts.append(frozenset(c))
    cuts.sort(key=lambda c: (len(c), sorted((pos[b], pos[a]) for a, b in c)))
    assert ctf_mis(g, y) == cuts

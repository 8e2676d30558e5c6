"""CausalDiagram: validation and graph operations."""

import pytest
from hypothesis import given

from statlearn.bandits.causal import CausalDiagram, example_graph
from statlearn.testing.strategies import causal_diagrams


def test_relations_on_xyzwst():
    g, y = example_graph("XYZWST")
    assert g.parents("Y") == {"X", "W", "T"}
    assert g.children("T") == {"X", "Y"}
    assert g.ancestors("X") == {"X", "Z", "T"}
    assert g.descendants("S") == {"S", "W", "Y"}
    assert g.c_component("W") == {"W", "X"}
    assert {frozenset(c) for c in g.c_components()} == {
        frozenset({"W", "X"}), frozenset({"Z", "Y"}), frozenset({"S"}), frozenset({"T"})}
    order = g.topological_order()
    for a, b in g.directed:
        assert order.index(a) < order.index(b)


def test_do_removes_incoming_and_bidirected():
    g, _ = example_graph("XYZW")
    h = g.do({"X"})
    assert ("Z", "X") not in h.directed and ("X", "Y") in h.directed
    assert not h.confounded("X", "W") and h.confounded("Z", "Y")
    sub = g.subgraph({"X", "Y", "W"})
    assert set(sub.nodes) == {"X", "Y", "W"} and sub.confounded("X", "W")
    assert ("Z", "X") not in sub.directed


@pytest.mark.parametrize("name,muct,ib", [
    ("IV", {"X", "Y"}, {"Z"}),
    ("XYZW", {"W", "X", "Y", "Z"}, set()),
    ("Markovian", {"Y"}, {"X1", "X2"}),
    ("chain", {"Y"}, {"Z"}),
    ("bow", {"X", "Y"}, set()),
    ("XYZWST", {"W", "X", "Y", "Z"}, {"S", "T"}),
    ("C56", {"W", "Y"}, {"X"}),
])
def test_muct_and_ib_of_the_spec_table(name, muct, ib):
    g, y = example_graph(name)
    assert g.muct(y) == muct
    assert g.interventional_border(y) == ib


@given(causal_diagrams())
def test_muct_is_closed(g):
    t = g.muct("Y")
    anc = g.ancestors("Y")
    h = g.subgraph(anc)
    assert "Y" in t and t <= anc
    for v in t:
        assert h.c_component(v) <= t
        assert h.descendants(v) <= t


@pytest.mark.parametrize("kwargs,exc,match", [
    ({"nodes": ["X", "Y"], "directed": [("X", "Y"), ("Y", "X")]}, ValueError, "cycle"),
    ({"nodes": ["X", "Y", "Z"], "directed": [("X", "Y"), ("Y", "Z"), ("Z", "X")]},
     ValueError, "cycle"),
    ({"nodes": ["X", "Y"], "directed": [("X", "Q")]}, ValueError, "unknown node 'Q'"),
    ({"nodes": ["X", "Y"], "bidirected": [("X", "Q")]}, ValueError, "unknown node 'Q'"),
    ({"nodes": ["X", "X"]}, ValueError, "distinct"),
    ({"nodes": ["X", "Y"], "directed": [("X", "X")]}, ValueError, "self loop"),
    ({"nodes": ["X", "Y"], "bidirected": [("Y", "Y")]}, ValueError, "self loop"),
    ({"nodes": "XY"}, TypeError, "nodes must be an iterable"),
    ({"nodes": ["X", 3]}, TypeError, "non-empty strings"),
    ({"nodes": ["X", "Y"], "directed": [("X", "Y", "Z")]}, ValueError, "pair"),
])
def test_invalid_graphs(kwargs, exc, match):
    with pytest.raises(exc, match=match):
        CausalDiagram(**kwargs)


def test_bad_node_queries():
    g, _ = example_graph("IV")
    with pytest.raises(ValueError, match="unknown nodes"):
        g.ancestors("Q")
    with pytest.raises(ValueError, match="not in the diagram"):
        g.remove_edges([("Y", "X")])
    with pytest.raises(ValueError, match="name must be one of"):
        example_graph("nope")


# ------------------------------------------------- printed form and immutability
def test_repr_lists_nodes_edges_in_order_and_bidirected_pairs():
    from statlearn.bandits.causal import CausalDiagram

    g = CausalDiagram(["Z", "X", "Y"], directed=[("X", "Y"), ("Z", "X")],
                      bidirected=[("Y", "Z"), ("X", "Y")])
    # directed edges by (child, parent) position; each bidirected pair in node order
    assert repr(g) == ("CausalDiagram(nodes=['Z', 'X', 'Y'], directed=[Z->X, X->Y], "
                       "bidirected=[X<->Y, Z<->Y])")


def test_set_params_refuses_naming_the_class_and_parameters_and_clone_rebuilds():
    from sklearn.base import clone

    from statlearn.bandits.causal import CausalDiagram
    from tests.helpers import raises

    g = CausalDiagram(["X", "Y"], directed=[("X", "Y")])
    assert g.set_params() is g  # nothing to change: nothing refused
    raises(lambda: g.set_params(nodes=["A"], directed=[]), TypeError, names="CausalDiagram",
           shows="set_params(directed, nodes=...)")
    c = clone(g)
    assert c is not g and type(c) is CausalDiagram and repr(c) == repr(g)

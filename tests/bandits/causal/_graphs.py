"""Hypothesis strategy for small causal diagrams (reward = last node, with a parent)."""

from hypothesis import strategies as st

from statlearn.bandits.causal import CausalDiagram


@st.composite
def diagrams(draw, min_nodes=2, max_nodes=7, max_bidirected=3):
    n = draw(st.integers(min_nodes, max_nodes))
    names = [f"V{i}" for i in range(n - 1)] + ["Y"]
    pairs = [(i, j) for j in range(n) for i in range(j)]
    directed = [(names[i], names[j]) for i, j in pairs if draw(st.booleans())]
    if not any(b == "Y" for _, b in directed):
        directed.append((names[draw(st.integers(0, n - 2))], "Y"))
    k = draw(st.integers(0, min(max_bidirected, len(pairs))))
    chosen = draw(st.lists(st.sampled_from(pairs), min_size=k, max_size=k, unique=True))
    bidirected = [(names[i], names[j]) for i, j in chosen]
    # shuffle the node list so that the stated order is not the causal order
    order = draw(st.permutations(names))
    return CausalDiagram(order, directed, bidirected)

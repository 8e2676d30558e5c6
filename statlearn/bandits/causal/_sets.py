"""Which variables to intervene on: MIS, POMIS and their counterfactual versions.

Interventional sets (Lee & Bareinboim, 2018) are sets of nodes ``X`` played
as ``do(X = x)``. Counterfactual sets are sets of *cut edges*: cutting
``P -> Q`` feeds ``Q``'s mechanism a chosen value of ``P`` while every other
input keeps the unit's own (possibly already modified) value. ``do(X = x)``
is the special case that cuts every edge out of ``X`` with the same value;
cutting ``X -> W`` with ``x`` and ``X -> Y`` with ``x'`` lets two children
see different values of ``X`` (a counterfactual arm ``{W_[x], Y_[x']}``).
"""

from __future__ import annotations

from itertools import chain, combinations

from statlearn.utils import check_int

from ._graph import CausalDiagram

__all__ = [
    "check_reward",
    "ctf_mis",
    "ctf_pomis",
    "ctf_pomis_bruteforce",
    "is_ctf_pomis",
    "is_minimal_intervention_set",
    "is_pomis",
    "is_realizable",
    "realizability_conflict",
    "minimal_intervention_sets",
    "minimal_intervention_sets_bruteforce",
    "minimize_cut",
    "pomis",
    "pomis_bruteforce",
]


def _subsets(items):
    items = list(items)
    return chain.from_iterable(combinations(items, r) for r in range(len(items) + 1))


def check_reward(graph, reward):
    """Validate ``(graph, reward)``: a diagram and a node with at least one proper ancestor.

    Returns
    -------
    str
        ``reward``.

    Examples
    --------
    >>> from statlearn.bandits.causal import CausalDiagram, check_reward
    >>> check_reward(CausalDiagram(["X", "Y"], [("X", "Y")]), "Y")
    'Y'
    """
    if not isinstance(graph, CausalDiagram):
        raise TypeError(f"graph must be a CausalDiagram, got {type(graph).__name__}.")
    if not isinstance(reward, str) or reward not in graph:
        raise ValueError(f"reward must be a node of the graph {list(graph.nodes)}, got "
                         f"{reward!r}.")
    if len(graph.ancestors(reward)) == 1:
        raise ValueError(f"reward {reward!r} has no ancestors: no intervention can change it.")
    return reward


def _sorted_sets(graph, sets):
    pos = {v: i for i, v in enumerate(graph.nodes)}
    return sorted({frozenset(s) for s in sets},
                  key=lambda s: (len(s), sorted(pos[v] for v in s)))


def _sorted_cuts(graph, cuts):
    pos = {v: i for i, v in enumerate(graph.nodes)}

    def key(c):
        return (len(c), sorted((pos[b], pos[a]) for a, b in c))

    return sorted({frozenset(c) for c in cuts}, key=key)


# ---------------------------------------------------------------- interventional sets
def is_minimal_intervention_set(graph, reward, nodes):
    """Whether ``nodes`` is a minimal intervention set: ``X ⊆ An(Y)`` in ``G_{bar X}``.

    Examples
    --------
    >>> from statlearn.bandits.causal import example_graph, is_minimal_intervention_set
    >>> g, y = example_graph("IV")
    >>> is_minimal_intervention_set(g, y, {"Z"}), is_minimal_intervention_set(g, y, {"X", "Z"})
    (True, False)
    """
    check_reward(graph, reward)
    xs = graph._check_nodes(nodes)
    if reward in xs:
        raise ValueError(f"nodes must not contain the reward {reward!r}.")
    return xs <= graph.do(xs).ancestors(reward)


def minimal_intervention_sets(graph, reward):
    """All minimal intervention sets (MIS) of ``reward`` in ``graph``.

    Recursive enumeration (Lee & Bareinboim, 2018): restrict ``G`` to
    ``An(Y)``, walk the other nodes in reverse causal order, and for each
    ``W_i`` recurse on ``G_{bar W_i}[An(Y)]`` with the later nodes still there.

    Returns
    -------
    list of frozenset
        Sorted by size, then node position. ``frozenset()`` (no
        intervention) is always included.

    Examples
    --------
    >>> from statlearn.bandits.causal import example_graph, minimal_intervention_sets
    >>> g, y = example_graph("IV")
    >>> [sorted(s) for s in minimal_intervention_sets(g, y)]
    [[], ['Z'], ['X']]
    """
    check_reward(graph, reward)
    h = graph.subgraph(graph.ancestors(reward))
    order = [w for w in reversed(h.topological_order()) if w != reward]
    out = set()

    def rec(g, xs, ws):
        out.add(frozenset(xs))
        for i, w in enumerate(ws):
            sub = g.do({w})
            sub = sub.subgraph(sub.ancestors(reward))
            rec(sub, xs | {w}, [v for v in ws[i + 1:] if v in sub])

    rec(h, frozenset(), order)
    return _sorted_sets(graph, out)


def minimal_intervention_sets_bruteforce(graph, reward):
    """MIS by checking the criterion on every subset of ``V \\ {Y}`` (a reference).

    Examples
    --------
    >>> from statlearn.bandits.causal import example_graph, minimal_intervention_sets_bruteforce
    >>> g, y = example_graph("chain")
    >>> len(minimal_intervention_sets_bruteforce(g, y))
    3
    """
    check_reward(graph, reward)
    others = [v for v in graph.nodes if v != reward]
    return _sorted_sets(graph, [set(s) for s in _subsets(others)
                                if set(s) <= graph.do(set(s)).ancestors(reward)])


def is_pomis(graph, reward, nodes):
    """Whether ``nodes`` is a POMIS: ``IB(G_{bar X}, Y) = X``.

    Examples
    --------
    >>> from statlearn.bandits.causal import example_graph, is_pomis
    >>> g, y = example_graph("IV")
    >>> is_pomis(g, y, {"Z"}), is_pomis(g, y, set())
    (True, False)
    """
    check_reward(graph, reward)
    xs = graph._check_nodes(nodes)
    return graph.do(xs).interventional_border(reward) == xs


def _muct_ib(graph, reward):
    t = graph.muct(reward)
    return t, graph.parents(t) - t


def pomis(graph, reward):
    """All possibly-optimal minimal intervention sets (POMIS), fast algorithm.

    Lee & Bareinboim (2018), Algorithm 1: from ``G[An(Y)]`` take the
    territory ``T = MUCT`` and border ``X = IB``; output ``X`` and recurse on
    ``G_{bar X}[T ∪ X]`` over the nodes of ``T \\ {Y}`` in reverse causal
    order, skipping borders that hit an already-visited node.

    Returns
    -------
    list of frozenset
        Sorted by size, then node position.

    Examples
    --------
    >>> from statlearn.bandits.causal import example_graph, pomis
    >>> g, y = example_graph("XYZW")
    >>> [sorted(s) for s in pomis(g, y)]
    [[], ['W'], ['W', 'X']]
    """
    check_reward(graph, reward)
    g = graph.subgraph(graph.ancestors(reward))
    t, x = _muct_ib(g, reward)
    h = g.do(x).subgraph(t | x)
    out = {frozenset(x)}

    def rec(h, ws, obs):
        for i, w in enumerate(ws):
            t2, x2 = _muct_ib(h.do({w}), reward)
            new_obs = obs | set(ws[:i])
            if not (x2 & new_obs):
                out.add(frozenset(x2))
                later = [v for v in ws[i + 1:] if v in t2]
                if later:
                    rec(h.do(x2).subgraph(t2 | x2), later, new_obs)

    order = [v for v in reversed(h.topological_order()) if v in t and v != reward]
    rec(h, order, set())
    return _sorted_sets(graph, out)


def pomis_bruteforce(graph, reward):
    """POMIS as ``{IB(G_{bar W}, Y) : W ⊆ V \\ {Y}}`` (the reference the fast algorithm must equal).

    Examples
    --------
    >>> from statlearn.bandits.causal import example_graph, pomis_bruteforce
    >>> g, y = example_graph("IV")
    >>> [sorted(s) for s in pomis_bruteforce(g, y)]
    [['Z'], ['X']]
    """
    check_reward(graph, reward)
    others = [v for v in graph.nodes if v != reward]
    return _sorted_sets(graph, [graph.do(set(w)).interventional_border(reward)
                                for w in _subsets(others)])


# ---------------------------------------------------------------- counterfactual sets
def _check_cut(graph, reward, edges):
    check_reward(graph, reward)
    out = set()
    for e in edges:
        if isinstance(e, str) or len(tuple(e)) != 2:
            raise TypeError(f"each cut edge must be a (parent, child) pair, got {e!r}.")
        e = tuple(e)
        if e not in graph.directed:
            raise ValueError(f"cut edge {e[0]!r} -> {e[1]!r} is not an edge of the graph.")
        out.add(e)
    return out


def _ancestral_graph(graph, reward):
    return graph.subgraph(graph.ancestors(reward))


def minimize_cut(graph, reward, edges):
    """Drop the cut edges whose head no longer reaches ``reward`` (CTF-MISIFY).

    After cutting ``edges``, a cut edge ``P -> Q`` matters only if ``Q`` is
    still an ancestor of ``Y``; the others change nothing for any SCM.

    Examples
    --------
    >>> from statlearn.bandits.causal import example_graph, minimize_cut
    >>> g, y = example_graph("chain")
    >>> sorted(minimize_cut(g, y, {("X", "Z"), ("Z", "Y")}))
    [('Z', 'Y')]
    """
    cut = _check_cut(graph, reward, edges)
    anc = graph.remove_edges(cut).ancestors(reward)
    return frozenset(e for e in cut if e[1] in anc)


def is_ctf_pomis(graph, reward, edges):
    """Whether the cut ``edges`` form a counterfactual POMIS.

    The counterfactual regime graph ``H`` is ``G`` without the cut edges
    (each head keeps its own noise and confounders). The cut is a CTF-POMIS
    when it is minimal (:func:`minimize_cut` leaves it unchanged) and
    ``IB(H, Y) = ∅``: everything feeding Y's confounded territory from
    outside is set by the arm.

    Examples
    --------
    >>> from statlearn.bandits.causal import example_graph, is_ctf_pomis
    >>> g, y = example_graph("C56")
    >>> is_ctf_pomis(g, y, {("X", "W")}), is_ctf_pomis(g, y, {("X", "W"), ("X", "Y")})
    (False, True)
    """
    cut = frozenset(_check_cut(graph, reward, edges))
    if minimize_cut(graph, reward, cut) != cut:
        return False
    return not graph.remove_edges(cut).interventional_border(reward)


def ctf_mis(graph, reward):
    """All minimal counterfactual cuts (CTF-MIS) within ``G[An(Y)]``.

    A cut is minimal when every cut edge's head is still an ancestor of
    ``Y`` once the cut is made (the counterfactual value reaches ``Y``).

    Examples
    --------
    >>> from statlearn.bandits.causal import ctf_mis, example_graph
    >>> g, y = example_graph("chain")
    >>> [sorted(c) for c in ctf_mis(g, y)]
    [[], [('X', 'Z')], [('Z', 'Y')]]
    """
    check_reward(graph, reward)
    g = _ancestral_graph(graph, reward)
    edges = g.sorted_edges()
    return _sorted_cuts(graph, [c for c in _subsets(edges)
                                if minimize_cut(g, reward, c) == frozenset(c)])


def ctf_pomis_bruteforce(graph, reward):
    """Counterfactual POMIS by enumerating every subset of edges of ``G[An(Y)]`` (reference).

    Each subset is minimised (:func:`minimize_cut`) and kept when
    ``IB(H, Y) = ∅`` in its regime graph; duplicates are merged.

    Examples
    --------
    >>> from statlearn.bandits.causal import ctf_pomis_bruteforce, example_graph
    >>> g, y = example_graph("chain")
    >>> [sorted(c) for c in ctf_pomis_bruteforce(g, y)]
    [[('Z', 'Y')]]
    """
    check_reward(graph, reward)
    g = _ancestral_graph(graph, reward)
    out = []
    for c in _subsets(g.sorted_edges()):
        h = g.remove_edges(c)
        if not h.interventional_border(reward):
            out.append(minimize_cut(g, reward, c))
    return _sorted_cuts(graph, out)


def ctf_pomis(graph, reward):
    """Counterfactual POMIS: one representative cut per possibly-optimal arm group.

    Enumerates candidate territories instead of edge subsets: a CTF-POMIS
    with regime graph ``H`` has ``An_H(Y) = MUCT_H(Y) = T``, every edge
    entering ``T`` from outside cut, and some subset of the edges inside
    ``T`` cut. So for each node set ``T ∋ Y`` of ``An(Y)`` the edges into
    ``T`` are cut and the subsets ``D`` of ``T``'s internal edges are kept
    when ``T`` is both the ancestor set and the territory of ``Y`` after
    the cut. Node sets that are not already the territory of ``Y`` in
    ``G[T]`` are skipped, since cutting edges only shrinks descendant sets.
    Equal to :func:`ctf_pomis_bruteforce` (tested).

    When ``Y`` has no bidirected path to an ancestor (for instance in a
    Markovian diagram) the only result is the cut of every edge into ``Y``,
    i.e. ``do(Pa(Y))``.

    Returns
    -------
    list of frozenset of (str, str)
        Cut edges ``(parent, child)``, sorted by size.

    Examples
    --------
    >>> from statlearn.bandits.causal import ctf_pomis, example_graph
    >>> g, y = example_graph("C56")
    >>> [sorted(c) for c in ctf_pomis(g, y)]
    [[('X', 'W'), ('X', 'Y')], [('W', 'Y'), ('X', 'Y')]]
    """
    check_reward(graph, reward)
    g = _ancestral_graph(graph, reward)
    others = [v for v in g.nodes if v != reward]
    out = []
    for rest in _subsets(others):
        t = set(rest) | {reward}
        # cutting edges only shrinks descendant sets: T must already be the
        # territory of Y in G[T] with no internal edge cut
        if g.subgraph(t).muct(reward) != t:
            continue
        entering = [e for e in g.directed if e[0] not in t and e[1] in t]
        inside = [e for e in g.sorted_edges() if e[0] in t and e[1] in t]
        base = g.remove_edges(entering)
        for d in _subsets(inside):
            h = base.remove_edges(d)
            if h.ancestors(reward) == t and h.muct(reward) == t:
                out.append(frozenset(entering) | frozenset(d))
    return _sorted_cuts(graph, out)


def is_realizable(graph, reward, arm):
    """Whether a general counterfactual arm ``{X_i[w_i]}`` can be sampled (implementability).

    The arm maps each variable ``X_i`` to a regime ``w_i`` (an assignment to
    upstream variables ``W_i``); ``X_i`` takes the value it would have in the
    submodel ``M_{w_i}`` and replaces its natural value for ``Y``. Every
    variable the arm needs is tagged with the regime it is computed under,
    minimised to the regime variables that are its ancestors in
    ``G_{bar W_i}``; the arm is realizable when no variable needs two
    different tags (its mechanism cannot receive two inputs at once). The
    ancestors of ``Y`` outside the arm are needed in the natural regime.

    Parameters
    ----------
    graph : CausalDiagram
    reward : str
    arm : mapping of str to mapping of str to int
        ``{X_i: {W: w, ...}}``.

    Returns
    -------
    bool

    Examples
    --------
    >>> from statlearn.bandits.causal import CausalDiagram, is_realizable
    >>> g = CausalDiagram(["X", "Z", "W", "Y"], [("X", "Z"), ("Z", "W"), ("W", "Y")])
    >>> is_realizable(g, "Y", {"W": {"X": 1}, "Z": {"X": 0}})
    False
    >>> is_realizable(g, "Y", {"W": {"X": 1}, "Z": {"X": 1}})
    True
    """
    return realizability_conflict(graph, reward, arm) is None


def realizability_conflict(graph, reward, arm):
    """The first variable an arm needs under two different regimes, or ``None``.

    See :func:`is_realizable`.

    Examples
    --------
    >>> from statlearn.bandits.causal import CausalDiagram, realizability_conflict
    >>> g = CausalDiagram(["X", "Z", "W", "Y"], [("X", "Z"), ("Z", "W"), ("W", "Y"),
    ...                                            ("Z", "Y")])
    >>> realizability_conflict(g, "Y", {"W": {"X": 1}})
    'Z'
    """
    check_reward(graph, reward)
    if not hasattr(arm, "items"):
        raise TypeError("arm must be a mapping {variable: {regime variable: value}}.")
    tags = {}

    def tag(v, t):
        tags.setdefault(v, set()).add(t)

    xs = graph._check_nodes(set(arm), "arm")
    natural = CausalDiagram(graph.nodes, [e for e in graph.directed if e[1] not in xs])
    for v in natural.ancestors(reward) - xs:
        tag(v, frozenset())

    for x, w in arm.items():
        graph._check_nodes({x}, "arm")
        if not hasattr(w, "items"):
            raise TypeError(f"arm[{x!r}] must be a mapping of regime variables to values.")
        ws = graph._check_nodes(set(w), f"arm[{x!r}]")
        values = {k: check_int(w[k], f"arm[{x!r}][{k!r}]") for k in ws}
        g_w = graph.do(ws)
        for v in g_w.ancestors(x) - ws:
            anc = g_w.ancestors(v)
            tag(v, frozenset((k, values[k]) for k in ws if k in anc))
    return next((v for v in graph.nodes if len(tags.get(v, ())) > 1), None)

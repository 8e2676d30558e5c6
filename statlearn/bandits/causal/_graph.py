"""Causal diagrams: directed edges plus bidirected (latent confounder) edges."""

from __future__ import annotations

from collections.abc import Iterable

from statlearn.base import ParamsMixin, validate_params

__all__ = ["CausalDiagram", "example_graph", "EXAMPLE_GRAPHS"]


class _ImmutableParams(ParamsMixin):
    """``get_params`` and ``clone`` for an immutable object; ``set_params`` refuses.

    Diagrams, SCMs and bandit instances check their arguments and derive their
    structure (orders, exogenous scopes, exact arm means) once, at
    construction: changing a parameter afterwards would leave that structure
    stale, so a changed object is built anew.
    """

    _immutable = True  # the contract suite rebuilds instead of calling set_params

    def set_params(self, **params):
        """Refused (``TypeError``): the object is immutable; build a new one."""
        if not params:
            return self
        name = type(self).__name__
        raise TypeError(
            f"{name} is immutable (its arguments are checked and its structure derived at "
            f"construction), so set_params({', '.join(sorted(params))}=...) is refused; "
            f"build a new one: {name}(**{{**obj.get_params(deep=False), ...}}).")

    def __sklearn_clone__(self):
        return type(self)(**self.get_params(deep=False))


def _pair(edge, kind):
    if isinstance(edge, str) or not isinstance(edge, Iterable):
        raise TypeError(f"each {kind} edge must be a pair of node names, got {edge!r}.")
    edge = tuple(edge)
    if len(edge) != 2:
        raise ValueError(f"each {kind} edge must be a pair of node names, got {edge!r}.")
    return edge


class CausalDiagram(_ImmutableParams):
    """A causal diagram: a DAG over observed variables plus bidirected confounder edges.

    A bidirected edge ``A <-> B`` stands for an unobserved common cause of
    ``A`` and ``B``. The diagram is immutable; graph operations return new
    diagrams.

    Parameters
    ----------
    nodes : iterable of str
        Variable names. Their order is kept and breaks ties in every ordering.
    directed : iterable of (str, str), default=()
        Directed edges ``(parent, child)``.
    bidirected : iterable of (str, str), default=()
        Bidirected edges (unordered).

    Raises
    ------
    ValueError
        Duplicate or empty node names, edges with unknown nodes, self loops,
        or a directed cycle.

    Examples
    --------
    >>> from statlearn.bandits.causal import CausalDiagram
    >>> g = CausalDiagram(["Z", "X", "Y"], [("Z", "X"), ("X", "Y")], [("X", "Y")])
    >>> sorted(g.ancestors("Y"))
    ['X', 'Y', 'Z']
    >>> sorted(g.c_component("Y"))
    ['X', 'Y']
    >>> g.do({"X"}).bidirected
    frozenset()
    """

    _parameter_constraints = {
        "nodes": [Iterable],  # each name, and that it is not one string, checked below
        "directed": [Iterable],  # each edge checked below
        "bidirected": [Iterable],
    }

    def __init__(self, nodes, directed=(), bidirected=()):
        # the arguments as given, for the parameter check (replaced by their normal form)
        self._nodes, self._directed, self._bidirected = nodes, directed, bidirected
        validate_params(self)
        if isinstance(nodes, str):
            raise TypeError(f"nodes must be an iterable of names, got {type(nodes).__name__}.")
        nodes = tuple(nodes)
        for v in nodes:
            if not isinstance(v, str) or not v:
                raise TypeError(f"node names must be non-empty strings, got {v!r}.")
        if len(set(nodes)) != len(nodes):
            dup = sorted({v for v in nodes if nodes.count(v) > 1})
            raise ValueError(f"nodes must be distinct; repeated: {dup}.")
        known = set(nodes)
        dir_edges = set()
        for e in directed:
            a, b = _pair(e, "directed")
            for v in (a, b):
                if v not in known:
                    raise ValueError(f"directed edge {a!r} -> {b!r} uses unknown node {v!r}.")
            if a == b:
                raise ValueError(f"directed self loop on {a!r} is not allowed.")
            dir_edges.add((a, b))
        bi_edges = set()
        for e in bidirected:
            a, b = _pair(e, "bidirected")
            for v in (a, b):
                if v not in known:
                    raise ValueError(f"bidirected edge {a!r} <-> {b!r} uses unknown node {v!r}.")
            if a == b:
                raise ValueError(f"bidirected self loop on {a!r} is not allowed.")
            bi_edges.add(frozenset((a, b)))
        self._nodes = nodes
        self._index = {v: i for i, v in enumerate(nodes)}
        self._directed = frozenset(dir_edges)
        self._bidirected = frozenset(bi_edges)
        self._pa = {v: set() for v in nodes}
        self._ch = {v: set() for v in nodes}
        self._bi = {v: set() for v in nodes}
        for a, b in dir_edges:
            self._pa[b].add(a)
            self._ch[a].add(b)
        for e in bi_edges:
            a, b = tuple(e)
            self._bi[a].add(b)
            self._bi[b].add(a)
        self._order = self._topological_order()

    # -- basic accessors ---------------------------------------------------
    @property
    def nodes(self) -> tuple:
        """Variable names, in the order given."""
        return self._nodes

    @property
    def directed(self) -> frozenset:
        """Directed edges ``(parent, child)``."""
        return self._directed

    @property
    def bidirected(self) -> frozenset:
        """Bidirected edges, each a frozenset of two nodes."""
        return self._bidirected

    def __contains__(self, v):
        return v in self._index

    def __len__(self):
        return len(self._nodes)

    def __eq__(self, other):
        return (isinstance(other, CausalDiagram) and set(self._nodes) == set(other._nodes)
                and self._directed == other._directed and self._bidirected == other._bidirected)

    def __hash__(self):
        return hash((frozenset(self._nodes), self._directed, self._bidirected))

    def __repr__(self):
        d = ", ".join(f"{a}->{b}" for a, b in self.sorted_edges())
        b = ", ".join("<->".join(self.sort(e)) for e in
                      sorted(self._bidirected, key=lambda e: self.sort(e)))
        return f"CausalDiagram(nodes={list(self._nodes)}, directed=[{d}], bidirected=[{b}])"

    def sort(self, nodes) -> list:
        """``nodes`` sorted by their position in :attr:`nodes`."""
        return sorted(nodes, key=self._index.__getitem__)

    def sorted_edges(self) -> list:
        """Directed edges sorted by (child, parent) position."""
        return sorted(self._directed, key=lambda e: (self._index[e[1]], self._index[e[0]]))

    def _check_nodes(self, nodes, name="nodes"):
        if isinstance(nodes, str):
            nodes = (nodes,)
        if not isinstance(nodes, Iterable):
            raise TypeError(f"{name} must be a node name or an iterable of names.")
        out = set(nodes)
        unknown = sorted(str(v) for v in out if v not in self._index)
        if unknown:
            raise ValueError(f"{name} has unknown nodes {unknown}; the diagram has "
                             f"{list(self._nodes)}.")
        return out

    def _topological_order(self):
        indeg = {v: len(self._pa[v]) for v in self._nodes}
        ready = [v for v in self._nodes if indeg[v] == 0]
        order = []
        while ready:
            ready.sort(key=self._index.__getitem__)
            v = ready.pop(0)
            order.append(v)
            for c in self._ch[v]:
                indeg[c] -= 1
                if indeg[c] == 0:
                    ready.append(c)
        if len(order) != len(self._nodes):
            cyc = self.sort(v for v in self._nodes if indeg[v] > 0)
            raise ValueError(f"the directed edges contain a cycle through {cyc}.")
        return tuple(order)

    # -- relations ---------------------------------------------------------
    def topological_order(self) -> tuple:
        """Nodes in a causal order (parents first; ties by position in :attr:`nodes`)."""
        return self._order

    def parents(self, nodes) -> set:
        """Union of the parents of ``nodes``."""
        return set().union(*(self._pa[v] for v in self._check_nodes(nodes)))

    def children(self, nodes) -> set:
        """Union of the children of ``nodes``."""
        return set().union(*(self._ch[v] for v in self._check_nodes(nodes)))

    def ancestors(self, nodes) -> set:
        """Ancestors of ``nodes``, the nodes themselves included."""
        out = set(self._check_nodes(nodes))
        stack = list(out)
        while stack:
            for p in self._pa[stack.pop()]:
                if p not in out:
                    out.add(p)
                    stack.append(p)
        return out

    def descendants(self, nodes) -> set:
        """Descendants of ``nodes``, the nodes themselves included."""
        out = set(self._check_nodes(nodes))
        stack = list(out)
        while stack:
            for c in self._ch[stack.pop()]:
                if c not in out:
                    out.add(c)
                    stack.append(c)
        return out

    def c_component(self, node) -> set:
        """The c-component of ``node``: nodes joined to it by bidirected paths."""
        (v,) = self._check_nodes({node}, "node")
        out = {v}
        stack = [v]
        while stack:
            for b in self._bi[stack.pop()]:
                if b not in out:
                    out.add(b)
                    stack.append(b)
        return out

    def c_components(self) -> list:
        """All c-components, as a list of sets in node order."""
        seen, out = set(), []
        for v in self._nodes:
            if v not in seen:
                cc = self.c_component(v)
                seen |= cc
                out.append(cc)
        return out

    def confounded(self, a, b) -> bool:
        """Whether ``a <-> b`` is an edge (both must be nodes of the diagram)."""
        self._check_nodes({a}, "a")
        self._check_nodes({b}, "b")
        return frozenset((a, b)) in self._bidirected

    # -- operations --------------------------------------------------------
    def subgraph(self, nodes) -> CausalDiagram:
        """The induced subgraph ``G[nodes]`` (node order kept)."""
        keep = self._check_nodes(nodes)
        return CausalDiagram(
            [v for v in self._nodes if v in keep],
            [(a, b) for a, b in self._directed if a in keep and b in keep],
            [tuple(e) for e in self._bidirected if e <= keep],
        )

    def do(self, nodes) -> CausalDiagram:
        """``G_{bar X}``: remove every edge into ``nodes``, directed and bidirected."""
        xs = self._check_nodes(nodes)
        return CausalDiagram(
            self._nodes,
            [(a, b) for a, b in self._directed if b not in xs],
            [tuple(e) for e in self._bidirected if not (e & xs)],
        )

    def remove_edges(self, edges) -> CausalDiagram:
        """Remove the given directed edges (each must exist); bidirected edges are kept."""
        drop = set()
        for e in edges:
            e = _pair(e, "directed")
            if e not in self._directed:
                raise ValueError(f"edge {e[0]!r} -> {e[1]!r} is not in the diagram.")
            drop.add(e)
        return CausalDiagram(self._nodes, self._directed - drop,
                             [tuple(e) for e in self._bidirected])

    def muct(self, reward) -> set:
        """Minimal unobserved-confounders territory of ``reward`` (Lee & Bareinboim, 2018).

        Computed on ``H = G[An(reward)]``: start from ``{reward}`` and keep
        adding the c-components of reached nodes and their descendants in ``H``.

        Examples
        --------
        >>> from statlearn.bandits.causal import example_graph
        >>> g, y = example_graph("IV")
        >>> sorted(g.muct(y)), sorted(g.interventional_border(y))
        (['X', 'Y'], ['Z'])
        """
        (y,) = self._check_nodes({reward}, "reward")
        h = self.subgraph(self.ancestors(y))
        territory = {y}
        queue = {y}
        while queue:
            q = queue.pop()
            cc = h.c_component(q)
            territory |= cc
            queue = (queue | h.descendants(cc)) - territory
        return territory

    def interventional_border(self, reward) -> set:
        """``IB(G, Y) = Pa(MUCT) \\ MUCT``."""
        t = self.muct(reward)
        return self.parents(t) - t

    def has_bidirected_path_to_ancestor(self, reward) -> bool:
        """Whether ``reward`` is joined by a bidirected path to one of its proper ancestors.

        Computed in ``G[An(reward)]``; when this is false, the only possibly
        optimal counterfactual arm is ``do(Pa(reward))``.
        """
        (y,) = self._check_nodes({reward}, "reward")
        h = self.subgraph(self.ancestors(y))
        return len(h.c_component(y)) > 1


# --------------------------------------------------------------------------
# the example diagrams of Lee & Bareinboim (2018) used in tests and the study
EXAMPLE_GRAPHS = {
    "IV": (["Z", "X", "Y"], [("Z", "X"), ("X", "Y")], [("X", "Y")]),
    "XYZW": (["Z", "X", "W", "Y"], [("Z", "X"), ("X", "Y"), ("W", "Y")],
             [("X", "W"), ("Z", "Y")]),
    "Markovian": (["Z1", "Z2", "X1", "X2", "Y"],
                  [("X1", "Y"), ("X2", "Y"), ("Z1", "X1"), ("Z1", "X2"), ("Z2", "X1"),
                   ("Z2", "X2")], []),
    "chain": (["X", "Z", "Y"], [("X", "Z"), ("Z", "Y")], []),
    "bow": (["X", "Y"], [("X", "Y")], [("X", "Y")]),
    "XYZWST": (["S", "T", "Z", "X", "W", "Y"],
               [("Z", "X"), ("X", "Y"), ("W", "Y"), ("S", "W"), ("T", "X"), ("T", "Y")],
               [("X", "W"), ("Z", "Y")]),
    "C56": (["X", "W", "Y"], [("X", "W"), ("X", "Y"), ("W", "Y")], [("W", "Y")]),
}


def example_graph(name):
    """One of the example diagrams and its reward node.

    ``"IV"``, ``"XYZW"``, ``"Markovian"`` and ``"XYZWST"`` are the task graphs of
    Lee and Bareinboim (2018); ``"chain"`` and ``"bow"`` are the two smallest
    textbook cases; ``"C56"`` is the worked counterfactual example of our
    reconstruction of the ctf-SCB paper.

    Parameters
    ----------
    name : {"IV", "XYZW", "Markovian", "chain", "bow", "XYZWST", "C56"}
        ``"C56"`` is the diagram ``X -> W -> Y``, ``X -> Y``, ``W <-> Y``.

    Returns
    -------
    graph : CausalDiagram
    reward : str
        Always ``"Y"``.

    Examples
    --------
    >>> from statlearn.bandits.causal import example_graph
    >>> g, y = example_graph("bow")
    >>> g
    CausalDiagram(nodes=['X', 'Y'], directed=[X->Y], bidirected=[X<->Y])
    """
    if name not in EXAMPLE_GRAPHS:
        raise ValueError(f"name must be one of {sorted(EXAMPLE_GRAPHS)}, got {name!r}.")
    nodes, d, b = EXAMPLE_GRAPHS[name]
    return CausalDiagram(nodes, d, b), "Y"

"""Discrete structural causal models, arms, sampling and exact arm values."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from statlearn.base import validate_params
from statlearn.utils import check_int, check_real, check_rng
from statlearn.utils._validation import _scalar

from ._graph import CausalDiagram, _ImmutableParams
from ._sets import check_reward, realizability_conflict

__all__ = ["Arm", "DiscreteSCM", "make_random_scm", "make_xor_scm"]


def _norm_do(do):
    if do is None:
        return ()
    if not isinstance(do, Mapping):
        raise TypeError(f"do must be a mapping {{variable: value}}, got {type(do).__name__}.")
    out = []
    for k, v in do.items():
        if not isinstance(k, str):
            raise TypeError(f"do keys must be variable names, got {k!r}.")
        v = _scalar(v)
        if isinstance(v, bool | np.bool_) or not isinstance(v, int | np.integer):
            raise TypeError(f"do[{k!r}] must be an integer value, got {v!r}.")
        out.append((k, int(v)))
    return tuple(sorted(out))


def _norm_cut(cut):
    if cut is None:
        return ()
    if not isinstance(cut, Mapping):
        raise TypeError(
            f"cut must be a mapping {{(parent, child): value}}, got {type(cut).__name__}.")
    out = []
    for e, v in cut.items():
        if isinstance(e, str) or not isinstance(e, tuple) or len(e) != 2:
            raise TypeError(f"cut keys must be (parent, child) pairs, got {e!r}.")
        v = _scalar(v)
        if isinstance(v, bool | np.bool_) or not isinstance(v, int | np.integer):
            raise TypeError(f"cut[{e!r}] must be an integer value, got {v!r}.")
        out.append(((str(e[0]), str(e[1])), int(v)))
    return tuple(sorted(out))


@dataclass(frozen=True, init=False)
class Arm:
    """An arm: an intervention ``do(X = x)`` plus counterfactual edge inputs.

    Parameters
    ----------
    do : mapping of str to int, optional
        Variables set by intervention.
    cut : mapping of (str, str) to int, optional
        Cut edges: ``cut[(P, Q)] = p`` makes ``Q``'s mechanism read ``P = p``
        while every other input (and every other child of ``P``) keeps the
        unit's own value. ``Q`` keeps its exogenous inputs.

    Examples
    --------
    >>> from statlearn.bandits.causal import Arm
    >>> Arm(do={"X": 1})
    Arm(do(X=1))
    >>> str(Arm(cut={("X", "W"): 1, ("X", "Y"): 0}))
    'W[X=1], Y[X=0]'
    >>> Arm()
    Arm(observe)
    """

    do: tuple
    cut: tuple

    def __init__(self, do=None, cut=None):
        object.__setattr__(self, "do", _norm_do(do))
        object.__setattr__(self, "cut", _norm_cut(cut))

    @property
    def do_dict(self) -> dict:
        """The intervention as a dict."""
        return dict(self.do)

    @property
    def cut_dict(self) -> dict:
        """The cut edges as a dict."""
        return dict(self.cut)

    @property
    def is_intervention(self) -> bool:
        """Whether the arm is a plain ``do()`` (no cut edges)."""
        return not self.cut

    def __str__(self):
        parts = []
        if self.do:
            parts.append("do(" + ", ".join(f"{k}={v}" for k, v in self.do) + ")")
        heads = {}
        for (p, q), v in self.cut:
            heads.setdefault(q, []).append(f"{p}={v}")
        parts += [f"{q}[{','.join(vs)}]" for q, vs in sorted(heads.items())]
        return ", ".join(parts) if parts else "observe"

    def __repr__(self):
        return f"Arm({self})"


class DiscreteSCM(_ImmutableParams):
    """A structural causal model with finite domains, compatible with a causal diagram.

    Every variable ``V`` takes values ``0 .. domains[V] - 1`` and is computed
    by ``mechanisms[V](pa, u)`` from its parents' values ``pa`` and its
    exogenous inputs ``u`` (dicts of equal-length integer arrays). Exogenous
    variables are independent and discrete; one whose scope holds several
    variables is a confounder and needs a bidirected edge between each pair.

    Parameters
    ----------
    graph : CausalDiagram
    mechanisms : mapping of str to callable
        One vectorised function per node, ``f(pa: dict, u: dict) -> int array``.
        ``pa`` holds exactly the node's parents and ``u`` exactly the
        exogenous variables whose scope contains the node.
    exogenous : mapping of str to (scope, probabilities)
        ``scope`` is an iterable of nodes; ``probabilities`` a vector over
        the values ``0 .. len - 1`` (non-negative, summing to one).
    domains : mapping of str to int, optional
        Domain sizes (default 2 for every node).

    Raises
    ------
    ValueError
        Missing or extra mechanisms, probabilities outside ``[0, 1]`` or not
        summing to one, an exogenous scope with unknown nodes, or a shared
        exogenous variable without the matching bidirected edge.

    Notes
    -----
    The model is immutable (the probability vectors are copied):
    ``get_params`` and :func:`sklearn.base.clone` work, ``set_params`` raises
    ``TypeError``; a bandit built on it keeps exact arm means.

    Examples
    --------
    A worked example (diagram ``"C56"``): ``X = N_X``, ``W = X xor U``, ``Y = W xor U xor X``
    with ``U`` shared by ``W`` and ``Y``.

    >>> from statlearn.bandits.causal import Arm, DiscreteSCM, example_graph
    >>> g, y = example_graph("C56")
    >>> scm = DiscreteSCM(
    ...     g,
    ...     {"X": lambda pa, u: u["NX"], "W": lambda pa, u: pa["X"] ^ u["U"],
    ...      "Y": lambda pa, u: pa["W"] ^ u["U"] ^ pa["X"]},
    ...     {"NX": (["X"], [0.8, 0.2]), "U": (["W", "Y"], [0.5, 0.5])})
    >>> scm.expected_value("Y"), scm.expected_value("Y", Arm(do={"W": 1}))
    (0.0, 0.5)
    >>> round(scm.expected_value("Y", Arm(cut={("X", "W"): 1})), 12)
    0.8
    """

    _parameter_constraints = {
        "graph": [CausalDiagram],
        "mechanisms": [Mapping],  # one callable per node, checked below
        "exogenous": [Mapping],  # scopes and probabilities checked below
        "domains": [None, Mapping],
    }

    def __init__(self, graph, mechanisms, exogenous, domains=None):
        # the arguments as given, for the parameter check (replaced by their normal form)
        self.graph, self.mechanisms, self.exogenous, self.domains = (graph, mechanisms,
                                                                     exogenous, domains)
        validate_params(self)
        missing = [v for v in graph.nodes if v not in mechanisms]
        if missing:
            raise ValueError(f"mechanisms are missing for {missing}.")
        extra = sorted(str(k) for k in mechanisms if k not in graph)
        if extra:
            raise ValueError(f"mechanisms given for unknown nodes {extra}.")
        for v in graph.nodes:
            if not callable(mechanisms[v]):
                raise TypeError(f"mechanisms[{v!r}] must be callable.")
        doms = {}
        domains = {} if domains is None else domains
        unknown = sorted(str(k) for k in domains if k not in graph)
        if unknown:
            raise ValueError(f"domains given for unknown nodes {unknown}.")
        for v in graph.nodes:
            doms[v] = check_int(domains.get(v, 2), f"domains[{v!r}]", low=1)
        exo = {}
        for name, spec in exogenous.items():
            if not isinstance(name, str):
                raise TypeError(f"exogenous names must be strings, got {name!r}.")
            if not isinstance(spec, tuple | list) or len(spec) != 2:
                raise TypeError(f"exogenous[{name!r}] must be a (scope, probabilities) pair.")
            scope = graph._check_nodes(spec[0], f"exogenous[{name!r}] scope")
            if not scope:
                raise ValueError(f"exogenous[{name!r}] has an empty scope.")
            try:
                p = np.array(spec[1], dtype=float)  # a copy: the model never changes
            except (TypeError, ValueError) as err:
                raise TypeError(f"exogenous[{name!r}] probabilities must be real numbers, "
                                f"got {spec[1]!r}.") from err
            if p.ndim != 1 or p.size < 1:
                raise ValueError(f"exogenous[{name!r}] probabilities must be a 1-D vector.")
            if not np.all(np.isfinite(p)):
                raise ValueError(f"exogenous[{name!r}] probabilities must not contain NaN or "
                                 f"infinite values, got {p.tolist()}.")
            p.flags.writeable = False
            if np.any(p < 0) or np.any(p > 1):
                raise ValueError(
                    f"exogenous[{name!r}] probabilities must lie in [0, 1], got {p.tolist()}.")
            if abs(p.sum() - 1.0) > 1e-9:
                raise ValueError(
                    f"exogenous[{name!r}] probabilities must sum to 1, got {p.sum():.12g}.")
            for a in scope:
                for b in scope:
                    if a < b and not graph.confounded(a, b):
                        raise ValueError(
                            f"exogenous[{name!r}] is shared by {a!r} and {b!r} but the graph "
                            f"has no bidirected edge {a!r} <-> {b!r}.")
            exo[name] = (graph.sort(scope), p)
        self.graph = graph
        self.mechanisms = dict(mechanisms)
        self.exogenous = exo
        self.domains = doms
        self._u_of = {v: [n for n, (s, _) in exo.items() if v in s] for v in graph.nodes}

    def __repr__(self):
        return (f"DiscreteSCM(nodes={list(self.graph.nodes)}, "
                f"exogenous={list(self.exogenous)})")

    # -- exogenous draws ------------------------------------------------------
    def sample_exogenous(self, n, random_state=None):
        """Draw ``n`` units ``u ~ P(U)``: a dict of integer arrays."""
        n = check_int(n, "n", low=1)
        rng = check_rng(_scalar(random_state))
        return {name: rng.choice(p.size, size=n, p=p) for name, (_, p) in self.exogenous.items()}

    def enumerate_exogenous(self):
        """Every joint value of ``U`` and its probability (for exact expectations).

        Returns
        -------
        u : dict of str to ndarray
        weights : ndarray
            Probabilities of the rows; they sum to one.
        """
        names = list(self.exogenous)
        sizes = [self.exogenous[n][1].size for n in names]
        total = math.prod(sizes)
        if total > 5_000_000:
            raise ValueError(f"P(U) has {total} joint values; too many to enumerate.")
        grid = np.indices(sizes).reshape(len(sizes), -1) if names else np.zeros((0, 1), int)
        u = {n: grid[i] for i, n in enumerate(names)}
        w = np.ones(grid.shape[1])
        for i, n in enumerate(names):
            w = w * self.exogenous[n][1][grid[i]]
        return u, w

    # -- evaluation -------------------------------------------------------------
    def _check_arm(self, arm):
        if arm is None:
            return Arm()
        if not isinstance(arm, Arm):
            raise TypeError(f"arm must be an Arm, got {type(arm).__name__}.")
        for k, v in arm.do:
            if k not in self.graph:
                raise ValueError(f"arm intervenes on unknown node {k!r}.")
            if not 0 <= v < self.domains[k]:
                raise ValueError(f"do({k}={v}) is outside the domain 0..{self.domains[k] - 1}.")
        for (p, q), v in arm.cut:
            if (p, q) not in self.graph.directed:
                raise ValueError(f"arm cuts {p!r} -> {q!r}, which is not an edge of the graph.")
            if not 0 <= v < self.domains[p]:
                raise ValueError(
                    f"cut value {p}={v} is outside the domain 0..{self.domains[p] - 1}.")
        return arm

    @staticmethod
    def _int_values(values, name, size, n=None):
        """``values`` as a 1-D int64 array in ``0..size-1`` (integral floats accepted)."""
        arr = np.asarray(values)
        if arr.ndim != 1:
            raise ValueError(f"{name} must be a 1-D array of values, got shape {arr.shape}.")
        if n is not None and arr.shape[0] != n:
            raise ValueError(f"{name} must have one value per unit ({n}), got {arr.shape[0]}.")
        if arr.dtype == np.bool_ or np.issubdtype(arr.dtype, np.integer):
            arr = arr.astype(np.int64)
        elif np.issubdtype(arr.dtype, np.floating):
            if not np.all(np.isfinite(arr)):
                raise ValueError(f"{name} must not contain NaN or infinite values.")
            if not np.all(arr == np.round(arr)):
                raise ValueError(f"{name} must hold integer values.")
            arr = arr.astype(np.int64)
        else:
            raise TypeError(f"{name} must hold integer values, got dtype {arr.dtype}.")
        if arr.size and (arr.min() < 0 or arr.max() >= size):
            raise ValueError(f"{name} must lie in 0..{size - 1}, got values "
                             f"{int(arr.min())}..{int(arr.max())}.")
        return arr

    def _check_units(self, u):
        """The exogenous values ``u``: every name of ``exogenous``, one value per unit."""
        if not isinstance(u, Mapping):
            raise TypeError(f"u must be a mapping {{exogenous name: values}}, got "
                            f"{type(u).__name__}.")
        unknown = sorted(str(k) for k in u if k not in self.exogenous)
        if unknown:
            raise ValueError(f"u has unknown exogenous variables {unknown}; the model has "
                             f"{list(self.exogenous)}.")
        missing = [k for k in self.exogenous if k not in u]
        if missing:
            raise ValueError(f"u is missing the exogenous variables {missing}.")
        out, n = {}, None
        for name, (_, p) in self.exogenous.items():
            out[name] = self._int_values(u[name], f"u[{name!r}]", p.size, n)
            n = out[name].shape[0]
        return out, (1 if n is None else n)

    def _check_fixed(self, fixed, n):
        """Per-unit values replacing variables: nodes of the graph, in their domains."""
        if fixed is None:
            return {}
        if not isinstance(fixed, Mapping):
            raise TypeError(f"fixed must be a mapping {{variable: values}}, got "
                            f"{type(fixed).__name__}.")
        self.graph._check_nodes(set(fixed), "fixed")
        return {v: self._int_values(x, f"fixed[{v!r}]", self.domains[v], n)
                for v, x in fixed.items()}

    def evaluate(self, u, arm=None, fixed=None):
        """All variables for the units ``u`` under ``arm``.

        Parameters
        ----------
        u : dict of str to ndarray
            Exogenous values (as from :meth:`sample_exogenous`).
        arm : Arm, optional
            Intervention and cut edges (natural world when ``None``).
        fixed : dict of str to ndarray, optional
            Per-unit values that replace variables (used for counterfactual
            arms of the general form).

        Returns
        -------
        dict of str to ndarray
        """
        arm = self._check_arm(arm)
        do, cut = arm.do_dict, arm.cut_dict
        u, n = self._check_units(u)
        fixed = self._check_fixed(fixed, n)
        vals = {}
        for v in self.graph.topological_order():
            if v in do:
                vals[v] = np.full(n, do[v], dtype=np.int64)
                continue
            if v in fixed:
                vals[v] = fixed[v]
                continue
            pa = {p: (np.full(n, cut[(p, v)], dtype=np.int64) if (p, v) in cut else vals[p])
                  for p in self.graph.sort(self.graph.parents(v))}
            noise = {name: u[name] for name in self._u_of[v]}
            out = self.mechanisms[v](pa, noise)
            out = np.broadcast_to(np.asarray(out), (n,))
            if not np.issubdtype(out.dtype, np.integer) and out.dtype != np.bool_:
                if not np.all(out == np.round(out)):
                    raise ValueError(f"mechanism of {v!r} returned non-integer values.")
            out = out.astype(np.int64)
            if out.min() < 0 or out.max() >= self.domains[v]:
                raise ValueError(
                    f"mechanism of {v!r} returned values outside its domain "
                    f"0..{self.domains[v] - 1}.")
            vals[v] = out
        return vals

    def sample(self, n, arm=None, random_state=None):
        """Draw ``n`` units and return every variable under ``arm``.

        Examples
        --------
        >>> from statlearn.bandits.causal import Arm, make_xor_scm, example_graph
        >>> g, y = example_graph("chain")
        >>> scm = make_xor_scm(g, {"X": 0.5, "Z": 0.1, "Y": 0.1})
        >>> s = scm.sample(1000, Arm(do={"Z": 1}), random_state=0)
        >>> bool(s["Z"].min() == 1), bool(0.85 < s["Y"].mean() < 0.95)
        (True, True)
        """
        u = self.sample_exogenous(n, random_state)
        return self.evaluate(u, arm)

    def expected_value(self, variable, arm=None):
        """Exact ``E[variable]`` under ``arm``, by enumerating every value of ``U``."""
        if variable not in self.graph:
            raise ValueError(f"variable must be a node of the graph, got {variable!r}.")
        u, w = self.enumerate_exogenous()
        return float(w @ self.evaluate(u, arm)[variable])

    def arm_means(self, reward, arms):
        """Exact ``E[reward]`` for each arm (one enumeration of ``U`` for all).

        Returns
        -------
        ndarray of shape (n_arms,)
        """
        if reward not in self.graph:
            raise ValueError(f"reward must be a node of the graph, got {reward!r}.")
        u, w = self.enumerate_exogenous()
        return np.array([w @ self.evaluate(u, a)[reward] for a in arms], dtype=float)

    # -- general counterfactual arms ---------------------------------------------
    def _ctf_fixed(self, u, ctf):
        fixed = {}
        for x, w in ctf.items():
            world = self.evaluate(u, Arm(do=dict(w)))
            fixed[x] = world[x]
        return fixed

    def _check_ctf(self, reward, ctf):
        if not isinstance(ctf, Mapping) or not ctf:
            raise TypeError("ctf must be a non-empty mapping {variable: {regime var: value}}.")
        bad = realizability_conflict(self.graph, reward, ctf)
        if bad is not None:
            raise ValueError(
                f"the counterfactual arm is not realizable: {bad!r} would be needed under "
                f"two different regimes.")

    def sample_counterfactual(self, n, ctf, reward, random_state=None):
        """Sample a general counterfactual arm ``{X_i[w_i]}`` (one shared draw of ``u``).

        Each ``X_i`` is computed in the submodel ``M_{w_i}`` under the same
        unit ``u``, then every ``X_i`` takes that value and the other
        variables are recomputed in causal order.

        Parameters
        ----------
        n : int
        ctf : mapping of str to mapping of str to int
            ``{X_i: {W: w}}``; must be realizable.
        reward : str
            Node whose ancestors define realizability.
        random_state : None, int or numpy.random.Generator

        Returns
        -------
        dict of str to ndarray

        Examples
        --------
        >>> from statlearn.bandits.causal import DiscreteSCM, example_graph
        >>> g, y = example_graph("C56")
        >>> scm = DiscreteSCM(
        ...     g,
        ...     {"X": lambda pa, u: u["NX"], "W": lambda pa, u: pa["X"] ^ u["U"],
        ...      "Y": lambda pa, u: pa["W"] ^ u["U"] ^ pa["X"]},
        ...     {"NX": (["X"], [0.8, 0.2]), "U": (["W", "Y"], [0.5, 0.5])})
        >>> s = scm.sample_counterfactual(4000, {"W": {"X": 1}}, "Y", random_state=0)
        >>> bool((s["Y"] == 1 - s["X"]).all())
        True
        """
        self._check_ctf(reward, ctf)
        u = self.sample_exogenous(n, random_state)
        return self.evaluate(u, fixed=self._ctf_fixed(u, ctf))

    def expected_counterfactual(self, reward, ctf):
        """Exact ``E[Y_{X_*}]`` of a general counterfactual arm, by enumerating ``U``."""
        self._check_ctf(reward, ctf)
        u, w = self.enumerate_exogenous()
        return float(w @ self.evaluate(u, fixed=self._ctf_fixed(u, ctf))[reward])


# ---------------------------------------------------------------- constructors
class _XorMechanism:
    """``V = xor(parents) xor xor(exogenous)`` (optionally negated); picklable."""

    def __init__(self, negate=False):
        self.negate = negate

    def __call__(self, pa, u):
        out = np.zeros(1, dtype=np.int64)
        for a in list(pa.values()) + list(u.values()):
            out = out ^ a
        return out ^ 1 if self.negate else out


class _TableMechanism:
    """Lookup table over (parents, exogenous) values; picklable."""

    def __init__(self, table, pa_names, u_names):
        self.table = np.asarray(table, dtype=np.int64)
        self.names = list(pa_names) + list(u_names)

    def __call__(self, pa, u):
        idx = np.zeros(1, dtype=np.int64)
        for name in self.names:
            idx = 2 * idx + (pa[name] if name in pa else u[name])
        return self.table[idx]


def _confounder_name(e):
    a, b = sorted(e)
    return f"U_{a}{b}"


def make_xor_scm(graph, noise, confounders=None, negate=()):
    """Binary SCM with XOR mechanisms: ``V = xor(Pa(V)) xor U_V xor (confounders of V)``.

    Parameters
    ----------
    graph : CausalDiagram
    noise : mapping of str to float
        ``P(U_V = 1)`` for each node (a node missing from the mapping gets no
        own noise).
    confounders : mapping of frozenset to float, optional
        ``P(U_{AB} = 1)`` per bidirected edge (default 0.5 for each).
    negate : iterable of str, default=()
        Nodes whose mechanism is negated (``1 xor ...``).

    Examples
    --------
    >>> from statlearn.bandits.causal import Arm, example_graph, make_xor_scm
    >>> g, y = example_graph("IV")
    >>> scm = make_xor_scm(g, {"Z": 0.5, "X": 0.1, "Y": 0.1})
    >>> round(scm.expected_value("Y", Arm(do={"X": 1})), 6)
    0.5
    """
    if not isinstance(graph, CausalDiagram):
        raise TypeError(f"graph must be a CausalDiagram, got {type(graph).__name__}.")
    if not isinstance(noise, Mapping):
        raise TypeError(f"noise must be a mapping {{node: P(U_node = 1)}}, got "
                        f"{type(noise).__name__}.")
    graph._check_nodes(set(noise), "noise")
    exo = {}
    for v, p in noise.items():
        p = check_real(p, f"noise[{v!r}]", low=0, high=1)
        exo[f"U_{v}"] = ([v], [1.0 - p, p])
    conf = {}
    if confounders is not None:
        if not isinstance(confounders, Mapping):
            raise TypeError("confounders must be a mapping {(node, node): P(U = 1)}, got "
                            f"{type(confounders).__name__}.")
        for k, p in confounders.items():
            e = frozenset(k) if not isinstance(k, str) else None
            if e is None or len(e) != 2:
                raise ValueError(f"confounders keys must be pairs of nodes, got {k!r}.")
            graph._check_nodes(e, "confounders")
            if e not in graph.bidirected:
                a, b = graph.sort(e)
                raise ValueError(f"confounders has {k!r}, but the graph has no bidirected "
                                 f"edge {a!r} <-> {b!r}; its confounded pairs are "
                                 f"{[tuple(graph.sort(x)) for x in graph.bidirected]}.")
            conf[e] = check_real(p, f"confounders[{k!r}]", low=0, high=1)
    for e in graph.bidirected:
        p = conf.get(e, 0.5)
        exo[_confounder_name(e)] = (graph.sort(e), [1.0 - p, p])
    neg = graph._check_nodes(negate, "negate")
    mech = {v: _XorMechanism(v in neg) for v in graph.nodes}
    return DiscreteSCM(graph, mech, exo)


def make_random_scm(graph, random_state=None, *, noise_range=(0.05, 0.95)):
    """A random binary SCM compatible with ``graph``: random lookup-table mechanisms.

    Each node gets its own noise ``U_V ~ Bernoulli(p_V)`` and each
    bidirected edge a shared ``U_{AB} ~ Bernoulli(q)``, with ``p, q`` uniform
    on ``noise_range``; each mechanism is a uniformly random Boolean
    function of its parents and exogenous inputs.

    Examples
    --------
    >>> from statlearn.bandits.causal import example_graph, make_random_scm
    >>> g, y = example_graph("bow")
    >>> scm = make_random_scm(g, random_state=0)
    >>> 0.0 <= scm.expected_value("Y") <= 1.0
    True
    """
    if not isinstance(graph, CausalDiagram):
        raise TypeError(f"graph must be a CausalDiagram, got {type(graph).__name__}.")
    rng = check_rng(_scalar(random_state))
    if isinstance(noise_range, str) or np.shape(noise_range) != (2,):
        raise ValueError(f"noise_range must be a pair (low, high), got {noise_range!r}.")
    lo, hi = (check_real(x, f"noise_range[{i}]") for i, x in enumerate(np.asarray(
        noise_range, dtype=object)))
    if not 0.0 <= lo <= hi <= 1.0:
        raise ValueError(f"noise_range must satisfy 0 <= low <= high <= 1, got {noise_range}.")
    exo = {}
    for v in graph.nodes:
        p = rng.uniform(lo, hi)
        exo[f"U_{v}"] = ([v], [1.0 - p, p])
    for e in sorted(graph.bidirected, key=lambda e: graph.sort(e)):
        q = rng.uniform(lo, hi)
        exo[_confounder_name(e)] = (graph.sort(e), [1.0 - q, q])
    mech = {}
    for v in graph.nodes:
        pa = graph.sort(graph.parents(v))
        us = [n for n, (s, _) in exo.items() if v in s]
        table = rng.integers(0, 2, size=2 ** (len(pa) + len(us)))
        mech[v] = _TableMechanism(table, pa, us)
    return DiscreteSCM(graph, mech, exo)


def check_binary_reward(scm, reward):
    """Validate an SCM and a binary reward node with ancestors."""
    if not isinstance(scm, DiscreteSCM):
        raise TypeError(f"scm must be a DiscreteSCM, got {type(scm).__name__}.")
    check_reward(scm.graph, reward)
    if scm.domains[reward] != 2:
        raise ValueError(f"the reward {reward!r} must be binary (domain size 2) for Bernoulli "
                         f"bandits, got domain size {scm.domains[reward]}.")
    return reward


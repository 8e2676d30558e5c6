"""Arm sets: every value assignment of every selected intervention set or cut."""

from __future__ import annotations

from itertools import chain, combinations, product

from statlearn.utils import check_int, check_option

from ._scm import Arm, DiscreteSCM, check_binary_reward
from ._sets import (
    ctf_mis,
    ctf_pomis,
    minimal_intervention_sets,
    pomis,
)

__all__ = ["STRATEGIES", "arm_set", "cut_arms", "intervention_arms"]

STRATEGIES = ("POMIS", "MIS", "all-subsets", "all-at-once", "CTF-POMIS", "CTF-MIS")


def _dom(domains, v):
    if not domains:
        return range(2)
    return range(check_int(domains.get(v, 2), f"domains[{v!r}]", low=1))


def intervention_arms(sets, domains=None):
    """``do(X = x)`` for every set ``X`` in ``sets`` and every ``x`` in its domain.

    Parameters
    ----------
    sets : iterable of iterable of str
    domains : mapping of str to int, optional
        Domain sizes (2 by default).

    Returns
    -------
    list of Arm

    Examples
    --------
    >>> from statlearn.bandits.causal import intervention_arms
    >>> [str(a) for a in intervention_arms([set(), {"X"}])]
    ['observe', 'do(X=0)', 'do(X=1)']
    """
    out, seen = [], set()
    for s in sets:
        names = sorted(s)
        for vals in product(*(_dom(domains, v) for v in names)):
            arm = Arm(do=dict(zip(names, vals)))
            if arm not in seen:
                seen.add(arm)
                out.append(arm)
    return out


def cut_arms(cuts, domains=None):
    """Counterfactual arms: every value of every cut edge's parent, for each cut.

    Examples
    --------
    >>> from statlearn.bandits.causal import cut_arms
    >>> [str(a) for a in cut_arms([{("X", "W"), ("X", "Y")}])]
    ['W[X=0], Y[X=0]', 'W[X=0], Y[X=1]', 'W[X=1], Y[X=0]', 'W[X=1], Y[X=1]']
    """
    out, seen = [], set()
    for c in cuts:
        edges = sorted(c)
        for vals in product(*(_dom(domains, p) for p, _ in edges)):
            arm = Arm(cut=dict(zip(edges, vals)))
            if arm not in seen:
                seen.add(arm)
                out.append(arm)
    return out


def arm_set(scm, reward, strategy="POMIS"):
    """The arms a strategy plays on ``scm`` (its diagram and domains; never its mechanisms).

    Parameters
    ----------
    scm : DiscreteSCM
    reward : str
        Binary reward node.
    strategy : {"POMIS", "MIS", "all-subsets", "all-at-once", "CTF-POMIS", "CTF-MIS"}
        ``"all-subsets"`` intervenes on every subset of ``V \\ {Y}``,
        ``"all-at-once"`` on all of it; the ``CTF`` strategies play the
        counterfactual cuts of :func:`ctf_pomis` / :func:`ctf_mis`.

    Returns
    -------
    list of Arm

    Examples
    --------
    >>> from statlearn.bandits.causal import arm_set, example_graph, make_xor_scm
    >>> g, y = example_graph("IV")
    >>> scm = make_xor_scm(g, {"Z": 0.5, "X": 0.1, "Y": 0.1})
    >>> [str(a) for a in arm_set(scm, y, "POMIS")]
    ['do(Z=0)', 'do(Z=1)', 'do(X=0)', 'do(X=1)']
    """
    if not isinstance(scm, DiscreteSCM):
        raise TypeError(f"scm must be a DiscreteSCM, got {type(scm).__name__}.")
    check_binary_reward(scm, reward)
    check_option(strategy, "strategy", STRATEGIES)
    g, dom = scm.graph, scm.domains
    others = [v for v in g.nodes if v != reward]
    if strategy == "POMIS":
        return intervention_arms([g.sort(s) for s in pomis(g, reward)], dom)
    if strategy == "MIS":
        return intervention_arms([g.sort(s) for s in minimal_intervention_sets(g, reward)], dom)
    if strategy == "all-subsets":
        subsets = chain.from_iterable(combinations(others, r) for r in range(len(others) + 1))
        return intervention_arms(list(subsets), dom)
    if strategy == "all-at-once":
        return intervention_arms([others], dom)
    if strategy == "CTF-POMIS":
        return cut_arms(ctf_pomis(g, reward), dom)
    return cut_arms(ctf_mis(g, reward), dom)

"""The benchmark tasks: the SCB paper's three XOR instances and a counterfactual task."""

from __future__ import annotations

import numpy as np

from statlearn.utils import check_option, check_rng
from statlearn.utils._validation import _scalar

from ._arms import arm_set
from ._graph import example_graph
from ._scm import DiscreteSCM, _confounder_name, _XorMechanism

__all__ = ["TASKS", "best_mean", "make_task"]

TASKS = ("XYZWST", "Markovian", "IV", "counterfactual", "counterfactual-inside")


class _Markov:
    """Mechanisms of the Markovian task (picklable)."""

    def __init__(self, kind):
        self.kind = kind

    def __call__(self, pa, u):
        (noise,) = u.values()
        if self.kind == "Z":
            return noise
        if self.kind == "X1":
            return noise ^ pa["Z1"] ^ pa["Z2"]
        if self.kind == "X2":
            return 1 ^ noise ^ pa["Z1"] ^ pa["Z2"]
        return noise | (pa["X1"] & pa["X2"])


def _bern(p):
    return [1.0 - p, p]


def make_task(name, random_state=None):
    """A benchmark SCM and its reward node.

    The first three follow the structural causal bandit code (Lee &
    Bareinboim, 2018): binary variables with XOR mechanisms and exogenous
    probabilities drawn in ranges,

    * ``"XYZWST"``: the XYZW diagram plus ``S -> W``, ``T -> X``, ``T -> Y``;
      confounders in ``[0.4, 0.6]``, node noise in ``[0.01, 0.1]``, the root
      noises ``U_S, U_T`` in ``[0.1, 0.9]``;
    * ``"Markovian"``: every ``U`` in ``[0.1, 0.9]``; ``Z_i = U_{Z_i}``,
      ``X1 = U_{X1} xor Z1 xor Z2``, ``X2 = 1 xor U_{X2} xor Z1 xor Z2``,
      ``Y = U_Y or (X1 and X2)``;
    * ``"IV"``: confounder in ``[0.4, 0.6]``, node noise in ``[0.01, 0.2]``,
      ``U_Z`` in ``[0.01, 0.99]``;

    and ``"counterfactual"`` is the diagram ``X -> W -> Y``, ``X -> Y``,
    ``W <-> Y`` with ``X = N_X``, ``W = X xor U``, ``Y = W xor U xor X xor N_Y``,
    ``U ~ B(0.5)``, ``N_X`` in ``[0.1, 0.3]``, ``N_Y`` in ``[0.05, 0.15]``:
    every intervention has ``E[Y] <= 0.5``, while feeding ``W`` and ``Y``
    different values of ``X`` gives ``E[Y] = 1 - P(N_Y = 1)``.
    ``"counterfactual-inside"`` is the same model with ``U = 0`` (the
    confounder is inactive): then ``do(W, X)`` reaches the same optimum, which
    lies inside the interventional arms.

    Parameters
    ----------
    name : {"XYZWST", "Markovian", "IV", "counterfactual", "counterfactual-inside"}
    random_state : None, int or numpy.random.Generator
        Draws the exogenous probabilities.

    Returns
    -------
    scm : DiscreteSCM
    reward : str

    Examples
    --------
    >>> from statlearn.bandits.causal import arm_set, make_task
    >>> scm, y = make_task("counterfactual", random_state=0)
    >>> do_best = scm.arm_means(y, arm_set(scm, y, "POMIS")).max()
    >>> ctf_best = scm.arm_means(y, arm_set(scm, y, "CTF-POMIS")).max()
    >>> bool(do_best <= 0.5 < 0.8 < ctf_best)
    True
    """
    check_option(name, "name", TASKS)
    rng = check_rng(_scalar(random_state))
    if name.startswith("counterfactual"):
        g, y = example_graph("C56")
        q = 0.5 if name == "counterfactual" else 0.0
        exo = {"N_X": (["X"], _bern(rng.uniform(0.1, 0.3))), "U": (["W", "Y"], _bern(q)),
               "N_Y": (["Y"], _bern(rng.uniform(0.05, 0.15)))}
        return DiscreteSCM(g, {v: _XorMechanism() for v in g.nodes}, exo), y
    if name == "Markovian":
        g, y = example_graph("Markovian")
        exo = {f"U_{v}": ([v], _bern(rng.uniform(0.1, 0.9))) for v in g.nodes}
        mech = {"Z1": _Markov("Z"), "Z2": _Markov("Z"), "X1": _Markov("X1"),
                "X2": _Markov("X2"), "Y": _Markov("Y")}
        return DiscreteSCM(g, mech, exo), y
    g, y = example_graph(name)
    node_range = (0.01, 0.1) if name == "XYZWST" else (0.01, 0.2)
    exo = {}
    for v in g.nodes:
        lo, hi = node_range
        if (name == "XYZWST" and v in ("S", "T")):
            lo, hi = 0.1, 0.9
        if name == "IV" and v == "Z":
            lo, hi = 0.01, 0.99
        exo[f"U_{v}"] = ([v], _bern(rng.uniform(lo, hi)))
    for e in sorted(g.bidirected, key=lambda e: g.sort(e)):
        exo[_confounder_name(e)] = (g.sort(e), _bern(rng.uniform(0.4, 0.6)))
    return DiscreteSCM(g, {v: _XorMechanism() for v in g.nodes}, exo), y


def best_mean(scm, reward, space="interventional"):
    """Best arm mean over a whole arm space, by exact enumeration.

    Parameters
    ----------
    scm : DiscreteSCM
    reward : str
    space : {"interventional", "counterfactual"}, default="interventional"
        Every ``do(X = x)`` with ``X ⊆ V \\ {Y}``, or those and every
        counterfactual cut arm as well.

    Returns
    -------
    float

    Examples
    --------
    >>> from statlearn.bandits.causal import best_mean, make_task
    >>> scm, y = make_task("counterfactual", random_state=0)
    >>> best_mean(scm, y), round(best_mean(scm, y, "counterfactual"), 3)
    (0.5, 0.923)
    """
    check_option(space, "space", ("interventional", "counterfactual"))
    arms = arm_set(scm, reward, "all-subsets")
    best = float(np.max(scm.arm_means(reward, arms)))
    if space == "counterfactual":
        best = max(best, float(np.max(scm.arm_means(reward, arm_set(scm, reward, "CTF-MIS")))))
    return best

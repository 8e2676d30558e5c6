"""Contract cases of statlearn.bandits: one valid call per public function and object."""

from __future__ import annotations

import numpy as np

from statlearn.bandits import causal as B
from statlearn.bandits import check_policy
from statlearn.bandits import queueing as Q
from tests.contracts._framework import FunctionCase, ObjectCase

THETAS = np.array([[1.5, -0.5], [-0.5, 1.0]])


def _env():
    return Q.ContextualQueueEnv(THETAS.copy(), 0.4)


def _iv():
    return B.example_graph("IV")


def _c56():
    return B.example_graph("C56")


def _xor():
    g, y = _iv()
    return B.make_xor_scm(g, {"Z": 0.5, "X": 0.1, "Y": 0.1}), y


def _g(name="IV"):
    return B.example_graph(name)[0]


FUNCTIONS = [
    FunctionCase(check_policy, lambda: {"policy": Q.RandomPolicy()}),
    FunctionCase(Q.make_queueing_instance, lambda: {"n_servers": 2, "n_features": 2,
                                                    "random_state": 0}),
    FunctionCase(Q.run_policy, lambda: {"policy": Q.CQBOpt(), "env": _env(), "horizon": 50,
                                        "random_state": 0}),
    FunctionCase(Q.simulate, lambda: {"policy": Q.RandomPolicy(), "env": _env(), "horizon": 30,
                                      "n_reps": 3, "random_state": 0}),
    FunctionCase(B.example_graph, lambda: {"name": "IV"}, expected_failures={}),
    FunctionCase(B.check_reward, lambda: {"graph": _g(), "reward": "Y"},),
    FunctionCase(B.pomis, lambda: {"graph": _g(), "reward": "Y"}),
    FunctionCase(B.pomis_bruteforce, lambda: {"graph": _g(), "reward": "Y"}),
    FunctionCase(B.minimal_intervention_sets, lambda: {"graph": _g(), "reward": "Y"}),
    FunctionCase(B.minimal_intervention_sets_bruteforce, lambda: {"graph": _g(), "reward": "Y"}),
    FunctionCase(B.is_pomis, lambda: {"graph": _g(), "reward": "Y", "nodes": {"Z"}}),
    FunctionCase(B.is_minimal_intervention_set, lambda: {"graph": _g(), "reward": "Y",
                                                         "nodes": {"X"}}),
    FunctionCase(B.ctf_mis, lambda: {"graph": _g("chain"), "reward": "Y"}),
    FunctionCase(B.ctf_pomis, lambda: {"graph": _g("C56"), "reward": "Y"}),
    FunctionCase(B.ctf_pomis_bruteforce, lambda: {"graph": _g("chain"), "reward": "Y"}),
    FunctionCase(B.is_ctf_pomis, lambda: {"graph": _g("C56"), "reward": "Y",
                                          "edges": {("X", "W")}}),
    FunctionCase(B.minimize_cut, lambda: {"graph": _g("chain"), "reward": "Y",
                                          "edges": {("X", "Z"), ("Z", "Y")}}),
    FunctionCase(B.is_realizable, lambda: {"graph": B.CausalDiagram(
        ["X", "Z", "W", "Y"], [("X", "Z"), ("Z", "W"), ("W", "Y")]), "reward": "Y",
        "arm": {"W": {"X": 1}, "Z": {"X": 0}}}),
    FunctionCase(B.realizability_conflict, lambda: {"graph": B.CausalDiagram(
        ["X", "Z", "W", "Y"], [("X", "Z"), ("Z", "W"), ("W", "Y")]), "reward": "Y",
        "arm": {"W": {"X": 1}, "Z": {"X": 1}}}),
    FunctionCase(B.intervention_arms, lambda: {"sets": [set(), {"X"}]}),
    FunctionCase(B.cut_arms, lambda: {"cuts": [{("X", "W"), ("X", "Y")}]}),
    FunctionCase(B.make_xor_scm, lambda: {"graph": _g(), "noise": {"Z": 0.5, "X": 0.1,
                                                                    "Y": 0.1}}),
    FunctionCase(B.make_random_scm, lambda: {"graph": _g("bow"), "random_state": 0}),
    FunctionCase(B.make_task, lambda: {"name": "counterfactual", "random_state": 0}),
    FunctionCase(B.arm_set, lambda: {"scm": _xor()[0], "reward": "Y", "strategy": "POMIS"}),
    FunctionCase(B.best_mean, lambda: {"scm": _xor()[0], "reward": "Y"}),
    FunctionCase(B.run_bandit, lambda: {"policy": B.KLUCB(), "bandit": np.array([0.4, 0.6]),
                                        "horizon": 100, "random_state": 0}),
    FunctionCase(B.simulate_bandit, lambda: {"policy": B.ThompsonSampling(),
                                             "bandit": np.array([0.3, 0.7]), "horizon": 100,
                                             "n_reps": 3, "random_state": 0}),
]

# Decision objects without fit: the contracts that apply to them run through the
# functions that use them (run_policy, simulate, run_bandit), above; here each is
# built, used once and checked for declared constraints, bad values, clone and pickle.


def _queue(policy):
    return Q.run_policy(policy, _env(), 60, random_state=0)


def _bandit(policy):
    return B.run_bandit(policy, np.array([0.3, 0.6, 0.5]), 200, random_state=0)


def _estimator_use(est):
    est.initialize(2, 2)
    for i, x in enumerate(np.random.default_rng(0).normal(size=(30, 2))):
        est.update(x, i % 2, float(i % 3 == 0))
    return est.mean(np.array([[0.5, -0.2]]))


ESTIMATORS = []

OBJECTS = [
    ObjectCase(lambda: Q.ContextualQueueEnv(THETAS.copy(), 0.4, slack=0.05),
               lambda env: Q.run_policy(Q.CQBOpt(), env, 60, random_state=0)),
    ObjectCase(lambda: Q.CQBEpsilon(tau=20, random_state=0), _queue),
    ObjectCase(lambda: Q.CQBOpt(c_beta=0.05), _queue),
    ObjectCase(lambda: Q.GreedyMLEPolicy(), _queue),
    ObjectCase(lambda: Q.OraclePolicy(THETAS.copy()), _queue),
    ObjectCase(lambda: Q.QueueBlindUCBPolicy(), _queue),
    ObjectCase(lambda: Q.RandomPolicy(random_state=0), _queue),
    ObjectCase(lambda: Q.LogisticUCBEstimator(),
               _estimator_use),
    ObjectCase(lambda: B.KLUCB(c=2.0), _bandit),
    ObjectCase(lambda: B.ThompsonSampling(prior_a=1.0, prior_b=2.0), _bandit),
    ObjectCase(lambda: B.CausalBandit(*_xor(), B.arm_set(*_xor(), "POMIS")),
               lambda b: B.run_bandit(B.KLUCB(), b, 100, random_state=0)),
    ObjectCase(lambda: B.CausalDiagram(["Z", "X", "Y"], [("Z", "X"), ("X", "Y")], [("X", "Y")]),
               lambda g: [sorted(s) for s in B.pomis(g, "Y")]),
    ObjectCase(lambda: _xor()[0], lambda scm: scm.expected_value("Y", B.Arm(do={"X": 1}))),
]

NOT_APPLICABLE = {}

"""The causal bandit objects on the shared base layer: constraints, names, random states.

Each test here failed before the objects moved to :mod:`statlearn.base`.
"""

from __future__ import annotations

import inspect

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone

from statlearn.bandits.causal import (
    KLUCB,
    Arm,
    CausalBandit,
    CausalDiagram,
    DiscreteSCM,
    ThompsonSampling,
    arm_set,
    example_graph,
    make_random_scm,
    make_xor_scm,
    run_bandit,
    simulate_bandit,
)


def _xor():
    g, y = example_graph("IV")
    return make_xor_scm(g, {"Z": 0.5, "X": 0.1, "Y": 0.1}), y


def _c56(p):
    g, _ = example_graph("C56")
    mech = {"X": lambda pa, u: u["NX"], "W": lambda pa, u: pa["X"] ^ u["U"],
            "Y": lambda pa, u: pa["W"] ^ u["U"] ^ pa["X"]}
    return DiscreteSCM(g, mech, {"NX": (["X"], p), "U": (["W", "Y"], [0.5, 0.5])})


@pytest.mark.parametrize("cls", [KLUCB, ThompsonSampling, CausalBandit, CausalDiagram,
                                 DiscreteSCM], ids=lambda c: c.__name__)
def test_constraints_cover_every_parameter(cls):
    names = [p for p in inspect.signature(cls.__init__).parameters if p != "self"]
    assert set(cls._parameter_constraints) == set(names)


def test_agents_do_not_import_the_queueing_area():
    import statlearn.bandits.causal._agents as agents
    from statlearn.base import ParamsMixin

    assert issubclass(agents._ArmPolicy, ParamsMixin)
    assert "queueing" not in inspect.getsource(agents)


def test_constraint_errors_name_the_class_argument_and_value():
    with pytest.raises(ValueError, match=r"KLUCB parameter c must be in \[0, inf\], got -1\.0\."):
        KLUCB(c=-1.0).reset(2, 10)
    with pytest.raises(TypeError, match=r"CausalDiagram parameter nodes must be .*got int 3\."):
        CausalDiagram(3)
    scm, y = _xor()
    with pytest.raises(TypeError, match=r"DiscreteSCM parameter mechanisms must be .*got list"):
        DiscreteSCM(scm.graph, [], {})
    with pytest.raises(ValueError, match=r"CausalBandit parameter optimum must not be NaN\."):
        CausalBandit(scm, y, arm_set(scm, y), optimum=float("nan"))


def test_immutable_objects_refuse_set_params_and_clone_by_rebuilding():
    scm, y = _xor()
    bandit = CausalBandit(scm, y, arm_set(scm, y))
    for obj, name in ((bandit, "optimum"), (scm, "domains"), (scm.graph, "nodes")):
        with pytest.raises(TypeError, match=rf"{type(obj).__name__} is immutable .*"
                                            rf"set_params\({name}=\.\.\.\)"):
            obj.set_params(**{name: None})
    twin = clone(bandit)
    assert twin is not bandit
    np.testing.assert_array_equal(twin.means, bandit.means)
    assert clone(scm.graph) == scm.graph


def test_probabilities_are_copied_so_the_model_cannot_change_behind_its_back():
    p = np.array([0.8, 0.2])
    scm = _c56(p)
    before = scm.expected_value("Y", Arm(cut={("X", "W"): 1}))
    p[:] = [0.2, 0.8]
    assert scm.expected_value("Y", Arm(cut={("X", "W"): 1})) == before


def test_unknown_names_are_refused_naming_the_argument():
    g, _ = example_graph("IV")
    with pytest.raises(ValueError, match=r"confounders has .*'X', 'Z'.*no bidirected edge"):
        make_xor_scm(g, {"X": 0.1}, confounders={("X", "Z"): 0.3})
    with pytest.raises(ValueError, match=r"noise has unknown nodes \['Q'\]"):
        make_xor_scm(g, {"Q": 0.1})
    with pytest.raises(ValueError, match=r"negate has unknown nodes \['Q'\]"):
        make_xor_scm(g, {"X": 0.1}, negate=["Q"])
    with pytest.raises(ValueError, match=r"b has unknown nodes \['Q'\]"):
        g.confounded("X", "Q")
    scm, _ = _xor()
    u, _ = scm.enumerate_exogenous()
    with pytest.raises(ValueError, match=r"fixed has unknown nodes \['Q'\]"):
        scm.evaluate(u, fixed={"Q": np.zeros(len(u["U_X"]), int)})
    with pytest.raises(ValueError, match=r"u has unknown exogenous variables \['U_Q'\]"):
        scm.evaluate({**u, "U_Q": np.zeros(len(u["U_X"]), int)})
    with pytest.raises(ValueError, match=r"u is missing the exogenous variables \['U_X'\]"):
        scm.evaluate({k: v for k, v in u.items() if k != "U_X"})


def test_values_are_checked_and_name_the_argument():
    g, _ = example_graph("IV")
    with pytest.raises(ValueError, match=r"noise\['X'\] must not be NaN"):
        make_xor_scm(g, {"X": float("nan")})
    with pytest.raises(ValueError, match=r"confounders\[\('X', 'Y'\)\] must be in \[0, 1\]"):
        make_xor_scm(g, {"X": 0.1}, confounders={("X", "Y"): 1.5})
    with pytest.raises(ValueError, match=r"noise_range\[1\] must not be NaN"):
        make_random_scm(g, random_state=0, noise_range=(0.1, float("nan")))
    scm, _ = _xor()
    u, _ = scm.enumerate_exogenous()
    bad = {**u, "U_X": np.where(u["U_X"] == 0, np.nan, 1.0)}
    with pytest.raises(ValueError, match=r"u\['U_X'\] must not contain NaN"):
        scm.evaluate(bad)
    with pytest.raises(ValueError, match=r"exogenous\['NX'\] probabilities must not contain NaN"):
        _c56([np.nan, 0.5])


def test_array_likes_and_numpy_scalars_are_read_by_value():
    scm, y = _xor()
    u, _ = scm.enumerate_exogenous()
    ref = scm.evaluate(u)[y]
    as_float = {k: v.astype(float) for k, v in u.items()}
    as_pandas = {k: pd.Series(v, index=np.arange(100, 100 + v.size)) for k, v in u.items()}
    for alt in (as_float, as_pandas):
        np.testing.assert_array_equal(scm.evaluate(alt)[y], ref)
    assert Arm(do={"X": np.asarray(1)}) == Arm(do={"X": 1})
    assert Arm(cut={("X", "Y"): np.int64(1)}) == Arm(cut={("X", "Y"): 1})
    g, _ = example_graph("bow")
    a = make_random_scm(g, random_state=0, noise_range=np.array([0.1, 0.9]))
    b = make_random_scm(g, random_state=0, noise_range=pd.Series([0.1, 0.9], index=[5, 6]))
    assert a.expected_value("Y") == b.expected_value("Y")


def test_random_states_of_every_kind_repeat_the_run():
    for make in (lambda: np.random.RandomState(4), lambda: np.asarray(4)):
        a = run_bandit(KLUCB(), [0.3, 0.7], 200, random_state=make())
        b = run_bandit(KLUCB(), [0.3, 0.7], 200, random_state=make())
        np.testing.assert_array_equal(a.arms, b.arms)
    for make in (lambda: np.random.default_rng(4), lambda: np.random.RandomState(4),
                 lambda: np.random.SeedSequence(4)):
        a = simulate_bandit(ThompsonSampling(), [0.3, 0.7], 100, n_reps=3, random_state=make())
        b = simulate_bandit(ThompsonSampling(), [0.3, 0.7], 100, n_reps=3, random_state=make())
        np.testing.assert_array_equal(a.regret, b.regret)
    scm1 = make_random_scm(example_graph("bow")[0], random_state=np.asarray(2))
    scm2 = make_random_scm(example_graph("bow")[0], random_state=2)
    assert scm1.expected_value("Y") == scm2.expected_value("Y")


def test_checkpoints_and_means_as_other_array_likes():
    kw = dict(horizon=100, n_reps=2, random_state=0)
    ref = simulate_bandit(KLUCB(), [0.3, 0.7], checkpoints=[10, 50], **kw)
    got = simulate_bandit(KLUCB(), pd.Series([0.3, 0.7], index=[9, 3]),
                          checkpoints=np.array([10.0, 50.0]), **kw)
    np.testing.assert_array_equal(ref.regret, got.regret)
    with pytest.raises(ValueError, match="checkpoints must not contain NaN"):
        simulate_bandit(KLUCB(), [0.3, 0.7], checkpoints=[10.0, np.nan], **kw)
    with pytest.raises(ValueError, match="bandit means must not contain NaN"):
        run_bandit(KLUCB(), [0.3, np.nan], 10, random_state=0)


def test_regime_values_and_domains_are_read_as_ints_and_named():
    from statlearn.bandits.causal import intervention_arms, make_task, realizability_conflict

    g = CausalDiagram(["X", "Z", "W", "Y"], [("X", "Z"), ("Z", "W"), ("W", "Y")])
    assert realizability_conflict(g, "Y", {"W": {"X": np.asarray(1)}, "Z": {"X": np.int64(0)}}) \
        == realizability_conflict(g, "Y", {"W": {"X": 1}, "Z": {"X": 0}})
    with pytest.raises(TypeError, match=r"arm\['W'\]\['X'\] must be an integer"):
        realizability_conflict(g, "Y", {"W": {"X": float("nan")}})
    assert intervention_arms([{"X"}], {"X": np.asarray(3)}) == intervention_arms([{"X"}], {"X": 3})
    with pytest.raises(TypeError, match=r"domains\['X'\] must be an integer"):
        intervention_arms([{"X"}], {"X": float("nan")})
    a, _ = make_task("IV", random_state=np.asarray(1))
    b, _ = make_task("IV", random_state=1)
    assert a.expected_value("Y") == b.expected_value("Y")

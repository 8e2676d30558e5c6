"""One spelling for one idea across the public API.

Every public callable of the package (module functions, classes, their
methods, properties and dataclass fields) is introspected. The number of
Monte Carlo replications is ``n_reps``, the source of randomness is
``random_state`` and the progress switch is ``progress``; any other spelling
of these ideas fails here, so that a new ``n_runs`` or ``seed`` argument is
caught when it is added.
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import pkgutil

import pytest

import statlearn

CANONICAL = {
    "number of replications": (
        "n_reps",
        {"n_runs", "n_run", "runs", "n_rep", "reps", "nreps", "nruns", "num_reps", "num_runs",
         "n_replications", "replications", "n_repetitions", "repetitions", "n_sims",
         "n_simulations", "n_sim", "n_mc", "n_experiments", "n_repeats"},
    ),
    "random seed": (
        "random_state",
        {"seed", "seeds", "rng", "random_seed", "rng_seed", "random_generator", "generator",
         "prng", "rs", "entropy_seed", "rand_state", "randomstate"},
    ),
    "progress display": (
        "progress",
        {"verbose", "verbosity", "show_progress", "progress_bar", "progressbar", "quiet",
         "silent", "disable_progress", "tqdm", "display_progress", "show_progress_bar"},
    ),
}

# Deliberate exceptions, each with its reason.
ALLOWED = {
    # The median size of the oracle's collision estimates: a parameter of the
    # algorithm (like scikit-learn's ``permutation_importance(n_repeats=...)``),
    # not a number of Monte Carlo replications.
    ("n_repeats", "statlearn.cluster.SpectralClusteringOracle"),
    ("n_repeats", "statlearn.cluster.test_one_vs_two_clusters"),
    ("n_repeats", "statlearn.cluster.ClusterCountTestResult"),
}


def _is_replication_callback(params):
    # ``run_study(fn, ...)`` calls ``fn(setting, rng)`` with a Generator it made
    # itself; the studies' replication functions follow that documented contract.
    return list(params) == ["setting", "rng"]


def _public_modules():
    names = ["statlearn"]
    for info in pkgutil.walk_packages(statlearn.__path__, "statlearn."):
        if not any(part.startswith("_") for part in info.name.split(".")):
            names.append(info.name)
    return [importlib.import_module(n) for n in names]


def _own(obj):
    return getattr(obj, "__module__", "") and obj.__module__.split(".")[0] == "statlearn"


def _params(func):
    try:
        return list(inspect.signature(func).parameters)
    except (TypeError, ValueError):
        return []


def _api_names():
    """Yield ``(owner, kind, name)`` for every parameter and member name of the public API."""
    seen = set()
    for mod in _public_modules():
        exported = getattr(mod, "__all__", None)
        if exported is None:
            exported = [n for n in dir(mod) if not n.startswith("_")]
        for attr in exported:
            obj = getattr(mod, attr)
            if not (inspect.isclass(obj) or inspect.isfunction(obj)) or not _own(obj):
                continue
            qual = f"{obj.__module__.split('._', 1)[0]}.{obj.__qualname__}"
            if id(obj) in seen:
                continue
            seen.add(id(obj))
            if inspect.isfunction(obj):
                params = _params(obj)
                if not _is_replication_callback(params):
                    yield from ((qual, "parameter", p) for p in params)
                continue
            yield from ((qual, "parameter", p) for p in _params(obj))
            if dataclasses.is_dataclass(obj):
                yield from ((qual, "field", f.name) for f in dataclasses.fields(obj))
            for klass in obj.__mro__:
                if not _own(klass):
                    continue
                for name, member in vars(klass).items():
                    if name.startswith("_"):
                        continue
                    if isinstance(member, property):
                        yield qual, "attribute", name
                        continue
                    if isinstance(member, staticmethod | classmethod):
                        member = member.__func__
                    if callable(member):
                        yield qual, "method", name
                        params = _params(member)
                        if not _is_replication_callback(params):
                            yield from ((f"{qual}.{name}", "parameter", p) for p in params)


API = list(_api_names())


def test_the_api_was_found():
    owners = {owner for owner, _, _ in API}
    # a handful of objects from different areas, so that the walk cannot come back empty
    for must in ("statlearn.simulation.run_study", "statlearn.bandits.queueing.simulate",
                 "statlearn.bandits.causal.simulate_bandit",
                 "statlearn.conformal.SplitConformalClassifier",
                 "statlearn.unlearning.NewtonUnlearner", "statlearn.conformal.cfbh"):
        assert must in owners, must
    assert len(owners) > 100


@pytest.mark.parametrize("idea", list(CANONICAL))
def test_one_spelling_per_idea(idea):
    canonical, others = CANONICAL[idea]
    bad = sorted({(owner, kind, name) for owner, kind, name in API
                  if name in others and (name, owner.split(".__init__")[0]) not in ALLOWED
                  and (name, owner.rsplit(".", 1)[0]) not in ALLOWED})
    assert not bad, (
        f"the {idea} is spelt {canonical!r} across the API; found "
        + "; ".join(f"{kind} {name!r} of {owner}" for owner, kind, name in bad))


@pytest.mark.parametrize("func", [
    "statlearn.simulation.run_study",
    "statlearn.bandits.queueing.simulate",
    "statlearn.bandits.causal.simulate_bandit",
])
def test_every_monte_carlo_runner_takes_the_three_spellings(func):
    mod, name = func.rsplit(".", 1)
    params = inspect.signature(getattr(importlib.import_module(mod), name)).parameters
    assert {"n_reps", "random_state", "progress"} <= set(params)


def test_simulation_results_count_replications_the_same_way():
    from statlearn.bandits.causal import KLUCB, simulate_bandit
    from statlearn.bandits.queueing import RandomPolicy, make_queueing_instance, simulate
    from statlearn.simulation import run_study

    env = make_queueing_instance(n_servers=2, n_features=2, random_state=0)
    q = simulate(RandomPolicy(), env, horizon=20, n_reps=3, random_state=0, progress=False)
    b = simulate_bandit(KLUCB(), [0.3, 0.6], 20, n_reps=3,
                        random_state=0, progress=False)
    s = run_study(lambda setting, rng: {"x": rng.random()}, n_reps=3, random_state=0,
                  progress=False)
    assert q.n_reps == b.n_reps == s.n_reps == 3


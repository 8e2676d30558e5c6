"""Short reprs of results, confidence levels in summaries, and warnings for the outputs
that summaries leave out."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from statlearn.bandits.queueing import RandomPolicy, make_queueing_instance, run_policy, simulate
from statlearn.simulation import SimulationWarning, run_study
from statlearn.unlearning import ged


def _mixed(setting, rng):
    u = rng.random()
    return {"x": u, "maybe": float("nan") if u < 0.5 else u, "label": "a" if u < 0.5 else "b"}


def test_run_study_warns_about_nan_and_non_numeric_outputs():
    with pytest.warns(SimulationWarning, match="'maybe'.*NaN.*'label' is not numeric"):
        res = run_study(_mixed, n_reps=20, random_state=0, progress=False)
    with pytest.warns(SimulationWarning, match="summary"):
        summ = res.summary()
    n_nan = int(res.table["maybe"].isna().sum())
    assert 0 < n_nan < 20
    assert summ.loc[summ["metric"] == "maybe", "n_obs"].item() == 20 - n_nan
    assert "label" not in set(summ["metric"])

    def clean(setting, rng):
        return {"x": rng.random()}

    with warnings.catch_warnings():
        warnings.simplefilter("error", SimulationWarning)
        run_study(clean, n_reps=5, random_state=0, progress=False).summary()


def test_result_reprs_are_short():
    res = run_study(lambda s, rng: {"x": rng.random()}, n_reps=500, random_state=0,
                    progress=False, name="short")
    env = make_queueing_instance(random_state=0)
    sim = simulate(RandomPolicy(), env, horizon=2000, n_reps=20, random_state=0)
    run = run_policy(RandomPolicy(), env, 2000, random_state=0)
    rng = np.random.default_rng(0)
    div = ged(np.zeros(5), rng.normal(size=(50, 5)), rng.normal(size=(5000, 5)),
              rng.normal(size=5000), loss="squared")
    for obj in (res, sim, run, div, env):
        text = repr(obj)
        assert len(text) < 400, (type(obj).__name__, len(text))
        assert "..." not in text or "array" not in text
    assert "shape=(5000,)" in repr(div)
    assert "thetas=<array shape=(5, 5)" in repr(env)


def test_divergence_summary_takes_a_confidence_level():
    rng = np.random.default_rng(1)
    div = ged(np.zeros(4), np.full(4, 0.2), rng.normal(size=(400, 4)), rng.normal(size=400),
              loss="squared")
    wide = div.summary(confidence_level=0.99).tables[""]
    narrow = div.summary(confidence_level=0.8).tables[""]
    assert (wide["ci_high"] - wide["ci_low"]).item() > (narrow["ci_high"] - narrow["ci_low"]).item()
    lo, hi = div.confidence_interval(0.8)
    assert narrow["ci_low"].item() == lo and narrow["ci_high"].item() == hi

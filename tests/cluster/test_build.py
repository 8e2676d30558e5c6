"""Build control of SpectralClusteringOracle: progress bar, time budget, interruption,
resuming a partial build (the result equals an uninterrupted build).

Planted defect, run once: a resumed build that samples its landmarks again (the seeds
respawned instead of kept) fails the resume tests (7 of them).
"""

import warnings

import numpy as np
import pytest
from sklearn.exceptions import NotFittedError

from statlearn.cluster import (
    OracleConstructionError,
    SpectralClusteringOracle,
    _batched_build,
    _landmark_index,
)
from statlearn.datasets import make_sbm_graph


@pytest.fixture(scope="module")
def sbm():
    return make_sbm_graph([300] * 3, 0.07, 0.004, random_state=0)


CONFIGS = {
    "fast-auto": dict(mode="fast"),
    "fast-fixed": dict(mode="fast", walk_length=16),
    "batched-auto": dict(walk_length_candidates=[8, 16], n_walks=128, batch_size=32,
                         n_repeats=1),
}


def _same(a, b):
    np.testing.assert_array_equal(a.psi_, b.psi_)
    np.testing.assert_array_equal(a.landmark_labels_, b.landmark_labels_)
    assert a.walk_length_ == b.walk_length_
    assert a.walk_length_scores_ == b.walk_length_scores_
    assert a.walk_steps_fit_ == b.walk_steps_fit_
    q = np.arange(0, 900, 11)
    np.testing.assert_array_equal(a.predict(q), b.predict(q))


@pytest.mark.parametrize("name", list(CONFIGS))
def test_budget_zero_stops_after_each_stage_and_resume_finishes_the_same_oracle(sbm, name):
    """With time_budget=0 every call does one stage and stops; the partial oracle refuses
    queries, and resuming stage by stage ends with exactly the oracle of one fit."""
    A, _ = sbm
    full = SpectralClusteringOracle(3, random_state=0, **CONFIGS[name]).fit(A)
    assert full.build_state_ == "complete" and full.build_stage_ == "done"
    o = SpectralClusteringOracle(3, random_state=0, time_budget=0, **CONFIGS[name])
    with pytest.warns(UserWarning, match="time_budget=0 s spent"):
        o.fit(A)
    assert o.build_state_ == "partial"
    with pytest.raises(NotFittedError, match="partial.*resume"):
        o.predict([0, 1])
    stages = [o.build_stage_]
    while o.build_state_ == "partial":
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            o.resume()
        stages.append(o.build_stage_)
    assert len(stages) >= 3 and stages[-1] == "done", stages
    assert len(set(stages)) == len(stages), stages  # every call made progress
    _same(o, full)
    assert o.resume() is o  # resuming a complete build does nothing


def _interrupt_on_call(monkeypatch, module, name, call):
    """Make ``module.<name>`` (as the build stages call it) raise KeyboardInterrupt on its
    ``call``-th call."""
    real = getattr(module, name)
    count = {"n": 0}

    def wrapped(*args, **kwargs):
        count["n"] += 1
        if count["n"] == call:
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    monkeypatch.setattr(module, name, wrapped)
    return count


@pytest.mark.parametrize("call", [1, 2, 3])
def test_keyboard_interrupt_keeps_the_work_done_and_resume_completes_it(sbm, monkeypatch,
                                                                        call):
    """Ctrl-C in the middle of a fast build (in the walk engine, at the call-th walk
    call): the interrupt propagates, the oracle is marked partial and refuses queries,
    and resume() gives the oracle of an uninterrupted fit."""
    A, _ = sbm
    full = SpectralClusteringOracle(3, mode="fast", random_state=0).fit(A)
    o = SpectralClusteringOracle(3, mode="fast", random_state=0)
    with monkeypatch.context() as m:
        _interrupt_on_call(m, _landmark_index, "walk_rows", call)
        with pytest.raises(KeyboardInterrupt):
            o.fit(A)
    assert o.build_state_ == "partial"
    with pytest.raises(NotFittedError, match="partial"):
        o.which_cluster(0)
    o.resume()
    assert o.build_state_ == "complete"
    _same(o, full)


def test_keyboard_interrupt_in_the_batched_build(sbm, monkeypatch):
    A, _ = sbm
    kw = CONFIGS["batched-auto"]
    full = SpectralClusteringOracle(3, random_state=0, **kw).fit(A)
    o = SpectralClusteringOracle(3, random_state=0, **kw)
    with monkeypatch.context() as m:
        _interrupt_on_call(m, _batched_build, "median_estimates", 20)
        with pytest.raises(KeyboardInterrupt):
            o.fit(A)
    assert o.build_state_ == "partial" and o.build_stage_ != "done"
    o.resume()
    _same(o, full)


def test_progress_bar_shows_the_stages(sbm, capsys):
    A, _ = sbm
    SpectralClusteringOracle(3, mode="fast", progress=True, random_state=0).fit(A)
    err = capsys.readouterr().err
    assert "oracle build" in err and "t=" in err and "step" in err, err[-500:]
    SpectralClusteringOracle(3, mode="fast", random_state=0).fit(A)
    assert "oracle build" not in capsys.readouterr().err


def test_failed_build_is_flagged_and_cannot_be_resumed():
    A, _ = make_sbm_graph([100] * 4, 0.3, 0.0, random_state=1)  # 4 components, k = 2
    o = SpectralClusteringOracle(2, mode="fast", walk_length=8, random_state=0)
    with pytest.raises(OracleConstructionError):
        o.fit(A)
    assert o.build_state_ == "failed"
    with pytest.raises(NotFittedError, match="failed"):
        o.predict([0])
    with pytest.raises(OracleConstructionError, match="nothing to resume"):
        o.resume()


@pytest.mark.parametrize("kwargs, exc, match", [
    (dict(time_budget=-1.0), ValueError, "time_budget"),
    (dict(time_budget="1"), TypeError, "time_budget"),
    (dict(progress=1), TypeError, "progress"),
])
def test_bad_build_control_parameters(sbm, kwargs, exc, match):
    with pytest.raises(exc, match=match):
        SpectralClusteringOracle(3, mode="fast", **kwargs).fit(sbm[0])


def test_resume_before_fit():
    with pytest.raises(NotFittedError, match="fit"):
        SpectralClusteringOracle(3).resume()

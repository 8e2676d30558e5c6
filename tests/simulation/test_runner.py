"""The Monte Carlo runner: determinism across backends, resumption, refusal, bad input."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import textwrap

import joblib
import numpy as np
import pandas as pd
import pytest

from statlearn.simulation import StoreMismatchError, expand_grid, run_study
from statlearn.studies.conformal_coverage import coverage_replication

GRID = {"model": ["oracle"], "n": [10, 40], "alpha": [0.1, 0.2]}
N_REPS = 12


def _reference():
    return run_study(coverage_replication, GRID, n_reps=N_REPS, random_state=7,
                     backend="sequential", progress=False)


def test_table_layout_and_order():
    res = _reference()
    t = res.table
    assert list(t.columns[:5]) == ["setting", "model", "n", "alpha", "rep"]
    assert len(t) == 4 * N_REPS
    assert t[["setting", "rep"]].duplicated().sum() == 0
    keys = list(map(tuple, t[["setting", "rep"]].to_numpy()))
    assert keys == sorted(keys)
    assert res.metrics == ["coverage", "below_target", "infinite"]


@pytest.mark.parametrize("backend,n_jobs", [("loky", 2), ("threading", 2), (None, 1),
                                            (None, 2), ("sequential", None)])
def test_identical_across_backends(backend, n_jobs):
    ref = _reference()
    other = run_study(coverage_replication, GRID, n_reps=N_REPS, random_state=7,
                      backend=backend, n_jobs=n_jobs, progress=False)
    pd.testing.assert_frame_equal(ref.table, other.table, check_exact=True)


@pytest.mark.dask
def test_identical_on_dask_local_cluster():
    distributed = pytest.importorskip("distributed")
    ref = _reference()
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster):
        via_backend = run_study(coverage_replication, GRID, n_reps=N_REPS, random_state=7,
                                backend="dask", progress=False)
        with joblib.parallel_config(backend="dask"):
            via_config = run_study(coverage_replication, GRID, n_reps=N_REPS, random_state=7,
                                   progress=False)
    pd.testing.assert_frame_equal(ref.table, via_backend.table, check_exact=True)
    pd.testing.assert_frame_equal(ref.table, via_config.table, check_exact=True)


def test_streams_depend_only_on_setting_and_rep():
    # Streams are keyed by (setting index, rep): asking for more replications
    # leaves the existing rows unchanged, and another seed changes them.
    small = run_study(coverage_replication, GRID, n_reps=5, random_state=7, progress=False)
    big = _reference()
    pd.testing.assert_frame_equal(
        small.table, big.table[big.table["rep"] < 5].reset_index(drop=True), check_exact=True)
    other_seed = run_study(coverage_replication, GRID, n_reps=5, random_state=8, progress=False)
    assert not np.array_equal(small.table["coverage"], other_seed.table["coverage"])


class _Crash(Exception):
    pass


def _crashing(k):
    calls = {"n": 0}

    def fn(setting, rng):
        calls["n"] += 1
        if calls["n"] > k:
            raise _Crash
        return coverage_replication(setting, rng)

    fn.__qualname__ = "coverage_replication"
    fn.__module__ = coverage_replication.__module__
    return fn, calls


def _rows(store, name):
    with sqlite3.connect(store) as conn:
        return conn.execute(f"SELECT setting, rep FROM runs_{name}").fetchall()


@pytest.mark.parametrize("k", [0, 1, 17, 47])
def test_resume_after_exception_gives_identical_table(tmp_path, k):
    store = tmp_path / "s.sqlite"
    fn, _ = _crashing(k)
    with pytest.raises(_Crash):
        run_study(fn, GRID, n_reps=N_REPS, random_state=7, store=store, name="cov",
                  progress=False, backend="sequential")
    assert len(_rows(store, "cov")) == k
    counted, calls = _crashing(10**9)
    res = run_study(counted, GRID, n_reps=N_REPS, random_state=7, store=store, name="cov",
                    progress=False, backend="sequential")
    assert calls["n"] == 4 * N_REPS - k  # only the missing replications ran
    pd.testing.assert_frame_equal(res.table, _reference().table, check_exact=True)
    rows = _rows(store, "cov")
    assert len(rows) == len(set(rows)) == 4 * N_REPS


def test_resume_after_killed_process(tmp_path):
    store = tmp_path / "killed.sqlite"
    script = textwrap.dedent(f"""
        import os
        from statlearn.simulation import run_study
        from statlearn.studies.conformal_coverage import coverage_replication
        count = [0]
        def fn(setting, rng):
            count[0] += 1
            if count[0] == 10:
                os._exit(3)   # no cleanup, no exception handling: a hard crash
            return coverage_replication(setting, rng)
        fn.__qualname__ = "coverage_replication"
        fn.__module__ = coverage_replication.__module__
        run_study(fn, {GRID!r}, n_reps={N_REPS}, random_state=7, store={str(store)!r},
                  name="cov", progress=False, backend="sequential")
    """)
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert proc.returncode == 3, proc.stderr
    assert len(_rows(store, "cov")) == 9
    res = run_study(coverage_replication, GRID, n_reps=N_REPS, random_state=7, store=store,
                    name="cov", progress=False, n_jobs=2, backend="loky")
    pd.testing.assert_frame_equal(res.table, _reference().table, check_exact=True)
    assert len(_rows(store, "cov")) == 4 * N_REPS


def test_store_extends_replications(tmp_path):
    store = tmp_path / "s.sqlite"
    run_study(coverage_replication, GRID, n_reps=4, random_state=7, store=store, name="cov",
              progress=False)
    res = run_study(coverage_replication, GRID, n_reps=N_REPS, random_state=7, store=store,
                    name="cov", progress=False)
    pd.testing.assert_frame_equal(res.table, _reference().table, check_exact=True)


def test_store_reuses_recorded_entropy_when_seed_is_none(tmp_path):
    store = tmp_path / "s.sqlite"
    first = run_study(coverage_replication, GRID, n_reps=3, random_state=None, store=store,
                      name="cov", progress=False)
    again = run_study(coverage_replication, GRID, n_reps=3, random_state=None, store=store,
                      name="cov", progress=False)
    assert first.entropy == again.entropy
    fresh = run_study(coverage_replication, GRID, n_reps=3, random_state=first.entropy,
                      progress=False)
    pd.testing.assert_frame_equal(first.table, fresh.table, check_exact=True)


@pytest.mark.parametrize("change", ["grid", "seed", "function"])
def test_mismatched_store_is_refused(tmp_path, change):
    store = tmp_path / "s.sqlite"
    run_study(coverage_replication, GRID, n_reps=2, random_state=7, store=store, name="cov",
              progress=False)
    kwargs = dict(fn=coverage_replication, grid=GRID, random_state=7)
    if change == "grid":
        kwargs["grid"] = {**GRID, "n": [10, 41]}
    elif change == "seed":
        kwargs["random_state"] = 8
    else:
        kwargs["fn"] = lambda s, r: {"x": 1.0}
    with pytest.raises(StoreMismatchError, match="refusing to mix"):
        run_study(n_reps=2, store=store, name="cov", progress=False, **kwargs)
    assert len(_rows(store, "cov")) == 8  # untouched


def test_two_studies_share_one_store_file(tmp_path):
    store = tmp_path / "s.sqlite"
    a = run_study(coverage_replication, GRID, n_reps=2, random_state=7, store=store, name="a",
                  progress=False)
    b = run_study(coverage_replication, {**GRID, "n": [5]}, n_reps=2, random_state=7,
                  store=store, name="b", progress=False)
    assert len(a.table) == 8 and len(b.table) == 4


@pytest.mark.parametrize("kwargs,exc,match", [
    (dict(n_reps=0), ValueError, "n_reps"),
    (dict(n_reps=2.5), TypeError, "n_reps"),
    (dict(backend="spark"), ValueError, "backend"),
    (dict(backend="multiprocessing"), ValueError, "backend"),
    (dict(n_jobs=0), ValueError, "n_jobs"),
    (dict(random_state=-1), ValueError, "random_state"),
    (dict(random_state=1.5), TypeError, "random_state"),
    (dict(progress="yes"), TypeError, "progress"),
    (dict(grid={"n": 5}), TypeError, "grid"),
    (dict(grid={"n": []}), ValueError, "grid"),
    (dict(grid=[]), ValueError, "grid"),
    (dict(grid=[1, 2]), TypeError, "grid"),
    (dict(grid={"rep": [1]}), ValueError, "reserved"),
])
def test_bad_arguments(kwargs, exc, match):
    base = dict(fn=coverage_replication, grid=GRID, n_reps=2, progress=False)
    with pytest.raises(exc, match=match):
        run_study(**{**base, **kwargs})


def test_non_callable_fn():
    with pytest.raises(TypeError, match="fn must be callable"):
        run_study("not a function", GRID, n_reps=2)


@pytest.mark.parametrize("out,match", [(3.0, "dict of scalars"),
                                       ({"x": np.zeros(2)}, "output 'x'")])
def test_fn_must_return_dict_of_scalars(out, match):
    with pytest.raises(TypeError, match=match):
        run_study(lambda s, r: out, None, n_reps=1, progress=False)


def test_progress_bar_on_driver_only_when_asked(capsys):
    run_study(coverage_replication, GRID, n_reps=2, progress=True)
    assert "replications" in capsys.readouterr().err
    run_study(coverage_replication, GRID, n_reps=2, progress=False)
    assert capsys.readouterr().err == ""


def test_summary_matches_numpy_and_plot():
    res = _reference()
    summ = res.summary(confidence_level=0.9)
    row = summ[(summ["n"] == 40) & (summ["alpha"] == 0.2) & (summ["metric"] == "coverage")]
    x = res.table.query("n == 40 and alpha == 0.2")["coverage"].to_numpy()
    assert row["mean"].item() == pytest.approx(x.mean())
    se = x.std(ddof=1) / np.sqrt(x.size)
    assert row["se"].item() == pytest.approx(se)
    assert row["ci_high"].item() - row["mean"].item() == pytest.approx(1.6448536 * se)
    ax = res.plot("coverage", x="n", hue="alpha")
    assert len(ax.lines) >= 2
    with pytest.raises(ValueError, match="metric"):
        res.plot("nope", x="n")


def test_expand_grid_orders_last_key_fastest():
    assert expand_grid({"a": [1, 2], "b": ["x", "y"]}) == [
        {"a": 1, "b": "x"}, {"a": 1, "b": "y"}, {"a": 2, "b": "x"}, {"a": 2, "b": "y"}]
    assert expand_grid(None) == [{}]

"""The ``statlearn`` command line and the report writer."""

from __future__ import annotations

import subprocess
import sys

import pandas as pd
import pytest

from statlearn.cli import main
from statlearn.studies import StudyContext, StudyReport, available_studies, register_study


@register_study("doc-tiny", title="Tiny study for CLI tests")
def _tiny(ctx: StudyContext) -> StudyReport:
    import matplotlib.pyplot as plt

    from statlearn.studies.conformal_coverage import coverage_replication

    res = ctx.run(coverage_replication, {"model": ["oracle"], "n": [10, 20], "alpha": [0.1]},
                  n_reps=ctx.size(quick=8, full=50), name="doc-tiny")
    fig, ax = plt.subplots()
    res.plot("coverage", x="n", ax=ax)
    return StudyReport(name="doc-tiny", title="Tiny", tables={"summary": res.summary()},
                       figures={"fig": fig}, text="A tiny study.")


def test_list_shows_registered_studies(capsys):
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    for s in available_studies():
        assert s.name in out


def test_module_entry_point_is_the_same_cli():
    proc = subprocess.run([sys.executable, "-m", "statlearn", "list"], capture_output=True,
                          text=True, check=True)
    assert "conformal-coverage" in proc.stdout


def test_reproduce_writes_report_and_resumes(tmp_path, capsys):
    out, store = tmp_path / "out", tmp_path / "runs.sqlite"
    assert main(["reproduce", "doc-tiny", "--quick", "--out", str(out),
                 "--store", str(store)]) == 0
    report = (out / "report.md").read_text()
    assert "## Tiny" in report and "![fig](doc-tiny/fig.png)" in report
    assert (out / "doc-tiny" / "fig.png").stat().st_size > 1000
    first = pd.read_csv(out / "doc-tiny" / "summary.csv")
    # second run from the same store recomputes nothing and gives the same table
    assert main(["reproduce", "doc-tiny", "--quick", "--out", str(out),
                 "--store", str(store), "--n-jobs", "2", "--backend", "loky"]) == 0
    pd.testing.assert_frame_equal(first, pd.read_csv(out / "doc-tiny" / "summary.csv"))
    # another seed with the same store is refused with a clear message
    assert main(["reproduce", "doc-tiny", "--quick", "--out", str(out), "--store",
                 str(store), "--seed", "3"]) == 2
    assert "refusing to mix" in capsys.readouterr().err


@pytest.mark.parametrize("argv", [["reproduce", "no-such-study", "--quick"],
                                  ["reproduce", "all", "doc-tiny"],
                                  ["reproduce", "doc-tiny", "--scheduler", "x:1",
                                   "--backend", "loky"]])
def test_reproduce_bad_arguments(argv, capsys, tmp_path):
    assert main(argv + ["--out", str(tmp_path)]) == 2
    assert "error" in capsys.readouterr().err


def test_unknown_backend_is_an_argparse_error(capsys):
    with pytest.raises(SystemExit):
        main(["reproduce", "doc-tiny", "--backend", "spark"])


def test_version_flag(capsys):
    import statlearn

    with pytest.raises(SystemExit) as exc:
        main(["--version"])
    assert exc.value.code == 0
    assert capsys.readouterr().out.strip() == f"statlearn {statlearn.__version__}"


def test_no_arguments_prints_help_with_examples(capsys):
    assert main([]) == 0
    out = capsys.readouterr().out
    assert "usage: statlearn" in out and "examples:" in out and "statlearn reproduce" in out


@pytest.mark.parametrize("argv, message", [
    (["reproduce", "doc-tiny", "doc-tiny"], "named twice"),
    (["reproduce", "doc-tiny", "--n-jobs", "0"], "--n-jobs"),
    (["reproduce", "doc-tiny", "--n-jobs", "-3"], "--n-jobs"),
    (["reproduce", "doc-tiny", "--store", "x.sqlite", "--no-store"], "--no-store"),
])
def test_bad_arguments_refused_before_any_work(argv, message, capsys, tmp_path, monkeypatch):
    import statlearn.studies as studies

    def _fail(*a, **k):  # pragma: no cover - reached only if the check is missing
        raise AssertionError("work started before the arguments were checked")

    monkeypatch.setattr(studies, "run_studies", _fail)
    assert main(argv + ["--out", str(tmp_path / "o")]) == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "o").exists()


def test_out_that_is_a_file_is_refused(tmp_path, capsys):
    f = tmp_path / "file.txt"
    f.write_text("x")
    assert main(["reproduce", "doc-tiny", "--quick", "--out", str(f)]) == 2
    assert "--out" in capsys.readouterr().err


def test_default_store_under_out_and_ctrl_c_keeps_finished_work(tmp_path, capsys,
                                                                  monkeypatch):
    import statlearn.simulation._runner as runner

    out = tmp_path / "out"
    assert main(["reproduce", "doc-tiny", "--quick", "--out", str(out), "--no-progress"]) == 0
    (store,) = out.glob("runs-quick-seed0-*.sqlite")
    assert store.stat().st_size > 0
    first = pd.read_csv(out / "doc-tiny" / "summary.csv")

    # An interrupt in the middle of a run: clean exit 130, and a message saying how to resume.
    real = runner.run_study

    def _interrupt(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr("statlearn.studies._registry.run_study", _interrupt)
    assert main(["reproduce", "doc-tiny", "--quick", "--out", str(out)]) == 130
    err = capsys.readouterr().err
    assert "interrupted" in err and str(store) in err and "resume" in err
    assert "Traceback" not in err
    monkeypatch.setattr("statlearn.studies._registry.run_study", real)
    # Resuming from the default store gives the same table.
    assert main(["reproduce", "doc-tiny", "--quick", "--out", str(out)]) == 0
    pd.testing.assert_frame_equal(first, pd.read_csv(out / "doc-tiny" / "summary.csv"))


def test_default_store_changes_with_the_source(monkeypatch, tmp_path):
    from statlearn import cli

    a = cli._code_fingerprint()
    assert a == cli._code_fingerprint() and len(a) == 10
    monkeypatch.setattr(cli, "__file__", str(tmp_path / "cli.py"))
    (tmp_path / "m.py").write_text("x = 1\n")
    b = cli._code_fingerprint()
    (tmp_path / "m.py").write_text("x = 2\n")
    assert b != a and cli._code_fingerprint() != b

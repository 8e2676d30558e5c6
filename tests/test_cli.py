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

"""The combined report: one section per study, each with its verdict."""

import ast
from pathlib import Path

import matplotlib
import pandas as pd
import pytest

matplotlib.use("Agg")
import matplotlib.pyplot as plt

import statlearn.studies as studies
from statlearn.studies import StudyReport, make_verdict, write_report


def test_make_verdict_levels_and_refusals():
    assert make_verdict("partly", "only  the\\nordering") == "partly: only the\\nordering"
    assert make_verdict("not reproduced", "x").startswith("not reproduced: ")
    with pytest.raises(ValueError, match="level"):
        make_verdict("mostly", "x")
    with pytest.raises(ValueError, match="reason"):
        make_verdict("reproduced", "  ")


def test_write_report_puts_the_verdict_first(tmp_path):
    fig, ax = plt.subplots()
    ax.plot([0, 1], [0, 1])
    reps = [StudyReport(name="a", title="Study A", tables={"t": pd.DataFrame({"x": [1]})},
                        figures={"f": fig}, text="ours vs paper",
                        verdict=make_verdict("reproduced", "coverage matches")),
            StudyReport(name="b", title="Study B", text="no verdict here")]
    path = write_report(reps, tmp_path, header="Size: quick.")
    plt.close(fig)
    md = path.read_text()
    # summary table at the top, before any section
    assert md.index("| `a` | reproduced: coverage matches |") < md.index("## Study A")
    assert "| `b` | no verdict |" in md
    # in the section: the verdict comes before the text, the table and the figure
    sec = md[md.index("## Study A"):md.index("## Study B")]
    assert sec.index("**Verdict: reproduced: coverage matches**") < sec.index("ours vs paper")
    assert sec.index("ours vs paper") < sec.index("![f](a/f.png)")
    assert (tmp_path / "a" / "f.png").exists() and (tmp_path / "a" / "t.csv").exists()


def test_every_registered_study_returns_a_verdict():
    # running every study is the job of `make demo`; here: each study function
    # passes a verdict built by make_verdict to its StudyReport
    root = Path(studies.__file__).parent
    for study in studies.available_studies():
        src = (root / f"{study.func.__module__.rsplit('.', 1)[1]}.py").read_text()
        tree = ast.parse(src)
        fn = next(n for n in ast.walk(tree)
                  if isinstance(n, ast.FunctionDef) and n.name == study.func.__name__)
        calls = [n for n in ast.walk(fn) if isinstance(n, ast.Call)]
        reports = [c for c in calls if getattr(c.func, "id", None) == "StudyReport"]
        assert reports, study.name
        assert all(any(k.arg == "verdict" for k in c.keywords) for c in reports), study.name
        assert any(getattr(c.func, "id", None) == "make_verdict" for c in calls), study.name

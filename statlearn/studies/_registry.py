"""Registry of reproducible studies and the report writer used by the CLI."""

from __future__ import annotations

import importlib
import pkgutil
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from ..simulation import run_study
from ..utils import check_option
from ..utils._results import dataframe_to_markdown

__all__ = [
    "Study",
    "StudyContext",
    "StudyReport",
    "available_studies",
    "get_study",
    "make_verdict",
    "register_study",
    "write_report",
]

_REGISTRY: dict[str, Study] = {}


def _registry() -> dict:
    """The one registry of the package.

    A second copy of this module (a doctest runner that imports the file by
    path) must still read and write the registry that the study modules fill.
    """
    return importlib.import_module("statlearn.studies._registry")._REGISTRY


@dataclass(frozen=True)
class StudyContext:
    """How a study should run: its size, parallelism and storage.

    Parameters
    ----------
    quick : bool, default=True
        Use the reduced size (under about two minutes on two cores).
    n_jobs : int or None
        Workers for :func:`statlearn.simulation.run_study`.
    backend : str or None
        joblib backend (``"loky"``, ``"dask"``, ...).
    store : str or None
        SQLite file shared by all the study's runs, so they resume.
    random_state : int, default=0
        Root seed.
    progress : bool, default=False
        Show progress bars.

    Examples
    --------
    >>> from statlearn.studies import StudyContext
    >>> StudyContext(quick=True).size(quick=10, full=1000)
    10
    """

    quick: bool = True
    n_jobs: int | None = None
    backend: str | None = None
    store: str | None = None
    random_state: int = 0
    progress: bool = False

    def size(self, quick, full):
        """``quick`` in quick mode, else ``full``."""
        return quick if self.quick else full

    def run(self, fn, grid, n_reps, name):
        """:func:`~statlearn.simulation.run_study` with this context's settings."""
        return run_study(fn, grid, n_reps=n_reps, random_state=self.random_state,
                         n_jobs=self.n_jobs, backend=self.backend, progress=self.progress,
                         store=self.store, name=name)


@dataclass(frozen=True)
class StudyReport:
    """What a study produced.

    Attributes
    ----------
    name : str
        Registry name of the study.
    title : str
        Section heading in the report.
    tables : dict of str to pandas.DataFrame
        Tables written as CSV and shown in the report.
    figures : dict of str to matplotlib.figure.Figure
        Figures written as PNG and linked from the report.
    text : str
        Markdown: the setup, what the paper reported and what we got.
    verdict : str
        One line: ``"reproduced: ..."``, ``"partly: ..."`` or
        ``"not reproduced: ..."`` with the reason (see :func:`make_verdict`).
        Shown at the top of the study's section and in the report's summary.

    Examples
    --------
    >>> from statlearn.studies import StudyReport, make_verdict
    >>> rep = StudyReport(name="x", title="X",
    ...                   verdict=make_verdict("partly", "only the ordering is comparable"))
    >>> rep.verdict
    'partly: only the ordering is comparable'
    """

    name: str
    title: str
    tables: dict = field(default_factory=dict)
    figures: dict = field(default_factory=dict)
    text: str = ""
    verdict: str = ""


VERDICT_LEVELS = ("reproduced", "partly", "not reproduced")


def make_verdict(level: str, reason: str) -> str:
    """The one-line verdict of a study: ``"LEVEL: reason"``.

    Parameters
    ----------
    level : {"reproduced", "partly", "not reproduced"}
        How much of the paper's headline result the study reproduces.
    reason : str
        Why, in one sentence (what matches, what does not, what could not be
        compared).

    Examples
    --------
    >>> from statlearn.studies import make_verdict
    >>> make_verdict("reproduced", "coverage within Monte Carlo error of k/(n+1)")
    'reproduced: coverage within Monte Carlo error of k/(n+1)'
    """
    check_option(level, "level", VERDICT_LEVELS)
    reason = " ".join(str(reason).split())
    if not reason:
        raise ValueError("reason must say why the verdict is what it is; got an empty string.")
    return f"{level}: {reason}"


@dataclass(frozen=True)
class Study:
    """A registered study: a function ``StudyContext -> StudyReport`` with metadata."""

    name: str
    title: str
    func: Callable
    paper: str = ""

    def run(self, ctx: StudyContext | None = None) -> StudyReport:
        """Run the study under ``ctx`` (quick defaults when ``None``)."""
        report = self.func(ctx or StudyContext())
        if not isinstance(report, StudyReport):
            raise TypeError(f"study {self.name!r} must return a StudyReport.")
        return report


def register_study(name: str, *, title: str, paper: str = ""):
    """Decorator adding a study function to the registry under ``name``.

    Examples
    --------
    >>> from statlearn.studies import register_study, StudyReport
    >>> @register_study("doc-example", title="A doctest study")
    ... def _demo(ctx):
    ...     return StudyReport(name="doc-example", title="A doctest study")
    >>> from statlearn.studies import get_study
    >>> get_study("doc-example").title
    'A doctest study'
    """

    def deco(func):
        registry = _registry()
        if name in registry and registry[name].func.__qualname__ != func.__qualname__:
            raise ValueError(f"a study named {name!r} is already registered.")
        registry[name] = Study(name=name, title=title, func=func, paper=paper)
        return func

    return deco


def _discover() -> None:
    import statlearn.studies as pkg

    for info in pkgutil.iter_modules(pkg.__path__):
        if not info.name.startswith("_"):
            importlib.import_module(f"statlearn.studies.{info.name}")


def available_studies() -> list[Study]:
    """All registered studies, sorted by name.

    Examples
    --------
    >>> from statlearn.studies import available_studies
    >>> "conformal-coverage" in [s.name for s in available_studies()]
    True
    """
    _discover()
    registry = _registry()
    return [registry[k] for k in sorted(registry) if not k.startswith("doc-")]


def get_study(name: str) -> Study:
    """Look a study up by name (``ValueError`` listing the names if unknown).

    Examples
    --------
    >>> from statlearn.studies import get_study
    >>> get_study("conformal-coverage").name
    'conformal-coverage'
    """
    _discover()
    registry = _registry()
    check_option(name, "study", sorted(registry))
    return registry[name]


def write_report(reports, out_dir, *, header: str = "") -> Path:
    """Write CSVs, PNGs and ``report.md`` for ``reports`` under ``out_dir``.

    Returns
    -------
    pathlib.Path
        Path of the Markdown report.
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    lines = ["# statlearn: reproduced studies", ""]
    if header:
        lines += [header, ""]
    reports = list(reports)
    if any(rep.verdict for rep in reports):
        lines += ["| study | verdict |", "|---|---|"]
        lines += [f"| `{rep.name}` | {(rep.verdict or 'no verdict').replace('|', '/')} |"
                  for rep in reports]
        lines += [""]
    for rep in reports:
        sub = out / rep.name
        sub.mkdir(exist_ok=True)
        lines += [f"## {rep.title}", "", f"Study `{rep.name}`.", ""]
        if rep.verdict:
            lines += [f"> **Verdict: {rep.verdict}**", ""]
        if rep.text:
            lines += [rep.text.strip(), ""]
        for tname, table in rep.tables.items():
            table.to_csv(sub / f"{tname}.csv", index=False)
            lines += [f"**{tname}** ([csv]({rep.name}/{tname}.csv))", "",
                      dataframe_to_markdown(table), ""]
        for fname, fig in rep.figures.items():
            fig.savefig(sub / f"{fname}.png", dpi=110, bbox_inches="tight")
            lines += [f"![{fname}]({rep.name}/{fname}.png)", ""]
    path = out / "report.md"
    path.write_text("\n".join(lines))
    return path


def run_studies(names, ctx: StudyContext, out_dir, log=print) -> Path:
    """Run the named studies (or ``["all"]``) and write the report."""
    studies = available_studies() if list(names) == ["all"] else [get_study(n) for n in names]
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    reports, timing = [], []
    for study in studies:
        t0 = time.perf_counter()
        log(f"running {study.name} ({'quick' if ctx.quick else 'full'}) ...")
        rep = study.run(ctx)
        dt = time.perf_counter() - t0
        timing.append(f"`{study.name}`: {dt:.1f} s")
        log(f"  done in {dt:.1f} s")
        reports.append(rep)
    size = "quick" if ctx.quick else "full"
    header = (f"Size: {size}; seed {ctx.random_state}; backend {ctx.backend or 'default'}. "
              f"Run times: {', '.join(timing)}.")
    path = write_report(reports, out_dir, header=header)
    for rep in reports:
        for fig in rep.figures.values():
            plt.close(fig)
    return path

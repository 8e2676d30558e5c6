"""Command line: ``statlearn list`` and ``statlearn reproduce NAME|all``."""

from __future__ import annotations

import argparse
import contextlib
import sys
from pathlib import Path

__all__ = ["main"]

_EXAMPLES = """\
examples:
  statlearn list
  statlearn reproduce socop --quick                 # one study, reduced size
  statlearn reproduce all --quick --out results     # every study, one report
  statlearn reproduce all --n-jobs 2                # full size on two workers
  statlearn reproduce all --backend dask --scheduler tcp://host:8786

Runs are stored per replication (by default in OUT/runs-SIZE-seedSEED-CODE.sqlite,
where CODE identifies the installed statlearn source), so an interrupted run
resumes where it stopped when the same command is given again.
"""


def _version() -> str:
    from . import __version__

    return __version__


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="statlearn",
                                description="Run the studies that reproduce the papers "
                                            "implemented in statlearn.",
                                epilog=_EXAMPLES,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--version", action="version", version=f"statlearn {_version()}")
    sub = p.add_subparsers(dest="command")
    sub.add_parser("list", help="list the registered studies")
    r = sub.add_parser("reproduce", help="run studies and write a Markdown report",
                       epilog=_EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter)
    r.add_argument("names", nargs="+", metavar="NAME", help="study names, or 'all'")
    r.add_argument("--quick", action="store_true", help="reduced size (minutes)")
    r.add_argument("--n-jobs", type=int, default=None, help="parallel workers")
    r.add_argument("--backend", default=None,
                   choices=["sequential", "loky", "threading", "dask"])
    r.add_argument("--scheduler", default=None,
                   help="address of a dask.distributed scheduler (implies --backend dask)")
    r.add_argument("--out", default="results", help="output folder (default: results)")
    r.add_argument("--store", default=None,
                   help="SQLite file to persist and resume runs "
                        "(default: OUT/runs-SIZE-seedSEED-CODE.sqlite, CODE a hash of "
                        "statlearn's source, so edited code never resumes old results)")
    r.add_argument("--no-store", action="store_true",
                   help="do not persist runs (an interrupted run starts over)")
    r.add_argument("--seed", type=int, default=0, help="root random seed (default 0)")
    prog = r.add_mutually_exclusive_group()
    prog.add_argument("--progress", dest="progress", action="store_true", default=None,
                      help="show progress bars (default: on when stderr is a terminal)")
    prog.add_argument("--no-progress", dest="progress", action="store_false",
                      help="hide progress bars")
    return p


def _code_fingerprint() -> str:
    """Short hash of statlearn's own source files.

    The default store is named with it, so that results computed by other code
    (an edited study or method) are never resumed into a new report.
    """
    import hashlib

    root = Path(__file__).resolve().parent
    h = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        h.update(str(path.relative_to(root)).encode())
        h.update(path.read_bytes())
    return h.hexdigest()[:10]


def _error(msg: str) -> int:
    print(f"error: {msg}", file=sys.stderr)
    return 2


def _check_arguments(args):
    """Refuse bad arguments before any work starts; return the studies to run."""
    from .studies import available_studies, get_study

    names = list(args.names)
    if "all" in names and len(names) > 1:
        raise ValueError("'all' cannot be combined with other names")
    if len(set(names)) != len(names):
        raise ValueError(f"a study is named twice in {names}")
    studies = available_studies() if names == ["all"] else [get_study(n) for n in names]
    if args.n_jobs is not None and (args.n_jobs == 0 or args.n_jobs < -1):
        raise ValueError(f"--n-jobs must be a positive number of workers or -1 (every "
                         f"core), got {args.n_jobs}")
    if args.scheduler and args.backend not in (None, "dask"):
        raise ValueError("--scheduler needs --backend dask")
    if args.store and args.no_store:
        raise ValueError("--store and --no-store cannot be combined")
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise ValueError(f"--out {args.out!r} exists and is not a folder")
    return studies


def main(argv=None) -> int:
    """Entry point of the ``statlearn`` console script and ``python -m statlearn``.

    Parameters
    ----------
    argv : list of str or None
        Command-line arguments (``sys.argv[1:]`` when ``None``).

    Returns
    -------
    int
        Exit status: 0 on success, 2 for bad arguments, 130 when interrupted.

    Examples
    --------
    >>> from statlearn.cli import main
    >>> import contextlib, io
    >>> out = io.StringIO()
    >>> with contextlib.redirect_stdout(out):
    ...     code = main(["list"])
    >>> code, "conformal-coverage" in out.getvalue()
    (0, True)
    """
    parser = _parser()
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    if args.command is None:
        parser.print_help()
        return 0
    from .studies import StudyContext, available_studies, run_studies

    if args.command == "list":
        for s in available_studies():
            print(f"{s.name:24s} {s.title}")
        return 0
    try:
        studies = _check_arguments(args)
    except ValueError as exc:
        return _error(str(exc))
    backend = args.backend
    ctx_client = contextlib.nullcontext()
    if args.scheduler:
        from .utils import import_optional

        distributed = import_optional("distributed", extra="dask", purpose="--scheduler")
        ctx_client = distributed.Client(args.scheduler)
        backend = "dask"
    size = "quick" if args.quick else "full"
    store = args.store
    if store is None and not args.no_store:
        Path(args.out).mkdir(parents=True, exist_ok=True)
        name = f"runs-{size}-seed{args.seed}-{_code_fingerprint()}.sqlite"
        store = str(Path(args.out) / name)
    progress = sys.stderr.isatty() if args.progress is None else args.progress
    ctx = StudyContext(quick=args.quick, n_jobs=args.n_jobs, backend=backend, store=store,
                       random_state=args.seed, progress=progress)
    try:
        with ctx_client:
            path = run_studies([s.name for s in studies], ctx, args.out)
    except KeyboardInterrupt:
        print("\ninterrupted.", file=sys.stderr)
        if store is not None:
            print(f"Finished replications are kept in {store}; run the same command again "
                  "to resume where it stopped.", file=sys.stderr)
        else:
            print("Nothing was stored (--no-store); a new run starts over.", file=sys.stderr)
        return 130
    except ValueError as exc:
        return _error(str(exc))
    print(f"report written to {path}")
    return 0

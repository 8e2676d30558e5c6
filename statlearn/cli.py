"""Command line: ``statlearn list`` and ``statlearn reproduce NAME|all``."""

from __future__ import annotations

import argparse
import contextlib
import sys

__all__ = ["main"]


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="statlearn", description="statlearn studies")
    sub = p.add_subparsers(dest="command", required=True)
    sub.add_parser("list", help="list the registered studies")
    r = sub.add_parser("reproduce", help="run studies and write a Markdown report")
    r.add_argument("names", nargs="+", metavar="NAME", help="study names, or 'all'")
    r.add_argument("--quick", action="store_true", help="reduced size (minutes)")
    r.add_argument("--n-jobs", type=int, default=None, help="parallel workers")
    r.add_argument("--backend", default=None,
                   choices=["sequential", "loky", "threading", "dask"])
    r.add_argument("--scheduler", default=None,
                   help="address of a dask.distributed scheduler (implies --backend dask)")
    r.add_argument("--out", default="results", help="output folder (default: results)")
    r.add_argument("--store", default=None, help="SQLite file to persist and resume runs")
    r.add_argument("--seed", type=int, default=0, help="root random seed (default 0)")
    r.add_argument("--progress", action="store_true", help="show progress bars")
    return p


def main(argv=None) -> int:
    """Entry point of the ``statlearn`` console script and ``python -m statlearn``.

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
    args = _parser().parse_args(argv)
    from .studies import StudyContext, available_studies, run_studies

    if args.command == "list":
        for s in available_studies():
            print(f"{s.name:24s} {s.title}")
        return 0
    names = args.names
    if "all" in names and len(names) > 1:
        print("error: 'all' cannot be combined with other names", file=sys.stderr)
        return 2
    backend = args.backend
    ctx_client = contextlib.nullcontext()
    if args.scheduler:
        if backend not in (None, "dask"):
            print("error: --scheduler needs --backend dask", file=sys.stderr)
            return 2
        from .utils import import_optional

        distributed = import_optional("distributed", extra="dask", purpose="--scheduler")
        ctx_client = distributed.Client(args.scheduler)
        backend = "dask"
    ctx = StudyContext(quick=args.quick, n_jobs=args.n_jobs, backend=backend, store=args.store,
                       random_state=args.seed, progress=args.progress)
    try:
        with ctx_client:
            path = run_studies(names, ctx, args.out)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"report written to {path}")
    return 0

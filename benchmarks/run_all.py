"""Run every benchmark in this folder (``bench_*.py``) in quick mode, one after another.

Usage: ``python benchmarks/run_all.py [--full]``. Each benchmark prints its own
table of timings and speed ratios against the peer a user would otherwise pick.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from _cli import parser


def main(argv=None) -> int:
    p = parser(__doc__)
    p.add_argument("--full", action="store_true",
                   help="run every benchmark at its full size (default: --quick)")
    full = p.parse_args(argv).full
    here = Path(__file__).resolve().parent
    failed = []
    for path in sorted(here.glob("bench_*.py")):
        print(f"\n=== {path.name} ===", flush=True)
        cmd = [sys.executable, str(path)] + ([] if full else ["--quick"])
        if subprocess.run(cmd).returncode != 0:
            failed.append(path.name)
    if failed:
        print(f"\nfailed: {', '.join(failed)}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

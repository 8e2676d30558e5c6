"""Run every benchmark in this folder (``bench_*.py``) in quick mode, one after another.

Usage: ``python benchmarks/run_all.py [--full]``. Each benchmark prints its own
table of timings and speed ratios against the peer a user would otherwise pick.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    full = "--full" in argv
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

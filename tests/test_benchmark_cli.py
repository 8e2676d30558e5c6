"""Every benchmark script reads named flags only: ``--help`` prints its usage and
stops, an unknown flag is an error, and each takes the ``--quick`` that
``run_all.py`` passes to it. (Scripts that looked for ``"--quick" in sys.argv``
ran the full benchmark on a misspelt flag and on ``--help``.)"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = sorted((ROOT / "benchmarks").glob("bench_*.py")) + [ROOT / "benchmarks" / "run_all.py"]


def _run(path, *args):
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    return subprocess.run([sys.executable, str(path), *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("path", SCRIPTS, ids=lambda p: p.name)
def test_help_prints_the_usage_and_runs_nothing(path):
    proc = _run(path, "--help")
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.startswith("usage:"), proc.stdout[:500]
    assert "--quick" in proc.stdout or path.name == "run_all.py"


@pytest.mark.parametrize("path", SCRIPTS, ids=lambda p: p.name)
def test_an_unknown_flag_is_refused(path):
    proc = _run(path, "--quik")
    assert proc.returncode == 2, (proc.returncode, proc.stdout[-500:])
    assert "unrecognized arguments: --quik" in proc.stderr

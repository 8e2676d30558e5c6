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


def _bench_unlearning():
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import bench_unlearning
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    return bench_unlearning


@pytest.mark.parametrize("argv, message", [
    (["--rounds", "3"], "--rounds repeats --requests or --grid only"),
    (["--fit", "--rounds", "2"], "--rounds repeats --requests or --grid only"),
    (["--requests", "--rounds", "0"], "--rounds must be at least 1, got 0"),
    (["--grid", "--rounds", "-2"], "--rounds must be at least 1, got -2"),
    (["--requests", "--rounds", "two"], "invalid int value: 'two'"),
])
def test_unlearning_rounds_are_refused_where_they_repeat_nothing(argv, message, capsys):
    bench = _bench_unlearning()
    with pytest.raises(SystemExit) as exc:
        bench._parse(argv)
    assert exc.value.code == 2
    assert message in capsys.readouterr().err
    assert bench._parse(["--requests", "--rounds", "4"]).rounds == 4
    assert bench._parse(["--grid"]).rounds == 1


def test_unlearning_round_summary_takes_min_median_max_per_size():
    bench = _bench_unlearning()
    runs = {(2000, 2000): [{"x on": r, "x off": 2 * r, "verify": 0.004 + 0.001 * r,
                            "refit": 0.1} for r in (21.0, 14.5, 18.0)],
            (100_000, 200): [{"x on": 15.0, "x off": 90.0, "verify": 0.0095,
                              "refit": 0.15} for _ in range(3)]}
    lines = bench._round_summary(runs).splitlines()
    assert lines[0].startswith("over 3 rounds")
    row = lines[2].split()
    assert row[:2] == ["2000", "2000"]
    # x on: 14.5 / 18.0 / 21.0 (the median, not the mean 17.8, nor the first round)
    assert row[2:7] == ["14.5", "/", "18.0", "/", "21.0"]
    assert row[7:12] == ["29.0", "/", "36.0", "/", "42.0"]
    # times in ms: verify 18.5 / 22.0 / 25.0
    assert row[12:17] == ["18.5", "/", "22.0", "/", "25.0"]
    assert lines[3].split()[:7] == ["100000", "200", "15.0", "/", "15.0", "/", "15.0"]

"""The sampling option of the mutation-testing scripts (``mutation/run.py --sample``).

Checks that the sample is a seeded, reproducible draw without replacement that
does not depend on the order of the names, and that the report's interval is
the exact binomial (Clopper-Pearson) one, against its closed forms at the
edges (``k = 0``: upper end ``1 - (a/2)^(1/n)``; ``k = n``: lower end
``(a/2)^(1/n)``) and against the binomial tail probabilities it inverts.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest
from scipy.stats import binom

ROOT = Path(__file__).resolve().parents[1]


def _load(name):
    path = ROOT / "mutation" / f"{name}.py"
    if not path.exists():
        pytest.skip("mutation scripts are not part of this tree")
    sys.path.insert(0, str(path.parent))
    try:
        spec = importlib.util.spec_from_file_location(f"_mutation_{name}", path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
    finally:
        sys.path.remove(str(path.parent))
    return mod


run = _load("run")
report = _load("report")

NAMES = [f"pkg.mod.x_f__mutmut_{i}" for i in range(1, 301)]


def test_sample_is_seeded_without_replacement_and_order_free():
    a = run.draw_sample(NAMES, 40, 0)
    assert len(a) == 40 == len(set(a)) and set(a) <= set(NAMES)
    assert a == sorted(a)
    assert run.draw_sample(list(reversed(NAMES)), 40, 0) == a  # order of the names is irrelevant
    assert run.draw_sample(NAMES, 40, 0) == a
    assert run.draw_sample(NAMES, 40, 1) != a
    assert set(a) < set(run.draw_sample(NAMES, 80, 0))  # a larger sample extends it
    assert run.draw_sample(NAMES, 300, 5) == sorted(NAMES)
    assert run.draw_sample(NAMES, 1000, 5) == sorted(NAMES)
    with pytest.raises(ValueError, match="sample size must be >= 1"):
        run.draw_sample(NAMES, 0, 0)


def test_sample_is_uniform_over_names():
    # every name is drawn with probability 40/300 per seed: over 600 seeds each count is
    # Binomial(600, 2/15), mean 80, sd 8.3; a draw that favoured the first names (or
    # dropped the last) would push some count outside 80 +- 6 sd (false alarm < 1e-6 in all)
    counts = dict.fromkeys(NAMES, 0)
    for seed in range(600):
        for name in run.draw_sample(NAMES, 40, seed):
            counts[name] += 1
    assert min(counts.values()) > 80 - 6 * 8.33 and max(counts.values()) < 80 + 6 * 8.33


@pytest.mark.parametrize("n", [1, 10, 150])
def test_clopper_pearson_closed_forms_at_the_edges(n):
    lo, hi = report.clopper_pearson(0, n)
    assert lo == 0.0 and hi == pytest.approx(1 - 0.025 ** (1 / n), rel=1e-10)
    lo, hi = report.clopper_pearson(n, n)
    assert hi == 1.0 and lo == pytest.approx(0.025 ** (1 / n), rel=1e-10)


@pytest.mark.parametrize("k, n", [(1, 10), (90, 100), (140, 150), (75, 150)])
def test_clopper_pearson_inverts_the_binomial_tails(k, n):
    lo, hi = report.clopper_pearson(k, n)
    assert 0 < lo < k / n < hi < 1
    # P(X >= k | lo) = 2.5% and P(X <= k | hi) = 2.5%
    assert binom.sf(k - 1, n, lo) == pytest.approx(0.025, rel=1e-8)
    assert binom.cdf(k, n, hi) == pytest.approx(0.025, rel=1e-8)
    assert report.clopper_pearson(k, 0) == (0.0, 1.0)


def test_report_counts_within_the_sample(tmp_path, monkeypatch):
    monkeypatch.setattr(report, "SCRATCH", tmp_path)
    spec = {"path": "statlearn/m.py"}
    ws = report.workspace("m")
    (ws / "mutants" / "statlearn").mkdir(parents=True)
    codes = {f"statlearn.m.x_f__mutmut_{i}": None for i in range(1, 21)}
    sample = sorted(codes)[:8]
    for i, key in enumerate(sample):
        codes[key] = 1 if i < 6 else 33  # six killed, two with no test
    (ws / "mutants" / "statlearn" / "m.py.meta").write_text(
        json.dumps({"exit_code_by_key": codes}), encoding="utf-8")
    (ws / report.SAMPLE_FILE).write_text(
        json.dumps({"seed": 3, "size": 8, "population": 20, "mutants": sample}),
        encoding="utf-8")
    row, _ = report.module_summary("m", spec, {})
    assert (row["mutants"], row["sampled"], row["checked"], row["killed"]) == (20, 8, 8, 6)
    assert (row["survived"], row["no tests"], row["unchecked"]) == (0, 2, 0)
    assert row["score"] == pytest.approx(75.0)
    assert row["run"] == "sample 8 (seed 3)"
    lo, hi = report.clopper_pearson(6, 8)
    assert row["interval"] == pytest.approx((100 * lo, 100 * hi))
    # without the sample file the same meta is a run over all 20 with 12 unchecked
    (ws / report.SAMPLE_FILE).unlink()
    row, _ = report.module_summary("m", spec, {})
    assert (row["run"], row["checked"], row["unchecked"], row["interval"]) == ("all", 8, 12, None)

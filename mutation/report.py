"""Per-module mutation table from the mutmut runs of ``mutation/run.py``.

Reads ``.mutation/<module>/mutants/<path>.meta`` (mutmut's verdict per mutant)
and ``mutation/equivalent.toml`` (surviving mutants judged equivalent, each with
its mutated line and the reason), prints the table, lists the surviving and the
equivalent mutants with their diffs, and writes it all to ``.mutation/report.md``.

Columns: ``mutants`` generated, ``run`` (``complete``, or ``sample N`` when
``run.py --sample`` tested a seeded uniform sample of ``N`` of them; the
following columns then count within the sample), ``checked`` (given a
verdict), ``killed`` (a test failed or timed out), ``survived`` (all tests
passed and not listed as equivalent), ``equivalent`` (survived and listed),
``no tests`` (no selected test calls the function), ``unchecked`` (not reached
before the time box).  The score is ``killed / (checked - equivalent)``: the
share of the checked, non-equivalent mutants that the tests kill.  For a
complete run it is exact; for a sample it estimates the module's score and the
report adds the Clopper-Pearson (exact binomial) 95% interval.  An equivalent
entry whose recorded line no longer matches the mutant's diff is stale and
counts as survived.

Usage: ``python mutation/report.py [--baseline] [module ...]``.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
SCRATCH = ROOT / ".mutation"

KILLED = {1, 3, 36, 24, -24, 152, 255, 37}
SURVIVED = {0}
NO_TESTS = {5, 33}
UNCHECKED = {None, 2, 34}
SAMPLE_FILE = "sample.json"

_DIFFS = r"""
import json, sys
from mutmut.mutation.diff_apply import get_diff_for_mutant
out = {}
for name in json.loads(sys.stdin.read()):
    try:
        out[name] = get_diff_for_mutant(name)
    except Exception as exc:  # a mutant that vanished from the sources
        out[name] = f"(no diff: {exc})"
print(json.dumps(out))
"""


def load_modules():
    with open(HERE / "modules.toml", "rb") as fh:
        return tomllib.load(fh)["modules"]


def load_equivalents():
    path = HERE / "equivalent.toml"
    if not path.exists():
        return {}
    with open(path, "rb") as fh:
        data = tomllib.load(fh)
    return {entry["mutant"]: entry for entry in data.get("equivalent", [])}


def workspace(name, baseline=False):
    """Scratch folder of one module's run (``baseline``: without its mutant tests)."""
    return (SCRATCH / "baseline" / name) if baseline else (SCRATCH / name)


def load_sample(ws):
    """The sample recorded by ``run.py --sample`` in ``ws``, or None (a complete run)."""
    path = Path(ws) / SAMPLE_FILE
    if not path.exists():
        return None
    return json.loads(path.read_text(encoding="utf-8"))


def exit_codes(ws, spec):
    """mutmut's verdict (exit code, None if untested) of every mutant, or None."""
    meta = Path(ws) / "mutants" / (spec["path"] + ".meta")
    if not meta.exists():
        return None
    return json.loads(meta.read_text(encoding="utf-8"))["exit_code_by_key"]


def clopper_pearson(k, n, level=0.95):
    """Exact binomial (Clopper-Pearson) interval for a proportion ``k / n``."""
    from scipy.stats import beta

    if n == 0:
        return (0.0, 1.0)
    tail = (1.0 - level) / 2.0
    lo = 0.0 if k == 0 else float(beta.ppf(tail, k, n - k + 1))
    hi = 1.0 if k == n else float(beta.ppf(1.0 - tail, k + 1, n - k))
    return lo, hi


def diffs_for(ws, names):
    """Unified diffs of the given mutants, computed by mutmut inside the workspace."""
    if not names:
        return {}
    res = subprocess.run([sys.executable, "-c", _DIFFS], cwd=ws, input=json.dumps(sorted(names)),
                         capture_output=True, text=True, check=False)
    out = json.loads(res.stdout) if res.returncode == 0 else {}
    mutmut = Path(sys.executable).with_name("mutmut")
    for name in names:
        if not out.get(name, "(no diff").startswith("(no diff"):
            continue
        # fall back on ``mutmut show`` (its first line is the verdict)
        shown = subprocess.run([str(mutmut), "show", name], cwd=ws, capture_output=True,
                               text=True, check=False)
        lines = shown.stdout.splitlines()
        out[name] = "\n".join(lines[1:]) if shown.returncode == 0 and lines else \
            f"(no diff: {shown.stderr.strip()[-200:]})"
    return out


def _added_lines(diff):
    return [line[1:].strip() for line in diff.splitlines()
            if line.startswith("+") and not line.startswith("+++")]


def module_summary(name, spec, equivalents, baseline=False):
    ws = workspace(name, baseline)
    codes = exit_codes(ws, spec)
    if codes is None:
        return None
    population = len(codes)
    sample = load_sample(ws)
    if sample is not None:
        codes = {k: codes.get(k) for k in sample["mutants"]}
    survived = sorted(k for k, v in codes.items() if v in SURVIVED)
    listed = [k for k in survived if k in equivalents]
    diffs = diffs_for(ws, survived)
    equivalent, stale = [], []
    for key in listed:
        expected = equivalents[key]["line"].strip()
        (equivalent if expected in _added_lines(diffs[key]) else stale).append(key)
    row = {
        "module": name,
        "mutants": population,
        "run": "all" if sample is None else f"sample {len(codes)} (seed {sample['seed']})",
        "sampled": len(codes),
        "killed": sum(v in KILLED for v in codes.values()),
        "survived": len(survived) - len(equivalent),
        "equivalent": len(equivalent),
        "no tests": sum(v in NO_TESTS for v in codes.values()),
        "unchecked": sum(v in UNCHECKED for v in codes.values()),
    }
    other = len(codes) - sum(row[c] for c in
                             ("killed", "survived", "equivalent", "no tests", "unchecked"))
    row["unchecked"] += other  # suspicious or crashed verdicts: treat as not checked
    row["checked"] = len(codes) - row["unchecked"]
    scored = row["checked"] - row["equivalent"]
    row["score"] = 100.0 * row["killed"] / scored if scored else float("nan")
    if sample is None:
        row["interval"] = None
    else:
        lo, hi = clopper_pearson(row["killed"], scored)
        row["interval"] = (100.0 * lo, 100.0 * hi)
    details = {
        "survived": [(k, diffs[k]) for k in survived if k not in equivalent],
        "equivalent": [(k, equivalents[k]["reason"], diffs[k]) for k in equivalent],
        "stale": stale,
    }
    return row, details


COLUMNS = ("module", "mutants", "run", "checked", "killed", "survived", "equivalent",
           "no tests", "unchecked", "score", "95% interval")


def _cells(row):
    cells = [str(row[c]) for c in COLUMNS[:-2]] + [f"{row['score']:.1f}%"]
    if row["interval"] is None:
        cells.append("exact (complete run)" if row["unchecked"] == 0 else
                     "incomplete run (time box)")
    else:
        lo, hi = row["interval"]
        cells.append(f"{lo:.1f}-{hi:.1f}% (Clopper-Pearson)")
    return cells


def render(rows, details, missing, baseline=False):
    title = "# Mutation testing report" + (" (baseline: without the mutant tests)"
                                           if baseline else "")
    lines = [title, "",
             "score = killed / (checked - equivalent); a sampled module's columns count within "
             "its sample of the module's mutants (seeded uniform draw without replacement), "
             "its score estimates the module's score with the exact binomial 95% interval", "",
             "| " + " | ".join(COLUMNS) + " |",
             "|" + "|".join("---" for _ in COLUMNS) + "|"]
    for row in rows:
        lines.append("| " + " | ".join(_cells(row)) + " |")
    for name in missing:
        lines.append(f"| {name} | | not run |" + " |" * (len(COLUMNS) - 3))
    for name, det in details.items():
        if det["equivalent"]:
            lines += ["", f"## {name}: equivalent mutants", ""]
            for key, reason, diff in det["equivalent"]:
                lines += [f"- `{key}`: {reason}", "", "```diff", diff, "```", ""]
        if det["stale"]:
            lines += ["", f"## {name}: stale equivalent entries (line no longer matches)", ""]
            lines += [f"- `{key}`" for key in det["stale"]]
        if det["survived"]:
            lines += ["", f"## {name}: surviving mutants", ""]
            for key, diff in det["survived"]:
                lines += [f"- `{key}`", "", "```diff", diff, "```", ""]
    return "\n".join(lines) + "\n"


def main(selected=None, baseline=False):
    modules = load_modules()
    selected = list(selected) if selected else list(modules)
    equivalents = load_equivalents()
    rows, details, missing = [], {}, []
    for name in selected:
        out = module_summary(name, modules[name], equivalents, baseline)
        if out is None:
            missing.append(name)
            continue
        rows.append(out[0])
        details[name] = out[1]
    text = render(rows, details, missing, baseline)
    SCRATCH.mkdir(exist_ok=True)
    target = SCRATCH / ("report-baseline.md" if baseline else "report.md")
    target.write_text(text, encoding="utf-8")
    table_end = text.find("\n## ")
    print(text if table_end < 0 else text[:table_end])
    where = target.relative_to(ROOT)
    print(f"(full report with the surviving mutants' diffs: {where})")
    return 0


if __name__ == "__main__":
    args = sys.argv[1:]
    sys.exit(main([a for a in args if a != "--baseline"], baseline="--baseline" in args))

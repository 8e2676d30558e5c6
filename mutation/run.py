"""Run mutmut over the guarantee-carrying modules, one module at a time.

Each module gets its own scratch workspace ``.mutation/<module>/`` (or
``.mutation/baseline/<module>/`` with ``--baseline``) holding a copy
of ``statlearn/``, ``tests/`` and a ``pyproject.toml`` whose ``[tool.mutmut]``
table mutates only that module and runs only its focused tests (listed in
``mutation/modules.toml``).  mutmut writes its ``mutants/`` tree inside that
workspace, so nothing it generates lands in the repository or is collected by
pytest.  After the runs, the per-module table of ``mutation/report.py`` is
printed and written to ``.mutation/report.md``.

Usage (from the repository root)::

    python mutation/run.py                      # every module in modules.toml
    python mutation/run.py conformal._core._quantile  # selected modules
    python mutation/run.py --keep ...           # keep the killed mutants' verdicts and
                                                # test the others again (incremental)
    python mutation/run.py --baseline ...       # without the mutant-killing tests
    python mutation/run.py --max-children 2 ... # parallel mutant workers
    python mutation/run.py --sample 100 --sample-seed 0 conformal._classification._socop
                                                # a seeded uniform sample of the mutants

``--sample N`` draws ``N`` of the module's mutants uniformly without
replacement (seeded by ``--sample-seed``, from the sorted mutant names) and
tests only those; the sample is recorded in ``.mutation/<module>/sample.json``
and the report gives the score as an estimate with its Clopper-Pearson 95%
interval, next to the sample and population sizes.  A larger ``N`` with the
same seed extends the sample, so with ``--keep`` (where the mutants that are
already killed, and the survivors listed in ``equivalent.toml``, are not tested
again) a sample can be grown.

Mutation testing is slow and is not part of CI; ``make mutate`` runs this script.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
import tomllib
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
SCRATCH = ROOT / ".mutation"

sys.path.insert(0, str(HERE))
import report  # noqa: E402


def load_modules():
    with open(HERE / "modules.toml", "rb") as fh:
        return tomllib.load(fh)["modules"]


def _toml_list(items):
    return "[" + ", ".join(f'"{item}"' for item in items) + "]"


def selected_tests(spec, baseline):
    """The module's tests, plus its mutant-killing tests unless ``baseline``."""
    tests = list(spec["tests"])
    if not baseline:
        tests += spec.get("mutant_tests", [])
    return tests


def prepare_workspace(ws, spec, keep, tests):
    """Copy the sources and tests into the workspace ``ws`` with a mutmut config."""
    if ws.exists() and not keep:
        shutil.rmtree(ws)
    ws.mkdir(parents=True, exist_ok=True)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", ".hypothesis")
    for folder in ("statlearn", "tests"):
        target = ws / folder
        if target.exists():
            shutil.rmtree(target)
        shutil.copytree(ROOT / folder, target, ignore=ignore)
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    if "[tool.mutmut]" in pyproject:
        raise SystemExit("pyproject.toml must not carry its own [tool.mutmut] table; "
                         "the per-module tables are written by mutation/run.py.")
    config = "\n".join([
        "",
        "[tool.mutmut]",
        'source_paths = ["statlearn"]',
        f'only_mutate = ["{spec["path"]}"]',
        f"pytest_add_cli_args_test_selection = {_toml_list(tests)}",
        # derandomised hypothesis and no cache: a mutant's verdict must not
        # depend on the run order or on an earlier run's failures
        "pytest_add_cli_args = "
        + _toml_list(["--hypothesis-seed=0", "-p", "no:cacheprovider",
                      *spec.get("pytest_args", [])]),
        "use_git_change_detection = false",
        # a mutant is killed by timeout after (estimated test time + 1 s) * 2 * this
        # many CPU seconds (mutmut's default 15; lower it where mutants that hand
        # other dtypes to Numba recompile its kernels for minutes)
        f"timeout_multiplier = {float(spec.get('timeout_multiplier', 15.0))}",
        "",
    ])
    (ws / "pyproject.toml").write_text(pyproject + config, encoding="utf-8")
    if not keep and (ws / "mutants").exists():
        shutil.rmtree(ws / "mutants")
    return ws


_GENERATE = """
import json, os
from mutmut.__main__ import (copy_also_copy_files, copy_src_dir, create_mutants,
                             setup_source_paths, store_lines_covered_by_tests)
os.makedirs("mutants", exist_ok=True)
copy_src_dir(); copy_also_copy_files(); setup_source_paths(); store_lines_covered_by_tests()
create_mutants(1)
"""


def generate_mutants(ws, spec, env):
    """Let mutmut write the module's mutants in ``ws`` and return their sorted names."""
    res = subprocess.run([sys.executable, "-c", _GENERATE], cwd=ws, env=env,
                         capture_output=True, text=True, check=False)
    meta = ws / "mutants" / (spec["path"] + ".meta")
    if res.returncode != 0 or not meta.exists():
        raise SystemExit(f"mutmut could not generate the mutants of {spec['path']}:\n"
                         f"{res.stderr[-2000:]}")
    return sorted(json.loads(meta.read_text(encoding="utf-8"))["exit_code_by_key"])


def draw_sample(names, size, seed):
    """A uniform sample of ``size`` mutant names without replacement, seeded by ``seed``.

    The sorted names are shuffled by a generator seeded with ``seed`` and the
    first ``size`` taken, so the draw depends only on the names, the size and
    the seed (the same sources give the same sample on any machine), and a
    larger sample with the same seed extends a smaller one. Returned sorted.
    """
    names = sorted(names)
    if size < 1:
        raise ValueError(f"the sample size must be >= 1, got {size}.")
    random.Random(seed).shuffle(names)
    return sorted(names[:size])


def _still_to_test(names, codes):
    """With ``--keep``: the mutants not yet killed, less the survivors listed as equivalent."""
    listed = report.load_equivalents()
    return [k for k in names if codes.get(k) not in report.KILLED
            and not (codes.get(k) in report.SURVIVED and k in listed)]


def _stop(proc):
    """End mutmut and the test processes it forked (its own process group)."""
    os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


def run_module(name, spec, *, max_children, nice, keep, timeout, baseline, sample=None,
               sample_seed=0):
    tests = selected_tests(spec, baseline)
    ws = report.workspace(name, baseline)
    ws = prepare_workspace(ws, spec, keep, tests)
    if sample is None and (ws / report.SAMPLE_FILE).exists():
        (ws / report.SAMPLE_FILE).unlink()  # a complete run
    mutmut = Path(sys.executable).with_name("mutmut")
    cmd = [str(mutmut), "run", "--max-children", str(max_children)]
    if nice:
        cmd = ["nice", "-n", str(nice)] + cmd
    env = dict(os.environ)
    env.setdefault("STATLEARN_FAST", "1")
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    # mutmut forks one process per mutant; Numba's OpenMP threading layer does not
    # survive a fork (the child is killed by SIGTERM at exit, which mutmut reports
    # as "suspicious"), the work-queue layer does
    env["NUMBA_THREADING_LAYER"] = "workqueue"
    if sample is not None:
        names = generate_mutants(ws, spec, env)
        chosen = draw_sample(names, sample, sample_seed)
        (ws / report.SAMPLE_FILE).write_text(json.dumps(
            {"seed": sample_seed, "size": sample, "population": len(names),
             "mutants": chosen}, indent=1), encoding="utf-8")
        todo = chosen
        if keep:  # already killed mutants of the sample keep their verdict
            todo = _still_to_test(chosen, report.exit_codes(ws, spec) or {})
        print(f"== {name}: sample of {len(chosen)} of {len(names)} mutants (seed {sample_seed}), "
              f"{len(todo)} to test", flush=True)
        if not todo:
            return
        cmd += todo
    elif keep and report.exit_codes(ws, spec) is not None:
        # mutmut itself reruns only untested mutants; name the survivors too, so that
        # new tests get their chance (killed mutants keep their verdict)
        names = generate_mutants(ws, spec, env)
        codes = report.exit_codes(ws, spec) or {}
        todo = _still_to_test(names, codes)
        print(f"== {name}: {len(names) - len(todo)} of {len(names)} mutants already killed "
              "or listed as equivalent survivors, "
              f"{len(todo)} to test", flush=True)
        if not todo:
            return
        if len(todo) < len(names):
            cmd += todo
    log = ws / "mutmut.log"
    limit = timeout if timeout is not None else spec.get("timeout", 3600)
    print(f"== {name}: {spec['path']} against {' '.join(tests)} "
          f"(time box {limit} s, log {log.relative_to(ROOT)})", flush=True)
    start = time.monotonic()
    with open(log, "w", encoding="utf-8") as fh:
        proc = subprocess.Popen(cmd, cwd=ws, stdout=fh, stderr=subprocess.STDOUT, env=env,
                                start_new_session=True)
        try:
            rc = proc.wait(timeout=limit)
        except subprocess.TimeoutExpired:
            _stop(proc)
            rc = "time box reached"
        except KeyboardInterrupt:
            _stop(proc)
            raise
    print(f"   finished in {time.monotonic() - start:.0f} s (exit: {rc})", flush=True)


def main(argv=None):
    modules = load_modules()
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("modules", nargs="*", help=f"any of {', '.join(modules)} (default all)")
    parser.add_argument("--max-children", type=int, default=1,
                        help="mutants tested in parallel (default 1)")
    parser.add_argument("--nice", type=int, default=19,
                        help="niceness of the mutmut processes (0: no nice)")
    parser.add_argument("--keep", action="store_true",
                        help="keep the verdicts of killed mutants and test the others again")
    parser.add_argument("--timeout", type=int, default=None,
                        help="time box per module in seconds (default: modules.toml)")
    parser.add_argument("--baseline", action="store_true",
                        help="leave out the mutant_tests (the score before them)")
    parser.add_argument("--sample", type=int, default=None, metavar="N",
                        help="test a seeded uniform random sample of N mutants per module "
                             "(the report then gives an estimate with a 95%% interval)")
    parser.add_argument("--sample-seed", type=int, default=0, metavar="S",
                        help="seed of the sample (default 0)")
    parser.add_argument("--report-only", action="store_true",
                        help="only print the table of the last runs")
    args = parser.parse_args(argv)
    unknown = [m for m in args.modules if m not in modules]
    if args.sample is not None and args.sample < 1:
        parser.error(f"--sample must be >= 1, got {args.sample}")
    if unknown:
        parser.error(f"unknown module(s) {unknown}; choose from {list(modules)}")
    selected = args.modules or list(modules)
    if not args.report_only:
        for name in selected:
            run_module(name, modules[name], max_children=args.max_children, nice=args.nice,
                       keep=args.keep, timeout=args.timeout, baseline=args.baseline,
                       sample=args.sample, sample_seed=args.sample_seed)
    return report.main(selected, baseline=args.baseline)


if __name__ == "__main__":
    sys.exit(main())

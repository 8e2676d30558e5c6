"""Monte Carlo study runner: settings x replications through joblib (or Dask)."""

from __future__ import annotations

import contextlib
import itertools
import json
import math
import numbers
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import joblib
import numpy as np
import pandas as pd

from ..utils import check_int, check_option, normal_interval
from ..utils._results import compact_repr
from ._store import StudyStore

__all__ = ["SimulationResult", "SimulationWarning", "run_study", "expand_grid"]

BACKENDS = ("sequential", "loky", "threading", "dask")


def expand_grid(grid) -> list[dict]:
    """Turn a grid specification into a list of settings (dicts).

    Parameters
    ----------
    grid : None, mapping of str to sequence, or sequence of mappings
        A mapping is expanded as a Cartesian product in key order (the last
        key varies fastest); a sequence of mappings is taken as the explicit
        list of settings; ``None`` means one empty setting.

    Returns
    -------
    list of dict

    Examples
    --------
    >>> from statlearn.simulation import expand_grid
    >>> expand_grid({"n": [10, 20], "alpha": [0.1]})
    [{'n': 10, 'alpha': 0.1}, {'n': 20, 'alpha': 0.1}]
    """
    if grid is None:
        return [{}]
    if isinstance(grid, Mapping):
        keys = list(grid)
        values = []
        for k in keys:
            v = grid[k]
            if isinstance(v, str | bytes) or not isinstance(v, Sequence | np.ndarray):
                raise TypeError(
                    f"grid[{k!r}] must be a sequence of values, got {type(v).__name__}."
                )
            if len(v) == 0:
                raise ValueError(f"grid[{k!r}] must not be empty.")
            values.append(list(v))
        return [dict(zip(keys, combo)) for combo in itertools.product(*values)]
    if isinstance(grid, Sequence) and not isinstance(grid, str | bytes):
        settings = list(grid)
        if not settings:
            raise ValueError("grid must hold at least one setting.")
        for i, s in enumerate(settings):
            if not isinstance(s, Mapping):
                raise TypeError(f"grid[{i}] must be a mapping, got {type(s).__name__}.")
        return [dict(s) for s in settings]
    raise TypeError(
        "grid must be None, a mapping of parameter -> values, or a list of settings; "
        f"got {type(grid).__name__}."
    )


def _to_builtin(value, key):
    if type(value) in (int, float, str, bool):  # the common case, without ABC checks
        return value
    if isinstance(value, bool | np.bool_):
        return bool(value)
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        return float(value)
    if isinstance(value, str):
        return value
    if isinstance(value, np.ndarray) and value.ndim == 0:
        return _to_builtin(value.item(), key)
    raise TypeError(
        f"the study function must return a dict of scalars; output {key!r} is "
        f"{type(value).__name__}."
    )


def _run_one(fn, setting, entropy, index, rep):
    """One replication: its own generator from (entropy, setting index, rep)."""
    seq = np.random.SeedSequence(entropy, spawn_key=(index, rep))
    rng = np.random.default_rng(seq)
    out = fn(dict(setting), rng)
    if not isinstance(out, Mapping):
        raise TypeError(
            f"the study function must return a dict of scalars, got {type(out).__name__}."
        )
    return index, rep, {str(k): _to_builtin(v, k) for k, v in out.items()}


def _jsonable(obj):
    try:
        return json.loads(json.dumps(obj, sort_keys=True))
    except TypeError:
        return repr(obj)


@contextlib.contextmanager
def _dask_client(n_jobs):
    """Yield a Dask client: the active one, or a temporary LocalCluster."""
    from ..utils import import_optional

    distributed = import_optional("distributed", extra="dask", purpose="backend='dask'")
    try:
        client = distributed.get_client()
    except ValueError:
        client = None
    if client is not None:
        yield client
        return
    n_workers = 2 if n_jobs in (None, -1) else max(1, n_jobs)
    with distributed.LocalCluster(
        n_workers=n_workers, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster, distributed.Client(cluster) as client:
        yield client


@dataclass(frozen=True)
class SimulationResult:
    """Outcome of :func:`run_study`.

    Attributes
    ----------
    table : pandas.DataFrame
        One row per (setting, replication): the column ``setting`` (index
        into ``settings``), the setting's parameters, ``rep`` and the
        function's outputs; sorted by ``setting`` then ``rep``.
    settings : list of dict
        The expanded grid.
    n_reps : int
        Replications per setting.
    entropy : int
        Root entropy of the seed tree; replication ``r`` of setting ``i`` used
        ``SeedSequence(entropy, spawn_key=(i, r))``.
    name : str
        Study name (the table name in a store).
    """

    table: pd.DataFrame
    settings: list
    n_reps: int
    entropy: int
    name: str

    __repr__ = compact_repr

    @property
    def metrics(self) -> list[str]:
        """Names of the outputs of the study function."""
        skip = {k for s in self.settings for k in s} | {"setting", "rep"}
        return [c for c in self.table.columns.tolist() if c not in skip]

    def summary(self, confidence_level: float = 0.95) -> pd.DataFrame:
        """Mean, standard error and normal CI of each numeric output per setting.

        Missing (NaN) values are left out of a metric's mean (``n_obs`` says
        how many remain) and non-numeric outputs are not summarised; both are
        reported with a :class:`SimulationWarning`.

        Returns
        -------
        pandas.DataFrame
            Long format: the setting's parameters, ``metric``, ``mean``,
            ``se``, ``ci_low``, ``ci_high`` and ``n_obs`` (replications with a
            non-missing value).
        """
        _warn_dropped(self.table, self.metrics, "summary")
        params = [k for k in self.settings[0]] if self.settings else []
        rows = []
        for i, setting in enumerate(self.settings):
            sub = self.table[self.table["setting"] == i]
            for m in self.metrics:
                col = sub[m]
                if not (pd.api.types.is_numeric_dtype(col) or pd.api.types.is_bool_dtype(col)):
                    continue
                x = col.to_numpy(dtype=float)
                x = x[~np.isnan(x)]
                n = x.size
                mean = float(x.mean()) if n else math.nan
                se = float(x.std(ddof=1) / math.sqrt(n)) if n > 1 else math.nan
                lo, hi = normal_interval(mean, se, confidence_level)
                rows.append({**setting, "metric": m, "mean": mean, "se": se,
                             "ci_low": lo, "ci_high": hi, "n_obs": n})
        cols = params + ["metric", "mean", "se", "ci_low", "ci_high", "n_obs"]
        return pd.DataFrame(rows, columns=cols)

    def plot(self, metric: str, x: str, hue: str | None = None, ax=None,
             confidence_level: float = 0.95):
        """Plot the mean of ``metric`` against parameter ``x`` with CI error bars.

        Parameters
        ----------
        metric : str
            One of :attr:`metrics`.
        x : str
            Grid parameter on the horizontal axis.
        hue : str, optional
            Grid parameter giving one line per value.
        ax : matplotlib.axes.Axes, optional
            Axes to draw on; a new figure is made if ``None``.
        confidence_level : float, default=0.95
            Level of the error bars.

        Returns
        -------
        matplotlib.axes.Axes
        """
        import matplotlib.pyplot as plt

        check_option(metric, "metric", self.metrics)
        params = list(self.settings[0]) if self.settings else []
        check_option(x, "x", params)
        if hue is not None:
            check_option(hue, "hue", params)
        if ax is None:
            _, ax = plt.subplots(figsize=(5, 3.5))
        summ = self.summary(confidence_level)
        summ = summ[summ["metric"] == metric]
        groups = [(None, summ)] if hue is None else list(summ.groupby(hue, sort=True))
        for key, g in groups:
            g = g.sort_values(x)
            ax.errorbar(g[x], g["mean"], yerr=[g["mean"] - g["ci_low"], g["ci_high"] - g["mean"]],
                        marker="o", capsize=3, label=None if key is None else f"{hue}={key}")
        ax.set_xlabel(x)
        ax.set_ylabel(metric)
        if hue is not None:
            ax.legend(fontsize="small")
        return ax


def run_study(
    fn: Callable[[dict, np.random.Generator], Mapping[str, Any]],
    grid=None,
    n_reps: int = 100,
    random_state: int | None = 0,
    n_jobs: int | None = None,
    backend: str | None = None,
    progress: bool = True,
    store=None,
    name: str | None = None,
) -> SimulationResult:
    """Run ``fn`` for every setting of ``grid`` and ``n_reps`` replications.

    Every (setting, replication) pair gets its own random stream,
    ``SeedSequence(entropy, spawn_key=(setting_index, rep))``, so the table
    is bit-identical for any ``n_jobs`` and any backend, and does not depend
    on scheduling order.

    Parameters
    ----------
    fn : callable
        ``fn(setting, rng) -> dict`` of scalar outputs, where ``setting`` is a
        dict of parameters and ``rng`` a :class:`numpy.random.Generator`. It
        must be picklable for process-based backends (a module-level function).
    grid : None, mapping or sequence of mappings
        Settings, see :func:`expand_grid`.
    n_reps : int, default=100
        Replications per setting (>= 1).
    random_state : int or None, default=0
        Root entropy. ``None`` draws fresh entropy (reported in the result);
        with a ``store`` holding this study, ``None`` reuses the stored one.
    n_jobs : int or None, default=None
        Number of parallel workers (joblib semantics; ``-1`` means all cores).
    backend : {"sequential", "loky", "threading", "dask"} or None
        joblib backend (``"multiprocessing"`` is not offered: it cannot stream
        results back, which per-replication storage needs). ``None`` uses the
        active :func:`joblib.parallel_config`
        (so ``with joblib.parallel_config(backend="dask")`` and a
        ``dask.distributed.Client`` sends replications to that cluster).
        ``"dask"`` uses the current Dask client, or starts a temporary local
        cluster with ``n_jobs`` workers.
    progress : bool, default=True
        Show a tqdm progress bar on the driver.
    store : str or path-like, optional
        SQLite file. Each finished replication is written at once; a rerun
        computes only what is missing. A store holding a study of the same
        ``name`` with another function, grid or seed is refused.
    name : str, optional
        Study name, used as the store's table; defaults to ``fn``'s name.

    Returns
    -------
    SimulationResult

    Examples
    --------
    >>> from statlearn.simulation import run_study
    >>> def draw(setting, rng):
    ...     x = rng.normal(setting["mu"], 1.0, size=50)
    ...     return {"mean": x.mean()}
    >>> res = run_study(draw, {"mu": [0.0, 1.0]}, n_reps=20, random_state=1, progress=False)
    >>> res.table.shape
    (40, 4)
    >>> res.summary()[["mu", "metric", "n_obs"]]
        mu metric  n_obs
    0  0.0   mean     20
    1  1.0   mean     20
    """
    if not callable(fn):
        raise TypeError(f"fn must be callable, got {type(fn).__name__}.")
    settings = expand_grid(grid)
    reserved = {"setting", "rep", "metric", "mean", "se", "ci_low", "ci_high", "n_obs"}
    clash = sorted(reserved.intersection(*[set(s) for s in settings[:1]]))
    if clash:
        raise ValueError(f"grid parameter names {clash} are reserved; rename them.")
    n_reps = check_int(n_reps, "n_reps", low=1)
    if n_jobs is not None:
        n_jobs = check_int(n_jobs, "n_jobs")
        if n_jobs == 0 or n_jobs < -1:
            raise ValueError(f"n_jobs must be a positive integer or -1, got {n_jobs}.")
    if backend is not None:
        check_option(backend, "backend", BACKENDS)
    if not isinstance(progress, bool | np.bool_):
        raise TypeError(f"progress must be a bool, got {type(progress).__name__}.")
    name = name or getattr(fn, "__name__", "study")
    if not isinstance(name, str) or not name:
        raise TypeError(f"name must be a non-empty string, got {name!r}.")
    if random_state is not None:
        random_state = check_int(random_state, "random_state", low=0)

    fingerprint_base = {
        "function": f"{getattr(fn, '__module__', '?')}.{getattr(fn, '__qualname__', '?')}",
        "settings": _jsonable(settings),
    }
    entropy = random_state
    if entropy is None and store is not None:
        old = StudyStore.recorded_fingerprint(store, name)
        if old is not None:
            entropy = int(old["entropy"])
    if entropy is None:
        entropy = int(np.random.SeedSequence().entropy)

    db = StudyStore(store, name, {**fingerprint_base, "entropy": str(entropy)}) if store else None
    try:
        done = db.done() if db is not None else {}
        results = {k: v for k, v in done.items() if k[0] < len(settings) and k[1] < n_reps}
        todo = [(i, r) for i in range(len(settings)) for r in range(n_reps)
                if (i, r) not in results]
        if todo:
            _execute(fn, settings, entropy, todo, n_jobs, backend, progress, db, results,
                     len(results), len(settings) * n_reps)
    finally:
        if db is not None:
            db.close()

    rows = []
    for (i, r) in sorted(results):
        rows.append({"setting": i, **settings[i], "rep": r, **results[(i, r)]})
    table = _frame_from_rows(rows)
    result = SimulationResult(table=table, settings=settings, n_reps=n_reps,
                              entropy=entropy, name=name)
    _warn_dropped(table, result.metrics, "run_study")
    return result


def _frame_from_rows(rows):
    """``pd.DataFrame(rows)`` built block by block (the same frame, much faster when wide).

    Columns whose values are all bools, all ints, or ints and floats go into
    one NumPy block per dtype; any other column is inferred by pandas as
    before. Wide outputs (a study returning a thousand checkpoints) otherwise
    spend most of their time in per-column inference.
    """
    if not rows:
        return pd.DataFrame(rows)
    keys = list(dict.fromkeys(k for r in rows for k in r))
    runs = []  # consecutive columns of one kind, in column order
    for k in keys:
        kinds = set()
        for r in rows:
            v = r.get(k, None)
            kinds.add("b" if isinstance(v, bool) else "i" if isinstance(v, int)
                      else "f" if isinstance(v, float) else "o")
        if kinds in ({"b"}, {"i"}):
            kind = kinds.pop()
        else:
            kind = "f" if kinds <= {"i", "f"} else "o"
        if runs and runs[-1][0] == kind:
            runs[-1][1].append(k)
        else:
            runs.append((kind, [k]))
    parts = []
    for kind, ks in runs:
        if kind == "o":
            parts.append(pd.DataFrame({k: [r.get(k) for r in rows] for k in ks}))
        else:
            dtype = {"b": bool, "i": np.int64, "f": np.float64}[kind]
            block = np.array([[r[k] for k in ks] for r in rows], dtype=dtype)
            parts.append(pd.DataFrame(block, columns=ks))
    return pd.concat(parts, axis=1) if len(parts) > 1 else parts[0]


class SimulationWarning(UserWarning):
    """Study outputs that summaries leave out (NaN values, non-numeric outputs).

    Examples
    --------
    >>> import warnings
    >>> from statlearn.simulation import SimulationWarning, run_study
    >>> def f(setting, rng):
    ...     return {"x": float("nan") if rng.random() < 0.5 else 1.0}
    >>> with warnings.catch_warnings(record=True) as w:
    ...     warnings.simplefilter("always")
    ...     _ = run_study(f, n_reps=10, random_state=0, progress=False)
    >>> any(issubclass(x.category, SimulationWarning) for x in w)
    True
    """


def _warn_dropped(table, metrics, where):
    """Warn about the NaN values and non-numeric outputs that summaries drop."""
    if table.empty or not metrics:
        return
    sub = table[metrics] if table.columns[-len(metrics):].tolist() != metrics else \
        table.iloc[:, -len(metrics):]
    numeric = set(sub.select_dtypes(include=["number", "bool"]).columns.tolist())
    floats = sub.select_dtypes(include=["floating"])
    notes = []
    if floats.shape[1]:
        n_nan = np.isnan(floats.to_numpy()).sum(axis=0)
        notes += [f"{m!r}: {int(k)} of {len(sub)} values are NaN and are left out of its "
                  "mean (n_obs counts the rest)" for m, k in zip(floats.columns.tolist(), n_nan)
                  if k]
    notes += [f"{m!r} is not numeric ({sub[m].dtype}) and is not summarised"
              for m in metrics if m not in numeric]
    if notes:
        warnings.warn(f"{where}: " + "; ".join(notes) + ".", SimulationWarning, stacklevel=3)


def _execute(fn, settings, entropy, todo, n_jobs, backend, progress, db, results, n_done, total):
    from tqdm.auto import tqdm

    bar = tqdm(total=total, initial=n_done, disable=not progress, desc="replications",
               leave=False)
    ctx = _dask_client(n_jobs) if backend == "dask" else contextlib.nullcontext()
    try:
        with ctx:
            if backend == "sequential":
                stream = (_run_one(fn, settings[i], entropy, i, r) for i, r in todo)
            elif backend == "dask":
                # joblib registers its Dask backend through parallel_config only
                with joblib.parallel_config(backend="dask"):
                    runner = joblib.Parallel(n_jobs=-1, return_as="generator_unordered")
            else:
                runner = joblib.Parallel(n_jobs=n_jobs, backend=backend,
                                         return_as="generator_unordered")
            if backend != "sequential":
                stream = runner(joblib.delayed(_run_one)(fn, settings[i], entropy, i, r)
                                for i, r in todo)
            for i, r, out in stream:
                results[(i, r)] = out
                if db is not None:
                    db.put(i, r, out)
                bar.update(1)
    finally:
        bar.close()

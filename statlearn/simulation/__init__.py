"""Monte Carlo study runner with joblib / Dask scale-out and resumable storage."""

from ._runner import SimulationResult, expand_grid, run_study
from ._store import StoreMismatchError

__all__ = ["SimulationResult", "StoreMismatchError", "expand_grid", "run_study"]

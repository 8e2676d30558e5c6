"""Monte Carlo study runner with joblib / Dask scale-out and resumable storage."""

from ._runner import SimulationResult, SimulationWarning, expand_grid, run_study
from ._store import StoreMismatchError

__all__ = ["SimulationResult", "SimulationWarning", "StoreMismatchError", "expand_grid",
           "run_study"]

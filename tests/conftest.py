"""Shared test configuration: hypothesis profiles, seeds, array backends, plotting."""

from __future__ import annotations

import os

import matplotlib
import numpy as np
import pytest
from hypothesis import HealthCheck, settings

matplotlib.use("Agg")

# Hypothesis: "dev" by default; "thorough" on request. When CI is set, recent
# hypothesis selects its built-in derandomized "ci" profile on its own.
settings.register_profile("dev", max_examples=50, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("thorough", max_examples=2000, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
_profile = os.environ.get("STATLEARN_HYPOTHESIS_PROFILE")
if _profile:
    settings.load_profile(_profile)
elif not os.environ.get("CI"):
    settings.load_profile("dev")

# Notebooks and examples run small inside tests.
os.environ.setdefault("STATLEARN_FAST", "1")


def pytest_report_header(config):
    """Which SIMD loops, BLAS kernels and Numba target this run rounds with."""
    from tests.cpu_features import report

    return report()


def _seed_range():
    value = os.environ.get("STATLEARN_TESTS_GLOBAL_RANDOM_SEED")
    if value is None:
        return [42]
    if value == "all":
        return list(range(100))
    if "-" in value:
        lo, hi = (int(v) for v in value.split("-"))
        return list(range(lo, hi + 1))
    return [int(value)]


@pytest.fixture(params=_seed_range())
def global_random_seed(request):
    """A seed in 0..99 (42 by default); tests using it must pass for every seed.

    Run all with ``STATLEARN_TESTS_GLOBAL_RANDOM_SEED=all``, a range with ``10-20``.
    """
    return request.param


def _xp_params():
    params = [pytest.param("numpy", id="numpy")]
    try:
        import array_api_strict  # noqa: F401

        params.append(pytest.param("array_api_strict", id="array_api_strict"))
    except ImportError:  # pragma: no cover
        pass
    params.append(pytest.param("cupy", id="cupy", marks=pytest.mark.gpu))
    return params


@pytest.fixture(params=_xp_params())
def xp(request):
    """Array namespaces to test against: NumPy, array-api-strict, CuPy (GPU only)."""
    name = request.param
    if name == "numpy":
        import array_api_compat.numpy as mod

        return mod
    if name == "array_api_strict":
        import array_api_strict as mod

        return mod
    cupy = pytest.importorskip("cupy")
    try:
        if cupy.cuda.runtime.getDeviceCount() < 1:
            pytest.skip("no CUDA device")
    except Exception:  # pragma: no cover - depends on the machine
        pytest.skip("no CUDA device")
    import array_api_compat.cupy as mod

    return mod


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    import matplotlib.pyplot as plt

    plt.close("all")


@pytest.fixture
def rng():
    """A fresh seeded generator per test (never the global RNG)."""
    return np.random.default_rng(12345)

"""Unlearning tests do many small dense solves: one BLAS thread avoids oversubscription."""

from __future__ import annotations

import pytest
from threadpoolctl import threadpool_limits


@pytest.fixture(autouse=True)
def _single_blas_thread():
    with threadpool_limits(limits=1, user_api="blas"):
        yield

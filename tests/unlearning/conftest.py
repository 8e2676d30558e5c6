"""Unlearning tests do many small dense solves: one BLAS thread avoids oversubscription."""

from __future__ import annotations

import pytest
from threadpoolctl import threadpool_limits


@pytest.fixture(autouse=True)
def _single_blas_thread():
    with threadpool_limits(limits=1, user_api="blas"):
        yield


@pytest.fixture(scope="module")
def logistic():
    """A small logistic problem (n = 120, p = 6) with float 0/1 targets."""
    from statlearn.unlearning import make_glm_data

    X, y, _ = make_glm_data(120, 6, random_state=3)
    return X, y.astype(float)

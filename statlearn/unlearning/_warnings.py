"""The warning of the unlearning area: a request ran outside the regime the theory covers."""

from __future__ import annotations

__all__ = ["UnlearningWarning"]


class UnlearningWarning(UserWarning):
    """Unlearning ran outside the regime covered by the theory.

    Raised for requests with ``m > n^(1/4)`` (the GED bound no longer vanishes)
    and for ``alpha = 0`` with ``allow_singular=True`` (no certificate).

    Examples
    --------
    >>> import warnings
    >>> from statlearn.unlearning import NewtonUnlearner, UnlearningWarning, make_glm_data
    >>> X, y, _ = make_glm_data(16, 4, random_state=0)
    >>> with warnings.catch_warnings(record=True) as w:
    ...     warnings.simplefilter("always")
    ...     _ = NewtonUnlearner(random_state=0).fit(X, y).unlearn([0, 1, 2])
    >>> any(issubclass(x.category, UnlearningWarning) for x in w)
    True
    """

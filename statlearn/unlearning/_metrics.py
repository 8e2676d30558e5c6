"""Generalisation and unlearned error divergences (GED / UED)."""

from __future__ import annotations

import math

import numpy as np

from ..utils import check_array, check_consistent_length, check_option, check_real, to_numpy
from ._glm import LOSSES, loss_value
from ._results import DivergenceResult

__all__ = ["ged", "ued"]


def _divergence(kind, coef_ref, coef_unlearned, X, y, loss, intercept_ref=0.0,
                intercept_unlearned=0.0, names=("X", "y")):
    import array_api_compat.numpy as npx

    x_name, y_name = names
    check_option(loss, "loss", LOSSES)
    X = check_array(to_numpy(X), x_name, dtype=np.float64)
    y = check_array(to_numpy(y), y_name, dtype=np.float64, ensure_2d=False)
    if y.ndim != 1:
        raise ValueError(f"{y_name} must be 1-D, got shape {y.shape}.")
    check_consistent_length(**{x_name: X, y_name: y})
    if loss == "logistic" and (np.any(y < 0) or np.any(y > 1)):
        raise ValueError(f"{y_name} must hold 0/1 labels (or probabilities in [0, 1]) for "
                         f"loss='logistic', got values in [{y.min():g}, {y.max():g}]; "
                         "encode the classes as est.classes_ does: "
                         "(y == est.classes_[1]).astype(float).")
    if loss == "poisson" and np.any(y < 0):
        raise ValueError(f"{y_name} must be non-negative counts for loss='poisson', got "
                         f"min {y.min():g}.")
    ref = check_array(to_numpy(coef_ref), "coef_ref", dtype=np.float64, ensure_2d=False)
    unl = check_array(to_numpy(coef_unlearned), "coef_unlearned", dtype=np.float64,
                      ensure_2d=False)
    if ref.ndim != 1:
        raise ValueError(f"coef_ref must be 1-D, got shape {ref.shape}.")
    if unl.ndim == 1:
        unl = unl[None, :]
    if unl.ndim != 2 or unl.shape[1] != ref.shape[0] or X.shape[1] != ref.shape[0]:
        raise ValueError(
            f"coef_unlearned must have shape (p,) or (n_draws, p) and {x_name} shape (n, p) "
            f"with p = len(coef_ref) = {ref.shape[0]}; got {unl.shape} and {X.shape}."
        )
    intercept_ref = check_real(intercept_ref, "intercept_ref")
    intercept_unlearned = check_array(np.atleast_1d(to_numpy(intercept_unlearned)),
                                      "intercept_unlearned", dtype=np.float64,
                                      ensure_2d=False)
    if intercept_unlearned.ndim != 1 or intercept_unlearned.shape[0] not in (1, unl.shape[0]):
        raise ValueError(f"intercept_unlearned must be a scalar or hold one intercept per "
                         f"draw ({unl.shape[0]}), got shape {intercept_unlearned.shape}.")
    b_unl = np.broadcast_to(np.asarray(intercept_unlearned, dtype=float), (unl.shape[0],))
    z_ref = X @ ref + float(intercept_ref)
    z_unl = X @ unl.T + b_unl[None, :]
    l_ref = loss_value(y, z_ref, loss, npx)
    l_unl = loss_value(y[:, None], z_unl, loss, npx)
    diff = l_ref[:, None] - l_unl
    per_point = np.abs(diff).mean(axis=1)
    n0 = per_point.size
    se = float(per_point.std(ddof=1) / math.sqrt(n0)) if n0 > 1 else math.nan
    return DivergenceResult(kind=kind, estimate=float(per_point.mean()),
                            signed_estimate=float(diff.mean()), se=se, n_points=n0,
                            n_draws=unl.shape[0], per_point=per_point)


def ged(coef_ref, coef_unlearned, X_test, y_test, loss, *, intercept_ref=0.0,
        intercept_unlearned=0.0):
    """Generalisation error divergence between a retrained and an unlearned model.

    ``GED = E |l(y0 | x0^T beta_ref) - l(y0 | x0^T beta_tilde)|`` over fresh
    ``(x0, y0)`` and the unlearning noise, estimated by averaging over the
    rows of ``X_test`` and the rows of ``coef_unlearned`` (noise draws). The
    absolute value is the library's choice (the stronger quantity); the signed
    mean is reported too.

    Parameters
    ----------
    coef_ref : array-like of shape (p,)
        Reference coefficients, usually the exact retrain ``beta_hat_{-M}``.
    coef_unlearned : array-like of shape (p,) or (n_draws, p)
        Unlearned coefficients, one row per noise draw.
    X_test : array-like of shape (n_test, p)
        Fresh features from the training distribution.
    y_test : array-like of shape (n_test,)
        Fresh responses, coded as the model was fitted: 0/1 for
        ``"logistic"``, non-negative counts for ``"poisson"``.
    loss : {"squared", "logistic", "poisson"}
        Loss ``l(y | z)``.
    intercept_ref, intercept_unlearned : float or array-like, default=0.0
        Intercepts (``intercept_unlearned`` may hold one per draw).

    Returns
    -------
    DivergenceResult

    See Also
    --------
    ued : the same quantity averaged over the removed points.

    Examples
    --------
    >>> import numpy as np
    >>> from statlearn.unlearning import ged
    >>> rng = np.random.default_rng(0)
    >>> X0 = rng.normal(size=(1000, 10)) / 10 ** 0.5
    >>> y0 = rng.integers(0, 2, 1000).astype(float)
    >>> ged(np.zeros(10), np.zeros(10), X0, y0, loss="logistic").estimate
    0.0
    >>> res = ged(np.zeros(10), rng.normal(scale=0.1, size=(20, 10)), X0, y0, "logistic")
    >>> bool(0 < res.estimate < 0.1)
    True
    """
    return _divergence("GED", coef_ref, coef_unlearned, X_test, y_test, loss, intercept_ref,
                       intercept_unlearned, names=("X_test", "y_test"))


def ued(coef_ref, coef_unlearned, X_removed, y_removed, loss, *, intercept_ref=0.0,
        intercept_unlearned=0.0):
    """Unlearned error divergence: :func:`ged` averaged over the removed points.

    ``UED = mean_{i in M} E_b |l(y_i | x_i^T beta_ref) - l(y_i | x_i^T beta_tilde)|``.

    Parameters
    ----------
    coef_ref, coef_unlearned, loss, intercept_ref, intercept_unlearned
        As in :func:`ged`.
    X_removed : array-like of shape (m, p)
        The removed rows.
    y_removed : array-like of shape (m,)
        Their responses.

    Returns
    -------
    DivergenceResult

    Examples
    --------
    >>> import numpy as np
    >>> from statlearn.unlearning import ued
    >>> Xm, ym = np.eye(2), np.array([1.0, 0.0])
    >>> round(ued(np.zeros(2), np.ones(2), Xm, ym, loss="squared").estimate, 3)
    0.5
    """
    return _divergence("UED", coef_ref, coef_unlearned, X_removed, y_removed, loss,
                       intercept_ref, intercept_unlearned, names=("X_removed", "y_removed"))

"""Doubly robust pseudo-outcomes, the relative-error influence values and CATE losses.

These are the pieces shared by the relative-error evaluator, the DR-/R-loss
scorers and the learner. All functions take nuisance *values* at the
evaluation points; fitting the nuisances is done elsewhere.
"""

from __future__ import annotations

import numpy as np

from ..utils import check_array, check_consistent_length

__all__ = [
    "dr_loss",
    "dr_pseudo_outcome",
    "r_loss",
    "relative_error_influence",
]


def _vec(x, name):
    if np.ndim(x) != 1:
        raise ValueError(f"{name} must be one-dimensional, got an array of shape {np.shape(x)}.")
    return check_array(x, name, ensure_2d=False, dtype=np.float64)


def check_treatment(a, name="treatment"):
    """Validate a binary 0/1 treatment vector and return it as float64."""
    arr = np.asarray(a)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, got shape {arr.shape}.")
    if arr.dtype == bool:
        arr = arr.astype(np.int64)
    if not np.issubdtype(arr.dtype, np.number):
        raise TypeError(f"{name} must be numeric 0/1, got dtype {arr.dtype}; code the treated "
                        f"arm as 1 and the control arm as 0, e.g. (arm == 'treated').astype(int).")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must not contain NaN or inf.")
    bad = ~np.isin(arr, (0, 1))
    if bad.any():
        raise ValueError(f"{name} must contain only 0 and 1, got {arr[bad][0].item()!r}; code "
                         f"the treated arm as 1 and the control arm as 0, e.g. "
                         f"(arm == treated_value).astype(int).")
    return arr.astype(np.float64)


def check_propensity(e, name="propensity"):
    """Validate propensity values strictly inside (0, 1) (nothing is clipped here)."""
    e = _vec(e, name)
    if np.any(e <= 0) or np.any(e >= 1):
        raise ValueError(
            f"{name} must lie strictly inside (0, 1); got min {e.min():.3g}, max {e.max():.3g}. "
            "Clip or trim explicitly before calling."
        )
    return e


def dr_pseudo_outcome(treatment, y, mu0, mu1, propensity):
    """AIPW (doubly robust) pseudo-outcome of the CATE.

    ``psi = mu1 - mu0 + A (Y - mu1) / e - (1 - A) (Y - mu0) / (1 - e)``.

    Parameters
    ----------
    treatment : array-like of shape (n,)
        Binary treatment ``A`` (0/1).
    y : array-like of shape (n,)
        Outcome.
    mu0, mu1 : array-like of shape (n,)
        Outcome regressions ``E[Y | X, A = a]`` at the units.
    propensity : array-like of shape (n,)
        ``P(A = 1 | X)`` at the units, strictly inside (0, 1).

    Returns
    -------
    psi : ndarray of shape (n,)

    Examples
    --------
    >>> from statlearn.hte import dr_pseudo_outcome
    >>> dr_pseudo_outcome([1, 0], [3.0, 1.0], [1.0, 1.0], [2.0, 2.0], [0.5, 0.5]).tolist()
    [3.0, 1.0]
    """
    a = check_treatment(treatment)
    y, mu0, mu1 = _vec(y, "y"), _vec(mu0, "mu0"), _vec(mu1, "mu1")
    e = check_propensity(propensity)
    check_consistent_length(treatment=a, y=y, mu0=mu0, mu1=mu1, propensity=e)
    return aipw(a, y, mu0, mu1, e)


def aipw(a, y, mu0, mu1, e):
    """Unvalidated AIPW pseudo-outcome on float arrays (shared by every caller)."""
    return mu1 - mu0 + a * (y - mu1) / e - (1 - a) * (y - mu0) / (1 - e)


def relative_error_influence(tau1, tau2, psi):
    """Per-unit contributions ``varphi = t1^2 - t2^2 - 2 (t1 - t2) psi``.

    Their mean estimates the relative error
    ``delta = E[(t1 - tau)^2] - E[(t2 - tau)^2]``; algebraically
    ``varphi = (t1 - psi)^2 - (t2 - psi)^2``, a difference of DR-losses.

    Parameters
    ----------
    tau1, tau2 : array-like of shape (n,)
        Predictions of the two CATE estimators.
    psi : array-like of shape (n,)
        DR pseudo-outcomes (:func:`dr_pseudo_outcome`).

    Returns
    -------
    varphi : ndarray of shape (n,)

    Examples
    --------
    >>> from statlearn.hte import relative_error_influence
    >>> relative_error_influence([1.0], [0.0], [2.0]).tolist()
    [-3.0]
    """
    t1, t2, psi = _vec(tau1, "tau1"), _vec(tau2, "tau2"), _vec(psi, "psi")
    check_consistent_length(tau1=t1, tau2=t2, psi=psi)
    return (t1 - t2) * (t1 + t2 - 2.0 * psi)


def dr_loss(tau_hat, psi):
    """DR-loss ``mean((psi - tau_hat)^2)`` (Kennedy's DR-learner loss, "tau-risk").

    Differences of DR-losses of two estimators computed with the same
    ``psi`` equal the relative-error estimate.

    Examples
    --------
    >>> from statlearn.hte import dr_loss
    >>> dr_loss([1.0, 1.0], [0.0, 2.0])
    1.0
    """
    t, psi = _vec(tau_hat, "tau_hat"), _vec(psi, "psi")
    check_consistent_length(tau_hat=t, psi=psi)
    return float(np.mean((psi - t) ** 2))


def r_loss(tau_hat, treatment, y, m, propensity):
    """R-loss ``mean(((Y - m) - (A - e) tau_hat)^2)`` (Nie & Wager's quasi-oracle loss).

    ``m`` is ``E[Y | X]`` and ``e`` the propensity. Differences of R-losses
    estimate an MSE difference weighted by ``e (1 - e)``, not the relative
    error.

    Examples
    --------
    >>> from statlearn.hte import r_loss
    >>> r_loss([2.0, 2.0], [1, 0], [2.0, 0.0], [1.0, 1.0], [0.5, 0.5])
    0.0
    """
    t = _vec(tau_hat, "tau_hat")
    a = check_treatment(treatment)
    y, m = _vec(y, "y"), _vec(m, "m")
    e = check_propensity(propensity)
    check_consistent_length(tau_hat=t, treatment=a, y=y, m=m, propensity=e)
    return float(np.mean(((y - m) - (a - e) * t) ** 2))

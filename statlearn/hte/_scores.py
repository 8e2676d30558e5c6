"""Doubly robust pseudo-outcomes, the relative-error influence values and CATE losses.

These are the pieces shared by the relative-error evaluator, the DR-/R-loss
scorers and the learner. All functions take nuisance *values* at the
evaluation points; fitting the nuisances is done elsewhere.

Validation is cheap on plain NumPy input: a 1-D numeric ``ndarray`` is taken as
it is, the treatment is checked by two counts and the propensity by its minimum
and maximum, and finiteness is read off the result (a sum of terms built from
``+ - * /`` by nonzero finite divisors is finite only when every operand is).
Any other input, and any non-finite result, goes through the full checks, which
raise exactly the errors they always raised; the arithmetic is the same
correctly rounded operations in the same order, so the values do not change.
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


def lean_vec(x):
    """``x`` as a non-empty 1-D float64 ndarray without a copy or a scan, else None.

    Only a plain numeric ``ndarray`` qualifies; finiteness is left to the caller
    (see the module docstring). None sends the caller to the full checks.
    """
    if type(x) is not np.ndarray or x.ndim != 1 or x.size == 0 or x.dtype.kind not in "fiu":
        return None
    return x if x.dtype == np.float64 else x.astype(np.float64)


def lean_treatment(a):
    """A 0/1 treatment ndarray as float64 (two counts), else None; not to be written to."""
    if type(a) is not np.ndarray or a.ndim != 1 or a.size == 0 or a.dtype.kind not in "biuf":
        return None
    f = a if a.dtype == np.float64 else a.astype(np.float64)
    if a.dtype.kind != "b" and np.count_nonzero(f == 0) + np.count_nonzero(f == 1) != f.size:
        return None
    return f


def lean_propensity(e):
    """A propensity ndarray strictly inside (0, 1) as float64 (min and max), else None."""
    v = lean_vec(e)
    if v is None or not (v.min() > 0 and v.max() < 1):  # NaN fails both comparisons
        return None
    return v


def lean_nuisances(treatment, y, mu0, mu1, propensity):
    """``(a, y, mu0, mu1, e)`` by the lean checks, all of one length, else None.

    ``y``, ``mu0`` and ``mu1`` are not scanned: the caller checks that its result
    is finite.
    """
    out = (lean_treatment(treatment), lean_vec(y), lean_vec(mu0), lean_vec(mu1),
           lean_propensity(propensity))
    if any(v is None for v in out) or len({v.size for v in out}) != 1:
        return None
    return out


def aipw_lean(a, y, mu0, mu1, e, one_minus_a, one_minus_e):
    """:func:`aipw` on 1-D float64 arrays of one length, with two temporaries.

    The same operations in the same order as :func:`aipw` (``x * a`` for
    ``a * x`` is exact), so the same bits.
    """
    out = np.subtract(mu1, mu0)
    tmp = np.subtract(y, mu1)
    tmp *= a
    tmp /= e
    out += tmp
    np.subtract(y, mu0, out=tmp)
    tmp *= one_minus_a
    tmp /= one_minus_e
    out -= tmp
    return out


def mean_square_diff(psi, t):
    """``float(np.mean((psi - t) ** 2))`` with one temporary (the same bits)."""
    d = np.subtract(psi, t)
    np.multiply(d, d, out=d)
    return float(np.add.reduce(d) / d.size)


def r_loss_lean(resid, a_minus_e, t):
    """``float(np.mean((resid - a_minus_e * t) ** 2))`` with one temporary (the same bits)."""
    r = np.multiply(a_minus_e, t)
    np.subtract(resid, r, out=r)
    np.multiply(r, r, out=r)
    return float(np.add.reduce(r) / r.size)


def influence_lean(t1, t2, psi):
    """``(t1 - t2) * (t1 + t2 - 2.0 * psi)``; overwrites ``psi`` (the same bits)."""
    out = np.subtract(t1, t2)
    tmp = np.add(t1, t2)
    psi *= 2.0
    tmp -= psi
    out *= tmp
    return out


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
    lean = lean_nuisances(treatment, y, mu0, mu1, propensity)
    if lean is not None:
        a_, y_, mu0_, mu1_, e_ = lean
        with np.errstate(all="ignore"):  # warnings, if any, come from the full path
            psi = aipw_lean(a_, y_, mu0_, mu1_, e_, 1 - a_, 1 - e_)
            finite = np.isfinite(np.add.reduce(psi))
        if finite:
            return psi
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
    lean = lean_vec(tau1), lean_vec(tau2), lean_vec(psi)
    if all(v is not None for v in lean) and len({v.size for v in lean}) == 1:
        with np.errstate(all="ignore"):
            varphi = influence_lean(lean[0], lean[1], lean[2].copy())
            finite = np.isfinite(np.add.reduce(varphi))
        if finite:
            return varphi
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
    t, p = lean_vec(tau_hat), lean_vec(psi)
    if t is not None and p is not None and t.size == p.size:
        with np.errstate(all="ignore"):
            value = mean_square_diff(p, t)
        if np.isfinite(value):
            return value
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
    t = lean_vec(tau_hat)
    lean = lean_nuisances(treatment, y, m, m, propensity)
    if t is not None and lean is not None and t.size == lean[0].size:
        a_, y_, m_, _, e_ = lean
        with np.errstate(all="ignore"):
            value = r_loss_lean(y_ - m_, a_ - e_, t)
        if np.isfinite(value):
            return value
    t = _vec(tau_hat, "tau_hat")
    a = check_treatment(treatment)
    y, m = _vec(y, "y"), _vec(m, "m")
    e = check_propensity(propensity)
    check_consistent_length(tau_hat=t, treatment=a, y=y, m=m, propensity=e)
    return float(np.mean(((y - m) - (a - e) * t) ** 2))

"""Adaptive conformal inference (Gibbs & Candes, 2021): the level update and its bound."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ...utils import check_alpha, check_int, check_real
from .._core._arrays import host

__all__ = ["ACIResult", "aci_miscoverage_bound", "aci_update", "adaptive_conformal_inference"]


def _check_gamma(gamma):
    return check_real(gamma, "gamma", low=0, closed="neither")


def _step(alpha_t, err, alpha, gamma):
    """The update of eq. (2), shared by every ACI path of the package."""
    return alpha_t + gamma * (alpha - err)


def aci_update(alpha_t, miscovered, alpha, gamma):
    """One step of adaptive conformal inference: ``alpha_t + gamma (alpha - err_t)``.

    Equation (2) of Gibbs & Candes (2021): after a miss (``err_t = 1``) the
    working level drops by ``gamma (1 - alpha)``, so the next set is larger;
    after a hit it rises by ``gamma alpha``. The level is not clipped to
    ``[0, 1]``: a level ``<= 0`` stands for the set of every value and a
    level ``>= 1`` for the empty set, which is what keeps the working level
    in ``[-gamma, 1 + gamma]`` (their Lemma 4.1).

    Parameters
    ----------
    alpha_t : float or array-like of float
        Current working level(s) (any finite real).
    miscovered : bool, int in {0, 1} or array-like of them
        ``err_t``: whether the response fell outside the set built at ``alpha_t``.
    alpha : float
        Target miscoverage level in (0, 1).
    gamma : float
        Step size, ``> 0``.

    Returns
    -------
    float or ndarray
        ``alpha_{t+1}``, with the broadcast shape of ``alpha_t`` and ``miscovered``.

    References
    ----------
    Gibbs & Candes (2021), "Adaptive conformal inference under distribution
    shift", NeurIPS 34, eq. (2).

    Examples
    --------
    >>> from statlearn.conformal import aci_update
    >>> aci_update(0.1, True, alpha=0.1, gamma=0.05)     # a miss: 0.1 - 0.05 * 0.9
    0.055
    >>> round(aci_update(0.1, False, alpha=0.1, gamma=0.05), 12)
    0.105
    """
    alpha = check_alpha(alpha)
    gamma = _check_gamma(gamma)
    a = np.asarray(host(alpha_t))
    if a.dtype.kind not in "iuf" or not np.all(np.isfinite(a)):
        raise ValueError(f"alpha_t must hold finite real levels, got {alpha_t!r}.")
    err = np.asarray(host(miscovered))
    if err.dtype.kind == "b":
        err = err.astype(np.float64)
    elif err.dtype.kind in "iuf" and np.all((err == 0) | (err == 1)):
        err = err.astype(np.float64)
    else:
        raise ValueError(f"miscovered must hold booleans or 0/1, got {miscovered!r}.")
    out = _step(a.astype(np.float64), err, alpha, gamma)
    return float(out) if out.ndim == 0 else out


def aci_miscoverage_bound(alpha, gamma, n_steps, alpha_init=None):
    """Deterministic bound on ``|mean(err_1..T) - alpha|`` for adaptive conformal inference.

    Proposition 4.1 of Gibbs & Candes (2021): for every sequence of data,
    ``|T^{-1} sum_t err_t - alpha| <= (max(alpha_1, 1 - alpha_1) + gamma) /
    (gamma T)``, provided the set is the whole line when ``alpha_t <= 0`` and
    empty when ``alpha_t >= 1``.

    Parameters
    ----------
    alpha : float
        Target miscoverage level in (0, 1).
    gamma : float
        Step size, ``> 0``.
    n_steps : int
        ``T >= 1``, the number of updates.
    alpha_init : float, optional
        ``alpha_1`` in ``[0, 1]`` (default ``alpha``).

    Returns
    -------
    float

    Examples
    --------
    >>> from statlearn.conformal import aci_miscoverage_bound
    >>> round(aci_miscoverage_bound(0.1, 0.01, 1000), 6)     # (0.9 + 0.01) / 10
    0.091
    """
    alpha = check_alpha(alpha)
    gamma = _check_gamma(gamma)
    T = check_int(n_steps, "n_steps", low=1)
    a1 = alpha if alpha_init is None else check_real(alpha_init, "alpha_init", low=0, high=1)
    return (max(a1, 1.0 - a1) + gamma) / (gamma * T)


def _rank(n, level):
    """``ceil((1 - level)(n + 1))`` for any real ``level``, snapped like ``conformal_rank``."""
    x = (n + 1) * (1.0 - level)
    nearest = round(x)
    if abs(x - nearest) <= 1e-9 * max(1.0, abs(x)):
        return int(nearest)
    return math.ceil(x)


def _order_stat(values, k):
    """k-th smallest (1-based) of ``values``; ``+inf`` when ``k > n``, ``-inf`` when ``k < 1``."""
    n = values.size
    if k > n:
        return np.inf
    if k < 1:
        return -np.inf
    return float(np.partition(values, k - 1)[k - 1])


def _threshold(window, level):
    """Conformal threshold of the scores in ``window`` at any real working level.

    ``+inf`` (every score covered) when ``level <= 0`` or the rank exceeds the
    window; ``-inf`` (nothing covered) when ``level >= 1``.
    """
    if level >= 1.0:
        return -np.inf
    if level <= 0.0:
        return np.inf
    return _order_stat(window, _rank(window.size, level))


def _check_scores(scores, name, allow_empty=False):
    s = np.asarray(host(scores))
    if s.dtype.kind not in "biuf":
        raise TypeError(f"{name} must hold real numbers, got dtype {s.dtype}.")
    s = s.astype(np.float64)
    if s.ndim != 1:
        raise ValueError(f"{name} must be 1-D, got shape {s.shape}.")
    if s.size == 0 and not allow_empty:
        raise ValueError(f"{name} must not be empty.")
    if np.isnan(s).any() or np.isneginf(s).any():
        raise ValueError(f"{name} must not contain NaN or -inf.")
    return s


@dataclass(frozen=True, slots=True)
class ACIResult:
    """Run of adaptive conformal inference over a stream of scores.

    Attributes
    ----------
    alpha : float
        Target miscoverage level.
    gamma : float
        Step size.
    alphas : ndarray of shape (T + 1,)
        Working levels ``alpha_1, ..., alpha_{T+1}``.
    thresholds : ndarray of shape (T,)
        Score threshold used at each step (``+inf``: every value; ``-inf``: empty set).
    errors : ndarray of bool, shape (T,)
        ``err_t``: the score exceeded its threshold.
    miscoverage : float
        ``mean(errors)``.
    bound : float
        :func:`aci_miscoverage_bound` for this run.
    """

    alpha: float
    gamma: float
    alphas: np.ndarray
    thresholds: np.ndarray
    errors: np.ndarray
    miscoverage: float
    bound: float

    def running_coverage(self):
        """Running coverage ``1 - mean(err_1..t)`` for ``t = 1..T``."""
        return 1.0 - np.cumsum(self.errors) / np.arange(1, self.errors.size + 1)

    def __repr__(self):
        return (f"ACIResult(alpha={self.alpha:g}, gamma={self.gamma:g}, T={self.errors.size}, "
                f"miscoverage={self.miscoverage:.4f}, bound={self.bound:.4f})")


def adaptive_conformal_inference(scores, calibration_scores, alpha=0.1, gamma=0.005, *,
                                 window=None, alpha_init=None):
    """Adaptive conformal inference over a stream of nonconformity scores.

    At step ``t`` the threshold is the conformal quantile of the current
    calibration window at the working level ``alpha_t``: the
    ``ceil((1 - alpha_t)(n + 1))``-th smallest of the ``n`` window scores
    (``+inf`` when that rank exceeds ``n`` or ``alpha_t <= 0``, ``-inf``, the
    empty set, when ``alpha_t >= 1``). Then ``err_t = 1{s_t > threshold}``,
    ``alpha_{t+1} = alpha_t + gamma (alpha - err_t)`` (:func:`aci_update`),
    and ``s_t`` joins the window (the oldest score leaves it when ``window``
    is set). Gibbs & Candes (2021), eq. (2), with a fixed score function and
    a sliding calibration window.

    Guarantee (their Proposition 4.1), for every score sequence, adversarial
    or not: ``|mean(err) - alpha| <= (max(alpha_1, 1 - alpha_1) + gamma) /
    (gamma T)``.

    Parameters
    ----------
    scores : array-like of shape (T,)
        Scores ``s_1, ..., s_T`` in time order (finite or ``+inf``).
    calibration_scores : array-like of shape (n,)
        Initial calibration scores (``n >= 1``).
    alpha : float, default=0.1
        Target miscoverage level in (0, 1).
    gamma : float, default=0.005
        Step size, ``> 0``.
    window : int, optional
        Keep only the latest ``window`` scores for calibration (default: all).
    alpha_init : float, optional
        ``alpha_1`` in ``[0, 1]`` (default ``alpha``).

    Returns
    -------
    ACIResult

    References
    ----------
    Gibbs & Candes (2021), "Adaptive conformal inference under distribution
    shift", NeurIPS 34.

    Examples
    --------
    >>> import numpy as np
    >>> from statlearn.conformal import adaptive_conformal_inference
    >>> rng = np.random.default_rng(0)
    >>> s = np.abs(rng.normal(size=2000)) * np.linspace(1, 3, 2000)   # drifting scale
    >>> res = adaptive_conformal_inference(s[200:], s[:200], alpha=0.1, gamma=0.01,
    ...                                    window=200)
    >>> abs(res.miscoverage - 0.1) <= res.bound
    True
    """
    alpha = check_alpha(alpha)
    gamma = _check_gamma(gamma)
    s = _check_scores(scores, "scores")
    cal = _check_scores(calibration_scores, "calibration_scores")
    if window is not None:
        window = check_int(window, "window", low=1)
    a = alpha if alpha_init is None else check_real(alpha_init, "alpha_init", low=0, high=1)
    T = s.size
    alphas = np.empty(T + 1)
    thresholds = np.empty(T)
    errors = np.empty(T, dtype=bool)
    buf = cal if window is None else cal[-window:]
    store = np.concatenate([buf, s])  # the window is a slice of this buffer
    start, stop = 0, buf.size
    for t in range(T):
        alphas[t] = a
        q = _threshold(store[start:stop], a)
        thresholds[t] = q
        err = bool(s[t] > q)
        errors[t] = err
        a = _step(a, float(err), alpha, gamma)
        stop += 1
        if window is not None and stop - start > window:
            start += 1
    alphas[T] = a
    return ACIResult(alpha=alpha, gamma=gamma, alphas=alphas, thresholds=thresholds,
                     errors=errors, miscoverage=float(errors.mean()),
                     bound=aci_miscoverage_bound(alpha, gamma, T, alphas[0]))

"""Learn-then-test (Angelopoulos, Bates, Candes, Jordan & Lei, 2025): p-values of
``H_j: R(lambda_j) > alpha`` from concentration inequalities, and family-wise error
control over the candidates."""

from __future__ import annotations

import math

import numpy as np
from scipy import stats

from ...utils import check_alpha, check_array, check_option
from ...utils._validation import _scalar
from .._core._arrays import host
from ._crc import loss_matrix
from ._result import RiskControlResult

__all__ = [
    "bentkus_pvalue",
    "fwer_control",
    "hoeffding_bentkus_pvalue",
    "hoeffding_pvalue",
    "learn_then_test",
]

PVALUES = ("hoeffding", "bentkus", "hoeffding_bentkus")
FWER = ("bonferroni", "holm", "fixed_sequence")


def _risk_and_n(risk, n):
    r = check_array(host(risk), "risk", ensure_2d=False, dtype=np.float64,
                    ensure_min_samples=0)
    scalar_risk = r.ndim == 0
    r = np.atleast_1d(r)
    if r.ndim != 1:
        raise ValueError(f"risk must be a number or 1-D, got shape {r.shape}.")
    if (r < 0).any() or (r > 1).any():
        raise ValueError(f"risk must hold empirical risks in [0, 1], got "
                         f"{r[(r < 0) | (r > 1)][:3].tolist()}.")
    n = _scalar(host(n))
    nn = np.asarray(n)
    if nn.dtype.kind not in "iu":
        raise TypeError(f"n must be an integer or an array of integers, got {n!r}.")
    if (nn < 0).any():
        raise ValueError(f"n must be >= 0, got {nn[nn < 0][:3].tolist()}.")
    if nn.ndim == 1 and nn.size != r.size:
        raise ValueError(f"risk and n must have the same length, got risk: {r.size}, "
                         f"n: {nn.size}.")
    if nn.ndim > 1:
        raise ValueError(f"n must be an integer or 1-D, got shape {nn.shape}.")
    nn = np.broadcast_to(nn.astype(np.float64), r.shape)
    return r, nn, scalar_risk


def _out(p, scalar):
    return float(p[0]) if scalar else p


def hoeffding_pvalue(risk, n, alpha):
    """Hoeffding p-value ``exp(-2 n (alpha - R_n)_+^2)`` of ``H: R > alpha``.

    Valid for losses in ``[0, 1]`` (Hoeffding's inequality; the Hoeffding
    p-value of Angelopoulos et al. 2025). ``n = 0`` gives 1.

    Parameters
    ----------
    risk : float or array-like of shape (m,)
        Empirical risks ``R_n`` in ``[0, 1]``.
    n : int or array-like of int, shape (m,)
        Number of losses behind each risk.
    alpha : float
        Risk level in (0, 1).

    Returns
    -------
    float or ndarray of shape (m,)

    Examples
    --------
    >>> from statlearn.conformal import hoeffding_pvalue
    >>> round(hoeffding_pvalue(0.1, 100, 0.2), 6)
    0.135335
    """
    r, n, scalar = _risk_and_n(risk, n)
    alpha = check_alpha(alpha)
    return _out(np.exp(-2.0 * n * np.maximum(alpha - r, 0.0) ** 2), scalar)


def _ceil_count(n, r):
    """``ceil(n r)`` with ``n r`` snapped to an integer within ``1e-9`` (relative), so that
    a risk ``k / n`` counts ``k`` losses despite the rounding of ``k / n``."""
    x = n * r
    near = np.round(x)
    return np.where(np.abs(x - near) <= 1e-9 * np.maximum(1.0, x), near, np.ceil(x))


def bentkus_pvalue(risk, n, alpha, *, binary=False):
    """Bentkus p-value ``e P(Bin(n, alpha) <= ceil(n R_n))`` of ``H: R > alpha``.

    Valid for losses in ``[0, 1]`` (Bentkus, 2004; the Bentkus p-value of
    Angelopoulos et al. 2025). For losses that are 0 or 1 by construction the binomial
    tail itself is the exact p-value and ``binary=True`` drops the factor
    ``e``. Capped at 1; ``n = 0`` gives 1.

    Parameters
    ----------
    risk : float or array-like of shape (m,)
        Empirical risks ``R_n`` in ``[0, 1]``.
    n : int or array-like of int, shape (m,)
        Number of losses behind each risk.
    alpha : float
        Risk level in (0, 1).
    binary : bool, default=False
        The losses are 0/1 indicators.

    Returns
    -------
    float or ndarray of shape (m,)

    Examples
    --------
    >>> from statlearn.conformal import bentkus_pvalue
    >>> round(bentkus_pvalue(0.1, 100, 0.2, binary=True), 6)
    0.005696
    """
    r, n, scalar = _risk_and_n(risk, n)
    alpha = check_alpha(alpha)
    if not isinstance(binary, bool | np.bool_):
        raise TypeError(f"binary must be True or False, got {binary!r}.")
    factor = 1.0 if binary else math.e
    p = np.minimum(1.0, factor * stats.binom.cdf(_ceil_count(n, r), n, alpha))
    return _out(np.where(n > 0, p, 1.0), scalar)


def _h1(a, b):
    """``a log(a / b) + (1 - a) log((1 - a) / (1 - b))`` with ``0 log 0 = 0`` (``a <= b < 1``)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        first = np.where(a > 0, a * np.log(a / b), 0.0)
    return first + (1.0 - a) * np.log((1.0 - a) / (1.0 - b))


def hoeffding_bentkus_pvalue(risk, n, alpha, *, binary=False):
    """Hoeffding-Bentkus p-value, the smaller of the two tail bounds.

    ``min(exp(-n h_1(R_n ^ alpha, alpha)), e P(Bin(n, alpha) <= ceil(n R_n)))``
    with ``h_1(a, b) = a log(a / b) + (1 - a) log((1 - a) / (1 - b))``: the
    first term is Hoeffding's sharper (relative-entropy) bound, the second
    Bentkus's (the Hoeffding-Bentkus p-value of Angelopoulos et al. 2025; the
    HB bound of Bates et al. 2021). ``binary=True`` uses the exact binomial tail
    for 0/1 losses (no factor ``e``), as MAPIE does for its binary risks.

    Parameters
    ----------
    risk : float or array-like of shape (m,)
        Empirical risks ``R_n`` in ``[0, 1]``.
    n : int or array-like of int, shape (m,)
        Number of losses behind each risk.
    alpha : float
        Risk level in (0, 1).
    binary : bool, default=False
        The losses are 0/1 indicators.

    Returns
    -------
    float or ndarray of shape (m,)

    Examples
    --------
    >>> from statlearn.conformal import hoeffding_bentkus_pvalue
    >>> round(hoeffding_bentkus_pvalue(0.1, 100, 0.2), 6)
    0.015484
    """
    r, n, scalar = _risk_and_n(risk, n)
    alpha = check_alpha(alpha)
    hoeffding = np.exp(-n * _h1(np.minimum(r, alpha), alpha))
    bentkus = bentkus_pvalue(r, n.astype(np.int64), alpha, binary=binary)
    return _out(np.where(n > 0, np.minimum(hoeffding, bentkus), 1.0), scalar)


def _check_delta(delta):
    return check_alpha(delta, "delta")


def fwer_control(pvalues, delta, *, method="bonferroni", order=None):
    """Reject the nulls of a family of p-values with family-wise error at most ``delta``.

    * ``"bonferroni"``: every ``p_j <= delta / m``;
    * ``"holm"``: Holm's step-down, the ``k``-th smallest p-value tested at
      ``delta / (m - k + 1)`` while they are rejected (Holm, 1979);
    * ``"fixed_sequence"``: the hypotheses in ``order`` (chosen before seeing
      the data), each at level ``delta``, stopping at the first that is not
      rejected (fixed-sequence testing, as used by Angelopoulos et al. 2025).

    Parameters
    ----------
    pvalues : array-like of shape (m,)
        P-values in ``[0, 1]``.
    delta : float
        Family-wise error rate in (0, 1).
    method : {"bonferroni", "holm", "fixed_sequence"}, default="bonferroni"
    order : array-like of int, shape (m,), optional
        The testing order of ``"fixed_sequence"`` (a permutation of
        ``0, ..., m - 1``); default the given order.

    Returns
    -------
    ndarray of int
        The rejected hypotheses, sorted.

    Examples
    --------
    >>> from statlearn.conformal import fwer_control
    >>> p = [0.001, 0.02, 0.2, 0.004]
    >>> fwer_control(p, 0.05).tolist()
    [0, 3]
    >>> fwer_control(p, 0.05, method="holm").tolist()
    [0, 1, 3]
    >>> fwer_control(p, 0.05, method="fixed_sequence").tolist()
    [0, 1]
    """
    p = check_array(host(pvalues), "pvalues", ensure_2d=False, dtype=np.float64,
                    ensure_min_samples=1)
    if p.ndim != 1:
        raise ValueError(f"pvalues must be 1-D, got shape {p.shape}.")
    if (p < 0).any() or (p > 1).any():
        raise ValueError(f"pvalues must be in [0, 1], got {p[(p < 0) | (p > 1)][:3].tolist()}.")
    delta = _check_delta(delta)
    method = check_option(method, "method", FWER)
    m = p.size
    if order is not None and method != "fixed_sequence":
        raise ValueError(f"order applies to method='fixed_sequence' only, got method="
                         f"{method!r}.")
    if method == "bonferroni":
        return np.flatnonzero(p <= delta / m).astype(np.int64)
    if method == "holm":
        sorted_idx = np.argsort(p, kind="stable")
        levels = delta / (m - np.arange(m))
        fails = p[sorted_idx] > levels
        k = int(np.argmax(fails)) if fails.any() else m
        return np.sort(sorted_idx[:k]).astype(np.int64)
    seq = np.arange(m) if order is None else _order(order, m)
    fails = p[seq] > delta
    k = int(np.argmax(fails)) if fails.any() else m
    return np.sort(seq[:k]).astype(np.int64)


def _order(order, m):
    o = np.asarray(host(order))
    if o.dtype.kind not in "iu" or o.shape != (m,) or \
            not np.array_equal(np.sort(o), np.arange(m)):
        raise ValueError(f"order must be a permutation of 0, ..., {m - 1}, got "
                         f"{np.asarray(order).tolist()[:10]!r}.")
    return o.astype(np.int64)


_PFUNCS = {"hoeffding": hoeffding_pvalue, "bentkus": bentkus_pvalue,
           "hoeffding_bentkus": hoeffding_bentkus_pvalue}


def learn_then_test(losses, alpha, delta, *, lambdas=None, pvalue="hoeffding_bentkus",
                    fwer="bonferroni", order=None, binary=False):
    """Learn-then-test: the candidates certified to have risk at most ``alpha``.

    For each candidate (a column of ``losses``), the p-value of
    ``H_j: R(lambda_j) > alpha`` from the mean of its counted losses (NaN
    entries are not counted: a conditional risk); then a family-wise error
    procedure over the ``m`` nulls. With i.i.d. calibration data, with
    probability at least ``1 - delta`` every certified candidate has
    ``R(lambda) <= alpha`` (Angelopoulos et al. 2025, Theorem 1), whether or
    not the risk is monotone in ``lambda``.

    Parameters
    ----------
    losses : array-like of shape (n, m), or callable
        ``losses[i, j] = L_i(lambda_j)`` in ``[0, 1]`` (NaN: not counted). A
        callable returns the ``n`` losses of one candidate.
    alpha : float
        Risk level in (0, 1).
    delta : float
        Family-wise error rate in (0, 1).
    lambdas : array-like of shape (m,), optional
        The candidates (default ``0, ..., m - 1``).
    pvalue : {"hoeffding", "bentkus", "hoeffding_bentkus"}, default="hoeffding_bentkus"
    fwer : {"bonferroni", "holm", "fixed_sequence"}, default="bonferroni"
    order : array-like of int, optional
        Testing order of ``"fixed_sequence"``; default the column order (put
        the most conservative candidates first).
    binary : bool, default=False
        The losses are 0/1 by construction (exact binomial tail in the
        Bentkus term).

    Returns
    -------
    RiskControlResult
        ``method="ltt"``; ``selected`` holds the certified columns and
        ``lambda_hat`` the last of them in column order (the least
        conservative when the columns run from the most to the least
        conservative); NaN and ``index = -1`` when none is certified.

    References
    ----------
    Angelopoulos, Bates, Candes, Jordan & Lei (2025), "Learn then test:
    Calibrating predictive algorithms to achieve risk control", Annals of
    Applied Statistics (arXiv:2110.01052), Theorem 1.

    Examples
    --------
    >>> import numpy as np
    >>> from statlearn.conformal import learn_then_test
    >>> rng = np.random.default_rng(0)
    >>> losses = (rng.random((500, 1)) < np.linspace(0.01, 0.5, 6)).astype(float)
    >>> res = learn_then_test(losses, alpha=0.2, delta=0.1)
    >>> res.selected.tolist(), res.index
    ([0, 1], 1)
    """
    L, lam = loss_matrix(losses, lambdas, allow_nan=True)
    alpha = check_alpha(alpha)
    delta = _check_delta(delta)
    pvalue = check_option(pvalue, "pvalue", PVALUES)
    fwer = check_option(fwer, "fwer", FWER)
    if not isinstance(binary, bool | np.bool_):
        raise TypeError(f"binary must be True or False, got {binary!r}.")
    if order is not None and fwer != "fixed_sequence":
        raise ValueError(f"order applies to fwer='fixed_sequence' only, got fwer={fwer!r}.")
    counted = ~np.isnan(L)
    if counted.any() and (np.nanmin(L) < 0 or np.nanmax(L) > 1):
        raise ValueError("losses must be in [0, 1] for the p-values of learn-then-test.")
    if binary and not ((L == 0) | (L == 1) | ~counted).all():
        raise ValueError("binary=True needs losses that are 0 or 1.")
    n_j = counted.sum(axis=0)
    total = np.nansum(L, axis=0)
    return ltt_from_risks(total, n_j, lam, alpha, delta, pvalue, fwer, order, binary)


def ltt_from_risks(total, n_j, lam, alpha, delta, pvalue, fwer, order, binary):
    """LTT from the per-candidate sums of losses ``total`` and counts ``n_j`` (validated
    arguments): the core of :func:`learn_then_test`, also used by the controllers, which
    count their 0/1 losses without forming the loss matrix."""
    risk = np.where(n_j > 0, total / np.maximum(n_j, 1), 1.0)
    if pvalue == "hoeffding":
        p = hoeffding_pvalue(risk, n_j, alpha)
    else:
        p = _PFUNCS[pvalue](risk, n_j, alpha, binary=binary)
    selected = fwer_control(p, delta, method=fwer,
                            order=order if fwer == "fixed_sequence" else None)
    index = int(selected[-1]) if selected.size else -1
    return RiskControlResult(
        method="ltt", lambdas=lam, index=index,
        lambda_hat=float(lam[index]) if index >= 0 else float("nan"), risk=risk,
        n_samples=n_j.astype(np.int64), alpha=alpha, delta=delta, bound=1.0,
        adjusted_risk=np.full(lam.size, np.nan), pvalues=np.asarray(p, dtype=np.float64),
        selected=selected, pvalue_method=pvalue, fwer=fwer)

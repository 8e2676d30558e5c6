"""The minimax decision rules of Kiyani, Hassani, Pappas and Roth (2025).

:class:`MinimaxDecisionRule` maximises the worst-case expected utility over all
conditional means that pass the calibration tests ``H`` the forecaster is known
to satisfy; :class:`SquaredErrorDecisionRule` is its closed form for the
squared-error (``d = 1``) calibration guarantee.
"""

from __future__ import annotations

import warnings

import numpy as np

from ..base import Integral, Options, Real
from ..utils import check_array, check_probabilities
from ._lp import _pointwise_1d, dual_1d, pointwise, robust_lp, worst_case_lp
from ._rules import (
    _SIMPLEX_ATOL,
    METHODS,
    OUTCOME_SETS,
    CalibrationWarning,
    _check_bounds,
    _DecisionRule,
)
from ._testfns import TEST_CLASSES, bin_edges, bin_index, check_tests, test_matrix
from ._utility import _best_response

__all__ = ["MinimaxDecisionRule", "SquaredErrorDecisionRule"]

#: with more distinct scalar forecasts than this, method="auto" takes the
#: one-dimensional solver (method="d1") instead of the LP, whose size grows with them
_D1_MIN_N = 2000


class MinimaxDecisionRule(_DecisionRule):
    """Minimax-optimal decisions for a forecaster that passes a finite set of calibration tests.

    The forecaster ``f`` is assumed ``H``-calibrated: ``E[h(V)(Y - V)] = 0`` for
    every test ``h`` in ``H`` (``V = f(X)``), or ``|.| <= eps`` with ``eps > 0``.
    The rule maximises the worst-case expected utility over all conditional
    means ``q(V)`` consistent with that promise; the worst case is the
    adversarial belief ``q*`` and the rule best-responds to it, mixing tied
    actions with the LP duals as weights (the exact minimax policy).

    Only the forecasts of a calibration split are needed (no labels).

    Parameters
    ----------
    utility_matrix : array-like of shape (n_actions, n_outcomes), default=None
        Slopes ``U[a]`` of the utilities ``u(a, y) = U[a] . y + c[a]``. None
        means the accuracy utility: guess the label, ``u(a, y) = y_a`` (for
        ``d = 1``: ``u(0, y) = 1 - y``, ``u(1, y) = y``).
    utility_offset : array-like of shape (n_actions,), default=None
        Constants ``c[a]`` (zeros when ``None``).
    tests : str, callable or list of callables, default="self_orthogonal"
        The class ``H``: ``"self_orthogonal"`` (``h_j(v) = v_j``; what squared-error
        training with a linear last layer gives), ``"decision"`` (indicators of the
        plug-in decision regions), ``"binwise"`` (indicators of ``bins``, ``d = 1``),
        ``"full"`` (every function: the rule is the plug-in rule; with ``eps > 0``
        or ``intercept`` it is robust at the calibration forecasts and plug-in at
        forecasts it has not seen), ``"none"`` (no
        promise: the maximin constant action), or callables mapping forecasts
        ``(n, d)`` to test values ``(n,)`` or ``(n, k)``.
    intercept : bool, default=False
        Add the constant test ``h(v) = 1`` (zero mean bias).
    bins : int or array-like, default=10
        Number of equal-width bins on the outcome range, or the bin edges, for
        ``tests="binwise"``.
    eps : float, default=0.0
        Approximate calibration: each test moment is only promised up to
        ``|E[h(V)(Y_j - V_j)]| <= eps`` (per test and outcome coordinate).
    outcome_set : {"auto", "box", "simplex"}, default="auto"
        Where conditional means can lie: the box ``[lo, hi]^d`` or the
        probability simplex (one-hot multiclass labels). ``"auto"`` picks the
        simplex when ``d >= 2`` and every forecast sums to one, else the box.
    outcome_bounds : tuple of float, default=(0.0, 1.0)
        The box ``[lo, hi]`` of each outcome coordinate. Forecasts outside it
        are clipped with a :class:`CalibrationWarning`.
    method : {"auto", "lp", "closed_form", "d1"}, default="auto"
        ``"lp"``: the joint LP (HiGHS) and its duals. ``"closed_form"``: for
        ``tests`` in ``{"decision", "full", "binwise"}`` with ``eps = 0``.
        ``"d1"``: exact search over the breakpoints of the one-dimensional dual
        (``d = 1``, box, one test). ``"auto"`` uses the closed form where it
        exists, ``"d1"`` for more than 2000 distinct scalar forecasts with one
        test, the LP otherwise.
    actions : array-like of shape (n_actions,), default=None
        Labels returned by :meth:`predict`.

    Attributes
    ----------
    robust_value_ : float
        Worst-case expected utility of the rule on the calibration forecasts.
    lambda_ : numpy.ndarray of shape (n_tests, n_outcomes)
        Dual multipliers: the tilt at ``v`` is ``sum_k h_k(v) lambda_[k]``.
        In simplex mode defined only up to a shift along ``(1, ..., 1)``.
    forecasts_ : numpy.ndarray of shape (n_distinct, n_outcomes)
        Distinct calibration forecasts, sorted, after clipping to the box (or
        renormalising to sum exactly to one in simplex mode). ``policy_`` and
        ``calibration_q_`` follow this order; :meth:`predict_proba` and
        :meth:`q_star` map any input back to it.
    weights_ : numpy.ndarray of shape (n_distinct,)
        Their empirical weights.
    policy_ : numpy.ndarray of shape (n_distinct, n_actions)
        Minimax mixed action at each distinct calibration forecast.
    calibration_q_ : numpy.ndarray of shape (n_distinct, n_outcomes)
        Adversarial conditional means ``q*`` at the calibration forecasts.
    outcome_set_ : str
        ``"box"`` or ``"simplex"``.
    method_ : str
        Algorithm used.
    n_tests_ : int
        Number of test functions (columns of ``H``).
    bin_edges_, bin_means_ : numpy.ndarray or None
        For ``tests="binwise"``: the edges and the mean forecast per bin (NaN if empty).

    See Also
    --------
    TrustForecastRule : the plug-in rule.
    evaluate_rules : expected utility i.i.d. and under adversaries.

    Notes
    -----
    Because the utility is affine in the outcome, only ``q(V) = E[Y | V]``
    matters and the worst case is an LP over ``q`` at the distinct
    calibration forecasts. Its duals give the multipliers ``lambda`` (Theorem 3.1
    of the paper: the robust rule best-responds to
    ``q*(v) in argmin_p val(p) + p . s_lambda(v)``) and the minimax mixing
    weights. At a new forecast, the pointwise problem with the fitted tilt is
    solved; at a calibration forecast the joint-LP policy is returned.

    References
    ----------
    S. Kiyani, H. Hassani, G. Pappas and A. Roth (2025). Robust decision making
    with partially calibrated forecasts. arXiv:2510.23471.

    Examples
    --------
    >>> import numpy as np
    >>> from statlearn.calibration import MinimaxDecisionRule
    >>> rule = MinimaxDecisionRule([[0.0], [1.0]], [0.4, 0.0]).fit([0.2, 0.8])
    >>> round(rule.robust_value_, 3), round(float(rule.lambda_[0, 0]), 3)
    (0.575, -1.25)
    >>> np.round(rule.predict_proba([0.2, 0.8]), 2)
    array([[0.75, 0.25],
           [0.  , 1.  ]])
    """

    _parameter_constraints = {
        **_DecisionRule._parameter_constraints,
        # the entries of a list of tests are checked (callable) in fit
        "tests": [Options(list(TEST_CLASSES)), "callable", list, tuple],
        "intercept": ["boolean"],
        "bins": [Integral(1), "array-like"],
        "eps": [Real(0)],
        "outcome_set": [Options(OUTCOME_SETS)],
        "outcome_bounds": ["array-like"],  # a pair lo < hi, checked in fit
        "method": [Options(METHODS)],
    }

    def __init__(self, utility_matrix=None, utility_offset=None, tests="self_orthogonal",
                 intercept=False, bins=10, eps=0.0, outcome_set="auto",
                 outcome_bounds=(0.0, 1.0), method="auto", actions=None):
        self.utility_matrix = utility_matrix
        self.utility_offset = utility_offset
        self.tests = tests
        self.intercept = intercept
        self.bins = bins
        self.eps = eps
        self.outcome_set = outcome_set
        self.outcome_bounds = outcome_bounds
        self.method = method
        self.actions = actions

    # ------------------------------------------------------------------ helpers
    def _prepare(self, X, fitting, name="X", stacklevel=3):
        """Validate forecasts, resolve the outcome set and clip to the box (warning).

        ``stacklevel`` makes the warning point at the user's call (``fit`` runs
        inside the base layer's wrapper: one frame more).
        """
        lo, hi = self.bounds_ if not fitting else _check_bounds(self.outcome_bounds)
        V = X
        simplex = (self.outcome_set_ == "simplex") if not fitting else None
        if fitting:
            sums_one = V.shape[1] >= 2 and bool(
                np.all(np.abs(V.sum(axis=1) - 1) <= _SIMPLEX_ATOL))
            if self.outcome_set == "auto":
                simplex = sums_one and lo <= 0 and hi >= 1
            elif self.outcome_set == "simplex":
                if V.shape[1] < 2:
                    raise ValueError("outcome_set='simplex' needs at least 2 outcome columns.")
                simplex = True
            else:
                simplex = False
        if simplex:
            if np.any(V < -_SIMPLEX_ATOL) or np.any(np.abs(V.sum(axis=1) - 1) > _SIMPLEX_ATOL):
                raise ValueError(f"{name}: with outcome_set='simplex' every forecast must be a "
                                 "probability vector (non-negative, summing to 1).")
            V = np.clip(V, 0.0, None)
            V = V / V.sum(axis=1, keepdims=True)
        elif np.any(V < lo) or np.any(V > hi):
            n_bad = int(np.sum(np.any((V < lo) | (V > hi), axis=1)))
            warnings.warn(f"{n_bad} forecast(s) lie outside the outcome box [{lo}, {hi}] and "
                          "were clipped to it.", CalibrationWarning, stacklevel=stacklevel)
            V = np.clip(V, lo, hi)
        return V, simplex, lo, hi

    def _check_outcomes(self, Y, name="y"):
        """Outcomes inside the fitted outcome set: the box, or probability vectors."""
        if self.outcome_set_ == "simplex":
            check_probabilities(Y, name, atol=_SIMPLEX_ATOL)
            return Y
        lo, hi = self.bounds_
        if np.any(Y < lo) or np.any(Y > hi):
            bad = Y[(Y < lo) | (Y > hi)]
            raise ValueError(f"{name} must lie in the outcome box [{lo}, {hi}] "
                             f"(outcome_bounds); got {bad.size} value(s) outside it, e.g. "
                             f"{float(bad.flat[0])!r}.")
        return Y

    def _H(self, V):
        # the tests, intercept and bins recorded at fit (set_params cannot reach them)
        return test_matrix(self._tests, V, self.utility_matrix_, self.utility_offset_,
                           intercept=self._intercept, edges=self.bin_edges_)

    # ---------------------------------------------------------------------- fit
    def fit(self, X, y=None):
        """Solve the robust problem on the calibration forecasts ``X``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_outcomes) or (n_samples,)
            Forecasts on a calibration split (labels are not needed).
        y : None
            Ignored (the rule depends only on the forecasts and ``H``).

        Returns
        -------
        self
        """
        tests = check_tests(self.tests)
        eps, method = float(self.eps), self.method
        U, c, V, actions = self._validate_common(X)
        self._tests, self._intercept, self._eps = tests, bool(self.intercept), eps
        self.utility_matrix_, self.utility_offset_ = U, c
        self.actions_, self.n_actions_ = actions, U.shape[0]
        self.n_features_in_ = V.shape[1]
        V, simplex, lo, hi = self._prepare(V, fitting=True, stacklevel=4)
        self.bounds_ = (lo, hi)
        self.outcome_set_ = "simplex" if simplex else "box"
        d = V.shape[1]
        self.bin_edges_ = self.bin_means_ = self.bin_counts_ = None
        if tests == "binwise":
            if d != 1:
                raise ValueError("tests='binwise' needs scalar forecasts (d = 1).")
            self.bin_edges_ = bin_edges(self.bins, lo, hi)
        uniq, inv, counts = np.unique(V, axis=0, return_inverse=True, return_counts=True)
        inv = np.asarray(inv).ravel()
        w = counts / counts.sum()
        Hm = self._H(uniq)
        self.n_tests_ = Hm.shape[1]
        if tests == "binwise":
            self._warn_bins(Hm, counts)
        closed = isinstance(tests, str) and tests in ("decision", "full", "binwise")
        if method == "auto":
            if closed and eps == 0 and not self._intercept:
                method = "closed_form"
            elif d == 1 and not simplex and Hm.shape[1] == 1 and len(uniq) > _D1_MIN_N:
                method = "d1"
            else:
                method = "lp"
        if method == "closed_form":
            if not closed or eps > 0 or self._intercept:
                raise ValueError("method='closed_form' needs tests in ['decision', 'full', "
                                 "'binwise'], eps=0 and intercept=False.")
            sol = self._closed_form(uniq, w, tests, counts)
        elif method == "d1":
            if d != 1 or simplex or Hm.shape[1] != 1:
                raise ValueError("method='d1' needs scalar forecasts (d = 1) in a box and "
                                 f"exactly one test function, got d={d}, "
                                 f"outcome_set={self.outcome_set_!r}, {Hm.shape[1]} tests.")
            sol = dual_1d(uniq[:, 0], w, Hm[:, 0], U, c, lo, hi, eps)
        else:
            sol = robust_lp(uniq, w, Hm, U, c, lo, hi, simplex, eps)
        self.method_ = method
        self.forecasts_, self.weights_ = uniq, w
        self.policy_, self.calibration_q_ = sol.pi, sol.q
        self.lambda_ = sol.lam
        self.robust_value_ = float(sol.value)
        return self

    def _warn_bins(self, Hm, counts):
        pts = counts @ Hm[:, : len(self.bin_edges_) - 1]
        self.bin_counts_ = pts.astype(int)
        if np.any(pts == 0):
            warnings.warn(f"{int(np.sum(pts == 0))} bin(s) hold no calibration forecast; new "
                          "forecasts falling there get the plug-in action.",
                          CalibrationWarning, stacklevel=4)
        small = (pts > 0) & (pts < 10)
        if np.any(small):
            warnings.warn(f"{int(np.sum(small))} bin(s) hold fewer than 10 calibration "
                          "forecasts; their bin means are noisy.", CalibrationWarning,
                          stacklevel=4)

    def _closed_form(self, V, w, tests, counts):
        U, c = self.utility_matrix_, self.utility_offset_
        m = U.shape[0]
        if tests in ("decision", "full"):
            q = V.copy()
            lam = np.zeros((self.n_tests_, V.shape[1]))
        else:  # binwise, d = 1
            edges = self.bin_edges_
            b = bin_index(V[:, 0], edges)
            nb = len(edges) - 1
            mass = np.bincount(b, weights=w, minlength=nb)
            means = np.full(nb, np.nan)
            ok = mass > 0
            means[ok] = np.bincount(b, weights=w * V[:, 0], minlength=nb)[ok] / mass[ok]
            self.bin_means_ = means
            q = means[b][:, None]
            a_bin = np.zeros(nb, dtype=int)
            a_bin[ok] = _best_response(means[ok][:, None], U, c)
            lam = np.where(ok, -U[a_bin, 0], 0.0)[:, None]
        a = _best_response(q, U, c)
        pi = np.eye(m)[a]
        value = float(w @ (q @ U.T + c).max(axis=1))
        from ._lp import _Solution

        return _Solution(value=value, q=q, pi=pi, lam=lam)

    # ------------------------------------------------------------------ predict
    def _lookup(self, V):
        """Index of each row of ``V`` among the calibration forecasts (-1 if absent)."""
        F = np.ascontiguousarray(self.forecasts_ + 0.0)      # + 0.0 turns -0.0 into 0.0
        keys = {row.tobytes(): i for i, row in enumerate(F)}
        Vc = np.ascontiguousarray(V + 0.0)
        return np.fromiter((keys.get(row.tobytes(), -1) for row in Vc), dtype=np.intp,
                           count=Vc.shape[0])

    def _solve_new(self, V):
        """Adversarial belief and minimax mixed action at forecasts not in the calibration set."""
        tests = self._tests
        U, c = self.utility_matrix_, self.utility_offset_
        lo, hi = self.bounds_
        if self.method_ == "closed_form":
            if tests in ("decision", "full"):
                q = V.copy()
            else:
                b = bin_index(V[:, 0], self.bin_edges_)
                means = self.bin_means_[b]
                q = np.where(np.isnan(means), V[:, 0], means)[:, None]
            return q, np.eye(self.n_actions_)[_best_response(q, U, c)]
        if tests == "full":
            # one test per calibration forecast: an unseen forecast has its own empty
            # cell, about which the tests say nothing, so it gets the plug-in action (as
            # the closed form and the empty bins of "binwise" do)
            return V.copy(), np.eye(self.n_actions_)[_best_response(V, U, c)]
        S = self._H(V) @ self.lambda_
        if V.shape[1] == 1 and self.outcome_set_ == "box":
            q, pi, _, _ = _pointwise_1d(S[:, 0], U, c, lo, hi)
            q = q[:, None]
        else:
            q, pi = pointwise(S, U, c, lo, hi, self.outcome_set_ == "simplex")
        if tests == "binwise":  # empty bins carry no information: plug-in there
            empty = self.bin_counts_[bin_index(V[:, 0], self.bin_edges_)] == 0
            q[empty] = V[empty]
            pi[empty] = np.eye(self.n_actions_)[_best_response(V[empty], U, c)]
        return q, pi

    def _predict_both(self, X):
        V = self._check_X(X)
        V, _, _, _ = self._prepare(V, fitting=False, stacklevel=4)
        idx = self._lookup(V)
        q = np.empty_like(V)
        pi = np.empty((V.shape[0], self.n_actions_))
        known = idx >= 0
        q[known], pi[known] = self.calibration_q_[idx[known]], self.policy_[idx[known]]
        if np.any(~known):
            q[~known], pi[~known] = self._solve_new(V[~known])
        return q, pi

    def predict_proba(self, X):
        """Minimax mixed action ``pi(a | v)`` at each forecast.

        At calibration forecasts this is the policy read from the joint LP's
        duals; at other forecasts the duals of the pointwise problem with the
        fitted tilt.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_outcomes) or (n_samples,)
            Forecasts.

        Returns
        -------
        numpy.ndarray of shape (n_samples, n_actions)
            Rows are probability vectors supported on actions tied at ``q*``.
        """
        self._check_fitted()
        return self._predict_both(X)[1]

    def q_star(self, X):
        """Adversarial conditional mean ``q*(v)`` at each forecast.

        At a new forecast the pointwise argmin can be a whole segment; one
        element is returned, which need not satisfy the calibration tests jointly.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_outcomes) or (n_samples,)
            Forecasts.

        Returns
        -------
        numpy.ndarray of shape (n_samples, n_outcomes)

        Examples
        --------
        >>> from statlearn.calibration import MinimaxDecisionRule
        >>> rule = MinimaxDecisionRule([[0.0], [1.0]], [0.4, 0.0]).fit([0.2, 0.8])
        >>> rule.q_star([0.2, 0.8]).ravel().round(2)
        array([0.4 , 0.75])
        """
        self._check_fitted()
        return self._predict_both(X)[0]

    def worst_case_value(self, X, policy=None):
        """Worst-case expected utility of a policy over the ambiguity set built on ``X``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_outcomes) or (n_samples,)
            Forecasts defining the ambiguity set (with this rule's tests, eps
            and outcome set).
        policy : array-like of shape (n_samples, n_actions), default=None
            Mixed actions to evaluate, one probability vector per forecast; this
            rule's :meth:`predict_proba` at ``X`` when None.

        Returns
        -------
        value : float
        q : numpy.ndarray of shape (n_samples, n_outcomes)
            The adversary's conditional means.

        Examples
        --------
        >>> from statlearn.calibration import MinimaxDecisionRule
        >>> rule = MinimaxDecisionRule([[0.0], [1.0]], [0.4, 0.0]).fit([0.2, 0.8])
        >>> plug_in = [[1.0, 0.0], [0.0, 1.0]]      # safe at 0.2, risky at 0.8
        >>> value, q = rule.worst_case_value([0.2, 0.8], plug_in)
        >>> round(value, 3), q.ravel().round(2)
        (0.5, array([1. , 0.6]))
        """
        self._check_fitted()
        V = self._check_X(X)
        if policy is None:
            pi = self.predict_proba(X)
        else:
            pi = check_array(policy, "policy", ensure_2d=False, dtype=np.float64)
            if pi.shape != (V.shape[0], self.n_actions_):
                raise ValueError(f"policy must have shape ({V.shape[0]}, {self.n_actions_}), "
                                 f"got {pi.shape}.")
            pi = check_probabilities(pi, "policy")
        V, simplex, lo, hi = self._prepare(V, fitting=False)
        w = np.full(V.shape[0], 1.0 / V.shape[0])
        sol = worst_case_lp(V, w, self._H(V), self.utility_matrix_, self.utility_offset_, pi,
                            lo, hi, simplex, self._eps)
        return sol.value, sol.q


class SquaredErrorDecisionRule(MinimaxDecisionRule):
    """Minimax rule for a regressor trained on squared error (self-orthogonal forecasts).

    A least-squares fit with a linear last layer, at a stationary point,
    satisfies ``E[f(X)(Y - f(X))] = 0`` on its training data (and
    ``E[Y - f(X)] = 0`` with an intercept). This is :class:`MinimaxDecisionRule`
    with ``tests="self_orthogonal"``.

    Parameters
    ----------
    utility_matrix : array-like of shape (n_actions, n_outcomes), default=None
        Slopes of the utilities (None: the accuracy utility, see
        :class:`MinimaxDecisionRule`).
    utility_offset : array-like of shape (n_actions,), default=None
        Constants of the utilities.
    intercept : bool, default=False
        Also require zero mean bias (a fitted intercept gives it).
    eps : float, default=0.0
        Allowed violation of each moment.
    outcome_bounds : tuple of float, default=(0.0, 1.0)
        Range of the (rescaled) target.
    method : {"auto", "lp", "d1"}, default="auto"
        Algorithm (see :class:`MinimaxDecisionRule`).
    actions : array-like of shape (n_actions,), default=None
        Labels returned by :meth:`predict`.

    Examples
    --------
    >>> from statlearn.calibration import SquaredErrorDecisionRule, affine_utility
    >>> U, c = affine_utility([0.8, 1.0, 1.2], cost_scale=0.5)
    >>> rule = SquaredErrorDecisionRule(U, c).fit([0.3, 0.5, 0.7, 0.9])
    >>> rule.predict([0.3, 0.9]).tolist()
    [0, 2]
    """

    _parameter_constraints = {
        **_DecisionRule._parameter_constraints,
        "intercept": ["boolean"],
        "eps": [Real(0)],
        "outcome_bounds": ["array-like"],  # a pair lo < hi, checked in fit
        "method": [Options(["auto", "lp", "d1"])],
    }

    def __init__(self, utility_matrix=None, utility_offset=None, intercept=False, eps=0.0,
                 outcome_bounds=(0.0, 1.0), method="auto", actions=None):
        self.utility_matrix = utility_matrix
        self.utility_offset = utility_offset
        self.intercept = intercept
        self.eps = eps
        self.outcome_bounds = outcome_bounds
        self.method = method
        self.actions = actions

    # fixed choices of the parent's parameters
    tests = "self_orthogonal"
    bins = 10
    outcome_set = "box"

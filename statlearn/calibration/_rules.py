"""Decision rules mapping forecasts to (possibly randomised) actions: what they share.

The rule base (forecast validation, fitted state, predictions from
``predict_proba``, expected utility) and :class:`TrustForecastRule`, which
best-responds to the forecast. The robust rules are in :mod:`._minimax`.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.utils.validation import _check_feature_names

from ..base import FitStateMixin
from ..utils import check_array, check_real
from ._utility import _best_response, _check_utility

__all__ = ["CalibrationWarning", "TrustForecastRule"]

METHODS = ("auto", "lp", "closed_form", "d1")
OUTCOME_SETS = ("auto", "box", "simplex")
_SIMPLEX_ATOL = 1e-6


class CalibrationWarning(UserWarning):
    """Forecasts were clipped to the outcome box, or a bin is empty or nearly so.

    Examples
    --------
    >>> import warnings
    >>> from statlearn.calibration import CalibrationWarning, MinimaxDecisionRule
    >>> with warnings.catch_warnings(record=True) as w:
    ...     warnings.simplefilter("always")
    ...     _ = MinimaxDecisionRule([[0.0], [1.0]], [0.4, 0.0]).fit([0.2, 1.2])
    >>> w[0].category is CalibrationWarning
    True
    """


def _check_bounds(outcome_bounds):
    if np.ndim(outcome_bounds) != 1 or len(outcome_bounds) != 2:
        raise TypeError(f"outcome_bounds must be a pair (lo, hi), got {outcome_bounds!r}.")
    lo = check_real(outcome_bounds[0], "outcome_bounds[0]")
    hi = check_real(outcome_bounds[1], "outcome_bounds[1]")
    if not lo < hi:
        raise ValueError(f"outcome_bounds must satisfy lo < hi, got {outcome_bounds!r}.")
    return lo, hi


def _forecasts(X, name="X"):
    V = check_array(X, name, ensure_2d=False, dtype=float)
    if V.ndim == 1:
        V = V[:, None]
    if V.ndim != 2:
        raise ValueError(f"{name} must be 1-D (scalar forecasts) or 2-D (n_samples, "
                         f"n_outcomes), got shape {V.shape}.")
    if V.shape[0] < 1:
        raise ValueError(f"{name} must contain at least one forecast.")
    return V


class _DecisionRule(FitStateMixin, BaseEstimator):
    """Shared validation, prediction and evaluation of decision rules."""

    _parameter_constraints = {
        # contents (shapes against the forecasts) are checked in fit
        "utility_matrix": [None, "array-like"],
        "utility_offset": [None, "array-like"],
        "actions": [None, "array-like"],
    }

    @classmethod
    def _statlearn_test_instances(cls):
        # the default (accuracy) utility adapts to any number of outcome columns
        return [cls()]

    @classmethod
    def _statlearn_expected_failed_checks(cls):
        return _EXPECTED_FAILED

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = False
        return tags

    def _validate_common(self, X):
        """Utility, offset, forecasts and actions at ``fit``; records ``feature_names_in_``.

        The forecast columns are outcomes, tied by position to the columns of
        ``utility_matrix``: a DataFrame's column names are recorded here, so
        that forecasts with the columns renamed or reordered are refused later
        (scikit-learn's convention) instead of read by position.
        """
        _check_feature_names(self, X, reset=True)
        V = _forecasts(X)
        U, c = _check_utility(self.utility_matrix, self.utility_offset, V.shape[1])
        if V.shape[1] != U.shape[1]:
            raise ValueError(f"X has {V.shape[1]} column(s) but utility_matrix has "
                             f"{U.shape[1]} outcome column(s); they must match.")
        if self.actions is None:
            actions = np.arange(U.shape[0])
        else:
            actions = np.asarray(self.actions)
            if actions.ndim != 1 or actions.shape[0] != U.shape[0]:
                raise ValueError(f"actions must be a 1-D sequence of length n_actions="
                                 f"{U.shape[0]}, got {self.actions!r}.")
        return U, c, V, actions

    def _check_X(self, X):
        self._check_fitted()
        _check_feature_names(self, X, reset=False)
        V = _forecasts(X)
        if np.ndim(X) == 1 and self.n_features_in_ != 1:
            raise ValueError(f"X is 1-D but this rule was fitted on {self.n_features_in_} "
                             "outcome columns. Reshape your data to (n_samples, "
                             f"{self.n_features_in_}).")
        if V.shape[1] != self.n_features_in_:
            raise ValueError(f"X has {V.shape[1]} features, but {type(self).__name__} is "
                             f"expecting {self.n_features_in_} features as input.")
        return V

    def predict(self, X):
        """Most likely action of the (possibly mixed) policy at each forecast.

        For a mixed policy this is an approximation of the minimax rule (ties go
        to the smallest action index); use :meth:`predict_proba` for the exact
        randomised policy.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_outcomes) or (n_samples,)
            Forecasts.

        Returns
        -------
        numpy.ndarray of shape (n_samples,)
            Entries of ``actions_``.
        """
        self._check_fitted()
        P = self.predict_proba(X)
        best = P.max(axis=1, keepdims=True)
        return self.actions_[np.argmax(P >= best - 1e-12, axis=1)]

    def expected_utility(self, X, y):
        """Mean utility of the randomised policy against realised outcomes ``y``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_outcomes) or (n_samples,)
            Forecasts.
        y : array-like of shape (n_samples, n_outcomes) or (n_samples,)
            Outcomes (or conditional means of the outcomes); for
            :class:`MinimaxDecisionRule` inside the outcome set (the box
            ``outcome_bounds``, or probability vectors in simplex mode).

        Returns
        -------
        float
        """
        self._check_fitted()
        P = self.predict_proba(X)
        Y = _forecasts(y, "y")
        if Y.shape != (P.shape[0], self.n_features_in_):
            raise ValueError(f"y must have shape ({P.shape[0]}, {self.n_features_in_}) "
                             f"(or ({P.shape[0]},) when d = 1), got {Y.shape}.")
        self._check_outcomes(Y)
        U, c = self.utility_matrix_, self.utility_offset_
        return float(np.mean(np.sum(P * (Y @ U.T + c), axis=1)))

    def _check_outcomes(self, Y, name="y"):
        """Outcomes must lie in the outcome set the rule was fitted for (none declared here)."""
        return Y


class TrustForecastRule(_DecisionRule):
    """Plug-in rule: best-respond to the forecast as if it were the conditional mean.

    Chooses ``argmax_a u(a, v)`` for the forecast ``v``, ties to the smallest
    action index (so the decision regions partition the forecast space). This
    is optimal when the forecaster is calibrated enough (for example decision
    calibrated for the same utility), and can be badly exposed otherwise.

    Parameters
    ----------
    utility_matrix : array-like of shape (n_actions, n_outcomes), default=None
        Slopes ``U[a]`` of the utilities ``u(a, y) = U[a] . y + c[a]``. None
        means the accuracy utility: guess the label, ``u(a, y) = y_a`` (for
        ``d = 1``: ``u(0, y) = 1 - y``, ``u(1, y) = y``).
    utility_offset : array-like of shape (n_actions,), default=None
        Constants ``c[a]`` (zeros when ``None``).
    actions : array-like of shape (n_actions,), default=None
        Labels returned by :meth:`predict` (``0..n_actions-1`` when ``None``).

    Attributes
    ----------
    n_features_in_ : int
        Outcome dimension ``d``.
    actions_ : numpy.ndarray of shape (n_actions,)
    utility_matrix_, utility_offset_ : numpy.ndarray
        Validated utility.

    See Also
    --------
    MinimaxDecisionRule : the robust alternative.

    Examples
    --------
    >>> from statlearn.calibration import TrustForecastRule
    >>> rule = TrustForecastRule([[0.0], [1.0]], [0.4, 0.0]).fit([0.2, 0.8])
    >>> rule.predict([0.2, 0.8])
    array([0, 1])
    """

    def __init__(self, utility_matrix=None, utility_offset=None, actions=None):
        self.utility_matrix = utility_matrix
        self.utility_offset = utility_offset
        self.actions = actions

    def fit(self, X, y=None):
        """Store the utility; the forecasts only fix the outcome dimension.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_outcomes) or (n_samples,)
            Forecasts.
        y : None
            Ignored.

        Returns
        -------
        self
        """
        U, c, V, actions = self._validate_common(X)
        self.utility_matrix_, self.utility_offset_ = U, c
        self.actions_ = actions
        self.n_actions_ = U.shape[0]
        self.n_features_in_ = V.shape[1]
        return self

    def predict_proba(self, X):
        """One-hot policy of the plug-in best response.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_outcomes) or (n_samples,)
            Forecasts.

        Returns
        -------
        numpy.ndarray of shape (n_samples, n_actions)
        """
        self._check_fitted()
        V = self._check_X(X)
        a = _best_response(V, self.utility_matrix_, self.utility_offset_)
        return np.eye(self.n_actions_)[a]


_EXPECTED_FAILED = {
    "check_fit1d": "1-D X means scalar forecasts (d = 1), which decision rules accept.",
}

"""Expected utility of decision rules i.i.d. and under worst-case conditional means."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from sklearn.base import clone

from ..utils import ConfidenceInterval, Summary, check_array, check_probabilities, normal_interval
from ._lp import worst_case_lp
from ._minimax import MinimaxDecisionRule
from ._rules import _DecisionRule, _forecasts

__all__ = ["RuleEvaluation", "evaluate_rules"]


@dataclass(frozen=True)
class RuleEvaluation:
    """Expected utility of several decision rules under several outcome models.

    Attributes
    ----------
    rules : tuple of str
        Names of the rules (rows).
    adversaries : tuple of str
        Names of the worst-case outcome models (columns): ``"robust dual"``
        (the adversarial ``q*`` of the robust LP on the evaluation forecasts)
        and ``"worst case for <rule>"`` (the LP minimising that rule's utility).
    values : numpy.ndarray of shape (n_rules, n_adversaries)
        Mean utility of each rule under each adversary.
    iid : numpy.ndarray of shape (n_rules,) or None
        Mean utility against the realised outcomes (None without labels).
    iid_se : numpy.ndarray of shape (n_rules,) or None
        Its standard error over the evaluation points.
    n : int
        Number of evaluation points.

    Examples
    --------
    >>> from statlearn.calibration import MinimaxDecisionRule, evaluate_rules
    >>> rule = MinimaxDecisionRule([[0.0], [1.0]], [0.4, 0.0]).fit([0.2, 0.8])
    >>> ev = evaluate_rules({"robust": rule}, [0.2, 0.8], [0.0, 1.0])
    >>> ev.iid.round(3), ev.values.round(3)
    (array([0.65]), array([[0.575, 0.575]]))
    """

    rules: tuple
    adversaries: tuple
    values: np.ndarray
    iid: np.ndarray | None
    iid_se: np.ndarray | None
    n: int

    def __repr__(self) -> str:
        return (f"RuleEvaluation(rules={self.rules}, adversaries={self.adversaries}, "
                f"n={self.n})")

    def to_frame(self) -> pd.DataFrame:
        """One row per rule: i.i.d. utility (if labelled) and each adversary's."""
        df = pd.DataFrame(self.values, index=list(self.rules), columns=list(self.adversaries))
        if self.iid is not None:
            df.insert(0, "i.i.d.", self.iid)
        df.index.name = "rule"
        return df

    def confidence_interval(self, confidence_level: float = 0.95) -> ConfidenceInterval:
        """Normal interval for each rule's i.i.d. utility (arrays over rules).

        Raises
        ------
        ValueError
            If the evaluation had no labels.
        """
        if self.iid is None:
            raise ValueError("no i.i.d. utility: evaluate_rules was called without y.")
        return normal_interval(self.iid, self.iid_se, confidence_level)

    def summary(self) -> Summary:
        """Table of utilities with the i.i.d. confidence intervals."""
        df = self.to_frame()
        notes = [f"n = {self.n} evaluation forecasts."]
        if self.iid is not None:
            lo, hi = self.confidence_interval()
            df.insert(1, "i.i.d. 95% CI", [f"[{a:.4f}, {b:.4f}]" for a, b in zip(lo, hi)])
        return Summary("Expected utility of decision rules", {"": df}, tuple(notes))

    def plot(self, ax=None):
        """Grouped bars: one group per outcome model, one bar per rule."""
        import matplotlib.pyplot as plt

        if ax is None:
            _, ax = plt.subplots(figsize=(7, 3.5))
        df = self.to_frame()
        cols = list(df.columns)
        x = np.arange(len(cols))
        width = 0.8 / len(df)
        for j, (name, row) in enumerate(df.iterrows()):
            ax.bar(x + (j - (len(df) - 1) / 2) * width, row.to_numpy(float), width,
                   label=str(name))
        if self.iid is not None:
            half = 1.96 * self.iid_se
            ax.errorbar(0 + (np.arange(len(df)) - (len(df) - 1) / 2) * width, self.iid,
                        yerr=half, fmt="none", ecolor="k", capsize=3)
        ax.set_xticks(x)
        ax.set_xticklabels(cols, rotation=15, fontsize="small")
        lo = float(np.nanmin(df.to_numpy(float)))
        hi = float(np.nanmax(df.to_numpy(float)))
        pad = 0.15 * (hi - lo + 1e-9)
        ax.set_ylim(lo - 2 * pad, hi + pad)
        ax.set_ylabel("mean utility")
        ax.legend(fontsize="small")
        return ax


def _array_policy(policy, name):
    """Precomputed mixed actions as a float array (lists, DataFrames: row by row)."""
    if isinstance(policy, str | bytes) or not (
            isinstance(policy, list | tuple | np.ndarray) or hasattr(policy, "__array__")):
        raise TypeError(f"rules[{name!r}] must be a TrustForecastRule, MinimaxDecisionRule or "
                        f"an array of mixed actions, got {type(policy).__name__}.")
    return check_array(policy, f"rules[{name!r}]", ensure_2d=False, dtype=np.float64)


def evaluate_rules(rules, X, y=None, *, ambiguity=None):
    """Expected utility of fitted decision rules i.i.d. and under worst-case outcomes.

    The worst cases range over every conditional mean ``q`` at the evaluation
    forecasts ``X`` that passes the calibration tests of ``ambiguity`` (its
    tests, eps and outcome set). Two kinds of adversary are reported: the
    robust dual's ``q*`` (the robust LP solved on ``X``) and, for each rule,
    the ``q`` that minimises that rule's expected utility (an LP).

    Parameters
    ----------
    rules : dict of str to fitted decision rule or array-like
        The rules to compare (all with the same utility), or precomputed mixed
        actions at ``X`` as arrays of shape (n_samples, n_actions) (for example
        the best response to recalibrated forecasts; lists and DataFrames are
        read as arrays, row by row).
    X : array-like of shape (n_samples, n_outcomes) or (n_samples,)
        Evaluation forecasts.
    y : array-like of shape (n_samples, n_outcomes) or (n_samples,), default=None
        Realised outcomes, for the i.i.d. utility; inside the outcome set of
        ``ambiguity`` (its box, or probability vectors in simplex mode).
    ambiguity : MinimaxDecisionRule, default=None
        Defines the ambiguity set; the first :class:`MinimaxDecisionRule` in
        ``rules`` when None.

    Returns
    -------
    RuleEvaluation

    Examples
    --------
    >>> from statlearn.calibration import (MinimaxDecisionRule, TrustForecastRule,
    ...                                    evaluate_rules)
    >>> U, c = [[0.0], [1.0]], [0.4, 0.0]
    >>> V = [0.2, 0.8]
    >>> rules = {"plug-in": TrustForecastRule(U, c).fit(V),
    ...          "robust": MinimaxDecisionRule(U, c).fit(V)}
    >>> ev = evaluate_rules(rules, V)
    >>> ev.to_frame().round(3)
             robust dual  worst case for plug-in  worst case for robust
    rule
    plug-in        0.575                     0.5                  0.625
    robust         0.575                     0.575                0.575
    """
    if not isinstance(rules, dict) or not rules:
        raise TypeError("rules must be a non-empty dict of name -> fitted decision rule.")
    rules = {name: r if isinstance(r, _DecisionRule) else _array_policy(r, name)
             for name, r in rules.items()}
    for r in rules.values():
        if isinstance(r, _DecisionRule):
            r._check_fitted("evaluate_rules")  # not fitted, or refitted params: refused
    if ambiguity is None:
        ambiguity = next((r for r in rules.values() if isinstance(r, MinimaxDecisionRule)), None)
        if ambiguity is None:
            raise ValueError("ambiguity: pass a fitted MinimaxDecisionRule (none in rules).")
    if not isinstance(ambiguity, MinimaxDecisionRule):
        raise TypeError(f"ambiguity must be a MinimaxDecisionRule, got "
                        f"{type(ambiguity).__name__}.")
    ambiguity._check_fitted("evaluate_rules")
    U, c = ambiguity.utility_matrix_, ambiguity.utility_offset_
    for name, r in rules.items():
        if isinstance(r, np.ndarray):
            continue
        if (r.utility_matrix_.shape != U.shape or not np.allclose(r.utility_matrix_, U)
                or not np.allclose(r.utility_offset_, c)):
            raise ValueError(f"rules[{name!r}] has a different utility than the ambiguity rule.")
    V = ambiguity._check_X(X)
    Vc, simplex, lo, hi = ambiguity._prepare(V, fitting=False)
    n = Vc.shape[0]
    policies = {}
    for name, r in rules.items():
        if isinstance(r, np.ndarray):
            if r.shape != (V.shape[0], U.shape[0]):
                raise ValueError(f"rules[{name!r}]: an array policy must have shape "
                                 f"({V.shape[0]}, {U.shape[0]}), got {r.shape}.")
            policies[name] = check_probabilities(r, f"rules[{name!r}]")
        else:
            policies[name] = r.predict_proba(V)
    w = np.full(n, 1.0 / n)
    Hm = ambiguity._H(Vc)
    eps = ambiguity._eps
    adversaries = {}
    robust_eval = clone(ambiguity).fit(V) if n else None
    idx = robust_eval._lookup(Vc)
    adversaries["robust dual"] = robust_eval.calibration_q_[idx]
    for name, pi in policies.items():
        sol = worst_case_lp(Vc, w, Hm, U, c, pi, lo, hi, simplex, eps)
        adversaries[f"worst case for {name}"] = sol.q
    values = np.empty((len(policies), len(adversaries)))
    for i, pi in enumerate(policies.values()):
        for j, q in enumerate(adversaries.values()):
            values[i, j] = np.mean(np.sum(pi * (q @ U.T + c), axis=1))
    iid = iid_se = None
    if y is not None:
        Y = _forecasts(y, "y")
        if Y.shape != V.shape:
            raise ValueError(f"y must have the shape of X {V.shape}, got {Y.shape}.")
        ambiguity._check_outcomes(Y)
        util = Y @ U.T + c
        per = np.stack([np.sum(pi * util, axis=1) for pi in policies.values()])
        iid = per.mean(axis=1)
        iid_se = per.std(axis=1, ddof=1) / np.sqrt(n) if n > 1 else np.full(len(per), np.nan)
    return RuleEvaluation(rules=tuple(rules), adversaries=tuple(adversaries), values=values,
                          iid=iid, iid_se=iid_se, n=n)

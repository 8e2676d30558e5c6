"""The regression scores by name, with what the wrappers need of each.

:class:`~statlearn.conformal.SplitConformalRegressor` chooses its score by
name (``conformity_score``) and never branches on the name itself: it reads
the facts of the score's entry here (``y`` response, ``mu`` point prediction):

* ``"absolute"``: ``|y - mu(x)|``; interval ``mu(x) -/+ q``.
* ``"normalized"`` (Lei et al. 2018): ``|y - mu(x)| / sigma(x)`` with a fitted
  scale model (``scaled``); interval ``mu(x) -/+ q sigma(x)``.
* ``"cqr"`` (Romano, Patterson & Candes 2019): ``max(lo(x) - y, y - hi(x))``
  with quantile regressors at levels ``alpha / 2`` and ``1 - alpha / 2``, one
  pair per level (``quantile_models``); interval ``[lo(x) - q, hi(x) + q]``.

The quantile parameter of a quantile regressor and the fit of the scale model
live here too.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from sklearn.base import clone
from sklearn.compose import TransformedTargetRegressor
from sklearn.linear_model import LinearRegression, QuantileRegressor
from sklearn.pipeline import Pipeline

__all__ = ["SCORES", "RegressionScore", "quantile_parameter"]


@dataclass(frozen=True, slots=True)
class RegressionScore:
    """One nonconformity score of :class:`~statlearn.conformal.SplitConformalRegressor`.

    Attributes
    ----------
    name : str
        The value of ``conformity_score``.
    default_estimator : callable
        ``default_estimator()``: the base model when ``estimator=None``.
    quantile_models : bool
        The score reads a lower and an upper quantile regressor per level of
        ``alpha`` (CQR) instead of a point model: the models depend on the
        levels, and a prefit model is a ``(lower, upper[, median])`` tuple.
    scaled : bool
        The residual is divided by a fitted scale ``sigma(x) > 0``, and the
        interval's half-width is ``q sigma(x)`` instead of ``q``.

    Examples
    --------
    >>> from statlearn.conformal._regression._scores import SCORES
    >>> list(SCORES)
    ['absolute', 'normalized', 'cqr']
    >>> SCORES["cqr"].quantile_models, SCORES["normalized"].scaled
    (True, True)
    """

    name: str
    default_estimator: Callable
    quantile_models: bool = False
    scaled: bool = False


#: The scores of :class:`~statlearn.conformal.SplitConformalRegressor`, in the
#: order its ``conformity_score`` options are listed.
SCORES = {s.name: s for s in (
    RegressionScore("absolute", LinearRegression),
    RegressionScore("normalized", LinearRegression, scaled=True),
    RegressionScore("cqr", lambda: QuantileRegressor(alpha=0.0, solver="highs"),
                    quantile_models=True),
)}


def _final_step(est):
    """The last step of a (nested) Pipeline and the prefix of its parameter names."""
    prefix = ""
    while isinstance(est, Pipeline):
        name, est = est.steps[-1]
        prefix += f"{name}__"
    return est, prefix


def quantile_parameter(estimator):
    """Name of the parameter that sets the quantile level of a quantile regressor.

    Recognises :class:`~sklearn.linear_model.QuantileRegressor` and
    :class:`~sklearn.ensemble.HistGradientBoostingRegressor` (``quantile``),
    :class:`~sklearn.ensemble.GradientBoostingRegressor` and LightGBM
    (``alpha`` with ``loss``/``objective="quantile"``), also as the last step
    of a :class:`~sklearn.pipeline.Pipeline`.

    Raises
    ------
    TypeError
        When the estimator is not a quantile regressor.

    Examples
    --------
    >>> from sklearn.ensemble import GradientBoostingRegressor
    >>> from statlearn.conformal._regression._scores import quantile_parameter
    >>> quantile_parameter(GradientBoostingRegressor(loss="quantile"))
    'alpha'
    """
    final, prefix = _final_step(estimator)
    params = final.get_params(deep=False) if hasattr(final, "get_params") else {}
    loss = params.get("loss", params.get("objective"))
    if "quantile" in params and (loss is None or loss == "quantile"):
        return prefix + "quantile"
    if loss == "quantile" and "alpha" in params:
        return prefix + "alpha"
    raise TypeError(
        "conformity_score='cqr' needs a quantile regressor, e.g. "
        "GradientBoostingRegressor(loss='quantile'), HistGradientBoostingRegressor("
        "loss='quantile') or QuantileRegressor(); got "
        f"{type(final).__name__}" + (f" with loss={loss!r}" if loss is not None else "")
        + ".")


def _with_quantile(estimator, level):
    est = clone(estimator)
    return est.set_params(**{quantile_parameter(estimator): float(level)})


def _fit_scale(estimator, X, abs_res):
    """Fit ``estimator`` to ``log |residual|``; it then predicts ``sigma(x) = exp(.)``."""
    pos = abs_res[abs_res > 0]
    floor = 1e-6 * float(pos.mean()) if pos.size else 1.0
    model = TransformedTargetRegressor(regressor=clone(estimator), func=np.log,
                                       inverse_func=np.exp, check_inverse=False)
    return model.fit(X, np.maximum(abs_res, floor))


"""Predictions of the released model of a :class:`NewtonUnlearner`.

The released model is ``coef_`` and ``intercept_`` (with the noise of the
last request); every prediction reads them and nothing else.
"""

from __future__ import annotations

import numpy as np
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import validate_data

from ..utils import get_namespace, to_numpy
from ..utils._array_api import input_namespace, is_numpy_namespace
from ..utils._validation import check_scored_target

__all__ = ["ReleasedModelPredictions"]


class ReleasedModelPredictions:
    """Mixin: ``decision_function``, ``predict``, ``predict_proba`` and ``score``.

    The host class provides ``_check_fitted``, ``_validate_xp``, ``_cfg``
    (its loss), ``loss_``, ``classes_``, ``coef_`` and ``intercept_``.
    """

    def _check_X(self, X):
        self._check_fitted()
        xp = input_namespace(X)
        if is_numpy_namespace(xp):
            return validate_data(self, X, dtype=np.float64, reset=False)
        return self._validate_xp(X, xp, reset=False)

    def _is_logistic(self):
        return self._cfg.loss == "logistic"

    @available_if(_is_logistic)
    def decision_function(self, X):
        """Linear predictor ``X @ coef_ + intercept_`` of the released model.

        Parameters
        ----------
        X : array of shape (n_samples, n_features)

        Returns
        -------
        array of shape (n_samples,)
        """
        self._check_fitted()
        return self._linear_predictor(X)

    def _linear_predictor(self, X):
        X = self._check_X(X)
        return X @ self.coef_ + self.intercept_

    def predict(self, X):
        """Class labels (logistic), ``x^T beta`` (squared) or ``exp(x^T beta)`` (poisson).

        Parameters
        ----------
        X : array of shape (n_samples, n_features)

        Returns
        -------
        array of shape (n_samples,)
        """
        self._check_fitted()
        z = self._linear_predictor(X)
        if self.loss_ == "logistic":
            labels = to_numpy(z) > 0
            return self.classes_[labels.astype(int)]
        if self._cfg.loss == "poisson":
            return get_namespace(z).exp(z)
        return z

    @available_if(_is_logistic)
    def predict_proba(self, X):
        """Class probabilities of the released logistic model.

        Parameters
        ----------
        X : array of shape (n_samples, n_features)

        Returns
        -------
        array of shape (n_samples, 2)
        """
        self._check_fitted()
        z = self._linear_predictor(X)
        xp = get_namespace(z)
        p1 = 1.0 / (1.0 + xp.exp(-z))
        return xp.stack([1.0 - p1, p1], axis=1)

    def score(self, X, y):
        """Accuracy (logistic) or the coefficient of determination R^2 (other losses).

        Parameters
        ----------
        X : array of shape (n_samples, n_features)
        y : array of shape (n_samples,)

        Returns
        -------
        float

        Examples
        --------
        >>> from statlearn.unlearning import NewtonUnlearner, make_glm_data
        >>> X, y, _ = make_glm_data(300, 5, random_state=0)
        >>> est = NewtonUnlearner(random_state=0).fit(X[:200], y[:200])
        >>> bool(0.5 < est.score(X[200:], y[200:]) <= 1.0)
        True
        """
        from sklearn.metrics import accuracy_score, r2_score

        self._check_fitted()
        pred = to_numpy(self.predict(X))
        y = to_numpy(y)
        check_scored_target(X, y)
        if self._cfg.loss == "logistic":
            return float(accuracy_score(y, pred))
        return float(r2_score(y, pred))

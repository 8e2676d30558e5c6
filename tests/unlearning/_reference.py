"""Reference solvers for the unlearning tests, written from the definitions.

Minimisers come from a plain Newton solver (ridge closed form for the squared
loss, IRLS for the logistic and Poisson losses, an intercept column left
unpenalised); the profiled intercept is a 1-D Newton solve; the radius is
``C1 sqrt(C2 m^3 / (2 alpha n))`` of Pandey et al. (2025), Theorem 2 (with
``nu = 1``). Nothing here calls the library.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["derivs", "design", "grad", "guo_step", "hess", "penalty", "profiled", "radius",
           "sigmoid", "solve"]


def sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


def derivs(loss, y, z):
    """First and second derivatives of the loss in the linear predictor."""
    if loss == "squared":
        return z - y, np.ones_like(z)
    if loss == "logistic":
        s = sigmoid(z)
        return s - y, s * (1 - s)
    mu = np.exp(z)
    return mu - y, mu


def design(X, intercept):
    return np.c_[X, np.ones(len(X))] if intercept else X


def penalty(p, alpha, intercept):
    pen = np.full(p, alpha)
    if intercept:
        pen[-1] = 0.0
    return pen


def grad(theta, Z, y, loss, pen):
    d1, _ = derivs(loss, y, Z @ theta)
    return Z.T @ d1 + pen * theta


def hess(theta, Z, y, loss, pen):
    _, d2 = derivs(loss, y, Z @ theta)
    return Z.T @ (d2[:, None] * Z) + np.diag(pen)


def solve(Z, y, loss, pen, theta=None):
    theta = np.zeros(Z.shape[1]) if theta is None else theta.copy()
    for _ in range(100):
        step = np.linalg.solve(hess(theta, Z, y, loss, pen), grad(theta, Z, y, loss, pen))
        theta -= step
        if np.linalg.norm(step) < 1e-14 * (1 + np.linalg.norm(theta)):
            break
    return theta


def profiled(coef, X, y, loss):
    """Exact minimiser over the intercept with the coefficients fixed (1-D Newton)."""
    z = X @ coef
    if loss == "squared":
        return float(np.mean(y - z))
    if loss == "poisson":
        return float(np.log(y.sum() / np.exp(z).sum()))
    b = 0.0
    for _ in range(200):
        s = sigmoid(z + b)
        step = (s.sum() - y.sum()) / (s * (1 - s)).sum()
        b -= step
        if abs(step) < 1e-15:
            break
    return b


def radius(n, m, alpha, c1=1.0, c2=1.0):
    return c1 * math.sqrt(c2 * m**3 / (2 * alpha * n))


def guo_step(theta, X, y, alpha, shift):
    """Newton direction of the perturbed logistic objective (Guo et al., 2020)."""
    g = X.T @ (sigmoid(X @ theta) - y) + alpha * theta + shift
    s = sigmoid(X @ theta)
    H = X.T @ ((s * (1 - s))[:, None] * X) + alpha * np.eye(X.shape[1])
    return np.linalg.solve(H, g)

"""The per-example losses of the unlearning GLMs and their derivatives (elementwise).

Losses ``l(y | z)`` and their first two derivatives in ``z``:

* ``"squared"``: ``(y - z)^2 / 2``, ``z - y``, ``1``;
* ``"logistic"``: ``log(1 + e^z) - y z`` with ``y`` in {0, 1}, ``sigmoid(z) - y``,
  ``sigmoid(z) (1 - sigmoid(z))``;
* ``"poisson"``: ``e^z - y z``, ``e^z - y``, ``e^z``.

A leaf of the area: the solvers (:mod:`._glm`) and the request kernels
(:mod:`._kernels`) both use it, and it imports neither.
"""

from __future__ import annotations

import numpy as np

__all__ = ["LOSSES", "loss_derivatives", "loss_value"]

LOSSES = ("squared", "logistic", "poisson")


def _sigmoid(z, xp):
    if isinstance(z, np.ndarray):
        from scipy.special import expit

        return expit(z)  # one pass, no temporaries (the same values up to rounding)
    e = xp.exp(-xp.abs(z))
    return xp.where(z >= 0, 1.0 / (1.0 + e), e / (1.0 + e))


def loss_value(y, z, loss, xp):
    """Per-example loss ``l(y | z)`` (elementwise)."""
    if loss == "squared":
        return 0.5 * (y - z) ** 2
    if loss == "logistic":
        return xp.logaddexp(xp.zeros_like(z), z) - y * z
    return xp.exp(z) - y * z


def loss_derivatives(y, z, loss, xp):
    """First and second derivatives of ``l(y | z)`` in ``z`` (elementwise)."""
    if loss == "squared":
        return z - y, xp.ones_like(z)
    if loss == "logistic":
        s = _sigmoid(z, xp)
        return s - y, s * (1.0 - s)
    ez = xp.exp(z)
    return ez - y, ez

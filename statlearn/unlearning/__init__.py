"""Certified machine unlearning for regularised GLMs (one Newton step + Gaussian noise).

Implements Pandey, Auddy, Zou, Maleki and Kulkarni (2025), "Gaussian certified
unlearning in high dimensions: a hypothesis testing approach" (arXiv:2510.13094),
with the baselines of Zou et al. (2025, l2-Laplace noise), Guo et al. (2020) and
Sekhari et al. (2021) as options.
"""

from ._estimator import NewtonUnlearner
from ._glm import make_glm_data
from ._metrics import ged, ued
from ._privacy import (
    compose_gdp,
    draw_noise,
    gaussian_tradeoff,
    gdp_to_dp_delta,
    guo_noise_std,
    noise_radius,
    sekhari_noise_std,
)
from ._results import DivergenceResult, UnlearningReport
from ._warnings import UnlearningWarning

__all__ = [
    "DivergenceResult",
    "NewtonUnlearner",
    "UnlearningReport",
    "UnlearningWarning",
    "compose_gdp",
    "draw_noise",
    "gaussian_tradeoff",
    "gdp_to_dp_delta",
    "ged",
    "guo_noise_std",
    "make_glm_data",
    "noise_radius",
    "sekhari_noise_std",
    "ued",
]

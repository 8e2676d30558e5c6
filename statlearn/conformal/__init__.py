"""Conformal prediction sets and conformal selection."""

from ._quantile import conformal_quantile, conformal_rank

__all__ = ["conformal_quantile", "conformal_rank"]

"""The classification scores by name, with what the classifier needs of each.

:class:`~statlearn.conformal.SplitConformalClassifier` (and
:class:`~statlearn.conformal.CrossConformalClassifier`) chooses its score by
name (``conformity_score``) and never branches on the name itself: it reads
the score's entry here, which gives

* ``label_scores``: the scores of the calibration labels (or of every label),
* ``sets``: the prediction sets for per-label thresholds,
* ``draws_u``: whether a randomised form draws one ``U ~ Unif(0, 1)`` per row
  (APS, RAPS with ``randomized_score=True``),
* ``weights``: the estimator parameters the score reads (``lam``, ``k_reg``),
  each a number or ``"auto"``, fitted as ``lam_``, ``k_reg_``,
* ``tune``: how the ``"auto"`` weights are chosen on a tuning split,
* ``reads``: the other estimator parameters the score reads (``k0``,
  ``randomized_score``); the score-specific parameters it does not read are
  refused when set (:meth:`ClassificationScore.refuse_unread`).

A new score is one more entry (and its functions in a module of its own).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import array_api_compat.numpy
import numpy as np

from ...base import _refuse_inactive_params
from .. import _kernels
from ._baselines import _aps, _aps_sets, _lac, _raps, _topk, tune_raps
from ._parallel import run_rows
from ._socop import _socop, _socop_sets, select_lambda

__all__ = ["SCORES", "ClassificationScore"]

_NP = array_api_compat.numpy
#: how each weight parameter is read when it is a number
_WEIGHT_TYPES = {"lam": float, "k_reg": int}
#: the estimator parameters that only some scores read
_SCORE_PARAMS = ("lam", "k0", "k_reg", "randomized_score")


@dataclass(frozen=True, slots=True)
class ClassificationScore:
    """One nonconformity score of :class:`~statlearn.conformal.SplitConformalClassifier`.

    The functions take the fitted classifier ``est`` last and read from it the
    weights in force (``lam_``, ``k_reg_``, ``k0_``) and the calibration
    options (``alpha_``, ``randomized_score_``, ``lam_grid``).

    Attributes
    ----------
    name : str
        The value of ``conformity_score``.
    label_scores : callable
        ``label_scores(proba, labels, u, est)``: scores of shape ``(n,)`` for
        label indices ``labels``, or ``(n, K)`` when ``labels`` is None.
    sets : callable
        ``sets(proba, u, thresholds, est)``: boolean mask ``(n, K)`` of the
        prediction sets for the per-label ``thresholds``.
    draws_u : bool
        The randomised score draws one uniform per row (when
        ``randomized_score=True``); ``u`` is None otherwise.
    weights : tuple of str
        Estimator parameters the score reads (``"lam"``, ``"k_reg"``); when one
        of them is ``"auto"`` the calibration data is split to choose them.
    tune : callable or None
        ``tune(est, proba, labels, rng, mondrian)``: the fitted weights, as a
        dict of attributes (``lam_``, ``k_reg_``, ``lam_selection_``).
    reads : tuple of str
        The other estimator parameters the score reads (``"k0"``,
        ``"randomized_score"``).

    Examples
    --------
    >>> from statlearn.conformal._classification._registry import SCORES
    >>> list(SCORES)
    ['socop', 'lac', 'aps', 'raps', 'topk']
    >>> SCORES["raps"].weights, SCORES["raps"].draws_u
    (('lam', 'k_reg'), True)
    """

    name: str
    label_scores: Callable
    sets: Callable
    draws_u: bool = False
    weights: tuple = ()
    tune: Callable | None = None
    reads: tuple = ()

    def refuse_unread(self, est):
        """Refuse the parameters of ``est`` this score never reads, unless at their defaults.

        Of ``lam``, ``k0``, ``k_reg`` and ``randomized_score``, those outside
        :attr:`weights` and :attr:`reads`; and, where ``est`` has them,
        ``tune_fraction`` unless a weight is ``"auto"`` and ``lam_grid`` unless
        ``lam`` is (they only serve the choice of the weights).
        """
        why = f"with conformity_score={self.name!r}"
        read = set(self.weights) | set(self.reads)
        _refuse_inactive_params(est, [p for p in _SCORE_PARAMS
                                      if p not in read and hasattr(est, p)], why)
        if hasattr(est, "tune_fraction") and not self.needs_tuning(est):
            _refuse_inactive_params(est, ("tune_fraction",), why + " when no weight is "
                                    "'auto' (it sizes the split that chooses them)")
        if hasattr(est, "lam_grid") and not ("lam" in self.weights
                                             and isinstance(est.lam, str)):
            _refuse_inactive_params(est, ("lam_grid",), why + " unless lam='auto' (it holds "
                                    "the candidates for lam)")

    def needs_tuning(self, est):
        """Whether one of the score's weights is ``"auto"`` for ``est``."""
        return any(isinstance(getattr(est, w), str) for w in self.weights)

    def fixed_weights(self, est):
        """The weights as given (none of them ``"auto"``), as fitted attributes."""
        return {f"{w}_": _WEIGHT_TYPES[w](getattr(est, w)) for w in self.weights}


# --------------------------------------------------------------------------- SOCOP
def _socop_label_scores(proba, labels, u, est):
    return _socop(proba, est.lam_, est.k0_, labels, _NP)


def _socop_set_mask(proba, u, q, est):
    return _socop_sets(proba, est.lam_, est.k0_, q, _NP)


def _tune_socop(est, proba, labels, rng, mondrian):
    # Wang, Sun & Dobriban (2025): the Kneedle knee of the tuning curve
    sel = select_lambda(proba, labels, est.alpha_, est.lam_grid, est.k0_, mondrian, warn=True)
    return {"lam_selection_": sel, "lam_": sel.lam}


# --------------------------------------------------------------------------- LAC
def _lac_label_scores(proba, labels, u, est):
    return _lac(proba, labels, _NP)


def _lac_set_mask(proba, u, q, est):
    return run_rows("lac_sets", _kernels.lac_sets_kernel_serial, _kernels.lac_sets_kernel,
                    (np.ascontiguousarray(proba),), (q,))


# --------------------------------------------------------------------------- top-k
def _topk_label_scores(proba, labels, u, est):
    return _topk(proba, labels, _NP)


def _topk_set_mask(proba, u, q, est):
    return _topk(proba, None, _NP) <= q[None, :]


# --------------------------------------------------------------------------- APS, RAPS
def _aps_label_scores(proba, labels, u, est):
    return _aps(proba, labels, u, _NP)


def _aps_set_mask(proba, u, q, est):
    return _aps_sets(proba, u, q, 0.0, 0, _NP)


def _raps_label_scores(proba, labels, u, est):
    return _raps(proba, labels, u, est.lam_, est.k_reg_, _NP)


def _raps_set_mask(proba, u, q, est):
    return _aps_sets(proba, u, q, est.lam_, est.k_reg_, _NP)


def _tune_raps(est, proba, labels, rng, mondrian):
    lam, k_reg = tune_raps(proba, labels, est.alpha_, est.lam, est.k_reg, est.lam_grid,
                           est.randomized_score_, mondrian, rng)
    return {"k_reg_": k_reg, "lam_": lam}


#: The scores of :class:`~statlearn.conformal.SplitConformalClassifier`, in the
#: order its ``conformity_score`` options are listed.
SCORES = {s.name: s for s in (
    ClassificationScore("socop", _socop_label_scores, _socop_set_mask, weights=("lam",),
                        tune=_tune_socop, reads=("k0",)),
    ClassificationScore("lac", _lac_label_scores, _lac_set_mask),
    ClassificationScore("aps", _aps_label_scores, _aps_set_mask, draws_u=True,
                        reads=("randomized_score",)),
    ClassificationScore("raps", _raps_label_scores, _raps_set_mask, draws_u=True,
                        weights=("lam", "k_reg"), tune=_tune_raps, reads=("randomized_score",)),
    ClassificationScore("topk", _topk_label_scores, _topk_set_mask),
)}

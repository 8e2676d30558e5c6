"""Agreement with MAPIE's CrossConformalClassifier on identical folds and models.

MAPIE is an optional test dependency. Where the definitions coincide the
scores and sets must agree (scores to 1e-10); where they differ the test pins
the difference down, rebuilding MAPIE's output from statlearn's pieces:

* LAC, ``"crossval"``: MAPIE keeps ``y`` when ``#{i : s(x, y) <= s_i} >=
  alpha (n - 1)``; the CV+ rule (Romano et al. 2020) keeps it when that count
  is ``>= n + 1 - k = floor(alpha (n + 1))`` (``k = ceil((1 - alpha)(n + 1))``,
  ``alpha (n + 1)`` not an integer). The two thresholds coincide for many
  ``n`` (e.g. ``n = 200``, ``alpha = 0.1``: 20 and 20) and differ by one for
  others (``n = 105``: 10 against 11, so MAPIE's sets are smaller).
* APS: MAPIE always calibrates on randomised scores (``cumsum - U p_y``) and
  predicts deterministic sets (``include_last_label=True``); statlearn's
  ``randomized_score`` applies to both. With MAPIE's calibration scores,
  statlearn's deterministic set construction gives MAPIE's sets exactly, for
  both aggregations.
* top-k: MAPIE's score is the 0-based position (statlearn's the 1-based
  rank); the ``"mean"`` sets are equal, and MAPIE fails on ``"crossval"``.
* RAPS: MAPIE refuses it with cross-validation; SOCOP is not in MAPIE.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import KFold

from statlearn.conformal import CrossConformalClassifier, cv_plus_counts
from statlearn.conformal._classification._registry import SCORES
from statlearn.datasets import make_softmax_classification

mapie_classification = pytest.importorskip("mapie.classification")


def _data(n_train, seed=1):
    X, y = make_softmax_classification(n_train + 300, n_classes=4, n_features=4, scale=1.5,
                                       random_state=seed)
    return X[:n_train], y[:n_train], X[n_train:]


def _mapie(score, Xtr, ytr, splitter, alpha, random_state=7):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return mapie_classification.CrossConformalClassifier(
            LogisticRegression(), confidence_level=1 - alpha, conformity_score=score,
            cv=splitter, random_state=random_state).fit_conformalize(Xtr, ytr)


def _mapie_sets(m, Xt, agg):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return m.predict_set(Xt, agg_scores=agg)[1][:, :, 0]


@pytest.mark.parametrize("aggregation", ["mean", "crossval"])
def test_lac_equals_mapie(aggregation):
    Xtr, ytr, Xt = _data(200)
    splitter = KFold(5, shuffle=True, random_state=3)
    m = _mapie("lac", Xtr, ytr, splitter, 0.1)
    ours = CrossConformalClassifier(LogisticRegression(), cv=splitter, alpha=0.1,
                                    aggregation=aggregation).fit(Xtr, ytr)
    np.testing.assert_allclose(ours.calib_scores_, m.conformity_scores.ravel(), rtol=1e-10,
                               atol=1e-10)
    sets = ours.predict_set(Xt)
    np.testing.assert_array_equal(sets, _mapie_sets(m, Xt, aggregation))
    assert 1.2 < sets.sum(axis=1).mean() < 3.5  # informative sets, not trivial ones


def test_lac_crossval_rank_differs_from_mapie_for_some_n():
    n, alpha = 105, 0.1
    Xtr, ytr, Xt = _data(n, seed=2)
    splitter = KFold(5, shuffle=True, random_state=4)
    m = _mapie("lac", Xtr, ytr, splitter, alpha)
    ours = CrossConformalClassifier(LogisticRegression(), cv=splitter, alpha=alpha).fit(Xtr, ytr)
    S = ours.fold_label_scores(Xt)
    at_least = n - cv_plus_counts(S, ours.fold_of_, ours.calib_scores_)  # #{s_i >= s(x, y)}
    # CV+: count >= floor(alpha (n + 1)) = 10; MAPIE: count >= alpha (n - 1) = 10.4
    np.testing.assert_array_equal(ours.predict_set(Xt), at_least >= 10)
    theirs = _mapie_sets(m, Xt, "crossval")
    np.testing.assert_array_equal(theirs, at_least >= 11)
    assert np.any(at_least == 10)  # the labels on which the two disagree exist here
    assert np.all(theirs <= ours.predict_set(Xt))


def test_aps_scores_equal_mapie_and_sets_differ_only_by_calibration():
    Xtr, ytr, Xt = _data(200, seed=3)
    splitter = KFold(5, shuffle=True, random_state=5)
    m = _mapie("aps", Xtr, ytr, splitter, 0.1, random_state=7)
    theirs_scores = m.conformity_scores.ravel()
    u = np.random.RandomState(7).uniform(size=ytr.size)  # MAPIE's calibration uniforms
    ours = CrossConformalClassifier(LogisticRegression(), conformity_score="aps", cv=splitter,
                                    randomized_score=False).fit(Xtr, ytr)
    # MAPIE's score cumsum - U p_y is statlearn's randomised score with 1 - U
    from statlearn.conformal import aps_scores

    mine = aps_scores(ours.oof_proba_, ours.calib_labels_, u=1 - u)
    np.testing.assert_allclose(mine, theirs_scores, rtol=1e-10, atol=1e-12)
    # with MAPIE's calibration scores, statlearn's deterministic sets are MAPIE's sets
    n, k = ytr.size, 181  # ceil(0.9 * 201)
    q = np.sort(theirs_scores)[k - 1]
    p_bar = np.mean([f.predict_proba(Xt) for f in ours.fold_estimators_], axis=0)
    rebuilt = SCORES["aps"].sets(p_bar, None, np.full(4, q), ours)
    np.testing.assert_array_equal(rebuilt, _mapie_sets(m, Xt, "mean"))
    rebuilt = cv_plus_counts(ours.fold_label_scores(Xt), ours.fold_of_, theirs_scores) < k
    np.testing.assert_array_equal(rebuilt, _mapie_sets(m, Xt, "crossval"))
    assert n == 200
    # statlearn calibrates the deterministic score too: its sets are never smaller
    assert np.all(ours.predict_set(Xt) >= rebuilt)


def test_topk_mean_equals_mapie_up_to_the_zero_based_score():
    Xtr, ytr, Xt = _data(200, seed=4)
    splitter = KFold(5, shuffle=True, random_state=6)
    m = _mapie("top_k", Xtr, ytr, splitter, 0.1)
    ours = CrossConformalClassifier(LogisticRegression(), conformity_score="topk", cv=splitter,
                                    aggregation="mean").fit(Xtr, ytr)
    np.testing.assert_array_equal(ours.calib_scores_, m.conformity_scores.ravel() + 1)
    np.testing.assert_array_equal(ours.predict_set(Xt), _mapie_sets(m, Xt, "mean"))
    with pytest.raises(ValueError):
        _mapie_sets(m, Xt, "crossval")


def test_mapie_refuses_raps_with_cross_validation():
    Xtr, ytr, Xt = _data(100, seed=5)
    with pytest.raises(ValueError, match="RAPS"):
        _mapie("raps", Xtr, ytr, KFold(5, shuffle=True, random_state=0), 0.1)
    ours = CrossConformalClassifier(conformity_score="raps", cv=5, random_state=0).fit(Xtr, ytr)
    assert ours.predict_set(Xt).shape == (300, 4)

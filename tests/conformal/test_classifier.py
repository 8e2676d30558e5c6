"""SplitConformalClassifier: API, composition with scikit-learn, options, bad input."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV
from sklearn.naive_bayes import GaussianNB
from sklearn.pipeline import Pipeline, make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import LinearSVC

from statlearn.conformal import (
    DEFAULT_LAM_GRID,
    PredictionSetResult,
    SplitConformalClassifier,
    conformal_scorer,
    socop_scores,
)
from statlearn.conformal._classifier import RAPS_LAM_GRID
from statlearn.datasets import make_softmax_classification


@pytest.fixture(scope="module")
def data():
    X, y = make_softmax_classification(1500, n_classes=6, n_features=5, scale=1.5,
                                       random_state=0)
    return X[:1000], y[:1000], X[1000:], y[1000:]


def _top_j(sets, proba):
    order = np.argsort(-proba, axis=1, kind="stable")
    by_rank = np.take_along_axis(sets, order, axis=1)
    size = by_rank.sum(axis=1)
    return np.all(by_rank == (np.arange(proba.shape[1])[None, :] < size[:, None]))


@pytest.mark.parametrize("score", ["socop", "lac", "aps", "raps", "topk"])
def test_fit_predict_set(data, score):
    X, y, Xt, yt = data
    clf = SplitConformalClassifier(conformity_score=score, alpha=0.1, random_state=0).fit(X, y)
    sets = clf.predict_set(Xt)
    assert sets.shape == (500, 6) and sets.dtype == bool
    np.testing.assert_array_equal(clf.classes_, np.arange(6))
    proba = clf.predict_proba(Xt)
    assert _top_j(sets, proba)
    np.testing.assert_array_equal(clf.predict(Xt), np.argmax(proba, axis=1))
    assert clf.threshold_.shape == (6,) and np.all(clf.threshold_ == clf.threshold_[0])
    assert clf.label_scores(Xt).shape == (500, 6)
    res = clf.evaluate(Xt, yt)
    assert isinstance(res, PredictionSetResult)
    assert clf.score(Xt, yt) == pytest.approx(-res.mean_size)
    # same seed, same sets
    again = SplitConformalClassifier(conformity_score=score, random_state=0).fit(X, y)
    np.testing.assert_array_equal(again.predict_set(Xt), sets)


def test_sets_follow_threshold_of_calibration_scores(data):
    X, y, Xt, _ = data
    clf = SplitConformalClassifier(lam=0.1, random_state=1).fit(X, y)
    assert clf.lam_ == 0.1 and clf.lam_selection_ is None
    assert clf.n_calib_ == 300  # calib_size = 0.3, no tuning split for a fixed lam
    scores = socop_scores(clf.predict_proba(Xt), 0.1)
    np.testing.assert_array_equal(clf.predict_set(Xt), scores <= clf.threshold_[0])
    np.testing.assert_allclose(clf.label_scores(Xt), scores)
    k = int(np.ceil(301 * 0.9))
    assert clf.threshold_[0] == np.sort(clf.calib_scores_)[k - 1]


def test_prefit_and_calibrate(data):
    X, y, Xt, _ = data
    base = LogisticRegression().fit(X[:600], y[:600])
    clf = SplitConformalClassifier(base, prefit=True, lam=0.05, random_state=0)
    clf.fit(X[600:], y[600:])
    assert clf.estimator_ is base and clf.n_calib_ == 400
    other = SplitConformalClassifier(base, prefit=True, lam=0.05).calibrate(X[600:], y[600:])
    np.testing.assert_array_equal(other.predict_set(Xt), clf.predict_set(Xt))
    # recalibrating a fitted wrapper on new data keeps its model
    fitted = SplitConformalClassifier(lam=0.05, random_state=0).fit(X[:600], y[:600])
    model = fitted.estimator_
    fitted.calibrate(X[600:], y[600:])
    assert fitted.estimator_ is model and fitted.n_calib_ == 400


def test_auto_lambda_uses_a_tuning_split(data):
    X, y, _, _ = data
    clf = SplitConformalClassifier(random_state=0).fit(X, y)
    assert clf.lam_ in DEFAULT_LAM_GRID
    assert clf.lam_selection_.method in ("knee", "fallback")
    assert clf.n_calib_ == 300 - 60  # 20% of the calibration data goes to tuning
    frame = clf.lam_selection_.to_frame()
    assert list(frame["lam"]) == list(DEFAULT_LAM_GRID) and frame["chosen"].sum() >= 1
    custom = SplitConformalClassifier(lam_grid=[0.0, 0.3], random_state=0).fit(X, y)
    assert custom.lam_ in (0.0, 0.3)


def test_raps_auto_parameters(data):
    X, y, _, _ = data
    clf = SplitConformalClassifier(conformity_score="raps", random_state=0).fit(X, y)
    assert clf.lam_ in RAPS_LAM_GRID and 1 <= clf.k_reg_ <= 6
    fixed = SplitConformalClassifier(conformity_score="raps", lam=0.2, k_reg=2).fit(X, y)
    assert (fixed.lam_, fixed.k_reg_) == (0.2, 2) and fixed.n_calib_ == 300


def test_string_labels_and_class_missing_from_training():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 3))
    y = np.where(X[:, 0] > 0, "cat", "dog").astype(object)
    y[7] = "emu"  # a single example: it may fall in either split
    for seed in range(4):
        clf = SplitConformalClassifier(lam=0.1, random_state=seed).fit(X, y)
        assert list(clf.classes_) == ["cat", "dog", "emu"]
        sets = clf.predict_set(X[:20])
        assert sets.shape == (20, 3)
        assert set(clf.predict(X[:20])) <= {"cat", "dog", "emu"}


def test_mondrian_thresholds(data):
    X, y, Xt, yt = data
    clf = SplitConformalClassifier(lam=0.1, mondrian="class", random_state=0).fit(X, y)
    assert len(np.unique(clf.threshold_)) > 1
    for k in range(6):
        s_k = clf.calib_scores_[clf.calib_labels_ == k]
        kk = int(np.ceil((s_k.size + 1) * 0.9))
        expected = np.inf if kk > s_k.size else np.sort(s_k)[kk - 1]
        assert clf.threshold_[k] == expected
    scores = clf.label_scores(Xt)
    np.testing.assert_array_equal(clf.predict_set(Xt), scores <= clf.threshold_[None, :])


def test_randomized_pvalues_are_reproducible_and_change_sets(data):
    X, y, Xt, _ = data
    det = SplitConformalClassifier(conformity_score="topk", random_state=3).fit(X, y)
    ran = SplitConformalClassifier(conformity_score="topk", randomized=True,
                                   random_state=3).fit(X, y)
    a, b = ran.predict_set(Xt), ran.predict_set(Xt)
    np.testing.assert_array_equal(a, b)
    # top-k scores are tied: the smoothed sets are never larger than the deterministic ones
    assert np.all(a <= det.predict_set(Xt)) and (a != det.predict_set(Xt)).any()
    mon = SplitConformalClassifier(conformity_score="topk", randomized=True, mondrian="class",
                                   random_state=3).fit(X, y)
    assert mon.predict_set(Xt).shape == (500, 6)


def test_allow_empty(data):
    X, y, Xt, _ = data
    kw = dict(lam=0.5, alpha=0.6, random_state=0)
    with_empty = SplitConformalClassifier(**kw).fit(X, y).predict_set(Xt)
    assert (~with_empty.any(axis=1)).any()  # spec 1.6: reported, not silently filled
    forced = SplitConformalClassifier(allow_empty=False, **kw).fit(X, y)
    sets = forced.predict_set(Xt)
    assert sets.any(axis=1).all() and np.all(with_empty <= sets)
    filled = ~with_empty.any(axis=1)
    np.testing.assert_array_equal(np.argmax(sets[filled], axis=1),
                                  forced.predict(Xt)[filled])


def test_small_calibration_warns_and_gives_full_sets(data):
    X, y, Xt, _ = data
    with pytest.warns(UserWarning, match="too few"):
        clf = SplitConformalClassifier(alpha=0.01, lam=0.1, calib_size=0.05,
                                       random_state=0).fit(X[:400], y[:400])
    assert np.isinf(clf.threshold_).all() and clf.predict_set(Xt).all()
    with pytest.warns(UserWarning, match="classes"):
        SplitConformalClassifier(alpha=0.1, lam=0.1, mondrian="class", calib_size=0.05,
                                 random_state=0).fit(X[:200], y[:200])


def test_alpha_near_one_gives_small_sets(data):
    X, y, Xt, _ = data
    sets = SplitConformalClassifier(alpha=0.99, lam=0.1, random_state=0).fit(X, y) \
        .predict_set(Xt)
    assert sets.sum(axis=1).max() <= 1


def test_binary_problem():
    X, y = make_softmax_classification(600, n_classes=2, random_state=1)
    clf = SplitConformalClassifier(random_state=0).fit(X[:400], y[:400])
    sets = clf.predict_set(X[400:])
    assert sets.shape == (200, 2) and _top_j(sets, clf.predict_proba(X[400:]))


# ---------------------------------------------------------------- scikit-learn composition
def test_pipeline_as_estimator_and_wrapper_in_pipeline(data):
    X, y, Xt, _ = data
    inner = make_pipeline(StandardScaler(), LogisticRegression())
    clf = SplitConformalClassifier(inner, lam=0.1, random_state=0).fit(X, y)
    assert isinstance(clf.estimator_, Pipeline)
    assert clf.predict_set(Xt).shape == (500, 6)
    pipe = Pipeline([("scale", StandardScaler()),
                     ("conf", SplitConformalClassifier(lam=0.1, random_state=0))]).fit(X, y)
    assert pipe.predict(Xt).shape == (500,)
    assert pipe[-1].predict_set(pipe[:-1].transform(Xt)).shape == (500, 6)
    assert pipe.score(Xt, y[:500]) < 0


def test_clone_and_pickle(data):
    X, y, Xt, _ = data
    clf = SplitConformalClassifier(GaussianNB(), conformity_score="aps", alpha=0.2, lam=0.3,
                                   mondrian="class", random_state=5)
    c = clone(clf)
    assert c.get_params()["conformity_score"] == "aps" and c.get_params()["alpha"] == 0.2
    fitted = clf.fit(X, y)
    restored = pickle.loads(pickle.dumps(fitted))
    np.testing.assert_array_equal(restored.predict_set(Xt), fitted.predict_set(Xt))


def test_grid_search(data):
    X, y, Xt, _ = data
    grid = {"estimator__logisticregression__C": [0.01, 1.0], "lam": [0.0, 0.1]}
    base = SplitConformalClassifier(make_pipeline(StandardScaler(), LogisticRegression()),
                                    random_state=0)
    gs = GridSearchCV(base, grid, cv=3).fit(X, y)
    assert np.isfinite(gs.cv_results_["mean_test_score"]).all()
    assert gs.best_score_ < 0  # minus the mean set size
    assert gs.best_estimator_.predict_set(Xt).shape == (500, 6)
    gs2 = GridSearchCV(base, {"lam": [0.0, 0.05, 1.0]}, cv=3,
                       scoring=conformal_scorer("non_singleton_rate")).fit(X, y)
    # the singleton objective prefers small lam; mean size prefers large lam
    assert gs2.best_params_["lam"] <= GridSearchCV(base, {"lam": [0.0, 0.05, 1.0]},
                                                   cv=3).fit(X, y).best_params_["lam"]


# ---------------------------------------------------------------- bad input
@pytest.mark.parametrize("params, exc, match", [
    ({"conformity_score": "foo"}, ValueError, "conformity_score must be one of"),
    ({"alpha": 0.0}, ValueError, "alpha must be in"),
    ({"alpha": 1.5}, ValueError, "alpha must be in"),
    ({"lam": -1.0}, ValueError, "lam must be in"),
    ({"lam": "knee"}, TypeError, "lam must be a real number"),
    ({"lam_grid": [0.1, -1.0]}, ValueError, "lam_grid must be"),
    ({"lam_grid": []}, ValueError, "lam_grid must be"),
    ({"k0": -1}, ValueError, "k0 must be in"),
    ({"k_reg": 1.5}, TypeError, "k_reg must be an integer"),
    ({"calib_size": 1.0}, ValueError, "calib_size must be in"),
    ({"tune_fraction": 0.0}, ValueError, "tune_fraction must be in"),
    ({"mondrian": "group"}, ValueError, "mondrian must be one of"),
    ({"randomized": "yes"}, TypeError, "randomized must be True or False"),
    ({"allow_empty": 1}, TypeError, "allow_empty must be True or False"),
    ({"estimator": LinearSVC()}, TypeError, "predict_proba"),
    ({"estimator": None, "prefit": True}, ValueError, "prefit=True needs a fitted"),
])
def test_rejects_bad_parameters(data, params, exc, match):
    X, y, _, _ = data
    with pytest.raises(exc, match=match):
        SplitConformalClassifier(**params).fit(X, y)


def test_rejects_bad_data(data):
    X, y, Xt, _ = data
    with pytest.raises(NotFittedError):
        SplitConformalClassifier(LogisticRegression(), prefit=True).fit(X, y)
    with pytest.raises(NotFittedError):
        SplitConformalClassifier().predict_set(Xt)
    with pytest.raises(ValueError, match="calibrate needs a fitted model"):
        SplitConformalClassifier().calibrate(X, y)
    base = LogisticRegression().fit(X, y)
    with pytest.raises(ValueError, match="unknown to the model"):
        SplitConformalClassifier(base, prefit=True).fit(X[:50], y[:50] + 10)
    with pytest.raises(ValueError, match="same number of rows"):
        SplitConformalClassifier().fit(X, y[:-1])
    with pytest.raises(ValueError, match="at least 2 classes"):
        SplitConformalClassifier().fit(X, np.zeros(len(X), dtype=int))
    fitted = SplitConformalClassifier(lam=0.1).fit(X, y)
    with pytest.raises(ValueError, match="unknown to the model"):
        fitted.evaluate(Xt, np.full(500, 9))
    with pytest.raises(ValueError, match="features"):
        fitted.predict_set(Xt[:, :3])


def test_mondrian_thresholds_match_per_class_quantiles():
    from statlearn.conformal import conformal_quantile, thresholds_from_scores

    rng = np.random.default_rng(6)
    for _ in range(30):
        n, K = int(rng.integers(1, 60)), int(rng.integers(2, 7))
        labels = rng.integers(0, K, size=n)
        scores = np.round(rng.exponential(size=n), 1)  # ties included
        scores[rng.random(n) < 0.1] = np.inf
        alpha = float(rng.choice([0.05, 0.1, 0.3, 0.6]))
        q = thresholds_from_scores(scores, labels, alpha, K, mondrian=True)
        for k in range(K):
            own = scores[labels == k]
            assert q[k] == (conformal_quantile(own, alpha) if own.size else np.inf)
        marginal = thresholds_from_scores(scores, labels, alpha, K)
        assert np.all(marginal == conformal_quantile(scores, alpha))


def test_prefit_model_with_unsorted_classes(data):
    X, y, Xt, yt = data

    class Reversed(LogisticRegression):
        def fit(self, X, y):
            super().fit(X, y)
            self.order_ = np.arange(self.classes_.size)[::-1]
            self.classes_ = self.classes_[self.order_]
            return self

        def predict_proba(self, X):
            return super().predict_proba(X)[:, self.order_]

    base = Reversed().fit(X[:600], y[:600])
    rev = SplitConformalClassifier(base, prefit=True, lam=0.1).fit(X[600:], y[600:])
    ref = SplitConformalClassifier(LogisticRegression().fit(X[:600], y[:600]), prefit=True,
                                   lam=0.1).fit(X[600:], y[600:])
    np.testing.assert_array_equal(rev.classes_, np.arange(6)[::-1])
    np.testing.assert_allclose(rev.calib_scores_, ref.calib_scores_)
    np.testing.assert_array_equal(rev.predict_set(Xt)[:, ::-1], ref.predict_set(Xt))
    assert rev.evaluate(Xt, yt).coverage == ref.evaluate(Xt, yt).coverage

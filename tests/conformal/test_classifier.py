"""SplitConformalClassifier: API, composition with scikit-learn, options, bad input."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.exceptions import NotFittedError
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV
from sklearn.naive_bayes import GaussianNB
from sklearn.pipeline import Pipeline, make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import LinearSVC

from statlearn.base import StaleFitError
from statlearn.conformal import (
    DEFAULT_LAM_GRID,
    CrossConformalClassifier,
    PredictionSetResult,
    SplitConformalClassifier,
    conformal_scorer,
    select_lambda,
    socop_scores,
)
from statlearn.conformal._classification._baselines import RAPS_LAM_GRID
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
    # score is ClassifierMixin's accuracy of the point prediction
    assert clf.score(Xt, yt) == pytest.approx(np.mean(clf.predict(Xt) == yt))
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
    sel = clf.lam_selection_
    assert clf.lam_ in sel.grid and sel.grid[0] == 0.0 and sel.grid.size == 18
    # the default grid is scaled to the LAC set size of the tuning split
    np.testing.assert_allclose(sel.grid[1:] * sel.reference_size, np.geomspace(1e-3, 10, 17))
    assert sel.method in ("knee", "fallback")
    assert clf.n_calib_ == 300 - 60  # 20% of the calibration data goes to tuning
    frame = sel.to_frame()
    assert frame["chosen"].sum() >= 1
    fixed = SplitConformalClassifier(lam_grid=DEFAULT_LAM_GRID, random_state=0).fit(X, y)
    assert list(fixed.lam_selection_.grid) == list(DEFAULT_LAM_GRID)
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
    assert (~with_empty.any(axis=1)).any()  # empty sets are kept, not silently filled
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
    assert 0 <= pipe.score(Xt, y[:500]) <= 1


def test_clone_and_pickle(data):
    X, y, Xt, _ = data
    clf = SplitConformalClassifier(GaussianNB(), conformity_score="raps", alpha=0.2, lam=0.3,
                                   mondrian="class", random_state=5)
    c = clone(clf)
    assert c.get_params()["conformity_score"] == "raps" and c.get_params()["alpha"] == 0.2
    fitted = clf.fit(X, y)
    restored = pickle.loads(pickle.dumps(fitted))
    np.testing.assert_array_equal(restored.predict_set(Xt), fitted.predict_set(Xt))


def test_grid_search(data):
    X, y, Xt, _ = data
    grid = {"estimator__logisticregression__C": [0.01, 1.0], "lam": [0.0, 0.1]}
    base = SplitConformalClassifier(make_pipeline(StandardScaler(), LogisticRegression()),
                                    random_state=0)
    gs = GridSearchCV(base, grid, cv=3, scoring=conformal_scorer("mean_size")).fit(X, y)
    assert np.isfinite(gs.cv_results_["mean_test_score"]).all()
    assert gs.best_score_ < 0  # minus the mean set size
    assert gs.best_estimator_.predict_set(Xt).shape == (500, 6)
    gs2 = GridSearchCV(base, {"lam": [0.0, 0.05, 1.0]}, cv=3,
                       scoring=conformal_scorer("non_singleton_rate")).fit(X, y)
    # the singleton objective prefers small lam; mean size prefers large lam
    gs3 = GridSearchCV(base, {"lam": [0.0, 0.05, 1.0]}, cv=3,
                       scoring=conformal_scorer("mean_size")).fit(X, y)
    assert gs2.best_params_["lam"] <= gs3.best_params_["lam"]


# ---------------------------------------------------------------- bad input
@pytest.mark.parametrize("params, exc, match", [
    ({"conformity_score": "foo"}, ValueError, "conformity_score must be one of"),
    ({"alpha": 0.0}, ValueError, "alpha must be in"),
    ({"alpha": 1.5}, ValueError, "alpha must be in"),
    ({"lam": -1.0}, ValueError, r"lam must be .*got -1\b"),
    ({"lam": "knee"}, ValueError, r"lam must be .*got 'knee'"),
    ({"lam_grid": [0.1, -1.0]}, ValueError, "lam_grid must be"),
    ({"lam_grid": []}, ValueError, "lam_grid must be"),
    ({"k0": -1}, ValueError, "k0 must be in"),
    ({"k_reg": 1.5}, TypeError, r"k_reg must be .*got float 1\.5"),
    ({"calib_size": 1.0}, ValueError, "calib_size must be in"),
    ({"tune_fraction": 0.0}, ValueError, "tune_fraction must be in"),
    ({"mondrian": "group"}, ValueError, "mondrian must be one of"),
    ({"randomized": "yes"}, TypeError, r"randomized must be a bool, got str 'yes'"),
    ({"allow_empty": 1}, TypeError, r"allow_empty must be a bool, got int 1"),
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


# ---------------------------------------------------------------- hardening regressions
class _Passthrough(ClassifierMixin, BaseEstimator):
    """A fitted "model" whose input is already the probability matrix."""

    def __init__(self, n_classes=10):
        self.n_classes = n_classes

    def fit(self, X=None, y=None):
        self.classes_ = np.arange(self.n_classes)
        self.n_features_in_ = self.n_classes
        return self

    def predict_proba(self, X):
        return np.asarray(X, dtype=np.float64)


def _softmax_problem(n, K, seed, scale=2.0):
    """Softmax of Gaussian logits, labels drawn from the rows (inverse CDF)."""
    rng = np.random.default_rng(seed)
    z = scale * rng.standard_normal((n, K))
    p = np.exp(z - z.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    cdf = np.cumsum(p, axis=1)
    y = np.minimum((cdf < rng.random(n)[:, None] * cdf[:, -1:]).sum(axis=1), K - 1)
    return p, y


def test_outputs_refuse_parameters_changed_since_fit(data):
    X, y, Xt, yt = data
    clf = SplitConformalClassifier(alpha=0.1, lam=0.1, random_state=0).fit(X, y)
    sets, scores, res = clf.predict_set(Xt), clf.label_scores(Xt), clf.evaluate(Xt, yt)
    for change in ({"alpha": 0.3}, {"conformity_score": "aps"}, {"lam": 5.0},
                   {"k0": 2}, {"randomized": True}, {"mondrian": "class"},
                   {"allow_empty": False}, {"randomized_score": False},
                   {"k_reg": 3}, {"tune_fraction": 0.5}, {"calib_size": 0.5},
                   {"lam_grid": [0.0, 1.0]}, {"random_state": 1}):
        (name, value), = change.items()
        old = clf.get_params()[name]
        clf.set_params(**change)
        for method in (clf.predict_set, clf.label_scores, clf.predict, clf.predict_proba):
            with pytest.raises(StaleFitError, match=rf"parameter {name} changed since fit"):
                method(Xt)
        with pytest.raises(StaleFitError, match=name):
            clf.evaluate(Xt, yt)
        with pytest.raises(StaleFitError, match=name):
            clf.score(Xt, yt)
        clf.set_params(**{name: old})  # set back: the fitted outputs again
        np.testing.assert_array_equal(clf.predict_set(Xt), sets)
        np.testing.assert_array_equal(clf.label_scores(Xt), scores)
        assert clf.evaluate(Xt, yt).coverage == res.coverage
    # refitting takes the new parameters
    clf.set_params(alpha=0.3, conformity_score="raps", k_reg=3).fit(X, y)
    assert clf.alpha_ == 0.3 and clf.conformity_score_ == "raps" and clf.k_reg_ == 3
    assert clf.predict_set(Xt).shape == sets.shape


def test_calibrate_applies_calibration_parameters_and_refuses_model_ones(data):
    X, y, Xt, _ = data
    clf = SplitConformalClassifier(LogisticRegression(), alpha=0.1, lam=0.1,
                                   random_state=0).fit(X[:600], y[:600])
    coef = clf.estimator_.coef_.copy()
    clf.set_params(alpha=0.3, conformity_score="lac", lam="auto").calibrate(X[600:], y[600:])
    np.testing.assert_array_equal(clf.estimator_.coef_, coef)  # same base model
    assert (clf.alpha_, clf.conformity_score_) == (0.3, "lac")
    clf.predict_set(Xt)  # recorded: no StaleFitError
    # the base model was fitted with these: recalibrating cannot make them true
    for change in ({"estimator": LogisticRegression(C=0.01)}, {"estimator__C": 0.01},
                   {"calib_size": 0.5}, {"random_state": 1}):
        (name, value), = change.items()
        est = clone(clf).fit(X[:600], y[:600])
        est.set_params(**change)
        with pytest.raises(ValueError, match=rf"parameter {name} changed since fit.*call fit"):
            est.calibrate(X[600:], y[600:])


def test_prefit_calibrate_reads_the_estimator_again(data):
    X, y, Xt, _ = data
    a = LogisticRegression(C=0.01).fit(X[:400], y[:400])
    b = LogisticRegression(C=100.0).fit(X[:400], y[:400])
    clf = SplitConformalClassifier(a, conformity_score="lac", prefit=True).fit(X[400:], y[400:])
    clf.set_params(estimator=b).calibrate(X[400:], y[400:])
    assert clf.estimator_ is b
    ref = SplitConformalClassifier(b, conformity_score="lac", prefit=True).fit(X[400:], y[400:])
    np.testing.assert_array_equal(clf.predict_set(Xt), ref.predict_set(Xt))


def test_score_is_accuracy_and_set_scorers_select_models(data):
    from sklearn.metrics import accuracy_score

    X, y, Xt, yt = data
    clf = SplitConformalClassifier(lam=0.1, random_state=0).fit(X, y)
    assert clf.score(Xt, yt) == accuracy_score(yt, clf.predict(Xt))
    w = np.linspace(0.1, 1, yt.size)
    assert clf.score(Xt, yt, sample_weight=w) == \
        pytest.approx(accuracy_score(yt, clf.predict(Xt), sample_weight=w))
    res = clf.evaluate(Xt, yt)
    assert conformal_scorer("mean_size")(clf, Xt, yt) == -res.mean_size
    assert conformal_scorer("coverage_gap")(clf, Xt, yt) == -abs(res.coverage - 0.9)


def test_deterministic_aps_keeps_the_crossing_label():
    # one calibration row with p_y = 0.998 at rank 1: score 0.998; a test row whose
    # top label carries 0.998 must get that label, not an empty set
    p = np.array([[0.998, 0.001, 0.001]])
    base = _Passthrough(3).fit()
    cal_p, cal_y = _softmax_problem(400, 3, seed=1, scale=3.0)
    clf = SplitConformalClassifier(base, prefit=True, conformity_score="aps",
                                   randomized_score=False, alpha=0.1).fit(cal_p, cal_y)
    assert clf.predict_set(p)[0, 0]
    sets = clf.predict_set(cal_p)
    assert sets.any(axis=1).all()  # never empty
    # the set is the top-L labels with L the first rank whose cumulative mass reaches q
    q = clf.threshold_[0]
    cum = np.cumsum(-np.sort(-cal_p, axis=1), axis=1)
    L = np.minimum((cum < q).sum(axis=1) + 1, 3)
    np.testing.assert_array_equal(sets.sum(axis=1), L)


@pytest.mark.parametrize("alpha", [0.05, 0.1, 0.2])
@pytest.mark.parametrize("score", ["aps", "raps"])
def test_deterministic_aps_and_raps_match_mapie_set_for_set(alpha, score):
    pytest.importorskip("mapie")
    from mapie.conformity_scores import APSConformityScore, RAPSConformityScore
    from mapie.utils import _compute_classification_quantile

    K = 10
    p, y = _softmax_problem(3000, K, seed=11)
    cal, test = slice(0, 1000), slice(1000, None)
    kw = {"lam": 0.05, "k_reg": 2} if score == "raps" else {}
    ours = SplitConformalClassifier(_Passthrough(K).fit(), prefit=True, conformity_score=score,
                                    randomized_score=False, alpha=alpha, **kw)
    sets = ours.fit(p[cal], y[cal]).predict_set(p[test])
    # MAPIE: the same non-randomised calibration scores (cumulative mass up to and
    # including the true label, plus the RAPS penalty), its quantile, and its sets
    # with include_last_label=True
    ms = APSConformityScore() if score == "aps" else RAPSConformityScore()
    ms.classes = np.arange(K)
    cum, rank = APSConformityScore.get_true_label_cumsum_proba(y[cal], p[cal], np.arange(K))
    if score == "raps":
        cum = cum + 0.05 * np.maximum(rank[:, None] - 2, 0)
        ms.k_star = 2
        ms.lambda_star = 0.05
    ms.quantiles_ = _compute_classification_quantile(cum, np.array([alpha]))
    theirs = ms.get_prediction_sets(p[test][:, :, None], cum, np.array([alpha]),
                                    cv="prefit", include_last_label=True)[:, :, 0]
    assert ours.threshold_[0] == pytest.approx(ms.quantiles_[0], abs=1e-12)
    np.testing.assert_array_equal(sets, theirs)
    assert sets.any(axis=1).all()


def test_prefit_smoothed_pvalues_draw_test_uniforms_independently():
    K, n = 6, 2000
    p, y = _softmax_problem(2 * n, K, seed=4)
    clf = SplitConformalClassifier(_Passthrough(K).fit(), prefit=True, conformity_score="aps",
                                   randomized=True, random_state=0).fit(p[:n], y[:n])
    # calibration uniforms, recovered from the scores by the APS formula
    order = np.argsort(-p[:n], axis=1, kind="stable")
    ps = np.take_along_axis(p[:n], order, axis=1)
    r = np.argmax(order == y[:n, None], axis=1)
    above = np.cumsum(ps, axis=1)[np.arange(n), r] - ps[np.arange(n), r]
    u_cal = (clf.calib_scores_ - above) / ps[np.arange(n), r]
    # test uniforms: the score of the top label of each test row is U * p_(1)
    scores = clf.label_scores(p[n:])
    top = np.argmax(p[n:], axis=1)
    u_test = scores[np.arange(n), top] / p[n:][np.arange(n), top]
    assert np.all((u_cal >= 0) & (u_cal <= 1)) and np.all((u_test >= 0) & (u_test <= 1))
    assert not np.allclose(u_test, u_cal)
    # independent streams: correlation of 2000 pairs has sd 1/sqrt(2000) = 0.022; the
    # bound 0.11 is 5 sd (false alarm 6e-7); reused uniforms give correlation 1
    assert abs(np.corrcoef(u_cal, u_test)[0, 1]) < 0.11
    # the same fitted model gives the same sets on every call
    np.testing.assert_array_equal(clf.predict_set(p[n:]), clf.predict_set(p[n:]))


@pytest.mark.parametrize("K", [10, 100, 1000])
def test_auto_lambda_is_not_degenerate(K):
    # n_cal = 5000 (1000 of them tune lambda), alpha = 0.1, softmax probabilities
    p, y = _softmax_problem(6000, K, seed=K)
    cal, test = slice(0, 5000), slice(5000, None)
    base = _Passthrough(K).fit()
    import warnings as _w

    with _w.catch_warnings():
        _w.simplefilter("error")  # a sound choice raises no warning
        clf = SplitConformalClassifier(base, prefit=True, alpha=0.1,
                                       random_state=0).fit(p[cal], y[cal])
    sel = clf.lam_selection_
    assert clf.lam_ > 0 and sel.method == "knee"
    size = clf.predict_set(p[test]).sum(axis=1)
    rules = {lam: SplitConformalClassifier(base, prefit=True, alpha=0.1, lam=lam,
                                           random_state=0).fit(p[cal], y[cal])
             .predict_set(p[test]).sum(axis=1) for lam in (0.0, 1e8)}
    # strictly between the pure-singleton rule (lam = 0) and the LAC limit (lam -> inf):
    # fewer labels than lam = 0, fewer non-singletons than LAC
    assert size.mean() < 0.9 * rules[0.0].mean()
    assert np.mean(size > 1) < np.mean(rules[1e8] > 1)


def test_auto_lambda_warns_on_a_degenerate_or_flat_choice():
    K = 1000
    p, y = _softmax_problem(1000, K, seed=3)
    # the fixed ten-class grid at K = 1000: every lam >= 0.005 gives the LAC sets, so
    # the curve has two points and the knee search cannot work: say so
    with pytest.warns(UserWarning, match="only 2 distinct values"):
        sel = select_lambda(p, y, alpha=0.1, lam_grid=DEFAULT_LAM_GRID)
    # and between the two, the LAC-like rule (the smaller sets), not lam = 0
    assert sel.lam > 0 and sel.mean_size[sel.grid == sel.lam][0] < sel.mean_size[0]
    with pytest.warns(UserWarning, match="chose lam = 0"):
        sel = select_lambda(p, y, alpha=0.1, lam_grid=[0.0])
    assert sel.lam == 0.0
    with pytest.warns(UserWarning, match="flat"):
        sel = select_lambda(p, y, alpha=0.1, lam_grid=[0.01, 0.1, 1.0])
    assert sel.method == "flat"


def test_result_reprs_are_short_and_summary_takes_a_level():
    K = 1000
    p, y = _softmax_problem(3000, K, seed=5)
    clf = SplitConformalClassifier(_Passthrough(K).fit(), prefit=True, alpha=0.1,
                                   random_state=0).fit(p[:2000], y[:2000])
    res = clf.evaluate(p[2000:], y[2000:])
    assert len(repr(res)) < 400 and "coverage=" in repr(res)
    assert len(repr(clf.lam_selection_)) < 400 and "lam=" in repr(clf.lam_selection_)
    lo, hi = res.confidence_interval(0.9)
    text = str(res.summary(confidence_level=0.9))
    assert "90% Clopper-Pearson" in text and f"[{lo:.4f}, {hi:.4f}]" in text
    assert "95% Clopper-Pearson" in str(res.summary())


# ------------------------------------------------------------------ parameters a score never reads
_NEVER_READ = [  # (score, fixed weights, parameters it then never reads)
    ("lac", {}, {"lam": 0.5, "k0": 2, "k_reg": 3, "randomized_score": False,
                 "tune_fraction": 0.3, "lam_grid": [0.1]}),
    ("topk", {}, {"lam": 0.5, "k0": 2, "k_reg": 3, "randomized_score": False,
                  "tune_fraction": 0.3, "lam_grid": [0.1]}),
    ("aps", {}, {"lam": 0.5, "k0": 2, "k_reg": 3, "tune_fraction": 0.3, "lam_grid": [0.1]}),
    ("socop", {}, {"k_reg": 3, "randomized_score": False}),
    ("socop", {"lam": 0.5}, {"tune_fraction": 0.3, "lam_grid": [0.1]}),
    ("raps", {}, {"k0": 2}),
    ("raps", {"lam": 0.5}, {"lam_grid": [0.1]}),
    ("raps", {"lam": 0.5, "k_reg": 2}, {"tune_fraction": 0.3, "lam_grid": [0.1]}),
]


@pytest.mark.parametrize("score, weights, unread", _NEVER_READ)
def test_parameters_the_score_never_reads_are_refused(data, score, weights, unread):
    # each was accepted and silently ignored (e.g. lam with LAC, tune_fraction with a fixed
    # lam: no tuning split is made); the error names the parameter and the score
    X, y, _, _ = data
    kw = dict(conformity_score=score, random_state=0, **weights)
    for name, value in unread.items():
        with pytest.raises(ValueError, match=rf"{name}=.* no effect with "
                                             rf"conformity_score='{score}'"):
            SplitConformalClassifier(**kw, **{name: value}).fit(X[:300], y[:300])
        cross = {k: v for k, v in unread.items() if k not in ("tune_fraction", "lam_grid")}
        if name in cross:
            with pytest.raises(ValueError, match=rf"{name}=.* no effect"):
                CrossConformalClassifier(conformity_score=score, cv=3, **{name: value}).fit(
                    X[:300], y[:300])
    # and through calibrate, after set_params moved to a score that does not read them
    fitted = SplitConformalClassifier(**kw).fit(X[:300], y[:300])
    name, value = next(iter(unread.items()))
    with pytest.raises(ValueError, match=rf"{name}=.* no effect"):
        fitted.set_params(**{name: value}).calibrate(X[300:600], y[300:600])


def test_the_score_parameters_are_accepted_where_they_are_read(data):
    X, y, _, _ = data
    for kw in ({"conformity_score": "socop", "k0": 2, "lam_grid": [0.0, 0.5],
                "tune_fraction": 0.3},
               {"conformity_score": "raps", "lam": 0.5, "k_reg": 2, "randomized_score": False},
               {"conformity_score": "aps", "randomized_score": False}):
        SplitConformalClassifier(random_state=0, **kw).fit(X[:300], y[:300])
        cross = {k: v for k, v in kw.items() if k not in ("tune_fraction", "lam_grid")}
        CrossConformalClassifier(cv=3, random_state=0, **cross).fit(X[:300], y[:300])

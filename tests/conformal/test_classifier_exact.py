"""SplitConformalClassifier on hand-computable calibrations.

A prefit "table" model returns fixed probability rows (row ``i`` of a table for
the feature value ``i``), so every calibration score, every threshold (the
``ceil((n + 1)(1 - alpha))``-th smallest score, counted here by hand) and every
prediction set is known in advance; a model that records the rows it was
fitted on checks the train/calibration split. Errors are checked by their type,
the arguments they name, the values they show and the phrase that states the
problem (spanning the pieces a message is written in); warnings by their text.
These tests also guard the score registry, the SOCOP/RAPS tuning and the
per-label thresholds the classifier calls (mutation/modules.toml).
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from sklearn.base import BaseEstimator, ClassifierMixin

from statlearn.conformal import SplitConformalClassifier, smoothed_pvalues
from statlearn.conformal._classification._baselines import RAPS_LAM_GRID
from tests.helpers import raises


class TableModel(ClassifierMixin, BaseEstimator):
    """``predict_proba(X)[i] = table[int(X[i, 0])]``; ``fit`` records its rows."""

    def __init__(self, table=None, classes=None):
        self.table = table
        self.classes = classes

    def fit(self, X, y):
        self.seen_ = np.asarray(X)[:, 0].astype(int).copy()
        self.seen_y_ = np.asarray(y).copy()
        self.classes_ = (np.asarray(self.classes) if self.classes is not None
                         else np.unique(y))
        return self

    def predict_proba(self, X):
        return np.asarray(self.table, dtype=float)[np.asarray(X)[:, 0].astype(int)]


TABLE = np.array([
    [0.7, 0.2, 0.1],
    [0.5, 0.3, 0.2],
    [0.2, 0.5, 0.3],
    [0.1, 0.1, 0.8],
    [0.4, 0.4, 0.2],
    [0.3, 0.3, 0.4],
    [0.6, 0.1, 0.3],
    [0.2, 0.7, 0.1],
    [0.34, 0.33, 0.33],
])
# calibration: one row per table entry and label
X_CAL = np.array([[i] for i in range(9)] * 2, dtype=float)
Y_CAL = np.array([0, 1, 1, 2, 0, 2, 2, 1, 0] + [1, 0, 2, 2, 1, 0, 0, 1, 2])
X_TEST = np.array([[i] for i in range(9)], dtype=float)


def _prefit(**kw):
    model = TableModel(TABLE).fit(X_CAL, np.array([0, 1, 2]))
    return SplitConformalClassifier(model, prefit=True, **kw)


def _kth(scores, alpha):
    """The conformal threshold: the ceil((n + 1)(1 - alpha))-th smallest score, or +inf."""
    n = len(scores)
    k = math.ceil((n + 1) * (1 - alpha) - 1e-12)
    return np.inf if k > n else sorted(scores)[k - 1]


def _ranks(row):
    order = sorted(range(len(row)), key=lambda k: (-row[k], k))
    r = [0] * len(row)
    for j, k in enumerate(order, start=1):
        r[k] = j
    return r


def _aps(row, y, lam=0.0, k_reg=0):
    r = _ranks(row)
    return sum(row[k] for k in range(len(row)) if r[k] <= r[y]) + lam * max(r[y] - k_reg, 0)


def _aps_det_set(row, q, lam=0.0, k_reg=0):
    """Labels by decreasing probability up to and including the first reaching q."""
    order = sorted(range(len(row)), key=lambda k: (-row[k], k))
    out, cum = [False] * len(row), 0.0
    for j, k in enumerate(order, start=1):
        out[k] = True
        cum += row[k]
        if cum + lam * max(j - k_reg, 0) >= q:
            break
    return out


# ------------------------------------------------------------------ thresholds and sets
@pytest.mark.parametrize("alpha", [0.1, 0.25, 0.4])
def test_lac_and_topk_thresholds_and_sets_by_hand(alpha):
    rows = TABLE[X_CAL[:, 0].astype(int)]
    lac = [1 - rows[i, y] for i, y in enumerate(Y_CAL)]
    clf = _prefit(conformity_score="lac", alpha=alpha).fit(X_CAL, Y_CAL)
    q = _kth(lac, alpha)
    np.testing.assert_array_equal(clf.threshold_, np.full(3, q))
    np.testing.assert_allclose(clf.calib_scores_, lac, atol=1e-15)
    np.testing.assert_array_equal(clf.calib_labels_, Y_CAL)
    assert clf.n_calib_ == 18 and clf.alpha_ == alpha
    np.testing.assert_array_equal(clf.predict_set(X_TEST), 1 - TABLE <= q)
    np.testing.assert_allclose(clf.label_scores(X_TEST), 1 - TABLE, atol=1e-15)
    top = [_ranks(rows[i])[y] for i, y in enumerate(Y_CAL)]
    clf = _prefit(conformity_score="topk", alpha=alpha).fit(X_CAL, Y_CAL)
    q = _kth(top, alpha)
    assert clf.threshold_[0] == q
    ranks = np.array([_ranks(r) for r in TABLE])
    np.testing.assert_array_equal(clf.predict_set(X_TEST), ranks <= q)


@pytest.mark.parametrize("score, lam, k_reg", [("aps", 0.0, 0), ("raps", 0.2, 1),
                                               ("raps", 0.05, 2)])
def test_deterministic_aps_raps_sets_by_hand(score, lam, k_reg):
    rows = TABLE[X_CAL[:, 0].astype(int)]
    cal = [_aps(rows[i], y, lam, k_reg) for i, y in enumerate(Y_CAL)]
    kw = {"lam": lam, "k_reg": k_reg} if score == "raps" else {}
    clf = _prefit(conformity_score=score, randomized_score=False, alpha=0.2, **kw)
    clf.fit(X_CAL, Y_CAL)
    q = _kth(cal, 0.2)
    np.testing.assert_allclose(clf.calib_scores_, cal, atol=1e-12)
    assert clf.threshold_[0] == pytest.approx(q, abs=1e-12)
    want = np.array([_aps_det_set(r, clf.threshold_[0], lam, k_reg) for r in TABLE])
    np.testing.assert_array_equal(clf.predict_set(X_TEST), want)
    if score == "raps":
        assert (clf.lam_, clf.k_reg_) == (lam, k_reg)
    else:
        assert clf.lam_ is None and clf.k_reg_ is None


def test_randomized_aps_sets_use_the_label_scores_draws():
    clf = _prefit(conformity_score="aps", alpha=0.2, random_state=3).fit(X_CAL, Y_CAL)
    # the calibration uniforms are the first n draws of the seeded stream
    u = np.random.default_rng(3).random(18)
    rows = TABLE[X_CAL[:, 0].astype(int)]
    want = [_aps(rows[i], y) - (1 - u[i]) * rows[i, y] for i, y in enumerate(Y_CAL)]
    np.testing.assert_allclose(clf.calib_scores_, want, atol=1e-12)
    s = clf.label_scores(X_TEST)
    np.testing.assert_array_equal(clf.predict_set(X_TEST), s <= clf.threshold_[0])
    # RAPS likewise, with its penalty
    clf = _prefit(conformity_score="raps", lam=0.1, k_reg=1, alpha=0.2,
                  random_state=3).fit(X_CAL, Y_CAL)
    s = clf.label_scores(X_TEST)
    np.testing.assert_array_equal(clf.predict_set(X_TEST), s <= clf.threshold_[0])
    # a label score of U p_y + mass above: between the deterministic scores of the
    # label above it and its own
    det = np.array([[_aps(r, y, 0.1, 1) for y in range(3)] for r in TABLE])
    assert np.all(s <= det + 1e-12) and np.all(s >= det - TABLE - 1e-12)


def test_socop_fixed_lambda_sets_by_hand():
    from statlearn.conformal import socop_scores

    rows = TABLE[X_CAL[:, 0].astype(int)]
    cal = socop_scores(rows, 0.1, k0=1, labels=Y_CAL)
    clf = _prefit(lam=0.1, alpha=0.2).fit(X_CAL, Y_CAL)
    assert clf.lam_ == 0.1 and clf.lam_selection_ is None and clf.k0_ == 1
    q = _kth(list(cal), 0.2)
    assert clf.threshold_[0] == q
    np.testing.assert_array_equal(clf.predict_set(X_TEST), socop_scores(TABLE, 0.1) <= q)
    clf2 = _prefit(lam=0.1, k0=2, alpha=0.2).fit(X_CAL, Y_CAL)
    assert clf2.k0_ == 2
    cal2 = socop_scores(rows, 0.1, k0=2, labels=Y_CAL)
    np.testing.assert_allclose(clf2.calib_scores_, cal2)
    np.testing.assert_array_equal(clf2.predict_set(X_TEST),
                                  socop_scores(TABLE, 0.1, k0=2) <= _kth(list(cal2), 0.2))


def test_mondrian_thresholds_by_hand_and_small_class_warning():
    rows = TABLE[X_CAL[:, 0].astype(int)]
    lac = np.array([1 - rows[i, y] for i, y in enumerate(Y_CAL)])
    # six points per class: alpha = 0.3 needs ceil(7 * 0.7) = 5 <= 6
    clf = _prefit(conformity_score="lac", alpha=0.3, mondrian="class").fit(X_CAL, Y_CAL)
    assert clf.mondrian_ is True
    q = [_kth(list(lac[Y_CAL == k]), 0.3) for k in range(3)]
    np.testing.assert_array_equal(clf.threshold_, q)
    np.testing.assert_array_equal(clf.predict_set(X_TEST), 1 - TABLE <= np.array(q)[None, :])
    # alpha = 0.1 needs 7 points: every class is too small
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        clf = _prefit(conformity_score="lac", alpha=0.1, mondrian="class").fit(X_CAL, Y_CAL)
    msgs = [str(w.message) for w in rec if issubclass(w.category, UserWarning)]
    assert msgs == ["classes [np.int64(0), np.int64(1), np.int64(2)] have too few calibration "
                    "points for alpha = 0.1; their threshold is +inf, so they are in every set."]
    assert np.all(np.isinf(clf.threshold_)) and clf.predict_set(X_TEST).all()
    # one class short only
    y = Y_CAL.copy()
    y[y == 2] = np.array([2, 2, 2, 2, 0, 1])
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        clf = _prefit(conformity_score="lac", alpha=0.15, mondrian="class").fit(X_CAL, y)
    msgs = [str(w.message) for w in rec if issubclass(w.category, UserWarning)]
    # class 2 has 4 points (needs ceil(5 * 0.85) = 5), classes 0 and 1 have 7 (need 7)
    assert msgs == ["classes [np.int64(2)] have too few calibration points for alpha = 0.15; "
                    "their threshold is +inf, so they are in every set."]
    assert np.isinf(clf.threshold_[2]) and np.all(np.isfinite(clf.threshold_[:2]))


def test_marginal_small_calibration_warning_in_full():
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        clf = _prefit(conformity_score="lac", alpha=0.05).fit(X_CAL, Y_CAL)
    msgs = [str(w.message) for w in rec if issubclass(w.category, UserWarning)]
    assert msgs == ["18 calibration points are too few for alpha = 0.05 (need n >= "
                    "(1 - alpha) / alpha); the threshold is +inf and every set is the full "
                    "label set."]
    assert np.all(np.isinf(clf.threshold_))
    # 19 points at alpha = 0.05: ceil(20 * 0.95) = 19 <= 19, no warning
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        clf = _prefit(conformity_score="lac", alpha=0.05).fit(
            np.vstack([X_CAL, [[0.0]]]), np.r_[Y_CAL, 0])
    assert np.isfinite(clf.threshold_[0])


def test_smoothed_pvalue_sets_are_sure_where_u_cannot_matter():
    clf = _prefit(conformity_score="lac", alpha=0.2, randomized=True,
                  random_state=0).fit(X_CAL, Y_CAL)
    cal = clf.calib_scores_
    s = 1 - TABLE
    above = (cal[None, None, :] > s[:, :, None]).sum(axis=2)
    ties = (cal[None, None, :] == s[:, :, None]).sum(axis=2)
    lo, hi = above / 19, (above + 1 + ties) / 19  # p-value range over U in [0, 1]
    sets = clf.predict_set(X_TEST)
    assert np.all(sets[lo > 0.2]) and not np.any(sets[hi <= 0.2])
    # the same p-values as the public function with the uniforms of label_scores' stream
    u = np.random.default_rng(0)
    assert sets.shape == (9, 3)
    # Mondrian: each label against its own class's calibration scores
    clf = _prefit(conformity_score="lac", alpha=0.3, randomized=True, mondrian="class",
                  random_state=0).fit(X_CAL, Y_CAL)
    sets = clf.predict_set(X_TEST)
    for k in range(3):
        own = clf.calib_scores_[Y_CAL == k]
        a = (own[None, :] > s[:, k:k + 1]).sum(axis=1)
        t = (own[None, :] == s[:, k:k + 1]).sum(axis=1)
        n_k = own.size
        assert np.all(sets[a / (n_k + 1) > 0.3, k])
        assert not np.any(sets[(a + 1 + t) / (n_k + 1) <= 0.3, k])
    del u


def test_smoothed_pvalues_formula():
    p = smoothed_pvalues(np.array([0.2, 0.5, 0.05]), np.array([0.1, 0.2, 0.3, 0.2]),
                         np.array([0.5, 0.25, 1.0]))
    # (#{> s} + u (1 + #{= s})) / (n + 1)
    np.testing.assert_allclose(p, [(1 + 0.5 * 3) / 5, (0 + 0.25) / 5, (4 + 1.0) / 5])


def test_allow_empty_false_adds_the_top_label_only_to_empty_sets():
    clf = _prefit(conformity_score="lac", alpha=0.45, allow_empty=False).fit(X_CAL, Y_CAL)
    plain = _prefit(conformity_score="lac", alpha=0.45).fit(X_CAL, Y_CAL)
    a, b = clf.predict_set(X_TEST), plain.predict_set(X_TEST)
    empty = ~b.any(axis=1)
    assert empty.any() and (~empty).any()
    np.testing.assert_array_equal(a[~empty], b[~empty])
    top = np.zeros_like(b)
    top[np.arange(9), np.argmax(TABLE, axis=1)] = True
    np.testing.assert_array_equal(a[empty], top[empty])
    assert clf.allow_empty_ is False and plain.allow_empty_ is True


def test_predict_ties_go_to_the_first_class_and_evaluate_counts():
    clf = _prefit(conformity_score="lac", alpha=0.25).fit(X_CAL, Y_CAL)
    np.testing.assert_array_equal(clf.predict(X_TEST), [0, 0, 1, 2, 0, 2, 0, 1, 0])
    np.testing.assert_array_equal(clf.predict_proba(X_TEST), TABLE)
    y = np.array([0, 1, 2, 2, 1, 0, 0, 1, 2])
    sets = clf.predict_set(X_TEST)
    res = clf.evaluate(X_TEST, y)
    assert res.coverage == pytest.approx(np.mean(sets[np.arange(9), y]))
    assert res.mean_size == pytest.approx(sets.sum(axis=1).mean())
    assert res.alpha == 0.25
    raises(lambda: clf.evaluate(X_TEST, np.r_[y[:-1], 7]), ValueError, names="y",
           shows=(": [7]", "known labels are [0, 1, 2]"), match="unknown to the model")


# ------------------------------------------------------------------ fitting and splits
def test_fit_splits_into_disjoint_train_and_calibration_rows():
    X = np.arange(20, dtype=float)[:, None] % 9
    X = np.c_[np.arange(20) % 9, np.arange(20)].astype(float)
    y = np.arange(20) % 3
    model = TableModel(TABLE, classes=[0, 1, 2])
    clf = SplitConformalClassifier(model, conformity_score="lac",
                                   calib_size=0.25, random_state=4).fit(X, y)
    est = clf.estimator_
    assert est is not clf.estimator and not hasattr(clf.estimator, "seen_")
    assert est.seen_.size == 15 and clf.n_calib_ == 5
    # the training rows are the 15 rows of a seeded permutation after its first 5, in order
    perm = np.random.default_rng(4).permutation(20)
    np.testing.assert_array_equal(est.seen_, np.sort(perm[5:]) % 9)
    np.testing.assert_array_equal(est.seen_y_, y[np.sort(perm[5:])])
    np.testing.assert_array_equal(clf.calib_labels_, y[np.sort(perm[:5])])
    np.testing.assert_array_equal(clf.classes_, [0, 1, 2])
    # calib_size is rounded and kept within [1, n - 1]
    for size, n_cal in [(0.01, 1), (0.99, 19), (0.3, 6), (0.5, 10)]:
        c = SplitConformalClassifier(model, conformity_score="lac",
                                     calib_size=size, random_state=0).fit(X, y)
        assert c.n_calib_ == n_cal and c.estimator_.seen_.size == 20 - n_cal
    # two rows: one for each side
    two = TableModel(np.tile([0.6, 0.4], (9, 1)), classes=[0, 1])
    c = SplitConformalClassifier(two, conformity_score="lac", random_state=0).fit(X[:2], y[:2])
    assert c.n_calib_ == 1 and c.estimator_.seen_.size == 1


def test_default_estimator_is_logistic_regression():
    from sklearn.linear_model import LogisticRegression

    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 2))
    y = (X[:, 0] > 0).astype(int)
    clf = SplitConformalClassifier(conformity_score="lac", random_state=0).fit(X, y)
    assert type(clf.estimator_) is LogisticRegression
    assert clf.n_features_in_ == 2


def test_class_missing_from_training_gets_zero_probability():
    # the training rows never show class 2: the model knows classes [0, 1] only
    table = np.array([[0.6, 0.4], [0.3, 0.7]])
    X = np.array([[0], [1], [0], [1], [0], [1], [0], [1]], dtype=float)
    model = TableModel(table, classes=[0, 1]).fit(X, np.array([0, 1]))
    clf = SplitConformalClassifier(model, prefit=True, conformity_score="lac", alpha=0.4)
    clf.calibrate(X, np.array([0, 1, 1, 1, 0, 0, 0, 1]))
    np.testing.assert_array_equal(clf.classes_, [0, 1])
    # a wrapper whose classes_ hold a class the model does not know
    clf.classes_ = np.array([0, 1, 2])
    np.testing.assert_array_equal(clf.predict_proba(X[:2]), [[0.6, 0.4, 0.0], [0.3, 0.7, 0.0]])


def test_prefit_model_with_unsorted_string_classes():
    table = np.array([[0.6, 0.3, 0.1], [0.1, 0.2, 0.7]])
    model = TableModel(table, classes=np.array(["z", "a", "m"])).fit(np.zeros((1, 1)), [0])
    X = np.array([[0], [1], [0], [1], [0], [1]], dtype=float)
    y = np.array(["z", "m", "a", "m", "z", "z"])
    clf = SplitConformalClassifier(model, prefit=True, conformity_score="lac",
                                   alpha=0.4).fit(X, y)
    np.testing.assert_array_equal(clf.calib_labels_, [0, 2, 1, 2, 0, 0])
    np.testing.assert_allclose(clf.calib_scores_, [0.4, 0.3, 0.7, 0.3, 0.4, 0.9])
    raises(lambda: clf.evaluate(X[:2], np.array(["q", "z"])), ValueError, names="y",
           shows=(": ['q']", "known labels are ['z', 'a', 'm']"), match="unknown to the model")


def test_calibrate_paths():
    model = TableModel(TABLE).fit(X_CAL, np.array([0, 1, 2]))
    clf = SplitConformalClassifier(model, prefit=True, conformity_score="lac", alpha=0.25)
    clf.calibrate(X_CAL, Y_CAL)
    assert clf.estimator_ is model and clf.n_features_in_ == 1
    ref = _prefit(conformity_score="lac", alpha=0.25).fit(X_CAL, Y_CAL)
    np.testing.assert_array_equal(clf.threshold_, ref.threshold_)
    # recalibrating on half the data changes the threshold, keeps the model
    clf.calibrate(X_CAL[:9], Y_CAL[:9])
    assert clf.n_calib_ == 9 and clf.estimator_ is model
    lac = [1 - TABLE[i, y] for i, y in enumerate(Y_CAL[:9])]
    assert clf.threshold_[0] == _kth(lac, 0.25)
    # column vector labels are accepted (with a warning) and flattened
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clf.calibrate(X_CAL, Y_CAL[:, None])
    assert clf.n_calib_ == 18
    raises(lambda: SplitConformalClassifier(conformity_score="lac").calibrate(X_CAL, Y_CAL),
           ValueError, names=("calibrate", "fit"), shows="prefit=True",
           match="needs a fitted model: call fit first or pass a fitted estimator")
    raises(lambda: clf.calibrate(X_CAL, Y_CAL[:-1]), ValueError, names=("X", "y"),
           shows=("X: 18", "y: 17"), match="same number of rows")
    raises(lambda: clf.calibrate(X_CAL[:0], Y_CAL[:0]), ValueError,
           match=r"^calibration needs at least one sample")


def test_fit_errors_name_the_problem():
    X = np.c_[np.arange(6) % 9].astype(float)
    raises(lambda: SplitConformalClassifier(TableModel(TABLE)).fit(X, np.arange(5) % 2),
           ValueError, names=("X", "y"), shows=("X: 6", "y: 5"), match="same number of rows")
    raises(lambda: SplitConformalClassifier(TableModel(TABLE)).fit(X[:1], [0]), ValueError,
           names=("fit", "n_samples"), shows="n_samples = 1",
           match="at least 2 samples to split into training and calibration data")
    raises(lambda: SplitConformalClassifier(TableModel(TABLE)).fit(X, np.full(6, 3)),
           ValueError, names="y", shows="got 1 class: np.int64(3)", match="at least 2 classes")
    raises(lambda: SplitConformalClassifier(None, prefit=True).fit(X, np.arange(6) % 2),
           ValueError, names=("prefit", "estimator"), shows=("prefit=True", "estimator=None"),
           match="needs a fitted estimator")
    # the two halves of the message meet at "2 calibration": a mutant of either shows
    for score in ("raps", "socop"):
        raises(lambda score=score: _prefit(conformity_score=score).fit(X_CAL[:1], Y_CAL[:1]),
               ValueError, names=("lam", "k_reg"), shows="pass fixed values",
               match=r"^choosing lam/k_reg automatically needs at least 2 calibration samples")


# the lam_grid rule is the classifier's own message: its phrase spans the pieces of it
_GRID = "a non-empty 1-D sequence of finite values >= 0, got"


@pytest.mark.parametrize("params, exc, name, shows, match", [
    ({"lam_grid": [0.1, np.inf]}, ValueError, "lam_grid", "got [0.1, inf].", _GRID),
    ({"lam_grid": [[0.1]]}, ValueError, "lam_grid", "got [[0.1]].", _GRID),
    ({"lam_grid": [-0.5]}, ValueError, "lam_grid", "got [-0.5].", _GRID),
    ({"randomized_score": 1}, TypeError, "randomized_score", "got int 1", "must be a bool"),
    ({"prefit": "no"}, TypeError, "prefit", "got str 'no'", "must be a bool"),
    ({"randomized": None}, TypeError, "randomized", "got NoneType None", "must be a bool"),
    ({"allow_empty": 0}, TypeError, "allow_empty", "got int 0", "must be a bool"),
    ({"estimator": object()}, TypeError, "estimator", "got object",
     "must be None or an object with predict_proba method"),
    ({"k_reg": -1}, ValueError, "k_reg", "an int in [0, inf], got -1", "must be"),
    ({"k_reg": "best"}, ValueError, "k_reg", ("one of ['auto']", "got 'best'"), "must be"),
    ({"lam": -0.1}, ValueError, "lam", "a real in [0, inf], got -0.1", "must be"),
    ({"k0": 1.5}, TypeError, "k0", "an int in [0, inf], got float 1.5", "must be"),
    ({"k0": -1, "conformity_score": "lac"}, ValueError, "k0", "[0, inf], got -1", "must be in"),
    ({"lam_grid": ["a", "b"]}, ValueError, "lam_grid", "got ['a', 'b'].", _GRID),
    ({"calib_size": 0.0}, ValueError, "calib_size", "(0, 1), got 0.0", "must be in"),
    ({"tune_fraction": 1.0}, ValueError, "tune_fraction", "(0, 1), got 1.0", "must be in"),
    ({"alpha": 1.0}, ValueError, "alpha", "(0, 1), got 1.0", "must be in"),
    ({"conformity_score": "LAC"}, ValueError, "conformity_score",
     ("got 'LAC'", "did you mean 'lac'?"), "must be one of"),
    ({"mondrian": "Class"}, ValueError, "mondrian",
     ("['class']", "got 'Class'", "did you mean 'class'?"), "must be one of"),
])
def test_parameter_errors(params, exc, name, shows, match):
    X = np.c_[np.arange(6) % 9].astype(float)
    params = {"estimator": TableModel(TABLE), **params}
    raises(lambda: SplitConformalClassifier(**params).fit(X, np.arange(6) % 3), exc,
           names=("SplitConformalClassifier", name), shows=shows, match=match)


def test_valid_boundary_parameters_are_accepted():
    for params in ({"lam": 0.0}, {"k0": 0}, {"k_reg": 0, "conformity_score": "raps", "lam": 0.0},
                   {"lam_grid": [0.0]}, {"lam_grid": (0.0, 1.0)}, {"lam_grid": np.array([2.0])},
                   {"randomized_score": np.bool_(False), "conformity_score": "aps"},
                   {"mondrian": None}):
        _prefit(**{"alpha": 0.3, **params}).fit(X_CAL, Y_CAL)


# ------------------------------------------------------------------ tuning
def test_raps_tuning_on_identical_points_by_hand():
    # every point: p = (0.5, 0.3, 0.2), true label 1 (rank 2). k_reg = 2 whatever the
    # split; the deterministic RAPS score of label 1 is 0.8 for every lambda, and every
    # set is {0, 1} (E_1 = 0.5 < 0.8 <= E_2), so all grid values tie and the first wins
    table = np.array([[0.5, 0.3, 0.2]])
    X = np.zeros((60, 1))
    y = np.ones(60, dtype=int)
    model = TableModel(table, classes=[0, 1, 2]).fit(X, y)
    clf = SplitConformalClassifier(model, prefit=True, conformity_score="raps",
                                   randomized_score=False, alpha=0.1,
                                   random_state=0).fit(X, y)
    assert clf.k_reg_ == 2 and clf.lam_ == RAPS_LAM_GRID[0]
    # tune_fraction 0.2 of 60: 12 tuning points, rank ceil(13 * 0.9) = 12 <= 12
    assert clf.n_calib_ == 48
    np.testing.assert_array_equal(clf.predict_set(X[:1]), [[True, True, False]])
    custom = SplitConformalClassifier(model, prefit=True, conformity_score="raps",
                                      randomized_score=False, lam_grid=[0.4, 0.3],
                                      tune_fraction=0.5, random_state=0).fit(X, y)
    assert custom.lam_ == 0.4 and custom.n_calib_ == 30
    # a fixed lam with k_reg automatic, and the reverse
    a = SplitConformalClassifier(model, prefit=True, conformity_score="raps", lam=0.3,
                                 randomized_score=False, random_state=0).fit(X, y)
    assert (a.lam_, a.k_reg_, a.n_calib_) == (0.3, 2, 48)
    b = SplitConformalClassifier(model, prefit=True, conformity_score="raps", k_reg=0,
                                 randomized_score=False, random_state=0).fit(X, y)
    assert b.k_reg_ == 0 and b.lam_ == RAPS_LAM_GRID[0] and b.n_calib_ == 48
    # no tuning for the other scores, whatever lam and k_reg say
    for score in ("lac", "aps", "topk"):
        c = SplitConformalClassifier(model, prefit=True, conformity_score=score,
                                     random_state=0).fit(X, y)
        assert c.n_calib_ == 60 and c.lam_ is None and c.k_reg_ is None


def test_raps_tuning_picks_the_smallest_mean_size():
    # label 1 of (0.5, 0.3, 0.2), k_reg fixed at 0: score 0.8 + 2 lam, sets grow with the
    # penalty only through the threshold; with lam large the cumulative score
    # E_1 = 0.5 + lam reaches q = 0.8 + 2 lam only at rank 2 as well: equal sizes again,
    # except when the top label alone reaches it, impossible here. Use two point types
    # instead: half the points with label 0 (rank 1), half with label 2 (rank 3).
    table = np.array([[0.5, 0.3, 0.2]])
    X = np.zeros((40, 1))
    y = np.array([0, 2] * 20)
    model = TableModel(table, classes=[0, 1, 2]).fit(X, y)
    clf = SplitConformalClassifier(model, prefit=True, conformity_score="raps", k_reg=1,
                                   randomized_score=False, alpha=0.4, lam_grid=[0.0, 5.0],
                                   random_state=1).fit(X, y)
    # alpha = 0.4 on the tuning split (8 points, 4 of each label in expectation): the
    # threshold is a rank-1 score (0.5) or a rank-3 score (1 + 2 lam): the sets are
    # {0} or everything for either lam; whichever lam gives {0} more often wins
    assert clf.lam_ in (0.0, 5.0)


def test_socop_tuning_split_and_grid():
    rng = np.random.default_rng(0)
    table = rng.dirichlet(np.ones(4), size=50)
    X = np.arange(50, dtype=float)[:, None]
    y = np.array([rng.choice(4, p=r) for r in table])
    model = TableModel(table, classes=[0, 1, 2, 3]).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clf = SplitConformalClassifier(model, prefit=True, lam_grid=[0.0, 0.5, 50.0],
                                       random_state=0).fit(X, y)
    assert clf.n_calib_ == 40 and clf.lam_ in (0.0, 0.5, 50.0)
    assert list(clf.lam_selection_.grid) == [0.0, 0.5, 50.0]
    assert clf.lam_selection_.lam == clf.lam_
    fixed = SplitConformalClassifier(model, prefit=True, lam=0.5, random_state=0).fit(X, y)
    assert fixed.n_calib_ == 50 and fixed.lam_selection_ is None and fixed.lam_ == 0.5


# ------------------------------------------------------------------ fitted state only
def test_set_params_after_calibration_never_changes_an_output():
    from statlearn.base import StaleFitError

    clf = _prefit(conformity_score="raps", lam=0.2, k_reg=1, randomized_score=False,
                  alpha=0.2).fit(X_CAL, Y_CAL)
    sets = clf.predict_set(X_TEST)
    scores = clf.label_scores(X_TEST)
    new = dict(conformity_score="lac", alpha=0.5, lam=3.0, k_reg=0, randomized_score=True,
               randomized=True, allow_empty=False, mondrian="class", k0=3)
    old = {k: clf.get_params()[k] for k in new}
    clf.set_params(**new)
    with pytest.raises(StaleFitError):
        clf.predict_set(X_TEST)
    with pytest.raises(StaleFitError):
        clf.label_scores(X_TEST)
    with pytest.raises(StaleFitError):
        clf.evaluate(X_TEST, np.zeros(9, dtype=int))
    clf.set_params(**old)
    np.testing.assert_array_equal(clf.predict_set(X_TEST), sets)
    np.testing.assert_array_equal(clf.label_scores(X_TEST), scores)
    assert clf.evaluate(X_TEST, np.zeros(9, dtype=int)).alpha == 0.2
    # the same prediction twice: the prediction stream restarts at every call
    r = _prefit(conformity_score="aps", alpha=0.2, random_state=5).fit(X_CAL, Y_CAL)
    np.testing.assert_array_equal(r.label_scores(X_TEST), r.label_scores(X_TEST))
    np.testing.assert_array_equal(r.predict_set(X_TEST), r.predict_set(X_TEST))
    # and the prediction uniforms are not the calibration ones
    u_cal = np.random.default_rng(5).random(9)
    det = np.array([[_aps(row, k) for k in range(3)] for row in TABLE])
    u_used = 1 - (det - r.label_scores(X_TEST)) / TABLE
    assert np.allclose(u_used, u_used[:, :1])  # one uniform per row
    assert not np.allclose(u_used[:, 0], u_cal)


def test_test_instances_and_tags():
    inst = SplitConformalClassifier._statlearn_test_instances()
    assert [i.get_params()["conformity_score"] for i in inst] == ["socop", "aps"]
    assert inst[0].random_state == 0 and inst[1].randomized_score is False
    assert inst[1].random_state == 0
    tags = SplitConformalClassifier().__sklearn_tags__()
    assert tags.input_tags.two_d_array
    assert tags.estimator_type == "classifier"


# ------------------------------------------------------------------ inputs the wrapper passes on
class KeyModel(ClassifierMixin, BaseEstimator):
    """Probabilities looked up by string keys: X is a 1-D list of keys (no 2-D array)."""

    def fit(self, X, y):
        self.classes_ = np.array([0, 1, 2])
        return self

    def predict_proba(self, X):
        return TABLE[[int(key) for key in X]]


def test_non_array_inputs_reach_the_model_unchanged():
    keys = [str(i) for i in range(9)] * 2
    model = KeyModel().fit(keys, Y_CAL)
    clf = SplitConformalClassifier(model, prefit=True, conformity_score="lac", alpha=0.25)
    clf.calibrate(keys, Y_CAL)
    ref = _prefit(conformity_score="lac", alpha=0.25).fit(X_CAL, Y_CAL)
    np.testing.assert_array_equal(clf.threshold_, ref.threshold_)
    np.testing.assert_array_equal(clf.predict_set(keys[:9]), ref.predict_set(X_TEST))
    clf2 = SplitConformalClassifier(model, prefit=True, conformity_score="lac", alpha=0.25)
    np.testing.assert_array_equal(clf2.fit(keys, Y_CAL).threshold_, ref.threshold_)
    # fit(prefit=False) splits a list of keys as a list
    clf3 = SplitConformalClassifier(KeyModel(), conformity_score="lac", random_state=0)
    assert clf3.fit(keys, Y_CAL).n_calib_ == 5


def test_dataframes_keep_their_column_names():
    pd = pytest.importorskip("pandas")
    from sklearn.linear_model import LogisticRegression

    rng = np.random.default_rng(1)
    df = pd.DataFrame(rng.normal(size=(60, 2)), columns=["height", "width"])
    y = (df["height"] > 0).astype(int).to_numpy()
    clf = SplitConformalClassifier(LogisticRegression(), conformity_score="lac",
                                   random_state=0).fit(df, y)
    assert list(clf.estimator_.feature_names_in_) == ["height", "width"]


def test_column_vector_labels_warn_in_evaluate():
    from sklearn.exceptions import DataConversionWarning

    clf = _prefit(conformity_score="lac", alpha=0.25).fit(X_CAL, Y_CAL)
    with pytest.warns(DataConversionWarning):
        res = clf.evaluate(X_TEST, Y_CAL[:9, None])
    assert res.coverage == clf.evaluate(X_TEST, Y_CAL[:9]).coverage


def test_a_failed_calibration_leaves_the_wrapper_unfitted():
    from sklearn.exceptions import NotFittedError

    model = TableModel(TABLE).fit(X_CAL, np.array([0, 1, 2]))
    clf = SplitConformalClassifier(model, prefit=True, conformity_score="lac")
    with pytest.raises(ValueError, match="unknown to the model"):
        clf.fit(X_CAL, Y_CAL + 5)  # the model's attributes were set, the threshold was not
    for method in (clf.predict, clf.predict_set, clf.label_scores, clf.predict_proba):
        with pytest.raises(NotFittedError):
            method(X_TEST)
    with pytest.raises(NotFittedError):
        clf.evaluate(X_TEST, Y_CAL[:9])


def test_model_classes_in_another_order_are_mapped_to_the_wrapper_columns():
    # the model lists its classes as [2, 0, 1]: its columns are reordered to classes_
    model = TableModel(TABLE, classes=[2, 0, 1])
    clf = SplitConformalClassifier(model, conformity_score="lac", random_state=0).fit(X_CAL, Y_CAL)
    np.testing.assert_array_equal(clf.classes_, [0, 1, 2])
    np.testing.assert_array_equal(clf.predict_proba(X_TEST), TABLE[:, [1, 2, 0]])


def test_single_precision_probabilities_are_scored_in_double():
    t32 = TABLE.astype(np.float32)
    t32 = t32 / t32.sum(axis=1, keepdims=True)

    class SingleModel(TableModel):
        def predict_proba(self, X):
            return np.asarray(self.table)[np.asarray(X)[:, 0].astype(int)]  # float32 rows

    model = SingleModel(t32).fit(X_CAL, np.array([0, 1, 2]))
    assert model.predict_proba(X_TEST).dtype == np.float32
    clf = SplitConformalClassifier(model, prefit=True, conformity_score="lac", alpha=0.25)
    clf.fit(X_CAL, Y_CAL)
    p64 = t32.astype(np.float64)[X_CAL[:, 0].astype(int)]
    assert clf.calib_scores_.dtype == np.float64
    np.testing.assert_array_equal(clf.calib_scores_, 1.0 - p64[np.arange(18), Y_CAL])
    assert clf.predict_proba(X_TEST).dtype == np.float64


def test_bad_model_probabilities_name_their_source():
    model = TableModel(TABLE * 0.5).fit(X_CAL, np.array([0, 1, 2]))
    raises(lambda: SplitConformalClassifier(model, prefit=True).fit(X_CAL, Y_CAL), ValueError,
           names="estimator", match=r"predict_proba\(X\): every row must sum to 1")


def test_thresholds_from_scores_refuse_missing_scores():
    from statlearn.conformal import thresholds_from_scores

    for scores in ([0.1, np.nan, 0.3], [0.1, None, 0.3]):
        raises(lambda s=scores: thresholds_from_scores(s, [0, 1, 1], 0.2, 2, mondrian=True),
               ValueError, names="scores", shows="NaN", match="must not contain")
    # integer scores are read as numbers: the per-class order statistics
    q = thresholds_from_scores([3, 1, 2, 5, 4, 6], [0, 0, 0, 1, 1, 1], 0.2, 2, mondrian=True)
    assert q.dtype == np.float64 and q.tolist() == [np.inf, np.inf]
    q = thresholds_from_scores([3, 1, 2, 5, 4, 6], [0, 0, 0, 1, 1, 1], 0.5, 2, mondrian=True)
    assert q.tolist() == [2.0, 5.0]  # ceil(4 * 0.5) = 2nd smallest of each class


# ------------------------------------------------------------------ written against survivors
def test_smoothed_sets_are_randomised_where_u_matters():
    # every table row 60 times: a cell whose p-value range over U straddles alpha
    # must be in some sets and out of others (one uniform per test row)
    X = np.repeat(X_TEST, 60, axis=0)
    s = 1 - TABLE
    for mondrian, alpha in ((None, 0.2), ("class", 0.3)):
        clf = _prefit(conformity_score="lac", alpha=alpha, randomized=True, mondrian=mondrian,
                      random_state=0).fit(X_CAL, Y_CAL)
        sets = clf.predict_set(X).reshape(9, 60, 3)
        mixed = 0
        for k in range(3):
            own = clf.calib_scores_ if mondrian is None else clf.calib_scores_[Y_CAL == k]
            a = (own[None, :] > s[:, k:k + 1]).sum(axis=1)
            t = (own[None, :] == s[:, k:k + 1]).sum(axis=1)
            lo, hi = a / (own.size + 1), (a + 1 + t) / (own.size + 1)
            for i in np.flatnonzero((lo < alpha) & (alpha < hi)):
                # P(in) = P(p > alpha) is strictly between 0 and 1: over 60 rows both occur
                # unless it is within 0.11 of 0 or 1 (then 0.89^60 < 1e-3)
                frac = sets[i, :, k].mean()
                share = (hi[i] - alpha) / (hi[i] - lo[i])
                if 0.11 < share < 0.89:
                    assert 0 < frac < 1, (mondrian, i, k)
                    mixed += 1
        assert mixed >= 1


def test_mondrian_socop_tuning_uses_class_thresholds():
    rng = np.random.default_rng(4)
    table = rng.dirichlet(np.full(4, 0.6), size=200)
    X = np.arange(200, dtype=float)[:, None]
    y = np.array([rng.choice(4, p=r) for r in table])
    model = TableModel(table, classes=[0, 1, 2, 3]).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        marg = SplitConformalClassifier(model, prefit=True, alpha=0.2, random_state=0).fit(X, y)
        cond = SplitConformalClassifier(model, prefit=True, alpha=0.2, mondrian="class",
                                        random_state=0).fit(X, y)
    # the same tuning split (same seed), calibrated per class: another curve
    np.testing.assert_array_equal(marg.calib_labels_, cond.calib_labels_)
    assert not np.array_equal(marg.lam_selection_.mean_size, cond.lam_selection_.mean_size)


def test_raps_k_reg_is_the_conformal_quantile_of_the_tuning_ranks():
    # identical rows p = (0.4, 0.3, 0.2, 0.1), true-label ranks 1, 2, 3, 4, 4; four tune
    # points, alpha = 0.4: k_reg is the ceil(5 * 0.6) = 3rd smallest of their ranks,
    # 3 when a rank-4 point is left for calibration and 4 otherwise
    table = np.array([[0.4, 0.3, 0.2, 0.1]])
    X = np.zeros((5, 1))
    y = np.array([0, 1, 2, 3, 3])
    model = TableModel(table, classes=[0, 1, 2, 3]).fit(X, y)
    seen = set()
    for seed in range(8):
        clf = SplitConformalClassifier(model, prefit=True, conformity_score="raps",
                                       randomized_score=False, alpha=0.4, tune_fraction=0.8,
                                       random_state=seed).fit(X, y)
        assert clf.n_calib_ == 1
        left = int(clf.calib_labels_[0])
        ranks = sorted(np.delete(np.array([1, 2, 3, 4, 4]), np.flatnonzero(y == left)[0]))
        assert clf.k_reg_ == ranks[2]
        seen.add(clf.k_reg_)
    assert seen == {3, 4}


def test_mondrian_with_a_class_absent_from_calibration():
    model = TableModel(TABLE).fit(X_CAL, np.array([0, 1, 2]))
    y = np.where(Y_CAL == 2, 1, Y_CAL)  # class 2 never appears
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        clf = SplitConformalClassifier(model, prefit=True, conformity_score="lac", alpha=0.3,
                                       mondrian="class").fit(X_CAL, y)
    msgs = [str(w.message) for w in rec if issubclass(w.category, UserWarning)]
    assert msgs == ["classes [np.int64(2)] have too few calibration points for alpha = 0.3; "
                    "their threshold is +inf, so they are in every set."]
    assert np.isinf(clf.threshold_[2]) and clf.predict_set(X_TEST)[:, 2].all()


def test_calibrate_warns_on_column_labels_and_is_seeded():
    from sklearn.exceptions import DataConversionWarning

    model = TableModel(TABLE).fit(X_CAL, np.array([0, 1, 2]))
    clf = SplitConformalClassifier(model, prefit=True, conformity_score="aps", alpha=0.25,
                                   random_state=7)
    with pytest.warns(DataConversionWarning):
        clf.calibrate(X_CAL, Y_CAL[:, None])
    first = clf.calib_scores_.copy()
    clf.calibrate(X_CAL, Y_CAL)
    np.testing.assert_array_equal(clf.calib_scores_, first)
    u = np.random.default_rng(7).random(18)
    rows = TABLE[X_CAL[:, 0].astype(int)]
    want = [_aps(rows[i], y) - (1 - u[i]) * rows[i, y] for i, y in enumerate(Y_CAL)]
    np.testing.assert_allclose(first, want, atol=1e-12)


def test_evaluate_passes_the_size_bins_on():
    from statlearn.conformal import evaluate_sets

    clf = _prefit(conformity_score="lac", alpha=0.25).fit(X_CAL, Y_CAL)
    y = np.array([1, 2, 0, 0, 2, 0, 1, 0, 1])  # some sets miss their label
    sets = clf.predict_set(X_TEST)
    for bins in ("exact", [0, 1, 3]):
        got = clf.evaluate(X_TEST, y, size_bins=bins)
        want = evaluate_sets(sets, y, 0.25, bins)
        assert got.sscv == want.sscv and got.coverage == want.coverage
    # the bins matter on these sets
    assert evaluate_sets(sets, y, 0.25, [0, 1, 3]).sscv != evaluate_sets(sets, y, 0.25).sscv


def test_two_calibration_points_are_enough_to_tune():
    model = TableModel(TABLE).fit(X_CAL, np.array([0, 1, 2]))
    clf = SplitConformalClassifier(model, prefit=True, conformity_score="raps",
                                   randomized_score=False, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clf.fit(X_CAL[:2], Y_CAL[:2])
    assert clf.n_calib_ == 1 and clf.k_reg_ == 3  # one tuning point: rank quantile is +inf


def test_unknown_label_message_lists_the_first_twenty_classes():
    K = 25
    table = np.full((1, K), 1.0 / K)
    model = TableModel(table, classes=np.arange(K)).fit(np.zeros((1, 1)), [0])
    clf = SplitConformalClassifier(model, prefit=True, conformity_score="lac", alpha=0.5)
    clf.fit(np.zeros((4, 1)), np.array([0, 1, 2, 3]))
    known = ", ".join(str(k) for k in range(20))
    raises(lambda: clf.evaluate(np.zeros((1, 1)), np.array([99])), ValueError, names="y",
           shows=(": [99]", f"known labels are [{known}]."), match="unknown to the model")


def test_fit_warns_on_column_labels():
    from sklearn.exceptions import DataConversionWarning

    X = np.c_[np.arange(18) % 9].astype(float)
    with pytest.warns(DataConversionWarning):
        SplitConformalClassifier(TableModel(TABLE, classes=[0, 1, 2]), conformity_score="lac",
                                 random_state=0).fit(X, Y_CAL[:, None])


def test_raps_tuning_scores_use_the_fixed_k_reg():
    # identical rows p = (0.5, 0.3, 0.2), true label 1 (rank 2), k_reg = 2: the RAPS score
    # of the truth is 0.8 for every lambda (no penalty at rank 2), every set is {0, 1}
    # (E_2 = 0.8 reaches q = 0.8), so both grid values tie and the first, 0.5, wins
    table = np.array([[0.5, 0.3, 0.2]])
    X = np.zeros((60, 1))
    y = np.ones(60, dtype=int)
    model = TableModel(table, classes=[0, 1, 2]).fit(X, y)
    clf = SplitConformalClassifier(model, prefit=True, conformity_score="raps", k_reg=2,
                                   randomized_score=False, lam_grid=[0.5, 0.0],
                                   random_state=0).fit(X, y)
    assert clf.k_reg_ == 2 and clf.lam_ == 0.5


# ------------------------------------------------------------------ from the complete run
def test_sparse_and_array_like_features_reach_the_model():
    import scipy.sparse as sp
    from sklearn.linear_model import LogisticRegression

    rng = np.random.default_rng(0)
    dense = rng.normal(size=(40, 3))
    y = (dense[:, 0] > 0).astype(int)
    coo = sp.coo_matrix(dense)
    a = SplitConformalClassifier(LogisticRegression(), conformity_score="lac",
                                 random_state=0).fit(coo, y)
    b = SplitConformalClassifier(LogisticRegression(), conformity_score="lac",
                                 random_state=0).fit(dense, y)
    np.testing.assert_allclose(a.threshold_, b.threshold_)

    class Wrapped:
        """An array-like without __getitem__ (only __array__ and a shape)."""

        def __init__(self, arr):
            self.arr = arr
            self.shape = arr.shape

        def __len__(self):
            return self.arr.shape[0]

        def __array__(self, dtype=None, copy=None):
            return self.arr

    c = SplitConformalClassifier(LogisticRegression(), conformity_score="lac",
                                 random_state=0).fit(Wrapped(dense), y)
    np.testing.assert_allclose(c.threshold_, b.threshold_)


def test_mondrian_smoothed_sets_are_boolean_with_an_empty_class():
    y = np.where(Y_CAL == 2, 1, Y_CAL)  # no calibration point of class 2
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clf = _prefit(conformity_score="lac", alpha=0.3, randomized=True, mondrian="class",
                      random_state=0).fit(X_CAL, y)
    sets = clf.predict_set(X_TEST)
    assert sets.dtype == np.bool_ and sets[:, 2].all()


def test_degenerate_socop_tuning_curve_warns_through_fit():
    table = np.array([[0.5, 0.3, 0.2]])
    X = np.zeros((50, 1))
    y = np.ones(50, dtype=int)
    model = TableModel(table, classes=[0, 1, 2]).fit(X, y)
    with pytest.warns(UserWarning, match="SOCOP lambda search: the tuning curve "):
        SplitConformalClassifier(model, prefit=True, random_state=0).fit(X, y)


def test_raps_tuning_with_class_thresholds():
    rng = np.random.default_rng(2)
    table = rng.dirichlet(np.ones(3), size=90)
    X = np.arange(90, dtype=float)[:, None]
    y = np.array([rng.choice(3, p=r) for r in table])
    model = TableModel(table, classes=[0, 1, 2]).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clf = SplitConformalClassifier(model, prefit=True, conformity_score="raps",
                                       mondrian="class", alpha=0.3, random_state=0).fit(X, y)
    assert clf.lam_ in RAPS_LAM_GRID and clf.mondrian_


def test_small_class_rule_at_one_point_and_the_ten_class_message():
    # one calibration point of class 2 at alpha = 0.5: rank ceil(2 * 0.5) = 1 <= 1, so its
    # threshold is that point's score and no warning is due for it
    model = TableModel(TABLE).fit(X_CAL, np.array([0, 1, 2]))
    y = np.where(Y_CAL == 2, 0, Y_CAL)
    y[3] = 2
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        clf = SplitConformalClassifier(model, prefit=True, conformity_score="lac", alpha=0.5,
                                       mondrian="class").fit(X_CAL, y)
    assert clf.threshold_[2] == pytest.approx(1 - TABLE[3, 2])
    # twelve classes with one point each at alpha = 0.1: the message lists the first ten
    K = 12
    model = TableModel(np.full((1, K), 1.0 / K), classes=np.arange(K)).fit(np.zeros((1, 1)),
                                                                          [0])
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        SplitConformalClassifier(model, prefit=True, conformity_score="lac", alpha=0.1,
                                 mondrian="class").fit(np.zeros((K, 1)), np.arange(K))
    listed = ", ".join(f"np.int64({k})" for k in range(10))
    msgs = [str(w.message) for w in rec if issubclass(w.category, UserWarning)]
    assert msgs == [f"classes [{listed}] have too few calibration points for alpha = 0.1; "
                    "their threshold is +inf, so they are in every set."]


def test_tuning_split_sizes_are_rounded_and_bounded():
    table = np.array([[0.5, 0.3, 0.2]])
    model = TableModel(table, classes=[0, 1, 2]).fit(np.zeros((1, 1)), [0])
    for n, frac, n_cal in [(2, 0.8, 1), (5, 0.2, 4), (10, 0.5, 5), (10, 0.04, 9)]:
        clf = SplitConformalClassifier(model, prefit=True, conformity_score="raps",
                                       randomized_score=False, tune_fraction=frac,
                                       random_state=0)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            clf.fit(np.zeros((n, 1)), np.arange(n) % 3)
        assert clf.n_calib_ == n_cal, (n, frac)


def test_prediction_streams_differ_between_seeds():
    # each fit draws the seed of its prediction stream from a 63-bit range: fifty
    # seeds give fifty different streams (a range of about a hundred would collide)
    rows = []
    for seed in range(50):
        clf = _prefit(conformity_score="aps", alpha=0.25, random_state=seed).fit(X_CAL, Y_CAL)
        rows.append(tuple(np.round(clf.label_scores(X_TEST[:1])[0], 12)))
    assert len(set(rows)) == 50


def test_unknown_label_message_lists_five():
    clf = _prefit(conformity_score="lac", alpha=0.25).fit(X_CAL, Y_CAL)
    raises(lambda: clf.evaluate(X_TEST[:7], np.array([0, 10, 11, 12, 13, 14, 15])), ValueError,
           names="y", shows=(": [10, 11, 12, 13, 14];", "known labels are [0, 1, 2]"),
           match="unknown to the model")


def test_input_tags_follow_the_base_model():
    class TextModel(KeyModel):
        def __sklearn_tags__(self):
            tags = super().__sklearn_tags__()
            tags.input_tags.string = True
            tags.input_tags.two_d_array = False
            return tags

    outer = SplitConformalClassifier(TextModel()).__sklearn_tags__().input_tags
    assert outer.string and not outer.two_d_array
    default = SplitConformalClassifier().__sklearn_tags__().input_tags
    assert default.two_d_array and not default.string

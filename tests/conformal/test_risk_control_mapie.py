"""Agreement with MAPIE's risk control (``mapie.risk_control``) on the same data.

MAPIE is an optional test dependency. Where the definitions coincide the outputs
agree to 1e-8 (p-values, which go through exp/log and the binomial cdf) or exactly
(indices, thresholds). Where they differ the test pins the difference down:

* sets: statlearn's multi-label sets are ``{k : p_k >= t}``, MAPIE's ``{k : p_k > t}``;
  MAPIE is given ``nextafter(t, -inf)``, for which the two sets are the same;
* levels: MAPIE takes ``target_level`` and uses ``alpha = 1 - target_level`` (a float
  that may differ from the decimal level in the last bit); statlearn is given that
  float;
* the Bentkus term counts ``ceil(n R_n)`` losses. MAPIE computes it from the risk
  ``R_n = k / n`` in floating point, where ``n (k / n)`` can round above ``k`` and add
  one; statlearn snaps ``n R_n`` within 1e-9 of an integer to it (counting ``k``). With
  ``n`` a power of two, ``k / n`` is exact and the two agree; the other case is pinned
  below;
* CRC: MAPIE keeps the thresholds with ``r_hat_plus < alpha`` (strict), the paper and
  statlearn ``<=``; they differ only when ``(n R_n + 1) / (n + 1)`` equals ``alpha``,
  which the data here avoid (checked).
"""

from __future__ import annotations

import functools

import numpy as np
import pytest

from statlearn.conformal import (
    BinaryRiskController,
    MultiLabelRiskController,
    bentkus_pvalue,
    fwer_control,
    hoeffding_bentkus_pvalue,
    learn_then_test,
)

mapie_rc = pytest.importorskip("mapie.risk_control")
mapie_methods = pytest.importorskip("mapie.risk_control.methods")
mapie_fwer = pytest.importorskip("mapie.risk_control.fwer_control")

RTOL = 1e-8  # exp/log and scipy's binomial cdf on both sides, different operation orders


@pytest.mark.parametrize("alpha", [0.05, 0.1, 0.2, 0.5])
@pytest.mark.parametrize("binary", [False, True])
def test_hoeffding_bentkus_pvalues_agree(alpha, binary):
    n = 256  # k / n exact in binary, so both count the same ceil(n R_n)
    r = np.arange(n + 1) / n
    ours = hoeffding_bentkus_pvalue(r, n, alpha, binary=binary)
    theirs = mapie_methods.compute_hoeffding_bentkus_p_value(r, n, alpha, binary=binary)[:, 0]
    np.testing.assert_allclose(ours, np.minimum(theirs, 1.0), rtol=RTOL, atol=1e-300)


def test_bentkus_count_where_mapie_rounds_up():
    # n = 100, k = 7: 100 * 0.07 = 7.000000000000001, so MAPIE takes ceil = 8
    n, alpha = 100, 0.2
    assert n * (7 / n) > 7
    theirs = mapie_methods.compute_hoeffding_bentkus_p_value(np.array([7 / n]), n, alpha,
                                                             binary=True)[0, 0]
    np.testing.assert_allclose(theirs, bentkus_pvalue(8 / n, n, alpha, binary=True),
                               rtol=RTOL)
    from scipy import stats

    np.testing.assert_allclose(bentkus_pvalue(7 / n, n, alpha, binary=True),
                               stats.binom.cdf(7, n, alpha), rtol=1e-12)


@pytest.mark.parametrize("method, theirs", [("bonferroni", "bonferroni"),
                                            ("holm", "bonferroni_holm"),
                                            ("fixed_sequence", "fixed_sequence")])
def test_fwer_procedures_agree(method, theirs):
    rng = np.random.default_rng(3)
    for _ in range(200):
        m = int(rng.integers(1, 30))
        p = rng.random(m) ** rng.uniform(1, 6)
        delta = float(rng.uniform(0.01, 0.5))
        np.testing.assert_array_equal(fwer_control(p, delta, method=method),
                                      mapie_fwer.control_fwer(p, delta, fwer_method=theirs))


def test_ltt_agrees_with_mapie_ltt_procedure():
    from mapie.risk_control._base_controller import ltt_procedure

    rng = np.random.default_rng(5)
    n = 128
    L = rng.random((n, 40)) < np.linspace(0.02, 0.6, 40)
    for fwer, theirs in [("bonferroni", "bonferroni"), ("holm", "bonferroni_holm")]:
        res = learn_then_test(L.astype(float), 0.25, 0.1, fwer=fwer, binary=True)
        valid, p = ltt_procedure(L.mean(axis=0)[None, :], np.array([[0.25]]), 0.1,
                                 np.full((1, 40), n), True, fwer_method=theirs)
        np.testing.assert_allclose(res.pvalues, np.minimum(p[:, 0], 1.0), rtol=RTOL)
        np.testing.assert_array_equal(res.selected, valid[0])


@functools.cache
def _multilabel_model():
    # 200 calibration points: MAPIE's multi-label controller loops in Python over
    # points and thresholds
    from sklearn.datasets import make_multilabel_classification
    from sklearn.linear_model import LogisticRegression
    from sklearn.multioutput import MultiOutputClassifier

    X, Y = make_multilabel_classification(n_samples=700, n_classes=5, n_labels=2,
                                          allow_unlabeled=False, random_state=1)
    model = MultiOutputClassifier(LogisticRegression(max_iter=500)).fit(X[:500], Y[:500])
    return model, X[500:], Y[500:]


def _predict_fn(model):
    return lambda X: np.column_stack([p[:, 1] for p in model.predict_proba(X)])


@pytest.mark.parametrize("target", [0.8, 0.95])
def test_multilabel_recall_crc_agrees(target):
    model, X, Y = _multilabel_model()
    grid = np.round(np.arange(0, 1, 0.01), 2)
    alpha = 1 - target
    ours = MultiLabelRiskController(model, alpha=alpha, thresholds=grid, prefit=True).fit(X, Y)
    theirs = mapie_rc.MultiLabelClassificationController(
        predict_function=_predict_fn(model), risk="recall", method="crc",
        target_level=target, predict_params=np.nextafter(grid, -np.inf))
    theirs.calibrate(X, Y)
    assert np.nextafter(ours.threshold_, -np.inf) == float(theirs.best_predict_param[0])
    # the adjusted risks (n R + 1) / (n + 1), thresholds in MAPIE's (ascending) order
    np.testing.assert_allclose(ours.result_.adjusted_risk[::-1], theirs.r_hat_plus,
                               rtol=1e-12)
    assert not np.any(theirs.r_hat_plus == alpha)  # no tie between < and <=
    np.testing.assert_array_equal(ours.predict(X),
                                  theirs.predict(X)[:, :, 0])


def test_multilabel_precision_ltt_agrees():
    model, X, Y = _multilabel_model()
    grid = np.round(np.arange(0, 1, 0.01), 2)
    target = 0.5
    ours = MultiLabelRiskController(model, risk="precision", alpha=1 - target, delta=0.1,
                                    thresholds=grid, fwer="holm", prefit=True).fit(X, Y)
    theirs = mapie_rc.MultiLabelClassificationController(
        predict_function=_predict_fn(model), risk="precision", method="ltt",
        target_level=target, confidence_level=0.9, predict_params=np.nextafter(grid, -np.inf))
    theirs.calibrate(X, Y)
    np.testing.assert_allclose(ours.result_.risk[::-1], theirs.r_hat, rtol=1e-12)
    assert ours.result_.selected.size > 0
    certified = np.sort(ours.result_.lambdas[ours.result_.selected])
    np.testing.assert_array_equal(np.nextafter(certified, -np.inf),
                                  np.sort(theirs.valid_predict_params[0]))
    assert np.nextafter(ours.threshold_, -np.inf) == float(theirs.best_predict_param[0])


def _binary_model():
    from sklearn.datasets import load_breast_cancer
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    X, y = load_breast_cancer(return_X_y=True)
    rng = np.random.default_rng(0)
    perm = rng.permutation(y.size)
    X, y = X[perm], y[perm]
    model = make_pipeline(StandardScaler(), LogisticRegression()).fit(X[:200], y[:200])
    return model, X[200:], y[200:]


@pytest.mark.parametrize("risk", ["precision", "recall"])
@pytest.mark.parametrize("fwer, theirs", [("bonferroni", "bonferroni"),
                                          ("holm", "bonferroni_holm")])
def test_binary_controller_agrees(risk, fwer, theirs):
    model, X, y = _binary_model()
    grid = np.round(np.linspace(0, 0.99, 100), 2)
    target = 0.9
    ours = BinaryRiskController(model, risk=risk, alpha=1 - target, delta=0.1,
                                thresholds=grid, fwer=fwer, prefit=True).fit(X, y)
    ctrl = mapie_rc.BinaryClassificationController(
        predict_function=model.predict_proba, risk=risk, target_level=target,
        confidence_level=0.9, list_predict_params=grid, fwer_method=theirs)
    ctrl.calibrate(X, y)
    res = ours.result_
    order = np.argsort(res.lambdas)  # MAPIE's grid is ascending
    # p-values: MAPIE's risk is 1 - correct / n, whose n-multiple often rounds above the
    # count k of losses, so its Bentkus term counts ceil(n R) = k + 1 there; both are
    # pinned to their closed forms, and equal to 1e-8 wherever the counts agree
    from scipy import stats

    p_theirs = np.minimum(ctrl.p_values[:, 0], 1.0)
    n = res.n_samples[order].astype(float)
    k = np.round(res.risk[order] * n)
    alpha = 1 - target
    pos = n > 0
    with np.errstate(invalid="ignore", divide="ignore"):
        r_mapie = 1 - (n - k) / n
    a = np.minimum(r_mapie, alpha)
    with np.errstate(invalid="ignore", divide="ignore"):
        h1 = np.where(a > 0, a * np.log(a / alpha), 0.0) + (1 - a) * np.log((1 - a) / (1 - alpha))
    hoeff = np.exp(-n * h1)
    ours_closed = np.minimum(hoeff, stats.binom.cdf(k, n, alpha))
    theirs_closed = np.minimum(hoeff, stats.binom.cdf(np.ceil(n * r_mapie), n, alpha))
    np.testing.assert_allclose(res.pvalues[order][pos], ours_closed[pos], rtol=RTOL)
    np.testing.assert_allclose(p_theirs[pos], np.minimum(theirs_closed[pos], 1.0), rtol=RTOL)
    same = pos & (np.ceil(n * r_mapie) == k)
    np.testing.assert_allclose(res.pvalues[order][same], p_theirs[same], rtol=RTOL)
    assert (p_theirs[pos] >= res.pvalues[order][pos] * (1 - RTOL)).all()
    assert (res.pvalues[order][~pos] == 1.0).all()
    # the certified sets: MAPIE's (more conservative) inside statlearn's; on these data
    # the extra loss changes no decision, so sets, choice and predictions are equal
    assert set(ctrl.valid_predict_params.tolist()) <= set(res.lambdas[res.selected].tolist())
    np.testing.assert_array_equal(np.sort(res.lambdas[res.selected]),
                                  np.sort(ctrl.valid_predict_params))
    assert ours.threshold_ == ctrl.best_predict_param
    np.testing.assert_array_equal(ours.predict(X), ctrl.predict(X))

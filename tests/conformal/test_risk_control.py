"""Conformal risk control and learn-then-test: exact reductions, closed forms,
Monte Carlo guarantees with their false-alarm rates and power, the controllers."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from scipy import stats

from statlearn.conformal import (
    BinaryRiskController,
    MultiLabelRiskController,
    RiskControlResult,
    SplitConformalClassifier,
    bentkus_pvalue,
    binary_losses,
    conformal_quantile,
    conformal_risk_control,
    fwer_control,
    hoeffding_bentkus_pvalue,
    hoeffding_pvalue,
    learn_then_test,
    miscoverage_losses,
    multilabel_fnr_losses,
    multilabel_precision_losses,
)
from tests.helpers import raises

Z_1E6 = stats.norm.isf(1e-6)  # one-sided normal quantile of a 1e-6 false alarm


def mc_size(ci, full):
    """Monte Carlo size: ``full`` with ``STATLEARN_SLOW=1`` (the slow run), else ``ci``."""
    import os

    return full if os.environ.get("STATLEARN_SLOW", "0") not in ("", "0") else ci


def _quiet(call):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return call()


# ----------------------------------------------------------------------- CRC = split conformal
@settings(max_examples=60, deadline=None)
@given(scores=arrays(np.float64, st.integers(1, 40),
                     elements=st.sampled_from([0.0, 0.1, 0.25, 0.3, 0.5, 0.7, 1.0, 2.0])),
       alpha=st.sampled_from([0.01, 0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 0.9]))
def test_crc_with_miscoverage_is_split_conformal_exactly(scores, alpha):
    # Angelopoulos et al. 2024, Section 2: with L_i(lambda) = 1{s_i > lambda} and B = 1,
    # lambda_hat is the ceil((n + 1)(1 - alpha))-th smallest score (+inf past n); ties
    # included, and decimal levels such as alpha = 0.3 with n = 9
    grid = np.append(np.unique(scores), np.inf)
    res = _quiet(lambda: conformal_risk_control(miscoverage_losses(scores, grid), alpha,
                                                lambdas=grid))
    assert res.lambda_hat == conformal_quantile(scores, alpha)
    n = scores.size
    k = math.ceil(round((n + 1) * (1 - alpha), 9))
    expected = math.inf if k > n else float(np.sort(scores)[k - 1])
    assert res.lambda_hat == expected


def test_crc_gives_the_thresholds_and_sets_of_split_conformal_classifier():
    from sklearn.datasets import make_classification
    from sklearn.linear_model import LogisticRegression

    X, y = make_classification(600, n_features=5, n_informative=4, n_redundant=0,
                               n_classes=3,
                               random_state=0)
    model = LogisticRegression().fit(X[:300], y[:300])
    for alpha in (0.05, 0.1, 0.3):
        clf = SplitConformalClassifier(model, conformity_score="lac", alpha=alpha,
                                       prefit=True, random_state=0).fit(X[300:500], y[300:500])
        scores = 1.0 - model.predict_proba(X[300:500])[np.arange(200), y[300:500]]
        grid = np.append(np.unique(scores), np.inf)
        res = conformal_risk_control(miscoverage_losses(scores, grid), alpha, lambdas=grid)
        assert res.lambda_hat == clf.threshold_[0]
        sets = (1.0 - model.predict_proba(X[500:])) <= res.lambda_hat
        np.testing.assert_array_equal(sets, clf.predict_set(X[500:]))


def test_crc_condition_by_hand():
    # n = 4, B = 1, alpha = 0.5: column sums 3, 2, 1, 0; the condition sum + 1 <= 2.5
    # first holds at the third column
    L = np.array([[1, 1, 1, 0], [1, 1, 0, 0], [1, 0, 0, 0], [0, 0, 0, 0]], dtype=float)
    res = conformal_risk_control(L, 0.5, lambdas=[10.0, 20.0, 30.0, 40.0])
    assert (res.index, res.lambda_hat) == (2, 30.0)
    np.testing.assert_array_equal(res.risk, [0.75, 0.5, 0.25, 0.0])
    np.testing.assert_array_equal(res.adjusted_risk, [0.8, 0.6, 0.4, 0.2])
    # a bound B = 2 moves it one column on: sum + 2 <= 2.5
    assert conformal_risk_control(L, 0.5, bound=2.0).index == 3


@settings(max_examples=60, deadline=None)
@given(steps=arrays(np.int64, st.tuples(st.integers(1, 15), st.integers(1, 8)),
                    elements=st.integers(0, 3)),
       alpha=st.sampled_from([0.05, 0.1, 0.25, 0.5, 0.75]))
def test_crc_picks_the_first_candidate_meeting_the_condition(steps, alpha):
    # losses in multiples of 1/8 (exact sums), non-increasing along the columns: start at
    # B = 1 and subtract the drawn steps, floored at 0
    L = np.maximum(1.0 - np.cumsum(steps, axis=1) / 8.0, 0.0)
    n = L.shape[0]
    ok = [L[:, j].sum() + 1.0 <= alpha * (n + 1) for j in range(L.shape[1])]
    res = _quiet(lambda: conformal_risk_control(L, alpha))
    assert res.index == (ok.index(True) if any(ok) else L.shape[1] - 1)


def test_crc_callable_equals_the_matrix():
    rng = np.random.default_rng(0)
    u = rng.random(30)
    grid = np.linspace(0, 1, 21)
    by_matrix = conformal_risk_control(np.maximum(u[:, None] - grid, 0.0), 0.2, lambdas=grid)
    by_callable = conformal_risk_control(lambda lam: np.maximum(u - lam, 0.0), 0.2,
                                         lambdas=grid)
    assert by_matrix.index == by_callable.index
    np.testing.assert_array_equal(by_matrix.risk, by_callable.risk)


def test_crc_with_no_feasible_candidate_warns_and_returns_lambda_max():
    L = np.ones((5, 3))
    with pytest.warns(UserWarning, match="lambda_max"):
        res = conformal_risk_control(L, 0.1)
    assert res.index == 2


# ----------------------------------------------------------------------- CRC guarantee (MC)
def _crc_risks(n, alpha, reps, seed, bound=1.0):
    """E[L_{n+1}(lambda_hat) | calibration] for L(lambda) = (U - lambda)_+, U ~ Unif(0, 1):
    (1 - lambda)^2 / 2 in closed form, one value per replication."""
    grid = np.linspace(0.0, 1.0, 201)
    rng = np.random.default_rng(seed)
    out = np.empty(reps)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for r in range(reps):
            u = rng.random(n)
            res = conformal_risk_control(np.maximum(u[:, None] - grid, 0.0), alpha,
                                         lambdas=grid, bound=bound)
            out[r] = (1.0 - res.lambda_hat) ** 2 / 2
    return out


def test_crc_controls_the_expected_loss_and_is_tight():
    """Angelopoulos et al. 2024, Theorems 1 and 2, on L(lambda) = (U - lambda)_+ (B = 1,
    continuous, i.i.d.): alpha - 2B/(n+1) - h <= E[L(lambda_hat)] <= alpha, with h = 1/200
    the grid step (a grid lambda_hat is at most h above the continuous one and the risk
    curve has slope at most 1). Each replication contributes the exact conditional test
    risk (1 - lambda_hat)^2 / 2, so the Monte Carlo mean is normal with the sample standard
    error: one-sided bounds at z = 4.75, a false alarm of 1e-6 each (2e-6 in all).

    Power: dropping the B/(n+1) term (lambda_hat = inf{n R_n/(n+1) <= alpha}) gives a mean
    risk of 0.338 at n = 9, alpha = 0.3 (sd 0.084 per replication), about 25 standard
    errors above alpha at 3000 replications; planted once in conformal_risk_control, this
    test failed with mean 0.3353 > 0.3 + 0.0072. The correct procedure gives 0.2308
    (standard error 0.0014) at this seed.
    """
    n, alpha = 9, 0.3
    reps = mc_size(3000, 30000)
    risk = _crc_risks(n, alpha, reps, seed=20240)
    mean, se = risk.mean(), risk.std(ddof=1) / math.sqrt(reps)
    assert mean <= alpha + Z_1E6 * se, (mean, se)
    assert mean >= alpha - 2.0 / (n + 1) - 1 / 200 - Z_1E6 * se, (mean, se)


# ----------------------------------------------------------------------- losses
def test_multilabel_losses_by_hand():
    Y = [[1, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 0]]
    P = [[0.9, 0.3, 0.6, 0.1], [0.2, 0.2, 0.5, 0.9], [0.4, 0.1, 0.1, 0.1]]
    t = [0.95, 0.5, 0.25]
    fnr = multilabel_fnr_losses(Y, P, t)
    # row 0: sets {}, {0, 2}, {0, 1, 2}; row 1: {}, {2, 3}, {2, 3}; row 2 has no label: 0
    np.testing.assert_array_equal(fnr, [[1.0, 0.5, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 0.0]])
    prec = multilabel_precision_losses(Y, P, t)
    np.testing.assert_allclose(prec, [[1.0, 0.5, 1 / 3], [1.0, 0.5, 0.5], [1.0, 1.0, 1.0]],
                               rtol=1e-15)


def test_binary_losses_count_only_the_conditioning_samples():
    y = np.array([1, 0, 1, 0])
    p = np.array([0.9, 0.8, 0.3, 0.1])
    prec = binary_losses(y, p, [0.5, 0.0], risk="precision")
    np.testing.assert_array_equal(np.isnan(prec[:, 0]), [False, False, True, True])
    assert np.nanmean(prec[:, 0]) == 0.5 and np.nanmean(prec[:, 1]) == 0.5
    rec = binary_losses(y, p, [0.5, 0.95], risk="recall")
    np.testing.assert_array_equal(rec[[0, 2]], [[0.0, 1.0], [1.0, 1.0]])
    assert np.isnan(rec[[1, 3]]).all()


def test_losses_reject_bad_input():
    raises(lambda: multilabel_fnr_losses([[1, 2]], [[0.5, 0.5]], [0.5]), ValueError,
           names="Y", shows="2")
    raises(lambda: multilabel_fnr_losses([[1, 0]], [[0.5, 1.5]], [0.5]), ValueError,
           names="proba")
    raises(lambda: multilabel_fnr_losses([[1, 0]], [[0.5, 0.5], [0.1, 0.1]], [0.5]),
           ValueError, names=("Y", "proba"))
    raises(lambda: binary_losses([0, 1], [0.2, 0.3], [0.5], risk="f1"), ValueError,
           names="risk", shows="'f1'")
    raises(lambda: miscoverage_losses([0.1], [np.nan]), ValueError, names="lambdas")


def test_crc_rejects_bad_input():
    L = np.array([[1.0, 0.0], [0.0, 1.0]])
    raises(lambda: conformal_risk_control(L, 0.5), ValueError, names="losses",
           match="non-increasing")
    raises(lambda: conformal_risk_control(2 * np.ones((3, 2)), 0.5), ValueError,
           names=("losses", "bound"), shows="2.0")
    raises(lambda: conformal_risk_control(np.ones((3, 2)), 1.5), ValueError, names="alpha",
           shows="1.5")
    raises(lambda: conformal_risk_control(np.ones((3, 2)), 0.5, bound=0.0), ValueError,
           names="bound")
    raises(lambda: conformal_risk_control(np.ones((3, 2)), 0.5, lambdas=[1.0]), ValueError,
           names="lambdas")
    raises(lambda: conformal_risk_control(lambda lam: np.ones(3), 0.5), ValueError,
           names="lambdas")


# ----------------------------------------------------------------------- p-values
@settings(max_examples=80, deadline=None)
@given(n=st.integers(1, 200), k_frac=st.floats(0, 1), alpha=st.floats(0.01, 0.99))
def test_pvalues_equal_their_closed_forms(n, k_frac, alpha):
    # rtol 1e-10: both sides go through exp/log and the binomial cdf
    k = int(round(k_frac * n))
    r = k / n
    assert math.isclose(hoeffding_pvalue(r, n, alpha),
                        math.exp(-2 * n * max(alpha - r, 0.0) ** 2), rel_tol=1e-12)
    tail = math.fsum(math.comb(n, j) * alpha ** j * (1 - alpha) ** (n - j)
                     for j in range(k + 1))
    assert math.isclose(bentkus_pvalue(r, n, alpha, binary=True), min(1.0, tail),
                        rel_tol=1e-9, abs_tol=1e-300)
    assert math.isclose(bentkus_pvalue(r, n, alpha), min(1.0, math.e * tail),
                        rel_tol=1e-9, abs_tol=1e-300)
    a = min(r, alpha)
    h1 = (a * math.log(a / alpha) if a > 0 else 0.0) + (1 - a) * math.log((1 - a) / (1 - alpha))
    hb = min(math.exp(-n * h1), math.e * tail)
    assert math.isclose(hoeffding_bentkus_pvalue(r, n, alpha), hb, rel_tol=1e-9,
                        abs_tol=1e-300)
    # Pinsker: the relative-entropy Hoeffding bound is below the plain one
    assert math.exp(-n * h1) <= hoeffding_pvalue(r, n, alpha) * (1 + 1e-12)


@pytest.mark.parametrize("n, alpha", [(20, 0.1), (50, 0.3), (137, 0.05)])
def test_binary_pvalue_is_valid_exactly(n, alpha):
    # under R = alpha exactly, P(p <= t) <= t for every t: summed over the binomial law
    k = np.arange(n + 1)
    p = np.asarray(bentkus_pvalue(k / n, np.full(n + 1, n), alpha, binary=True))
    pmf = stats.binom.pmf(k, n, alpha)
    for t in np.unique(p):
        assert pmf[p <= t].sum() <= t * (1 + 1e-9)


def test_pvalues_reject_bad_input():
    raises(lambda: hoeffding_pvalue(1.2, 10, 0.1), ValueError, names="risk", shows="1.2")
    raises(lambda: hoeffding_pvalue(0.2, 10.5, 0.1), TypeError, names="n", shows="10.5")
    raises(lambda: hoeffding_pvalue(0.2, -1, 0.1), ValueError, names="n", shows="-1")
    raises(lambda: bentkus_pvalue([0.1, 0.2], [10, 10, 10], 0.1), ValueError,
           names=("risk", "n"))
    raises(lambda: hoeffding_bentkus_pvalue(0.1, 10, 0.0), ValueError, names="alpha")
    raises(lambda: bentkus_pvalue(0.1, 10, 0.1, binary="yes"), TypeError, names="binary")


# ----------------------------------------------------------------------- FWER procedures
def test_fwer_procedures_by_hand():
    p = np.array([0.03, 0.001, 0.5, 0.012, 0.04])
    # Bonferroni at 0.05 / 5 = 0.01
    assert fwer_control(p, 0.05).tolist() == [1]
    # Holm: 0.001 <= 0.01, 0.012 <= 0.0125, 0.03 > 0.05 / 3: stop
    assert fwer_control(p, 0.05, method="holm").tolist() == [1, 3]
    # fixed sequence in the given order: 0.03, 0.001 <= 0.05, then 0.5 fails: stop
    assert fwer_control(p, 0.05, method="fixed_sequence").tolist() == [0, 1]
    assert fwer_control(p, 0.05, method="fixed_sequence", order=[3, 4, 0, 1, 2]).tolist() == \
        [0, 1, 3, 4]
    assert fwer_control(p, 0.05, method="fixed_sequence", order=[2, 0, 1, 3, 4]).size == 0


@settings(max_examples=60, deadline=None)
@given(p=arrays(np.float64, st.integers(1, 12), elements=st.floats(0, 1)),
       delta=st.floats(0.01, 0.5))
def test_holm_contains_bonferroni_and_matches_its_definition(p, delta):
    bonf = set(fwer_control(p, delta).tolist())
    holm = fwer_control(p, delta, method="holm").tolist()
    assert bonf <= set(holm)
    # brute force: the j-th smallest (1-based) is rejected iff all up to it pass
    m = p.size
    order = np.argsort(p, kind="stable")
    expected = []
    for j, i in enumerate(order):
        if p[i] > delta / (m - j):
            break
        expected.append(int(i))
    assert holm == sorted(expected)


def test_fwer_rejects_bad_input():
    raises(lambda: fwer_control([0.1, 1.5], 0.1), ValueError, names="pvalues", shows="1.5")
    raises(lambda: fwer_control([0.1], 0.1, method="hochberg"), ValueError, names="method",
           shows="'hochberg'")
    raises(lambda: fwer_control([0.1, 0.2], 0.1, method="fixed_sequence", order=[0, 0]),
           ValueError, names="order")
    raises(lambda: fwer_control([0.1, 0.2], 0.1, order=[1, 0]), ValueError, names="order")
    raises(lambda: fwer_control([0.1], 1.0), ValueError, names="delta", shows="1.0")


# ----------------------------------------------------------------------- LTT guarantee (MC)
N_LTT, ALPHA_LTT, DELTA_LTT = 100, 0.2, 0.2
# 5 candidates of risk 0.05 first (safe), then 200 independent nulls of risk 0.205 > alpha
RISKS_LTT = np.r_[np.full(5, 0.05), np.full(200, 0.205)]


def _ltt_error_rate(reps, seed, **kwargs):
    rng = np.random.default_rng(seed)
    null = RISKS_LTT > ALPHA_LTT
    errors = 0
    for _ in range(reps):
        L = (rng.random((N_LTT, RISKS_LTT.size)) < RISKS_LTT).astype(float)
        res = learn_then_test(L, ALPHA_LTT, DELTA_LTT, **kwargs)
        errors += bool(null[res.selected].any())
    return errors


@pytest.mark.parametrize("fwer", ["bonferroni", "holm", "fixed_sequence"])
@pytest.mark.parametrize("pvalue, binary", [("hoeffding", False),
                                            ("hoeffding_bentkus", False),
                                            ("bentkus", True)])
def test_ltt_controls_the_family_wise_error(fwer, pvalue, binary):
    """Angelopoulos et al. 2025, Theorem 1: P(some certified candidate has R > alpha) <=
    delta. The count of replications with an error is binomial with a rate at most delta;
    the test fails above binom.ppf(1 - 1e-6 / 9) (false alarm 1e-6 over the 9 cases).

    At this seed the error rates are 0, 0.043 and 0.117 (Bonferroni and Holm; Hoeffding,
    HB, binary Bentkus) and 0.003, 0.033 and 0.163 (fixed sequence), under the bound
    98/300 = 0.33. Power against the planted defects, at 300 replications: Bonferroni
    without the union correction (each p-value tested at delta, not delta / m) made an
    error in 0.84 of the replications with Hoeffding p-values (0.997 HB, 1.0 binary
    Bentkus); a fixed-sequence test that carries on after a failure made the same
    (0.84, 0.997, 1.0). Both were planted once in fwer_control and failed here.
    """
    reps = mc_size(300, 3000)
    errors = _ltt_error_rate(reps, seed=2110, pvalue=pvalue, fwer=fwer, binary=binary)
    assert errors <= stats.binom.ppf(1 - 1e-6 / 9, reps, DELTA_LTT), errors / reps


def test_ltt_certifies_the_safe_candidates():
    # power of the procedure itself: 5 candidates of risk 0.02 are certified at n = 100
    # (P(Bin(100, 0.2) <= 6) = 1e-4 < delta / 205 while the count of losses stays <= 6
    # with probability 0.995 each)
    rng = np.random.default_rng(7)
    risks = np.r_[np.full(5, 0.02), RISKS_LTT[5:]]
    L = (rng.random((N_LTT, risks.size)) < risks).astype(float)
    for fwer in ("bonferroni", "holm", "fixed_sequence"):
        res = learn_then_test(L, ALPHA_LTT, DELTA_LTT, fwer=fwer, binary=True,
                              pvalue="hoeffding_bentkus")
        assert set(range(5)) <= set(res.selected.tolist()), fwer


def test_ltt_fixed_sequence_follows_the_given_order():
    rng = np.random.default_rng(3)
    L = (rng.random((400, 6)) < np.array([0.5, 0.02, 0.02, 0.02, 0.5, 0.02])).astype(float)
    # column order: the first null (risk 0.5) stops the sequence at once
    assert learn_then_test(L, 0.2, 0.1, fwer="fixed_sequence").selected.size == 0
    res = learn_then_test(L, 0.2, 0.1, fwer="fixed_sequence", order=[1, 2, 3, 0, 4, 5])
    assert res.selected.tolist() == [1, 2, 3] and res.index == 3
    raises(lambda: learn_then_test(L, 0.2, 0.1, order=[0, 1, 2, 3, 4, 5]), ValueError,
           names="order")


def test_ltt_counts_only_the_non_nan_losses():
    L = np.array([[0.0, np.nan], [1.0, 0.0], [np.nan, 0.0], [0.0, np.nan]])
    res = learn_then_test(L, 0.5, 0.1, pvalue="hoeffding")
    np.testing.assert_array_equal(res.n_samples, [3, 2])
    np.testing.assert_array_equal(res.risk, [1 / 3, 0.0])
    np.testing.assert_allclose(res.pvalues, [math.exp(-6 * (0.5 - 1 / 3) ** 2),
                                             math.exp(-4 * 0.25)], rtol=1e-12)


def test_ltt_rejects_bad_input():
    raises(lambda: learn_then_test(2 * np.ones((3, 2)), 0.2, 0.1), ValueError, names="losses")
    raises(lambda: learn_then_test(np.full((3, 2), 0.5), 0.2, 0.1, binary=True), ValueError,
           names="binary")
    raises(lambda: learn_then_test(np.zeros((3, 2)), 0.2, 0.1, pvalue="wsr"), ValueError,
           names="pvalue", shows="'wsr'")
    raises(lambda: learn_then_test(np.zeros((3, 2)), 0.2, 0.1, fwer="bh"), ValueError,
           names="fwer", shows="'bh'")
    raises(lambda: learn_then_test(np.zeros((3, 2)), 0.2, 1.5), ValueError, names="delta")


# ----------------------------------------------------------------------- results
def test_result_summary_and_plot():
    import matplotlib

    matplotlib.use("Agg")
    rng = np.random.default_rng(0)
    crc = conformal_risk_control(np.maximum(rng.random((50, 1)) - np.linspace(0, 1, 11), 0),
                                 0.2, lambdas=np.linspace(0, 1, 11))
    ltt = learn_then_test((rng.random((200, 1)) < np.linspace(0.01, 0.5, 8)).astype(float),
                          0.2, 0.1)
    for res in (crc, ltt):
        assert isinstance(res, RiskControlResult)
        text = str(res.summary())
        assert res.method in text and "lambda_hat" in text
        ax = res.plot()
        assert ax.get_ylabel() == "risk"
        with pytest.raises(AttributeError):
            res.alpha = 0.5  # frozen


# ----------------------------------------------------------------------- controllers
def _multilabel(n=1500, seed=0):
    from sklearn.datasets import make_multilabel_classification

    return make_multilabel_classification(n_samples=n, n_classes=5, n_labels=2,
                                          allow_unlabeled=False, random_state=seed)


def test_multilabel_recall_controller_is_crc_on_its_calibration_split():
    from sklearn.linear_model import LogisticRegression
    from sklearn.multioutput import MultiOutputClassifier

    X, Y = _multilabel()
    model = MultiOutputClassifier(LogisticRegression(max_iter=500)).fit(X[:600], Y[:600])
    ctrl = MultiLabelRiskController(model, alpha=0.1, prefit=True).fit(X[600:1100],
                                                                       Y[600:1100])
    grid = np.round(np.arange(0, 1, 0.01), 2)[::-1]
    P = np.column_stack([p[:, 1] for p in model.predict_proba(X[600:1100])])
    res = conformal_risk_control(multilabel_fnr_losses(Y[600:1100], P, grid), 0.1,
                                 lambdas=grid)
    assert ctrl.threshold_ == res.lambda_hat
    P_test = np.column_stack([p[:, 1] for p in model.predict_proba(X[1100:])])
    np.testing.assert_array_equal(ctrl.predict(X[1100:]), P_test >= res.lambda_hat)
    # one draw of the test risk: within 4.75 binomial-ish standard errors of <= alpha
    fnr = multilabel_fnr_losses(Y[1100:], P_test, [ctrl.threshold_]).mean()
    assert fnr <= 0.1 + Z_1E6 * 0.5 / math.sqrt(400)


def test_multilabel_precision_controller_uses_ltt_and_the_largest_sets():
    X, Y = _multilabel()
    ctrl = MultiLabelRiskController(risk="precision", alpha=0.5, delta=0.1,
                                    random_state=0).fit(X, Y)
    res = ctrl.result_
    assert res.method == "ltt" and res.selected.size > 0
    assert ctrl.threshold_ == res.lambdas[res.selected].min()
    assert (res.pvalues[res.selected] <= 0.1).all()


def test_binary_controller_precision_and_recall():
    from sklearn.datasets import load_breast_cancer
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    X, y = load_breast_cancer(return_X_y=True)
    model = make_pipeline(StandardScaler(), LogisticRegression()).fit(X[:250], y[:250])
    for risk in ("precision", "recall"):
        ctrl = BinaryRiskController(model, risk=risk, alpha=0.1, delta=0.1,
                                    prefit=True).fit(X[250:], y[250:])
        res = ctrl.result_
        assert res.index in res.selected
        assert (res.risk[res.selected] <= 0.1).all()  # certified risks are below alpha here
        pred = ctrl.predict(X[250:])
        assert set(np.unique(pred)) <= {0, 1}
        np.testing.assert_array_equal(pred, (model.predict_proba(X[250:])[:, 1]
                                             >= ctrl.threshold_).astype(int))


@pytest.mark.parametrize("risk", ["precision", "recall"])
@pytest.mark.parametrize("fwer", ["bonferroni", "holm", "fixed_sequence"])
def test_binary_controller_counts_equal_the_loss_matrix(risk, fwer):
    # the controller counts its 0/1 losses by sorting; learn_then_test on the matrix of
    # binary_losses (thresholds from the safe end) must give the same risks and choice
    rng = np.random.default_rng(11)
    X = rng.normal(size=(700, 3))
    y = (3 * X[:, 0] + rng.normal(size=700) > 0).astype(int)
    from sklearn.linear_model import LogisticRegression

    model = LogisticRegression().fit(X[:300], y[:300])
    ctrl = BinaryRiskController(model, risk=risk, alpha=0.2, delta=0.1, fwer=fwer,
                                prefit=True).fit(X[300:], y[300:])
    grid = np.round(np.linspace(0, 0.99, 100), 2)
    order = grid[::-1] if risk == "precision" else grid
    L = binary_losses(y[300:], model.predict_proba(X[300:])[:, 1], order, risk=risk)
    res = learn_then_test(L, 0.2, 0.1, lambdas=order, fwer=fwer, binary=True)
    np.testing.assert_array_equal(ctrl.result_.n_samples, res.n_samples)
    np.testing.assert_array_equal(ctrl.result_.risk, res.risk)
    np.testing.assert_array_equal(ctrl.result_.pvalues, res.pvalues)
    np.testing.assert_array_equal(ctrl.result_.selected, res.selected)
    assert ctrl.result_.index in res.selected


def test_binary_controller_with_nothing_certified_makes_the_safe_decision():
    from sklearn.datasets import load_breast_cancer

    X, y = load_breast_cancer(return_X_y=True)
    with pytest.warns(UserWarning, match="no threshold is certified"):
        ctrl = BinaryRiskController(alpha=0.001, delta=0.01, random_state=0).fit(
            X[:, :2], y)
    assert ctrl.threshold_ == np.inf
    assert (ctrl.predict(X[:, :2]) == 0).all()


def test_controllers_reject_bad_input():
    X, Y = _multilabel(200)
    raises(lambda: MultiLabelRiskController(risk="f1").fit(X, Y), ValueError, names="risk",
           shows="'f1'")
    raises(lambda: MultiLabelRiskController(thresholds=[np.nan]).fit(X, Y), ValueError,
           names="thresholds")
    raises(lambda: MultiLabelRiskController().fit(X, Y[:, 0] * 3), ValueError, names="y")
    raises(lambda: BinaryRiskController().fit(X, np.arange(200) % 3), ValueError, names="y",
           shows="[0, 1, 2]")
    raises(lambda: BinaryRiskController(prefit=True).fit(X, Y[:, 0]), ValueError,
           names="estimator")
    raises(lambda: BinaryRiskController(alpha=1.0).fit(X, Y[:, 0]), ValueError,
           names="alpha")

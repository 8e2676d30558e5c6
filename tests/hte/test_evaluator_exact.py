"""Exact checks of the HTE scores and the relative-error evaluator: inputs, tables, warnings.

Written against the mutation runs of ``hte._scores`` and ``hte._evaluator``.
Errors are matched by type, the argument they name and the value they show;
warnings by category, the phrase they are about and the line they point at.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from statlearn.hte import (
    RelativeErrorEvaluator,
    dr_loss,
    dr_pseudo_outcome,
    r_loss,
    relative_error_from_nuisances,
    relative_error_influence,
)
from tests.helpers import raises, spy_warnings

A = [1, 0, 1]
Y = [1.0, 2.0, 3.0]
Z = [0.0, 0.0, 0.0]
E = [0.5, 0.5, 0.5]


# ------------------------------------------------------------------ _scores
@pytest.mark.parametrize("e, shows", [([0.5, 1.0, 0.5], "max 1"), ([0.5, 1.5, 0.5], "max 1.5"),
                                      ([0.0, 0.5, 0.5], "min 0")])
def test_propensities_on_or_beyond_the_unit_interval_are_refused(e, shows):
    raises(lambda: dr_pseudo_outcome(A, Y, Z, Z, e), ValueError, names="propensity",
           shows=shows)


def test_a_two_dimensional_propensity_is_named():
    raises(lambda: dr_pseudo_outcome(A, Y, Z, Z, [[0.5], [0.5], [0.5]]), ValueError,
           names="propensity", shows="(3, 1)")
    raises(lambda: dr_pseudo_outcome(A, Y, Z, Z, [0.5, np.nan, 0.5]), ValueError,
           names="propensity")


@pytest.mark.parametrize("call, name", [
    # a length-1 argument would broadcast silently in the arithmetic: the length check
    # must name it
    (lambda: dr_pseudo_outcome(A, Y, Z, [1.0], E), "mu1"),
    (lambda: dr_pseudo_outcome(A, Y, Z, Z, [0.5]), "propensity"),
    (lambda: r_loss(Z, A, Y, Z, [0.5]), "propensity"),
])
def test_lengths_are_checked_for_every_argument(call, name):
    raises(call, ValueError, names=name, shows=f"{name}: 1")


@pytest.mark.parametrize("call, name", [
    (lambda: dr_loss([[1.0]], [1.0]), "tau_hat"),
    (lambda: dr_loss([1.0], [[1.0]]), "psi"),
    (lambda: dr_loss([np.nan], [1.0]), "tau_hat"),
    (lambda: dr_loss([1.0], [np.nan]), "psi"),
    (lambda: r_loss([1.0], [1], [np.nan], [0.0], [0.5]), "y"),
    (lambda: r_loss([1.0], [1], [[1.0]], [0.0], [0.5]), "y"),
    (lambda: relative_error_influence([[1.0]], [0.0], [1.0]), "tau1"),
    (lambda: relative_error_influence([1.0], [0.0], [[1.0]]), "psi"),
    (lambda: relative_error_influence([np.nan], [0.0], [1.0]), "tau1"),
])
def test_bad_score_inputs_name_their_argument(call, name):
    raises(call, ValueError, names=name)


def test_given_nuisances_are_reported_as_given():
    t = np.array([0.0, 1.0, 2.0])
    r = relative_error_from_nuisances(t, 0 * t, [0, 1, 1], [0.0, 1.0, 2.0], t, t, [0.5] * 3)
    assert r.nuisance == "given"


# ------------------------------------------------------------------ _evaluator
COLUMNS = ["first", "second", "delta", "se", "ci_low", "ci_high", "pvalue", "decision"]


def _data(n=300, seed=0, overlap=True):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=n)
    p = 0.5 if overlap else 1 / (1 + np.exp(-6 * x))
    a = (rng.random(n) < p).astype(int)
    y = x + a * x + rng.normal(size=n)
    return x[:, None], a, y, x


@pytest.mark.parametrize("nuisance", ["plugin", "balanced"])
def test_comparison_tables_have_the_documented_columns(nuisance):
    X, a, y, x = _data(200)
    comp = RelativeErrorEvaluator(nuisance=nuisance, random_state=0).compare(
        X, a, y, {"one": x, "zero": 0 * x})
    assert list(comp.table.columns) == COLUMNS
    row = comp.table.iloc[0]
    # the interval is delta -/+ z se, z the normal quantile of level 1 - alpha / 2
    from scipy.stats import norm

    z = norm.ppf(1 - comp.alpha / 2)
    assert row["ci_low"] == pytest.approx(row["delta"] - z * row["se"], rel=1e-12)
    assert row["ci_high"] == pytest.approx(row["delta"] + z * row["se"], rel=1e-12)


def test_identical_candidates_compare_without_numerical_warnings():
    # two identical candidates: delta = se = 0, p-value 1, no 0/0 warning on the way
    X, a, y, x = _data(200)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        comp = RelativeErrorEvaluator(random_state=0).compare(
            X, a, y, {"one": x, "same": x.copy(), "zero": 0 * x})
    row = comp.table.iloc[0]
    assert (row["first"], row["second"]) == ("one", "same")
    assert row["delta"] == 0.0 and row["se"] == 0.0 and row["pvalue"] == 1.0


def test_poor_overlap_in_compare_warns_at_the_callers_line(monkeypatch):
    X, a, y, x = _data(400, overlap=False)
    got = spy_warnings(monkeypatch)
    RelativeErrorEvaluator(random_state=0, clip=0.1).compare(X, a, y, {"one": x, "zero": 0 * x})
    clipped = [w for w in got if "clipped" in w[0]]
    assert len(clipped) == 1 and clipped[0][1] is UserWarning
    assert clipped[0][2] == __file__


def test_a_near_singular_gram_matrix_is_reported():
    # three copies of one feature: the heads' weighted Gram matrix is singular
    X, a, y, x = _data(300)
    X3 = np.column_stack([x, x, x])
    with pytest.warns(UserWarning, match="Gram matrix of the outcome heads is near-singular"):
        RelativeErrorEvaluator(nuisance="balanced", random_state=0).fit(X3, a, y, x, 0 * x)


# ------------------------------------------------------- evaluator, edge of the inputs
def _reference(n=400, seed=0):
    from statlearn.datasets import make_hte_reference

    d = make_hte_reference(n, random_state=seed)
    return d, d.candidates["const"], d.candidates["noisy"]


def test_outcomes_of_any_float_dtype_are_read_as_float64():
    # y stored as float32 and the same values as float64 take the same path: the
    # estimate is bitwise identical (both are cast before any arithmetic)
    d, t1, t2 = _reference()
    y32 = d.y.astype(np.float32)
    fits = [RelativeErrorEvaluator(nuisance="plugin", random_state=0)
            .fit(d.X, d.treatment, y, tau1=t1, tau2=t2) for y in (y32, y32.astype(np.float64))]
    assert fits[0].delta_ == fits[1].delta_ and fits[0].se_ == fits[1].se_


def test_fifty_units_with_ten_per_arm_are_not_a_tiny_sample():
    d, t1, t2 = _reference(50, seed=1)
    a = np.r_[np.ones(25), np.zeros(25)].astype(int)
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        warnings.filterwarnings("ignore", message=".*propensit")
        RelativeErrorEvaluator(nuisance="plugin", random_state=0).fit(
            d.X, a, d.y, tau1=t1[:50], tau2=t2[:50])
    with pytest.warns(UserWarning, match="tiny sample: n = 49"):
        RelativeErrorEvaluator(nuisance="plugin", random_state=0).fit(
            d.X[:49], a[:49], d.y[:49], tau1=t1[:49], tau2=t2[:49])


def test_identical_candidates_are_not_fitted_and_say_so():
    d, t1, _ = _reference()
    ev = RelativeErrorEvaluator(random_state=0).fit(d.X, d.treatment, d.y, tau1=t1,
                                                    tau2=t1.copy())
    assert ev.result_.diagnostics == {"identical": True}
    assert ev.delta_ == 0.0 and ev.se_ == 0.0


def test_trimmed_units_are_counted_in_the_diagnostics():
    d, t1, t2 = _reference(800, seed=2)
    ev = RelativeErrorEvaluator(nuisance="plugin", trim=0.2, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        ev.fit(d.X, d.treatment, d.y, tau1=t1, tau2=t2)
    n_trimmed = ev.result_.diagnostics["n_trimmed"]
    assert 0 < n_trimmed < 800 and ev.influence_.size == 800 - n_trimmed
    full = RelativeErrorEvaluator(nuisance="plugin", random_state=0).fit(
        d.X, d.treatment, d.y, tau1=t1, tau2=t2)
    assert full.result_.diagnostics["n_trimmed"] == 0


def test_the_clipping_warning_shows_the_interval_clipped_to():
    d, t1, t2 = _reference(300, seed=3)
    a = (d.X[:, 0] > 0.3).astype(int)  # treatment nearly determined by X: poor overlap
    with pytest.warns(UserWarning, match=r"clipped to \[0\.05, 0\.95\]"):
        RelativeErrorEvaluator(nuisance="plugin", clip=0.05, random_state=0).fit(
            d.X, a, d.y, tau1=t1, tau2=t2)


def test_a_column_of_candidate_predictions_is_read_as_a_vector():
    d, t1, t2 = _reference()
    flat = RelativeErrorEvaluator(random_state=0).fit(d.X, d.treatment, d.y, tau1=t1, tau2=t2)
    col = RelativeErrorEvaluator(random_state=0).fit(d.X, d.treatment, d.y,
                                                     tau1=t1[:, None], tau2=t2)
    assert col.delta_ == flat.delta_ and col.se_ == flat.se_


def test_relative_error_from_nuisances_names_the_second_candidate_and_reports_the_ess():
    rng = np.random.default_rng(0)
    n = 40
    a = np.r_[np.ones(20), np.zeros(20)].astype(int)
    y, mu0, mu1 = rng.normal(size=n), rng.normal(size=n), rng.normal(size=n)
    e = rng.uniform(0.2, 0.8, size=n)
    t1 = rng.normal(size=n)
    bad = list(t1)
    bad[3] = np.nan
    raises(lambda: relative_error_from_nuisances(list(t1), bad, list(a), list(y), list(mu0),
                                                 list(mu1), list(e)),
           ValueError, names="tau2")
    res = relative_error_from_nuisances(list(t1), list(np.zeros(n)), list(a), list(y),
                                        list(mu0), list(mu1), list(e))
    W = a / e + (1 - a) / (1 - e)  # the IPW weights; ESS = (sum W)^2 / sum W^2
    assert res.ess == pytest.approx(W.sum() ** 2 / np.sum(W ** 2), rel=1e-12)


def test_fit_without_a_candidate_names_both():
    d, t1, _ = _reference(100)
    raises(lambda: RelativeErrorEvaluator().fit(d.X, d.treatment, d.y, tau1=t1),
           TypeError, names=["tau1", "tau2"])


def test_balanced_mlp_fits_are_reproducible_from_random_state():
    d, t1, t2 = _reference(300, seed=4)
    fits = []
    for _ in range(2):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fits.append(RelativeErrorEvaluator(nuisance="balanced", representation="mlp",
                                               random_state=7)
                        .fit(d.X, d.treatment, d.y, tau1=t1, tau2=t2).delta_)
    assert fits[0] == fits[1]


def test_the_clipping_warning_gives_the_share_clipped():
    d, t1, t2 = _reference(300, seed=3)
    a = (d.X[:, 0] > 0.3).astype(int)
    with pytest.warns(UserWarning, match="propensities") as caught:
        ev = RelativeErrorEvaluator(nuisance="plugin", clip=0.05, random_state=0).fit(
            d.X, a, d.y, tau1=t1, tau2=t2)
    msg = next(str(w.message) for w in caught if "clipped" in str(w.message))
    assert f"{ev.n_clipped_} of 300 propensities ({100 * ev.n_clipped_ / 300:.1f}%)" in msg


def test_compare_warnings_point_at_the_caller(monkeypatch):
    # the per-pair warnings are recorded inside compare and re-emitted once, as
    # "pair ... (and possibly others)"; only those pass through the frame spy
    d, t1, t2 = _reference(300, seed=3)
    a = (d.X[:, 0] > 0.3).astype(int)
    got = spy_warnings(monkeypatch, only=lambda message: message.startswith("pair "))
    RelativeErrorEvaluator(nuisance="balanced", clip=0.05, random_state=0).compare(
        d.X, a, d.y, {"one": t1, "two": t2, "zero": np.zeros(300)})
    assert got and all(w[2] == __file__ for w in got)


def test_fit_without_a_candidate_says_what_fit_needs():
    d, t1, _ = _reference(100)
    raises(lambda: RelativeErrorEvaluator().fit(d.X, d.treatment, d.y, tau2=t1), TypeError,
           names=["tau1", "tau2"], match=r"^fit needs both candidates")


def test_the_generic_checks_declared_inapplicable_are_real_checks_with_the_reason():
    # the names must be scikit-learn's own (a misspelt one would silently run the check)
    try:  # private to scikit-learn: skip where its signature moved
        from sklearn.utils.estimator_checks import _yield_all_checks

        checks = list(_yield_all_checks(RelativeErrorEvaluator(), legacy=True))
    except (ImportError, TypeError) as exc:
        pytest.skip(f"scikit-learn's check generator is not reachable here: {exc}")
    known = set()
    for check in checks:
        name = getattr(check, "__name__", None) or check.func.__name__
        known.add(name)
    declared = RelativeErrorEvaluator._statlearn_expected_failed_checks()
    bare = {n.split("(")[0] for n in declared}
    assert len(bare) >= 25 and {"check_fit1d", "check_n_features_in"} <= known
    assert bare <= known, bare - known
    assert all("fit takes (X, treatment, y" in r for r in declared.values())

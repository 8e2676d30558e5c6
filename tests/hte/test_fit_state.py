"""HTE estimators on the base layer: parameters, stale fits, the user's X, random states."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning, NotFittedError
from sklearn.linear_model import LinearRegression, LogisticRegression

from statlearn.base import StaleFitError
from statlearn.datasets import make_hte_reference
from statlearn.hte import DRScorer, RelativeErrorEvaluator, RelativeErrorHTE, RScorer


@pytest.fixture(scope="module")
def data():
    d = make_hte_reference(400, random_state=3)
    idx = np.arange(7000, 7000 + d.X.shape[0])
    frame = pd.DataFrame(d.X, index=idx, columns=[f"x{j}" for j in range(d.X.shape[1])])
    return d, frame, idx


# ------------------------------------------------------------------ scorers
@pytest.mark.parametrize("Scorer", [DRScorer, RScorer])
def test_scorers_are_estimators_that_refuse_stale_fits(Scorer, data):
    d, _, _ = data
    sc = Scorer(cross_fit=3, random_state=0)
    assert clone(sc).get_params() == sc.get_params()
    with pytest.raises(NotFittedError, match=f"This {Scorer.__name__} instance is not fitted"):
        sc.score(d.candidates["half"])
    sc.fit(d.X, d.treatment, d.y)
    s = sc.score(d.candidates["half"])
    assert s == -sc.loss(d.candidates["half"])
    sc.set_params(clip=0.2)
    for output in (lambda: sc.score(d.candidates["half"]), lambda: sc.loss(d.candidates["half"]),
                   lambda: sc.best(d.candidates), lambda: sc(d.candidates["half"], d.X)):
        with pytest.raises(StaleFitError, match="parameter clip changed since fit"):
            output()
    assert sc.set_params(clip=0.01).score(d.candidates["half"]) == s
    with pytest.raises(ValueError, match=rf"{Scorer.__name__} parameter cross_fit must be in "
                                         r"\[2, inf\], got 1"):
        Scorer(cross_fit=1).fit(d.X, d.treatment, d.y)


@pytest.mark.filterwarnings("ignore:the pairwise learner is less accurate")
def test_learner_refuses_a_parameter_changed_after_fit(data):
    d, _, _ = data
    est = RelativeErrorHTE(list(d.candidates.values()), method="pairwise").fit(d.X, d.treatment,
                                                                                d.y)
    before = est.predict(d.X)
    est.set_params(representation="quadratic")
    for output in (lambda: est.predict(d.X), lambda: est.effect(d.X),
                   lambda: est.score(d.X, d.y)):
        with pytest.raises(StaleFitError, match="representation"):
            output()
    np.testing.assert_array_equal(est.set_params(representation="linear").predict(d.X), before)
    with pytest.raises(TypeError, match=r"RelativeErrorHTE parameter candidates must be a list "
                                        r"or a tuple or a dict, got NoneType"):
        RelativeErrorHTE().fit(d.X, d.treatment, d.y)
    with pytest.raises(ValueError, match=r"RelativeErrorHTE parameter max_pairs must be in "
                                         r"\[1, inf\], got 0"):
        RelativeErrorHTE(list(d.candidates.values()), max_pairs=0).fit(d.X, d.treatment, d.y)


def test_parameter_constraints_of_the_evaluator(data):
    d, _, _ = data
    args = (d.X, d.treatment, d.y)
    kw = {"tau1": d.candidates["const"], "tau2": d.candidates["half"]}
    with pytest.raises(ValueError, match=r"alpha must be in \(0, 1\), got 10.*percentage"):
        RelativeErrorEvaluator(alpha=10).fit(*args, **kw)
    with pytest.raises(ValueError, match=r"alpha must be in \(0, 1\), got 10"):
        RelativeErrorEvaluator(alpha=10).compare(*args, d.candidates)  # compare checks too
    a = RelativeErrorEvaluator(alpha=np.float32(0.25), clip=np.array(0.05),
                               cross_fit=np.int64(3), random_state=0).fit(*args, **kw)
    b = RelativeErrorEvaluator(alpha=0.25, clip=0.05, cross_fit=3, random_state=0).fit(*args,
                                                                                        **kw)
    assert a.delta_ == b.delta_
    assert a.conf_int_.low == pytest.approx(b.conf_int_.low, rel=1e-6)
    a.set_params(n_jobs=2)  # cannot change a result: allowed after fit
    assert a.__sklearn_is_fitted__()


# ------------------------------------------------------------------ the user's X
def _frame_only(frame):
    def candidate(X):
        assert isinstance(X, pd.DataFrame), type(X)
        assert list(X.columns) == list(frame.columns)
        return 0.5 * X["x0"].to_numpy()
    return candidate


def test_candidates_receive_the_users_dataframe(data):
    d, frame, idx = data
    a = pd.Series(d.treatment, index=idx)
    y = pd.Series(d.y, index=idx)
    fitted_on_frame = LinearRegression().fit(frame, d.X[:, 0])
    cand = _frame_only(frame)
    with warnings.catch_warnings():
        # a model fitted on a DataFrame warns when handed a bare array
        warnings.filterwarnings("error", message=".*feature names.*")
        ev = RelativeErrorEvaluator(random_state=0).fit(frame, a, y, tau1=cand,
                                                         tau2=fitted_on_frame)
        ref = RelativeErrorEvaluator(random_state=0).fit(
            d.X, d.treatment, d.y, tau1=0.5 * d.X[:, 0], tau2=fitted_on_frame.predict(frame))
        assert ev.delta_ == pytest.approx(ref.delta_, rel=1e-12)
        comp = RelativeErrorEvaluator().compare(frame, a, y, {"c": cand, "m": fitted_on_frame,
                                                              "const": np.zeros(len(idx))})
        assert len(comp.table) == 3
        RelativeErrorHTE([cand, fitted_on_frame]).fit(frame, a, y).predict(frame)
        sc = DRScorer(random_state=0).fit(frame, a, y)
        assert sc.best({"c": cand, "m": fitted_on_frame}) in ("c", "m")
        assert sc(cand, frame) == sc.score(0.5 * d.X[:, 0])
    # a candidate written for arrays is told why it fails on the user's DataFrame
    with pytest.raises(ValueError, match=r"tau1 failed on X, which it receives as the "
                                         r"DataFrame.*X\.to_numpy\(\)"):
        RelativeErrorEvaluator().fit(frame, a, y, tau1=lambda X: X[:, 0], tau2=cand)


# ------------------------------------------------------------------ random states
@pytest.mark.filterwarnings("ignore:the pairwise learner is less accurate")
def test_every_kind_of_random_state_is_accepted(data):
    d, _, _ = data
    args = (d.X, d.treatment, d.y)
    kw = {"tau1": d.candidates["const"], "tau2": d.candidates["noisy"]}
    for rs in (None, 1, np.int64(1), np.array(1), np.random.RandomState(1),
               np.random.default_rng(1), np.random.SeedSequence(1)):
        RelativeErrorEvaluator(cross_fit=3, random_state=rs).fit(*args, **kw)
        RelativeErrorEvaluator(nuisance="balanced", cross_fit=2, random_state=rs).fit(*args, **kw)
        DRScorer(random_state=rs).fit(*args)
        RelativeErrorHTE(list(d.candidates.values()), method="pairwise", max_pairs=2,
                         random_state=rs).fit(*args)
    # a NumPy integer seeds exactly as the int it holds
    cands = list(d.candidates.values()) + [d.candidates["half"] + 1.0]
    pairs = [RelativeErrorHTE(cands, method="pairwise", max_pairs=3,
                              random_state=rs).fit(*args).pairs_
             for rs in (5, np.int64(5), np.array(5))]
    assert pairs[0] == pairs[1] == pairs[2]


# ------------------------------------------------------------------ warnings surface
def test_pairwise_balanced_fits_report_their_warnings(data):
    d, _, _ = data
    rng = np.random.default_rng(0)
    n = 200
    X = rng.normal(size=(n, 2))
    a = (X[:, 0] + 0.05 * rng.normal(size=n) > 0).astype(int)  # almost no overlap
    y = X[:, 1] + a + rng.normal(size=n)
    cands = {"zero": np.zeros(n), "x1": X[:, 1], "half": X[:, 1] / 2}
    with pytest.warns(UserWarning, match=r"pair 'zero' vs 'x1' .*propensities .*clipped"):
        RelativeErrorEvaluator(nuisance="balanced").compare(X, a, y, cands)


def test_an_unconverged_mlp_representation_is_reported(data):
    d, _, _ = data
    with pytest.warns(ConvergenceWarning, match="MLP representation stopped after"):
        RelativeErrorEvaluator(nuisance="balanced", representation="mlp", random_state=0).fit(
            d.X, d.treatment, d.y, tau1=d.candidates["const"], tau2=d.candidates["noisy"])


@pytest.mark.parametrize("kwargs, message", [
    ({"method": "pairwise", "loss": "r"}, r"loss='r' has no effect with method='pairwise'"),
    ({"method": "pairwise", "nu": 0.0}, r"nu=0.0 has no effect with method='pairwise'"),
    ({"representation": "quadratic"},
     r"representation='quadratic' has no effect with method='q-aggregation'"),
    ({"max_pairs": 2}, r"max_pairs=2 has no effect with method='q-aggregation'"),
    ({"lambda_2": 0.5}, r"lambda_2=0.5 has no effect with method='q-aggregation'"),
])
def test_a_parameter_the_method_never_reads_is_refused(data, kwargs, message):
    # it was accepted and silently ignored: loss="r" with method="pairwise" gave the
    # pairwise fit, which never uses the R-loss, without a word
    d, _, _ = data
    est = RelativeErrorHTE(list(d.candidates.values()), random_state=0, **kwargs)
    with pytest.raises(ValueError, match=message):
        est.fit(d.X, d.treatment, d.y)


@pytest.mark.parametrize("kwargs, message", [
    ({"nuisance": "balanced", "propensity_model": LogisticRegression()},
     r"propensity_model=LogisticRegression\(\) has no effect with nuisance='balanced'"),
    ({"nuisance": "balanced", "outcome_model": LinearRegression()},
     r"outcome_model=LinearRegression\(\) has no effect with nuisance='balanced'"),
    ({"heads": "augmented"}, r"heads='augmented' has no effect with nuisance='plugin'"),
    ({"lambda_1": 2.0}, r"lambda_1=2.0 has no effect with nuisance='plugin'"),
])
def test_a_parameter_the_nuisance_never_reads_is_refused(data, kwargs, message):
    # the balanced nuisance fits its own heads: user models given with it were ignored
    d = data[0]
    t1, t2 = d.candidates["const"], d.candidates["noisy"]
    ev = RelativeErrorEvaluator(random_state=0, **kwargs)
    with pytest.raises(ValueError, match=message):
        ev.fit(d.X, d.treatment, d.y, tau1=t1, tau2=t2)
    with pytest.raises(ValueError, match=message):
        ev.compare(d.X, d.treatment, d.y, {"a": t1, "b": t2})

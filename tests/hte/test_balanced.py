"""The balanced nuisance fit, the aggregated learner, scorers, pairwise table.

The balanced fit of Guo et al. (2025) as we reconstruct it (their Eq. 4 and losses were
not available verbatim): (C1), the balance moments and the Huber penalty are recomputed
here from their definitions on a basis built in the test; the aggregated learner is the
average over pairs of Guo et al., Sec. 5.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy.special import expit
from sklearn.exceptions import NotFittedError
from sklearn.linear_model import LinearRegression, LogisticRegression

from statlearn.datasets import make_hte_reference
from statlearn.hte import (
    DRScorer,
    RelativeErrorEvaluator,
    RelativeErrorHTE,
    RScorer,
    relative_error_from_nuisances,
)


def _phi(X):
    """Intercept plus standardised columns (population sd): the balance penalty compares
    coordinates, so they are put on one scale (our reconstruction of the penalty)."""
    return np.column_stack([np.ones(len(X)), (X - X.mean(0)) / X.std(0)])


def _huber(x, c=1.0, rho=1.0):
    x = np.abs(x)
    return np.where(x <= c / (2 * rho), rho * x**2, c * x - c**2 / (4 * rho)).sum()


def _l_const(e, Phi, a, w):
    n = len(a)
    g = Phi.T @ (w * (a / e - 1)) / n
    gp = Phi.T @ (w * ((1 - a) / (1 - e) - 1)) / n
    return _huber(g) + _huber(gp)


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("pair", ["P1", "P0"])
def test_c1_holds_in_sample(seed, pair):
    """Correct propensity (logistic on X), wrong outcome model (linear on X): (C1) to 1e-8."""
    d = make_hte_reference(2000, random_state=seed)
    k1, k2, _ = d.pairs[pair]
    t1, t2 = d.candidates[k1], d.candidates[k2]
    ev = RelativeErrorEvaluator(nuisance="balanced").fit(d.X, d.treatment, d.y, tau1=t1,
                                                         tau2=t2)
    a, y, e, w = d.treatment, d.y, ev.propensity_, t1 - t2
    Phi = np.column_stack([np.ones(len(a)), d.X])  # same span as the fitted basis
    terms1 = Phi * (a * w * (1 - e) / e * (y - ev.mu1_))[:, None]
    terms0 = Phi * ((1 - a) * w * e / (1 - e) * (y - ev.mu0_))[:, None]
    for t in (terms1, terms0):  # each half of (C1), relative to the scale of its terms
        assert np.abs(t.sum(0)).max() <= 1e-8 * np.abs(t).sum(0).max()
    # the point estimate is Gao's formula with these nuisances
    ref = relative_error_from_nuisances(t1, t2, a, y, ev.mu0_, ev.mu1_, e)
    assert ev.delta_ == pytest.approx(ref.delta, rel=1e-12)


@pytest.mark.parametrize("seed", range(5))
def test_balance_penalty_not_above_the_logistic_mle(seed):
    """L_const at the balanced fit <= L_const at the plain MLE (unclipped e), up to 1e-9."""
    d = make_hte_reference(1500, random_state=100 + seed)
    t1, t2 = d.candidates["const"], d.candidates["noisy"]
    w = t1 - t2
    ev = RelativeErrorEvaluator(nuisance="balanced", lambda_2=0.1).fit(
        d.X, d.treatment, d.y, tau1=t1, tau2=t2)
    Phi = _phi(d.X)
    e_bal = expit(Phi @ ev.nuisance_models_[0].gamma_)
    mle = LogisticRegression(C=np.inf, tol=1e-12, max_iter=10_000).fit(d.X, d.treatment)
    e_mle = mle.predict_proba(d.X)[:, 1]
    a = d.treatment.astype(float)
    assert _l_const(e_bal, Phi, a, w) <= _l_const(e_mle, Phi, a, w) + 1e-9
    # and the balanced fit trades some likelihood for it: its cross-entropy is not lower
    ce = lambda e: -np.mean(a * np.log(e) + (1 - a) * np.log(1 - e))  # noqa: E731
    assert ce(e_bal) >= ce(e_mle) - 1e-9


def test_lambda_2_zero_gives_the_logistic_mle():
    d = make_hte_reference(1000, random_state=3)
    t1, t2 = d.candidates["const"], d.candidates["noisy"]
    ev = RelativeErrorEvaluator(nuisance="balanced", lambda_2=0.0).fit(
        d.X, d.treatment, d.y, tau1=t1, tau2=t2)
    mle = LogisticRegression(C=np.inf, tol=1e-12, max_iter=10_000).fit(d.X, d.treatment)
    np.testing.assert_allclose(ev.propensity_, np.clip(mle.predict_proba(d.X)[:, 1], .01, .99),
                               atol=1e-5)


def test_augmented_heads_also_satisfy_c1():
    d = make_hte_reference(1500, random_state=8)
    t1, t2 = d.candidates["const"], d.candidates["noisy"]
    ev = RelativeErrorEvaluator(nuisance="balanced", heads="augmented").fit(
        d.X, d.treatment, d.y, tau1=t1, tau2=t2)
    a, y, e, w = d.treatment, d.y, ev.propensity_, t1 - t2
    Phi = np.column_stack([np.ones(len(a)), d.X])
    for t in (Phi * (a * w * (1 - e) / e * (y - ev.mu1_))[:, None],
              Phi * ((1 - a) * w * e / (1 - e) * (y - ev.mu0_))[:, None]):
        assert np.abs(t.sum(0)).max() <= 1e-8 * np.abs(t).sum(0).max()


def test_balanced_cross_fit_and_other_representations_run():
    d = make_hte_reference(600, random_state=9)
    kw = dict(tau1=d.candidates["const"], tau2=d.candidates["noisy"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for rep in ("quadratic", "mlp"):
            ev = RelativeErrorEvaluator(nuisance="balanced", representation=rep,
                                        random_state=0).fit(d.X, d.treatment, d.y, **kw)
            assert np.isfinite(ev.delta_)
        ev = RelativeErrorEvaluator(nuisance="balanced", cross_fit=3, random_state=0).fit(
            d.X, d.treatment, d.y, **kw)
        assert len(ev.nuisance_models_) == 3 and np.isfinite(ev.delta_)


# -------------------------------------- learner (the average over pairs, Guo et al., Sec. 5)
@pytest.mark.filterwarnings("ignore:the pairwise learner is less accurate")
def test_two_candidates_equal_the_single_pair_contrast():
    d = make_hte_reference(1500, random_state=11)
    t1, t2 = d.candidates["const"], d.candidates["noisy"]
    est = RelativeErrorHTE([t1, t2], method="pairwise").fit(d.X, d.treatment, d.y)
    ev = RelativeErrorEvaluator(nuisance="balanced").fit(d.X, d.treatment, d.y, tau1=t1,
                                                         tau2=t2)
    pred = est.predict(d.X)
    assert pred.shape == (1500,)
    np.testing.assert_allclose(pred, ev.mu1_ - ev.mu0_, rtol=1e-9, atol=1e-9)


@pytest.mark.filterwarnings("ignore:the pairwise learner is less accurate")
def test_learner_averages_pairs_and_ignores_order():
    d = make_hte_reference(1200, random_state=12)
    c = d.candidates
    args = (d.X, d.treatment, d.y)
    full = RelativeErrorHTE([c["const"], c["half"], c["noisy"]], method="pairwise").fit(*args)
    pairs = [RelativeErrorHTE([c[p], c[q]], method="pairwise").fit(*args).predict(d.X)
             for p, q in [("const", "half"), ("const", "noisy"), ("half", "noisy")]]
    np.testing.assert_allclose(full.predict(d.X), np.mean(pairs, axis=0), rtol=1e-9, atol=1e-9)
    rev = RelativeErrorHTE([c["noisy"], c["half"], c["const"]], method="pairwise").fit(*args)
    np.testing.assert_allclose(rev.predict(d.X), full.predict(d.X), rtol=1e-9, atol=1e-9)
    sub = RelativeErrorHTE(c, method="pairwise", max_pairs=2, random_state=0).fit(*args)
    assert len(sub.pairs_) == 2


@pytest.mark.filterwarnings("ignore:the pairwise learner is less accurate")
def test_learner_bad_input():
    d = make_hte_reference(200, random_state=0)
    with pytest.raises(ValueError, match="at least two candidates"):
        RelativeErrorHTE([d.candidates["const"]]).fit(d.X, d.treatment, d.y)
    with pytest.raises(ValueError, match="identical predictions"):
        RelativeErrorHTE([d.candidates["const"]] * 2, method="pairwise").fit(d.X, d.treatment, d.y)
    with pytest.raises(ValueError, match="max_pairs"):
        RelativeErrorHTE(d.candidates, method="pairwise", max_pairs=0).fit(d.X, d.treatment, d.y)
    est = RelativeErrorHTE(d.candidates, method="pairwise").fit(d.X, d.treatment, d.y)
    with pytest.raises(ValueError, match="features"):
        est.predict(d.X[:, :2])


# ------------------------------------------------------------------ scorers
def test_dr_scorer_differences_are_the_evaluator_estimates():
    d = make_hte_reference(800, random_state=13)
    c = d.candidates
    sc = DRScorer(cross_fit=None).fit(d.X, d.treatment, d.y)
    ev = RelativeErrorEvaluator().fit(d.X, d.treatment, d.y, tau1=c["const"], tau2=c["noisy"])
    assert sc.loss(c["const"]) - sc.loss(c["noisy"]) == pytest.approx(ev.delta_, rel=1e-10)
    assert sc.best(c) != "const" and sc(lambda X: 1 + X[:, 0], d.X) == -sc.loss(1 + d.X[:, 0])
    with pytest.raises(ValueError, match="fitted on"):
        sc(lambda X: X[:, 0], d.X[:10])


def test_r_scorer_by_hand():
    d = make_hte_reference(800, random_state=14)
    sc = RScorer(cross_fit=None).fit(d.X, d.treatment, d.y)
    a = d.treatment
    e = np.clip(LogisticRegression().fit(d.X, a).predict_proba(d.X)[:, 1], 0.01, 0.99)
    mu1 = LinearRegression().fit(d.X[a == 1], d.y[a == 1]).predict(d.X)
    mu0 = LinearRegression().fit(d.X[a == 0], d.y[a == 0]).predict(d.X)
    m = e * mu1 + (1 - e) * mu0
    t = d.candidates["half"]
    assert sc.loss(t) == pytest.approx(np.mean(((d.y - m) - (a - e) * t) ** 2), rel=1e-10)
    with pytest.raises(NotFittedError, match="RScorer instance is not fitted"):
        RScorer().loss(t)


# ------------------------------------------------------------------ pairwise table
def test_pairwise_table_matches_single_pairs_and_ranks():
    d = make_hte_reference(2000, random_state=15)
    c = dict(d.candidates, copy=d.candidates["half"].copy())
    ev = RelativeErrorEvaluator(cross_fit=2, random_state=0)
    comp = ev.compare(d.X, d.treatment, d.y, c)
    assert len(comp.table) == 6
    for row in comp.table.itertuples():
        single = ev.fit(d.X, d.treatment, d.y, tau1=c[row.first], tau2=c[row.second])
        assert row.delta == pytest.approx(single.delta_, abs=1e-12)
        assert row.se == pytest.approx(single.se_, rel=1e-8, abs=1e-14)
        assert row.decision == single.decision_
    assert comp.ranking.index[-1] == "const"
    assert "ranking" in str(comp.summary())
    bal = RelativeErrorEvaluator(nuisance="balanced").compare(d.X, d.treatment, d.y,
                                                             d.candidates)
    assert len(bal.table) == 3

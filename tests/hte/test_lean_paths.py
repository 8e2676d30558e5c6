"""The lean paths of the HTE scores and scorers against the fully checked ones.

A plain 1-D ndarray takes the lean path (cheap checks, finiteness read off the
result); a list takes the full checks. Both evaluate the same correctly rounded
``+ - * /`` in the same order and reduce with NumPy's pairwise sum over the same
length, so the values are compared exactly (no exp, log or BLAS on the way).
"""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression

from statlearn.base import StaleFitError
from statlearn.datasets import make_hte_reference
from statlearn.hte import (
    DRScorer,
    RScorer,
    dr_loss,
    dr_pseudo_outcome,
    r_loss,
    relative_error_from_nuisances,
    relative_error_influence,
)
from tests.helpers import raises


def _nuisances(n, seed):
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 2, n)
    e = rng.uniform(0.05, 0.95, n)
    mu0, mu1 = rng.normal(size=n), rng.normal(1.0, 2.0, size=n)
    y = np.where(a == 1, mu1, mu0) + rng.standard_t(3, size=n)
    t1, t2 = rng.normal(1.0, 1.0, n), rng.normal(0.5, 3.0, n)
    return t1, t2, a, y, mu0, mu1, e


def _lists(*arrays):
    return [x.tolist() for x in arrays]


@pytest.mark.parametrize("n", [1, 7, 128, 1001, 20_000])
@pytest.mark.parametrize("seed", [0, 1])
def test_lean_scores_equal_the_fully_checked_ones(n, seed):
    t1, t2, a, y, mu0, mu1, e = _nuisances(n, seed)
    for treat in (a, a.astype(np.float64), a.astype(np.uint8), a.astype(bool)):
        psi = dr_pseudo_outcome(treat, y, mu0, mu1, e)
        ref = dr_pseudo_outcome(*_lists(a, y, mu0, mu1, e))
        np.testing.assert_array_equal(psi, ref)
        assert r_loss(t1, treat, y, mu0, e) == r_loss(*_lists(t1, a, y, mu0, e))
    assert dr_loss(t1, psi) == dr_loss(*_lists(t1, psi))
    assert dr_loss(t1.astype(np.float32), psi) == dr_loss(*_lists(t1.astype(np.float32), psi))
    np.testing.assert_array_equal(relative_error_influence(t1, t2, psi),
                                  relative_error_influence(*_lists(t1, t2, psi)))
    got = relative_error_from_nuisances(t1, t2, a, y, mu0, mu1, e, alpha=0.2)
    ref = relative_error_from_nuisances(*_lists(t1, t2, a, y, mu0, mu1, e), alpha=0.2)
    for field in ("delta", "se", "pvalue", "decision", "ess", "n"):
        assert getattr(got, field) == getattr(ref, field), field
    np.testing.assert_array_equal(got.influence, ref.influence)
    assert got.confidence_interval() == ref.confidence_interval()


def test_lean_scores_follow_the_written_formulas():
    t1, t2, a, y, mu0, mu1, e = _nuisances(500, 3)
    psi = mu1 - mu0 + a * (y - mu1) / e - (1 - a) * (y - mu0) / (1 - e)
    np.testing.assert_allclose(dr_pseudo_outcome(a, y, mu0, mu1, e), psi, rtol=1e-13)
    assert dr_loss(t1, psi) == pytest.approx(np.mean((psi - t1) ** 2), rel=1e-13)
    assert r_loss(t1, a, y, mu0, e) == pytest.approx(
        np.mean(((y - mu0) - (a - e) * t1) ** 2), rel=1e-13)
    varphi = (t1 - t2) * (t1 + t2 - 2 * psi)
    res = relative_error_from_nuisances(t1, t2, a, y, mu0, mu1, e)
    assert res.delta == pytest.approx(varphi.mean(), rel=1e-12)
    assert res.se == pytest.approx(varphi.std() / np.sqrt(varphi.size), rel=1e-12)
    W = a / e + (1 - a) / (1 - e)
    assert res.ess == pytest.approx(W.sum() ** 2 / np.sum(W**2), rel=1e-12)


def test_lean_paths_leave_their_inputs_alone():
    arrays = _nuisances(300, 4)
    copies = [x.copy() for x in arrays]
    t1, t2, a, y, mu0, mu1, e = arrays
    psi = dr_pseudo_outcome(a.astype(float), y, mu0, mu1, e)
    relative_error_from_nuisances(t1, t2, a.astype(float), y, mu0, mu1, e)
    relative_error_influence(t1, t2, psi)
    dr_loss(t1, psi)
    r_loss(t1, a, y, mu0, e)
    for x, c in zip(arrays, copies, strict=True):
        np.testing.assert_array_equal(x, c)


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
@pytest.mark.parametrize("arg", ["tau1", "tau2", "y", "mu0", "mu1"])
def test_non_finite_values_on_the_lean_path_name_their_argument(bad, arg):
    t1, t2, a, y, mu0, mu1, e = _nuisances(50, 5)
    kw = dict(tau1=t1, tau2=t2, treatment=a, y=y, mu0=mu0, mu1=mu1, propensity=e)
    kw[arg] = kw[arg].copy()
    kw[arg][7] = bad
    raises(lambda: relative_error_from_nuisances(**kw), ValueError, names=arg)
    if arg in ("y", "mu0", "mu1"):
        nu = {k: v for k, v in kw.items() if k not in ("tau1", "tau2")}
        raises(lambda: dr_pseudo_outcome(**nu), ValueError, names=arg)


@pytest.mark.parametrize("treatment, propensity, name", [
    ([0, 2, 1], [0.5, 0.5, 0.5], "treatment"),
    ([0, 0.5, 1], [0.5, 0.5, 0.5], "treatment"),
    ([0, 1, 1], [0.5, 1.0, 0.5], "propensity"),
    ([0, 1, 1], [0.5, np.nan, 0.5], "propensity"),
])
def test_lean_treatment_and_propensity_checks_refuse_what_the_full_ones_refuse(
        treatment, propensity, name):
    z = np.zeros(3)
    call = lambda: r_loss(z, np.array(treatment), z, z, np.array(propensity))  # noqa: E731
    raises(call, ValueError, names=name)
    raises(lambda: dr_pseudo_outcome(np.array(treatment), z, z, z, np.array(propensity)),
           ValueError, names=name)


def test_an_overflowing_loss_is_returned_as_the_full_path_returns_it():
    # finite inputs whose squares overflow: the lean path hands over to the full one
    assert dr_loss(np.array([1e200]), np.array([-1e200])) == np.inf == dr_loss([1e200], [-1e200])


@pytest.fixture(scope="module")
def hte_data():
    return make_hte_reference(600, random_state=7)


@pytest.mark.parametrize("Scorer, ref", [
    (DRScorer, lambda sc, t: dr_loss(t.tolist(), sc.pseudo_outcomes_.tolist())),
    (RScorer, lambda sc, t: r_loss(*_lists(t, sc.treatment_, sc.y_, sc.m_, sc.propensity_))),
])
def test_scorer_losses_equal_the_public_losses(Scorer, ref, hte_data):
    d = hte_data
    sc = Scorer(cross_fit=3, random_state=0).fit(d.X, d.treatment, d.y)
    for name, cand in d.candidates.items():
        t = np.asarray(cand, dtype=float)
        assert sc.loss(t) == ref(sc, t), name
        assert sc.loss(t.tolist()) == sc.loss(t) == -sc.score(t)
        assert sc.loss(t.astype(np.float32)) == ref(sc, t.astype(np.float32))
    losses = {k: sc.loss(np.asarray(c, dtype=float)) for k, c in d.candidates.items()}
    assert sc.best(d.candidates) == min(losses, key=losses.get)
    bad = np.asarray(d.candidates["half"], dtype=float).copy()
    bad[3] = np.nan
    raises(lambda: sc.loss(bad), ValueError, names="candidate")
    raises(lambda: sc.loss(bad[:-1]), ValueError, names="candidate")


@pytest.mark.parametrize("Scorer", [DRScorer, RScorer])
def test_the_quick_stale_fit_check_sees_nested_and_plain_parameters(Scorer, hte_data):
    d = hte_data
    t = np.asarray(d.candidates["half"], dtype=float)
    sc = Scorer(propensity_model=LogisticRegression(), cross_fit=3, random_state=0)
    sc.fit(d.X, d.treatment, d.y)
    before = sc.loss(t)
    sc.set_params(propensity_model__C=0.5)
    with pytest.raises(StaleFitError, match="propensity_model__C"):
        sc.loss(t)
    assert sc.set_params(propensity_model__C=1.0).loss(t) == before
    sc = Scorer(cross_fit=3, random_state=0).fit(d.X, d.treatment, d.y)
    sc.set_params(random_state=1)
    with pytest.raises(StaleFitError, match="random_state"):
        sc.best(d.candidates)


def test_the_lean_path_adds_no_warning_of_its_own():
    import warnings

    t1, t2, a, y, mu0, mu1, e = _nuisances(50, 6)
    y = y.copy()
    y[2] = np.inf
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        raises(lambda: relative_error_from_nuisances(t1, t2, a, y, mu0, mu1, e), ValueError,
               names="y")
        raises(lambda: r_loss(t1, a, y, mu0, e), ValueError, names="y")

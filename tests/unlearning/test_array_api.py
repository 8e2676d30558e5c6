"""NewtonUnlearner on array-API inputs (array-api-strict): validation, predictions, requests.
"""

from __future__ import annotations

import numpy as np
import pytest

from statlearn.unlearning import NewtonUnlearner, make_glm_data
from tests.helpers import raises


def test_array_api_inputs_are_validated():
    xps = pytest.importorskip("array_api_strict")
    X, y, _ = make_glm_data(30, 1, loss="squared", random_state=0)
    est = NewtonUnlearner(loss="squared", noise=None).fit(xps.asarray(X), xps.asarray(y))
    ref = NewtonUnlearner(loss="squared", noise=None).fit(X, y)
    np.testing.assert_allclose(np.asarray(est.coef_), ref.coef_, rtol=1e-10)
    raises(lambda: NewtonUnlearner(loss="squared").fit(xps.asarray(X), xps.asarray(y[:-1])),
           ValueError, names="y", shows=["30", "(29,)"], match=r"must be 1-D with .* entries, got ")
    bad = X.copy()
    bad[3, 0] = np.nan
    raises(lambda: NewtonUnlearner(loss="squared").fit(xps.asarray(bad), xps.asarray(y)),
           ValueError, names="X", match=r"must not contain NaN or infinity\.$")
    raises(lambda: NewtonUnlearner(loss="squared").fit(xps.asarray(X[0]), xps.asarray(y)),
           ValueError, names="X", shows="got 1 dimension(s).", match=r"must be 2-D, ")
    raises(lambda: NewtonUnlearner(loss="squared").fit(xps.asarray(X[:, :0]), xps.asarray(y)),
           ValueError, names="X", shows="(30, 0)", match=r"must have at least one row and column, ")
    raises(lambda: est.predict(xps.asarray(np.c_[X, X])), ValueError,
           names=["X", "NewtonUnlearner"], shows=["2 features", "expecting 1 features"],
           match=r" features, but .* is expecting .* features as input\.$")


def test_array_api_predictions_stay_in_their_namespace():
    xps = pytest.importorskip("array_api_strict")
    X, y, _ = make_glm_data(30, 2, loss="squared", random_state=0)
    est = NewtonUnlearner(loss="squared", noise=None).fit(xps.asarray(X), xps.asarray(y))
    pred = est.predict(xps.asarray(X))
    assert isinstance(pred, type(xps.asarray(X)))
    ref = NewtonUnlearner(loss="squared", noise=None).fit(X, y)
    np.testing.assert_allclose(np.asarray(pred), ref.predict(X), rtol=1e-10)
    # one row is enough for the squared loss; zero rows are refused
    one = NewtonUnlearner(loss="squared", noise=None).fit(xps.asarray(X[:1]), xps.asarray(y[:1]))
    assert np.asarray(one.predict(xps.asarray(X[:1]))).shape == (1,)
    raises(lambda: NewtonUnlearner(loss="squared").fit(xps.asarray(X[:0]), xps.asarray(y[:0])),
           ValueError, names="X", shows="(0, 2)", match=r"must have at least one row and column, ")


def test_array_api_poisson_predictions_and_reference_noise():
    xps = pytest.importorskip("array_api_strict")
    X, y, _ = make_glm_data(40, 2, loss="poisson", random_state=0)
    est = NewtonUnlearner(loss="poisson", noise=None).fit(xps.asarray(X), xps.asarray(y))
    ref = NewtonUnlearner(loss="poisson", noise=None).fit(X, y)
    pred = est.predict(xps.asarray(X))
    assert isinstance(pred, type(xps.asarray(X)))
    np.testing.assert_allclose(np.asarray(pred), ref.predict(X), rtol=1e-9)
    noisy = NewtonUnlearner(loss="squared").fit(xps.asarray(X), xps.asarray(y.astype(float)))
    plain = NewtonUnlearner(loss="squared").fit(X, y.astype(float))
    np.testing.assert_allclose(noisy.retrain_reference([0], add_noise=True, random_state=2),
                               plain.retrain_reference([0], add_noise=True, random_state=2),
                               rtol=1e-9)


def test_array_api_targets_must_be_finite_and_unlearning_runs():
    xps = pytest.importorskip("array_api_strict")
    X, y, _ = make_glm_data(30, 2, loss="squared", random_state=0)
    bad = y.copy()
    bad[0] = np.inf
    raises(lambda: NewtonUnlearner(loss="squared").fit(xps.asarray(X), xps.asarray(bad)),
           ValueError, names="y", match=r"^y must be finite\.$")
    est = NewtonUnlearner(loss="squared", noise=None).fit(xps.asarray(X), xps.asarray(y))
    ref = NewtonUnlearner(loss="squared", noise=None).fit(X, y)
    est.unlearn([0, 3])
    ref.unlearn([0, 3])
    np.testing.assert_allclose(np.asarray(est.coef_), ref.coef_, rtol=1e-9)
    assert est.intercept_ == pytest.approx(ref.intercept_, rel=1e-9)


def test_array_api_influence_requests_agree_with_numpy():
    # the stored influence rows and the Woodbury step from them, in the input's namespace
    xps = pytest.importorskip("array_api_strict")
    X, y, _ = make_glm_data(60, 5, random_state=2)
    kw = dict(alpha=0.5, noise=None, store_influence=True)
    est = NewtonUnlearner(**kw).fit(xps.asarray(X), xps.asarray(y))
    ref = NewtonUnlearner(**kw).fit(X, y)
    np.testing.assert_allclose(np.asarray(est.influence_), ref.influence_, rtol=1e-9,
                               atol=1e-12)
    for M in ([0, 3], [10]):
        est.unlearn(M)
        ref.unlearn(M)
        assert est.unlearn_report_.hessian == ref.unlearn_report_.hessian == "influence"
        np.testing.assert_allclose(np.asarray(est.coef_), ref.coef_, rtol=1e-9)

"""NewtonUnlearner on the base layer: constraints, request-time noise streams, divergences."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from statlearn.unlearning import NewtonUnlearner, ged, make_glm_data, ued


@pytest.fixture(scope="module")
def glm():
    return make_glm_data(120, 8, random_state=4)


def test_constraints_name_the_parameter_and_read_numpy_scalars(glm):
    X, y, _ = glm
    with pytest.raises(ValueError, match=r"NewtonUnlearner parameter delta must be in \(0, 1\), "
                                         r"got 5.*percentage"):
        NewtonUnlearner(delta=5).fit(X, y)
    with pytest.raises(TypeError, match=r"NewtonUnlearner parameter verify must be a bool, "
                                        r"got str 'yes'"):
        NewtonUnlearner(verify="yes").fit(X, y)
    a = NewtonUnlearner(alpha=np.float32(0.5), epsilon=np.array(1.0), n_newton_steps=np.int64(2),
                        max_iter=np.array(50), random_state=np.array(3)).fit(X, y)
    b = NewtonUnlearner(alpha=0.5, epsilon=1.0, n_newton_steps=2, max_iter=50,
                        random_state=3).fit(X, y)
    np.testing.assert_allclose(a.coef_, b.coef_, rtol=1e-12)
    np.testing.assert_allclose(a.unlearn([1]).coef_, b.unlearn([1]).coef_, rtol=1e-12)


def test_a_repeated_noise_stream_is_refused(glm):
    # the same seed for two requests gives the same noise: the difference of the two
    # releases is then noise-free; it used to be released (and mu_spent_ composed)
    X, y, _ = glm
    est = NewtonUnlearner(random_state=0).fit(X, y)
    est.unlearn([0], random_state=5)
    state = (est.coef_.copy(), est.removed_.copy(), len(est.history_), est.mu_spent_)
    with pytest.raises(ValueError, match=r"random_state: the noise of this request repeats"):
        est.unlearn([1], random_state=5)
    np.testing.assert_array_equal(est.coef_, state[0])
    np.testing.assert_array_equal(est.removed_, state[1])
    assert (len(est.history_), est.mu_spent_) == state[2:]
    est.unlearn([1], random_state=6)                 # a fresh seed is fine
    est.unlearn([2])                                 # so is the stream of fit
    # the seed of fit given again repeats the draw the stream of fit made first
    again = NewtonUnlearner(random_state=3).fit(X, y)
    again.unlearn([0])
    with pytest.raises(ValueError, match="random_state"):
        again.unlearn([1], random_state=3)
    # a Generator given twice continues: no repeat
    rng = np.random.default_rng(9)
    est.unlearn([3], random_state=rng).unlearn([4], random_state=rng)
    assert len(est.history_) == 5


def test_requests_accept_every_kind_of_random_state_and_pandas_inputs(glm):
    X, y, _ = glm
    idx = np.arange(300, 300 + X.shape[0])
    frame = pd.DataFrame(X, index=idx, columns=[f"f{j}" for j in range(X.shape[1])])
    a = NewtonUnlearner(random_state=0).fit(frame, pd.Series(y.astype(int), index=idx))
    b = NewtonUnlearner(random_state=0).fit(X, y)
    np.testing.assert_allclose(a.coef_, b.coef_, rtol=1e-10)
    np.testing.assert_array_equal(a.predict(frame), b.predict(X))
    with pytest.raises(ValueError, match="X.*NaN"):
        a.predict(frame.where(frame > 0.2))
    for rs in (None, 2, np.int64(2), np.array(2), np.random.RandomState(2),
               np.random.default_rng(2), np.random.SeedSequence(2)):
        est = NewtonUnlearner(random_state=rs).fit(X, y)
        est.unlearn([0], random_state=rs)
        est.retrain_reference([1], add_noise=True, n_draws=2, random_state=rs)


def test_divergences_name_their_arguments_and_check_the_outcomes(glm):
    X, y, beta = glm
    Xn = X.copy()
    Xn[0, 0] = np.nan
    with pytest.raises(ValueError, match=r"X_test: .*NaN"):
        ged(beta, beta, Xn, y, "logistic")
    with pytest.raises(ValueError, match=r"y_removed: .*NaN"):
        ued(beta, beta, X, np.where(y > 0, np.nan, y), "logistic")
    with pytest.raises(ValueError, match=r"y_test must hold 0/1 labels"):
        ged(beta, beta, X, 2 * y - 1, "logistic")       # -1/1 coding
    with pytest.raises(ValueError, match=r"y_test must be non-negative counts"):
        ged(beta, beta, X, -y, "poisson")
    with pytest.raises(ValueError, match=r"intercept_ref must not be NaN"):
        ged(beta, beta, X, y, "logistic", intercept_ref=np.nan)
    with pytest.raises(ValueError, match=r"intercept_unlearned: .*NaN"):
        ged(beta, beta, X, y, "logistic", intercept_unlearned=np.nan)
    idx = np.arange(50, 50 + X.shape[0])
    a = ged(pd.Series(beta), [beta, beta + 0.1], pd.DataFrame(X, index=idx),
            pd.Series(y.astype(int), index=idx), "logistic", intercept_ref=np.float32(0.1),
            intercept_unlearned=np.array([0.0, 0.2]))
    b = ged(beta, np.array([beta, beta + 0.1]), X, y, "logistic", intercept_ref=0.1,
            intercept_unlearned=[0.0, 0.2])
    assert a.estimate == pytest.approx(b.estimate, rel=1e-6)
